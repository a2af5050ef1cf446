// The Schedules tab as state. See schedules_view.h.
#include "schedules_view.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "inter_operation.h"
#include "request_fields.h"

namespace autopar::web {
namespace {

Error wrong_type(const std::string& field, const std::string& expected) {
  return make_error(ErrorCode::wrong_type, "schedules." + field + " must be " + expected, "schedules." + field);
}

// The second schedule's "none": no comparison, the first alone.
bool no_second(const std::string& name) { return name.empty() || name == "none"; }

// The schedules the settings show, by name (unchecked: parse errors name the field).
Result<std::vector<ScheduleKind>> shown_kinds(const ScheduleSettings& s) {
  std::vector<ScheduleKind> kinds;
  auto a = parse_schedule_kind(s.first, "schedules.first");
  if (!a.ok()) return a.error();
  kinds.push_back(a.value());
  if (!no_second(s.second)) {
    auto b = parse_schedule_kind(s.second, "schedules.second");
    if (!b.ok()) return b.error();
    kinds.push_back(b.value());
  }
  return kinds;
}

// A key that changes whenever the simulated inputs do (not the cursor or playback).
std::string settings_key(const ScheduleSettings& s, const ScheduleCompareRequest& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s|%s|%s|%d|%d|%d|%.17g|%.17g|%.17g|%.17g|", s.first.c_str(), s.second.c_str(), s.source.c_str(),
                r.devices, r.microbatches, r.interleave, r.f, r.b, r.w, r.comm);
  std::string key = buf;
  if (r.plan) {
    std::snprintf(buf, sizeof buf, "plan %d %.17g %.17g|", r.plan->microbatches, r.plan->forward_share, r.plan->weight_share);
    key += buf;
    for (size_t k = 0; k < r.plan->stage_ms.size(); ++k) {
      std::snprintf(buf, sizeof buf, "%.17g/%.17g,", r.plan->stage_ms[k], k < r.plan->boundary_ms.size() ? r.plan->boundary_ms[k] : 0.0);
      key += buf;
    }
  }
  return key;
}

}  // namespace

const std::vector<std::string>& schedule_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (ScheduleKind k : all_schedule_kinds()) n.push_back(schedule_name(k));
    return n;
  }();
  return names;
}

namespace {
// "gpipe, 1f1b, ...": the names, for messages.
std::string join_names() {
  std::string out;
  for (const std::string& n : schedule_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}
}  // namespace

Status merge_schedule_settings(const Json& v, ScheduleSettings& s) {
  if (!v.is_object())
    return make_error(ErrorCode::wrong_type, "schedules must be an object {first, second, source, devices, microbatches, interleave, f, b, w, comm, time, playing, speed}",
                      "schedules");
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string& k = it.key();
    const Json& x = it.value();
    const std::string path = "schedules." + k;
    if (k == "first" || k == "second" || k == "source") {
      if (!x.is_string())
        return wrong_type(k, k == "source" ? "\"uniform\" or \"plan\"" : "a schedule name: " + join_names() + (k == "second" ? " or \"none\"" : ""));
      (k == "first" ? s.first : k == "second" ? s.second : s.source) = x.get<std::string>();
    } else if (k == "devices" || k == "microbatches" || k == "interleave") {
      auto n = whole_from_json(x, path);
      if (!n.ok()) return n.error();
      // Bounds are validate_schedule_settings'; only keep the value from wrapping when narrowed.
      const int64_t clamped = std::clamp<int64_t>(n.value(), -1, int64_t(1) << 30);
      (k == "devices" ? s.devices : k == "microbatches" ? s.microbatches : s.interleave) = int(clamped);
    } else if (k == "f" || k == "b" || k == "w" || k == "comm" || k == "time" || k == "speed") {
      auto n = number_from_json(x, path);
      if (!n.ok()) return n.error();
      (k == "f" ? s.f : k == "b" ? s.b : k == "w" ? s.w : k == "comm" ? s.comm : k == "time" ? s.time : s.speed) = n.value();
    } else if (k == "playing") {
      auto b = bool_from_json(x, path);
      if (!b.ok()) return b.error();
      s.playing = b.value();
    } else {
      return make_error(ErrorCode::unknown_field,
                        "schedules has no field \"" + k +
                            "\"; known: first, second, source, devices, microbatches, interleave, f, b, w, comm, time, playing, speed",
                        path);
    }
  }
  return Ok{};
}

