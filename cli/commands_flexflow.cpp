// CLI commands of the FlexFlow half (INTERFACES.md): space, simulate, search, exhaustive,
// accuracy and the conv1d demo.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "accuracy.h"
#include "cluster_spec.h"
#include "commands.h"
#include "conv1d_demo.h"
#include "mcmc.h"
#include "models.h"
#include "simulator.h"
#include "trace_export.h"

namespace autopar::cli {
namespace {

Result<Graph> model_of(const Args& a) {
  auto m = a.get("model");
  if (!m) return make_error("missing_argument", "give a model with --model NAME[:key=value,...] or --model FILE.json", "--model");
  return load_model(*m);
}

Result<Cluster> cluster_of(const Args& a) { return load_cluster(a.get("cluster").value_or("lecture:2x4")); }

// Parses a whole number option within [lo, hi].
Result<int64_t> int_option(const Args& a, const std::string& key, int64_t fallback, int64_t lo, int64_t hi) {
  auto v = a.get(key);
  if (!v) return fallback;
  const std::string& s = *v;
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos)
    return make_error("bad_value", "--" + key + " needs a whole number, not '" + s + "'", "--" + key);
  int64_t x = std::stoll(s);
  if (x < lo || x > hi)
    return make_error("out_of_range", "--" + key + " is " + s + "; it must be between " + std::to_string(lo) + " and " + std::to_string(hi), "--" + key);
  return x;
}

// Parses a finite number option within [lo, hi].
Result<double> number_option(const Args& a, const std::string& key, double fallback, double lo, double hi) {
  auto v = a.get(key);
  if (!v) return fallback;
  char* end = nullptr;
  double x = std::strtod(v->c_str(), &end);
  if (v->empty() || *end != '\0' || !std::isfinite(x))
    return make_error("bad_value", "--" + key + " needs a number, not '" + *v + "'", "--" + key);
  if (x < lo || x > hi) {
    std::ostringstream m;
    m << "--" << key << " is " << *v << "; it must be between " << lo << " and " << hi;
    return make_error("out_of_range", m.str(), "--" + key);
  }
  return x;
}

Status write_file(const std::string& path, const std::string& text, const std::string& option) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return make_error("io", "cannot write '" + path + "'; check the folder exists and is writable", option);
  out << text;
  return out.good() ? Status(Ok{}) : Status(make_error("io", "writing '" + path + "' failed", option));
}


// The breakdown of a simulated timeline, as `simulate` prints it.
Json summary_json(const SimSummary& s, const Cluster& c) {
  return Json{{"makespan_ms", s.makespan_ms},
              {"compute_ms", s.compute_ms},
              {"activation_transfer_ms", s.activation_transfer_ms},
              {"param_sync_ms", s.param_sync_ms},
              {"activation_bytes", s.activation_bytes},
              {"param_sync_bytes", s.param_sync_bytes},
              {"tasks", s.tasks},
              {"peak_memory_bytes", s.peak_memory_bytes},
              {"memory_capacity_bytes", c.gpu.memory_capacity_bytes()},
              {"over_capacity_devices", s.over_capacity_devices}};
}

std::string summary_text(const SimSummary& s, const Cluster& c) {
  std::ostringstream t;
  t << "makespan            " << fmt("%.3f", s.makespan_ms) << " ms\n"
    << "compute (sum)       " << fmt("%.3f", s.compute_ms) << " ms\n"
    << "activation transfer " << fmt("%.3f", s.activation_transfer_ms) << " ms, " << si(s.activation_bytes) << "B\n"
    << "parameter sync      " << fmt("%.3f", s.param_sync_ms) << " ms, " << si(s.param_sync_bytes) << "B\n"
    << "tasks               " << s.tasks << "\n"
    << "peak memory         " << si(double(s.peak_memory_bytes)) << "B of " << si(c.gpu.memory_capacity_bytes()) << "B per GPU"
    << (s.over_capacity_devices ? " (" + std::to_string(s.over_capacity_devices) + " GPUs over capacity!)" : "") << "\n";
  return t.str();
}

std::string strategy_text(const Graph& g, const Strategy& s) {
  std::ostringstream t;
  t << pad("op", 12) << pad("degrees", 34) << "devices\n";
  for (size_t i = 0; i < g.ops.size(); ++i) {
    std::string deg;
    for (size_t j = 0; j < g.ops[i].split_dims.size(); ++j)
      if (s.ops[i].degrees[j] > 1) deg += (deg.empty() ? "" : " ") + g.ops[i].split_dims[j].name + "=" + std::to_string(s.ops[i].degrees[j]);
    std::string devs;
    for (int d : s.ops[i].devices) devs += (devs.empty() ? "" : ",") + std::to_string(d);
    t << pad(g.ops[i].name(), 12) << pad(deg.empty() ? "whole" : deg, 34) << devs << "\n";
  }
  return t.str();
}

