// CLI commands of the Alpa half (INTERFACES.md): reshard, intra (and inter, in
// commands_inter.cpp).
#include <cstdio>
#include <sstream>

#include "cluster_spec.h"
#include "commands.h"
#include "intra_op.h"
#include "models.h"

namespace autopar::cli {
namespace {


// --mesh RxC with --cluster (costs from the links) or with --alpha/--beta (unitless).
Result<DeviceMesh> mesh_of(const Args& a, const std::string& fallback_cluster) {
  std::string mesh_text = a.get("mesh").value_or("");
  if (a.get("alpha") || a.get("beta")) {
    if (!a.get("alpha") || !a.get("beta"))
      return make_error("missing_argument", "give both --alpha a0,a1 and --beta b0,b1 (per-axis latency and per-byte cost)", a.get("alpha") ? "--beta" : "--alpha");
    if (a.get("cluster")) return make_error("bad_argument", "give either --cluster or --alpha/--beta, not both", "--cluster");
    if (mesh_text.empty()) return make_error("missing_argument", "give the mesh shape with --mesh RxC", "--mesh");
    auto shape = parse_mesh_shape(mesh_text);
    if (!shape.ok()) return shape.error();
    return mesh_from_costs(shape.value().first, shape.value().second, *a.get("alpha"), *a.get("beta"));
  }
  auto c = load_cluster(a.get("cluster").value_or(fallback_cluster));
  if (!c.ok()) return c.error();
  if (mesh_text.empty()) mesh_text = std::to_string(c.value().nodes) + "x" + std::to_string(c.value().gpus_per_node);
  auto shape = parse_mesh_shape(mesh_text);
  if (!shape.ok()) return shape.error();
  return mesh_from_cluster(shape.value().first, shape.value().second, c.value());
}

Result<Shape> shape_of(const std::string& text) {
  Shape s;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t x = text.find('x', pos);
    std::string part = text.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    if (part.empty() || part.size() > 12 || part.find_first_not_of("0123456789") != std::string::npos || std::stoll(part) < 1)
      return make_error("bad_value", "--shape must be sizes joined by x, e.g. 1024x1024", "--shape");
    s.push_back(std::stoll(part));
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  if (s.size() > 6) return make_error("bad_value", "--shape has more than 6 dimensions", "--shape");
  return s;
}

Json steps_json(const ReshardPlan& p) {
  Json steps = Json::array();
  for (const ReshardStep& s : p.steps)
    steps.push_back(Json{{"collective", s.collective}, {"axes", s.axes}, {"bytes", s.bytes}, {"cost", s.cost}});
  return steps;
}

Result<Output> reshard_command(const Args& a) {
  auto mesh = mesh_of(a, "lecture:2x4");
  if (!mesh.ok()) return mesh.error();
  auto shape = shape_of(a.get("shape").value_or("1024x1024"));
  if (!shape.ok()) return shape.error();
  int dtype = 4;
  if (auto d = a.get("dtype-bytes")) {
    if (*d != "2" && *d != "4" && *d != "8") return make_error("bad_value", "--dtype-bytes must be 2, 4 or 8", "--dtype-bytes");
    dtype = std::stoi(*d);
  }
  const std::string unit = mesh.value().unitless ? "" : " ms";
  Output out;
  if (a.has("table")) {
    std::vector<ShardingSpec> specs = all_specs(shape.value(), mesh.value());
    Json rows = Json::array();
    std::ostringstream t;
    t << "resharding cost" << (unit.empty() ? "" : " (ms)") << " of a " << shape_to_string(shape.value()) << " tensor on a " << mesh.value().shape_string()
      << " mesh (rows: from, columns: to)\n" << pad("", 6);
    for (const auto& s : specs) t << pad(spec_to_string(s), 10, true);
    t << "\n";
    for (const auto& from : specs) {
      t << pad(spec_to_string(from), 6);
      for (const auto& to : specs) {
        ReshardPlan p = reshard(from, to, shape.value(), dtype, mesh.value());
        std::string what;
        for (const auto& st : p.steps) what += (what.empty() ? "" : "+") + st.collective;
        rows.push_back(Json{{"from", spec_to_string(from)}, {"to", spec_to_string(to)}, {"cost", p.cost}, {"steps", steps_json(p)}});
        t << pad(p.cost == 0 ? (what == "none" ? "-" : "0") : fmt("%.4g", p.cost), 10, true);
      }
      t << "\n";
    }
    out.json = Json{{"mesh", mesh.value().shape_string()}, {"shape", shape.value()}, {"specs", specs.size()}, {"table", rows}};
    out.text = t.str();
    return out;
  }
  if (!a.get("from") || !a.get("to")) return make_error("missing_argument", "give --from SPEC and --to SPEC (e.g. --from S0R --to RS0), or --table", "--from");
  auto from = parse_spec(*a.get("from"), "--from");
  if (!from.ok()) return from.error();
  auto to = parse_spec(*a.get("to"), "--to");
  if (!to.ok()) return to.error();
  if (auto s = validate_spec(from.value(), shape.value(), mesh.value(), "--from"); !s.ok()) return s.error();
  if (auto s = validate_spec(to.value(), shape.value(), mesh.value(), "--to"); !s.ok()) return s.error();
  ReshardPlan p = reshard(from.value(), to.value(), shape.value(), dtype, mesh.value());
  out.json = Json{{"from", spec_to_string(from.value())}, {"to", spec_to_string(to.value())}, {"steps", steps_json(p)}, {"cost", p.cost}};
  std::ostringstream t;
  t << spec_to_string(from.value()) << " -> " << spec_to_string(to.value()) << " on a " << mesh.value().shape_string() << " mesh:\n";
  for (const auto& st : p.steps) {
    t << "  " << pad(st.collective, 11);
    if (!st.axes.empty()) t << " along axis " << st.axes[0] << (mesh.value().axis[st.axes[0]].crosses_nodes ? " (across nodes)" : "");
    if (st.bytes > 0) t << ", " << si(st.bytes) << "B per device, cost " << fmt("%.4g", st.cost) << unit;
    t << "\n";
  }
  t << "total " << fmt("%.4g", p.cost) << unit << "\n";
  out.text = t.str();
  return out;
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

Json plan_json(const Graph& g, const IntraOpPlan& plan) {
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

std::string plan_text(const Graph& g, const IntraOpPlan& plan) {
  std::ostringstream t;
  const std::string unit = plan.mesh.unitless ? "" : " ms";
  t << "mesh " << plan.mesh.shape_string();
  if (plan.mesh.alpa_conventions())
    t << " (alpha " << fmt("%g", plan.mesh.axis[0].alpha) << "," << fmt("%g", plan.mesh.axis[1].alpha) << ", beta " << fmt("%g", plan.mesh.axis[0].beta)
      << "," << fmt("%g", plan.mesh.axis[1].beta) << ")";
  else
    t << " (axis 0 " << (plan.mesh.axis[0].crosses_nodes ? "across nodes" : "inside a node") << ", axis 1 "
      << (plan.mesh.axis[1].crosses_nodes ? "across nodes" : "inside a node") << ")";
  t << ", solver " << plan.solution.solver << " ("
    << fmt("%.1f", plan.solve_ms) << " ms)\n"
    << "objective " << fmt("%.7g", plan.objective) << unit << " = communication " << fmt("%.7g", plan.communication_cost) << " + resharding "
    << fmt("%.7g", plan.resharding_cost) << (plan.penalty_cost > 0 ? " + replicated penalty " + fmt("%.7g", plan.penalty_cost) : std::string())
    << (plan.mesh.alpa_conventions() ? " (Alpa's conventions)" : "") << "\n"
    << "collectives per iteration: " << collectives_text(plan.collectives) << "\n"
    << "memory per device " << si(plan.memory.total_bytes) << "B: parameters " << si(plan.memory.params_bytes) << "B, gradients "
    << si(plan.memory.grads_bytes) << "B, optimizer " << si(plan.memory.optimizer_bytes) << "B, activations " << si(plan.memory.activation_bytes) << "B"
    << (plan.memory.capacity_bytes > 0 ? " of " + si(plan.memory.capacity_bytes) + "B: " + (plan.memory.fits ? "fits" : "DOES NOT FIT") : std::string())
    << "\nZeRO stage " << plan.memory.zero_stage << (plan.memory.remat ? ", recomputation" : ", no recomputation")
    << (plan.memory_tries > 0 ? (plan.memory.fits ? " (chosen: the plan did not fit; " : " (no setting fits; ") + std::to_string(plan.memory_tries) + " settings tried)"
                              : std::string())
    << (plan.zero_cost != 0 ? ", ZeRO collectives " + fmt("%+.4g", plan.zero_cost) + unit : std::string())
    << (plan.recompute_cost > 0 ? ", recomputed forward compute " + fmt("%.4g", plan.recompute_cost) + unit : std::string()) << "\n\n"
    << pad("op", 12) << pad("strategy", 24) << pad("inputs", 26) << pad("output", 10) << pad("cost", 10, true) << "\n";
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const OpStrategy& s = plan.strategies[v][size_t(plan.solution.choice[v])];
    std::string ins;
    for (const ShardingSpec& in : s.inputs) ins += (ins.empty() ? "" : " ") + spec_to_string(in);
    t << pad(g.ops[v].name(), 12) << pad(s.name, 24) << pad(ins, 26) << pad(spec_to_string(s.output), 10) << pad(fmt("%.4g", s.cost()), 10, true) << "\n";
  }
  return t.str();
}

Result<Output> intra_command(const Args& a) {
  auto m = a.get("model");
  if (!m) return make_error("missing_argument", "give a model with --model NAME[:key=value,...] or --model FILE.json", "--model");
  auto g = load_model(*m);
  if (!g.ok()) return g.error();
  IntraOpOptions o;
  o.solver = a.get("solver").value_or("auto");
  if (o.solver != "auto" && o.solver != "ilp" && o.solver != "dp" && o.solver != "exhaustive")
    return make_error("bad_value", "--solver must be ilp, dp or exhaustive, not '" + o.solver + "'", "--solver");
  o.write_lp = a.get("write-lp").value_or("");
  o.reduce_scatter = a.has("reduce-scatter");
  o.remat = a.has("remat");
  if (auto z = a.get("zero")) {
    if (*z != "0" && *z != "1" && *z != "2" && *z != "3") return make_error("bad_value", "--zero must be 0, 1, 2 or 3, not '" + *z + "'", "--zero");
    o.zero_stage = std::stoi(*z);
  }
  const std::string opt = a.get("optimizer").value_or("adam");
  if (opt != "adam" && opt != "sgd") return make_error("bad_value", "--optimizer is '" + opt + "'; use adam or sgd", "--optimizer");
  o.optimizer = opt == "adam" ? Optimizer::adam : Optimizer::sgd;
  // On a cluster the GPU's memory is the budget and its peak prices recomputation.
  if (!a.get("alpha") && !a.get("beta")) {
    auto c = load_cluster(a.get("cluster").value_or("lecture:2x4"));
    if (!c.ok()) return c.error();
    o.capacity_bytes = c.value().gpu.memory_capacity_bytes();
    o.peak_flops_per_ms = c.value().gpu.peak_flops_per_ms();
  }
  if (auto b = a.get("memory-budget-bytes")) {
    char* end = nullptr;
    o.memory_budget_bytes = std::strtod(b->c_str(), &end);
    if (b->empty() || *end || !(o.memory_budget_bytes > 0) || o.memory_budget_bytes > 1e18)
      return make_error("bad_value", "--memory-budget-bytes needs a positive number of bytes per device", "--memory-budget-bytes");
  }
  Output out;
  if (a.has("all-meshes")) {
    auto c = load_cluster(a.get("cluster").value_or("lecture:2x4"));
    if (!c.ok()) return c.error();
    const int n = c.value().num_devices();
    Json meshes = Json::array();
    std::ostringstream t;
    t << pad("mesh", 8) << pad("objective", 12, true) << pad("comm", 12, true) << pad("reshard", 12, true) << "  heavy ops\n";
    double best = 1e300;
    std::string best_mesh;
    for (int r = 1; r <= n; ++r) {
      if (n % r) continue;
      auto mesh = mesh_from_cluster(r, n / r, c.value());
      if (!mesh.ok()) return mesh.error();
      auto plan = plan_intra_op(g.value(), mesh.value(), o);
      if (!plan.ok()) return plan.error();
      meshes.push_back(plan_json(g.value(), plan.value()));
      std::string heavy;
      for (size_t v = 0; v < g.value().ops.size() && heavy.size() < 60; ++v) {
        const OpStrategy& s = plan.value().strategies[v][size_t(plan.value().solution.choice[v])];
        if (s.name.rfind("follow", 0) != 0) heavy += (heavy.empty() ? "" : ", ") + s.name;
      }
      t << pad(mesh.value().shape_string(), 8) << pad(fmt("%.4g", plan.value().objective), 12, true) << pad(fmt("%.4g", plan.value().communication_cost), 12, true)
        << pad(fmt("%.4g", plan.value().resharding_cost), 12, true) << "  " << heavy << "\n";
      if (plan.value().objective < best) {
        best = plan.value().objective;
        best_mesh = mesh.value().shape_string();
      }
    }
    out.json = Json{{"meshes", meshes}, {"best_mesh", best_mesh}, {"best_objective", best}};
    t << "best: " << best_mesh << "\n";
    out.text = t.str();
    return out;
  }
  auto mesh = mesh_of(a, "lecture:2x4");
  if (!mesh.ok()) return mesh.error();
  auto plan = plan_intra_op(g.value(), mesh.value(), o);
  if (!plan.ok()) return plan.error();
  out.json = plan_json(g.value(), plan.value());
  out.text = plan_text(g.value(), plan.value());
  return out;
}

}  // namespace

const char* const kIntraHelp =
    "Plans every op of the model on a logical mesh: each mesh axis goes to a loop dimension of\n"
    "each heavy op (data, row, column, heads, expert), light ops follow their operand, and a\n"
    "solver (chain DP, GLPK's ILP, or exhaustive) minimises communication + resharding.\n"
    "\n"
    "options:\n"
    "  --cluster C         costs from the cluster's links, in ms (the cluster conventions below)\n"
    "  --alpha a0,a1 --beta b0,b1\n"
    "                      per-axis latency and per-byte cost, unitless (Alpa's conventions below)\n"
    "  --solver S          auto (DP on chains, else ILP), ilp, dp or exhaustive\n"
    "  --reduce-scatter    after the solve, each gradient all-reduce becomes reduce-scatter +\n"
    "                      all-gather: every device updates only its shard of the weights and\n"
    "                      keeps only that shard of the gradients and Adam state (ZeRO stage 2)\n"
    "  --remat             recompute activations in the backward pass: forward collectives and\n"
    "                      forward resharding are paid twice; only activations several ops read\n"
    "                      stay in memory, plus the largest segment being recomputed\n"
    "  --zero 0|1|2|3      a fixed ZeRO stage (sharding optimizer state, + gradients, + weights\n"
    "                      over the axes each gradient is synchronised over); by default 0, or\n"
    "                      the cheapest that fits when the plan does not\n"
    "  --optimizer adam|sgd  the optimizer state counted (default adam; --precision sets the bytes)\n"
    "  --memory-budget-bytes X  per device (parameters, gradients, optimizer state, activations,\n"
    "                      as `autopar memory` counts them); default: the cluster's GPU memory.\n"
    "                      A plan over it is re-planned: ZeRO stages and recomputation are tried\n"
    "                      on the plan, then the ILP is re-solved with the budget for each; the\n"
    "                      cheapest that fits is kept (zero_stage, remat, memory.fits in --json)\n"
    "  --write-lp FILE, --all-meshes\n"
    "\n"
    "conventions (where autopar follows Alpa and where it deliberately differs):\n"
    "  both     resharding costed forward (activation) and backward (its gradient); element-wise\n"
    "           ops, layer norms, attention cores and the loss free beyond resharding; splits\n"
    "           need not divide a dimension (the largest part, ceil(n/ways), bounds the bytes);\n"
    "           gradient collectives over the same axes counted as one combined collective.\n"
    "  --alpha/--beta: Alpa's auto-sharding pass, so its tests' objectives come out:\n"
    "           round(alpha + beta * volume) + 0.1 all-gather, + 0.01 all-reduce, + 0.001\n"
    "           reduce-scatter and all-to-all (all-to-all with Alpa's n/2 penalty); model inputs\n"
    "           take any 1-D sharding for free; replicated parameters pay Alpa's replicated\n"
    "           penalty (x3: Adam's two moments), replicated inputs once; one all-reduce per\n"
    "           gradient tensor; parameters stored split along at most one mesh axis; on a 2-D\n"
    "           mesh the batch split along axis 0; the loss is not returned, so free.\n"
    "  --cluster (more realistic, kept where Alpa simplifies): exact alpha-beta times in ms; model\n"
    "           inputs arrive split by batch from the data loader (other specs cost resharding);\n"
    "           no replicated penalty; one gradient all-reduce per op (a bucket); parameters may\n"
    "           be split over both axes; the loss is all-reduced to be reported.\n"
    "\n"
    "--json adds \"collectives\": {\"all-reduce\",\"all-gather\",\"reduce-scatter\",\"all-to-all\"} per\n"
    "iteration (forward and backward), \"solver_objective\" (what the solver computed) and memory.\n";

std::vector<Command> alpa_commands() {
  return {
      {"reshard", "the collectives that turn one sharding spec into another", "--mesh RxC --from S --to S --shape AxB",
       {{"mesh", "cluster", "alpha", "beta", "from", "to", "shape", "dtype-bytes"}, {"table"}}, reshard_command},
      {"intra", "Alpa's intra-op plan: a parallel algorithm per op on a device mesh", "--model M --mesh RxC --cluster C",
       {{"model", "mesh", "cluster", "alpha", "beta", "solver", "write-lp", "memory-budget-bytes", "zero", "optimizer"}, {"all-meshes", "reduce-scatter", "remat"}},
       intra_command, kIntraHelp},
  };
}

}  // namespace autopar::cli
