// The simulated strategy a front end draws (FlexFlow section 5, lecture 4.2): the task graph of
// one strategy simulated by Algorithm 1 (the same TaskGraph + simulate_full + summarize as
// `simulate`, so the numbers are the CLI's), the timeline's lanes, each GPU's training memory
// and, for comparison, data parallelism's makespan on the same inputs.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "simulator.h"
#include "strategy.h"
#include "task_graph.h"
#include "timeline_layout.h"

namespace autopar {

// One simulated strategy. Its task graph refers to the graph and cluster it was built from:
// they must outlive the report.
struct TimelineReport {
  std::unique_ptr<TaskGraph> task_graph;    // simulated
  SimSummary summary;                       // summarize(*task_graph)
  std::vector<double> gpu_memory_bytes;     // per GPU: training memory (device_memory.h), as summary's peak counts it
  TimelineLanes lanes;                      // build_timeline_lanes(*task_graph)
  double memory_capacity_bytes = 0;         // per GPU
  double data_parallel_ms = 0;              // makespan of data parallelism on the same inputs
};

// Builds the task graph of `strategy` for `graph` on `cluster`, simulates it and measures the
// rest (data parallelism simulated too unless `strategy` is it).
TimelineReport timeline_operation(const Graph& graph, const Cluster& cluster, const Strategy& strategy);

// The Perfetto/Chrome trace JSON text of a simulated task graph (`simulate --trace`).
std::string timeline_trace_text(const TaskGraph& task_graph);

}  // namespace autopar
