// Unit tests of the timeline layout (core/operations/timeline_layout.h): lanes built from a simulated task
// graph, the binary search for the first visible span, folding of narrow spans with counts,
// visibility at the edges of the range, no overlap within a lane, and exact boxes when zoomed in.
#include <doctest/doctest.h>

#include <algorithm>

#include "cluster_spec.h"
#include "models.h"
#include "rng.h"
#include "simulator.h"
#include "strategy_argument.h"
#include "timeline_layout.h"

using namespace autopar;

namespace {

// One lane from (start, end) pairs, all forward unless `kinds` says otherwise.
TimelineLanes one_lane(const std::vector<std::pair<double, double>>& intervals, std::vector<TaskKind> kinds = {}) {
  TimelineLanes lanes;
  lanes.devices = {0};
  lanes.spans.resize(1);
  for (size_t i = 0; i < intervals.size(); ++i) {
    TimelineSpan s;
    s.start_ms = intervals[i].first;
    s.end_ms = intervals[i].second;
    s.task = int(i);
    s.kind = i < kinds.size() ? kinds[i] : TaskKind::forward;
    lanes.spans[0].push_back(s);
    lanes.end_ms = std::max(lanes.end_ms, s.end_ms);
  }
  return lanes;
}

// Number of spans of `lane` that intersect the open view (end > t0 and start < t1), by brute force.
int visible_by_brute_force(const std::vector<TimelineSpan>& lane, double t0, double t1) {
  int n = 0;
  for (const auto& s : lane) n += (s.end_ms > t0 && s.start_ms < t1) ? 1 : 0;
  return n;
}

// Checks the layout invariants for every lane; returns the number of boxes.
int check_invariants(const TimelineLanes& lanes, const TimelineLayout& layout, double t0, double t1) {
  REQUIRE(layout.lane_begin.size() == lanes.spans.size() + 1);
  for (size_t lane = 0; lane < lanes.spans.size(); ++lane) {
    int covered = 0;
    int next_span = -1;
    for (int b = layout.lane_begin[lane]; b < layout.lane_begin[lane + 1]; ++b) {
      const TimelineBox& box = layout.boxes[size_t(b)];
      CHECK(box.lane == int(lane));
      CHECK(box.count >= 1);
      CHECK(box.x0 <= box.x1);
      // Consecutive spans, no gaps in the sequence and no span twice.
      if (next_span >= 0) CHECK(box.first_span == next_span);
      next_span = box.first_span + box.count;
      covered += box.count;
      if (b > layout.lane_begin[lane]) {
        const TimelineBox& prev = layout.boxes[size_t(b - 1)];
        CHECK(box.x0 >= prev.x1);          // never overlap
        CHECK(box.start_ms >= prev.end_ms);
      }
      const auto& first = lanes.spans[lane][size_t(box.first_span)];
      const auto& last = lanes.spans[lane][size_t(box.first_span + box.count - 1)];
      CHECK(box.start_ms == first.start_ms);
      CHECK(box.end_ms == last.end_ms);
    }
    CHECK(covered == visible_by_brute_force(lanes.spans[lane], t0, t1));
  }
  return int(layout.boxes.size());
}

}  // namespace

TEST_CASE("first_visible_span is the first span ending after t") {
  // Spans [0,1) [2,3) [5,8).
  TimelineLanes l = one_lane({{0, 1}, {2, 3}, {5, 8}});
  const auto& s = l.spans[0];
  CHECK(first_visible_span(s, -1) == 0);
  CHECK(first_visible_span(s, 0.5) == 0);
  CHECK(first_visible_span(s, 1.0) == 1);   // [0,1) ends exactly at 1: not visible from 1 on
  CHECK(first_visible_span(s, 1.5) == 1);   // in the gap: the next span
  CHECK(first_visible_span(s, 7.9) == 2);
  CHECK(first_visible_span(s, 8.0) == 3);   // past the end
  CHECK(first_visible_span({}, 0) == 0);
}

TEST_CASE("a run of spans narrower than 3 px folds into one box with its count") {
  // 100 back-to-back spans of 0.01 ms in [10, 11) ms; view [0, 100] ms on 1000 px: 10 px per ms,
  // each span 0.1 px wide, all gaps 0 -> one box of 100 spans from 10 to 11 ms (x 100..110).
  std::vector<std::pair<double, double>> iv;
  for (int i = 0; i < 100; ++i) iv.push_back({10 + i * 0.01, 10 + (i + 1) * 0.01});
  TimelineLanes l = one_lane(iv);
  TimelineLayout layout = layout_timeline(l, 0, 100, 1000);
  REQUIRE(layout.boxes.size() == 1);
  CHECK(layout.boxes[0].count == 100);
  CHECK(layout.boxes[0].first_span == 0);
  CHECK(layout.boxes[0].start_ms == doctest::Approx(10));
  CHECK(layout.boxes[0].end_ms == doctest::Approx(11));
  CHECK(layout.boxes[0].x0 == doctest::Approx(100));
  CHECK(layout.boxes[0].x1 == doctest::Approx(110));
  CHECK_FALSE(layout.boxes[0].mixed_kinds);
  check_invariants(l, layout, 0, 100);

  // Zoom in 100x around them: [10, 11] on 1000 px is 1000 px per ms, each span 10 px: 100 boxes.
  TimelineLayout zoomed = layout_timeline(l, 10, 11, 1000);
  CHECK(zoomed.boxes.size() == 100);
  for (const auto& b : zoomed.boxes) CHECK(b.count == 1);
  check_invariants(l, zoomed, 10, 11);
}

