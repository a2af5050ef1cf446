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
    ImGui::Text(tr("compare.faster"), ff_ms <= al_ms ? "FlexFlow" : "Alpa",
                std::max(ff_ms, al_ms) / std::min(ff_ms, al_ms));
  ImGui::PopStyleColor();
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##compare_summary", 3, flags)) return;
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.4f);
  ImGui::TableSetupColumn(tr("compare.col_flexflow"), ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn(tr("compare.col_alpa"), ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableHeadersRow();
  auto row = [](const char* label, const std::string& a, const std::string& b) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(tr(label));
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted(a.c_str());
    ImGui::TableSetColumnIndex(2);
    ImGui::TextUnformatted(b.c_str());
  };
  row("compare.row_iteration", format_ms(ff_ms), format_ms(al_ms));
  row("compare.row_compute", format_ms(number(fb, "compute_ms")), format_ms(number(ab, "compute_ms")));
  row("compare.row_activations", format_ms(number(fb, "activation_transfer_ms")), format_ms(number(ab, "activation_transfer_ms")));
  row("compare.row_sync", format_ms(number(fb, "param_sync_ms")), format_ms(number(ab, "param_sync_ms")));
  row("compare.row_activation_bytes", format_bytes(number(fb, "activation_bytes")), format_bytes(number(ab, "activation_bytes")));
  row("compare.row_sync_bytes", format_bytes(number(fb, "param_sync_bytes")), format_bytes(number(ab, "param_sync_bytes")));
  row("compare.row_memory", format_bytes(number(fb, "peak_memory_bytes")), format_bytes(number(ab, "peak_memory_bytes")));
  char steps[96];
  std::snprintf(steps, sizeof steps, tr("compare.best_at"), format_ms(number(ff, "elapsed_ms")).c_str(),
                static_cast<long long>(number(ff, "search_steps")));
  char pipeline[128];
  std::snprintf(pipeline, sizeof pipeline, tr(al["stages"].size() == 1 ? "compare.pipeline_one" : "compare.pipeline"), al["stages"].size(),
                int(number(al, "microbatches")), format_ms(number(al, "objective")).c_str());
  row("compare.row_pipeline", tr("compare.none"), pipeline);
  char solve[96];
  std::snprintf(solve, sizeof solve, tr("compare.on_mesh"), format_ms(number(al, "solve_ms")).c_str(),
                al.contains("mesh") ? al["mesh"].get<std::string>().c_str() : "?");
  row("compare.row_planning", steps, solve);
  ImGui::EndTable();
}

// Alpa's stages: layers, GPUs, logical mesh, and what each boundary sends per micro-batch.
void draw_stages(const Json& out) {
  const Json& stages = out["alpa"]["stages"];
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##compare_stages", 5, flags)) return;
  ImGui::TableSetupColumn(tr("inter.col_stage"), ImGuiTableColumnFlags_WidthStretch, 0.4f);
  ImGui::TableSetupColumn(tr("inter.col_layers"), ImGuiTableColumnFlags_WidthStretch, 0.6f);
  ImGui::TableSetupColumn(tr("compare.col_gpus"), ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn(tr("compare.col_latency"), ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn(tr("compare.col_boundary"), ImGuiTableColumnFlags_WidthStretch, 1.6f);
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
  ImGui::TableSetupColumn(tr("ex3.col_op"), ImGuiTableColumnFlags_WidthStretch, 0.6f);
  ImGui::TableSetupColumn(tr("compare.col_soap"), ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn(tr("compare.col_alpa_strategy"), ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn(tr("compare.col_alpa_soap"), ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < ff_ops.size(); ++i) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(ff_ops[i].value("name", "").c_str());
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted(soap_config(ff_ops[i]).c_str());
    ImGui::TableSetColumnIndex(2);
    if (i < plan.size())
      ImGui::Text(tr("compare.stage_strategy"), plan[i].value("stage", 0), plan[i].value("strategy", "").c_str(), plan[i].value("output_spec", "").c_str());
    ImGui::TableSetColumnIndex(3);
    if (i < al_ops.size()) ImGui::TextUnformatted(soap_config(al_ops[i]).c_str());
  }
  ImGui::EndTable();
}

}  // namespace

void draw_compare_panel(AppState& state, const PanelRect& rect) {
  CompareState& cmp = state.compare;
  const std::string inputs = current_inputs(state);
  // Started on first view; the two planners run side by side in the page's workers.
  if (!cmp.output.is_object() && !compare_running(cmp) && cmp.error.empty()) cmp.compute_pending = true;
  if (cmp.compute_pending) {
    compare_start(cmp, state.alpa.inter.worker, operation_inputs(state.settings), inputs, state.settings.seed);
    cmp.compute_pending = false;
  }
  compare_advance(cmp, 10.0);
  if (begin_panel(state, kCompareWindow, "compare", rect)) {
    ImGui::TextWrapped("%s", tr("compare.intro"));
    {
      if (compare_running(cmp)) {
        char overlay[96];
        const int64_t steps = compare_search_steps(cmp);
        std::snprintf(overlay, sizeof overlay, tr("compare.progress"), static_cast<long long>(steps));
        ImGui::ProgressBar(float(steps) / 2000.0f, ImVec2(ImGui::GetFontSize() * 16.0f, 0), overlay);
      } else if (ImGui::Button(tr_id("compare.run").c_str())) {
        cmp.compute_pending = true;
      }
      if (!state.settings.custom_cluster) {
        ImGui::SameLine();
        ImGui::TextDisabled("build/autopar compare --model %s --cluster %s --seed %lld --json", state.settings.model.c_str(),
                            state.settings.cluster.c_str(), static_cast<long long>(state.settings.seed));
      }
    }
    if (compare_running(cmp)) {
      ImGui::TextDisabled("%s", tr("compare.searching"));
    } else if (!cmp.error.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.55f, 1.0f));
      ImGui::TextWrapped(tr("lecture.error"), cmp.error.c_str());
      ImGui::PopStyleColor();
    } else if (cmp.output.is_object()) {
      if (cmp.inputs != inputs)
        ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.4f, 1.0f), tr("compare.stale"),
                           cmp.inputs.c_str());
      else
        ImGui::TextDisabled(tr("compare.results_for"), cmp.inputs.c_str());
      section_header(tr("compare.both"));
      draw_summary(cmp.output);
      section_header(tr("compare.stages"));
      draw_stages(cmp.output);
      section_header(tr("compare.strategies"));
      draw_strategies(cmp.output);
    }
  }
  ImGui::End();
}

}  // namespace autopar::web
