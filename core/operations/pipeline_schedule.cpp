// A plan's pipeline through the one schedule model, and stage placement. See pipeline_schedule.h.
#include "pipeline_schedule.h"

#include <algorithm>
#include <cmath>

namespace autopar {

ScheduleKind schedule_kind_of(PipelineKind kind) {
  return kind == PipelineKind::gpipe ? ScheduleKind::gpipe : ScheduleKind::one_f_one_b;
}

PlanShares plan_shares_from_report(const Json& report) {
  PlanShares s;
  if (report.is_object()) {
    if (report.contains("forward_share") && report["forward_share"].is_number()) s.forward = report["forward_share"].get<double>();
    if (report.contains("weight_share") && report["weight_share"].is_number()) s.weight = report["weight_share"].get<double>();
  }
  return s;
}

PlanPipeline plan_pipeline(const InterOpPlan& plan, int microbatches, const PlanShares& shares) {
  PlanPipeline pp;
  pp.microbatches = microbatches;
  pp.forward_share = shares.forward;
  pp.weight_share = shares.weight;
  for (const PipelineStage& st : plan.stages) {
    pp.stage_ms.push_back(st.latency + (plan.boundaries ? st.recv_ms : 0));
    pp.boundary_ms.push_back(plan.boundaries ? st.send_ms : 0);
  }
  return pp;
}

PipelineSchedule pipeline_schedule_of(const ScheduleResult& r, const ScheduleInput& in) {
  PipelineSchedule out;
  const int S = r.devices;
  out.makespan_ms = r.makespan_ms;
  out.bubble_fraction = r.bubble_fraction;
  out.idle_ms = r.bubble_ms;
  out.peak_inflight = r.peak_inflight;
  out.forward_ms.assign(size_t(S), 0);
  out.backward_ms.assign(size_t(S), 0);
  out.send_ms.assign(size_t(S), 0);
  for (int s = 0; s < int(in.forward_ms.size()) && s < S; ++s) {
    const int d = stage_device(in.kind, in.devices, in.interleave, s);
    if (d < 0 || d >= S) continue;
    out.forward_ms[size_t(d)] += in.forward_ms[size_t(s)];
    out.backward_ms[size_t(d)] += in.backward_ms[size_t(s)];
    if (d + 1 < S) out.send_ms[size_t(d)] = s < int(in.boundary_send_ms.size()) ? in.boundary_send_ms[size_t(s)] : in.send_ms;
  }
  out.boxes.reserve(r.passes.size());
  for (const SchedulePass& p : r.passes) {
    PipelineBox b;
    b.microbatch = p.microbatch;
    b.start_ms = p.start_ms;
    b.end_ms = p.end_ms;
    if (p.kind == PassKind::send) {
      b.transfer = true;
      b.stage = std::min(p.device, p.to_device);
      b.forward = !p.gradient;
    } else {
      b.stage = p.device;
      b.forward = p.kind == PassKind::forward;
    }
    out.boxes.push_back(b);
  }
  return out;
}

PipelineSchedule plan_pipeline_schedule(const InterOpPlan& plan, int microbatches, PipelineKind kind, const PlanShares& shares) {
  if (plan.stages.empty() || microbatches < 1) return {};
  const ScheduleKind k = schedule_kind_of(kind);
  auto in = plan_schedule_input(plan_pipeline(plan, microbatches, shares), k, 1);
  if (!in.ok()) return {};
  auto r = simulate_schedule(in.value());
  if (!r.ok()) return {};
  return pipeline_schedule_of(r.value(), in.value());
}

PipelineSchedule pipeline_schedule(const std::vector<double>& stage_latency_ms, int microbatches, PipelineKind kind,
                                   const std::vector<double>& send_ms, const PlanShares& shares) {
  InterOpPlan plan;
  plan.boundaries = true;
  for (size_t s = 0; s < stage_latency_ms.size(); ++s) {
    PipelineStage st;
    st.latency = stage_latency_ms[s];
    st.send_ms = s < send_ms.size() ? send_ms[s] : 0;
    plan.stages.push_back(st);
  }
  return plan_pipeline_schedule(plan, microbatches, kind, shares);
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

BubbleFractions plan_bubble_fractions(const InterOpPlan& plan, int microbatches, const PlanShares& shares) {
  return {plan_pipeline_schedule(plan, microbatches, PipelineKind::gpipe, shares).bubble_fraction,
          plan_pipeline_schedule(plan, microbatches, PipelineKind::one_f_one_b, shares).bubble_fraction};
}

}  // namespace autopar
