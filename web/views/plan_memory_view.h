// The memory of the page's pipeline plan per pipeline stage (the Model & Cluster tab's per-stage
// view): `autopar memory --plan P --json` computed by the page's worker (its "plan_memory"
// operation, core/operations/memory_operation.h plan_memory_operation; the page links no intra-op
// solver), read back exactly, and cached by its inputs so that drawing it is a look-up and a plan
// shown before (a knob moved back) redraws in the same frame. While the worker is otherwise idle,
// the plans one knob step away are computed ahead into the same cache (prefetch_plan_memory), so
// that a slider moved one step redraws in the frame it moves too. No ImGui.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "json_io.h"
#include "memory_operation.h"
#include "result.h"
#include "worker_client.h"

namespace autopar::web {

// What the worker is asked: the model and cluster (operation_inputs) and the plan.
struct PlanMemoryInputs {
  Json worker_inputs;          // {model, model_json?, cluster, precision?}
  std::string plan;            // `memory --plan` syntax
  int microbatches = 1;        // when the plan has no mbs=
  std::string optimizer = "adam";
};
// The key a report is cached under (the inputs, whole; the plan first, so that keys of one model
// differ early and a look-up does not compare the model's text).
std::string plan_memory_key(const PlanMemoryInputs& in);

// Reports cached, most recent first: a plan's neighbours (some 26 knob steps) for the last few
// plans shown, and the plans shown themselves.
constexpr size_t kPlanMemoryCacheSize = 160;

struct PlanMemoryView {
  struct Entry {
    std::string key;
    Result<PlanMemoryReport> report = PlanMemoryReport{};
    bool ahead = false;                      // computed ahead and not asked for yet
  };
  std::list<Entry> cache;                    // most recently used first
  std::string pending_key;                   // the inputs the worker computes now ("" when idle)
  int64_t request = 0;                       // its job id
  std::chrono::steady_clock::time_point started;
  double last_ms = 0;                        // the last computation's wall time, request to result
  // Computed ahead (prefetch_plan_memory): the plans to compute while idle, the key of the plan
  // they surround, the one the worker computes now ("" when none) and its job id.
  std::vector<PlanMemoryInputs> ahead;
  std::string ahead_of;
  size_t ahead_next = 0;                     // ahead[0 .. ahead_next) are cached or started
  std::string prefetch_key;
  int64_t prefetch_request = 0;
  int64_t prefetched = 0;                    // computations started ahead, in all
  int64_t prefetch_hits = 0;                 // plans asked for that a computation ahead had cached
  // What the panel drew last (plan_memory_to_show): the report's key, the plan asked for, whether
  // the report was an earlier plan's (dimmed while the new one is computed), and the frame
  // (FrameStats::frames before it).
  std::string shown_key;
  std::string shown_plan;
  bool shown_stale = false;
  int64_t shown_frame = -1;
};

// Reads `memory --plan --json`'s report back (the numbers exactly as the core wrote them);
// errors name the field.
Result<PlanMemoryReport> plan_memory_report_from_json(const Json& j);

// The cached report for `in`, or nullptr (not computed yet). Marks it most recently used.
const Result<PlanMemoryReport>* cached_plan_memory(PlanMemoryView& view, const PlanMemoryInputs& in);
// The same without marking it (result(), which reads the state).
const Result<PlanMemoryReport>* find_plan_memory(const PlanMemoryView& view, const PlanMemoryInputs& in);
// Keeps the view following `in`: takes the worker's result when it arrived (cached), and starts
// computing `in` when it is neither cached nor being computed (a computation for other inputs is
// let finish first: its report is cached, and a knob often moves back). Returns true when a
// report arrived now.
bool follow_plan_memory(PlanMemoryView& view, WorkerClient& worker, const PlanMemoryInputs& in);
// True while the worker computes a report asked for (not one computed ahead).
bool plan_memory_pending(const PlanMemoryView& view);
// Computes ahead: when `current` is a new plan, takes `around()` (the plans likely asked for
// next, most likely first) as the plans to compute; when the view and the worker are idle (no
// job of the page's running, so computing ahead delays other work by one plan's computation at
// most), starts the first of them not cached. Returns true when it started one.
bool prefetch_plan_memory(PlanMemoryView& view, WorkerClient& worker, const PlanMemoryInputs& current,
                          const std::function<std::vector<PlanMemoryInputs>()>& around);
// Plans of the list around the current plan not computed yet (0: all cached or started).
size_t plan_memory_ahead_left(const PlanMemoryView& view);

// What the panel draws for `in` in frame `frame`: its report when cached (marked most recently
// used), else the report drawn last, stale, while `in`'s is computed (null when there is none);
// recorded as shown.
struct PlanMemoryShown {
  const Result<PlanMemoryReport>* report = nullptr;
  bool stale = false;
};
PlanMemoryShown plan_memory_to_show(PlanMemoryView& view, const PlanMemoryInputs& in, int64_t frame);

// The stage that fits least: the one with the most bytes over capacity (or, when all fit, the
// fullest); -1 when there are no stages.
int fullest_stage(const PlanMemoryReport& r);

// result()'s plan_memory: {plan, ready, pending, last_ms, fits, capacity_bytes, microbatches,
// stages: [{layers, params_bytes, grads_bytes, optimizer_bytes, activation_bytes,
// activation_bytes_per_microbatch, inflight_microbatches, total_bytes, fits}], error?,
// ahead: {left, computing, started, hits}, shown: {plan, stale, frame}}.
Json plan_memory_result_json(const PlanMemoryView& view, const PlanMemoryInputs& in);

}  // namespace autopar::web
