// The Timeline panel (FlexFlow section 5): a Gantt chart of the simulated iteration with one
// lane per GPU and per link that carries tasks. The boxes come from the pure layout step in
// core/operations/timeline_layout.h (binary search for the first visible span, narrow spans folded into
// one box with a count); this file only paints them and handles the mouse: wheel zooms around
// the cursor, dragging pans, double-click or the Fit button shows the whole iteration, hovering
// shows the task.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include "format_units.h"
#include "imgui.h"
#include "panel_common.h"
#include "panels.h"
#include "plot_canvas.h"
#include "task_kind_style.h"
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

std::vector<DrawnTimelineBox> g_drawn_boxes;   // timeline_drawn_boxes()

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

// A short label for a box: "conv2 fwd", "fc6 act", "fc6 grad", "fc7 sync".
std::string box_label(const TaskGraph& tg, const Task& t) {
  return tg.graph().ops[size_t(t.op)].name() + " " + task_kind_tag(t.kind, t.forward_pass);
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
    row(tr("timeline.kind"), tr(task_kind_pass_label(t.kind, t.forward_pass)));
    row(tr("ex3.col_op"), tg.graph().ops[size_t(t.op)].name());
    switch (task_kind_traits(t.kind).parts) {
      case TaskParts::transfer:
        row(tr("timeline.parts"), tr_fill("timeline.producer_consumer", {std::to_string(t.peer_part), std::to_string(t.part)}));
        break;
      case TaskParts::ring:
        row(tr("timeline.part"), tr_fill("timeline.shard_ring", {std::to_string(t.peer_part), std::to_string(t.part)}));
        break;
      case TaskParts::compute: row(tr("timeline.part"), std::to_string(t.part)); break;
    }
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
  std::array<int, kTaskKindCount> per_kind{};
  const auto& spans = lanes.spans[size_t(box.lane)];
  for (int k = 0; k < box.count; ++k) ++per_kind[size_t(spans[size_t(box.first_span + k)].kind)];
  ImGui::BeginTooltip();
  ImGui::Text(tr("timeline.folded"), box.count);
  ImGui::TextDisabled("%s .. %s (%s)", format_ms(box.start_ms).c_str(), format_ms(box.end_ms).c_str(),
                      format_ms(box.end_ms - box.start_ms).c_str());
  for (const TaskKindStyle& style : kTaskKindStyles)
    if (const int n = per_kind[size_t(style.kind)])
      legend_item(style.color, (std::to_string(n) + " " + tr(style.label)).c_str());
  ImGui::TextDisabled("%s", tr("timeline.zoom_in"));
  ImGui::EndTooltip();
}

void draw_legend() {
  for (const TaskKindStyle& style : kTaskKindStyles) {
    legend_item(style.color, tr(style.label));
    ImGui::SameLine(0, ImGui::GetFontSize() * 0.9f);
  }
  legend_item(kFoldedMixedColor, tr("timeline.folded_mixed"));
}

// Toolbar: fit and zoom buttons, the visible range, the makespan.
void draw_toolbar(TimelineViewState& view, double makespan) {
  const float font = ImGui::GetFontSize();
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
}

// One frame of the chart: what it shows and where (lane labels on the left, the ruler on top,
// lanes below, scrolling when many), and the mouse over it.
struct ChartFrame {
  ChartFrame(const TaskGraph& graph, const TimelineLanes& timeline_lanes, TimelineViewState& view_state)
      : tg(graph), lanes(timeline_lanes), view(view_state) {}
  const TaskGraph& tg;
  const TimelineLanes& lanes;
  TimelineViewState& view;
  double makespan = 0;
  float font = 0;
  float label_w = 0, plot_w = 0, ruler_h = 0, lanes_h = 0, lane_h = 0;
  ImVec2 avail;
  int n_lanes = 0;
  double px_per_ms = 0;
  std::vector<double> ticks;
  // Inside the lanes' child window:
  ImVec2 origin, plot_min, clip_min, clip_max, mouse;
  float content_h = 0;
  bool hovered = false, active = false, mouse_in_child = false;
  double mouse_ms = 0;
};

