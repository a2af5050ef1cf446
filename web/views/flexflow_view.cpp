// Building and summarising the page's simulated strategy. See flexflow_view.h.
#include "flexflow_view.h"

#include <chrono>

#include "flexflow_operations.h"
#include "timeline_operation.h"

namespace autopar::web {

void rebuild_flexflow(FlexflowView& view, const Graph& graph, const Cluster& cluster, const Strategy& strategy) {
  const auto start = std::chrono::steady_clock::now();
  view.pending.reset();
  view.strategy = strategy;
  view.error.reset();
  // Both the strategy and data parallelism (the timeline's reference) are simulated.
  const int64_t parts = std::max(strategy_parts(strategy), int64_t(graph.ops.size()) * cluster.num_devices());
  if (auto st = check_simulation_size(parts, "this strategy (or data parallelism, its reference)", "strategy"); !st.ok()) {
    view.task_graph.reset();
    view.lanes = TimelineLanes{};
    view.summary = SimSummary{};
    view.error = st.error();
    ++view.revision;
    return;
  }
  TimelineReport r = timeline_operation(graph, cluster, strategy);
  view.task_graph = std::move(r.task_graph);
  view.summary = r.summary;
  view.gpu_memory_bytes = std::move(r.gpu_memory_bytes);
  view.lanes = std::move(r.lanes);
  view.memory_capacity_bytes = r.memory_capacity_bytes;
  view.data_parallel_ms = r.data_parallel_ms;
  view.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ++view.revision;
}

void clear_flexflow(FlexflowView& view) {
  view.task_graph.reset();
  view.error.reset();
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
    j["flexflow_error"] = view.error ? Json(view.error->message) : Json(nullptr);
    return j;
  }
  return simulation_summary_json(view.summary, view.memory_capacity_bytes);
}

std::string flexflow_trace_text(const FlexflowView& view) {
  if (!view.task_graph) return "";
  return timeline_trace_text(*view.task_graph);
}

}  // namespace autopar::web