Json schedule_settings_to_json(const ScheduleSettings& s) {
  return Json{{"first", s.first},   {"second", s.second}, {"source", s.source}, {"devices", s.devices}, {"microbatches", s.microbatches},
              {"interleave", s.interleave}, {"f", s.f}, {"b", s.b}, {"w", s.w}, {"comm", s.comm}, {"time", s.time},
              {"playing", s.playing}, {"speed", s.speed}};
}

Status validate_schedule_settings(const ScheduleSettings& s) {
  auto kinds = shown_kinds(s);
  if (!kinds.ok()) return kinds.error();
  if (s.source != "uniform" && s.source != "plan")
    return make_error(ErrorCode::bad_value, "schedules.source is \"" + s.source + "\"; use \"uniform\" (f, b, w, comm per device) or \"plan\" (the inter-op plan's stages)",
                      "schedules.source");
  if (auto st = check_bound(int64_t(s.devices), WholeBound{1, kMaxScheduleDevices}, "schedules.devices"); !st.ok()) return st;
  if (auto st = check_bound(int64_t(s.microbatches), WholeBound{1, kMaxScheduleMicrobatches}, "schedules.microbatches"); !st.ok()) return st;
  if (auto st = check_bound(int64_t(s.interleave), WholeBound{1, 16}, "schedules.interleave"); !st.ok()) return st;
  const std::pair<double, const char*> times[] = {{s.f, "f"}, {s.b, "b"}, {s.w, "w"}, {s.comm, "comm"}};
  for (const auto& [x, name] : times)
    if (auto st = check_bound(x, NumberBound{0, 1e9}, std::string("schedules.") + name); !st.ok()) return st;
  if (s.w > s.b)
    return make_error(ErrorCode::out_of_range, "schedules.w is the weight-gradient part of the whole backward schedules.b, so it cannot exceed it", "schedules.w");
  if (!(s.f + s.b > 0)) return make_error(ErrorCode::out_of_range, "schedules.f and schedules.b cannot both be 0", "schedules.f");
  if (auto st = check_bound(s.time, NumberBound{0, 1e15}, "schedules.time"); !st.ok()) return st;
  if (auto st = check_bound(s.speed, NumberBound{kMinScheduleSpeed, kMaxScheduleSpeed}, "schedules.speed"); !st.ok()) return st;
  // Each schedule's own rules on the uniform inputs (the plan's stage count is known only with
  // the plan: the tab shows those errors).
  if (s.source == "uniform")
    for (ScheduleKind k : kinds.value()) {
      Status st = validate_schedule_input(uniform_schedule_input(k, s.devices, s.microbatches, s.interleave, s.f, s.b, s.w, s.comm));
      if (!st.ok()) {
        Error e = st.error();
        e.path = "schedules." + e.path;
        e.message = std::string(schedule_name(k)) + ": " + e.message;
        return e;
      }
    }
  return Ok{};
}

ScheduleCompareRequest schedule_compare_request(const ScheduleSettings& s, const SchedulePlanSource& source) {
  ScheduleCompareRequest r;
  auto kinds = shown_kinds(s);
  r.kinds = kinds.ok() ? kinds.value() : std::vector<ScheduleKind>{};
  r.devices = s.devices;
  r.microbatches = s.microbatches;
  r.interleave = s.interleave;
  r.f = s.f;
  r.b = s.b;
  r.w = s.w;
  r.comm = s.comm;
  if (s.source == "plan" && source.plan) {
    // The plan's stages exactly as `autopar inter --schedule` takes them (pipeline_schedule.h):
    // each stage's latency with its receiving, each boundary's own send, the model's shares.
    r.plan = plan_pipeline(*source.plan, source.microbatches, source.shares);
    r.devices = int(source.plan->stages.size());
    r.microbatches = source.microbatches;
  }
  return r;
}

