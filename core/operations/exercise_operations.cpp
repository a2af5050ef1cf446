// The numbers of lecture 15's exercises (see exercise_operations.h).
#include "exercise_operations.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cluster_spec.h"
#include "strategy_argument.h"
#include "flexflow_operations.h"
#include "intra_op.h"
#include "mcmc.h"
#include "models.h"
#include "report_text.h"

namespace autopar {

Result<LinearSplitNumbers> linear_split_numbers(int batch, int in, int out, int sample_degree, int param_degree) {
  if (sample_degree < 1 || param_degree < 1 || batch % sample_degree || out % param_degree)
    return make_error(ErrorCode::bad_degree,
                      "the sample degree must divide the batch (" + std::to_string(batch) + ") and the parameter degree the output size (" +
                          std::to_string(out) + "); pick divisors");
  LinearSplitNumbers n;
  n.input_elements = int64_t(batch / sample_degree) * in;
  n.weight_elements = int64_t(in) * (out / param_degree);
  n.sync_group = sample_degree;
  n.sync_groups = param_degree;
  n.sync_elements = sample_degree > 1 ? n.weight_elements : 0;
  return n;
}

AcceptanceOdds acceptance_odds(const AcceptanceInputs& in, double beta) {
  AcceptanceOdds o;
  o.beta = beta;
  o.scale_ms = in.normalize ? in.initial_ms : 1.0;
  // Normalised, the scale has the costs' unit and the probability does not depend on it; raw,
  // the same difference in seconds is 1000 times smaller (the point of the exercise).
  o.in_ms = acceptance_probability(in.current_ms, in.proposed_ms, beta / o.scale_ms);
  o.in_s = acceptance_probability(in.current_ms / 1000, in.proposed_ms / 1000, beta / (in.normalize ? in.initial_ms / 1000 : 1.0));
  return o;
}

std::vector<AcceptanceOdds> acceptance_table(const AcceptanceInputs& in) {
  std::vector<AcceptanceOdds> rows = {acceptance_odds(in, 0.1), acceptance_odds(in, 1.0)};
  if (in.beta != 0.1 && in.beta != 1.0) rows.push_back(acceptance_odds(in, in.beta));
  return rows;
}

namespace {

// The move of exercise 3: whole on GPU 0, or (when it already is) split by its first dimension
// over every GPU.
OpConfig moved_config(const Op& op, const OpConfig& current, int devices) {
  OpConfig target;
  target.degrees.assign(current.degrees.size(), 1);
  target.devices = {0};
  if (current == target) {
    for (const auto& c : enumerate_configs(op, devices))
      if (!c.degrees.empty() && c.degrees[0] > 1 && c.parts() == std::min(devices, c.degrees[0])) target = c;
  }
  return target;
}

// The timeline after a move: lanes (the devices holding a live task, in device order), boxes,
// and the earliest change with the tasks that end before it.
void lay_out_move(const TaskGraph& tg, DeltaMove& m) {
  const auto& tasks = tg.tasks();
  const DeviceTopology& topo = tg.topology();
  std::vector<int> lane_of(size_t(topo.num_devices()), -1);
  for (const Task& t : tasks)
    if (t.live && t.device >= 0) lane_of[size_t(t.device)] = 0;
  for (int d = 0; d < topo.num_devices(); ++d)
    if (lane_of[size_t(d)] == 0) {
      lane_of[size_t(d)] = int(m.lane_names.size());
      m.lane_names.push_back(topo.name(d));
    }
  m.earliest_changed_ms = std::numeric_limits<double>::infinity();
  for (int slot : m.changed_slots) m.earliest_changed_ms = std::min(m.earliest_changed_ms, tasks[size_t(slot)].start_ms);
  if (m.changed_slots.empty()) m.earliest_changed_ms = m.new_ms;
  size_t next_changed = 0;
  for (size_t slot = 0; slot < tasks.size(); ++slot) {
    const Task& t = tasks[slot];
    if (!t.live || t.device < 0) continue;
    const bool changed = next_changed < m.changed_slots.size() && m.changed_slots[next_changed] == int(slot);
    if (changed) ++next_changed;
    m.boxes.push_back({lane_of[size_t(t.device)], t.start_ms, t.end_ms, changed});
    if (!changed && t.end_ms <= m.earliest_changed_ms) ++m.kept_before_earliest;
  }
}

}  // namespace

bool DeltaMove::matches_full() const { return std::fabs(full_ms - new_ms) <= 1e-9 * std::max(1.0, full_ms); }

DeltaMove delta_move(const Graph& graph, const Cluster& cluster, const Strategy& strategy, int op) {
  DeltaMove m;
  m.op = op;
  DeltaSimulator ds(graph, cluster, strategy);
  m.old_ms = ds.makespan();
  struct Times { bool live; double start, end; };
  std::vector<Times> before;
  for (const Task& t : ds.task_graph().tasks()) before.push_back({t.live, t.start_ms, t.end_ms});
  m.config = moved_config(graph.ops[size_t(op)], strategy.ops[size_t(op)], cluster.num_devices());
  m.new_ms = ds.set_config(op, m.config);
  m.recomputed = ds.last_recomputed();
  const auto& tasks = ds.task_graph().tasks();
  for (size_t slot = 0; slot < tasks.size(); ++slot) {
    if (!tasks[slot].live) continue;
    ++m.tasks;
    const bool same = slot < before.size() && before[slot].live && before[slot].start == tasks[slot].start_ms &&
                      before[slot].end == tasks[slot].end_ms;
    if (same)
      ++m.kept;
    else
      m.changed_slots.push_back(int(slot));
  }
  lay_out_move(ds.task_graph(), m);
  Strategy moved = strategy;
  moved.ops[size_t(op)] = m.config;
  TaskGraph full(graph, cluster, moved);
  m.full_ms = simulate_full(full);
  return m;
}

DeltaMovesExercise delta_moves_exercise(const Graph& graph, const Cluster& cluster, const Strategy& strategy,
                                        const TaskGraph& simulated) {
  DeltaMovesExercise e;
  for (int op = 0; op < int(graph.ops.size()); ++op) e.moves.push_back(delta_move(graph, cluster, strategy, op));
  e.first_start_ms.assign(graph.ops.size(), std::numeric_limits<double>::infinity());
  for (const Task& t : simulated.tasks())
    if (t.live && t.kind == TaskKind::forward && t.op >= 0 && size_t(t.op) < e.first_start_ms.size())
      e.first_start_ms[size_t(t.op)] = std::min(e.first_start_ms[size_t(t.op)], t.start_ms);
  // The key is the share of a move's tasks recomputed, not the count: the question (and its
  // hint and explanation) is where delta simulation saves the least, and an op with more tasks
  // can recompute more of them while still keeping a larger part of the timeline.
  for (const auto& m : e.moves) e.most_recomputed_share = std::max(e.most_recomputed_share, m.recomputed_share());
  for (const auto& m : e.moves)
    if (m.recomputed_share() >= e.most_recomputed_share * (1 - 1e-12)) {
      e.most_recomputing_ops.push_back(m.op);
      e.most_recomputed = std::max(e.most_recomputed, m.recomputed);
    }
  return e;
}

ReshardOrder reshard_order(const DeviceMesh& mesh, int first, double tensor_bytes) {
  ReshardOrder r;
  r.first_axis = first;
  r.second_axis = 1 - first;
  const MeshAxis& a = mesh.axis[r.first_axis];
  const MeshAxis& b = mesh.axis[r.second_axis];
  // Before: each device holds 1/(R*C). After gathering along `first`: 1/(size of the other axis).
  const double after_first = tensor_bytes / b.size;
  r.first_bytes = after_first * (a.size - 1) / a.size;
  r.second_bytes = tensor_bytes * (b.size - 1) / b.size;
  r.first_ms = all_gather_cost(a, after_first);
  r.second_ms = all_gather_cost(b, tensor_bytes);
  (r.first_axis == 0 ? r.slow_axis_bytes : r.fast_axis_bytes) = r.first_bytes;
  (r.second_axis == 0 ? r.slow_axis_bytes : r.fast_axis_bytes) = r.second_bytes;
  return r;
}

Result<DeviceMesh> exercise4_mesh(const Cluster& cluster) { return mesh_from_cluster(2, 4, cluster); }

ReshardExercise reshard_exercise(const DeviceMesh& mesh, int rows, int cols, int dtype_bytes) {
  ReshardExercise e;
  e.axis[0] = mesh.axis[0];
  e.axis[1] = mesh.axis[1];
  e.tensor_bytes = double(rows) * cols * dtype_bytes;
  e.axis0_first = reshard_order(mesh, 0, e.tensor_bytes);
  e.axis1_first = reshard_order(mesh, 1, e.tensor_bytes);
  return e;
}

namespace {

// The edge u -> v of a problem, or null.
const IntraProblem::Edge* edge_between(const IntraProblem& p, int u, int v) {
  for (const auto& e : p.edges)
    if (e.u == u && e.v == v) return &e;
  return nullptr;
}

}  // namespace

ChainDp chain_dp(const IntraProblem& p) {
  ChainDp dp;
  const int nodes = int(p.node_cost.size());
  dp.best.resize(size_t(nodes));
  dp.from.resize(size_t(nodes));
  for (int v = 0; v < nodes; ++v) {
    const int k = p.choices(v);
    dp.best[size_t(v)].assign(size_t(k), std::numeric_limits<double>::infinity());
    dp.from[size_t(v)].assign(size_t(k), -1);
    const IntraProblem::Edge* edge = edge_between(p, v - 1, v);
    for (int j = 0; j < k; ++j) {
      const double own = p.node_cost[size_t(v)][size_t(j)];
      if (v == 0) {
        dp.best[0][size_t(j)] = own;
        continue;
      }
      for (int i = 0; i < p.choices(v - 1); ++i) {
        const double c = dp.best[size_t(v - 1)][size_t(i)] + (edge ? edge->cost[size_t(i * k + j)] : 0.0) + own;
        if (c < dp.best[size_t(v)][size_t(j)]) {
          dp.best[size_t(v)][size_t(j)] = c;
          dp.from[size_t(v)][size_t(j)] = i;
        }
      }
    }
  }
  if (nodes == 0) return dp;
  const auto& last = dp.best.back();
  int j = int(std::min_element(last.begin(), last.end()) - last.begin());
  dp.objective = last[size_t(j)];
  dp.choice.assign(size_t(nodes), 0);
  for (int v = nodes - 1; v >= 0; --v) {
    dp.choice[size_t(v)] = j;
    j = dp.from[size_t(v)][size_t(j)];
  }
  return dp;
}

double ChainDpExercise::row_min(int v) const {
  const auto& row = dp.best[size_t(v)];
  return *std::min_element(row.begin(), row.end());
}

Result<ChainDpExercise> chain_dp_exercise(const Cluster& cluster, const std::string& mesh) {
  auto g = load_model("transformer-chain");
  if (!g.ok()) return g.error();
  auto shape = parse_mesh_shape(mesh, "mesh");
  if (!shape.ok()) return shape.error();
  auto m = mesh_from_cluster(shape.value().first, shape.value().second, cluster);
  if (!m.ok()) return m.error();
  // The problem plan_intra_op would solve, solved by the core's chain DP: a 5-op chain, quick,
  // and no ILP (the page does not link GLPK).
  IntraOpOptions o;
  o.solver = "dp";
  const IntraOpPlan plan = intra_op_problem(g.value(), m.value(), o, 0, 0);
  const IntraProblem& p = plan.problem;
  if (!is_chain(p)) return make_error(ErrorCode::not_a_chain, "the problem is not a chain");
  auto core = solve_chain_dp(p);
  if (!core.ok()) return core.error();
  ChainDpExercise e;
  e.dp = chain_dp(p);
  e.cost = p.node_cost;
  for (int v = 0; v < int(p.node_cost.size()); ++v) {
    const IntraProblem::Edge* edge = v > 0 ? edge_between(p, v - 1, v) : nullptr;
    e.reshard.push_back(edge ? edge->cost : std::vector<double>(v > 0 ? size_t(p.choices(v - 1) * p.choices(v)) : 0, 0.0));
  }
  for (size_t v = 0; v < g.value().ops.size(); ++v) {
    e.ops.push_back(g.value().ops[v].name());
    std::vector<std::string> names;
    for (const auto& s : plan.strategies[v]) names.push_back(s.name);
    e.strategy_names.push_back(names);
  }
  const double objective = core.value().objective;
  if (std::fabs(e.dp.objective - objective) > 1e-9 * std::max(1.0, objective))
    return make_error(ErrorCode::internal, "the exercise's DP (" + fmt("%.6g ms", e.dp.objective) + ") differs from the core's chain DP (" +
                                               fmt("%.6g ms", objective) + ")");
  return e;
}

StageCostTable small_stage_table(const std::array<float, 4>& layer_ms) {
  StageCostTable t;
  t.reset(4, 1, 2, alpa_submeshes(1, 2));
  for (int first = 0; first < 4; ++first)
    for (int last = first; last < 4; ++last) {
      double sum = 0;
      for (int l = first; l <= last; ++l) sum += layer_ms[size_t(l)];
      for (size_t m = 0; m < t.submeshes.size(); ++m) {
        t.latency[t.index(first, last, int(m))] = t.submeshes[m].devices() == 1 ? sum : 0.6 * sum;
        t.logical_mesh[t.index(first, last, int(m))] = t.submeshes[m].devices() == 1 ? "1x1" : "1x2";
      }
    }
  return t;
}

namespace {

// The best stages for one t_max: F[k][d], the least sum of latencies for layers k.. on d
// devices with every stage <= t_max, and the stages it picks (empty when infeasible).
double best_stages_under(const StageCostTable& t, double tmax, std::vector<TmaxStage>& stages) {
  const double inf = std::numeric_limits<double>::infinity();
  const int devices = t.nodes * t.gpus_per_node;
  std::vector<std::vector<double>> f(size_t(t.layers + 1), std::vector<double>(size_t(devices + 1), inf));
  std::vector<std::vector<std::pair<int, int>>> pick(size_t(t.layers + 1), std::vector<std::pair<int, int>>(size_t(devices + 1), {-1, -1}));
  f[size_t(t.layers)][0] = 0;
  for (int k = t.layers - 1; k >= 0; --k)
    for (int d = 1; d <= devices; ++d)
      for (int last = k; last < t.layers; ++last)
        for (size_t m = 0; m < t.submeshes.size(); ++m) {
          const int need = t.submeshes[m].devices();
          const double lat = t.latency[t.index(k, last, int(m))];
          if (need > d || !std::isfinite(lat) || lat > tmax) continue;
          const double c = lat + f[size_t(last + 1)][size_t(d - need)];
          if (c < f[size_t(k)][size_t(d)]) {
            f[size_t(k)][size_t(d)] = c;
            pick[size_t(k)][size_t(d)] = {last, int(m)};
          }
        }
  const double sum = f[0][size_t(devices)];
  if (std::isfinite(sum)) {
    int k = 0, d = devices;
    while (k < t.layers) {
      const auto [last, m] = pick[size_t(k)][size_t(d)];
      stages.push_back({k, last, t.submeshes[size_t(m)].devices()});
      d -= t.submeshes[size_t(m)].devices();
      k = last + 1;
    }
  }
  return sum;
}

}  // namespace

std::vector<TmaxStep> tmax_walk(const StageCostTable& t, int microbatches) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> candidates;
  for (double l : t.latency)
    if (std::isfinite(l)) candidates.push_back(l);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<TmaxStep> steps;
  double best_total = inf;
  for (double tmax : candidates) {
    TmaxStep s;
    s.t_max = tmax;
    if ((microbatches - 1) * tmax >= best_total) {
      s.stopped = true;
      s.sum_ms = inf;
      s.total_ms = inf;
      steps.push_back(s);
      break;
    }
    s.sum_ms = best_stages_under(t, tmax, s.stages);
    s.total_ms = std::isfinite(s.sum_ms) ? s.sum_ms + (microbatches - 1) * tmax : inf;
    best_total = std::min(best_total, s.total_ms);
    steps.push_back(s);
  }
  return steps;
}

