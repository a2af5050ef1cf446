// The Alpa half's short operations. See alpa_operations.h.
#include "alpa_operations.h"

#include <optional>
#include <sstream>

#include "report_text.h"

namespace autopar {
namespace {

Json steps_json(const ReshardPlan& p) {
  Json steps = Json::array();
  for (const ReshardStep& s : p.steps) steps.push_back(Json{{"collective", s.collective}, {"axes", s.axes}, {"bytes", s.bytes}, {"cost", s.cost}});
  return steps;
}

Json collectives_json(const CollectiveCounts& c) {
  Json j = Json::object();
  j["all-reduce"] = c.all_reduce;
  j["all-gather"] = c.all_gather;
  j["reduce-scatter"] = c.reduce_scatter;
  j["all-to-all"] = c.all_to_all;
  return j;
}

std::string collectives_text(const CollectiveCounts& c) {
  return std::to_string(c.all_reduce) + " all-reduce, " + std::to_string(c.all_gather) + " all-gather, " + std::to_string(c.reduce_scatter) +
         " reduce-scatter, " + std::to_string(c.all_to_all) + " all-to-all";
}

}  // namespace

ReshardReport reshard_operation(const ShardingSpec& from, const ShardingSpec& to, const Shape& shape, int dtype_bytes, const DeviceMesh& mesh) {
  ReshardReport r;
  r.from = spec_to_string(from);
  r.to = spec_to_string(to);
  r.mesh_shape = mesh.shape_string();
  r.plan = reshard(from, to, shape, dtype_bytes, mesh);
  for (const auto& axis : mesh.axis) r.axis_crosses_nodes.push_back(axis.crosses_nodes);
  r.unitless = mesh.unitless;
  return r;
}

Json ReshardReport::to_json() const { return Json{{"from", from}, {"to", to}, {"steps", steps_json(plan)}, {"cost", plan.cost}}; }

std::string ReshardReport::to_text() const {
  const std::string unit = unitless ? "" : " ms";
  std::ostringstream t;
  t << from << " -> " << to << " on a " << mesh_shape << " mesh:\n";
  for (const auto& st : plan.steps) {
    t << "  " << pad(st.collective, 11);
    if (!st.axes.empty()) t << " along axis " << st.axes[0] << (axis_crosses_nodes[size_t(st.axes[0])] ? " (across nodes)" : "");
    if (st.bytes > 0) t << ", " << si(st.bytes) << "B per device, cost " << fmt("%.4g", st.cost) << unit;
    t << "\n";
  }
  t << "total " << fmt("%.4g", plan.cost) << unit << "\n";
  return t.str();
}

ReshardTableReport reshard_table_operation(const Shape& shape, int dtype_bytes, const DeviceMesh& mesh) {
  ReshardTableReport r;
  r.mesh_shape = mesh.shape_string();
  r.shape = shape;
  r.unitless = mesh.unitless;
  const std::vector<ShardingSpec> specs = all_specs(shape, mesh);
  for (const auto& s : specs) r.specs.push_back(spec_to_string(s));
  for (const auto& from : specs)
    for (const auto& to : specs) r.plans.push_back(reshard(from, to, shape, dtype_bytes, mesh));
  return r;
}

Json ReshardTableReport::to_json() const {
  Json rows = Json::array();
  for (size_t i = 0; i < specs.size(); ++i)
    for (size_t j = 0; j < specs.size(); ++j) {
      const ReshardPlan& p = plans[i * specs.size() + j];
      rows.push_back(Json{{"from", specs[i]}, {"to", specs[j]}, {"cost", p.cost}, {"steps", steps_json(p)}});
    }
  return Json{{"mesh", mesh_shape}, {"shape", shape}, {"specs", specs.size()}, {"table", rows}};
}

std::string ReshardTableReport::to_text() const {
  std::ostringstream t;
  t << "resharding cost" << (unitless ? "" : " (ms)") << " of a " << shape_to_string(shape) << " tensor on a " << mesh_shape
    << " mesh (rows: from, columns: to)\n" << pad("", 6);
  for (const auto& s : specs) t << pad(s, 10, true);
  t << "\n";
  for (size_t i = 0; i < specs.size(); ++i) {
    t << pad(specs[i], 6);
    for (size_t j = 0; j < specs.size(); ++j) {
      const ReshardPlan& p = plans[i * specs.size() + j];
      std::string what;
      for (const auto& st : p.steps) what += (what.empty() ? "" : "+") + st.collective;
      t << pad(p.cost == 0 ? (what == "none" ? "-" : "0") : fmt("%.4g", p.cost), 10, true);
    }
    t << "\n";
  }
  return t.str();
}

Json intra_plan_json(const Graph& g, const IntraOpPlan& plan) {
  Json ops = Json::array();
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const OpStrategy& s = plan.strategies[v][size_t(plan.solution.choice[v])];
    Json inputs = Json::array();
    for (const ShardingSpec& in : s.inputs) inputs.push_back(spec_to_string(in));
    ops.push_back(Json{{"name", g.ops[v].name()},
                       {"kind", op_kind_name(g.ops[v].spec.kind)},
                       {"strategy", s.name},
                       {"output_spec", spec_to_string(s.output)},
                       {"input_specs", inputs},
                       {"cost", s.cost()},
                       {"forward_comm", s.forward_comm},
                       {"backward_comm", s.backward_comm},
                       {"grad_sync", s.grad_sync},
                       {"penalty", s.penalty},
                       {"recompute_comm", s.recompute_comm},
                       {"strategies", plan.strategies[v].size()}});
  }
  return Json{{"mesh", plan.mesh.shape_string()},
              {"objective", plan.objective},
              {"communication_cost", plan.communication_cost},
              {"resharding_cost", plan.resharding_cost},
              {"penalty_cost", plan.penalty_cost},
              {"solver_objective", plan.solver_objective},
              {"reduce_scatter_delta", plan.reduce_scatter_delta},
              {"conventions", plan.mesh.alpa_conventions() ? "alpa" : "cluster"},
              {"collectives", collectives_json(plan.collectives)},
              {"memory_per_device_bytes", plan.memory_per_device},
              {"memory", Json{{"params_and_grads_bytes", plan.param_memory_per_device},
                              {"params_bytes", plan.memory.params_bytes},
                              {"grads_bytes", plan.memory.grads_bytes},
                              {"optimizer_bytes", plan.memory.optimizer_bytes},
                              {"activation_bytes", plan.memory.activation_bytes},
                              {"total_bytes", plan.memory.total_bytes},
                              {"capacity_bytes", plan.memory.capacity_bytes},
                              {"fits", plan.memory.fits}}},
              {"zero_stage", plan.memory.zero_stage},
              {"remat", plan.memory.remat},
              {"zero_cost", plan.zero_cost},
              {"recompute_cost", plan.recompute_cost},
              {"memory_tries", plan.memory_tries},
              {"solver", plan.solution.solver},
              {"status", plan.solution.status},
              {"ilp_variables", plan.solution.variables},
              {"ilp_constraints", plan.solution.constraints},
              {"solve_ms", plan.solve_ms},
              {"ops", ops}};
}

