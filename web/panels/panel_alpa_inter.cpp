// The Alpa inter-op panel (Alpa section 5, and 6.4 for the boundaries): micro-batches, the
// pipeline stages drawn on the cluster with their sub-meshes and layer ranges (in the model's
// numbering), stage latencies, each boundary's bytes and time, total latency and t_max, and the
// pipeline schedule of the plan as a Gantt chart for GPipe and for 1F1B with the bubble drawn
// (each stage's idle time) and the boundaries' send/recv boxes on lanes of their own, with a
// sentence saying why 1F1B can take longer here. Every term of the total is shown so that
// sum(t_i) + (B - 1) t_max can be redone by hand. The plan follows its inputs: every change
// re-plans it in the page's workers (alpa_view.h follow_inter_plan), under a progress bar with
// a Cancel button when it takes long.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "format_units.h"
#include "imgui.h"
#include "panel_common.h"
#include "panels.h"

namespace autopar::web {
namespace {

// Planning work per frame: most of a 60 Hz frame (16.7 ms), since the reader is waiting for the
// plan, leaving room to draw the panel so the page keeps about 60 frames/s.
constexpr double kPlanningMsPerFrame = 12.0;

// The kinds of box a schedule chart draws, each with its colour and legend: one row per kind,
// so a schedule with more kinds (a weight-gradient W of zero-bubble schedules, chunks of an
// interleaved one) adds a row here and a case in box_kind.
enum class BoxKind { forward, backward, send_forward, send_backward, count };
struct BoxStyle {
  ImU32 color;
  const char* legend;   // string key; nullptr: no legend item of its own
  bool on_link;         // drawn on the link lane between two stages, not on a stage
};
const BoxStyle kBoxStyles[int(BoxKind::count)] = {
    {IM_COL32(86, 156, 230, 255), "inter.forward", false},
    {IM_COL32(236, 150, 70, 255), "inter.backward_legend", false},
    {IM_COL32(150, 156, 170, 255), "inter.send_legend", true},   // activation forward: lighter
    {IM_COL32(112, 116, 128, 255), nullptr, true},               // gradient back
};
const BoxStyle& box_style(BoxKind k) { return kBoxStyles[int(k)]; }
BoxKind box_kind(const PipelineBox& b) {
  if (b.transfer) return b.forward ? BoxKind::send_forward : BoxKind::send_backward;
  return b.forward ? BoxKind::forward : BoxKind::backward;
}
// A stage's idle time inside the makespan (the bubble): translucent red over its lane.
const ImU32 kIdleColor = IM_COL32(220, 70, 70, 70);
const ImU32 kIdleEdge = IM_COL32(220, 90, 90, 150);

ImU32 stage_color(int k, int) { return pipeline_stage_color(k); }

void draw_cluster_stages(const AppState& state, const InterOpPlan& plan, float width) {
  const int nodes = state.cluster.nodes, gpus = state.cluster.gpus_per_node;
  const auto places = stage_places(plan, nodes, gpus);
  const float font = ImGui::GetFontSize();
  const float label_w = font * 4.5f;
  const float cell = std::clamp((width - label_w) / float(std::max(gpus, 1)), font * 2.2f, font * 5.0f);
  const float cell_h = font * 2.6f;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int n = 0; n < nodes; ++n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, tr("inter.node"), n);
    dl->AddText(ImVec2(p.x, p.y + float(n) * cell_h + cell_h * 0.5f - font * 0.5f), ImGui::GetColorU32(ImGuiCol_TextDisabled), buf);
    for (int g = 0; g < gpus; ++g) {
      const ImVec2 a(p.x + label_w + float(g) * cell, p.y + float(n) * cell_h);
      dl->AddRect(ImVec2(a.x + 2, a.y + 2), ImVec2(a.x + cell - 2, a.y + cell_h - 2), IM_COL32(90, 96, 110, 255), 3.0f);
    }
  }
  for (size_t k = 0; k < plan.stages.size(); ++k) {
    const auto& st = plan.stages[k];
    const auto [n0, g0] = places[k];
    const ImVec2 a(p.x + label_w + float(g0) * cell + 3, p.y + float(n0) * cell_h + 3);
    const ImVec2 b(p.x + label_w + float(g0 + st.submesh.gpus) * cell - 3, p.y + float(n0 + st.submesh.nodes) * cell_h - 3);
    dl->AddRectFilled(a, b, stage_color(int(k), int(plan.stages.size())), 4.0f);
    // Thin gaps between the GPUs of the sub-mesh.
    for (int g = g0 + 1; g < g0 + st.submesh.gpus; ++g) {
      const float x = p.x + label_w + float(g) * cell;
      dl->AddLine(ImVec2(x, a.y + 4), ImVec2(x, b.y - 4), IM_COL32(20, 24, 30, 90), 1.5f);
    }
    for (int n = n0 + 1; n < n0 + st.submesh.nodes; ++n) {
      const float y = p.y + float(n) * cell_h;
      dl->AddLine(ImVec2(a.x + 4, y), ImVec2(b.x - 4, y), IM_COL32(20, 24, 30, 90), 1.5f);
    }
    for (int n = n0; n < n0 + st.submesh.nodes; ++n)
      for (int g = g0; g < g0 + st.submesh.gpus; ++g) {
        char dev[16];
        std::snprintf(dev, sizeof dev, "%d", n * gpus + g);
        dl->AddText(ImVec2(p.x + label_w + float(g) * cell + 6, p.y + float(n) * cell_h + 4), IM_COL32(20, 24, 30, 170), dev);
      }
    char label[64];
    const auto [first, last] = stage_layer_numbers(state.alpa.inter, st);
    std::snprintf(label, sizeof label, tr("inter.stage_layers"), k, first, last);
    const ImVec2 ts = ImGui::CalcTextSize(label);
    const ImVec2 mid((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f + font * 0.3f);
    if (ts.x < b.x - a.x - 4)
      dl->AddRectFilled(ImVec2(mid.x - ts.x * 0.5f - 4, mid.y - ts.y * 0.5f - 1), ImVec2(mid.x + ts.x * 0.5f + 4, mid.y + ts.y * 0.5f + 1),
                        stage_color(int(k), int(plan.stages.size())), 3.0f);
    if (ts.x < b.x - a.x - 4)
      dl->AddText(ImVec2((a.x + b.x - ts.x) * 0.5f, (a.y + b.y - ts.y) * 0.5f + font * 0.3f), IM_COL32(15, 18, 24, 255), label);
    else {
      std::snprintf(label, sizeof label, "S%zu", k);
      const ImVec2 t2 = ImGui::CalcTextSize(label);
      dl->AddText(ImVec2((a.x + b.x - t2.x) * 0.5f, (a.y + b.y - t2.y) * 0.5f + font * 0.3f), IM_COL32(15, 18, 24, 255), label);
    }
  }
  ImGui::Dummy(ImVec2(label_w + float(gpus) * cell, float(nodes) * cell_h));
}

// "8.1917 ms": four decimals whatever the size, so that the terms shown add up by hand to the
// total shown (31 x 8.2672 is 256.28 either way; with three, rounding shows in the sum).
std::string ms4(double ms) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.4f ms", ms);
  return buf;
}

