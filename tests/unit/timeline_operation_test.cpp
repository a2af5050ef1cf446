// core/operations/timeline_operation.h: the simulated strategy the page draws. On one GPU every
// task runs back to back, so the makespan is the sum of the task times; on four, the report's
// numbers are `simulate`'s and data parallelism's.
#include <doctest/doctest.h>

#include <algorithm>

#include "cluster_spec.h"
#include "flexflow_operations.h"
#include "test_inputs.h"
#include "timeline_operation.h"

using namespace autopar;

TEST_CASE("timeline on one GPU: one lane, tasks back to back, makespan = sum of task times") {
  const Graph g = test::model("mlp3");
  const Cluster c = load_cluster("lecture:1x1").value();
  const TimelineReport r = timeline_operation(g, c, data_parallel(g, 1));
  REQUIRE(r.task_graph);
  REQUIRE(r.lanes.spans.size() == 1);   // one GPU, no link carries anything
  double busy = 0;
  for (const TimelineSpan& s : r.lanes.spans[0]) busy += s.end_ms - s.start_ms;
  CHECK(busy == doctest::Approx(r.summary.makespan_ms));
  CHECK(r.lanes.end_ms == doctest::Approx(r.summary.makespan_ms));
  // The strategy is data parallelism itself: its makespan is the reference.
  CHECK(r.data_parallel_ms == r.summary.makespan_ms);
  CHECK(r.gpu_memory_bytes.size() == 1);
  CHECK(r.gpu_memory_bytes[0] == doctest::Approx(double(r.summary.peak_memory_bytes)));
  CHECK(!timeline_trace_text(*r.task_graph).empty());
}

TEST_CASE("timeline of model parallelism on four GPUs: simulate's numbers and data parallelism's beside them") {
  const Graph g = test::model("mlp3");
  const Cluster c = load_cluster("lecture:1x4").value();
  const Strategy mp = model_parallel(g, 4);
  const TimelineReport r = timeline_operation(g, c, mp);
  SimulateRequest request;
  request.strategy = mp;
  CHECK(r.summary.makespan_ms == simulate_operation(g, c, request).summary.makespan_ms);
  request.strategy = data_parallel(g, 4);
  CHECK(r.data_parallel_ms == simulate_operation(g, c, request).summary.makespan_ms);
  REQUIRE(r.gpu_memory_bytes.size() == 4);
  CHECK(*std::max_element(r.gpu_memory_bytes.begin(), r.gpu_memory_bytes.end()) == doctest::Approx(double(r.summary.peak_memory_bytes)));
  CHECK(r.memory_capacity_bytes == c.gpu.memory_capacity_bytes());
  CHECK(r.lanes.spans.size() >= 4);   // every GPU, idle or not, then the busy links
}
