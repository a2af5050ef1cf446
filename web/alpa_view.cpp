// The Alpa plans of the page (see alpa_view.h): the same core calls as `autopar intra` and
// `autopar inter`, so that the numbers equal the CLI's; and the pipeline schedules for the Gantt.
#include "alpa_view.h"

#include <algorithm>
#include <chrono>

#include "sharding_spec.h"

namespace autopar::web {

std::string intra_key(const AlpaInputs& in) { return in.model + "|" + in.cluster + "|" + in.mesh + "|" + in.solver; }

std::string inter_key(const AlpaInputs& in) { return in.model + "|" + in.cluster + "|" + std::to_string(in.microbatches); }

void refresh_intra_plan(IntraOpView& view, const AlpaInputs& in, const Graph& graph, const Cluster& cluster) {
  const std::string key = intra_key(in);
  if (key == view.key) return;
  view.key = key;
  view.plan.reset();
  view.error.reset();
  auto shape = parse_mesh_shape(in.mesh, "mesh");
  if (!shape.ok()) {
    view.error = shape.error();
    return;
  }
  auto mesh = mesh_from_cluster(shape.value().first, shape.value().second, cluster, "mesh");
  if (!mesh.ok()) {
    view.error = mesh.error();
    return;
  }
  IntraOpOptions options;
  options.solver = in.solver;
  auto plan = plan_intra_op(graph, mesh.value(), options);
  if (!plan.ok()) {
    view.error = plan.error();
    return;
  }
  view.plan = std::move(plan.value());
  if (view.reshard_op >= int(graph.ops.size())) view.reshard_op = -1;
}

void plan_inter(InterOpView& view, const AlpaInputs& in, const Graph& graph, const Cluster& cluster) {
  const auto start = std::chrono::steady_clock::now();
  view.pending = false;
  view.key = inter_key(in);
  view.plan.reset();
  view.error.reset();
  view.layer_first_op.clear();
  view.layer_last_op.clear();
  auto micro = microbatch_graph(graph, in.microbatches);
  if (!micro.ok()) {
    view.error = micro.error();
    return;
  }
  InterOpOptions options;
  options.microbatches = in.microbatches;
  std::vector<std::pair<int, int>> layers;
  auto table = stage_costs_from_model(micro.value(), cluster, options, &layers);
  if (!table.ok()) {
    view.error = table.error();
    return;
  }
  auto plan = solve_inter_op(table.value(), in.microbatches);
  if (!plan.ok()) {
    view.error = plan.error();
    return;
  }
  for (const auto& [first, last] : layers) {
    view.layer_first_op.push_back(micro.value().ops[size_t(first)].name());
    view.layer_last_op.push_back(micro.value().ops[size_t(last)].name());
  }
  view.plan = std::move(plan.value());
  view.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

const InterOpPlan* current_inter_plan(const InterOpView& view, const AlpaInputs& in) {
  return view.plan && view.key == inter_key(in) ? &*view.plan : nullptr;
}

Json alpa_result_json(const AlpaView& view, const AlpaInputs& in, const Graph& graph) {
  Json j;
  const bool intra_ok = view.intra.plan && view.intra.key == intra_key(in);
  j["objective"] = nullptr;
  j["intra_ops"] = nullptr;
  if (intra_ok) {
    const IntraOpPlan& p = *view.intra.plan;
    j["objective"] = p.objective;
    j["communication_cost"] = p.communication_cost;
    j["resharding_cost"] = p.resharding_cost;
    j["memory_per_device_bytes"] = p.memory_per_device;
    j["intra_solver"] = p.solution.solver;
    j["intra_solve_ms"] = p.solve_ms;
    Json ops = Json::array();
    for (size_t v = 0; v < graph.ops.size() && v < p.strategies.size(); ++v) {
      const OpStrategy& s = p.strategies[v][size_t(p.solution.choice[v])];
      Json inputs = Json::array();
      for (const ShardingSpec& spec : s.inputs) inputs.push_back(spec_to_string(spec));
      ops.push_back(Json{{"name", graph.ops[v].name()},
                         {"strategy", s.name},
                         {"output_spec", spec_to_string(s.output)},
                         {"input_specs", inputs},
                         {"cost", s.cost()}});
    }
    j["intra_ops"] = ops;
  } else if (view.intra.error && view.intra.key == intra_key(in)) {
    j["intra_error"] = error_to_json(*view.intra.error);
  }
  const InterOpPlan* inter = current_inter_plan(view.inter, in);
  j["total_latency"] = inter ? Json(inter->total_latency) : Json(nullptr);
  j["inter_planning"] = view.inter.pending;
  if (inter) {
    j["t_max"] = inter->t_max;
    Json stages = Json::array();
    for (const PipelineStage& s : inter->stages)
      stages.push_back(Json{{"layers", Json::array({s.first, s.last})},
                            {"submesh", Json::array({s.submesh.nodes, s.submesh.gpus})},
                            {"latency", s.latency},
                            {"logical_mesh", s.logical_mesh}});
    j["stages"] = stages;
    std::vector<double> lat;
    for (const PipelineStage& s : inter->stages) lat.push_back(s.latency);
    j["bubble_fraction"] = Json{{"gpipe", pipeline_schedule(lat, in.microbatches, PipelineKind::gpipe).bubble_fraction},
                                {"1f1b", pipeline_schedule(lat, in.microbatches, PipelineKind::one_f_one_b).bubble_fraction}};
  } else if (view.inter.error && view.inter.key == inter_key(in)) {
    j["inter_error"] = error_to_json(*view.inter.error);
  }
  return j;
}

int shard_count(const std::vector<uint8_t>& dims, int rows, int cols) {
  int n = 1;
  for (uint8_t m : dims) n *= ((m & 1) ? rows : 1) * ((m & 2) ? cols : 1);
  return n;
}

int shard_of_device(const std::vector<uint8_t>& dims, int r, int c, int rows, int cols) {
  int id = 0;
  for (uint8_t m : dims) {
    const int ways = ((m & 1) ? rows : 1) * ((m & 2) ? cols : 1);
    int part = 0;
    if (m == 1) part = r;
    else if (m == 2) part = c;
    else if (m == 3) part = r * cols + c;   // S01: axis 0 major
    id = id * ways + part;
  }
  return id;
}

PipelineSchedule pipeline_schedule(const std::vector<double>& stage_latency_ms, int microbatches, PipelineKind kind) {
  PipelineSchedule out;
  const int S = int(stage_latency_ms.size());
  const int B = std::max(0, microbatches);
  if (S == 0 || B == 0) return out;
  // Per stage, the order of its boxes: +m+1 = forward of micro-batch m, -(m+1) = backward.
  std::vector<std::vector<int>> order(static_cast<size_t>(S));
  for (int s = 0; s < S; ++s) {
    auto& o = order[size_t(s)];
    if (kind == PipelineKind::gpipe) {
      for (int m = 0; m < B; ++m) o.push_back(m + 1);
      for (int m = 0; m < B; ++m) o.push_back(-(m + 1));
    } else {
      const int warmup = std::min(S - s - 1, B);
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
  std::vector<double> free_at(size_t(S), 0);
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
        if (forward && s > 0) ready = fwd_end[size_t(s - 1)][size_t(m)];
        if (!forward) ready = s + 1 < S ? bwd_end[size_t(s + 1)][size_t(m)] : fwd_end[size_t(s)][size_t(m)];
        if (ready < 0) break;
        const double lat = stage_latency_ms[size_t(s)];
        const double dur = forward ? lat / 3.0 : lat * 2.0 / 3.0;
        const double start = std::max(ready, free_at[size_t(s)]);
        free_at[size_t(s)] = start + dur;
        (forward ? fwd_end : bwd_end)[size_t(s)][size_t(m)] = start + dur;
        out.boxes.push_back(PipelineBox{s, m, forward, start, start + dur});
        out.makespan_ms = std::max(out.makespan_ms, start + dur);
        ++next[size_t(s)];
        ++placed;
        progress = true;
      }
    }
    if (!progress) break;   // cannot happen with these orders; guards against a bad one
  }
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

}  // namespace autopar::web