// A stage's knobs in the page's language: "SP, ZeRO-1, selective recomputation".
std::string stage_knobs_text(const StageKnobs& k) {
  std::string out;
  auto add = [&out](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  if (k.sequence_parallel) add(tr("inter.knob_sp"));
  if (k.zero_stage == 3) add(tr("inter.knob_fsdp"));
  else if (k.zero_stage > 0) add(tr_fill("inter.knob_zero", {std::to_string(k.zero_stage)}));
  if (k.recompute == "full") add(tr("inter.knob_recompute_full"));
  else if (k.recompute == "selective") add(tr("inter.knob_recompute_selective"));
  return out.empty() ? tr("inter.knob_none") : out;
}

// The stages: layers (their ops in a tooltip), sub-mesh, logical mesh, and the terms of the
// objective (the stage's latency, its receiving, their sum the lane, its send/recv to the
// next), t_max marked.
void draw_stage_table(const AppState& state, const InterOpPlan& plan, const InterOpTerms& terms) {
  const InterOpView& view = state.alpa.inter;
  if (!ImGui::BeginTable("##stages", 9, ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) return;
  ImGui::TableSetupColumn(tr("inter.col_stage"));
  ImGui::TableSetupColumn(tr("inter.col_layers"));
  ImGui::TableSetupColumn(tr("inter.col_submesh"));
  ImGui::TableSetupColumn(tr("inter.col_logical"));
  ImGui::TableSetupColumn(tr("inter.col_knobs"));
  ImGui::TableSetupColumn(tr("inter.col_latency"));
  ImGui::TableSetupColumn(tr("inter.col_recv"));
  ImGui::TableSetupColumn(tr("inter.col_lane"));
  ImGui::TableSetupColumn(tr("inter.col_send"));
  ImGui::TableHeadersRow();
  for (size_t k = 0; k < plan.stages.size(); ++k) {
    const auto& st = plan.stages[k];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::ColorButton("##c", ImGui::ColorConvertU32ToFloat4(stage_color(int(k), int(plan.stages.size()))),
                       ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoDragDrop, ImVec2(ImGui::GetFontSize(), ImGui::GetFontSize()));
    ImGui::SameLine();
    ImGui::Text("%zu", k);
    ImGui::TableNextColumn();
    const auto [first, last] = stage_layer_numbers(view, st);
    ImGui::Text("%d - %d", first, last);
    if (ImGui::IsItemHovered() && size_t(st.last) < view.layer_last_op.size())
      ImGui::SetTooltip("%s: %s .. %s", tr("inter.col_ops"), view.layer_first_op[size_t(st.first)].c_str(), view.layer_last_op[size_t(st.last)].c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%d x %d", st.submesh.nodes, st.submesh.gpus);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(st.logical_mesh.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(stage_knobs_text(stage_knobs(view.report, k)).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("inter.knobs_tip"));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(ms4(st.latency).c_str());
    ImGui::TableNextColumn();
    if (plan.boundaries && st.recv_ms > 0) ImGui::Text("+ %s", ms4(st.recv_ms).c_str());
    else ImGui::TextDisabled("-");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("inter.recv_tip"));
    // The lane: the stage's time per micro-batch in the steady state; t_max when the largest.
    ImGui::TableNextColumn();
    const bool lane_max = !terms.t_max_is_send && terms.t_max_stage == int(k);
    if (lane_max) ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
    ImGui::Text("%s%s", ms4(terms.lane_ms[k]).c_str(), lane_max ? " = t_max" : "");
    if (lane_max) ImGui::PopStyleColor();
    ImGui::TableNextColumn();
    if (k + 1 < plan.stages.size() && st.send_bytes > 0) {
      const bool send_max = terms.t_max_is_send && terms.t_max_stage == int(k);
      if (send_max) ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
      // Forward bytes of one micro-batch; the time: the activation forward and its gradient back.
      ImGui::Text("%s, %s, %s%s%s", format_bytes(st.send_bytes).c_str(), tr(st.send_inter_node ? "ex4.across" : "inter.in_a_node"),
                  ms4(st.send_ms).c_str(), send_max ? " = t_max" : "", plan.boundaries ? "" : tr("inter.not_in_objective"));
      if (send_max) ImGui::PopStyleColor();
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(tr("inter.boundary_tip"), format_ms(st.send_ms).c_str(),
                          plan.stages[k + 1].recv_ms > 0 ? tr_fill("inter.then_receiving", {format_ms(plan.stages[k + 1].recv_ms)}).c_str() : "");
    }
  }
  ImGui::EndTable();
}

// The total redone from the table's numbers: sum of the lanes and sends, (B - 1) x t_max.
void draw_total_by_hand(const InterOpPlan& plan, const InterOpTerms& terms, int microbatches) {
  double lanes = 0, sends = 0;
  for (size_t k = 0; k < terms.lane_ms.size(); ++k) {
    lanes += terms.lane_ms[k];
    sends += terms.send_ms[k];
  }
  const std::string where = tr_fill(terms.t_max_is_send ? "inter.t_max_is_send" : "inter.t_max_is_lane", {std::to_string(terms.t_max_stage)});
  if (plan.interleave > 1) {
    const double v = plan.interleave, weight = double(microbatches) - 1 / v;
    char weight_text[32];
    std::snprintf(weight_text, sizeof weight_text, "%.4f", weight);
    ImGui::TextWrapped("%s", tr_fill("inter.by_hand_interleaved",
                                     {ms4(lanes), ms4(sends), ms4(terms.sum_ms), weight_text, ms4(terms.t_max), ms4(weight * terms.t_max),
                                      ms4(terms.total_ms), where, std::to_string(plan.interleave), ms4(terms.sum_ms / v)})
                                 .c_str());
    return;
  }
  ImGui::TextWrapped("%s", tr_fill(plan.boundaries ? "inter.by_hand" : "inter.by_hand_free",
                                   {ms4(lanes), ms4(sends), ms4(terms.sum_ms), std::to_string(microbatches - 1), ms4(terms.t_max),
                                    ms4(double(microbatches - 1) * terms.t_max), ms4(terms.total_ms), where})
                               .c_str());
}

// One pipeline Gantt: stages as lanes, micro-batches as boxes; `t_end` is the shared time scale.
// Each stage's idle time (the bubble) is shaded on its lane. With `links` (one entry per stage
// boundary: true when it crosses nodes), a thinner lane between two stages holds the send/recv
// boxes of their boundary.
void draw_schedule(const char* title, const PipelineSchedule& sched, int stages, int microbatches, double t_end, float height,
                   const std::vector<bool>& links = {}) {
  const float font = ImGui::GetFontSize();
  const bool with_links = !links.empty();
  const ScheduleReading reading = read_schedule(sched, stages);
  ImGui::Text("%s", title);
  ImGui::SameLine();
  ImGui::TextDisabled(tr("inter.makespan_bubble"), format_ms(sched.makespan_ms).c_str(), format_percent(sched.bubble_fraction).c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("%s", tr_fill("inter.in_flight", {std::to_string(reading.peak_in_flight)}).c_str());
  // The makespan by hand on the busiest stage: micro-batches x (F + B) + its idle time.
  const std::string by_hand = schedule_by_hand(sched, microbatches);
  if (!by_hand.empty()) ImGui::TextDisabled("%s", by_hand.c_str());
  const float label_w = font * 4.5f;
  const float width = std::max(50.0f, ImGui::GetContentRegionAvail().x);
  // A link lane is half a stage lane high.
  const float lanes = float(std::max(stages, 1)) + (with_links ? 0.5f * float(std::max(stages - 1, 0)) : 0.0f);
  const float lane_h = std::clamp((height - font * 1.6f) / lanes, font * 0.9f, font * 3.0f);
  const float link_h = lane_h * 0.5f;
  auto stage_y = [&](int s) { return float(s) * (lane_h + (with_links ? link_h : 0.0f)); };
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float plot_w = width - label_w - font;
  const double scale = t_end > 0 ? plot_w / t_end : 0;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const std::pair<double, double>* hovered_idle = nullptr;
  int hovered_idle_stage = -1;
  for (int s = 0; s < stages; ++s) {
    char buf[48];
    std::snprintf(buf, sizeof buf, tr("inter.stage"), s);
    const float y = p.y + stage_y(s);
    dl->AddRectFilled(ImVec2(p.x + label_w, y + 1), ImVec2(p.x + label_w + plot_w, y + lane_h - 1), IM_COL32(30, 33, 40, 255));
    dl->AddText(ImVec2(p.x, y + lane_h * 0.5f - font * 0.5f), ImGui::GetColorU32(ImGuiCol_TextDisabled), buf);
    // The bubble: where this stage waits.
    for (const auto& gap : reading.idle[size_t(s)]) {
      const float x0 = p.x + label_w + float(gap.first * scale), x1 = p.x + label_w + float(gap.second * scale);
      if (x1 - x0 < 0.5f) continue;
      dl->AddRectFilled(ImVec2(x0, y + 2), ImVec2(x1, y + lane_h - 2), kIdleColor);
      if (x1 - x0 > 3) dl->AddRect(ImVec2(x0, y + 2), ImVec2(x1, y + lane_h - 2), kIdleEdge);
      if (mouse.x >= x0 && mouse.x < x1 && mouse.y >= y && mouse.y < y + lane_h) {
        hovered_idle = &gap;
        hovered_idle_stage = s;
      }
    }
    if (with_links && s + 1 < stages) {
      const float ly = y + lane_h;
      dl->AddRectFilled(ImVec2(p.x + label_w, ly + 1), ImVec2(p.x + label_w + plot_w, ly + link_h - 1), IM_COL32(24, 26, 32, 255));
      // Which link: across nodes (the network) or inside a node.
      std::snprintf(buf, sizeof buf, "%d-%d %s", s, s + 1, links[size_t(s)] ? tr("inter.link_net") : "");
      dl->AddText(ImVec2(p.x + font * 0.5f, ly + link_h * 0.5f - font * 0.5f), ImGui::GetColorU32(ImGuiCol_TextDisabled), buf);
    }
  }
  const PipelineBox* hovered = nullptr;
  for (const PipelineBox& b : sched.boxes) {
    const BoxStyle& style = box_style(box_kind(b));
    if (style.on_link && !with_links) continue;
    const float x0 = p.x + label_w + float(b.start_ms * scale), x1 = p.x + label_w + float(b.end_ms * scale);
    const float y0 = p.y + stage_y(b.stage) + (style.on_link ? lane_h : 0.0f) + 2, y1 = y0 + (style.on_link ? link_h : lane_h) - 4;
    // Boxes scrolled out of view are not drawn (ImGui does not clip what is added to a draw list).
    if (!ImGui::IsRectVisible(ImVec2(x0, y0), ImVec2(std::max(x1, x0 + 1), y1))) continue;
    // Rounded corners only where they show (about six times the vertices of a plain box).
    dl->AddRectFilled(ImVec2(x0, y0), ImVec2(std::max(x1 - 1, x0 + 1), y1), style.color, x1 - x0 > 6 ? 2.0f : 0.0f);
    char buf[16];
    std::snprintf(buf, sizeof buf, "%d", b.microbatch);
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    if (ts.x + 4 < x1 - x0 && ts.y <= y1 - y0 + 2)
      dl->AddText(ImVec2((x0 + x1 - ts.x) * 0.5f, (y0 + y1 - ts.y) * 0.5f), IM_COL32(12, 14, 20, 255), buf);
    if (mouse.x >= x0 && mouse.x < x1 && mouse.y >= y0 && mouse.y < y1) hovered = &b;
  }
  // Time axis.
  const float axis_y = p.y + stage_y(stages - 1) + lane_h + 2;
  for (int i = 0; i <= 4; ++i) {
    const float x = p.x + label_w + plot_w * float(i) / 4.0f;
    dl->AddLine(ImVec2(x, axis_y), ImVec2(x, axis_y + 4), IM_COL32(120, 124, 136, 255));
    const std::string t = format_ms(t_end * i / 4.0);
    const float tw = ImGui::CalcTextSize(t.c_str()).x;
    dl->AddText(ImVec2(std::min(x - tw * 0.5f, p.x + label_w + plot_w - tw), axis_y + 4), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                t.c_str());
  }
  ImGui::Dummy(ImVec2(width, stage_y(stages - 1) + lane_h + font * 1.5f));
  if (!ImGui::IsWindowHovered()) return;
  if (hovered) {
    if (hovered->transfer)
      ImGui::SetTooltip(tr("inter.link_tip"), hovered->stage, hovered->stage + 1, hovered->microbatch,
                        tr(hovered->forward ? "inter.send_activation" : "inter.send_gradient"), format_ms(hovered->start_ms).c_str(),
                        format_ms(hovered->end_ms - hovered->start_ms).c_str());
    else
      ImGui::SetTooltip(tr("inter.task_tip"), hovered->stage, hovered->microbatch,
                        tr(hovered->forward ? "inter.forward" : "inter.backward"), format_ms(hovered->start_ms).c_str(),
                        format_ms(hovered->end_ms - hovered->start_ms).c_str());
  } else if (hovered_idle) {
    ImGui::SetTooltip("%s", tr_fill("inter.idle_tip", {std::to_string(hovered_idle_stage), format_ms(hovered_idle->first),
                                                       format_ms(hovered_idle->second - hovered_idle->first)})
                                .c_str());
  }
}

// A Megatron-style plan typed in (`inter --plan` syntax), priced in the worker under the same
// cost model, beside the planner's plan: what a practitioner runs today against what autopar finds.
void draw_given_plan(AppState& state, const AlpaInputs& planner_in, const InterOpPlan& planner) {
  AlpaView& alpa = state.alpa;
  InterOpView& view = alpa.given;
  view.worker = alpa.inter.worker;   // the same worker pool
  // The plan's knobs (getState().plan, shared with the Model & Cluster tab's memory view) write
  // the text; a change is priced at once. The text can still be typed (first=, last=, schedule=).
  draw_plan_knobs(state, "inter_plan");
  const std::string knob_text = plan_settings_text(state.settings.plan);
  bool knobs_moved = false;
  if (knob_text != alpa.given_synced) {
    std::snprintf(alpa.given_text, sizeof alpa.given_text, "%s", knob_text.c_str());
    knobs_moved = !alpa.given_synced.empty();   // a knob moved (the tab's first sight prices on Price)
    alpa.given_synced = knob_text;
  }
  AlpaInputs in = planner_in;
  in.plan = alpa.given_text;
  in.space = InterRequest{}.space;   // a given plan is priced, not searched
  if (knobs_moved) start_inter_plan(view, in, state.graph, state.cluster);
  const float font = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(std::min(font * 30, ImGui::GetContentRegionAvail().x * 0.6f));
  ImGui::InputText(tr_id("inter.given_plan").c_str(), alpa.given_text, sizeof alpa.given_text);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("inter.given_tip"));
  ImGui::SameLine();
  const bool busy = inter_planning(view);
  if (busy) ImGui::BeginDisabled();
  if (ImGui::Button(tr_id("inter.price").c_str())) start_inter_plan(view, in, state.graph, state.cluster);
  if (busy) ImGui::EndDisabled();
  if (inter_planning(view)) advance_inter_plan(view, in, state.graph, state.cluster, kPlanningMsPerFrame, state.frame_stats.frames);
  ImGui::SameLine();
  if (inter_planning(view)) {
    ImGui::TextDisabled("%s", tr("inter.pricing"));
  } else if (const InterOpPlan* given = current_inter_plan(view, in)) {
    ImGui::Text(tr("inter.given_total"), format_ms(given->total_latency).c_str(), given->total_latency / planner.total_latency);
  } else if (view.error && view.key == inter_key(in)) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.55f, 1.0f));
    ImGui::TextWrapped("%s", view.error->message.c_str());
    ImGui::PopStyleColor();
  }
}

