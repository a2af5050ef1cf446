// The page's view of pipeline schedules (issue 42, the Schedules tab): one or two schedules run
// on the same inputs by the `schedule` operation (schedule_operation.h), with stage times either
// uniform (as `autopar schedule --f --b --w --comm`) or taken from a pipeline plan's stages
// exactly as `autopar inter --schedule` takes them; the
// positions a step-through stops at; what the timeline holds at a time (passes done, activations
// in flight); and the figures as `autopar schedule --json` prints them. Pure functions, so the
// page can call them on its thread and the unit tests natively.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "json_io.h"
#include "schedule_operation.h"

namespace autopar {

// What the Schedules tab asks for.
struct ScheduleCompareRequest {
  std::vector<ScheduleKind> kinds = {ScheduleKind::one_f_one_b};   // the schedules shown, one or two
  int devices = 4;
  int microbatches = 8;
  int interleave = 2;                   // v of interleaved 1F1B
  double f = 1, b = 2, w = 1, comm = 0; // each device's share, as `autopar schedule` takes them
  // Set: a pipeline plan's stages as the schedule model takes them (pipeline_schedule.h
  // plan_pipeline: per stage its latency with its receiving, its boundary's send both ways, the
  // model's forward and weight-gradient shares, its micro-batches); devices is then its stage
  // count and f, b, w, comm are ignored. `autopar inter --schedule` runs the same input.
  std::optional<PlanPipeline> plan;
};

// Runs every schedule of the request on the same inputs: with uniform times exactly as
// run_schedule_request does (same errors, same numbers); with a plan through plan_schedule_input
// (the report's f, b, w are then device 0's share, comm its boundary's one-way send). Errors
// name the field ("devices", "microbatches", "interleave", "f", "stage_latency_ms[2]", ...).
Result<ScheduleReport> run_schedule_compare(const ScheduleCompareRequest& request);

// One schedule's figures, with the names and values of `autopar schedule --json` (schedule,
// devices, microbatches, stages, v, makespan, bubble, bubble_fraction, peak_inflight,
// parameter_copies, sends, published_bubble, published_peak_inflight), plus the largest bubble
// and peak over the devices (bubble_max, peak_inflight_max).
Json schedule_figures_json(const ScheduleRun& run);

// The times a step-through stops at: 0 and every distinct start and end of a pass (compute and
// sends), ascending.
std::vector<double> schedule_step_times(const ScheduleResult& r);
// The step at time t: the index of the last step time <= t (0 before the first).
int schedule_step_index(const std::vector<double>& step_times, double t);
// A device's activations in flight at time t (the curve's value from its last point <= t; 0
// before the first).
double inflight_at(const std::vector<InflightPoint>& curve, double t);
// Compute passes (F, B, W) that have ended by time t, over all devices.
int passes_done_at(const ScheduleResult& r, double t);

}  // namespace autopar
