// Exports of a simulated task graph: a Chrome/Perfetto trace (complete events, one named
// track per GPU and per link) and the task-graph JSON of INTERFACES.md.
#pragma once
#include <string>

#include "json_io.h"
#include "task_graph.h"

namespace autopar {

// A readable name for a task: "conv2.fwd[3]", "fc6.act[5->2]", "fc6.grad[2->5]", "fc6.sync[0:3->4]".
std::string task_name(const TaskGraph& tg, const Task& t);

// {"traceEvents":[...],"displayTimeUnit":"ms"}: process and thread names, then one complete
// ("X") event per task with its start and duration in microseconds.
Json perfetto_trace(const TaskGraph& tg);

// {"tasks":[{"id","name","kind","device","duration_ms","deps":[ids]}],"makespan_ms"}, ids
// numbered in the simulator's tie-break order.
Json task_graph_json(const TaskGraph& tg, double makespan_ms);

}  // namespace autopar