// The space the pass searches (`inter --space`): Alpa's 2021 space or today's; the plan follows.
void draw_space_choice(AppState& state) {
  ImGui::TextUnformatted(tr("inter.space"));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("inter.space_tip"));
  std::string space = state.settings.space;
  for (const auto& [value, label] : {std::pair<const char*, const char*>{"alpa", "inter.space_2021"}, {"today", "inter.space_today"}}) {
    ImGui::SameLine();
    if (ImGui::RadioButton(tr_id(label).c_str(), space == value)) space = value;
    note_place(state, std::string(value) == "alpa" ? "space_alpa" : "space_today");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("inter.space_tip"));
  }
  if (space != state.settings.space) {
    Settings next = state.settings;
    next.space = space;
    apply_from_ui(state, next, "");
  }
}

// What today's space chose beyond the stages (B and its micro-batch size, cp, ep) and the
// plans it tried, each with its total (a tooltip).
void draw_today_choice(const AppState& state, const InterOpView& view) {
  const Json& r = view.report;
  if (!r.is_object() || r.value("space", std::string()) != "today") return;
  const int B = r.value("microbatches", 1), cp = r.value("context_parallel", 1), ep = r.value("expert_parallel", 1);
  const Json tried = r.value("knob_search", Json::array());
  const int64_t batch = model_batch(state.graph);
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
  ImGui::TextWrapped("%s", tr_fill("inter.today_chose", {std::to_string(B), std::to_string(B > 0 ? batch / B : 0), std::to_string(cp),
                                                         std::to_string(ep), std::to_string(tried.size())})
                               .c_str());
  ImGui::PopStyleColor();
  if (!ImGui::IsItemHovered()) return;
  std::string lines;
  for (const Json& t : tried) {
    const Json& total = t.contains("total_latency") ? t["total_latency"] : Json();
    lines += tr_fill("inter.today_tried", {std::to_string(t.value("cp", 1)), std::to_string(t.value("ep", 1)), std::to_string(t.value("microbatches", 0)),
                                           total.is_number() ? format_ms(total.get<double>()) : std::string(tr("inter.today_nothing_fits"))}) +
             "\n";
  }
  ImGui::SetTooltip("%s", lines.c_str());
}

