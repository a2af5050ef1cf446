// `autopar bench`: simulator, delta-simulation and search throughput, and how evaluation cost
// grows with devices and ops. Wall-clock figures (named *_per_s, as INTERFACES.md asks); run
// on a quiet machine and compare ratios from one run.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "bench_planner.h"
#include "cluster_spec.h"
#include "inter_op.h"
#include "intra_op.h"
#include "commands.h"
#include "mcmc.h"
#include "model_on_cluster.h"
#include "models.h"
#include "simulator.h"
#include "soap.h"
#include "strategy_argument.h"

namespace autopar::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Calls per second of wall time and per second of the process's CPU time, from one run of
// `fn` for at least `min_seconds` of wall time. On a shared machine the CPU time is the steadier
// figure (another process's turns on the core are not counted).
struct Rates { double wall, cpu; };
template <class Fn>
Rates rates(double min_seconds, Fn fn) {
  int64_t calls = 0;
  const std::clock_t cpu_start = std::clock();
  const auto start = Clock::now();
  double elapsed = 0;
  do {
    for (int i = 0; i < 16; ++i) fn();
    calls += 16;
    elapsed = seconds_since(start);
  } while (elapsed < min_seconds);
  const double cpu = double(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  return {double(calls) / elapsed, cpu > 0 ? double(calls) / cpu : 0};
}

// Repeats `fn` until at least `min_seconds` passed; returns calls per second of wall time.
template <class Fn>
double rate(double min_seconds, Fn fn) { return rates(min_seconds, fn).wall; }

// Full simulations per second (task graph built and simulated) and simulations per second of
// an already built graph, for one named strategy.
Json simulate_rates(const ModelOnCluster& s, const std::string& strategy, double seconds, std::ostringstream& t) {
  Strategy st = load_strategy(strategy, s.graph, s.cluster).value();
  double fresh = rate(seconds, [&] { TaskGraph tg(s.graph, s.cluster, st); simulate_full(tg); });
  TaskGraph built(s.graph, s.cluster, st);
  // What a search does: rebuild the task graph of the strategy in reused storage, simulate.
  double full = rate(seconds, [&] { built.rebuild(st); simulate_full(built); });
  double sim_only = rate(seconds, [&] { simulate_full(built); });
  char line[240];
  std::snprintf(line, sizeof line,
                "  %-9s %5d tasks  build+simulate %7.1f us = %.2fx simulate only (%7.1f us in a new graph)   simulate only %7.1f us\n",
                strategy.c_str(), built.live_count(), 1e6 / full, sim_only / full, 1e6 / fresh, 1e6 / sim_only);
  t << line;
  return Json{{"strategy", strategy}, {"tasks", built.live_count()}, {"full_simulations_per_s", full},
              {"full_simulations_in_new_graph_per_s", fresh}, {"simulations_of_built_graph_per_s", sim_only},
              {"build_and_simulate_over_simulate", sim_only / full}};
}

// Single-op moves: delta simulation (with undo, as MCMC rejects) against building and
// simulating each moved strategy from scratch.
Json delta_rates(const ModelOnCluster& s, double seconds, std::ostringstream& t) {
  const int n = s.cluster.num_devices();
  std::vector<std::vector<OpConfig>> space;
  for (const Op& op : s.graph.ops) space.push_back(enumerate_configs(op, n));
  Strategy base = random_strategy(s.graph, n, 7);
  DeltaSimulator delta(s.graph, s.cluster, base);
  Rng rng_d(3), rng_f(3);
  auto move = [&](Rng& rng) {
    int op = int(rng.below(space.size()));
    return std::make_pair(op, &space[size_t(op)][size_t(rng.below(space[size_t(op)].size()))]);
  };
  // How much of the timeline a move reaches: the tasks delta simulation recomputed, over the live ones.
  double recomputed = 0, live = 0;
  double delta_rate = rate(seconds, [&] {
    auto [op, cfg] = move(rng_d);
    delta.set_config(op, *cfg);
    recomputed += delta.last_recomputed();
    live += delta.live_count();
    delta.undo();
  });
  double full_rate = rate(seconds, [&] {
    auto [op, cfg] = move(rng_f);
    Strategy s2 = base;
    s2.ops[size_t(op)] = *cfg;
    TaskGraph tg(s.graph, s.cluster, s2);
    simulate_full(tg);
  });
  // A stronger baseline: rebuilding in reused storage.
  TaskGraph full_tg(s.graph, s.cluster, base);
  Rng rng_r(3);
  double rebuild_rate = rate(seconds, [&] {
    auto [op, cfg] = move(rng_r);
    Strategy s2 = base;
    s2.ops[size_t(op)] = *cfg;
    full_tg.rebuild(s2);
    simulate_full(full_tg);
  });
  // The whole search, as `search` and `search --full-sim` run it (the shared check's settings:
  // dp start, beta 500, 4,000 steps, seed 3): proposals per second of search time each way.
  auto search_rate = [&](bool full_sim, double* best_ms) {
    SearchOptions o;
    o.beta = 500;
    o.steps = 4000;
    o.seed = 3;
    o.full_sim = full_sim;
    double elapsed_ms = 0;
    SearchResult r = run_search(s.graph, s.cluster, load_strategy("dp", s.graph, s.cluster).value(), o, &elapsed_ms);
    *best_ms = r.best_ms;
    return double(r.steps) / ((elapsed_ms - r.setup_ms) / 1000);
  };
  double best_delta = 0, best_full = 0;
  const double search_delta = search_rate(false, &best_delta);
  const double search_full = search_rate(true, &best_full);
  char line[320];
  std::snprintf(line, sizeof line,
                "  single-op moves: delta %.0f moves/s vs full %.0f/s = %.2fx (vs rebuilding in reused storage %.0f/s: %.2fx); a move recomputes %.0f%% of the tasks\n"
                "  search (dp, beta 500, 4,000 steps, seed 3): delta %.0f proposals/s vs --full-sim %.0f/s = %.2fx, same best: %s\n",
                delta_rate, full_rate, delta_rate / full_rate, rebuild_rate, delta_rate / rebuild_rate, 100 * recomputed / live, search_delta,
                search_full, search_delta / search_full, best_delta == best_full ? "yes" : "no");
  t << line;
  return Json{{"delta_moves_per_s", delta_rate}, {"full_moves_per_s", full_rate}, {"speedup", delta_rate / full_rate},
              {"rebuild_moves_per_s", rebuild_rate}, {"speedup_vs_rebuild", delta_rate / rebuild_rate},
              {"recomputed_share", recomputed / live}, {"search_delta_proposals_per_s", search_delta},
              {"search_full_proposals_per_s", search_full}, {"search_speedup", search_delta / search_full},
              {"search_same_best", best_delta == best_full}};
}

// Issue 40's large graph: transformer:layers=24 on lecture:4x8 (18,496 tasks under data
// parallel), or on another cluster. Single-op moves from data parallel (each undone, as MCMC
// rejects most) against a new task graph built and simulated per move, and with `search` the
// search itself both ways (dp start, beta 500, seed 1, 300 steps: --full-sim takes seconds per
// hundred proposals here).
Json bench_large_delta(double seconds, std::ostringstream& t, const char* cluster = "lecture:4x8", bool search = true) {
  const char* model = "transformer:layers=24";
  auto loaded = load_model_on_cluster(model, cluster);
  const ModelOnCluster& s = loaded.value();
  const int n = s.cluster.num_devices();
  std::vector<std::vector<OpConfig>> space;
  for (const Op& op : s.graph.ops) space.push_back(enumerate_configs(op, n));
  const Strategy base = load_strategy("dp", s.graph, s.cluster).value();
  DeltaSimulator delta(s.graph, s.cluster, base);
  Rng rng_d(3), rng_f(3);
  auto move = [&](Rng& rng) {
    int op = int(rng.below(space.size()));
    return std::make_pair(op, &space[size_t(op)][size_t(rng.below(space[size_t(op)].size()))]);
  };
  double recomputed = 0, live = 0;
  const Rates delta_rates = rates(seconds, [&] {
    auto [op, cfg] = move(rng_d);
    delta.set_config(op, *cfg);
    recomputed += delta.last_recomputed();
    live += delta.live_count();
    delta.undo();
  });
  const Rates full_rates = rates(seconds, [&] {
    auto [op, cfg] = move(rng_f);
    Strategy s2 = base;
    s2.ops[size_t(op)] = *cfg;
    TaskGraph tg(s.graph, s.cluster, s2);
    simulate_full(tg);
  });
  const double delta_rate = delta_rates.wall, full_rate = full_rates.wall;
  auto search_rate = [&](bool full_sim, double* best_ms) {
    SearchOptions o;
    o.beta = 500;
    o.steps = 300;
    o.seed = 1;
    o.full_sim = full_sim;
    o.stop_when_stalled = false;
    double elapsed_ms = 0;
    SearchResult r = run_search(s.graph, s.cluster, base, o, &elapsed_ms);
    *best_ms = r.best_ms;
    return double(r.steps) / ((elapsed_ms - r.setup_ms) / 1000);
  };
  char line[600];
  std::snprintf(line, sizeof line,
                "delta vs full simulation on %s, %s (%d tasks under dp; targets on lecture:4x8: at least 5x and 2,000 evaluations/s)\n"
                "  single-op moves from dp: delta %.0f moves/s vs full %.0f/s = %.2fx; per second of CPU time %.0f vs %.0f = %.2fx;"
                " a move recomputes %.0f%% of the tasks\n",
                model, cluster, delta.live_count(), delta_rate, full_rate, delta_rate / full_rate, delta_rates.cpu, full_rates.cpu,
                delta_rates.cpu / full_rates.cpu, 100 * recomputed / live);
  t << line;
  Json out{{"model", model}, {"cluster", cluster}, {"tasks", delta.live_count()}, {"delta_moves_per_s", delta_rate},
           {"full_moves_per_s", full_rate}, {"speedup", delta_rate / full_rate}, {"delta_moves_per_cpu_s", delta_rates.cpu},
           {"full_moves_per_cpu_s", full_rates.cpu}, {"speedup_cpu", delta_rates.cpu / full_rates.cpu},
           {"recomputed_share", recomputed / live}};
  if (!search) return out;
  double best_delta = 0, best_full = 0;
  const double search_delta = search_rate(false, &best_delta);
  const double search_full = search_rate(true, &best_full);
  std::snprintf(line, sizeof line, "  search (dp, beta 500, 300 steps, seed 1): delta %.0f proposals/s vs --full-sim %.0f/s = %.2fx, same best: %s\n",
                search_delta, search_full, search_delta / search_full, best_delta == best_full ? "yes" : "no");
  t << line;
  out["search_delta_proposals_per_s"] = search_delta;
  out["search_full_proposals_per_s"] = search_full;
  out["search_speedup"] = search_delta / search_full;
  out["search_same_best"] = best_delta == best_full;
  return out;
}

// Full simulation of AlexNet and DLRM on lecture:2x4, per named strategy.
Result<Json> bench_simulation(double seconds, std::ostringstream& t) {
  t << "full simulation, AlexNet on lecture:2x4 (targets: at most 20 us; dp build+simulate at most 2x simulate only)\n";
  auto alex = load_model_on_cluster("alexnet", "lecture:2x4");
  auto dlrm = load_model_on_cluster("dlrm", "lecture:2x4");
  if (!alex.ok() || !dlrm.ok()) return make_error(ErrorCode::internal, "built-in models failed to load", "");
  Json sim = Json::object();
  for (const char* st : {"dp", "expert", "random:1"}) sim["alexnet_2x4"].push_back(simulate_rates(alex.value(), st, seconds, t));
  t << "full simulation, DLRM on lecture:2x4 (target: at most 60 us)\n";
  for (const char* st : {"dp", "expert", "random:1"}) sim["dlrm_2x4"].push_back(simulate_rates(dlrm.value(), st, seconds, t));
  return sim;

}

// Delta against full simulation, per cluster size.
Json bench_delta(double seconds, std::ostringstream& t) {
  t << "delta vs full simulation per cluster size, single-op moves and the whole search (targets: at least 3x on DLRM 16x8 moves and the 4x8 search)\n";
  Json delta = Json::object();
  for (const char* c : {"lecture:2x4", "lecture:4x8", "lecture:16x8"}) {
    auto s = load_model_on_cluster("dlrm", c);
    t << " DLRM " << c << ":\n";
    delta[std::string("dlrm_") + c] = delta_rates(s.value(), seconds, t);
  }
  return delta;

}

// MCMC proposals per second.
Json bench_mcmc(std::ostringstream& t) {
  t << "MCMC proposals per second (target: at least 20,000 on AlexNet 2x4)\n";
  Json mcmc = Json::object();
  for (const char* m : {"alexnet", "dlrm"}) {
    auto s = load_model_on_cluster(m, "lecture:2x4");
    SearchOptions o;
    o.steps = 20000;
    o.stop_when_stalled = false;
    double elapsed_ms = 0;
    SearchResult r = run_search(s.value().graph, s.value().cluster, load_strategy("dp", s.value().graph, s.value().cluster).value(), o, &elapsed_ms);
    double per_s = double(r.steps) / ((elapsed_ms - r.setup_ms) / 1000);   // as `search` reports evals_per_s
    char line[160];
    std::snprintf(line, sizeof line, "  %-8s %8.0f proposals/s (%lld steps, best %.3f ms)\n", m, per_s, (long long)r.steps, r.best_ms);
    t << line;
    mcmc[std::string(m) + "_2x4"] = Json{{"proposals_per_s", per_s}, {"steps", r.steps}};
  }
  return mcmc;

}

// The cost of one evaluation as the devices and the ops grow.
Json bench_scaling(double seconds, std::ostringstream& t) {
  t << "evaluation cost vs devices (AlexNet, random strategies) and ops (transformer layers, 2x4)\n";
  Json scaling = Json::array();
  for (const char* c : {"lecture:1x8", "lecture:4x8", "lecture:16x8"}) {
    auto s = load_model_on_cluster("alexnet", c);
    Strategy st = random_strategy(s.value().graph, s.value().cluster.num_devices(), 5);
    TaskGraph built(s.value().graph, s.value().cluster, st);
    double r = rate(seconds, [&] { TaskGraph tg(s.value().graph, s.value().cluster, st); simulate_full(tg); });
    char line[160];
    std::snprintf(line, sizeof line, "  alexnet %-13s %4d GPUs %6d tasks %9.1f us\n", c, s.value().cluster.num_devices(), built.live_count(), 1e6 / r);
    t << line;
    scaling.push_back(Json{{"model", "alexnet"}, {"cluster", c}, {"gpus", s.value().cluster.num_devices()}, {"ops", s.value().graph.ops.size()},
                           {"tasks", built.live_count()}, {"full_simulations_per_s", r}});
  }
  for (int layers : {2, 8, 32}) {
    std::string m = "transformer:layers=" + std::to_string(layers);
    auto s = load_model_on_cluster(m, "lecture:2x4");
    Strategy st = random_strategy(s.value().graph, 8, 5);
    TaskGraph built(s.value().graph, s.value().cluster, st);
    double r = rate(seconds, [&] { TaskGraph tg(s.value().graph, s.value().cluster, st); simulate_full(tg); });
    char line[160];
    std::snprintf(line, sizeof line, "  %-22s %4zu ops %6d tasks %9.1f us\n", m.c_str(), s.value().graph.ops.size(), built.live_count(), 1e6 / r);
    t << line;
    scaling.push_back(Json{{"model", m}, {"cluster", "lecture:2x4"}, {"gpus", 8}, {"ops", s.value().graph.ops.size()},
                           {"tasks", built.live_count()}, {"full_simulations_per_s", r}});
  }
  return scaling;

}

// Alpa's planners: the chain DP, the ILP's growth, one inter-op plan.
Result<Json> bench_alpa(double seconds, std::ostringstream& t) {
  t << "Alpa planning (targets: chain <= 20 ms, 24-layer ILP <= 2 s, 4x8 inter-op plan <= 5 s)\n";
  Json alpa = Json::object();
  {
    auto s = load_model_on_cluster("transformer-chain", "lecture:2x4");
    DeviceMesh mesh = mesh_from_cluster(2, 4, s.value().cluster).value();
    double per_s = rate(seconds, [&] { plan_intra_op(s.value().graph, mesh, IntraOpOptions{}); });
    char line[160];
    std::snprintf(line, sizeof line, "  transformer-chain 2x4 (chain DP): %.2f ms per plan\n", 1000 / per_s);
    t << line;
    alpa["chain_plans_per_s"] = per_s;
  }
  Json growth = Json::array();
  for (int layers : {1, 4, 12, 24, 48}) {
    auto s = load_model_on_cluster("transformer:layers=" + std::to_string(layers), "lecture:2x4");
    DeviceMesh mesh = mesh_from_cluster(2, 4, s.value().cluster).value();
    auto start = Clock::now();
    auto plan = plan_intra_op(s.value().graph, mesh, [] { IntraOpOptions o; o.solver = "ilp"; return o; }());
    const double solve_s = seconds_since(start);
    if (!plan.ok()) return plan.error();
    char line[200];
    std::snprintf(line, sizeof line, "  ILP transformer:layers=%-3d %4zu ops: %6d variables %6d constraints %9.1f ms\n", layers, s.value().graph.ops.size(),
                  plan.value().solution.variables, plan.value().solution.constraints, solve_s * 1000);
    t << line;
    growth.push_back(Json{{"layers", layers}, {"ops", s.value().graph.ops.size()}, {"variables", plan.value().solution.variables},
                          {"constraints", plan.value().solution.constraints}, {"ilp_solves_per_s", 1 / solve_s}});
  }
  alpa["ilp_growth"] = growth;
  {
    auto s = load_model_on_cluster("transformer:layers=24", "lecture:4x8");
    auto start = Clock::now();
    Graph micro = microbatch_graph(s.value().graph, 32).value();
    InterOpOptions o;
    auto table = stage_costs_from_model(micro, s.value().cluster, o);
    if (!table.ok()) return table.error();
    auto plan = solve_inter_op(table.value(), 32);
    if (!plan.ok()) return plan.error();
    const double secs = seconds_since(start);
    char line[200];
    std::snprintf(line, sizeof line, "  inter-op transformer:layers=24 on 4x8, 32 micro-batches: %.2f s, %zu stages\n", secs, plan.value().stages.size());
    t << line;
    alpa["inter_op_plans_per_s"] = 1 / secs;
  }
  return alpa;
}

Result<Output> bench_command(const Args& a) {
  auto given = number_option(a, "seconds", 0.3);
  const double seconds = given.ok() ? given.value() : 0;
  if (!(seconds > 0 && seconds <= 60))
    return make_error(ErrorCode::bad_value, "--seconds is the minimum time per measurement, between 0 and 60", "--seconds");
  std::ostringstream t;
  Json out;
  if (a.has("large")) {   // only the large-graph delta figures (issue 40), and on twice the GPUs
    out["delta"] = Json{{"transformer_24_lecture:4x8", bench_large_delta(seconds, t)}};
    out["delta"]["transformer_24_lecture:8x8"] = bench_large_delta(seconds, t, "lecture:8x8", false);
    return Output{out, t.str()};
  }
  if (a.has("planner")) {   // only the planner's long sweep (bench_planner.cpp)
    out["planner"] = planner_bench_sweep(t);
    return Output{out, t.str()};
  }
  auto sim = bench_simulation(seconds, t);
  if (!sim.ok()) return sim.error();
  out["simulation"] = sim.value();
  out["delta"] = bench_delta(seconds, t);
  out["delta"]["transformer_24_lecture:4x8"] = bench_large_delta(seconds, t);
  out["mcmc"] = bench_mcmc(t);
  out["scaling"] = bench_scaling(seconds, t);
  auto alpa = bench_alpa(seconds, t);
  if (!alpa.ok()) return alpa.error();
  out["alpa"] = alpa.value();
  out["planner"] = planner_bench_line(t);
  Output o;
  o.json = out;
  o.text = t.str();
  return o;
}

}  // namespace

std::vector<Command> bench_commands() {
  return {{"bench", "measure simulator, delta-simulation, search and planner throughput", "[--seconds S] [--planner] [--large]", {{"seconds"}, {"planner", "large"}},
           bench_command}};
}

}  // namespace autopar::cli
