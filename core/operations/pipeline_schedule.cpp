// Pipeline schedules and stage placement. See pipeline_schedule.h.
#include "pipeline_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace autopar {

PipelineSchedule pipeline_schedule(const std::vector<double>& stage_latency_ms, int microbatches, PipelineKind kind,
                                   const std::vector<double>& send_ms) {
  PipelineSchedule out;
  const int S = int(stage_latency_ms.size());
  const int B = std::max(0, microbatches);
  if (S == 0 || B == 0) return out;
  double max_half_send = 0, min_lat = std::numeric_limits<double>::infinity();
  for (int s = 0; s + 1 < S && s < int(send_ms.size()); ++s) max_half_send = std::max(max_half_send, send_ms[size_t(s)] / 2);
  for (double l : stage_latency_ms) min_lat = std::min(min_lat, l);
  // Per stage, the order of its boxes: +m+1 = forward of micro-batch m, -(m+1) = backward.
  std::vector<std::vector<int>> order(static_cast<size_t>(S));
  for (int s = 0; s < S; ++s) {
    auto& o = order[size_t(s)];
    if (kind == PipelineKind::gpipe) {
      for (int m = 0; m < B; ++m) o.push_back(m + 1);
      for (int m = 0; m < B; ++m) o.push_back(-(m + 1));
    } else {
      // Warm-up forwards: S - s - 1 fill the pipeline when hand-overs are free; a hand-over of x
      // each way delays the returning gradient by 2x per stage, so the warm-up grows by that
      // share of a stage's time (more activations kept; without sends it is the textbook count).
      const double grow = 1 + (min_lat > 0 ? 2 * max_half_send / min_lat : 0);
      const int warmup = std::min(int(std::ceil(double(S - s - 1) * grow - 1e-9)), B);
      int f = 0, b = 0;
      for (; f < warmup; ++f) o.push_back(f + 1);
      while (f < B) {
        o.push_back(++f);
        o.push_back(-(++b));
      }
      while (b < B) o.push_back(-(++b));
    }
  }
  // List scheduling in dependency order: repeat passes until every box is placed.
  std::vector<std::vector<double>> fwd_end(size_t(S), std::vector<double>(size_t(B), -1)), bwd_end = fwd_end;
  std::vector<size_t> next(size_t(S), 0);
  std::vector<double> free_at(size_t(S), 0), link_free_at(size_t(S), 0);
  // The hand-over of a box's result to the neighbouring stage: a transfer on the link between
  // them (after stage `link`), one at a time, once the box has ended. Returns when it arrives.
  auto hand_over = [&](int link, int m, bool forward, double ready) {
    const double t = link < int(send_ms.size()) ? send_ms[size_t(link)] / 2 : 0;
    if (!(t > 0)) return ready;
    const double start = std::max(ready, link_free_at[size_t(link)]);
    link_free_at[size_t(link)] = start + t;
    out.boxes.push_back(PipelineBox{link, m, forward, true, start, start + t});
    return start + t;
  };
  std::vector<std::vector<double>> fwd_arrive(size_t(S), std::vector<double>(size_t(B), -1)), bwd_arrive = fwd_arrive;
  size_t placed = 0, total = size_t(S) * size_t(B) * 2;
  out.boxes.reserve(total);
  while (placed < total) {
    bool progress = false;
    for (int s = 0; s < S; ++s) {
      while (next[size_t(s)] < order[size_t(s)].size()) {
        const int code = order[size_t(s)][next[size_t(s)]];
        const bool forward = code > 0;
        const int m = (forward ? code : -code) - 1;
        double ready = 0;
        if (forward && s > 0) ready = fwd_arrive[size_t(s - 1)][size_t(m)];
        if (!forward) ready = s + 1 < S ? bwd_arrive[size_t(s + 1)][size_t(m)] : fwd_end[size_t(s)][size_t(m)];
        if (ready < 0) break;
        const double lat = stage_latency_ms[size_t(s)];
        const double dur = forward ? lat / 3.0 : lat * 2.0 / 3.0;
        const double start = std::max(ready, free_at[size_t(s)]);
        free_at[size_t(s)] = start + dur;
        (forward ? fwd_end : bwd_end)[size_t(s)][size_t(m)] = start + dur;
        out.boxes.push_back(PipelineBox{s, m, forward, false, start, start + dur});
        // Forward results go to stage s + 1 over link s, gradients to stage s - 1 over link s - 1.
        if (forward && s + 1 < S) fwd_arrive[size_t(s)][size_t(m)] = hand_over(s, m, true, start + dur);
        if (!forward && s > 0) bwd_arrive[size_t(s)][size_t(m)] = hand_over(s - 1, m, false, start + dur);
        out.makespan_ms = std::max(out.makespan_ms, start + dur);
        ++next[size_t(s)];
        ++placed;
        progress = true;
      }
    }
    if (!progress) break;   // cannot happen with these orders; guards against a bad one
  }
  for (const PipelineBox& b : out.boxes) out.makespan_ms = std::max(out.makespan_ms, b.end_ms);
  double busy = 0;
  for (double l : stage_latency_ms) busy += l * B;
  out.bubble_fraction = out.makespan_ms > 0 ? std::max(0.0, 1.0 - busy / (double(S) * out.makespan_ms)) : 0;
  return out;
}

