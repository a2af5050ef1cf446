// The FlexFlow half's short operations. See flexflow_operations.h.
#include "flexflow_operations.h"

#include <cmath>
#include <sstream>

#include "report_text.h"
#include "trace_export.h"

namespace autopar {

Json simulation_summary_json(const SimSummary& s, double capacity_bytes) {
  return Json{{"makespan_ms", s.makespan_ms},
              {"compute_ms", s.compute_ms},
              {"activation_transfer_ms", s.activation_transfer_ms},
              {"param_sync_ms", s.param_sync_ms},
              {"activation_bytes", s.activation_bytes},
              {"param_sync_bytes", s.param_sync_bytes},
              {"tasks", s.tasks},
              {"peak_memory_bytes", s.peak_memory_bytes},
              {"memory_capacity_bytes", capacity_bytes},
              {"over_capacity_devices", s.over_capacity_devices},
              {"fits", s.fits},
              {"memory", simulation_memory_json(s, capacity_bytes)}};
}

Json simulation_memory_json(const SimSummary& s, double capacity_bytes) {
  const DeviceMemoryUse& m = s.peak_memory;
  return Json{{"device", s.peak_device},
              {"params_bytes", m.params_bytes},
              {"grads_bytes", m.grads_bytes},
              {"optimizer_bytes", m.optimizer_bytes},
              {"activation_bytes", m.activation_bytes},
              {"total_bytes", m.total_bytes},
              {"capacity_bytes", capacity_bytes},
              {"fits", s.fits},
              {"optimizer", optimizer_name(s.optimizer)},
              {"precision", precision_name(s.precision)}};
}

std::string simulation_summary_text(const SimSummary& s, const Cluster& c) {
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

std::string strategy_table_text(const Graph& g, const Strategy& s) {
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

namespace {
// How a dimension that the degrees do not divide is counted (the lecture's sizes all divide).
const char* const kUnevenRule =
    "each split dimension takes the power-of-two degrees that divide it, the product dividing the device count; the sample "
    "dimension (the batch) also takes those up to its size that do not divide it, each counted once like an even one and "
    "split into balanced parts (sizes differ by at most one element, the largest part bounds time and memory)";

int64_t uneven_total(const SpaceSize& s) {
  int64_t total = 0;
  for (int64_t u : s.uneven_configs_per_op) total += u;
  return total;
}
}  // namespace

SpaceReport space_operation(const Graph& graph, const Cluster& cluster) {
  SpaceReport r;
  r.devices = cluster.num_devices();
  r.size = count_space(graph, r.devices);
  for (const Op& op : graph.ops) {
    r.op_names.push_back(op.name());
    std::string dims;
    for (const SplitDim& d : op.split_dims) dims += (dims.empty() ? "" : " ") + d.name + "(" + std::to_string(d.size) + ")";
    r.op_dims.push_back(dims);
  }
  return r;
}

Json SpaceReport::to_json() const {
  Json ops = Json::array();
  for (size_t i = 0; i < op_names.size(); ++i)
    ops.push_back(Json{{"name", op_names[i]}, {"configs", size.configs_per_op[i]}, {"uneven_configs", size.uneven_configs_per_op[i]}});
  return Json{{"ops", ops}, {"strategies", size.strategies}, {"log10_strategies", size.log10_strategies},
              {"uneven_configs", uneven_total(size)}, {"uneven_rule", kUnevenRule}};
}

std::string SpaceReport::to_text() const {
  std::ostringstream t;
  t << pad("op", 12) << pad("configs", 9, true) << pad("uneven", 8, true) << "  split dims (sizes)\n";
  for (size_t i = 0; i < op_names.size(); ++i)
    t << pad(op_names[i], 12) << pad(group_digits(size.configs_per_op[i]), 9, true) << pad(group_digits(size.uneven_configs_per_op[i]), 8, true)
      << "  " << op_dims[i] << "\n";
  t << "strategies: "
    << (size.strategies.size() <= 15 ? group_digits(std::stoll(size.strategies)) : fmt("%.3g", std::pow(10.0, size.log10_strategies)))
    << " (10^" << fmt("%.2f", size.log10_strategies) << ") on " << devices << (devices == 1 ? " device\n" : " devices\n");
  t << "counting: " << kUnevenRule << (uneven_total(size) ? "" : "; here every degree divides its dimension") << "\n";
  return t.str();
}

SimulateReport simulate_operation(const Graph& graph, const Cluster& cluster, const SimulateRequest& given) {
  // --zero N sets every op's ZeRO stage, --remat turns recomputation on (both also in strategy files).
  SimulateRequest request = given;
  if (request.zero_stage >= 0)
    for (OpConfig& oc : request.strategy.ops) oc.zero = request.zero_stage;
  if (request.remat) request.strategy.remat = true;
  TaskGraph tg(graph, cluster, request.strategy, request.cost);
  const double makespan = simulate_full(tg);
  SimulateReport r;
  r.summary = summarize(tg, request.optimizer);
  r.capacity_bytes = cluster.gpu.memory_capacity_bytes();
  r.cost_model = request.cost.mode == CostMode::ideal ? "ideal" : request.cost.mode == CostMode::calibrated ? "calibrated" : "fine";
  r.strategy = strategy_to_json(graph, request.strategy);
  r.strategy_text = strategy_table_text(graph, request.strategy);
  r.summary_text = simulation_summary_text(r.summary, cluster);
  if (request.expert) r.expert_recipe = expert_recipe(graph);
  if (request.trace) r.trace = perfetto_trace(tg);
  if (request.task_graph) r.task_graph = task_graph_json(tg, makespan);
  return r;
}

Json SimulateReport::to_json() const {
  Json j = simulation_summary_json(summary, capacity_bytes);
  j["cost_model"] = cost_model;
  j["strategy"] = strategy;
  if (expert_recipe) j["expert_recipe"] = Json{{"name", expert_recipe_name(*expert_recipe)}, {"summary", expert_recipe_summary(*expert_recipe)}};
  return j;
}

std::string SimulateReport::to_text() const {
  const std::string recipe =
      expert_recipe ? std::string("expert recipe: ") + expert_recipe_name(*expert_recipe) + " (" + expert_recipe_summary(*expert_recipe) + ")\n" : "";
  return recipe + summary_text + "\n" + strategy_text;
}

Result<ExhaustiveReport> exhaustive_operation(const Graph& graph, const Cluster& cluster) {
  auto r = exhaustive_search(graph, cluster);
  if (!r.ok()) return r.error();
  return ExhaustiveReport{r.value(), strategy_to_json(graph, r.value().best), strategy_table_text(graph, r.value().best)};
}

Json ExhaustiveReport::to_json() const {
  return Json{{"best_ms", result.best_ms}, {"strategies_evaluated", result.strategies_evaluated}, {"strategy", strategy}};
}

std::string ExhaustiveReport::to_text() const {
  return "optimum " + fmt("%.4f", result.best_ms) + " ms over " + group_digits(result.strategies_evaluated) + " strategies\n\n" + strategy_text;
}

Result<Conv1dReport> conv1d_operation(const Graph& conv, int gpus) {
  auto splits = conv1d_splits(conv, gpus);
  if (!splits.ok()) return splits.error();
  return Conv1dReport{conv.name(), gpus, splits.value()};
}

Json Conv1dReport::to_json() const {
  Json list = Json::array();
  for (const Conv1dSplit& s : splits)
    list.push_back(Json{{"name", s.name},
                        {"degrees", Json{{"sample", s.sample}, {"attribute", s.attribute}, {"parameter", s.parameter}}},
                        {"input_elements_per_device", s.input_elements_per_device},
                        {"weight_elements_per_device", s.weight_elements_per_device},
                        {"halo_elements_per_device", s.halo_elements_per_device},
                        {"output_elements_per_device", s.output_elements_per_device},
                        {"sync_elements", s.sync_elements},
                        {"max_abs_diff", s.max_abs_diff}});
  return Json{{"model", model}, {"gpus", gpus}, {"splits", list}};
}

std::string Conv1dReport::to_text() const {
  std::ostringstream t;
  t << pad("split", 34) << pad("input/dev", 10, true) << pad("halo/dev", 10, true) << pad("weight/dev", 11, true) << pad("sync", 7, true)
    << pad("max |diff|", 12, true) << "\n";
  for (const Conv1dSplit& s : splits)
    t << pad(s.name, 34) << pad(group_digits(s.input_elements_per_device), 10, true) << pad(group_digits(s.halo_elements_per_device), 10, true)
      << pad(group_digits(s.weight_elements_per_device), 11, true) << pad(group_digits(s.sync_elements), 7, true)
      << pad(fmt("%.2e", s.max_abs_diff), 12, true) << "\n";
  return t.str();
}

}  // namespace autopar
