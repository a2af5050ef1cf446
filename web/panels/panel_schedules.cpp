// The Schedules panel (issue 42; lecture 6.3 draws GPipe and 1F1B): pipeline schedules as
// step-through Gantt charts over the schedule model of core/alpa/pipeline_schedules.h, reached
// through core/operations/schedule_view.h. The simulation is cached by its inputs
// (schedules_view.h) so a frame only draws; a change re-simulates once, on this thread (8
// devices x 64 micro-batches take well under a millisecond natively).
#include "panel_schedules.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "format_units.h"
#include "imgui.h"
#include "panel_common.h"
#include "schedules_state.h"

namespace autopar::web {
namespace {

// A number as the CLI's text prints it ("1", "2.5", "0.333").
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The time of the tab's inputs: plain units with uniform shares, ms with the plan's stages.
std::string time_text(const ScheduleSettings& s, double t) { return s.source == "plan" ? format_ms(t) : num(t); }

// Micro-batch k's colour: hues a golden angle apart, so neighbours differ and 64 stay distinct
// enough to follow one through the pipeline. F is the base colour, B darker, W lighter.
ImU32 microbatch_color(int k, PassKind kind) {
  const float hue = std::fmod(float(k) * 0.618034f + 0.58f, 1.0f);
  float sat = 0.62f, val = 0.92f;
  if (kind == PassKind::backward) val = 0.58f, sat = 0.75f;
  if (kind == PassKind::weight) val = 1.0f, sat = 0.30f;
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(hue, sat, val, r, g, b);
  return ImGui::GetColorU32(ImVec4(r, g, b, 1.0f));
}

// The colour with its alpha scaled (passes after the cursor are faded).
ImU32 faded(ImU32 c, bool fade) {
  if (!fade) return c;
  const ImU32 a = (c >> IM_COL32_A_SHIFT) & 0xFF;
  return (c & ~IM_COL32_A_MASK) | (ImU32(a * 0.22f) << IM_COL32_A_SHIFT);
}

const ImU32 kSendForward = IM_COL32(170, 176, 190, 255);
const ImU32 kSendGradient = IM_COL32(120, 124, 138, 255);
const ImU32 kCursorColor = IM_COL32(255, 214, 90, 255);
const ImU32 kLaneBg = IM_COL32(30, 33, 40, 255);
const ImU32 kLinkBg = IM_COL32(24, 26, 32, 255);

// Applies an edit of the tab's inputs (validated; a refusal becomes the notice).
void apply_schedules(AppState& state, const ScheduleSettings& s) {
  Settings next = state.settings;
  next.schedules = s;
  apply_from_ui(state, next, "");
}

// A combo of the schedule names (plus "none" when `optional`); returns true when changed.
bool schedule_combo(const char* id, std::string& value, bool optional) {
  bool changed = false;
  const char* shown = value.empty() || value == "none" ? tr("sched.none") : value.c_str();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.5f);
  if (ImGui::BeginCombo(id, shown)) {
    if (optional && ImGui::Selectable(tr("sched.none"), value == "none" || value.empty())) {
      value = "none";
      changed = true;
    }
    for (const std::string& n : schedule_names())
      if (ImGui::Selectable(n.c_str(), n == value)) {
        value = n;
        changed = true;
      }
    ImGui::EndCombo();
  }
  return changed;
}

// The inputs: schedules, source, and the numbers of the source.
void draw_inputs(AppState& state) {
  const float font = ImGui::GetFontSize();
  ScheduleSettings s = state.settings.schedules;
  bool changed = false;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr("sched.first"));
  ImGui::SameLine();
  changed |= schedule_combo("##first", s.first, false);
  ImGui::SameLine();
  ImGui::TextUnformatted(tr("sched.second"));
  ImGui::SameLine();
  changed |= schedule_combo("##second", s.second, true);
  ImGui::SameLine(0, font * 1.5f);
  if (ImGui::RadioButton(tr_id("sched.source_uniform").c_str(), s.source == "uniform")) s.source = "uniform", changed = true;
  ImGui::SameLine();
  if (ImGui::RadioButton(tr_id("sched.source_plan").c_str(), s.source == "plan")) s.source = "plan", changed = true;
  ImGui::SameLine();
  help_marker(tr("sched.source_tip"));

