// Building and summarising the page's simulated strategy. See flexflow_view.h.
#include "flexflow_view.h"

#include <chrono>

#include "flexflow_operations.h"
#include "trace_export.h"

namespace autopar::web {

void rebuild_flexflow(FlexflowView& view, const Graph& graph, const Cluster& cluster, const Strategy& strategy) {
  const auto start = std::chrono::steady_clock::now();
  view.pending.reset();
  view.strategy = strategy;
  view.task_graph = std::make_unique<TaskGraph>(graph, cluster, strategy);
  simulate_full(*view.task_graph);
  view.summary = summarize(*view.task_graph);
  const DeviceMemory memory(graph, cluster, strategy);
  view.gpu_memory_bytes.clear();
  for (int d = 0; d < cluster.num_devices(); ++d) view.gpu_memory_bytes.push_back(memory.device(d).total_bytes);
  view.lanes = build_timeline_lanes(*view.task_graph);
  view.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  view.memory_capacity_bytes = cluster.gpu.memory_capacity_bytes();
  const Strategy dp = data_parallel(graph, cluster.num_devices());
  if (dp == strategy) {
    view.data_parallel_ms = view.summary.makespan_ms;
  } else {
    TaskGraph reference(graph, cluster, dp);
    view.data_parallel_ms = simulate_full(reference);
  }
  ++view.revision;
}

void clear_flexflow(FlexflowView& view) {
  view.task_graph.reset();
  view.pending.reset();
  view.lanes = TimelineLanes{};
  view.summary = SimSummary{};
  ++view.revision;
}

Json flexflow_result_json(const FlexflowView& view) {
  Json j = Json::object();
  if (!view.task_graph) {
    for (const char* k : {"makespan_ms", "compute_ms", "activation_transfer_ms", "param_sync_ms", "activation_bytes",
                          "param_sync_bytes", "tasks", "peak_memory_bytes", "memory_capacity_bytes", "over_capacity_devices", "fits", "memory"})
      j[k] = nullptr;
    return j;
  }
  return simulation_summary_json(view.summary, view.memory_capacity_bytes);
}

std::string flexflow_trace_text(const FlexflowView& view) {
  if (!view.task_graph) return "";
  return perfetto_trace(*view.task_graph).dump();
}

}  // namespace autopar::web