IntraOpOptions intra_options(const IntraRequest& request, const Cluster& cluster) {
  IntraOpOptions o;
  o.solver = request.solver;
  o.reduce_scatter = request.reduce_scatter;
  o.remat = request.remat;
  o.zero_stage = request.zero_stage;
  o.optimizer = request.optimizer;
  o.memory_budget_bytes = request.memory_budget_bytes.value_or(0);
  o.sequence_strategies = true;   // the intra-op pass's whole space (Megatron's sequence parallelism among it)
  o.force_batch_axis = request.force_data_parallel ? 0 : request.force_batch_axis;
  if (request.alpa_costs.empty()) {
    // As `intra --cluster`: the GPU's memory is the budget and its peak prices recomputation.
    o.capacity_bytes = cluster.gpu.memory_capacity_bytes();
    o.gpu = cluster.gpu;
  }
  return o;
}

Result<IntraSetup> intra_setup(const Cluster& cluster, const IntraRequest& request, const std::function<std::string(const std::string&)>& path) {
  const std::string mesh_text =
      request.mesh.empty() && request.alpa_costs.empty() ? std::to_string(cluster.nodes) + "x" + std::to_string(cluster.gpus_per_node) : request.mesh;
  auto shape = parse_mesh_shape(mesh_text, path("mesh"));
  if (!shape.ok()) return shape.error();
  // The cluster's links, or --alpha/--beta on the same shape (Alpa's conventions).
  const std::string& costs = request.alpa_costs;
  const size_t bar = costs.find('|');
  auto mesh = costs.empty() ? mesh_from_cluster(shape.value().first, shape.value().second, cluster, path("mesh"))
                            : mesh_from_costs(shape.value().first, shape.value().second, costs.substr(0, bar),
                                              bar == std::string::npos ? "" : costs.substr(bar + 1));
  if (!mesh.ok()) return mesh.error();
  return IntraSetup{request.force_data_parallel ? flattened_mesh(mesh.value()) : mesh.value(), intra_options(request, cluster)};
}