// The chart's geometry in the space left below the legend.
void measure_chart(ChartFrame& f) {
  const float font = f.font = ImGui::GetFontSize();
  for (int d : f.lanes.devices) f.label_w = std::max(f.label_w, ImGui::CalcTextSize(f.tg.topology().name(d).c_str()).x);
  f.label_w = std::min(f.label_w + font * 0.8f, font * 12.0f);
  const float legend_h = ImGui::GetTextLineHeightWithSpacing();
  f.ruler_h = font * 1.5f;
  f.avail = ImGui::GetContentRegionAvail();
  f.plot_w = std::max(40.0f, f.avail.x - f.label_w - ImGui::GetStyle().ScrollbarSize);
  f.lanes_h = std::max(font * 4, f.avail.y - f.ruler_h - legend_h - ImGui::GetStyle().ItemSpacing.y);
  f.n_lanes = int(f.lanes.devices.size());
  f.lane_h = std::clamp(f.lanes_h / std::max(1, f.n_lanes), font * 1.3f, font * 2.2f);
  f.px_per_ms = f.plot_w / (f.view.t1_ms - f.view.t0_ms);
  f.ticks = nice_ticks(f.view.t0_ms, f.view.t1_ms, std::max(2, int(f.plot_w / (font * 7.5f))));
}

// The ruler: a baseline with labelled ticks.
void draw_ruler(const ChartFrame& f) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 ruler_pos = ImGui::GetCursorScreenPos();
  const float plot_x = ruler_pos.x + f.label_w, font = f.font, ruler_h = f.ruler_h;
  const int decimals = f.ticks.size() >= 2 ? tick_decimals(f.ticks[1] - f.ticks[0]) : 3;
  ImGui::Dummy(ImVec2(f.avail.x, ruler_h));
  dl->AddLine(ImVec2(plot_x, ruler_pos.y + ruler_h - 1), ImVec2(plot_x + f.plot_w, ruler_pos.y + ruler_h - 1), kGridLine);
  for (double t : f.ticks) {
    const float x = plot_x + float((t - f.view.t0_ms) * f.px_per_ms);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f ms", decimals, t);
    const float w = ImGui::CalcTextSize(buf).x;
    dl->AddLine(ImVec2(x, ruler_pos.y + ruler_h - font * 0.35f), ImVec2(x, ruler_pos.y + ruler_h), kRulerText);
    if (x - w * 0.5f >= plot_x - 2 && x + w * 0.5f <= plot_x + f.plot_w + 2)
      dl->AddText(ImVec2(x - w * 0.5f, ruler_pos.y + font * 0.05f), kRulerText, buf);
  }
}

// In the lanes' child window: the interaction surface over the chart (the lane labels stay
// outside it) and where the mouse is.
void place_chart(ChartFrame& f) {
  f.origin = ImGui::GetCursorScreenPos();
  f.content_h = f.lane_h * float(f.n_lanes);
  f.plot_min = ImVec2(f.origin.x + f.label_w, f.origin.y);
  ImGui::SetCursorScreenPos(f.plot_min);
  ImGui::InvisibleButton("##chart", ImVec2(f.plot_w, std::max(f.content_h, 1.0f)));
  f.hovered = ImGui::IsItemHovered();
  f.active = ImGui::IsItemActive();
  f.mouse = ImGui::GetIO().MousePos;
  f.mouse_ms = f.view.t0_ms + (f.mouse.x - f.plot_min.x) / f.px_per_ms;
  f.clip_min = ImGui::GetWindowPos();
  f.clip_max = ImVec2(f.clip_min.x + ImGui::GetWindowWidth(), f.clip_min.y + ImGui::GetWindowHeight());
  f.mouse_in_child = f.mouse.y >= f.clip_min.y && f.mouse.y < f.clip_max.y;
}

