// The numbers behind the exercises of lecture 15, section 11 (see exercises.h).
#include "exercises.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "device_mesh.h"
#include "page_strings.h"
#include "simulator.h"
#include "soap.h"
#include "strategy_text.h"
#include "task_graph.h"

namespace autopar::web {

LinearSplitNumbers linear_split_numbers(int batch, int in, int out, int sample_degree, int param_degree) {
  LinearSplitNumbers n;
  n.input_elements = int64_t(batch / sample_degree) * in;
  n.weight_elements = int64_t(in) * (out / param_degree);
  n.sync_group = sample_degree;
  n.sync_groups = param_degree;
  n.sync_elements = sample_degree > 1 ? n.weight_elements : 0;
  return n;
}

double acceptance_probability(double current_ms, double proposed_ms, double beta, double scale) {
  return std::min(1.0, std::exp(beta * (current_ms - proposed_ms) / scale));
}

DeltaMove delta_move(const Graph& graph, const Cluster& cluster, const Strategy& strategy, int op) {
  DeltaMove m;
  m.op = op;
  const int n = cluster.num_devices();
  DeltaSimulator ds(graph, cluster, strategy);
  m.old_ms = ds.makespan();
  struct Times { bool live; double start, end; };
  std::vector<Times> before;
  for (const Task& t : ds.task_graph().tasks()) before.push_back({t.live, t.start_ms, t.end_ms});
  // The move: whole on GPU 0, or (when it already is) split by its first dimension over every GPU.
  const auto configs = enumerate_configs(graph.ops[size_t(op)], n);
  OpConfig target;
  target.degrees.assign(strategy.ops[size_t(op)].degrees.size(), 1);
  target.devices = {0};
  if (strategy.ops[size_t(op)] == target) {
    for (const auto& c : configs)
      if (!c.degrees.empty() && c.degrees[0] > 1 && c.parts() == std::min(n, c.degrees[0])) target = c;
  }
  m.move = format_op_config(target);
  m.new_ms = ds.set_config(op, target);
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
  // Lanes: the devices (GPUs and links) that hold a live task, in device order.
  const DeviceTopology& topo = ds.task_graph().topology();
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
  Strategy moved = strategy;
  moved.ops[size_t(op)] = target;
  TaskGraph full(graph, cluster, moved);
  m.full_ms = simulate_full(full);
  return m;
}

ReshardOrder reshard_order(const DeviceMesh& mesh, int first, double tensor_bytes) {
  ReshardOrder r;
  const int second = 1 - first;
  const MeshAxis& a = mesh.axis[first];
  const MeshAxis& b = mesh.axis[second];
  // Before: each device holds 1/(R*C). After gathering along `first`: 1/(size of `second`).
  const double after_first = tensor_bytes / b.size;
  r.first_axis_name = tr_fill(a.crosses_nodes ? "ex.slow_axis" : "ex.fast_axis", {std::to_string(first)});
  r.second_axis_name = tr_fill(b.crosses_nodes ? "ex.slow_axis" : "ex.fast_axis", {std::to_string(second)});
  r.first_bytes = after_first * (a.size - 1) / a.size;
  r.second_bytes = tensor_bytes * (b.size - 1) / b.size;
  r.first_ms = all_gather_cost(a, after_first);
  r.second_ms = all_gather_cost(b, tensor_bytes);
  (first == 0 ? r.slow_axis_bytes : r.fast_axis_bytes) = r.first_bytes;
  (second == 0 ? r.slow_axis_bytes : r.fast_axis_bytes) = r.second_bytes;
  return r;
}

ChainDp chain_dp(const IntraProblem& p) {
  ChainDp dp;
  const int nodes = int(p.node_cost.size());
  dp.best.resize(size_t(nodes));
  dp.from.resize(size_t(nodes));
  for (int v = 0; v < nodes; ++v) {
    const int k = p.choices(v);
    dp.best[size_t(v)].assign(size_t(k), std::numeric_limits<double>::infinity());
    dp.from[size_t(v)].assign(size_t(k), -1);
    const IntraProblem::Edge* edge = nullptr;
    for (const auto& e : p.edges)
      if (e.u == v - 1 && e.v == v) edge = &e;
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

std::vector<TmaxStep> tmax_walk(const StageCostTable& t, int microbatches) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> candidates;
  for (double l : t.latency)
    if (std::isfinite(l)) candidates.push_back(l);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  const int devices = t.nodes * t.gpus_per_node;
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
    // F[k][d]: least sum of latencies for layers k.. on d devices, every stage <= t_max.
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
    s.sum_ms = f[0][size_t(devices)];
    s.total_ms = std::isfinite(s.sum_ms) ? s.sum_ms + (microbatches - 1) * tmax : inf;
    if (std::isfinite(s.sum_ms)) {
      int k = 0, d = devices;
      while (k < t.layers) {
        const auto [last, m] = pick[size_t(k)][size_t(d)];
        char buf[64];
        std::snprintf(buf, sizeof buf, tr(t.submeshes[size_t(m)].devices() == 1 ? "ex.stage_one_gpu" : "ex.stage_gpus"),
                      s.stages.empty() ? "" : tr("ex.list_sep"), k + 1, last + 1, t.submeshes[size_t(m)].devices());
        s.stages += buf;
        d -= t.submeshes[size_t(m)].devices();
        k = last + 1;
      }
    }
    best_total = std::min(best_total, s.total_ms);
    steps.push_back(s);
  }
  return steps;
}

bool parse_answer(const std::string& text, double& value) {
  std::string t;
  for (char c : text)
    if (c != ' ' && c != ',') t += c;
  bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  if (t.empty()) return false;
  char* end = nullptr;
  value = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(value)) return false;
  if (percent) value /= 100.0;
  return true;
}

bool answer_matches(double value, double expected, double rel, double abs_tol) {
  return std::fabs(value - expected) <= std::max(abs_tol, rel * std::fabs(expected));
}

double exercise2_expected(const ExercisesState& ex) {
  return acceptance_probability(ex.ex2_current_ms, ex.ex2_proposed_ms, ex.ex2_beta, ex.ex2_normalize ? ex.ex2_initial_ms : 1.0);
}

}  // namespace autopar::web
