// The inter-op plan's pipeline as it runs (Alpa section 5, lecture 6.3): a thin view over the
// one schedule model (core/alpa/pipeline_schedules.h). A plan's stages become the model's input
// through plan_pipeline + plan_schedule_input (per stage its F, B and W from the cost model's
// forward and weight-gradient shares, per boundary its own send), GPipe or 1F1B is simulated by
// the model's timeline, and its passes are turned into boxes for a Gantt chart. The same plan
// therefore has the same makespan on the inter-op tab, the Schedules tab, the gpt-pipeline
// scenario and `autopar inter --schedule gpipe|1f1b`. Also where each stage's sub-mesh sits on
// the cluster.
#pragma once
#include <utility>
#include <vector>

#include "inter_op.h"
#include "json_io.h"
#include "pipeline_schedules.h"

namespace autopar {

// The two pipeline schedules of the lecture (the inter-op tab's charts).
enum class PipelineKind { gpipe, one_f_one_b };
// The schedule model's kind of a PipelineKind.
ScheduleKind schedule_kind_of(PipelineKind kind);

// One box of a pipeline schedule: stage `stage` runs the forward or backward pass of a
// micro-batch from start_ms to end_ms.
struct PipelineBox {
  int stage = 0, microbatch = 0;
  bool forward = true;
  bool transfer = false;               // a send/recv on the link from stage `stage` to the next (forward) or back
  double start_ms = 0, end_ms = 0;
};

// A schedule: its boxes, makespan and bubble fraction (idle share of stages x makespan), and the
// per-stage numbers a reader needs to redo the makespan by hand: each stage's forward and
// backward time per micro-batch, its idle time (makespan = microbatches x (F + B) + idle on
// every stage), its peak activations in flight, and each boundary's send one way.
struct PipelineSchedule {
  std::vector<PipelineBox> boxes;
  double makespan_ms = 0;
  double bubble_fraction = 0;
  std::vector<double> forward_ms, backward_ms, idle_ms, peak_inflight;   // per stage
  std::vector<double> send_ms;         // per stage: its hand-over to the next, one way (0 for the last)
};

// How a stage's time splits (from the model's FLOPs: plan_forward_share, plan_weight_share).
struct PlanShares {
  double forward = 1.0 / 3;            // the forward's share of a stage's time
  double weight = 0.5;                 // the weight gradient's share of its backward
};
// The shares `autopar inter --json` reports (forward_share, weight_share); the defaults where absent.
PlanShares plan_shares_from_report(const Json& inter_report);

// The schedule model's view of a plan: per stage its latency (plus its receiving when the plan
// priced boundaries) and its boundary's send_ms (both ways; 0 when ignored), `microbatches` deep.
// `autopar inter --schedule` and every chart of the page build their input with this.
PlanPipeline plan_pipeline(const InterOpPlan& plan, int microbatches, const PlanShares& shares);

// The boxes of a simulated schedule (plan stage = device; sends on the link between the two).
PipelineSchedule pipeline_schedule_of(const ScheduleResult& r, const ScheduleInput& in);

// The plan's schedule as the schedule model simulates it (plan_schedule_input, then
// simulate_schedule): the same makespan as `autopar inter --schedule gpipe|1f1b`. Empty for a
// plan without stages or micro-batches.
PipelineSchedule plan_pipeline_schedule(const InterOpPlan& plan, int microbatches, PipelineKind kind, const PlanShares& shares = {});

// Schedules `microbatches` micro-batches over stages with these per-micro-batch latencies
// (forward + backward, split by `shares`) and `send_ms` per boundary (both ways): a plan with
// these stages, through plan_pipeline_schedule.
PipelineSchedule pipeline_schedule(const std::vector<double>& stage_latency_ms, int microbatches, PipelineKind kind,
                                   const std::vector<double>& send_ms = {}, const PlanShares& shares = {});

// Where each stage's sub-mesh sits on a nodes x gpus cluster: per stage its first node and GPU
// (first fit, node by node); stages that do not fit are placed at the next free devices.
std::vector<std::pair<int, int>> place_submeshes(const std::vector<Submesh>& submeshes, int nodes, int gpus_per_node);
// Where the plan's stages sit: at their device offsets (consecutive devices in pipeline order)
// when the plan priced boundaries, else place_submeshes.
std::vector<std::pair<int, int>> stage_places(const InterOpPlan& plan, int nodes, int gpus_per_node);

// Idle share of both schedules of a plan.
struct BubbleFractions {
  double gpipe = 0, one_f_one_b = 0;
};
BubbleFractions plan_bubble_fractions(const InterOpPlan& plan, int microbatches, const PlanShares& shares = {});

}  // namespace autopar