// Lane backgrounds, labels and the grid; leaves the chart's clip rectangle pushed.
void draw_lanes(const ChartFrame& f, ImDrawList* ldl) {
  const TaskGraph& tg = f.tg;
  const ImVec2 origin = f.origin;
  for (int lane = 0; lane < f.n_lanes; ++lane) {
    const float y0 = origin.y + lane * f.lane_h, y1 = y0 + f.lane_h;
    if (y1 < f.clip_min.y || y0 > f.clip_max.y) continue;
    ldl->AddRectFilled(ImVec2(origin.x, y0), ImVec2(f.plot_min.x + f.plot_w, y1), lane % 2 ? kLaneBgOdd : kLaneBgEven);
    const int device = f.lanes.devices[size_t(lane)];
    const std::string name = tg.topology().name(device);
    const ImU32 col = tg.topology().is_link(device) ? IM_COL32(150, 156, 170, 255) : IM_COL32(220, 224, 232, 255);
    const ImVec4 clip(origin.x, y0, origin.x + f.label_w - f.font * 0.3f, y1);
    ldl->AddText(nullptr, 0.0f, ImVec2(origin.x + f.font * 0.2f, y0 + (f.lane_h - f.font) * 0.5f), col, name.c_str(), nullptr, 0.0f, &clip);
    if (lane > 0 && tg.topology().is_link(device) && !tg.topology().is_link(f.lanes.devices[size_t(lane - 1)]))
      ldl->AddLine(ImVec2(origin.x, y0), ImVec2(f.plot_min.x + f.plot_w, y0), IM_COL32(120, 130, 150, 160), 1.5f);
  }
  ldl->PushClipRect(ImVec2(f.plot_min.x, f.clip_min.y), ImVec2(f.plot_min.x + f.plot_w, f.clip_max.y), true);
  for (double t : f.ticks) {
    const float x = f.plot_min.x + float((t - f.view.t0_ms) * f.px_per_ms);
    ldl->AddLine(ImVec2(x, std::max(origin.y, f.clip_min.y)), ImVec2(x, std::min(origin.y + f.content_h, f.clip_max.y)), kGridLine);
  }
}