  auto int_field = [&](const char* key, int& v, bool enabled) {
    ImGui::SameLine(0, font);
    ImGui::TextUnformatted(tr(key));
    ImGui::SameLine();
    ImGui::SetNextItemWidth(font * 5.5f);
    if (!enabled) ImGui::BeginDisabled();
    int x = v;
    if (ImGui::InputInt((std::string("##") + key).c_str(), &x, 1, 4, ImGuiInputTextFlags_EnterReturnsTrue) ||
        (ImGui::IsItemDeactivatedAfterEdit() && x != v)) {
      if (x != v) v = x, changed = true;
    }
    if (!enabled) ImGui::EndDisabled();
  };
  auto number_field = [&](const char* key, double& v, bool enabled) {
    ImGui::SameLine(0, font);
    ImGui::TextUnformatted(tr(key));
    ImGui::SameLine();
    ImGui::SetNextItemWidth(font * 4.0f);
    if (!enabled) ImGui::BeginDisabled();
    double x = v;
    if (ImGui::InputDouble((std::string("##") + key).c_str(), &x, 0, 0, "%.4g", ImGuiInputTextFlags_EnterReturnsTrue) && x != v)
      v = x, changed = true;
    if (!enabled) ImGui::EndDisabled();
  };
  const bool uniform = s.source == "uniform";
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("");
  // The plan source runs the plan's stages and the page's micro-batches: its disabled fields show those.
  const SchedulesView& view = state.schedules;
  const bool from_plan = !uniform && view.plan_microbatches > 0;
  int plan_devices = from_plan ? int(view.plan_latency_ms.size()) : 0, plan_microbatches = view.plan_microbatches;
  int_field("sched.devices", from_plan ? plan_devices : s.devices, uniform);
  int_field("sched.microbatches", from_plan ? plan_microbatches : s.microbatches, uniform);
  int_field("sched.v", s.interleave, true);
  number_field("sched.f", s.f, uniform);
  number_field("sched.b", s.b, uniform);
  number_field("sched.w", s.w, uniform);
  number_field("sched.comm", s.comm, uniform);
  ImGui::SameLine();
  help_marker(tr("sched.times_tip"));
  if (changed) apply_schedules(state, s);
}

