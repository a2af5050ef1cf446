// The FlexFlow strategy the page shows: the resolved strategy and what core's timeline
// operation (timeline_operation.h: the CLI's simulation) made of it: its simulated task graph,
// the timeline lanes and the per-GPU memory. Rebuilt after every edit that changes it,
// when something reads it (ensure_flexflow in app_state.h): tens of microseconds for the
// lecture's models, 15-40 ms for a 48-layer transformer on 32 GPUs. No ImGui in here.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cluster.h"
#include "graph.h"
#include "json_io.h"
#include "timeline_operation.h"

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
  std::optional<Strategy> pending;            // an edit's strategy not built yet (the fields above are then cleared)
  // Why there is no task graph for a resolved strategy: too large to simulate (check_simulation_size);
  // the rest of the page (Alpa's planners) works on the same inputs.
  std::optional<Error> error;
};

// Builds the task graph of `strategy`, simulates it and fills the summary, lanes and memory.
void rebuild_flexflow(FlexflowView& view, const Graph& graph, const Cluster& cluster, const Strategy& strategy);

// Drops the task graph and any pending strategy (before the graph or cluster they refer to is replaced).
void clear_flexflow(FlexflowView& view);

// The breakdown fields of `autopar simulate --json` (makespan_ms, compute_ms, ...,
// peak_memory_bytes, memory_capacity_bytes, over_capacity_devices); nulls when not built.
Json flexflow_result_json(const FlexflowView& view);

// The Perfetto/Chrome trace JSON text of the current timeline; "" when not built.
std::string flexflow_trace_text(const FlexflowView& view);

}  // namespace autopar::web