// The boxes of the layout (recorded for timeline_drawn_boxes); returns the one under the mouse.
const TimelineBox* draw_boxes(const ChartFrame& f, const TimelineLayout& layout, ImDrawList* ldl) {
  const TimelineBox* hovered_box = nullptr;
  const ImVec2 origin = f.origin, plot_min = f.plot_min, mouse = f.mouse;
  const float pad = std::max(1.0f, f.lane_h * 0.12f);
  g_drawn_boxes.clear();
  for (const TimelineBox& box : layout.boxes) {
    const float y0 = origin.y + box.lane * f.lane_h + pad, y1 = origin.y + (box.lane + 1) * f.lane_h - pad;
    if (y1 < f.clip_min.y || y0 > f.clip_max.y) continue;
    float x0 = plot_min.x + std::max(box.x0, -4.0f);
    float x1 = plot_min.x + std::min(box.x1, f.plot_w + 4.0f);
    if (x1 - x0 < 1.0f) x1 = x0 + 1.0f;
    ImU32 fill = box.count == 1 ? task_kind_color(box.kind)
                                : (box.mixed_kinds ? kFoldedMixedColor : scale_color(task_kind_color(box.kind), 0.72f));
    const bool is_hovered = f.hovered && f.mouse_in_child && mouse.y >= y0 - pad && mouse.y < y1 + pad && mouse.x >= x0 - 1 &&
                            mouse.x < std::max(x1, x0 + 3.0f) + 1;
    if (is_hovered) hovered_box = &box;
    g_drawn_boxes.push_back({box, ImVec2(x0, y0), ImVec2(x1, y1)});
    ldl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), fill, x1 - x0 > 6 ? 2.0f : 0.0f);
    if (box.count > 1 && x1 - x0 > 3) {
      // Folded: a diagonal hint of "many", and the count when it fits.
      ldl->AddRect(ImVec2(x0, y0), ImVec2(x1, y1), scale_color(fill, 1.35f), 0.0f, 0, 1.0f);
      char buf[16];
      std::snprintf(buf, sizeof buf, "%d", box.count);
      const ImVec2 ts = ImGui::CalcTextSize(buf);
      if (ts.x + 4 < x1 - x0) ldl->AddText(ImVec2((x0 + x1 - ts.x) * 0.5f, (y0 + y1 - ts.y) * 0.5f), kFoldText, buf);
    } else if (box.count == 1 && x1 - x0 > f.font * 2.5f) {
      const Task& t = f.tg.tasks()[size_t(f.lanes.spans[size_t(box.lane)][size_t(box.first_span)].task)];
      const std::string label = box_label(f.tg, t);
      const ImVec4 clip(std::max(x0, plot_min.x) + 3, y0, std::min(x1, plot_min.x + f.plot_w) - 2, y1);
      ldl->AddText(nullptr, 0.0f, ImVec2(std::max(x0, plot_min.x) + 4, (y0 + y1 - f.font) * 0.5f), kBoxText, label.c_str(),
                   nullptr, 0.0f, &clip);
    }
  }
  if (hovered_box) {
    const float y0 = origin.y + hovered_box->lane * f.lane_h + pad, y1 = origin.y + (hovered_box->lane + 1) * f.lane_h - pad;
    const float x0 = plot_min.x + std::max(hovered_box->x0, -4.0f);
    const float x1 = std::max(x0 + 1.0f, plot_min.x + std::min(hovered_box->x1, f.plot_w + 4.0f));
    ldl->AddRect(ImVec2(x0 - 1, y0 - 1), ImVec2(x1 + 1, y1 + 1), IM_COL32(255, 255, 255, 230), 2.0f, 0, 2.0f);
  }
  return hovered_box;
}

// Mouse: wheel zooms around the cursor (Shift+wheel scrolls lanes), drag pans, double-click
// fits, hovering shows the task, the fold or the lane and time.
void handle_chart_mouse(ChartFrame& f, const TimelineBox* hovered_box) {
  const ImGuiIO& io = ImGui::GetIO();
  TimelineViewState& view = f.view;
  if (f.hovered && io.MouseWheel != 0.0f) {
    if (io.KeyShift)
      ImGui::SetScrollY(ImGui::GetScrollY() - io.MouseWheel * f.lane_h * 3);
    else
      zoom_view(view, f.mouse_ms, std::pow(0.8, double(io.MouseWheel)), f.makespan);
  }
  if (f.active && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.0f)) {
    const double dt = -io.MouseDelta.x / f.px_per_ms;
    view.t0_ms += dt;
    view.t1_ms += dt;
    view.fit = false;
    clamp_view(view, f.makespan);
    if (io.MouseDelta.y != 0.0f) ImGui::SetScrollY(ImGui::GetScrollY() - io.MouseDelta.y);
  }
  if (f.hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) fit_view(view, f.makespan);
  if (hovered_box && !ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.0f)) {
    if (hovered_box->count == 1)
      task_tooltip(f.tg, f.tg.tasks()[size_t(f.lanes.spans[size_t(hovered_box->lane)][size_t(hovered_box->first_span)].task)]);
    else
      fold_tooltip(f.lanes, *hovered_box);
  } else if (f.hovered && !f.active) {
    const int lane = std::clamp(int((f.mouse.y - f.origin.y) / f.lane_h), 0, f.n_lanes - 1);
    ImGui::SetTooltip("%s at %s", f.tg.topology().name(f.lanes.devices[size_t(lane)]).c_str(), format_ms(f.mouse_ms).c_str());
  }
}