// The plan source's line: the stages in use, or how to get a plan.
void draw_plan_source(AppState& state) {
  const ScheduleSettings& s = state.settings.schedules;
  if (s.source != "plan") return;
  const float font = ImGui::GetFontSize();
  if (inter_planning(state.alpa.inter)) {
    ImGui::TextDisabled(tr("sched.planning"), 100 * inter_plan_progress(state.alpa.inter));
  } else if (!schedules_plan(state)) {
    const AlpaInputs in = alpa_inputs(state);
    const bool failed = state.alpa.inter.error && state.alpa.inter.key == inter_key(in);
    // The reader chose the plan's stages: plan them in the workers at once, as the Plan button
    // would, unless planning these inputs failed (then its message, and the button to retry).
    if (!failed) {
      start_inter_plan(state.alpa.inter, in, state.graph, state.cluster);
    } else {
      ImGui::TextDisabled("%s", state.alpa.inter.error->message.c_str());
      if (ImGui::Button(tr_id("sched.plan_now").c_str())) start_inter_plan(state.alpa.inter, in, state.graph, state.cluster);
    }
  } else {
    // Everything the schedule model takes from the plan, so a reader can redo F, B, W and the sends.
    const SchedulesView& v = state.schedules;
    std::string stages, sends;
    for (double x : v.plan_latency_ms) stages += (stages.empty() ? "" : ", ") + format_ms(x);
    for (size_t k = 0; k + 1 < v.plan_boundary_ms.size(); ++k) sends += (sends.empty() ? "" : ", ") + format_ms(v.plan_boundary_ms[k] / 2);
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", tr_fill("sched.plan_stages_split", {state.settings.model, state.settings.cluster, std::to_string(v.plan_latency_ms.size()),
                                                                  stages, sends.empty() ? "-" : sends, format_percent(v.plan_forward_share),
                                                                  format_percent(v.plan_weight_share), std::to_string(v.plan_microbatches)})
                                  .c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::SameLine(0, font);
  // The lecture's gpt-pipeline case (section 6.3): its model, cluster and micro-batches, planned.
  if (ImGui::Button(tr_id("sched.gpt_case").c_str())) {
    Settings next = state.settings;
    next.model = "transformer:layers=24";
    next.model_json.clear();
    next.cluster = "lecture:4x8";
    next.custom_cluster.reset();
    next.mesh = "4x8";
    next.microbatches = 32;
    next.schedules.source = "plan";
    next.schedules.microbatches = 32;
    next.schedules.time = 0;
    apply_from_ui(state, next, tr("sched.gpt_case_done"));
    if (!schedules_plan(state) && !inter_planning(state.alpa.inter))
      start_inter_plan(state.alpa.inter, alpa_inputs(state), state.graph, state.cluster);
  }
}

// Play, pause, step, speed and the scrubbable cursor.
void draw_playback(AppState& state) {
  const float font = ImGui::GetFontSize();
  ScheduleSettings& s = state.settings.schedules;   // the cursor and playback are always valid: edited in place
  const SchedulesView& view = state.schedules;
  const bool have = view.report.has_value();
  if (!have) ImGui::BeginDisabled();
  // Each button's rectangle is kept for the browser test, which clicks it.
  auto button = [&](const char* key, const char* name) {
    const bool pressed = ImGui::Button(tr_id(key).c_str());
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    state.schedules.controls_px[name] = {a.x, a.y, b.x - a.x, b.y - a.y};
    return pressed;
  };
  if (button("sched.to_start", "start")) s.time = 0, s.playing = false;
  ImGui::SameLine();
  if (button("sched.step_back", "back")) s.time = schedule_step_time(view, s.time, -1), s.playing = false;
  ImGui::SameLine();
  if (button(s.playing ? "sched.pause" : "sched.play", "play")) {
    if (!s.playing && s.time >= view.makespan) s.time = 0;   // played to the end: from the start again
    s.playing = !s.playing;
  }
  ImGui::SameLine();
  if (button("sched.step", "step")) s.time = schedule_step_time(view, s.time, +1), s.playing = false;
  ImGui::SameLine();
  if (button("sched.to_end", "end")) s.time = view.makespan, s.playing = false;
  ImGui::SameLine(0, font);
  ImGui::TextUnformatted(tr("sched.speed"));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(font * 7);
  float speed = float(s.speed);
  if (ImGui::SliderFloat("##speed", &speed, float(kMinScheduleSpeed), float(kMaxScheduleSpeed), "%.2gx", ImGuiSliderFlags_Logarithmic))
    s.speed = std::clamp(double(speed), kMinScheduleSpeed, kMaxScheduleSpeed);
  ImGui::SameLine(0, font);
  ImGui::SetNextItemWidth(std::max(font * 8, ImGui::GetContentRegionAvail().x - font * 14));
  float t = float(s.time);
  if (ImGui::SliderFloat("##time", &t, 0.0f, float(std::max(view.makespan, 1e-9)), "")) {
    s.time = std::clamp(double(t), 0.0, view.makespan);
    s.playing = false;
  }
  ImGui::SameLine();
  ImGui::Text(tr("sched.cursor"), time_text(s, s.time).c_str(), have ? schedule_step_index(view.step_times, s.time) : 0,
              have ? int(view.step_times.size()) - 1 : 0);
  if (!have) ImGui::EndDisabled();
}