std::vector<std::pair<int, int>> place_submeshes(const std::vector<Submesh>& submeshes, int nodes, int gpus_per_node) {
  std::vector<std::vector<bool>> used(size_t(std::max(nodes, 0)), std::vector<bool>(size_t(std::max(gpus_per_node, 0)), false));
  std::vector<std::pair<int, int>> out;
  auto fits = [&](int n0, int g0, const Submesh& sm) {
    if (n0 + sm.nodes > nodes || g0 + sm.gpus > gpus_per_node) return false;
    for (int n = n0; n < n0 + sm.nodes; ++n)
      for (int g = g0; g < g0 + sm.gpus; ++g)
        if (used[size_t(n)][size_t(g)]) return false;
    return true;
  };
  for (const Submesh& sm : submeshes) {
    std::pair<int, int> at{-1, -1};
    for (int n = 0; n < nodes && at.first < 0; ++n)
      for (int g = 0; g < gpus_per_node && at.first < 0; ++g)
        if (fits(n, g, sm)) at = {n, g};
    if (at.first < 0) {
      // Fallback: the first free device.
      for (int n = 0; n < nodes && at.first < 0; ++n)
        for (int g = 0; g < gpus_per_node && at.first < 0; ++g)
          if (!used[size_t(n)][size_t(g)]) at = {n, g};
      if (at.first < 0) at = {0, 0};
      out.push_back(at);
      continue;
    }
    for (int n = at.first; n < at.first + sm.nodes; ++n)
      for (int g = at.second; g < at.second + sm.gpus; ++g) used[size_t(n)][size_t(g)] = true;
    out.push_back(at);
  }
  return out;
}

std::vector<std::pair<int, int>> stage_places(const InterOpPlan& plan, int nodes, int gpus_per_node) {
  std::vector<std::pair<int, int>> out;
  if (plan.boundaries && gpus_per_node > 0) {
    for (const PipelineStage& s : plan.stages) out.push_back({s.device_offset / gpus_per_node, s.device_offset % gpus_per_node});
    return out;
  }
  std::vector<Submesh> subs;
  for (const PipelineStage& s : plan.stages) subs.push_back(s.submesh);
  return place_submeshes(subs, nodes, gpus_per_node);
}

PipelineSchedule plan_pipeline_schedule(const InterOpPlan& plan, int microbatches, PipelineKind kind) {
  // With boundaries priced, a stage's time includes its receiving, and sends sit on link lanes.
  std::vector<double> latency_ms, send_ms;
  for (const PipelineStage& s : plan.stages) {
    latency_ms.push_back(s.latency + (plan.boundaries ? s.recv_ms : 0));
    send_ms.push_back(plan.boundaries ? s.send_ms : 0);
  }
  return pipeline_schedule(latency_ms, microbatches, kind, send_ms);
}

BubbleFractions plan_bubble_fractions(const InterOpPlan& plan, int microbatches) {
  return {plan_pipeline_schedule(plan, microbatches, PipelineKind::gpipe).bubble_fraction,
          plan_pipeline_schedule(plan, microbatches, PipelineKind::one_f_one_b).bubble_fraction};
}

}  // namespace autopar
