// The Timeline panel (FlexFlow section 5): a Gantt chart of the simulated iteration with one
// lane per GPU and per link that carries tasks. The boxes come from the pure layout step in
// core/flexflow/timeline_layout.h (binary search for the first visible span, narrow spans folded into
// one box with a count); this file only paints them and handles the mouse: wheel zooms around
// the cursor, dragging pans, double-click or the Fit button shows the whole iteration, hovering
// shows the task.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "format_units.h"
#include "imgui.h"
#include "panel_common.h"
#include "panels.h"
#include "plot_canvas.h"
#include "timeline_layout.h"
#include "trace_export.h"

namespace autopar::web {
namespace {

const ImU32 kLaneBgEven = IM_COL32(255, 255, 255, 8);
const ImU32 kLaneBgOdd = IM_COL32(0, 0, 0, 0);
const ImU32 kGridLine = IM_COL32(255, 255, 255, 20);
const ImU32 kRulerText = IM_COL32(170, 176, 190, 255);
const ImU32 kMakespanLine = IM_COL32(255, 110, 110, 200);
const ImU32 kBoxText = IM_COL32(14, 16, 20, 255);
const ImU32 kFoldText = IM_COL32(240, 242, 248, 255);

// Smallest visible range (1 ns) and the largest (a few iterations).
constexpr double kMinRangeMs = 1e-6;

ImU32 scale_color(ImU32 c, float f) {
  ImVec4 v = ImGui::ColorConvertU32ToFloat4(c);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(v.x * f, v.y * f, v.z * f, v.w));
}

// The range that shows the whole iteration, with a little room on the right.
void fit_view(TimelineViewState& view, double makespan_ms) {
  view.t0_ms = 0;
  view.t1_ms = makespan_ms > 0 ? makespan_ms * 1.01 : 1.0;
  view.fit = true;
}

// Keeps the view near the iteration: at most 1.5 makespans wide, no more than a quarter of the
// view beyond either end.
void clamp_view(TimelineViewState& view, double makespan_ms) {
  const double span = makespan_ms > 0 ? makespan_ms : 1.0;
  double range = std::clamp(view.t1_ms - view.t0_ms, kMinRangeMs, span * 1.5);
  double t0 = view.t0_ms;
  t0 = std::min(t0, span + range * 0.25 - range);
  t0 = std::max(t0, -range * 0.25);
  view.t0_ms = t0;
  view.t1_ms = t0 + range;
}

// Zooms by `factor` (< 1 zooms in) keeping time `anchor_ms` where it is on screen.
void zoom_view(TimelineViewState& view, double anchor_ms, double factor, double makespan_ms) {
  const double span = makespan_ms > 0 ? makespan_ms : 1.0;
  const double range = std::clamp((view.t1_ms - view.t0_ms) * factor, kMinRangeMs, span * 1.5);
  const double share = (anchor_ms - view.t0_ms) / (view.t1_ms - view.t0_ms);
  view.t0_ms = anchor_ms - share * range;
  view.t1_ms = view.t0_ms + range;
  view.fit = false;
  clamp_view(view, makespan_ms);
}

// Decimal places for tick labels `step_ms` apart.
int tick_decimals(double step_ms) { return std::clamp(int(-std::floor(std::log10(step_ms) + 1e-9)), 0, 9); }

// A task kind's name in the page's language (core's names are the trace's categories).
const char* kind_label(TaskKind k) {
  switch (k) {
    case TaskKind::forward: return tr("inter.forward");
    case TaskKind::backward: return tr("inter.backward");
    case TaskKind::transfer: return tr("timeline.transfer");
    case TaskKind::sync: return tr("timeline.sync");
    case TaskKind::recompute: return tr("memory_panel.recompute");
  }
  return "?";
}

// A short label for a box: "conv2 fwd", "fc6 act", "fc6 grad", "fc7 sync".
std::string box_label(const TaskGraph& tg, const Task& t) {
  const std::string& op = tg.graph().ops[size_t(t.op)].name();
  switch (t.kind) {
    case TaskKind::forward: return op + " fwd";
    case TaskKind::backward: return op + " bwd";
    case TaskKind::recompute: return op + " recompute";
    case TaskKind::transfer: return op + (t.forward_pass ? " act" : " grad");
    case TaskKind::sync: return op + " sync";
  }
  return op;
}

void task_tooltip(const TaskGraph& tg, const Task& t) {
  ImGui::BeginTooltip();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(task_kind_color(t.kind)));
  ImGui::TextUnformatted(task_name(tg, t).c_str());
  ImGui::PopStyleColor();
  ImGui::Separator();
  if (ImGui::BeginTable("##task", 2, ImGuiTableFlags_SizingFixedFit)) {
    auto row = [](const char* k, const std::string& v) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextDisabled("%s", k);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(v.c_str());
    };
    const char* kind = t.kind == TaskKind::transfer ? tr(t.forward_pass ? "timeline.transfer_activation" : "timeline.transfer_gradient")
                                                    : kind_label(t.kind);
    row(tr("timeline.kind"), kind);
    row(tr("ex3.col_op"), tg.graph().ops[size_t(t.op)].name());
    if (t.kind == TaskKind::transfer)
      row(tr("timeline.parts"), tr_fill("timeline.producer_consumer", {std::to_string(t.peer_part), std::to_string(t.part)}));
    else if (t.kind == TaskKind::sync)
      row(tr("timeline.part"), tr_fill("timeline.shard_ring", {std::to_string(t.peer_part), std::to_string(t.part)}));
    else
      row(tr("timeline.part"), std::to_string(t.part));
    row(tr("timeline.device"), tg.topology().name(t.device));
    row(tr("timeline.start"), format_ms(t.start_ms));
    row(tr("timeline.duration"), format_ms(t.duration_ms));
    row(tr("timeline.end"), format_ms(t.end_ms));
    if (t.start_ms > t.ready_ms) row(tr("timeline.waited"), tr_fill("timeline.device_busy", {format_ms(t.start_ms - t.ready_ms)}));
    if (t.bytes > 0) row(tr("grade.bytes"), format_bytes(t.bytes));
    ImGui::EndTable();
  }
  ImGui::EndTooltip();
}

