// The page's view of pipeline schedules. See schedule_view.h.
#include "schedule_view.h"

#include <algorithm>
#include <cmath>

namespace autopar {
namespace {

// The page names its fields without the CLI's dashes ("--stages" is the tab's "devices").
std::string page_field(const std::string& cli_path) {
  if (cli_path == "--stages" || cli_path == "devices") return "devices";
  if (cli_path == "--microbatches") return "microbatches";
  if (cli_path == "--v") return "interleave";
  if (cli_path.rfind("--", 0) == 0) return cli_path.substr(2);
  return cli_path;
}

double max_of(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

}  // namespace

Result<ScheduleReport> run_schedule_compare(const ScheduleCompareRequest& request) {
  if (request.kinds.empty()) return make_error(ErrorCode::bad_value, "choose at least one schedule", "schedules");
  if (!request.plan) {
    ScheduleRequest r;
    r.kinds = request.kinds;
    r.devices = request.devices;
    r.microbatches = request.microbatches;
    r.interleave = request.interleave;
    r.f = request.f;
    r.b = request.b;
    r.w = request.w;
    r.comm = request.comm;
    auto report = run_schedule_request(r);
    if (!report.ok()) {
      Error e = report.error();
      e.path = page_field(e.path);
      return e;
    }
    return report;
  }
  const PlanPipeline& plan = *request.plan;
  if (plan.stage_ms.empty()) return make_error(ErrorCode::bad_value, "a pipeline needs at least one stage; plan the pipeline first", "stage_latency_ms");
  for (size_t d = 0; d < plan.stage_ms.size(); ++d)
    if (!std::isfinite(plan.stage_ms[d]) || plan.stage_ms[d] < 0)
      return make_error(ErrorCode::out_of_range, "stage " + std::to_string(d) + "'s latency must be a finite time >= 0",
                        "stage_latency_ms[" + std::to_string(d) + "]");
  for (size_t d = 0; d < plan.boundary_ms.size(); ++d)
    if (!std::isfinite(plan.boundary_ms[d]) || plan.boundary_ms[d] < 0)
      return make_error(ErrorCode::out_of_range, "boundary " + std::to_string(d) + "'s send/recv must be a finite time >= 0",
                        "boundary_ms[" + std::to_string(d) + "]");
  ScheduleReport report;
  const std::vector<double>& lat = plan.stage_ms;
  report.request.kinds = request.kinds;
  report.request.devices = int(lat.size());
  report.request.microbatches = plan.microbatches;
  report.request.interleave = request.interleave;
  report.request.f = lat[0] * plan.forward_share;
  report.request.b = lat[0] * (1 - plan.forward_share);
  report.request.w = report.request.b * plan.weight_share;
  report.request.comm = plan.boundary_ms.empty() ? 0 : plan.boundary_ms[0] / 2;
  // Uniform latencies and no sends: the published closed forms hold, so the tab can show them.
  const bool uniform = std::all_of(lat.begin(), lat.end(), [&](double x) { return x == lat[0]; }) &&
                       std::all_of(plan.boundary_ms.begin(), plan.boundary_ms.end(), [](double x) { return !(x > 0); });
  for (ScheduleKind kind : request.kinds) {
    auto in = plan_schedule_input(plan, kind, request.interleave);
    Result<ScheduleResult> r = in.ok() ? simulate_schedule(in.value()) : Result<ScheduleResult>(in.error());
    if (!r.ok()) {
      Error e = r.error();
      if (request.kinds.size() > 1) e.message = std::string(schedule_name(kind)) + ": " + e.message;
      return e;
    }
    ScheduleRun run;
    run.input = in.value();
    run.result = std::move(r.value());
    if (uniform) {
      const double f = report.request.f, b = report.request.b, w = report.request.w;
      run.published_bubble = published_bubble(kind, run.input.devices, request.interleave, f, b, w);
      if (!(kind == ScheduleKind::interleaved && plan.microbatches == run.input.devices))
        run.published_peak = published_peak_inflight(kind, run.input.devices, request.interleave, plan.microbatches);
    }
    report.runs.push_back(std::move(run));
  }
  return report;
}

Json schedule_figures_json(const ScheduleRun& run) {
  Json j = schedule_run_json(run, false);   // the CLI's fields, written once (schedule_operation.cpp)
  j["bubble_max"] = max_of(run.result.bubble_ms);
  j["peak_inflight_max"] = max_of(run.result.peak_inflight);
  return j;
}

std::vector<double> schedule_step_times(const ScheduleResult& r) {
  std::vector<double> t;
  t.reserve(r.passes.size() * 2 + 1);
  t.push_back(0);
  for (const SchedulePass& p : r.passes) {
    t.push_back(p.start_ms);
    t.push_back(p.end_ms);
  }
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

int schedule_step_index(const std::vector<double>& step_times, double t) {
  const auto it = std::upper_bound(step_times.begin(), step_times.end(), t);
  return it == step_times.begin() ? 0 : int(it - step_times.begin()) - 1;
}

double inflight_at(const std::vector<InflightPoint>& curve, double t) {
  const auto it = std::upper_bound(curve.begin(), curve.end(), t, [](double x, const InflightPoint& p) { return x < p.time_ms; });
  return it == curve.begin() ? 0 : std::prev(it)->inflight;
}

int passes_done_at(const ScheduleResult& r, double t) {
  int n = 0;
  for (const SchedulePass& p : r.passes)
    if (p.kind != PassKind::send && p.end_ms <= t) ++n;
  return n;
}

}  // namespace autopar