// The figures of every schedule, as `autopar schedule --json` gives them, in one table.
void draw_figures(const AppState& state) {
  const SchedulesView& view = state.schedules;
  const ScheduleSettings& s = state.settings.schedules;
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("##figures", 10, flags)) return;
  const char* heads[] = {"sched.col_schedule", "sched.col_makespan", "sched.col_bubble",   "sched.col_bubble_pct",
                         "sched.col_published", "sched.col_peak",    "sched.col_peak_pub", "sched.col_params",
                         "sched.col_sends",    "sched.col_now"};
  for (const char* h : heads) ImGui::TableSetupColumn(tr(h));
  ImGui::TableHeadersRow();
  for (const ScheduleRun& run : view.report->runs) {
    const ScheduleResult& r = run.result;
    const double bubble = r.bubble_ms.empty() ? 0 : *std::max_element(r.bubble_ms.begin(), r.bubble_ms.end());
    const double peak = r.peak_inflight.empty() ? 0 : *std::max_element(r.peak_inflight.begin(), r.peak_inflight.end());
    double now = 0;
    for (const auto& curve : r.inflight) now = std::max(now, inflight_at(curve, s.time));
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (r.kind == ScheduleKind::interleaved) ImGui::Text("%s (v=%d)", schedule_name(r.kind), r.interleave);
    else ImGui::TextUnformatted(schedule_name(r.kind));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(time_text(s, r.makespan_ms).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(time_text(s, bubble).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_percent(r.bubble_fraction).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(run.published_bubble >= 0 ? time_text(s, run.published_bubble).c_str() : "-");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(num(peak).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(run.published_peak >= 0 ? num(run.published_peak).c_str() : "-");
    ImGui::TableNextColumn();
    ImGui::Text("%dx", schedule_parameter_copies(r.kind));
    ImGui::TableNextColumn();
    ImGui::Text("%d", r.sends);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(num(now).c_str());
  }
  ImGui::EndTable();
}

// Diagonal hatching inside a box (W passes), clipped to it.
void hatch(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 color) {
  const float h = b.y - a.y, step = std::max(4.0f, h * 0.55f);
  if (b.x - a.x < 3) return;
  dl->PushClipRect(a, b, true);
  for (float x = a.x - h; x < b.x; x += step) dl->AddLine(ImVec2(x, b.y), ImVec2(x + h, a.y), color, 1.0f);
  dl->PopClipRect();
}

// One schedule: its Gantt chart (a lane per device, a thin link row under each for the sends
// between it and the next) on [0, t_end], then its devices' activations in flight, each a lane
// filled to its level (scaled to the highest peak of both schedules) with its peak written
// beside it; the cursor across both. Clicking sets the cursor; hovering a pass describes it.
void draw_schedule_chart(AppState& state, const ScheduleRun& run, double t_end, double peak_scale, float height) {
  const ScheduleResult& r = run.result;
  ScheduleSettings& s = state.settings.schedules;
  const float font = ImGui::GetFontSize();
  const int P = std::max(r.devices, 1);
  const bool links = r.sends > 0 && std::any_of(r.passes.begin(), r.passes.end(),
                                                [](const SchedulePass& p) { return p.kind == PassKind::send && p.end_ms > p.start_ms; });
  // Height units: a device lane 1, a link row 0.3, a memory lane 0.55, the gaps between them.
  const float units = float(P) * (1.0f + (links ? 0.3f : 0.0f) + 0.55f) + 1.2f;
  const float lane = std::clamp((height - font * 1.5f) / units, font * 0.55f, font * 2.2f);
  const float link_h = links ? lane * 0.3f : 0.0f, mem_h = lane * 0.55f;
  const float label_w = font * 3.2f, right_w = font * 7.0f;   // room for "idle 291.5 ms"
  const float width = std::max(50.0f, ImGui::GetContentRegionAvail().x);
  const float plot_w = std::max(10.0f, width - label_w - right_w);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float x_at0 = p.x + label_w;
  const double scale = t_end > 0 ? plot_w / t_end : 0;
  auto sx = [&](double t) { return x_at0 + float(t * scale); };
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text_dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  auto device_y = [&](int d) { return p.y + float(d) * (lane + link_h); };
  char buf[64];
  for (int d = 0; d < P; ++d) {
    const float y = device_y(d);
    dl->AddRectFilled(ImVec2(x_at0, y + 1), ImVec2(x_at0 + plot_w, y + lane - 1), kLaneBg);
    std::snprintf(buf, sizeof buf, tr("sched.device"), d);
    dl->AddText(ImVec2(p.x, y + lane * 0.5f - font * 0.5f), text_dim, buf);
    if (links) dl->AddRectFilled(ImVec2(x_at0, y + lane + 1), ImVec2(x_at0 + plot_w, y + lane + link_h - 1), kLinkBg);
    // Its idle time, at the right: the bubble the figures add up.
    std::snprintf(buf, sizeof buf, tr("sched.idle"), time_text(s, r.bubble_ms[size_t(d)]).c_str());
    dl->AddText(ImVec2(x_at0 + plot_w + font * 0.4f, y + lane * 0.5f - font * 0.5f), text_dim, buf);
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const SchedulePass* hovered = nullptr;
  const ImVec2 clip_a(x_at0, p.y), clip_b(x_at0 + plot_w, device_y(P));
  dl->PushClipRect(clip_a, clip_b, true);
  for (const SchedulePass& q : r.passes) {
    const bool send = q.kind == PassKind::send;
    if (send && (!links || !(q.end_ms > q.start_ms))) continue;
    const float x0 = sx(q.start_ms), x1 = std::max(sx(q.end_ms), x0 + 1.0f);
    // A send sits on the link row of the lower-numbered device of its pair (the wrap-around
    // link of interleaved 1F1B, last to first, on the last device's row).
    const int row = send ? (std::abs(q.to_device - q.device) == 1 ? std::min(q.device, q.to_device) : std::max(q.device, q.to_device)) : q.device;
    const float y0 = send ? device_y(row) + lane + 1 : device_y(row) + 2;
    const float y1 = send ? y0 + link_h - 2 : y0 + lane - 4;
    const bool future = q.start_ms >= s.time;   // not started at the cursor: faded
    ImU32 color = send ? (q.gradient ? kSendGradient : kSendForward) : microbatch_color(q.microbatch, q.kind);
    dl->AddRectFilled(ImVec2(x0, y0), ImVec2(std::max(x1 - 1, x0 + 1), y1), faded(color, future));
    if (q.kind == PassKind::weight) hatch(dl, ImVec2(x0, y0), ImVec2(x1 - 1, y1), faded(IM_COL32(40, 44, 56, 200), future));
    if (q.kind == PassKind::backward && !q.whole_backward)   // B split from W: a thin line on top says "input half only"
      dl->AddLine(ImVec2(x0, y0 + 1), ImVec2(x1 - 1, y0 + 1), faded(IM_COL32(250, 250, 250, 150), future), 1.0f);
    if (!send && x1 - x0 > font * 1.1f) {
      std::snprintf(buf, sizeof buf, "%s%d", pass_kind_letter(q.kind), q.microbatch);
      const ImVec2 ts = ImGui::CalcTextSize(buf);
      if (ts.x + 3 < x1 - x0 && ts.y <= y1 - y0 + 3)
        dl->AddText(ImVec2((x0 + x1 - ts.x) * 0.5f, (y0 + y1 - ts.y) * 0.5f), faded(IM_COL32(12, 14, 20, 255), future), buf);
    }
    if (mouse.x >= x0 && mouse.x < x1 && mouse.y >= y0 && mouse.y < y1) hovered = &q;
  }
  dl->PopClipRect();
  // The memory lanes: each device's activations in flight, a step curve filled to its level.
  const float mem_top = device_y(P) + font * 0.35f;
  dl->AddText(ImVec2(p.x, mem_top - font * 0.1f), text_dim, tr("sched.memory"));
  for (int d = 0; d < P; ++d) {
    const float y0 = mem_top + font * 0.9f + float(d) * mem_h, y1 = y0 + mem_h - 1;
    dl->AddRectFilled(ImVec2(x_at0, y0), ImVec2(x_at0 + plot_w, y1), kLinkBg);
    const auto& curve = r.inflight[size_t(d)];
    const ImU32 fill = microbatch_color(d * 7 + 3, PassKind::forward);
    for (size_t k = 0; k < curve.size(); ++k) {
      const double t0 = curve[k].time_ms, t1 = k + 1 < curve.size() ? curve[k + 1].time_ms : r.makespan_ms;
      if (!(curve[k].inflight > 0) || !(t1 > t0)) continue;
      const float h = float(curve[k].inflight / peak_scale) * (y1 - y0);
      dl->AddRectFilled(ImVec2(sx(t0), y1 - h), ImVec2(std::max(sx(t1), sx(t0) + 1), y1), faded(fill, t0 >= s.time));
    }
    // Its peak as a tick line across the lane, and as a number at the right.
    const float peak_y = y1 - float(r.peak_inflight[size_t(d)] / peak_scale) * (y1 - y0);
    dl->AddLine(ImVec2(x_at0, peak_y), ImVec2(x_at0 + plot_w, peak_y), IM_COL32(255, 255, 255, 70), 1.0f);
    std::snprintf(buf, sizeof buf, tr("sched.peak_at"), d, num(r.peak_inflight[size_t(d)]).c_str());
    // No taller than its lane, so the labels of many devices do not overlap.
    const float label_font = std::min(font * 0.8f, mem_h);
    dl->AddText(ImGui::GetFont(), label_font, ImVec2(x_at0 + plot_w + font * 0.4f, y0 + (mem_h - label_font) * 0.5f), text_dim, buf);
  }
  const float bottom = mem_top + font * 0.9f + float(P) * mem_h;
  // The cursor across the chart and the memory lanes.
  const float cx = sx(std::min(s.time, t_end));
  dl->AddLine(ImVec2(cx, p.y), ImVec2(cx, bottom), kCursorColor, 2.0f);
  ImGui::InvisibleButton("##chart", ImVec2(width, bottom - p.y + font * 0.3f));
  if (ImGui::IsItemActive() && ImGui::IsMouseDown(ImGuiMouseButton_Left) && scale > 0) {
    s.time = std::clamp(double(mouse.x - x_at0) / scale, 0.0, t_end);
    s.playing = false;
  }
  if (hovered && ImGui::IsItemHovered()) {
    if (hovered->kind == PassKind::send)
      ImGui::SetTooltip(tr("sched.send_tip"), hovered->device, hovered->to_device, hovered->microbatch,
                        tr(hovered->gradient ? "sched.gradient" : "sched.activation"), time_text(s, hovered->start_ms).c_str(),
                        time_text(s, hovered->end_ms).c_str());
    else
      ImGui::SetTooltip(tr("sched.pass_tip"), pass_kind_letter(hovered->kind), hovered->microbatch, hovered->microbatch, hovered->stage,
                        hovered->device,
                        tr(hovered->kind == PassKind::forward    ? "sched.kind_f"
                           : hovered->kind == PassKind::weight   ? "sched.kind_w"
                           : hovered->whole_backward             ? "sched.kind_b_whole"
                                                                 : "sched.kind_b_input"),
                        time_text(s, hovered->start_ms).c_str(), time_text(s, hovered->end_ms).c_str());
  }
}

// A swatch and its words, on the current line.
void legend(ImU32 color, const char* key, bool hatched = false) {
  const float font = ImGui::GetFontSize();
  ImGui::SameLine(0, font * 0.8f);
  const ImVec2 a = ImGui::GetCursorScreenPos();
  const ImVec2 b(a.x + font * 1.4f, a.y + font);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(a, b, color);
  if (hatched) hatch(dl, a, b, IM_COL32(40, 44, 56, 200));
  ImGui::Dummy(ImVec2(font * 1.4f, font));
  ImGui::SameLine(0, font * 0.3f);
  ImGui::TextUnformatted(tr(key));
}

// What each schedule does, and why zero bubble and DualPipe shrink the bubble.
void draw_explanation() {
  if (!ImGui::CollapsingHeader(tr_id("sched.about").c_str())) return;
  ImGui::PushTextWrapPos(0);
  for (const char* key : {"sched.about_gpipe", "sched.about_1f1b", "sched.about_interleaved", "sched.about_zb",
                          "sched.about_zbh2", "sched.about_zbv", "sched.about_dualpipe", "sched.about_figures"})
    ImGui::BulletText("%s", tr(key));
  ImGui::PopTextWrapPos();
}

}  // namespace

void draw_schedules_panel(AppState& state, const PanelRect& rect) {
  if (!begin_panel(state, kSchedulesWindow, "schedules", rect)) {
    ImGui::End();
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  refresh_schedules(state);
  // Playback moves by the frame's wall time; the cursor is re-read below in the same frame.
  advance_schedule_playback(state.settings.schedules, state.schedules, ImGui::GetIO().DeltaTime);
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", tr("sched.intro"));
  ImGui::PopTextWrapPos();
  draw_explanation();
  draw_inputs(state);
  draw_plan_source(state);
  const SchedulesView& view = state.schedules;
  if (view.error) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.55f, 1.0f));
    // No plan yet is the one error the tab words itself (the Plan button is above it); the
    // others are the core's messages, which name the field.
    ImGui::TextWrapped("%s", view.error->code == ErrorCode::not_ready ? tr("sched.no_plan") : view.error->message.c_str());
    ImGui::PopStyleColor();
    ImGui::End();
    return;
  }
  if (!view.report) {
    ImGui::End();
    return;
  }
  draw_playback(state);
  draw_figures(state);
  ImGui::TextDisabled("%s", tr("sched.legend"));
  legend(microbatch_color(0, PassKind::forward), "sched.legend_f");
  legend(microbatch_color(0, PassKind::backward), "sched.legend_b");
  legend(microbatch_color(0, PassKind::weight), "sched.legend_w", true);
  legend(kSendForward, "sched.legend_send");
  legend(kSendGradient, "sched.legend_send_back");
  legend(kCursorColor, "sched.legend_cursor");
  // Both schedules on one time axis, stacked, sharing the memory scale: lengths and heights compare directly.
  double peak_scale = 0;
  for (const ScheduleRun& run : view.report->runs)
    for (double x : run.result.peak_inflight) peak_scale = std::max(peak_scale, x);
  peak_scale = std::max(peak_scale, 1e-9);
  const int n = int(view.report->runs.size());
  ImGui::BeginChild("##charts", ImVec2(0, 0), false);
  const float h = std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().y / float(n) - ImGui::GetFontSize() * 1.6f);
  for (const ScheduleRun& run : view.report->runs) {
    ImGui::PushID(int(run.result.kind));
    ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
    ImGui::Text("%s", schedule_name(run.result.kind));
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::TextDisabled(tr("sched.chart_title"), time_text(state.settings.schedules, run.result.makespan_ms).c_str(),
                        format_percent(run.result.bubble_fraction).c_str(), run.result.stages);
    draw_schedule_chart(state, run, view.makespan, peak_scale, h);
    ImGui::PopID();
  }
  ImGui::EndChild();
  state.schedules.drawn_revision = view.revision;
  state.schedules.draw_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ImGui::End();
}

}  // namespace autopar::web