std::vector<IntraOpChoice> intra_op_choices(const Graph& g, const IntraOpPlan& plan) {
  std::vector<IntraOpChoice> out;
  for (size_t v = 0; v < g.ops.size() && v < plan.strategies.size(); ++v) {
    const OpStrategy& s = plan.strategies[v][size_t(plan.solution.choice[v])];
    IntraOpChoice c{g.ops[v].name(), s.name, spec_to_string(s.output), {}, s.cost()};
    for (const ShardingSpec& spec : s.inputs) c.input_specs.push_back(spec_to_string(spec));
    out.push_back(std::move(c));
  }
  return out;
}

Json to_json(const std::vector<IntraOpChoice>& choices) {
  Json ops = Json::array();
  for (const IntraOpChoice& c : choices)
    ops.push_back(Json{{"name", c.name}, {"strategy", c.strategy}, {"output_spec", c.output_spec}, {"input_specs", c.input_specs}, {"cost", c.cost}});
  return ops;
}

Json intra_plan_message(const Graph& g, const IntraOpPlan& plan) {
  Json input_reshard = Json::array();
  for (size_t v = 0; v < g.ops.size(); ++v) input_reshard.push_back(plan.strategies[v][size_t(plan.solution.choice[v])].input_reshard);
  return Json{{"report", intra_plan_json(g, plan)},
              {"exact", Json{{"input_reshard", input_reshard}, {"optimizer_memory_per_device", plan.optimizer_memory_per_device},
                             {"base_communication_cost", plan.base_communication_cost}, {"grad_sync_cost", plan.grad_sync_cost},
                             {"activation_memory_per_device", plan.activation_memory_per_device}}}};
}

