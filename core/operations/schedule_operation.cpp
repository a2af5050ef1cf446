// `schedule`: pipeline schedules rendered as text, JSON and a trace. See schedule_operation.h.
#include "schedule_operation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "report_text.h"

namespace autopar {

namespace {

// A number as short as it reads ("1", "2.5", "0.333"): report_text's fmt.
std::string num(double v) { return fmt("%.4g", v); }

Json pass_json(const SchedulePass& p) {
  Json j = {{"kind", pass_kind_letter(p.kind)}, {"device", p.device},   {"stage", p.stage},
            {"microbatch", p.microbatch},        {"start", p.start_ms}, {"end", p.end_ms}};
  if (p.kind == PassKind::backward) j["whole"] = p.whole_backward;
  if (p.kind == PassKind::send) {
    j["to_device"] = p.to_device;
    j["gradient"] = p.gradient;
  }
  if (p.direction != 0) j["direction"] = p.direction;
  return j;
}

}  // namespace

Json schedule_run_json(const ScheduleRun& run, bool with_passes) {
  const ScheduleResult& r = run.result;
  Json j = {{"schedule", schedule_name(r.kind)}, {"devices", r.devices}, {"microbatches", r.microbatches}, {"stages", r.stages}};
  if (r.kind == ScheduleKind::interleaved) j["v"] = r.interleave;
  j["makespan"] = r.makespan_ms;
  j["bubble"] = r.bubble_ms;
  j["bubble_fraction"] = r.bubble_fraction;
  // Qi et al.'s reading: idle time within each device's own span, and the longest span (the
  // iteration time when iterations overlap); ZB-H2's closed form is of this bubble.
  j["span_bubble"] = schedule_span_bubble(r);
  j["longest_span"] = schedule_longest_span(r);
  j["peak_inflight"] = r.peak_inflight;
  j["parameter_copies"] = schedule_parameter_copies(r.kind);
  j["sends"] = r.sends;
  if (run.published_bubble >= 0) j["published_bubble"] = run.published_bubble;
  if (run.published_peak >= 0) j["published_peak_inflight"] = run.published_peak;
  if (with_passes) {
    Json passes = Json::array();
    for (const SchedulePass& p : r.passes) passes.push_back(pass_json(p));
    j["passes"] = std::move(passes);
  }
  return j;
}

namespace {

double max_of(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

}  // namespace

Result<ScheduleReport> run_schedule_request(const ScheduleRequest& request) {
  const std::pair<double, const char*> times[] = {{request.f, "--f"}, {request.b, "--b"}, {request.w, "--w"}, {request.comm, "--comm"}};
  for (const auto& [v, name] : times)
    if (!std::isfinite(v) || v < 0 || v > 1e9)
      return make_error(ErrorCode::out_of_range, std::string(name) + " must be a time from 0 to 1e9", name);
  if (request.w > request.b)
    return make_error(ErrorCode::out_of_range,
                      "--w is the weight-gradient part of the backward --b (DeepSeek-V3's Table 2 convention), so it cannot exceed it: --w " +
                          num(request.w) + " > --b " + num(request.b),
                      "--w");
  if (!(request.f + request.b > 0)) return make_error(ErrorCode::out_of_range, "--f and --b cannot both be 0", "--f");
  ScheduleReport report;
  report.request = request;
  for (ScheduleKind kind : request.kinds) {
    ScheduleRun run;
    run.input = uniform_schedule_input(kind, request.devices, request.microbatches, request.interleave, request.f, request.b, request.w,
                                       request.comm);
    auto r = simulate_schedule(run.input);
    if (!r.ok()) {
      Error e = r.error();
      if (e.path == "devices") e.path = "--stages";
      else if (e.path == "microbatches") e.path = "--microbatches";
      else if (e.path == "interleave") e.path = "--v";
      if (request.kinds.size() > 1) e.message = std::string(schedule_name(kind)) + ": " + e.message;
      return e;
    }
    run.result = std::move(r.value());
    if (!(request.comm > 0)) {
      // The closed forms hold where the papers draw them: the backward's input half as long as
      // F and W no longer than F (see pipeline_schedules.h).
      run.published_bubble = published_bubble(kind, request.devices, request.interleave, request.f, request.b, request.w);
      const bool interleaved_full = kind == ScheduleKind::interleaved && request.microbatches == request.devices;
      if (!interleaved_full) run.published_peak = published_peak_inflight(kind, request.devices, request.interleave, request.microbatches);
    }
    report.runs.push_back(std::move(run));
  }
  return report;
}

Json ScheduleReport::to_json() const {
  if (runs.size() == 1) {
    Json j = schedule_run_json(runs[0], true);
    j["f"] = request.f;
    j["b"] = request.b;
    j["w"] = request.w;
    j["comm"] = request.comm;
    return j;
  }
  Json list = Json::array();
  for (const ScheduleRun& r : runs) list.push_back(schedule_run_json(r, false));
  return Json{{"devices", request.devices}, {"microbatches", request.microbatches}, {"f", request.f}, {"b", request.b},
              {"w", request.w}, {"comm", request.comm}, {"schedules", std::move(list)}};
}

std::string ScheduleReport::to_text() const {
  std::ostringstream out;
  out << "Pipeline schedules on " << request.devices << " devices, " << request.microbatches << " micro-batches; each device's share: F "
      << num(request.f) << ", B " << num(request.b) << " (whole backward), W " << num(request.w) << " (its weight part)";
  if (request.comm > 0) out << ", send " << num(request.comm);
  out << "\n";
  if (runs.size() == 1) {
    const ScheduleRun& run = runs[0];
    const ScheduleResult& r = run.result;
    out << "\n" << schedule_name(r.kind);
    if (r.kind == ScheduleKind::interleaved) out << " (v = " << r.interleave << ")";
    out << ": " << r.stages << " stages\n\n" << schedule_gantt_text(r) << "\n";
    out << "makespan " << num(r.makespan_ms) << "; bubble fraction " << fmt("%.1f%%", 100 * r.bubble_fraction) << "\n";
    out << pad("device", 8) << pad("busy", 10, true) << pad("bubble", 10, true) << pad("peak in flight", 16, true) << "\n";
    for (int d = 0; d < r.devices; ++d)
      out << pad(std::to_string(d), 8) << pad(num(r.busy_ms[size_t(d)]), 10, true) << pad(num(r.bubble_ms[size_t(d)]), 10, true)
          << pad(num(r.peak_inflight[size_t(d)]), 16, true) << "\n";
    if (run.published_bubble >= 0) out << "published bubble per device: " << num(run.published_bubble) << "\n";
    if (run.published_peak >= 0) out << "published peak in flight: " << num(run.published_peak) << " micro-batches\n";
    out << "point-to-point sends: " << r.sends << "\n";
    return out.str();
  }
  out << "\n" << pad("schedule", 13) << pad("makespan", 10, true) << pad("bubble", 9, true) << pad("bubble %", 10, true)
      << pad("peak", 7, true) << pad("params", 8, true) << "  published bubble\n";
  for (const ScheduleRun& run : runs) {
    const ScheduleResult& r = run.result;
    out << pad(schedule_name(r.kind), 13) << pad(num(r.makespan_ms), 10, true) << pad(num(max_of(r.bubble_ms)), 9, true)
        << pad(fmt("%.1f", 100 * r.bubble_fraction), 10, true) << pad(num(max_of(r.peak_inflight)), 7, true)
        << pad(std::to_string(schedule_parameter_copies(r.kind)) + "x", 8, true) << "  "
        << (run.published_bubble >= 0 ? num(run.published_bubble) : "-") << "\n";
  }
  out << "(bubble: the largest idle time of a device; peak: micro-batches of activations held at once)\n";
  return out.str();
}

std::string schedule_gantt_text(const ScheduleResult& r, int width) {
  // A cell is half the shortest compute pass (so the shortest shows "F3"), widened until the
  // chart fits.
  double cell = 0;
  for (const SchedulePass& p : r.passes)
    if (p.kind != PassKind::send && p.end_ms > p.start_ms) cell = cell > 0 ? std::min(cell, p.end_ms - p.start_ms) : p.end_ms - p.start_ms;
  if (!(cell > 0) || !(r.makespan_ms > 0)) return "";
  cell /= 2;
  width = std::max(width, 10);
  while (r.makespan_ms / cell > width) cell *= 2;
  const int cols = int(std::ceil(r.makespan_ms / cell - 1e-9));
  std::ostringstream out;
  for (int d = 0; d < r.devices; ++d) {
    std::string row(size_t(cols), '.');
    for (int i : r.order[size_t(d)]) {
      const SchedulePass& p = r.passes[size_t(i)];
      const int a = int(std::floor(p.start_ms / cell + 1e-9)), b = std::max(a + 1, int(std::ceil(p.end_ms / cell - 1e-9)));
      std::string label = std::string(pass_kind_letter(p.kind)) + std::to_string(p.microbatch);
      for (int c = a; c < b && c < cols; ++c) row[size_t(c)] = c - a < int(label.size()) ? label[size_t(c - a)] : '-';
    }
    out << pad("dev " + std::to_string(d), 7) << "|" << row << "|\n";
  }
  return out.str();
}

Json schedule_trace(const ScheduleResult& r) {
  Json events = Json::array();
  for (int d = 0; d < r.devices; ++d) {
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", d}, {"args", {{"name", "device " + std::to_string(d)}}}});
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", d}, {"tid", 0}, {"args", {{"name", "compute"}}}});
  }
  for (const SchedulePass& p : r.passes) {
    const bool send = p.kind == PassKind::send;
    std::string name = send ? std::string(p.gradient ? "grad " : "act ") + std::to_string(p.microbatch) + " -> dev " + std::to_string(p.to_device)
                            : std::string(pass_kind_letter(p.kind)) + std::to_string(p.microbatch) + " (stage " + std::to_string(p.stage) + ")";
    events.push_back({{"name", name},
                      {"cat", pass_kind_letter(p.kind)},
                      {"ph", "X"},
                      {"pid", p.device},
                      {"tid", send ? 1 + p.to_device : 0},
                      {"ts", p.start_ms * 1000},
                      {"dur", (p.end_ms - p.start_ms) * 1000},
                      {"args", {{"microbatch", p.microbatch}, {"stage", p.stage}}}});
  }
  std::set<std::pair<int, int>> links;   // the lanes used, named once each
  for (const SchedulePass& p : r.passes)
    if (p.kind == PassKind::send) links.insert({p.device, p.to_device});
  for (const auto& [d, to] : links)
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", d}, {"tid", 1 + to}, {"args", {{"name", "send to " + std::to_string(to)}}}});
  return Json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
}

}  // namespace autopar