bool refresh_schedules_view(SchedulesView& view, const ScheduleSettings& s, const SchedulePlanSource& source) {
  const ScheduleCompareRequest r = schedule_compare_request(s, source);
  const bool no_plan = s.source == "plan" && !source.plan;
  const std::string key = no_plan ? std::string("no plan") : settings_key(s, r);
  if (key == view.key) return false;
  view.key = key;
  view.report.reset();
  view.error.reset();
  view.step_times.clear();
  view.makespan = 0;
  view.plan_latency_ms.clear();
  view.plan_boundary_ms.clear();
  view.plan_send_ms = 0;
  view.plan_forward_share = view.plan_weight_share = 0;
  view.plan_microbatches = 0;
  if (r.plan) {
    view.plan_latency_ms = r.plan->stage_ms;
    view.plan_boundary_ms = r.plan->boundary_ms;
    if (!view.plan_boundary_ms.empty()) view.plan_boundary_ms.back() = 0;   // the last stage sends nothing on
    for (double x : view.plan_boundary_ms) view.plan_send_ms = std::max(view.plan_send_ms, x / 2);
    view.plan_forward_share = r.plan->forward_share;
    view.plan_weight_share = r.plan->weight_share;
    view.plan_microbatches = r.plan->microbatches;
  }
  ++view.revision;
  if (no_plan) {
    view.error = make_error(ErrorCode::not_ready, "there is no pipeline plan for the current model and cluster yet: the Schedules tab plans it when shown (or press Plan in the Alpa inter-op tab)",
                            "schedules.source");
    return true;
  }
  if (auto st = validate_schedule_settings(s); !st.ok()) {
    view.error = st.error();
    return true;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto report = run_schedule_compare(r);
  view.simulate_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!report.ok()) {
    Error e = report.error();
    if (e.path.rfind("schedules", 0) != 0) e.path = "schedules." + e.path;
    view.error = e;
    return true;
  }
  view.report = std::move(report.value());
  for (const ScheduleRun& run : view.report->runs) {
    const std::vector<double> t = schedule_step_times(run.result);
    view.step_times.insert(view.step_times.end(), t.begin(), t.end());
    view.makespan = std::max(view.makespan, run.result.makespan_ms);
  }
  std::sort(view.step_times.begin(), view.step_times.end());
  view.step_times.erase(std::unique(view.step_times.begin(), view.step_times.end()), view.step_times.end());
  return true;
}

void advance_schedule_playback(ScheduleSettings& s, const SchedulesView& view, double dt_s) {
  if (!s.playing || !view.report || !(view.makespan > 0)) return;
  // A frame that took long (a hidden tab, a slow machine) moves at most a tenth of a makespan.
  const double dt = std::clamp(dt_s, 0.0, 0.1 * kSecondsPerMakespan / std::max(s.speed, kMinScheduleSpeed));
  s.time = std::min(view.makespan, s.time + dt * s.speed * view.makespan / kSecondsPerMakespan);
  if (s.time >= view.makespan) s.playing = false;
}

double schedule_step_time(const SchedulesView& view, double time, int direction) {
  const std::vector<double>& t = view.step_times;
  if (t.empty()) return 0;
  if (direction > 0) {
    const auto it = std::upper_bound(t.begin(), t.end(), time);
    return it == t.end() ? t.back() : *it;
  }
  const auto it = std::lower_bound(t.begin(), t.end(), time);
  return it == t.begin() ? t.front() : *std::prev(it);
}

Json schedules_result_json(const SchedulesView& view, const ScheduleSettings& s) {
  if (view.key.empty()) return nullptr;
  Json j{{"source", s.source}, {"time", s.time}, {"playing", s.playing}, {"speed", s.speed}};
  if (view.error) {
    j["error"] = error_to_json(*view.error);
    return j;
  }
  if (!view.report) return j;
  j["makespan"] = view.makespan;
  j["step"] = schedule_step_index(view.step_times, s.time);
  j["steps"] = int64_t(view.step_times.size());
  j["simulate_ms"] = view.simulate_ms;
  j["revision"] = view.revision;
  j["drawn_revision"] = view.drawn_revision;
  j["draw_ms"] = view.draw_ms;
  Json controls = Json::object();
  for (const auto& [name, r] : view.controls_px) controls[name] = Json{{"x", r[0]}, {"y", r[1]}, {"w", r[2]}, {"h", r[3]}};
  j["controls"] = std::move(controls);
  j["devices"] = view.report->request.devices;
  j["microbatches"] = view.report->request.microbatches;
  if (!view.plan_latency_ms.empty()) {
    j["stage_latency_ms"] = view.plan_latency_ms;
    j["send_ms"] = view.plan_send_ms;
    j["boundary_ms"] = view.plan_boundary_ms;
    j["forward_share"] = view.plan_forward_share;
    j["weight_share"] = view.plan_weight_share;
  }
  Json list = Json::array();
  for (const ScheduleRun& run : view.report->runs) {
    Json r = schedule_figures_json(run);
    Json now = Json::array();
    for (const auto& curve : run.result.inflight) now.push_back(inflight_at(curve, s.time));
    r["inflight_now"] = now;
    r["passes_done"] = passes_done_at(run.result, s.time);
    int compute = 0;
    for (const SchedulePass& p : run.result.passes) compute += p.kind != PassKind::send;
    r["passes"] = compute;
    list.push_back(std::move(r));
  }
  j["schedules"] = std::move(list);
  return j;
}

}  // namespace autopar::web