Result<Output> space_command(const Args& a) {
  auto g = model_of(a);
  if (!g.ok()) return g.error();
  auto c = cluster_of(a);
  if (!c.ok()) return c.error();
  SpaceSize s = count_space(g.value(), c.value().num_devices());
  Output out;
  Json ops = Json::array();
  std::ostringstream t;
  t << pad("op", 12) << pad("configs", 9, true) << pad("uneven", 8, true) << "  split dims (sizes)\n";
  int64_t uneven_total = 0;
  for (size_t i = 0; i < g.value().ops.size(); ++i) {
    const Op& op = g.value().ops[i];
    ops.push_back(Json{{"name", op.name()}, {"configs", s.configs_per_op[i]}, {"uneven_configs", s.uneven_configs_per_op[i]}});
    uneven_total += s.uneven_configs_per_op[i];
    std::string dims;
    for (const SplitDim& d : op.split_dims) dims += (dims.empty() ? "" : " ") + d.name + "(" + std::to_string(d.size) + ")";
    t << pad(op.name(), 12) << pad(group_digits(s.configs_per_op[i]), 9, true) << pad(group_digits(s.uneven_configs_per_op[i]), 8, true) << "  "
      << dims << "\n";
  }
  // How a dimension that the degrees do not divide is counted (the lecture's sizes all divide).
  const std::string rule =
      "each split dimension takes the power-of-two degrees that divide it, the product dividing the device count; the sample "
      "dimension (the batch) also takes those up to its size that do not divide it, each counted once like an even one and "
      "split into balanced parts (sizes differ by at most one element, the largest part bounds time and memory)";
  out.json = Json{{"ops", ops}, {"strategies", s.strategies}, {"log10_strategies", s.log10_strategies},
                  {"uneven_configs", uneven_total}, {"uneven_rule", rule}};
  t << "strategies: " << (s.strategies.size() <= 15 ? group_digits(std::stoll(s.strategies)) : fmt("%.3g", std::pow(10.0, s.log10_strategies)))
    << " (10^" << fmt("%.2f", s.log10_strategies) << ") on " << c.value().num_devices() << " devices\n";
  t << "counting: " << rule << (uneven_total ? "" : "; here every degree divides its dimension") << "\n";
  out.text = t.str();
  return out;
}

Result<Output> simulate_command(const Args& a) {
  auto g = model_of(a);
  if (!g.ok()) return g.error();
  auto c = cluster_of(a);
  if (!c.ok()) return c.error();
  auto s = load_strategy(a.get("strategy").value_or("dp"), g.value(), c.value());
  if (!s.ok()) return s.error();
  CostSettings cost;
  if (a.has("calibrated")) cost.mode = CostMode::calibrated;
  if (a.get("fine")) {
    auto seed = int_option(a, "fine", 0, 0, int64_t(1) << 53);
    if (!seed.ok()) return seed.error();
    cost.mode = CostMode::fine;
    cost.jitter_seed = uint64_t(seed.value());
  }
  TaskGraph tg(g.value(), c.value(), s.value(), cost);
  double makespan = simulate_full(tg);
  SimSummary sum = summarize(tg);
  if (auto path = a.get("trace"))
    if (auto st = write_file(*path, perfetto_trace(tg).dump() + "\n", "--trace"); !st.ok()) return st.error();
  if (auto path = a.get("taskgraph"))
    if (auto st = write_file(*path, task_graph_json(tg, makespan).dump(1) + "\n", "--taskgraph"); !st.ok()) return st.error();
  Output out;
  out.json = summary_json(sum, c.value());
  out.json["cost_model"] = cost.mode == CostMode::ideal ? "ideal" : cost.mode == CostMode::calibrated ? "calibrated" : "fine";
  out.json["strategy"] = strategy_to_json(g.value(), s.value());
  out.text = summary_text(sum, c.value()) + "\n" + strategy_text(g.value(), s.value());
  return out;
}

