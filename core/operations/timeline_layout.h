// The data side of the timeline view (Tracy's approach, no drawing in here): the simulated
// tasks grouped into lanes (one per GPU, then one per link that carries tasks), and the layout
// step that turns the visible time range of those lanes into a flat list of boxes to paint.
// The layout binary-searches each lane for its first visible task and folds runs of spans
// narrower than a few pixels into one box with a count, so painting costs O(visible boxes)
// however many tasks the iteration has. Pure functions, tested natively.
#pragma once
#include <cstdint>
#include <vector>

#include "task_graph.h"

namespace autopar {

// One task on a lane: its simulated interval and its slot in TaskGraph::tasks().
struct TimelineSpan {
  double start_ms = 0;
  double end_ms = 0;
  int task = -1;
  TaskKind kind = TaskKind::forward;
};

// Lanes of a simulated timeline. Invariant: spans of a lane are sorted by start and do not
// overlap (each device runs one task at a time), so their ends are sorted too.
struct TimelineLanes {
  std::vector<int> devices;                         // device id of each lane (DeviceTopology numbering)
  std::vector<std::vector<TimelineSpan>> spans;     // per lane, sorted by start_ms
  double end_ms = 0;                                // latest end over all lanes (the makespan)
};

// Groups the live tasks of a simulated task graph into lanes: every GPU in order (idle ones
// too), then, in device order, only the links that carry at least one task.
TimelineLanes build_timeline_lanes(const TaskGraph& tg);

// One box to paint: `count` consecutive spans of lane `lane` starting at index `first_span`,
// covering [start_ms, end_ms]; x0/x1 are pixels from the left edge of the view (may lie outside
// [0, width] for spans cut by the view's edges).
struct TimelineBox {
  int lane = 0;
  int first_span = 0;
  int count = 1;              // > 1: a fold of spans too narrow to draw one by one
  double start_ms = 0;
  double end_ms = 0;
  float x0 = 0;
  float x1 = 0;
  TaskKind kind = TaskKind::forward;   // the first span's kind
  bool mixed_kinds = false;            // a fold whose spans are not all of `kind`
};

// Boxes of all lanes, lane by lane and left to right within a lane.
struct TimelineLayout {
  std::vector<TimelineBox> boxes;
  std::vector<int> lane_begin;         // boxes of lane i are [lane_begin[i], lane_begin[i+1])
};

// Width below which spans are folded, in pixels.
constexpr float kTimelineMinBoxPx = 3.0f;

// Lays out the spans visible in [t0_ms, t1_ms] (a span is visible when end > t0 and start < t1)
// on a view `width_px` wide. A maximal run of spans that are each narrower than `min_box_px`,
// with gaps between them narrower than `min_box_px`, becomes one box with their count; every
// other visible span is a box of its own. Boxes of a lane never overlap and are in time order.
// An empty range (t1 <= t0) or a non-positive width gives no boxes (lane_begin still sized).
TimelineLayout layout_timeline(const TimelineLanes& lanes, double t0_ms, double t1_ms, float width_px,
                               float min_box_px = kTimelineMinBoxPx);

// Index of the first span of `spans` (sorted, non-overlapping) that ends after `t_ms`, or
// spans.size() when none does: the binary search the layout starts each lane with.
size_t first_visible_span(const std::vector<TimelineSpan>& spans, double t_ms);

}  // namespace autopar
