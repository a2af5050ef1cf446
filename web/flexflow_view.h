// The FlexFlow strategy the page shows: the resolved strategy, its simulated task graph (the
// same TaskGraph + simulate_full + summarize as `autopar simulate`, so the numbers are the
// CLI's), the timeline lanes and the per-GPU memory. Rebuilt on every edit (tens of
// microseconds for the lecture's models). No ImGui in here.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "cluster.h"
#include "graph.h"
#include "json_io.h"
#include "simulator.h"
#include "soap.h"
#include "timeline_layout.h"

namespace autopar::web {

// A simulated strategy. Holds references to the graph and cluster it was built from: rebuild
// (or clear) it whenever they change.
struct FlexflowView {
  Strategy strategy;                          // the resolved settings.strategy
  std::unique_ptr<TaskGraph> task_graph;      // simulated; null before the first build
  SimSummary summary;
  std::vector<double> gpu_memory_bytes;       // per GPU: training memory (device_memory.h), as summary's peak counts it
  TimelineLanes lanes;
  double memory_capacity_bytes = 0;           // per GPU
  double data_parallel_ms = 0;                // makespan of data parallelism on the same inputs (for comparison)
  double build_ms = 0;                        // wall time of the last build + simulation
  uint64_t revision = 0;                      // bumped by every rebuild
};

// Builds the task graph of `strategy`, simulates it and fills the summary, lanes and memory.
void rebuild_flexflow(FlexflowView& view, const Graph& graph, const Cluster& cluster, const Strategy& strategy);

// Drops the task graph (before the graph or cluster it refers to is replaced).
void clear_flexflow(FlexflowView& view);

// The breakdown fields of `autopar simulate --json` (makespan_ms, compute_ms, ...,
// peak_memory_bytes, memory_capacity_bytes, over_capacity_devices); nulls when not built.
Json flexflow_result_json(const FlexflowView& view);

// The Perfetto/Chrome trace JSON text of the current timeline; "" when not built.
std::string flexflow_trace_text(const FlexflowView& view);

}  // namespace autopar::web