Result<Output> search_command(const Args& a) {
  auto g = model_of(a);
  if (!g.ok()) return g.error();
  auto c = cluster_of(a);
  if (!c.ok()) return c.error();
  SearchOptions o;
  auto beta = number_option(a, "beta", 500, 0, 1e9);
  if (!beta.ok()) return beta.error();
  auto steps = int_option(a, "steps", 2000, 1, 100000000);
  if (!steps.ok()) return steps.error();
  auto budget = number_option(a, "budget-ms", 0, 0, 1e9);
  if (!budget.ok()) return budget.error();
  auto seed = int_option(a, "seed", 1, 0, int64_t(1) << 53);
  if (!seed.ok()) return seed.error();
  o.beta = beta.value();
  o.steps = steps.value();
  o.budget_ms = budget.value();
  o.seed = uint64_t(seed.value());
  o.full_sim = a.has("full-sim");
  std::string init = a.get("init").value_or("dp");
  if (init == "random") init = "random:" + std::to_string(o.seed);
  if (init != "dp" && init != "expert" && init != "mp" && init.rfind("random:", 0) != 0 && init.find(".json") == std::string::npos)
    return make_error("bad_value", "--init must be dp, expert, random or a strategy file, not '" + init + "'", "--init");
  auto s = load_strategy(init, g.value(), c.value(), "--init");
  if (!s.ok()) return s.error();
  double elapsed_ms = 0;
  SearchResult r = run_search(g.value(), c.value(), s.value(), o, &elapsed_ms);
  // Proposals per second of searching: building the search (every op's configurations, the first
  // task graph) is left out, so the rate compares the two simulators (elapsed_ms includes it).
  const double search_ms = elapsed_ms - r.setup_ms;
  const double evals_per_s = search_ms > 0 ? double(r.steps) / (search_ms / 1000.0) : 0.0;
  TaskGraph best(g.value(), c.value(), r.best);
  simulate_full(best);
  SimSummary sum = summarize(best);
  Output out;
  Json history = Json::array();
  for (const auto& [step, ms] : r.history) history.push_back(Json::array({step, ms}));
  out.json = Json{{"best_ms", r.best_ms},
                  {"init_ms", r.init_ms},
                  {"steps", r.steps},
                  {"accepted", r.accepted},
                  {"evals_per_s", evals_per_s},
                  {"elapsed_ms", elapsed_ms},
                  {"simulation", o.full_sim ? "full" : "delta"},
                  {"breakdown", summary_json(sum, c.value())},
                  {"strategy", strategy_to_json(g.value(), r.best)},
                  {"history", history}};
  std::ostringstream t;
  t << "MCMC: " << r.steps << " proposals, " << r.accepted << " accepted, beta " << o.beta << ", "
    << (o.full_sim ? "full" : "delta") << " simulation, " << fmt("%.0f", evals_per_s) << " evaluations/s\n"
    << "initial " << init << ": " << fmt("%.3f", r.init_ms) << " ms -> best " << fmt("%.3f", r.best_ms) << " ms ("
    << fmt("%.2f", r.init_ms / r.best_ms) << "x)\n\n"
    << summary_text(sum, c.value()) << "\n" << strategy_text(g.value(), r.best);
  out.text = t.str();
  return out;
}

Result<Output> exhaustive_command(const Args& a) {
  auto g = model_of(a);
  if (!g.ok()) return g.error();
  auto c = cluster_of(a);
  if (!c.ok()) return c.error();
  auto r = exhaustive_search(g.value(), c.value());
  if (!r.ok()) return r.error();
  Output out;
  out.json = Json{{"best_ms", r.value().best_ms}, {"strategies_evaluated", r.value().strategies_evaluated},
                  {"strategy", strategy_to_json(g.value(), r.value().best)}};
  out.text = "optimum " + fmt("%.4f", r.value().best_ms) + " ms over " + group_digits(r.value().strategies_evaluated) +
             " strategies\n\n" + strategy_text(g.value(), r.value().best);
  return out;
}