void fold_tooltip(const TimelineLanes& lanes, const TimelineBox& box) {
  // One count per task kind (recompute is kind 4: a fixed [4] was written past its end).
  constexpr int kKinds = int(TaskKind::recompute) + 1;
  int per_kind[kKinds] = {};
  const auto& spans = lanes.spans[size_t(box.lane)];
  for (int k = 0; k < box.count; ++k) ++per_kind[int(spans[size_t(box.first_span + k)].kind)];
  ImGui::BeginTooltip();
  ImGui::Text(tr("timeline.folded"), box.count);
  ImGui::TextDisabled("%s .. %s (%s)", format_ms(box.start_ms).c_str(), format_ms(box.end_ms).c_str(),
                      format_ms(box.end_ms - box.start_ms).c_str());
  for (int k = 0; k < kKinds; ++k)
    if (per_kind[k]) {
      legend_item(task_kind_color(TaskKind(k)), (std::to_string(per_kind[k]) + " " + kind_label(TaskKind(k))).c_str());
    }
  ImGui::TextDisabled("%s", tr("timeline.zoom_in"));
  ImGui::EndTooltip();
}

void draw_legend() {
  for (int k = 0; k < 4; ++k) {
    legend_item(task_kind_color(TaskKind(k)), kind_label(TaskKind(k)));
    ImGui::SameLine(0, ImGui::GetFontSize() * 0.9f);
  }
  legend_item(kFoldedMixedColor, tr("timeline.folded_mixed"));
}

}  // namespace