TEST_CASE("wide spans stay alone; narrow runs between them fold; wide gaps split folds") {
  // 10 px per ms (view [0,100] on 1000 px). Spans:
  //   [0,5) wide (50 px) | 20 narrow 0.05 ms spans from 5 to 6 ms, back to back (0.5 px each)
  //   | [6,20) wide | narrow [30,30.1) and narrow [40,40.1) 100 px apart | [50,60) wide.
  // Expect: wide, fold of 20, wide, single narrow, single narrow, wide = 6 boxes.
  std::vector<std::pair<double, double>> iv = {{0, 5}};
  for (int i = 0; i < 20; ++i) iv.push_back({5 + i * 0.05, 5 + (i + 1) * 0.05});
  iv.push_back({6, 20});
  iv.push_back({30, 30.1});
  iv.push_back({40, 40.1});
  iv.push_back({50, 60});
  std::vector<TaskKind> kinds(iv.size(), TaskKind::forward);
  kinds[3] = TaskKind::transfer;   // one transfer inside the fold: a mixed fold
  TimelineLanes l = one_lane(iv, kinds);
  TimelineLayout layout = layout_timeline(l, 0, 100, 1000);
  REQUIRE(layout.boxes.size() == 6);
  std::vector<int> counts;
  for (const auto& b : layout.boxes) counts.push_back(b.count);
  CHECK(counts == std::vector<int>{1, 20, 1, 1, 1, 1});
  CHECK(layout.boxes[1].mixed_kinds);
  CHECK_FALSE(layout.boxes[0].mixed_kinds);
  CHECK(layout.boxes[3].x0 == doctest::Approx(300));
  CHECK(layout.boxes[3].x1 == doctest::Approx(301));
  check_invariants(l, layout, 0, 100);

  // Gaps, at 1 px per ms (exact in binary): 1 px spans 2 px apart fold; 3 px apart do not.
  TimelineLanes close = one_lane({{0, 1}, {3, 4}, {6, 7}});
  CHECK(layout_timeline(close, 0, 1000, 1000).boxes.size() == 1);
  TimelineLanes apart = one_lane({{0, 1}, {4, 5}, {8, 9}});
  CHECK(layout_timeline(apart, 0, 1000, 1000).boxes.size() == 3);
  // Width, likewise: 2 px spans back to back fold, 3 px spans stay apart.
  CHECK(layout_timeline(one_lane({{0, 2}, {2, 4}, {4, 6}}), 0, 1000, 1000).boxes.size() == 1);
  CHECK(layout_timeline(one_lane({{0, 3}, {3, 6}, {6, 9}}), 0, 1000, 1000).boxes.size() == 3);
  // A 3 px span ends a fold even right after a narrow one: 1 px | 3 px | 1 px -> three boxes.
  CHECK(layout_timeline(one_lane({{0, 1}, {1, 4}, {4, 5}}), 0, 1000, 1000).boxes.size() == 3);
}

TEST_CASE("visibility at the edges of the range") {
  // Spans [0,10) [10,20) [20,30) [30,40), view [10, 30] on 200 px (10 px per ms).
  TimelineLanes l = one_lane({{0, 10}, {10, 20}, {20, 30}, {30, 40}});
  TimelineLayout layout = layout_timeline(l, 10, 30, 200);
  // [0,10) ends at t0 and [30,40) starts at t1: neither is visible.
  REQUIRE(layout.boxes.size() == 2);
  CHECK(layout.boxes[0].first_span == 1);
  CHECK(layout.boxes[1].first_span == 2);
  CHECK(layout.boxes[0].x0 == doctest::Approx(0));
  CHECK(layout.boxes[1].x1 == doctest::Approx(200));

  // A view that cuts spans: [5, 35] shows all four, the outer two sticking out of [0, 300].
  TimelineLayout cut = layout_timeline(l, 5, 35, 300);
  REQUIRE(cut.boxes.size() == 4);
  CHECK(cut.boxes[0].x0 == doctest::Approx(-50));
  CHECK(cut.boxes[3].x1 == doctest::Approx(350));
  check_invariants(l, cut, 5, 35);

  // A view inside one span shows just that span; a view in a gap shows nothing.
  TimelineLayout inside = layout_timeline(l, 12, 13, 100);
  REQUIRE(inside.boxes.size() == 1);
  CHECK(inside.boxes[0].first_span == 1);
  TimelineLanes gappy = one_lane({{0, 1}, {5, 6}});
  CHECK(layout_timeline(gappy, 2, 4, 100).boxes.empty());
  CHECK(layout_timeline(l, 50, 60, 100).boxes.empty());

  // Degenerate views lay out nothing but keep one lane_begin per lane.
  TimelineLayout empty = layout_timeline(l, 30, 10, 100);
  CHECK(empty.boxes.empty());
  CHECK(empty.lane_begin.size() == 2);
  CHECK(layout_timeline(l, 0, 40, 0).boxes.empty());
}