Result<Output> accuracy_command(const Args& a) {
  auto g = model_of(a);
  if (!g.ok()) return g.error();
  auto c = cluster_of(a);
  if (!c.ok()) return c.error();
  auto samples = int_option(a, "samples", 300, 2, 100000);
  if (!samples.ok()) return samples.error();
  auto seed = int_option(a, "seed", 1, 0, int64_t(1) << 53);
  if (!seed.ok()) return seed.error();
  CostMode mode = a.has("calibrated") ? CostMode::calibrated : CostMode::ideal;
  AccuracyResult r = accuracy_study(g.value(), c.value(), int(samples.value()), uint64_t(seed.value()), mode);
  Output out;
  Json points = Json::array();
  for (const auto& p : r.points) points.push_back(Json::array({p.simulated_ms, p.real_ms}));
  out.json = Json{{"samples", r.samples},
                  {"simulator", mode == CostMode::ideal ? "ideal" : "calibrated"},
                  {"mean_rel_error", r.mean_rel_error},
                  {"max_rel_error", r.max_rel_error},
                  {"kendall_tau", r.kendall_tau},
                  {"top_kendall_tau", r.top_kendall_tau},
                  {"top_count", r.top_count},
                  {"sim_best_true_rank", r.sim_best_true_rank},
                  {"points", points}};
  std::ostringstream t;
  t << (mode == CostMode::ideal ? "ideal" : "calibrated") << " simulator vs the fine model on " << r.samples << " random strategies\n"
    << "mean relative error  " << fmt("%.1f", 100 * r.mean_rel_error) << " %\n"
    << "max relative error   " << fmt("%.1f", 100 * r.max_rel_error) << " %\n"
    << "Kendall tau (all)    " << fmt("%.3f", r.kendall_tau) << "\n"
    << "Kendall tau (best " << r.top_count << ") " << fmt("%.3f", r.top_kendall_tau) << "\n"
    << "true rank of the simulator's favourite: " << r.sim_best_true_rank << "\n";
  out.text = t.str();
  return out;
}

Result<Output> conv1d_command(const Args& a) {
  auto gpus = int_option(a, "gpus", 4, 1, 64);
  if (!gpus.ok()) return gpus.error();
  auto g = load_model(a.get("model").value_or("conv1d"));
  if (!g.ok()) return g.error();
  auto splits = conv1d_splits(g.value(), int(gpus.value()));
  if (!splits.ok()) return splits.error();
  Output out;
  Json list = Json::array();
  std::ostringstream t;
  t << pad("split", 34) << pad("input/dev", 10, true) << pad("halo/dev", 10, true) << pad("weight/dev", 11, true)
    << pad("sync", 7, true) << pad("max |diff|", 12, true) << "\n";
  for (const Conv1dSplit& s : splits.value()) {
    list.push_back(Json{{"name", s.name},
                        {"degrees", Json{{"sample", s.sample}, {"attribute", s.attribute}, {"parameter", s.parameter}}},
                        {"input_elements_per_device", s.input_elements_per_device},
                        {"weight_elements_per_device", s.weight_elements_per_device},
                        {"halo_elements_per_device", s.halo_elements_per_device},
                        {"output_elements_per_device", s.output_elements_per_device},
                        {"sync_elements", s.sync_elements},
                        {"max_abs_diff", s.max_abs_diff}});
    t << pad(s.name, 34) << pad(group_digits(s.input_elements_per_device), 10, true) << pad(group_digits(s.halo_elements_per_device), 10, true)
      << pad(group_digits(s.weight_elements_per_device), 11, true) << pad(group_digits(s.sync_elements), 7, true)
      << pad(fmt("%.2e", s.max_abs_diff), 12, true) << "\n";
  }
  out.json = Json{{"model", g.value().name()}, {"gpus", gpus.value()}, {"splits", list}};
  out.text = t.str();
  return out;
}

}  // namespace

std::vector<Command> flexflow_commands() {
  const std::set<std::string> mc{"model", "cluster"};
  auto with = [&](std::set<std::string> more) {
    more.insert(mc.begin(), mc.end());
    return more;
  };
  return {
      {"space", "count the SOAP configurations per op and the strategies in all", "--model M --cluster C", {mc, {}}, space_command},
      {"simulate", "simulate one strategy: makespan and breakdown", "--model M --cluster C --strategy S",
       {with({"strategy", "fine", "trace", "taskgraph"}), {"calibrated"}}, simulate_command},
      {"search", "MCMC search for a fast strategy", "--model M --cluster C --beta B --steps N --seed S",
       {with({"beta", "steps", "budget-ms", "seed", "init"}), {"full-sim"}}, search_command},
      {"exhaustive", "simulate every strategy of a small space", "--model M --cluster C", {mc, {}}, exhaustive_command},
      {"accuracy", "compare the simulator with the finer execution model", "--model M --cluster C --samples N",
       {with({"samples", "seed"}), {"calibrated"}}, accuracy_command},
      {"conv1d", "the lecture's 1-D convolution split six ways, checked numerically", "--gpus 4", {{"gpus", "model"}, {}}, conv1d_command},
  };
}

}  // namespace autopar::cli