void draw_timeline_panel(AppState& state, const PanelRect& rect) {
  if (!begin_panel(state, kTimelineWindow, "timeline", rect)) {
    ImGui::End();
    return;
  }
  const FlexflowView& ff = state.flexflow;
  TimelineViewState& view = state.timeline;
  if (!ff.task_graph) {
    ImGui::TextDisabled("%s", tr("timeline.none"));
    ImGui::End();
    return;
  }
  const TaskGraph& tg = *ff.task_graph;
  const TimelineLanes& lanes = ff.lanes;
  const double makespan = ff.summary.makespan_ms;
  if (view.revision != ff.revision) {
    // A new timeline: follow it when fitted, else keep the zoom but stay near the iteration.
    if (view.fit || !(view.t1_ms > view.t0_ms))
      fit_view(view, makespan);
    else
      clamp_view(view, makespan);
    view.revision = ff.revision;
  }
  const float font = ImGui::GetFontSize();

  // Toolbar: fit and zoom buttons, the visible range, the makespan.
  if (ImGui::Button(tr_id("timeline.fit").c_str())) fit_view(view, makespan);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("timeline.fit_tip"));
  ImGui::SameLine();
  const double mid = (view.t0_ms + view.t1_ms) * 0.5;
  if (ImGui::Button(" - ")) zoom_view(view, mid, 1.5, makespan);
  ImGui::SameLine();
  if (ImGui::Button(" + ")) zoom_view(view, mid, 1 / 1.5, makespan);
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled(tr("timeline.view"), format_ms(view.t0_ms).c_str(), format_ms(view.t1_ms).c_str());
  ImGui::SameLine(0, font * 1.2f);
  ImGui::Text(tr("ex8.makespan"), format_ms(makespan).c_str());
  help_marker(tr("timeline.help"));

  draw_legend();

  // Geometry: lane labels on the left, the ruler on top, lanes below (scrolling when many).
  float label_w = 0;
  for (int d : lanes.devices) label_w = std::max(label_w, ImGui::CalcTextSize(tg.topology().name(d).c_str()).x);
  label_w = std::min(label_w + font * 0.8f, font * 12.0f);
  const float legend_h = ImGui::GetTextLineHeightWithSpacing();
  const float ruler_h = font * 1.5f;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float plot_w = std::max(40.0f, avail.x - label_w - ImGui::GetStyle().ScrollbarSize);
  const float lanes_h = std::max(font * 4, avail.y - ruler_h - legend_h - ImGui::GetStyle().ItemSpacing.y);
  const int n_lanes = int(lanes.devices.size());
  const float lane_h = std::clamp(lanes_h / std::max(1, n_lanes), font * 1.3f, font * 2.2f);
  const TimelineLayout layout = layout_timeline(lanes, view.t0_ms, view.t1_ms, plot_w);
  const double px_per_ms = plot_w / (view.t1_ms - view.t0_ms);

  // The ruler.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 ruler_pos = ImGui::GetCursorScreenPos();
  const float plot_x = ruler_pos.x + label_w;
  const std::vector<double> ticks = nice_ticks(view.t0_ms, view.t1_ms, std::max(2, int(plot_w / (font * 7.5f))));
  const int decimals = ticks.size() >= 2 ? tick_decimals(ticks[1] - ticks[0]) : 3;
  ImGui::Dummy(ImVec2(avail.x, ruler_h));
  dl->AddLine(ImVec2(plot_x, ruler_pos.y + ruler_h - 1), ImVec2(plot_x + plot_w, ruler_pos.y + ruler_h - 1), kGridLine);
  for (double t : ticks) {
    const float x = plot_x + float((t - view.t0_ms) * px_per_ms);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f ms", decimals, t);
    const float w = ImGui::CalcTextSize(buf).x;
    dl->AddLine(ImVec2(x, ruler_pos.y + ruler_h - font * 0.35f), ImVec2(x, ruler_pos.y + ruler_h), kRulerText);
    if (x - w * 0.5f >= plot_x - 2 && x + w * 0.5f <= plot_x + plot_w + 2)
      dl->AddText(ImVec2(x - w * 0.5f, ruler_pos.y + font * 0.05f), kRulerText, buf);
  }

  // The lanes, in a child window so that many lanes scroll.
  ImGui::BeginChild("##lanes", ImVec2(avail.x, lanes_h), false, ImGuiWindowFlags_NoScrollWithMouse);
  ImDrawList* ldl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float content_h = lane_h * float(n_lanes);
  const ImVec2 plot_min(origin.x + label_w, origin.y);
  // The interaction surface over the chart (the lane labels stay outside it).
  ImGui::SetCursorScreenPos(plot_min);
  ImGui::InvisibleButton("##chart", ImVec2(plot_w, std::max(content_h, 1.0f)));
  const bool hovered = ImGui::IsItemHovered();
  const bool active = ImGui::IsItemActive();
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 mouse = io.MousePos;
  const double mouse_ms = view.t0_ms + (mouse.x - plot_min.x) / px_per_ms;
  const ImVec2 clip_min = ImGui::GetWindowPos();
  const ImVec2 clip_max(clip_min.x + ImGui::GetWindowWidth(), clip_min.y + ImGui::GetWindowHeight());
  const bool mouse_in_child = mouse.y >= clip_min.y && mouse.y < clip_max.y;

  // Lane backgrounds, labels and the grid.
  for (int lane = 0; lane < n_lanes; ++lane) {
    const float y0 = origin.y + lane * lane_h, y1 = y0 + lane_h;
    if (y1 < clip_min.y || y0 > clip_max.y) continue;
    ldl->AddRectFilled(ImVec2(origin.x, y0), ImVec2(plot_min.x + plot_w, y1), lane % 2 ? kLaneBgOdd : kLaneBgEven);
    const int device = lanes.devices[size_t(lane)];
    const std::string name = tg.topology().name(device);
    const ImU32 col = tg.topology().is_link(device) ? IM_COL32(150, 156, 170, 255) : IM_COL32(220, 224, 232, 255);
    const ImVec4 clip(origin.x, y0, origin.x + label_w - font * 0.3f, y1);
    ldl->AddText(nullptr, 0.0f, ImVec2(origin.x + font * 0.2f, y0 + (lane_h - font) * 0.5f), col, name.c_str(), nullptr, 0.0f, &clip);
    if (lane > 0 && tg.topology().is_link(device) && !tg.topology().is_link(lanes.devices[size_t(lane - 1)]))
      ldl->AddLine(ImVec2(origin.x, y0), ImVec2(plot_min.x + plot_w, y0), IM_COL32(120, 130, 150, 160), 1.5f);
  }
  ldl->PushClipRect(ImVec2(plot_min.x, clip_min.y), ImVec2(plot_min.x + plot_w, clip_max.y), true);
  for (double t : ticks) {
    const float x = plot_min.x + float((t - view.t0_ms) * px_per_ms);
    ldl->AddLine(ImVec2(x, std::max(origin.y, clip_min.y)), ImVec2(x, std::min(origin.y + content_h, clip_max.y)), kGridLine);
  }

  // The boxes.
  const TimelineBox* hovered_box = nullptr;
  const float pad = std::max(1.0f, lane_h * 0.12f);
  for (const TimelineBox& box : layout.boxes) {
    const float y0 = origin.y + box.lane * lane_h + pad, y1 = origin.y + (box.lane + 1) * lane_h - pad;
    if (y1 < clip_min.y || y0 > clip_max.y) continue;
    float x0 = plot_min.x + std::max(box.x0, -4.0f);
    float x1 = plot_min.x + std::min(box.x1, plot_w + 4.0f);
    if (x1 - x0 < 1.0f) x1 = x0 + 1.0f;
    ImU32 fill = box.count == 1 ? task_kind_color(box.kind)
                                : (box.mixed_kinds ? kFoldedMixedColor : scale_color(task_kind_color(box.kind), 0.72f));
    const bool is_hovered = hovered && mouse_in_child && mouse.y >= y0 - pad && mouse.y < y1 + pad && mouse.x >= x0 - 1 &&
                            mouse.x < std::max(x1, x0 + 3.0f) + 1;
    if (is_hovered) hovered_box = &box;
    ldl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), fill, x1 - x0 > 6 ? 2.0f : 0.0f);
    if (box.count > 1 && x1 - x0 > 3) {
      // Folded: a diagonal hint of "many", and the count when it fits.
      ldl->AddRect(ImVec2(x0, y0), ImVec2(x1, y1), scale_color(fill, 1.35f), 0.0f, 0, 1.0f);
      char buf[16];
      std::snprintf(buf, sizeof buf, "%d", box.count);
      const ImVec2 ts = ImGui::CalcTextSize(buf);
      if (ts.x + 4 < x1 - x0) ldl->AddText(ImVec2((x0 + x1 - ts.x) * 0.5f, (y0 + y1 - ts.y) * 0.5f), kFoldText, buf);
    } else if (box.count == 1 && x1 - x0 > font * 2.5f) {
      const Task& t = tg.tasks()[size_t(lanes.spans[size_t(box.lane)][size_t(box.first_span)].task)];
      const std::string label = box_label(tg, t);
      const ImVec4 clip(std::max(x0, plot_min.x) + 3, y0, std::min(x1, plot_min.x + plot_w) - 2, y1);
      ldl->AddText(nullptr, 0.0f, ImVec2(std::max(x0, plot_min.x) + 4, (y0 + y1 - font) * 0.5f), kBoxText, label.c_str(),
                   nullptr, 0.0f, &clip);
    }
  }
  if (hovered_box) {
    const float y0 = origin.y + hovered_box->lane * lane_h + pad, y1 = origin.y + (hovered_box->lane + 1) * lane_h - pad;
    const float x0 = plot_min.x + std::max(hovered_box->x0, -4.0f);
    const float x1 = std::max(x0 + 1.0f, plot_min.x + std::min(hovered_box->x1, plot_w + 4.0f));
    ldl->AddRect(ImVec2(x0 - 1, y0 - 1), ImVec2(x1 + 1, y1 + 1), IM_COL32(255, 255, 255, 230), 2.0f, 0, 2.0f);
  }
  // The makespan.
  const float xm = plot_min.x + float((makespan - view.t0_ms) * px_per_ms);
  ldl->AddLine(ImVec2(xm, std::max(origin.y, clip_min.y)), ImVec2(xm, std::min(origin.y + content_h, clip_max.y)), kMakespanLine, 1.5f);
  ldl->PopClipRect();

  // Mouse: wheel zooms around the cursor (Shift+wheel scrolls lanes), drag pans, double-click fits.
  if (hovered && io.MouseWheel != 0.0f) {
    if (io.KeyShift)
      ImGui::SetScrollY(ImGui::GetScrollY() - io.MouseWheel * lane_h * 3);
    else
      zoom_view(view, mouse_ms, std::pow(0.8, double(io.MouseWheel)), makespan);
  }
  if (active && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.0f)) {
    const double dt = -io.MouseDelta.x / px_per_ms;
    view.t0_ms += dt;
    view.t1_ms += dt;
    view.fit = false;
    clamp_view(view, makespan);
    if (io.MouseDelta.y != 0.0f) ImGui::SetScrollY(ImGui::GetScrollY() - io.MouseDelta.y);
  }
  if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) fit_view(view, makespan);
  if (hovered_box && !ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.0f)) {
    if (hovered_box->count == 1)
      task_tooltip(tg, tg.tasks()[size_t(lanes.spans[size_t(hovered_box->lane)][size_t(hovered_box->first_span)].task)]);
    else
      fold_tooltip(lanes, *hovered_box);
  } else if (hovered && !active) {
    ImGui::SetTooltip("%s at %s", tg.topology().name(lanes.devices[size_t(std::clamp(int((mouse.y - origin.y) / lane_h), 0, n_lanes - 1))]).c_str(),
                      format_ms(mouse_ms).c_str());
  }
  // Lane label tooltips (labels may be clipped).
  if (ImGui::IsWindowHovered() && mouse.x < plot_min.x && mouse.y >= origin.y && mouse.y < origin.y + content_h) {
    const int lane = int((mouse.y - origin.y) / lane_h);
    if (lane >= 0 && lane < n_lanes) {
      const int device = lanes.devices[size_t(lane)];
      double busy = 0;
      for (const auto& s : lanes.spans[size_t(lane)]) busy += s.end_ms - s.start_ms;
      ImGui::SetTooltip("%s: %zu tasks, busy %s (%s of the iteration)", tg.topology().name(device).c_str(),
                        lanes.spans[size_t(lane)].size(), format_ms(busy).c_str(),
                        format_percent(makespan > 0 ? busy / makespan : 0).c_str());
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + content_h));
  ImGui::Dummy(ImVec2(1, 0));
  ImGui::EndChild();
  ImGui::TextDisabled("%d boxes drawn for %d tasks (spans under %.0f px folded)", int(layout.boxes.size()), tg.live_count(),
                      double(kTimelineMinBoxPx));
  ImGui::End();
}

}  // namespace autopar::web