// Lane label tooltips (labels may be clipped): the device, its task count and busy time.
void lane_label_tooltip(const ChartFrame& f) {
  const ImVec2 mouse = f.mouse;
  if (!ImGui::IsWindowHovered() || mouse.x >= f.plot_min.x || mouse.y < f.origin.y || mouse.y >= f.origin.y + f.content_h) return;
  const int lane = int((mouse.y - f.origin.y) / f.lane_h);
  if (lane < 0 || lane >= f.n_lanes) return;
  const int device = f.lanes.devices[size_t(lane)];
  double busy = 0;
  for (const auto& s : f.lanes.spans[size_t(lane)]) busy += s.end_ms - s.start_ms;
  ImGui::SetTooltip("%s: %zu tasks, busy %s (%s of the iteration)", f.tg.topology().name(device).c_str(),
                    f.lanes.spans[size_t(lane)].size(), format_ms(busy).c_str(),
                    format_percent(f.makespan > 0 ? busy / f.makespan : 0).c_str());
}

}  // namespace

const std::vector<DrawnTimelineBox>& timeline_drawn_boxes() { return g_drawn_boxes; }

void draw_timeline_panel(AppState& state, const PanelRect& rect) {
  if (!begin_panel(state, kTimelineWindow, "timeline", rect)) {
    ImGui::End();
    return;
  }
  const FlexflowView& ff = state.flexflow;
  TimelineViewState& view = state.timeline;
  if (!ff.task_graph) {
    if (ff.error) ImGui::TextWrapped("%s", tr_fill("timeline.too_large", {ff.error->message}).c_str());
    else ImGui::TextDisabled("%s", tr("timeline.none"));
    ImGui::End();
    return;
  }
  ChartFrame f{*ff.task_graph, ff.lanes, view};
  f.makespan = ff.summary.makespan_ms;
  if (view.revision != ff.revision) {
    // A new timeline: follow it when fitted, else keep the zoom but stay near the iteration.
    if (view.fit || !(view.t1_ms > view.t0_ms))
      fit_view(view, f.makespan);
    else
      clamp_view(view, f.makespan);
    view.revision = ff.revision;
  }
  draw_toolbar(view, f.makespan);
  draw_legend();
  measure_chart(f);
  const TimelineLayout layout = layout_timeline(f.lanes, view.t0_ms, view.t1_ms, f.plot_w);
  draw_ruler(f);

  // The lanes, in a child window so that many lanes scroll.
  ImGui::BeginChild("##lanes", ImVec2(f.avail.x, f.lanes_h), false, ImGuiWindowFlags_NoScrollWithMouse);
  ImDrawList* ldl = ImGui::GetWindowDrawList();
  place_chart(f);
  draw_lanes(f, ldl);
  const TimelineBox* hovered_box = draw_boxes(f, layout, ldl);
  // The makespan.
  const float xm = f.plot_min.x + float((f.makespan - view.t0_ms) * f.px_per_ms);
  ldl->AddLine(ImVec2(xm, std::max(f.origin.y, f.clip_min.y)), ImVec2(xm, std::min(f.origin.y + f.content_h, f.clip_max.y)),
               kMakespanLine, 1.5f);
  ldl->PopClipRect();
  handle_chart_mouse(f, hovered_box);
  lane_label_tooltip(f);
  ImGui::SetCursorScreenPos(ImVec2(f.origin.x, f.origin.y + f.content_h));
  ImGui::Dummy(ImVec2(1, 0));
  ImGui::EndChild();
  ImGui::TextDisabled("%d boxes drawn for %d tasks (spans under %.0f px folded)", int(layout.boxes.size()), f.tg.live_count(),
                      double(kTimelineMinBoxPx));
  ImGui::End();
}

}  // namespace autopar::web
