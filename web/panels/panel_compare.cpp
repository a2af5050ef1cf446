// The Compare tab (lecture section 7): FlexFlow's MCMC plan and Alpa's pipeline plan (inter-op
// stages, each planned by the intra-op pass) for the current model and cluster, both turned into
// task graphs and simulated by the same simulator (core/operations/compare.h, `autopar
// compare`), side by side: makespans, time breakdowns, Alpa's stages and their boundaries, the
// per-op strategies and how long each planner took, drawn from the report read into typed rows
// (compare_summary.h). Neither system offers this comparison.
#include <algorithm>
#include <cstdio>
#include <string>

#include "compare_summary.h"
#include "format_units.h"
#include "imgui.h"
#include "lecture_state.h"
#include "panel_common.h"
#include "panels.h"
#include "plan_export.h"
#include "ui_style.h"

namespace autopar::web {
namespace {

void draw_summary(const CompareSummary& out) {
  const CompareBreakdown& fb = out.flexflow;
  const CompareBreakdown& ab = out.alpa;
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
  if (fb.makespan_ms > 0 && ab.makespan_ms > 0) ImGui::Text(tr("compare.faster"), out.flexflow_faster() ? "FlexFlow" : "Alpa", out.speedup());
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
  row("compare.row_iteration", format_ms(fb.makespan_ms), format_ms(ab.makespan_ms));
  row("compare.row_compute", format_ms(fb.compute_ms), format_ms(ab.compute_ms));
  row("compare.row_activations", format_ms(fb.activation_transfer_ms), format_ms(ab.activation_transfer_ms));
  row("compare.row_sync", format_ms(fb.param_sync_ms), format_ms(ab.param_sync_ms));
  row("compare.row_activation_bytes", format_bytes(fb.activation_bytes), format_bytes(ab.activation_bytes));
  row("compare.row_sync_bytes", format_bytes(fb.param_sync_bytes), format_bytes(ab.param_sync_bytes));
  row("compare.row_memory", format_bytes(fb.peak_memory_bytes), format_bytes(ab.peak_memory_bytes));
  char steps[96];
  std::snprintf(steps, sizeof steps, tr("compare.best_at"), format_ms(out.search_elapsed_ms).c_str(), static_cast<long long>(out.search_steps));
  char pipeline[128];
  std::snprintf(pipeline, sizeof pipeline, tr(out.stages.size() == 1 ? "compare.pipeline_one" : "compare.pipeline"), out.stages.size(),
                out.microbatches, format_ms(out.pipeline_objective_ms).c_str());
  row("compare.row_pipeline", tr("compare.none"), pipeline);
  if (out.pipeline_1f1b_ms > 0)   // the plan under the schedule model: the inter-op tab's charts
    row("compare.row_schedules", tr("compare.none"),
        tr_fill("compare.schedules", {format_ms(out.pipeline_gpipe_ms), format_ms(out.pipeline_1f1b_ms)}));
  char solve[96];
  std::snprintf(solve, sizeof solve, tr("compare.on_mesh"), format_ms(out.alpa_solve_ms).c_str(), out.mesh.c_str());
  row("compare.row_planning", steps, solve);
  ImGui::EndTable();
}

// Alpa's stages: layers, GPUs, logical mesh, and what each boundary sends per micro-batch.
void draw_stages(const CompareSummary& out) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##compare_stages", 5, flags)) return;
  ImGui::TableSetupColumn(tr("inter.col_stage"), ImGuiTableColumnFlags_WidthStretch, 0.4f);
  ImGui::TableSetupColumn(tr("inter.col_layers"), ImGuiTableColumnFlags_WidthStretch, 0.6f);
  ImGui::TableSetupColumn(tr("compare.col_gpus"), ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn(tr("compare.col_latency"), ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn(tr("compare.col_boundary"), ImGuiTableColumnFlags_WidthStretch, 1.6f);
  ImGui::TableHeadersRow();
  for (size_t k = 0; k < out.stages.size(); ++k) {
    const CompareStageRow& st = out.stages[k];
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::Text("%zu", k);
    ImGui::TableSetColumnIndex(1);
    ImGui::Text("%d-%d", st.first_layer, st.last_layer);
    ImGui::TableSetColumnIndex(2);
    ImGui::Text("%d-%d (%s)", st.first_device, st.last_device, st.logical_mesh.c_str());
    ImGui::TableSetColumnIndex(3);
    ImGui::TextUnformatted(format_ms(st.latency).c_str());
    ImGui::TableSetColumnIndex(4);
    if (st.has_boundary)
      ImGui::Text("%s, %s, %s", format_bytes(st.boundary_bytes).c_str(), st.boundary_inter_node ? "across nodes" : "inside a node",
                  format_ms(st.boundary_ms).c_str());
    else
      ImGui::TextDisabled("(last stage)");
  }
  ImGui::EndTable();
}

void draw_strategies(const CompareSummary& out) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp |
                                ImGuiTableFlags_ScrollY;
  if (!ImGui::BeginTable("##compare_ops", 4, flags, ImVec2(0, 0))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn(tr("ex3.col_op"), ImGuiTableColumnFlags_WidthStretch, 0.6f);
  ImGui::TableSetupColumn(tr("compare.col_soap"), ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn(tr("compare.col_alpa_strategy"), ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn(tr("compare.col_alpa_soap"), ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableHeadersRow();
  for (const CompareOpRow& op : out.ops) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(op.name.c_str());
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted(placement_text(op.flexflow).c_str());
    ImGui::TableSetColumnIndex(2);
    if (op.has_alpa) ImGui::Text(tr("compare.stage_strategy"), op.alpa_stage, op.alpa_strategy.c_str(), op.alpa_output_spec.c_str());
    ImGui::TableSetColumnIndex(3);
    if (op.has_alpa_placement) ImGui::TextUnformatted(placement_text(op.alpa).c_str());
  }
  ImGui::EndTable();
}

}  // namespace

void draw_compare_panel(AppState& state, const PanelRect& rect) {
  CompareState& cmp = state.compare;
  const std::string inputs = compare_inputs_label(state);
  // Started on first view; the two planners run side by side in the page's workers, Alpa's on
  // the page's own pipeline plan (the inter-op tab's).
  if (!cmp.output.is_object() && !compare_running(cmp) && cmp.error.empty()) cmp.compute_pending = true;
  if (cmp.compute_pending) {
    start_page_compare(state);
    cmp.compute_pending = false;
  }
  compare_advance(cmp, 10.0);
  compare_take_inter_plan(cmp, state.alpa.inter);
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
        ImGui::TextDisabled("build/autopar compare --model %s --cluster %s --seed %lld --microbatches %lld --json", state.settings.model.c_str(),
                            state.settings.cluster.c_str(), static_cast<long long>(state.settings.seed),
                            static_cast<long long>(state.settings.microbatches));
      }
    }
    if (compare_running(cmp)) {
      ImGui::TextDisabled("%s", tr(cmp.alpa_waiting ? "compare.waiting_plan" : "compare.searching"));
    } else if (!cmp.error.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.55f, 1.0f));
      ImGui::TextWrapped(tr("lecture.error"), cmp.error.c_str());
      ImGui::PopStyleColor();
    } else if (cmp.summary) {
      if (cmp.inputs != inputs)
        ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.4f, 1.0f), tr("compare.stale"),
                           cmp.inputs.c_str());
      else
        ImGui::TextDisabled(tr("compare.results_for"), cmp.inputs.c_str());
      section_header(tr("compare.both"));
      // One Alpa plan per page state: the inter-op tab's, with the page's micro-batches.
      ImGui::TextWrapped("%s", tr_fill("compare.same_plan", {std::to_string(cmp.summary->stages.size()), std::to_string(cmp.summary->microbatches),
                                                              format_ms(cmp.summary->pipeline_objective_ms)})
                                   .c_str());
      // Where SOAP cannot reach Alpa's plan: a pipeline over micro-batches (lecture 7).
      const std::string why = compare_pipeline_note(*cmp.summary);
      if (!why.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.55f, 1.0f));
        ImGui::TextWrapped("%s", why.c_str());
        ImGui::PopStyleColor();
        note_place(state, "compare_why");
      }
      draw_summary(*cmp.summary);
      section_header(tr("compare.stages"));
      draw_stages(*cmp.summary);
      section_header(tr("compare.strategies"));
      draw_strategies(*cmp.summary);
    }
  }
  ImGui::End();
}

}  // namespace autopar::web
