// `schedule` (issue 42): one pipeline schedule on stages of given times, as a Gantt chart in
// text, a JSON report and a Perfetto trace. The model and simulator are core/alpa's
// pipeline_schedules.h; this file renders them.
#pragma once
#include <string>
#include <vector>

#include "json_io.h"
#include "pipeline_schedules.h"

namespace autopar {

// What `autopar schedule` asks for: every device's share of the model takes f, b (the whole
// backward) and w (its weight part) per micro-batch, and a send between devices takes comm.
struct ScheduleRequest {
  std::vector<ScheduleKind> kinds = {ScheduleKind::one_f_one_b};   // one, or every schedule (--schedule all)
  int devices = 4;
  int microbatches = 8;
  int interleave = 2;
  double f = 1, b = 2, w = 1, comm = 0;
};

// One schedule's outcome with the input it ran on.
struct ScheduleRun {
  ScheduleInput input;
  ScheduleResult result;
  double published_bubble = -1;         // the closed form on these times (no sends), < 0 when none
  double published_peak = -1;           // the published peak in flight, < 0 when none
};

// What `schedule` reports: one run per schedule asked for.
struct ScheduleReport {
  ScheduleRequest request;
  std::vector<ScheduleRun> runs;
  // One schedule: {schedule, devices, microbatches, stages, f, b, w, comm, makespan, bubble
  // (per device), bubble_fraction, peak_inflight (per device), sends, published_bubble,
  // published_peak_inflight, passes:[{kind, device, stage, microbatch, start, end, ...}]};
  // several: {"schedules": [the same without passes]}.
  Json to_json() const;
  // The Gantt chart of each schedule (one row per device) and its figures; several: a table.
  std::string to_text() const;
};

// One run's figures as `schedule --json` names them (schedule, devices, microbatches, stages, v,
// makespan, bubble, bubble_fraction, span_bubble, longest_span, peak_inflight, parameter_copies,
// sends, published_*), and
// with `with_passes` its passes.
Json schedule_run_json(const ScheduleRun& run, bool with_passes);

// Simulates each schedule asked for; errors name the field (validate_schedule_input's, or
// "--f" etc. for the times).
Result<ScheduleReport> run_schedule_request(const ScheduleRequest& request);

// A schedule as text: one row per device, each pass as its letter and micro-batch ("F3--"),
// idle time as '.', `width` columns at most.
std::string schedule_gantt_text(const ScheduleResult& r, int width = 120);

// {"traceEvents":[...]}: one process per device (compute) and one per link (sends), each
// pass a complete event named "F3 (stage 2)", times in microseconds of the input's unit.
Json schedule_trace(const ScheduleResult& r);

}  // namespace autopar