// The settings row: micro-batches, Plan, the example, what is planned.
void draw_inter_settings(AppState& state, InterOpView& view, const AlpaInputs& in) {
  const float font = ImGui::GetFontSize();
  int mb = int(state.settings.microbatches);
  // The field with "-" and "+" laid out as ImGui's InputInt draws its step buttons, but the
  // buttons step to the next count that divides the batch (32 -> 64 for a batch of 64, not to
  // 33, which no plan can use); the plan follows at once.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float button = ImGui::GetFrameHeight();
  ImGui::SetNextItemWidth(std::max(font * 2, font * 7 - 2 * (button + style.ItemInnerSpacing.x)));
  int next_mb = mb;
  if (ImGui::InputInt("##microbatches", &mb, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue) || ImGui::IsItemDeactivatedAfterEdit())
    next_mb = std::clamp(mb, int(kMicrobatchesBound.lo), int(kMicrobatchesBound.hi));   // the request's bound
  ImGui::SameLine(0, style.ItemInnerSpacing.x);
  if (ImGui::Button("-##mb", ImVec2(button, button))) next_mb = step_microbatches(state.graph, state.settings.microbatches, -1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("inter.mb_step_tip"));
  ImGui::SameLine(0, style.ItemInnerSpacing.x);
  if (ImGui::Button("+##mb", ImVec2(button, button))) next_mb = step_microbatches(state.graph, state.settings.microbatches, +1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("inter.mb_step_tip"));
  ImGui::SameLine(0, style.ItemInnerSpacing.x);
  ImGui::TextUnformatted(tr("inter.microbatches"));
  if (next_mb != state.settings.microbatches) {
    Settings next = state.settings;
    next.microbatches = next_mb;
    apply_from_ui(state, next, "");
  }
  ImGui::SameLine();
  const bool busy = inter_planning(view);
  if (busy) ImGui::BeginDisabled();
  if (ImGui::Button(tr_id("inter.plan").c_str())) start_inter_plan(view, in, state.graph, state.cluster);
  if (busy) ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button(tr_id("inter.example").c_str())) {
    Settings next = state.settings;
    next.model = "transformer:layers=8";
    next.cluster = "lecture:2x4";
    next.custom_cluster.reset();
    next.mesh = "2x4";
    next.microbatches = 16;
    if (apply_settings(state, next).ok()) {
      notify_info(state, tr("inter.example_loaded"));
      start_inter_plan(view, alpa_inputs(state), state.graph, state.cluster);
    }
  }
  ImGui::SameLine();
  ImGui::TextDisabled(tr("inter.model_on"), state.settings.model.c_str(), in.cluster.size() > 40 ? tr("inter.edited_cluster") : in.cluster.c_str());
}