TEST_CASE("random lanes: boxes never overlap, cover exactly the visible spans, and zooming in gives the tasks") {
  Rng rng(7);
  TimelineLanes lanes;
  for (int lane = 0; lane < 5; ++lane) {
    lanes.devices.push_back(lane);
    lanes.spans.emplace_back();
    double t = rng.uniform();
    for (int i = 0; i < 2000; ++i) {
      // Durations from 1 us to 5 ms, gaps from 0 to 1 ms: plenty of folding at low zoom.
      double dur = 0.001 + 5.0 * rng.uniform() * rng.uniform() * rng.uniform();
      TimelineSpan s{t, t + dur, i, TaskKind(rng.below(4))};
      lanes.spans.back().push_back(s);
      t = s.end_ms + (rng.below(3) == 0 ? 0.0 : rng.uniform());
      lanes.end_ms = std::max(lanes.end_ms, t);
    }
  }
  const double views[][2] = {{0, lanes.end_ms}, {100, 400}, {1000.5, 1003}, {-50, 20}, {lanes.end_ms - 1, lanes.end_ms + 10}};
  for (const auto& v : views) {
    TimelineLayout layout = layout_timeline(lanes, v[0], v[1], 1200);
    check_invariants(lanes, layout, v[0], v[1]);
  }
  // Fit to view: far fewer boxes than tasks (folding works) yet at least one per lane.
  TimelineLayout fit = layout_timeline(lanes, 0, lanes.end_ms, 1200);
  CHECK(fit.boxes.size() < 5 * 2000 / 2);
  CHECK(fit.boxes.size() >= 5);

  // Zoomed in until every span is wider than 3 px: one box per visible span, with its exact times.
  const auto& lane2 = lanes.spans[2];
  const double t0 = lane2[500].start_ms, t1 = lane2[505].end_ms;
  TimelineLayout zoom = layout_timeline(lanes, t0, t1, 1e7f);
  const int b0 = zoom.lane_begin[2], b1 = zoom.lane_begin[3];
  REQUIRE(b1 - b0 == 6);
  for (int k = 0; k < 6; ++k) {
    const TimelineBox& b = zoom.boxes[size_t(b0 + k)];
    CHECK(b.count == 1);
    CHECK(b.first_span == 500 + k);
    CHECK(b.start_ms == lane2[size_t(500 + k)].start_ms);
    CHECK(b.end_ms == lane2[size_t(500 + k)].end_ms);
    CHECK(b.kind == lane2[size_t(500 + k)].kind);
  }
}

TEST_CASE("lanes of a simulated AlexNet: GPUs first, then only the links that carry tasks") {
  auto g = load_model("alexnet");
  REQUIRE(g.ok());
  auto c = load_cluster("lecture:2x4");
  REQUIRE(c.ok());
  for (const char* name : {"dp", "expert", "mp"}) {
    CAPTURE(name);
    auto s = load_strategy(name, g.value(), c.value());
    REQUIRE(s.ok());
    TaskGraph tg(g.value(), c.value(), s.value());
    const double makespan = simulate_full(tg);
    TimelineLanes lanes = build_timeline_lanes(tg);
    CHECK(lanes.end_ms == makespan);
    REQUIRE(lanes.devices.size() >= 8);
    for (int d = 0; d < 8; ++d) CHECK(lanes.devices[size_t(d)] == d);
    size_t total = 0;
    for (size_t lane = 0; lane < lanes.devices.size(); ++lane) {
      if (lane > 0) CHECK(lanes.devices[lane] > lanes.devices[lane - 1]);
      if (lane >= 8) {
        CHECK(tg.topology().is_link(lanes.devices[lane]));
        CHECK_FALSE(lanes.spans[lane].empty());
      }
      const auto& spans = lanes.spans[lane];
      for (size_t i = 0; i < spans.size(); ++i) {
        const Task& t = tg.tasks()[size_t(spans[i].task)];
        CHECK(t.device == lanes.devices[lane]);
        CHECK(t.live);
        if (i > 0) CHECK(spans[i].start_ms >= spans[i - 1].end_ms);   // sorted, no overlap
      }
      total += spans.size();
    }
    CHECK(int(total) == tg.live_count());
    TimelineLayout fit = layout_timeline(lanes, 0, lanes.end_ms, 900);
    check_invariants(lanes, fit, 0, lanes.end_ms);
  }
}