Result<IntraOpPlan> intra_plan_from_message(const Json& j, const Graph& g, const DeviceMesh& mesh) {
  if (!j.is_object() || !j.contains("report") || !j["report"].is_object() || !j.contains("exact") || !j["exact"].is_object())
    return make_error(ErrorCode::missing_field, "an intra-op plan message needs 'report' and 'exact' objects", "plan");
  const Json& r = j["report"];
  const Json& x = j["exact"];
  IntraOpPlan p;
  p.mesh = mesh;
  // Reads one number; the first missing or mistyped field ends the reading with its path.
  std::optional<Error> bad;
  auto num = [&](const Json& o, const char* key, const std::string& at) -> double {
    if (bad) return 0;
    if (!o.contains(key) || !o[key].is_number()) {
      bad = make_error(ErrorCode::wrong_type, at + "." + key + " must be a number", at + "." + key);
      return 0;
    }
    return o[key].get<double>();
  };
  auto integer = [&](const Json& o, const char* key, const std::string& at) -> int {
    if (bad) return 0;
    if (!o.contains(key) || !o[key].is_number_integer()) {
      bad = make_error(ErrorCode::wrong_type, at + "." + key + " must be an integer", at + "." + key);
      return 0;
    }
    return o[key].get<int>();
  };
  p.objective = num(r, "objective", "plan.report");
  p.communication_cost = num(r, "communication_cost", "plan.report");
  p.resharding_cost = num(r, "resharding_cost", "plan.report");
  p.penalty_cost = num(r, "penalty_cost", "plan.report");
  p.solver_objective = num(r, "solver_objective", "plan.report");
  p.reduce_scatter_delta = num(r, "reduce_scatter_delta", "plan.report");
  p.memory_per_device = num(r, "memory_per_device_bytes", "plan.report");
  p.zero_cost = num(r, "zero_cost", "plan.report");
  p.recompute_cost = num(r, "recompute_cost", "plan.report");
  p.memory_tries = integer(r, "memory_tries", "plan.report");
  p.solve_ms = num(r, "solve_ms", "plan.report");
  p.optimizer_memory_per_device = num(x, "optimizer_memory_per_device", "plan.exact");
  p.base_communication_cost = num(x, "base_communication_cost", "plan.exact");
  p.grad_sync_cost = num(x, "grad_sync_cost", "plan.exact");
  p.activation_memory_per_device = num(x, "activation_memory_per_device", "plan.exact");
  const Json& c = r.contains("collectives") ? r["collectives"] : Json::object();
  p.collectives.all_reduce = integer(c, "all-reduce", "plan.report.collectives");
  p.collectives.all_gather = integer(c, "all-gather", "plan.report.collectives");
  p.collectives.reduce_scatter = integer(c, "reduce-scatter", "plan.report.collectives");
  p.collectives.all_to_all = integer(c, "all-to-all", "plan.report.collectives");
  const Json& m = r.contains("memory") ? r["memory"] : Json::object();
  p.param_memory_per_device = num(m, "params_and_grads_bytes", "plan.report.memory");
  p.memory.params_bytes = num(m, "params_bytes", "plan.report.memory");
  p.memory.grads_bytes = num(m, "grads_bytes", "plan.report.memory");
  p.memory.optimizer_bytes = num(m, "optimizer_bytes", "plan.report.memory");
  p.memory.activation_bytes = num(m, "activation_bytes", "plan.report.memory");
  p.memory.total_bytes = num(m, "total_bytes", "plan.report.memory");
  p.memory.capacity_bytes = num(m, "capacity_bytes", "plan.report.memory");
  p.memory.zero_stage = integer(r, "zero_stage", "plan.report");
  if (bad) return *bad;
  if (!m.contains("fits") || !m["fits"].is_boolean() || !r.contains("remat") || !r["remat"].is_boolean())
    return make_error(ErrorCode::wrong_type, "plan.report.memory.fits and plan.report.remat must be true or false", "plan.report.memory.fits");
  p.memory.fits = m["fits"].get<bool>();
  p.memory.remat = r["remat"].get<bool>();
  for (const char* key : {"solver", "status"})
    if (!r.contains(key) || !r[key].is_string()) return make_error(ErrorCode::wrong_type, std::string("plan.report.") + key + " must be a string", std::string("plan.report.") + key);
  p.solution.solver = r["solver"].get<std::string>();
  p.solution.status = r["status"].get<std::string>();
  p.solution.objective = p.solver_objective;
  p.solution.variables = integer(r, "ilp_variables", "plan.report");
  p.solution.constraints = integer(r, "ilp_constraints", "plan.report");
  if (bad) return *bad;
  const Json& ops = r.contains("ops") ? r["ops"] : Json();
  const Json& reshard = x.contains("input_reshard") ? x["input_reshard"] : Json();
  if (!ops.is_array() || ops.size() != g.ops.size() || !reshard.is_array() || reshard.size() != g.ops.size())
    return make_error(ErrorCode::bad_value, "plan.report.ops must hold one entry per op of the model", "plan.report.ops");
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const std::string at = "plan.report.ops[" + std::to_string(v) + "]";
    const Json& o = ops[v];
    OpStrategy s;
    if (!o.is_object() || !o.contains("strategy") || !o["strategy"].is_string() || !o.contains("output_spec") || !o["output_spec"].is_string() ||
        !o.contains("input_specs") || !o["input_specs"].is_array() || !reshard[v].is_number())
      return make_error(ErrorCode::wrong_type, at + " needs strategy, output_spec and input_specs", at);
    s.name = o["strategy"].get<std::string>();
    auto out = parse_spec(o["output_spec"].get<std::string>(), at + ".output_spec");
    if (!out.ok()) return out.error();
    s.output = out.value();
    for (size_t k = 0; k < o["input_specs"].size(); ++k) {
      if (!o["input_specs"][k].is_string()) return make_error(ErrorCode::wrong_type, at + ".input_specs must hold spec strings", at + ".input_specs");
      auto in = parse_spec(o["input_specs"][k].get<std::string>(), at + ".input_specs[" + std::to_string(k) + "]");
      if (!in.ok()) return in.error();
      s.inputs.push_back(in.value());
    }
    s.forward_comm = num(o, "forward_comm", at);
    s.backward_comm = num(o, "backward_comm", at);
    s.grad_sync = num(o, "grad_sync", at);
    s.penalty = num(o, "penalty", at);
    s.recompute_comm = num(o, "recompute_comm", at);
    s.input_reshard = reshard[v].get<double>();
    const int count = integer(o, "strategies", at);
    if (bad) return *bad;
    std::vector<OpStrategy> candidates(size_t(std::max(count, 1)));
    candidates[0] = std::move(s);
    p.strategies.push_back(std::move(candidates));
    p.solution.choice.push_back(0);
  }
  return p;
}