// While planning: this frame's slice of the work, then the progress bar, Cancel and the status.
void draw_inter_planning(AppState& state, InterOpView& view, const AlpaInputs& in) {
  if (inter_planning(view)) {
    // The work of this frame first, so that the bar shows where it got to. Changed inputs
    // restart the planning for them.
    if (advance_inter_plan(view, in, state.graph, state.cluster, kPlanningMsPerFrame, state.frame_stats.frames)) {
      if (view.error) notify_error(state, *view.error);
      else
        notify_info(state, tr_fill("notice.planned", {format_ms(view.timing.elapsed_ms), format_ms(view.timing.work_ms),
                                                      std::to_string(view.timing.slices)}));
    }
  }
  if (!inter_planning(view)) return;
  char overlay[64];
  std::snprintf(overlay, sizeof overlay, "%.0f%%  %s", 100 * inter_plan_progress(view), format_ms(inter_plan_elapsed_ms(view)).c_str());
  ImGui::ProgressBar(float(inter_plan_progress(view)), ImVec2(ImGui::GetFontSize() * 18, 0), overlay);
  ImGui::SameLine();
  const bool cancel = ImGui::Button(tr_id("inter.cancel").c_str());
  note_place(state, "inter_cancel");
  if (cancel) {
    cancel_inter_plan(view);
    notify_info(state, tr("notice.planning_cancelled"));
  }
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
  ImGui::TextUnformatted(inter_plan_status(view).c_str());
  ImGui::PopStyleColor();
}

