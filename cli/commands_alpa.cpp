// CLI commands of the Alpa half (INTERFACES.md): reshard, intra (and inter, in
// commands_inter.cpp), parsing words into the operations of core/operations/alpa_operations.h.
#include <cstdio>
#include <sstream>

#include "cluster_spec.h"
#include "commands.h"
#include "alpa_operations.h"
#include "models.h"
#include "operation_requests.h"

namespace autopar::cli {
namespace {


// --mesh RxC with --cluster (costs from the links) or with --alpha/--beta (unitless).
Result<DeviceMesh> mesh_of(const Args& a, const std::string& fallback_cluster) {
  std::string mesh_text = a.get("mesh").value_or("");
  if (a.get("alpha") || a.get("beta")) {
    if (!a.get("alpha") || !a.get("beta"))
      return make_error(ErrorCode::missing_argument, "give both --alpha a0,a1 and --beta b0,b1 (per-axis latency and per-byte cost)", a.get("alpha") ? "--beta" : "--alpha");
    if (a.get("cluster")) return make_error(ErrorCode::bad_argument, "give either --cluster or --alpha/--beta, not both", "--cluster");
    if (mesh_text.empty()) return make_error(ErrorCode::missing_argument, "give the mesh shape with --mesh RxC", "--mesh");
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
    auto size = whole_from_text(part, "--shape");
    if (!size.ok() || size.value() < 1 || part.size() > 12) return make_error(ErrorCode::bad_value, "--shape must be sizes joined by x, e.g. 1024x1024", "--shape");
    s.push_back(size.value());
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  if (s.size() > 6) return make_error(ErrorCode::bad_value, "--shape has more than 6 dimensions", "--shape");
  return s;
}

Result<Output> reshard_command(const Args& a) {
  auto mesh = mesh_of(a, "lecture:2x4");
  if (!mesh.ok()) return mesh.error();
  auto shape = shape_of(a.get("shape").value_or("1024x1024"));
  if (!shape.ok()) return shape.error();
  int dtype = 4;
  if (auto d = a.get("dtype-bytes")) {
    if (*d != "2" && *d != "4" && *d != "8") return make_error(ErrorCode::bad_value, "--dtype-bytes must be 2, 4 or 8", "--dtype-bytes");
    dtype = std::stoi(*d);
  }
  if (a.has("table")) {
    // The table is every pair; a --from or --to given with it would be silently ignored.
    if (a.get("from") || a.get("to"))
      return make_error(ErrorCode::bad_argument, "--table prints the cost of every pair of specs; give --from and --to without --table for one pair",
                        a.get("from") ? "--from" : "--to");
    return output_of(reshard_table_operation(shape.value(), dtype, mesh.value()));
  }
  if (!a.get("from") || !a.get("to")) return make_error(ErrorCode::missing_argument, "give --from SPEC and --to SPEC (e.g. --from S0R --to RS0), or --table", "--from");
  auto from = parse_spec(*a.get("from"), "--from");
  if (!from.ok()) return from.error();
  auto to = parse_spec(*a.get("to"), "--to");
  if (!to.ok()) return to.error();
  if (auto s = validate_spec(from.value(), shape.value(), mesh.value(), "--from"); !s.ok()) return s.error();
  if (auto s = validate_spec(to.value(), shape.value(), mesh.value(), "--to"); !s.ok()) return s.error();
  return output_of(reshard_operation(from.value(), to.value(), shape.value(), dtype, mesh.value()));
}

// The words of `intra` onto its request (operation_requests.h), checked by its validate.
Result<IntraRequest> intra_request_of(const Args& a) {
  IntraRequest r;
  r.mesh = a.get("mesh").value_or("");
  r.solver = a.get("solver").value_or("auto");
  r.reduce_scatter = a.has("reduce-scatter");
  r.remat = a.has("remat");
  if (a.get("zero")) {
    auto zero = whole_option(a, "zero", -1);
    if (!zero.ok()) return zero.error();
    // Checked before narrowing to int, as the worker does.
    if (auto st = check_bound(zero.value(), kZeroStageBound, "--zero"); !st.ok()) return st.error();
    r.zero_stage = int(zero.value());
  }
  auto optimizer = optimizer_option(a);
  if (!optimizer.ok()) return optimizer.error();
  r.optimizer = optimizer.value();
  if (auto b = a.get("memory-budget-bytes")) {
    char* end = nullptr;
    const double bytes = std::strtod(b->c_str(), &end);
    // Text that is no number is refused as a bad budget (validate's words).
    r.memory_budget_bytes = b->empty() || *end ? -1 : bytes;
  }
  if (auto f = a.get("force-batch-axis")) {
    if (auto st = check_force_batch_axis(*f, *f == "0" || *f == "1", cli_field_path()); !st.ok()) return st.error();
    r.force_batch_axis = *f == "1";
  }
  r.force_data_parallel = a.has("force-data-parallel");
  if (auto st = validate(r, cli_field_path()); !st.ok()) return st.error();
  return r;
}

Result<Output> intra_command(const Args& a) {
  auto g = model_option(a);
  if (!g.ok()) return g.error();
  auto request = intra_request_of(a);
  if (!request.ok()) return request.error();
  IntraRequest& r = request.value();
  const bool unitless = a.get("alpha") || a.get("beta");
  if (r.force_data_parallel && a.has("all-meshes"))
    return make_error(ErrorCode::bad_argument, "--force-data-parallel flattens the mesh, so every mesh shape gives the same plan; leave out --all-meshes", "--force-data-parallel");
  // On a cluster the GPU's memory is the budget and its peak prices recomputation; --alpha/--beta
  // price a unitless mesh instead (no cluster).
  Cluster cluster;
  // Priced by --alpha/--beta: no memory budget from a GPU (also with --all-meshes, which still
  // takes its device count from the cluster).
  if (unitless) r.alpa_costs = a.get("alpha").value_or("") + "|" + a.get("beta").value_or("");
  if (unitless && !a.has("all-meshes")) {
    if (!a.get("alpha") || !a.get("beta"))
      return make_error(ErrorCode::missing_argument, "give both --alpha a0,a1 and --beta b0,b1 (per-axis latency and per-byte cost)", a.get("alpha") ? "--beta" : "--alpha");
    if (a.get("cluster")) return make_error(ErrorCode::bad_argument, "give either --cluster or --alpha/--beta, not both", "--cluster");
    if (r.mesh.empty()) return make_error(ErrorCode::missing_argument, "give the mesh shape with --mesh RxC", "--mesh");
  } else {
    auto c = cluster_option(a);
    if (!c.ok()) return c.error();
    cluster = c.value();
  }
  IntraOpOptions o;
  DeviceMesh mesh;
  if (a.has("all-meshes")) {
    o = intra_options(r, cluster);
  } else {
    auto setup = intra_setup(cluster, r, cli_field_path());
    if (!setup.ok()) return setup.error();
    o = setup.value().options;
    mesh = setup.value().mesh;
  }
  o.write_lp = a.get("write-lp").value_or("");
  if (a.has("all-meshes")) {
    auto report = intra_all_meshes_operation(g.value(), cluster, o);
    if (!report.ok()) return report.error();
    return output_of(report.value());
  }
  auto report = intra_operation(g.value(), mesh, o);
  if (!report.ok()) return report.error();
  return output_of(report.value());
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
    "  --force-batch-axis 0|1  every activation's batch split along that mesh axis and no other\n"
    "                      (along an axis of one device: whole), Alpa's force_batch_dim_to_mesh_dim\n"
    "  --force-data-parallel  Alpa's force_data_parallel: the mesh flattened to one axis of all\n"
    "                      devices (its larger latency, its smaller per-byte cost), the batch\n"
    "                      split along it\n"
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
       {{"model", "mesh", "cluster", "alpha", "beta", "solver", "write-lp", "memory-budget-bytes", "zero", "optimizer", "force-batch-axis"}, {"all-meshes", "reduce-scatter", "remat", "force-data-parallel"}},
       intra_command, kIntraHelp},
  };
}

}  // namespace autopar::cli
