// The inter-op plan's pipeline as it runs (Alpa section 5, lecture 6.3): the GPipe and 1F1B
// schedules of its stages as boxes for a Gantt chart, their bubble fractions, and where each
// stage's sub-mesh sits on the cluster. Pure arithmetic over a plan; the page draws these and
// result() reports the bubble fractions.
#pragma once
#include <utility>
#include <vector>

#include "inter_op.h"

namespace autopar {

// The two pipeline schedules of the lecture.
enum class PipelineKind { gpipe, one_f_one_b };

// One box of a pipeline schedule: stage `stage` runs the forward or backward pass of a
// micro-batch from start_ms to end_ms.
struct PipelineBox {
  int stage = 0, microbatch = 0;
  bool forward = true;
  bool transfer = false;               // a send/recv on the link from stage `stage` to the next (forward) or back
  double start_ms = 0, end_ms = 0;
};

// A schedule: its boxes, makespan and bubble fraction (idle share of stages x makespan).
struct PipelineSchedule {
  std::vector<PipelineBox> boxes;
  double makespan_ms = 0;
  double bubble_fraction = 0;
};

// Schedules `microbatches` micro-batches over stages with these per-micro-batch latencies
// (forward + backward; the forward pass takes a third, the backward two thirds), a stage
// running one box at a time, forward of stage s after stage s-1, backward after stage s+1.
// With `send_ms` (per stage: its boundary to the next, forward + backward, per micro-batch),
// each hand-over is a transfer box on the link's own lane (half the time each way), one at a
// time per link, and the next stage waits for it.
PipelineSchedule pipeline_schedule(const std::vector<double>& stage_latency_ms, int microbatches, PipelineKind kind,
                                   const std::vector<double>& send_ms = {});

// Where each stage's sub-mesh sits on a nodes x gpus cluster: per stage its first node and GPU
// (first fit, node by node); stages that do not fit are placed at the next free devices.
std::vector<std::pair<int, int>> place_submeshes(const std::vector<Submesh>& submeshes, int nodes, int gpus_per_node);
// Where the plan's stages sit: at their device offsets (consecutive devices in pipeline order)
// when the plan priced boundaries, else place_submeshes.
std::vector<std::pair<int, int>> stage_places(const InterOpPlan& plan, int nodes, int gpus_per_node);

// The plan's schedule: per stage its latency (plus its receiving when the plan priced
// boundaries) and its boundary to the next on a link lane (when priced), `microbatches` deep.
PipelineSchedule plan_pipeline_schedule(const InterOpPlan& plan, int microbatches, PipelineKind kind);

// Idle share of both schedules of a plan.
struct BubbleFractions {
  double gpipe = 0, one_f_one_b = 0;
};
BubbleFractions plan_bubble_fractions(const InterOpPlan& plan, int microbatches);

}  // namespace autopar
