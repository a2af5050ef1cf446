// The pipeline schedules of core/operations/pipeline_schedule.h against hand-computed numbers:
// GPipe's and 1F1B's makespans and bubbles, a plan's boundaries turned into link boxes, and the
// stages' placement on the cluster.
#include <doctest/doctest.h>

#include "pipeline_schedule.h"

using namespace autopar;

namespace {
// Every box on a stage (or link) lane starts after the previous one on it ends.
void check_lanes_do_not_overlap(const PipelineSchedule& s) {
  for (const PipelineBox& a : s.boxes)
    for (const PipelineBox& b : s.boxes)
      if (&a != &b && a.stage == b.stage && a.transfer == b.transfer) CHECK((a.end_ms <= b.start_ms + 1e-9 || b.end_ms <= a.start_ms + 1e-9));
}
}  // namespace

TEST_CASE("GPipe on equal stages: (S + B - 1) stage times, bubble (S - 1) / (S + B - 1)") {
  // 4 stages of 3 ms (forward 1, backward 2), 8 micro-batches: the forwards fill in 4 + 8 - 1 = 11
  // ms, the backwards drain in 11 x 2 = 22 ms: 33 ms; busy 4 x 8 x 3 = 96 of 4 x 33 = 132: bubble 3/11.
  const PipelineSchedule s = pipeline_schedule({3, 3, 3, 3}, 8, PipelineKind::gpipe);
  CHECK(s.makespan_ms == doctest::Approx(33));
  CHECK(s.bubble_fraction == doctest::Approx(3.0 / 11.0));
  CHECK(s.boxes.size() == 4 * 8 * 2);
  check_lanes_do_not_overlap(s);
  // Forward of micro-batch m on stage s starts after stage s - 1 finished it.
  for (const PipelineBox& b : s.boxes)
    for (const PipelineBox& p : s.boxes)
      if (b.forward && p.forward && p.microbatch == b.microbatch && p.stage + 1 == b.stage) CHECK(b.start_ms >= p.end_ms - 1e-9);
}

TEST_CASE("1F1B keeps GPipe's makespan on equal stages and runs a backward before the last forward") {
  const PipelineSchedule g = pipeline_schedule({3, 3, 3, 3}, 8, PipelineKind::gpipe);
  const PipelineSchedule f = pipeline_schedule({3, 3, 3, 3}, 8, PipelineKind::one_f_one_b);
  CHECK(f.makespan_ms == doctest::Approx(g.makespan_ms));
  check_lanes_do_not_overlap(f);
  // Stage 0 warms up with S - 1 = 3 forwards, then alternates: its first backward (micro-batch
  // 0) comes before its fifth forward.
  double first_backward = 1e9, fifth_forward = 0;
  for (const PipelineBox& b : f.boxes) {
    if (b.stage != 0 || b.transfer) continue;
    if (!b.forward && b.microbatch == 0) first_backward = b.start_ms;
    if (b.forward && b.microbatch == 4) fifth_forward = b.start_ms;
  }
  CHECK(first_backward < fifth_forward);
}

TEST_CASE("a plan's boundaries become transfer boxes; without them the schedule of the stage latencies") {
  // Two stages of 3 ms, one micro-batch, a boundary of 2 ms (1 each way):
  // fwd s0 [0,1], send [1,2], fwd s1 [2,3], bwd s1 [3,5], send back [5,6], bwd s0 [6,8].
  InterOpPlan plan;
  plan.boundaries = true;
  plan.stages.resize(2);
  plan.stages[0].latency = 3;
  plan.stages[0].send_ms = 2;
  plan.stages[1].latency = 2;
  plan.stages[1].recv_ms = 1;   // priced boundaries: the receiving counts in the stage's time
  const PipelineSchedule priced = plan_pipeline_schedule(plan, 1, PipelineKind::gpipe);
  CHECK(priced.makespan_ms == doctest::Approx(8));
  int transfers = 0;
  for (const PipelineBox& b : priced.boxes) transfers += b.transfer ? 1 : 0;
  CHECK(transfers == 2);
  // Ignored boundaries: stage times 3 and 2, no transfers: 1 + 2/3 + 4/3 + 2 = 5.
  plan.boundaries = false;
  const PipelineSchedule ignored = plan_pipeline_schedule(plan, 1, PipelineKind::gpipe);
  CHECK(ignored.makespan_ms == doctest::Approx(5));
  // Bubbles of one micro-batch on two stages: busy 3 + 2 = 5 of 2 x 5 = 10.
  const BubbleFractions bubbles = plan_bubble_fractions(plan, 1);
  CHECK(bubbles.gpipe == doctest::Approx(0.5));
  CHECK(bubbles.one_f_one_b == doctest::Approx(0.5));
}

TEST_CASE("stages sit at their device offsets when boundaries are priced, else first fit") {
  InterOpPlan plan;
  plan.stages.resize(2);
  plan.stages[0].submesh = Submesh{1, 2};
  plan.stages[1].submesh = Submesh{1, 4};
  plan.stages[1].device_offset = 2;
  // First fit on 2 nodes x 4 GPUs: 1x2 at node 0 GPU 0; 1x4 does not fit beside it, so node 1.
  auto places = stage_places(plan, 2, 4);
  REQUIRE(places.size() == 2);
  CHECK(places[0] == std::pair<int, int>{0, 0});
  CHECK(places[1] == std::pair<int, int>{1, 0});
  plan.boundaries = true;   // consecutive devices: the second stage starts at device 2
  places = stage_places(plan, 2, 4);
  CHECK(places[1] == std::pair<int, int>{0, 2});
  // Empty schedules for no stages or no micro-batches.
  CHECK(pipeline_schedule({}, 4, PipelineKind::gpipe).boxes.empty());
  CHECK(pipeline_schedule({3}, 0, PipelineKind::one_f_one_b).makespan_ms == 0);
}