TmaxExercise tmax_exercise(const std::array<float, 4>& layer_ms, int microbatches) {
  TmaxExercise e;
  const StageCostTable table = small_stage_table(layer_ms);
  for (int first = 0; first < table.layers; ++first)
    for (int last = first; last < table.layers; ++last) {
      TmaxExercise::StageLatency s;
      s.first = first;
      s.last = last;
      for (size_t m = 0; m < table.submeshes.size(); ++m)
        (table.submeshes[m].devices() == 1 ? s.one_gpu_ms : s.two_gpus_ms) = table.latency[table.index(first, last, int(m))];
      e.latencies.push_back(s);
    }
  e.steps = tmax_walk(table, microbatches);
  e.best_total_ms = std::numeric_limits<double>::infinity();
  for (const auto& s : e.steps) e.best_total_ms = std::min(e.best_total_ms, s.total_ms);
  auto core = solve_inter_op(table, microbatches);
  e.core_solved = core.ok();
  if (core.ok()) e.core = core.value();
  return e;
}

double DlrmExercise::speedup() const {
  return data_parallel.makespan_ms > 0 && expert.makespan_ms > 0 ? data_parallel.makespan_ms / expert.makespan_ms : 0.0;
}

Result<DlrmExercise> dlrm_exercise(const std::string& cluster_key) {
  auto g = load_model("dlrm");
  if (!g.ok()) return g.error();
  auto c = load_cluster(cluster_key);
  if (!c.ok()) return c.error();
  DlrmExercise e;
  for (const char* name : {"dp", "expert"}) {
    auto s = load_strategy(name, g.value(), c.value());
    if (!s.ok()) return s.error();
    SimulateRequest request;
    request.strategy = s.value();
    (std::string(name) == "dp" ? e.data_parallel : e.expert) = simulate_operation(g.value(), c.value(), request).summary;
  }
  return e;
}

double additive_cost_ms(const SimSummary& s) { return s.compute_ms + s.activation_transfer_ms + s.param_sync_ms; }

}  // namespace autopar
