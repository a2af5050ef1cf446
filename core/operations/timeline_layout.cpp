// Timeline lanes and the visible-range layout with folding of narrow spans (Tracy's approach).
// See timeline_layout.h.
#include "timeline_layout.h"

#include <algorithm>

namespace autopar {

TimelineLanes build_timeline_lanes(const TaskGraph& tg) {
  const DeviceTopology& topo = tg.topology();
  std::vector<std::vector<TimelineSpan>> by_device(size_t(topo.num_devices()));
  TimelineLanes lanes;
  const std::vector<Task>& tasks = tg.tasks();
  for (size_t slot = 0; slot < tasks.size(); ++slot) {
    const Task& t = tasks[slot];
    if (!t.live || t.device < 0 || t.device >= topo.num_devices()) continue;
    by_device[size_t(t.device)].push_back(TimelineSpan{t.start_ms, t.end_ms, int(slot), t.kind});
    lanes.end_ms = std::max(lanes.end_ms, t.end_ms);
  }
  for (int d = 0; d < topo.num_devices(); ++d) {
    auto& spans = by_device[size_t(d)];
    if (topo.is_link(d) && spans.empty()) continue;
    // Ties (never expected: a device runs one task at a time) are broken by slot for determinism.
    std::sort(spans.begin(), spans.end(), [](const TimelineSpan& a, const TimelineSpan& b) {
      return a.start_ms < b.start_ms || (a.start_ms == b.start_ms && a.task < b.task);
    });
    lanes.devices.push_back(d);
    lanes.spans.push_back(std::move(spans));
  }
  return lanes;
}

size_t first_visible_span(const std::vector<TimelineSpan>& spans, double t_ms) {
  // Ends are sorted because spans are sorted and do not overlap.
  auto it = std::partition_point(spans.begin(), spans.end(), [t_ms](const TimelineSpan& s) { return s.end_ms <= t_ms; });
  return size_t(it - spans.begin());
}

TimelineLayout layout_timeline(const TimelineLanes& lanes, double t0_ms, double t1_ms, float width_px, float min_box_px) {
  TimelineLayout out;
  out.lane_begin.reserve(lanes.spans.size() + 1);
  if (!(t1_ms > t0_ms) || !(width_px > 0)) {
    out.lane_begin.assign(lanes.spans.size() + 1, 0);
    return out;
  }
  const double px_per_ms = double(width_px) / (t1_ms - t0_ms);
  const double min_px = double(min_box_px);
  auto x_of = [&](double t) { return float((t - t0_ms) * px_per_ms); };

  for (size_t lane = 0; lane < lanes.spans.size(); ++lane) {
    out.lane_begin.push_back(int(out.boxes.size()));
    const std::vector<TimelineSpan>& spans = lanes.spans[lane];
    const size_t n = spans.size();
    size_t i = first_visible_span(spans, t0_ms);
    while (i < n && spans[i].start_ms < t1_ms) {
      const TimelineSpan& s = spans[i];
      TimelineBox box;
      box.lane = int(lane);
      box.first_span = int(i);
      box.kind = s.kind;
      box.start_ms = s.start_ms;
      box.end_ms = s.end_ms;
      size_t j = i + 1;
      if ((s.end_ms - s.start_ms) * px_per_ms < min_px) {
        // A narrow span: absorb the following spans while they are narrow and close.
        while (j < n && spans[j].start_ms < t1_ms) {
          const TimelineSpan& next = spans[j];
          if ((next.start_ms - box.end_ms) * px_per_ms >= min_px) break;
          if ((next.end_ms - next.start_ms) * px_per_ms >= min_px) break;
          box.mixed_kinds = box.mixed_kinds || next.kind != box.kind;
          box.end_ms = next.end_ms;
          ++j;
        }
      }
      box.count = int(j - i);
      box.x0 = x_of(box.start_ms);
      box.x1 = x_of(box.end_ms);
      out.boxes.push_back(box);
      i = j;
    }
  }
  out.lane_begin.push_back(int(out.boxes.size()));
  return out;
}

}  // namespace autopar