// Why there is no plan to show: the planner's error, inputs changed since the plan, or none yet.
void draw_no_inter_plan(const InterOpView& view, const AlpaInputs& in) {
  if (inter_planning(view)) return;
  if (view.error && view.key == inter_key(in)) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.55f, 1.0f));
    // No pipeline within the GPUs' memory (the 1F1B limit, ZeRO and recomputation tried): the clear mark.
    if (view.error->code == ErrorCode::infeasible) ImGui::TextWrapped(tr("inter.does_not_fit"), view.error->message.c_str());
    else ImGui::TextWrapped(tr("intra.failed"), view.error->message.c_str());
    ImGui::PopStyleColor();
  } else if (view.cancelled_key == inter_key(in)) {
    ImGui::TextWrapped("%s", tr("inter.cancelled"));
  } else {
    // A start owed to the debounce (a burst of changes) comes within kInterFollowDebounceMs.
    ImGui::TextWrapped("%s", tr(view.start_waiting ? "inter.replanning" : "inter.press_plan"));
  }
}

// The plan's summary line, the given plan's price, the stages on the cluster and their table.
void draw_inter_summary(AppState& state, const AlpaInputs& in, const InterOpView& view, const InterOpPlan& plan) {
  const float font = ImGui::GetFontSize();
  const int B = plan_microbatches(view, in.microbatches);   // today's space searched it
  const InterOpTerms terms = inter_op_terms(plan, B);
  section_header(tr("inter.plan"));
  ImGui::Text(tr("inter.total_latency"), format_ms(plan.total_latency).c_str());
  draw_given_plan(state, in, plan);
  ImGui::SameLine(0, font * 2);
  ImGui::Text("t_max %s", ms4(plan.t_max).c_str());
  ImGui::SameLine(0, font * 2);
  ImGui::Text(tr(plan.stages.size() == 1 ? "inter.one_stage" : "inter.stages"), plan.stages.size());
  ImGui::SameLine(0, font * 2);
  if (plan.interleave > 1) {   // today's space chose interleaved 1F1B
    ImGui::Text(tr("inter.interleaved"), plan.interleave);
    ImGui::SameLine(0, font * 2);
  }
  // A plan the DP returns keeps every stage within the 1F1B memory limit (ZeRO and recomputation per stage).
  ImGui::TextDisabled("%s", tr("inter.fits_label"));
  ImGui::SameLine(0, font * 2);
  ImGui::TextDisabled(tr(view.timing.slices == 1 ? "inter.tried_one_frame" : "inter.tried"), plan.t_max_tried, plan.t_max_candidates,
                      format_ms(view.timing.elapsed_ms).c_str(), view.timing.slices);
  if (ImGui::BeginTable("##inter_top", 2, ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("cluster", ImGuiTableColumnFlags_WidthStretch, 0.42f);
    ImGui::TableSetupColumn("stages", ImGuiTableColumnFlags_WidthStretch, 0.58f);
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", tr("inter.on_cluster"));
    draw_cluster_stages(state, plan, ImGui::GetContentRegionAvail().x);
    ImGui::TableNextColumn();
    draw_stage_table(state, plan, terms);
    ImGui::EndTable();
  }
  draw_today_choice(state, view);
  draw_total_by_hand(plan, terms, B);
}

// A colour swatch and its legend text on the current line.
void schedule_legend_item(const char* id, ImU32 color, const char* label) {
  const float font = ImGui::GetFontSize();
  ImGui::SameLine();
  ImGui::ColorButton(id, ImGui::ColorConvertU32ToFloat4(color), ImGuiColorEditFlags_NoTooltip, ImVec2(font, font));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
}

// The GPipe and 1F1B schedules of the plan's stages as Gantt charts, the bubble shaded, and the
// sentence saying why one takes longer than the other here.
void draw_inter_schedules(const AlpaInputs& in, const InterOpView& view, const InterOpPlan& plan) {
  const float font = ImGui::GetFontSize();
  // The schedule model's input of this plan (as `inter --schedule` and the Schedules tab take it).
  const PlanShares shares = plan_shares_from_report(view.report);
  const int B = plan_microbatches(view, in.microbatches);
  const PipelineSchedule gpipe = plan_pipeline_schedule(plan, B, PipelineKind::gpipe, shares);
  const PipelineSchedule f1b = plan_pipeline_schedule(plan, B, PipelineKind::one_f_one_b, shares);
  section_header(tr("inter.schedule"));
  for (int k = 0; k < int(BoxKind::count); ++k) {
    const BoxStyle& style = kBoxStyles[k];
    if (!style.legend || (style.on_link && !plan.boundaries)) continue;
    ImGui::PushID(k);
    schedule_legend_item("##kind", style.color, tr(style.legend));
    ImGui::PopID();
  }
  schedule_legend_item("##idle", kIdleColor | IM_COL32(0, 0, 0, 255), tr("inter.idle_legend"));
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
  ImGui::TextWrapped("%s", schedule_explanation(plan, gpipe, f1b, B).c_str());
  ImGui::PopStyleColor();
  std::vector<bool> links;
  if (plan.boundaries)
    for (const PipelineStage& st : plan.stages) links.push_back(st.send_inter_node);
  if (!links.empty()) links.pop_back();   // the last stage sends nothing
  if (plan.stages.size() < 2) links.clear();
  const double t_end = std::max(gpipe.makespan_ms, f1b.makespan_ms);
  const float h = std::max(font * 5, (ImGui::GetContentRegionAvail().y - font * 3.0f) / 2.0f);
  draw_schedule(tr("inter.gpipe"), gpipe, int(plan.stages.size()), B, t_end, h, links);
  draw_schedule(tr("inter.1f1b"), f1b, int(plan.stages.size()), B, t_end, h, links);
}

}  // namespace

