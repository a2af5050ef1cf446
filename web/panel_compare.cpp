// The Compare tab (lecture section 7): FlexFlow's MCMC plan and Alpa's pipeline plan (inter-op
// stages, each planned by the intra-op pass) for the current model and cluster, both turned into
// task graphs and simulated by the same simulator (core/operations/compare.h, `autopar
// compare`), side by side: makespans, time breakdowns, Alpa's stages and their boundaries, the
// per-op strategies and how long each planner took. Neither system offers this comparison.
#include <algorithm>
#include <cstdio>
#include <string>

#include "format_units.h"
#include "imgui.h"
#include "lecture_state.h"
#include "panel_common.h"
#include "panels.h"
#include "plan_export.h"

namespace autopar::web {
namespace {

// The compare inputs of the current settings: "model on cluster, seed N".
std::string current_inputs(const AppState& state) {
  return state.settings.model + " on " + state.settings.cluster + ", seed " + std::to_string(state.settings.seed);
}

double number(const Json& j, const char* key) { return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0; }

// "sample 2 x channel 4 @ 0-7": the op's non-trivial degrees and its devices.
std::string soap_config(const Json& op) {
  std::string s;
  if (op.contains("degrees"))
    for (auto it = op["degrees"].begin(); it != op["degrees"].end(); ++it)
      if (it.value().get<int64_t>() > 1) s += (s.empty() ? "" : " x ") + it.key() + " " + std::to_string(it.value().get<int64_t>());
  if (s.empty()) s = "whole";
  const auto& d = op["devices"];
  if (d.size() == 1) return s + " @ GPU " + std::to_string(d[0].get<int>());
  bool consecutive = true;
  for (size_t i = 1; i < d.size(); ++i) consecutive &= d[i].get<int>() == d[i - 1].get<int>() + 1;
  if (consecutive) return s + " @ " + std::to_string(d[0].get<int>()) + "-" + std::to_string(d[d.size() - 1].get<int>());
  std::string list;
  for (const auto& x : d) list += (list.empty() ? "" : ",") + std::to_string(x.get<int>());
  return s + " @ " + list;
}

void draw_summary(const Json& out) {
  const Json& ff = out["flexflow"];
  const Json& al = out["alpa"];
  const Json& fb = ff["breakdown"];
  const Json& ab = al["breakdown"];
  const double ff_ms = number(ff, "makespan_ms"), al_ms = number(al, "makespan_ms");
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
  if (ff_ms > 0 && al_ms > 0)
    ImGui::Text("%s is faster by %.2fx on this model and cluster (same simulator for both).", ff_ms <= al_ms ? "FlexFlow" : "Alpa",
                std::max(ff_ms, al_ms) / std::min(ff_ms, al_ms));
  ImGui::PopStyleColor();
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##compare_summary", 3, flags)) return;
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.4f);
  ImGui::TableSetupColumn("FlexFlow (MCMC over SOAP)", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("Alpa (pipeline stages, intra-op ILP each)", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableHeadersRow();
  auto row = [](const char* label, const std::string& a, const std::string& b) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(label);
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted(a.c_str());
    ImGui::TableSetColumnIndex(2);
    ImGui::TextUnformatted(b.c_str());
  };
  row("Simulated iteration (makespan)", format_ms(ff_ms), format_ms(al_ms));
  row("  compute (sum of tasks)", format_ms(number(fb, "compute_ms")), format_ms(number(ab, "compute_ms")));
  row("  activation transfers (sum)", format_ms(number(fb, "activation_transfer_ms")), format_ms(number(ab, "activation_transfer_ms")));
  row("  parameter sync (sum)", format_ms(number(fb, "param_sync_ms")), format_ms(number(ab, "param_sync_ms")));
  row("Activation bytes moved", format_bytes(number(fb, "activation_bytes")), format_bytes(number(ab, "activation_bytes")));
  row("Parameter sync bytes", format_bytes(number(fb, "param_sync_bytes")), format_bytes(number(ab, "param_sync_bytes")));
  row("Peak memory per GPU", format_bytes(number(fb, "peak_memory_bytes")), format_bytes(number(ab, "peak_memory_bytes")));
  char steps[96];
  std::snprintf(steps, sizeof steps, "%s (best at step %lld)", format_ms(number(ff, "elapsed_ms")).c_str(),
                static_cast<long long>(number(ff, "search_steps")));
  char pipeline[128];
  std::snprintf(pipeline, sizeof pipeline, "%zu stage%s, %d micro-batches; objective %s", al["stages"].size(), al["stages"].size() == 1 ? "" : "s",
                int(number(al, "microbatches")), format_ms(number(al, "objective")).c_str());
  row("Pipeline (Alpa's inter-op pass)", "none (one batch)", pipeline);
  char solve[96];
  std::snprintf(solve, sizeof solve, "%s (on %s)", format_ms(number(al, "solve_ms")).c_str(),
                al.contains("mesh") ? al["mesh"].get<std::string>().c_str() : "?");
  row("Planning time (wall clock)", steps, solve);
  ImGui::EndTable();
}

// Alpa's stages: layers, GPUs, logical mesh, and what each boundary sends per micro-batch.
void draw_stages(const Json& out) {
  const Json& stages = out["alpa"]["stages"];
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##compare_stages", 5, flags)) return;
  ImGui::TableSetupColumn("Stage", ImGuiTableColumnFlags_WidthStretch, 0.4f);
  ImGui::TableSetupColumn("Layers", ImGuiTableColumnFlags_WidthStretch, 0.6f);
  ImGui::TableSetupColumn("GPUs (logical mesh)", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn("Latency per micro-batch", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn("Boundary to the next (send/recv, per micro-batch)", ImGuiTableColumnFlags_WidthStretch, 1.6f);
  ImGui::TableHeadersRow();
  for (size_t k = 0; k < stages.size(); ++k) {
    const Json& st = stages[k];
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::Text("%zu", k);
    ImGui::TableSetColumnIndex(1);
    ImGui::Text("%d-%d", st["layers"][0].get<int>(), st["layers"][1].get<int>());
    ImGui::TableSetColumnIndex(2);
    ImGui::Text("%d-%d (%s)", st["devices"][0].get<int>(), st["devices"][1].get<int>(), st.value("logical_mesh", "").c_str());
    ImGui::TableSetColumnIndex(3);
    ImGui::TextUnformatted(format_ms(number(st, "latency")).c_str());
    ImGui::TableSetColumnIndex(4);
    const Json& b = st["boundary"];
    if (b.is_object())
      ImGui::Text("%s, %s, %s", format_bytes(number(b, "bytes")).c_str(), b.value("inter_node", false) ? "across nodes" : "inside a node",
                  format_ms(number(b, "ms")).c_str());
    else
      ImGui::TextDisabled("(last stage)");
  }
  ImGui::EndTable();
}

void draw_strategies(const Json& out) {
  const Json& ff_ops = out["flexflow"]["strategy"]["ops"];
  const Json& al_ops = out["alpa"]["strategy"]["ops"];
  const Json& plan = out["alpa"]["plan"];
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp |
                                ImGuiTableFlags_ScrollY;
  if (!ImGui::BeginTable("##compare_ops", 4, flags, ImVec2(0, 0))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Op", ImGuiTableColumnFlags_WidthStretch, 0.6f);
  ImGui::TableSetupColumn("FlexFlow: SOAP degrees @ devices", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn("Alpa: strategy (output spec)", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn("Alpa as SOAP", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < ff_ops.size(); ++i) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(ff_ops[i].value("name", "").c_str());
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted(soap_config(ff_ops[i]).c_str());
    ImGui::TableSetColumnIndex(2);
    if (i < plan.size())
      ImGui::Text("stage %d: %s (%s)", plan[i].value("stage", 0), plan[i].value("strategy", "").c_str(), plan[i].value("output_spec", "").c_str());
    ImGui::TableSetColumnIndex(3);
    if (i < al_ops.size()) ImGui::TextUnformatted(soap_config(al_ops[i]).c_str());
  }
  ImGui::EndTable();
}

}  // namespace

void draw_compare_panel(AppState& state, const PanelRect& rect) {
  CompareState& cmp = state.compare;
  const std::string inputs = current_inputs(state);
  // Started on first view; the MCMC search advances a slice per frame, then Alpa plans.
  if (!cmp.output.is_object() && !cmp.job && cmp.error.empty()) cmp.compute_pending = true;
  if (cmp.compute_pending) {
    compare_start(cmp, state.graph, state.cluster, inputs, state.settings.seed);
    cmp.compute_pending = false;
  }
  compare_advance(cmp, 10.0);
  if (begin_panel(state, kCompareWindow, "compare", rect)) {
    ImGui::TextWrapped("FlexFlow searches SOAP configurations with MCMC (2,000 proposals from data parallel, the seed below, a slice per frame). "
                       "Alpa's inter-op pass slices the model into pipeline stages on sub-meshes and its intra-op ILP plans each stage. "
                       "Both plans become task graphs and are simulated by the same simulator (lecture section 7), as `autopar compare` does: "
                       "Alpa's micro-batch by micro-batch, so that each stage boundary is real send/recv transfer tasks on the links "
                       "between the two sub-meshes (lecture 6.4); FlexFlow's plan runs the whole batch at once.");
    {
      if (cmp.job) {
        char overlay[96];
        const int64_t steps = compare_search_steps(cmp);
        std::snprintf(overlay, sizeof overlay, "MCMC search: %lld / 2000 proposals", static_cast<long long>(steps));
        ImGui::ProgressBar(float(steps) / 2000.0f, ImVec2(ImGui::GetFontSize() * 16.0f, 0), overlay);
      } else if (ImGui::Button("Run both planners")) {
        cmp.compute_pending = true;
      }
      if (!state.settings.custom_cluster) {
        ImGui::SameLine();
        ImGui::TextDisabled("build/autopar compare --model %s --cluster %s --seed %lld --json", state.settings.model.c_str(),
                            state.settings.cluster.c_str(), static_cast<long long>(state.settings.seed));
      }
    }
    if (cmp.job) {
      ImGui::TextDisabled("Searching; Alpa plans once the search ends.");
    } else if (!cmp.error.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.55f, 1.0f));
      ImGui::TextWrapped("error: %s", cmp.error.c_str());
      ImGui::PopStyleColor();
    } else if (cmp.output.is_object()) {
      if (cmp.inputs != inputs)
        ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.4f, 1.0f), "These results are for %s; press Run for the current inputs.",
                           cmp.inputs.c_str());
      else
        ImGui::TextDisabled("Results for %s.", cmp.inputs.c_str());
      section_header("Both plans, one simulator");
      draw_summary(cmp.output);
      section_header("Alpa's pipeline stages");
      draw_stages(cmp.output);
      section_header("The strategies, op by op");
      draw_strategies(cmp.output);
    }
  }
  ImGui::End();
}

}  // namespace autopar::web
