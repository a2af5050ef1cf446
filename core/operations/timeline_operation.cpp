// One simulated strategy for a timeline. See timeline_operation.h.
#include "timeline_operation.h"

#include "device_memory.h"
#include "soap.h"
#include "trace_export.h"

namespace autopar {

TimelineReport timeline_operation(const Graph& graph, const Cluster& cluster, const Strategy& strategy) {
  TimelineReport r;
  r.task_graph = std::make_unique<TaskGraph>(graph, cluster, strategy);
  simulate_full(*r.task_graph);
  r.summary = summarize(*r.task_graph);
  const DeviceMemory memory(graph, cluster, strategy);
  for (int d = 0; d < cluster.num_devices(); ++d) r.gpu_memory_bytes.push_back(memory.device(d).total_bytes);
  r.lanes = build_timeline_lanes(*r.task_graph);
  r.memory_capacity_bytes = cluster.gpu.memory_capacity_bytes();
  const Strategy dp = data_parallel(graph, cluster.num_devices());
  if (dp == strategy) {
    r.data_parallel_ms = r.summary.makespan_ms;
  } else {
    TaskGraph reference(graph, cluster, dp);
    r.data_parallel_ms = simulate_full(reference);
  }
  return r;
}

std::string timeline_trace_text(const TaskGraph& task_graph) { return perfetto_trace(task_graph).dump(); }

}  // namespace autopar