void draw_inter_panel(AppState& state, const PanelRect& rect) {
  if (!begin_panel(state, kInterWindow, "inter", rect)) {
    ImGui::End();
    return;
  }
  InterOpView& view = state.alpa.inter;
  const AlpaInputs in = alpa_inputs(state);
  follow_page_inter_plan(state);   // the plan of the inputs shown, re-planned on every change
  ImGui::TextDisabled("%s", tr("inter.intro"));
  draw_inter_settings(state, view, in);
  draw_inter_planning(state, view, in);
  // Alpa's simplification side by side: the paper's DP prices no boundary between stages.
  bool ignore = state.settings.ignore_boundaries;
  if (ImGui::Checkbox(tr_id("inter.ignore").c_str(), &ignore)) {
    Settings next = state.settings;
    next.ignore_boundaries = ignore;
    apply_from_ui(state, next, "");
    start_inter_plan(view, alpa_inputs(state), state.graph, state.cluster);
    ImGui::End();
    return;   // the inputs changed: the next frame draws the planning
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr("inter.ignore_tip"));
  ImGui::SameLine(0, ImGui::GetFontSize() * 2);
  draw_space_choice(state);
  const InterOpPlan* plan = current_inter_plan(view, in);
  if (!plan) {
    draw_no_inter_plan(view, in);
    ImGui::End();
    return;
  }
  draw_inter_summary(state, in, view, *plan);
  draw_inter_schedules(in, view, *plan);
  ImGui::End();
}

}  // namespace autopar::web