std::string intra_plan_text(const Graph& g, const IntraOpPlan& plan) {
  std::ostringstream t;
  const std::string unit = plan.mesh.unitless ? "" : " ms";
  t << "mesh " << plan.mesh.shape_string();
  if (plan.mesh.alpa_conventions())
    t << " (alpha " << fmt("%g", plan.mesh.axis[0].alpha) << "," << fmt("%g", plan.mesh.axis[1].alpha) << ", beta " << fmt("%g", plan.mesh.axis[0].beta)
      << "," << fmt("%g", plan.mesh.axis[1].beta) << ")";
  else
    t << " (axis 0 " << (plan.mesh.axis[0].crosses_nodes ? "across nodes" : "inside a node") << ", axis 1 "
      << (plan.mesh.axis[1].crosses_nodes ? "across nodes" : "inside a node") << ")";
  t << ", solver " << plan.solution.solver << " (" << fmt("%.1f", plan.solve_ms) << " ms)\n"
    << "objective " << fmt("%.7g", plan.objective) << unit << " = communication " << fmt("%.7g", plan.communication_cost) << " + resharding "
    << fmt("%.7g", plan.resharding_cost) << (plan.penalty_cost > 0 ? " + replicated penalty " + fmt("%.7g", plan.penalty_cost) : std::string())
    // Recomputation's second forward pass is compute, not communication, but in the objective.
    << (plan.recompute_cost > 0 ? " + recomputed forward compute " + fmt("%.7g", plan.recompute_cost) : std::string())
    << (plan.mesh.alpa_conventions() ? " (Alpa's conventions)" : "") << "\n"
    << "collectives per iteration: " << collectives_text(plan.collectives) << "\n"
    << "memory per device " << si(plan.memory.total_bytes) << "B: parameters " << si(plan.memory.params_bytes) << "B, gradients "
    << si(plan.memory.grads_bytes) << "B, optimizer " << si(plan.memory.optimizer_bytes) << "B, activations " << si(plan.memory.activation_bytes) << "B"
    << (plan.memory.capacity_bytes > 0 ? " of " + si(plan.memory.capacity_bytes) + "B: " + (plan.memory.fits ? "fits" : "DOES NOT FIT") : std::string())
    << "\nZeRO stage " << plan.memory.zero_stage << (plan.memory.remat ? ", recomputation" : ", no recomputation")
    << (plan.memory_tries > 0 ? (plan.memory.fits ? " (chosen: the plan did not fit; " : " (no setting fits; ") + std::to_string(plan.memory_tries) + " settings tried)"
                              : std::string())
    << (plan.zero_cost != 0 ? ", ZeRO collectives " + fmt("%+.4g", plan.zero_cost) + unit : std::string())
    << "\n\n"
    << pad("op", 12) << pad("strategy", 24) << pad("inputs", 26) << pad("output", 10) << pad("cost", 10, true) << "\n";
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const OpStrategy& s = plan.strategies[v][size_t(plan.solution.choice[v])];
    std::string ins;
    for (const ShardingSpec& in : s.inputs) ins += (ins.empty() ? "" : " ") + spec_to_string(in);
    t << pad(g.ops[v].name(), 12) << pad(s.name, 24) << pad(ins, 26) << pad(spec_to_string(s.output), 10) << pad(fmt("%.4g", s.cost()), 10, true) << "\n";
  }
  return t.str();
}

}  // namespace autopar
