// The PyTorch DTensor export. See dtensor_export.h.
//
// What torch (>= 2.4) is given, and why:
// - init_device_mesh(device_type, (rows, cols), mesh_dim_names=...): the plan's mesh as it is.
//   init_device_mesh lays ranks out row-major, as autopar numbers devices (position (r, c) is
//   device r * cols + c), so the mesh keeps the plan's axis order and the names follow the roles:
//   the axis the Linear layers split is "tp", the other "dp".
// - parallelize_module(model, mesh["tp"], tp_plan): torch's parallel styles place parameters
//   themselves. ColwiseParallel shards an nn.Linear's weight [out, in] and bias on dim 0 and an
//   nn.Embedding's weight on dim 1; RowwiseParallel shards a Linear's weight on dim 1 (bias
//   replicated) and an Embedding's on dim 0 (torch/distributed/tensor/parallel/style.py). A module
//   goes in the plan only when those placements are exactly the plan's (and it replicates them
//   over "dp").
// - Every other sharded parameter (split over "dp", over both dims, by experts, or over "tp" in a
//   way no style gives) is placed by distribute_tensor on the whole mesh, with its plan
//   placements, so that no sharded parameter is left out.
// - DTensor's names moved from torch.distributed._tensor (2.4) to torch.distributed.tensor
//   (2.5, pytorch#133113); the import tries the new name, then the old.
#include "dtensor_export.h"

#include <set>
#include <sstream>

namespace autopar {
std::string python_string_literal(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

namespace {

const OpStrategy& chosen(const IntraOpPlan& plan, size_t v) { return plan.strategies[v][size_t(plan.solution.choice[v])]; }

std::string py_str(const std::string& s) { return python_string_literal(s); }

// PyTorch stores a Linear weight as [out, in]; ours is [in, out].
bool torch_transposed(const Op& op, size_t param) { return op.spec.kind == OpKind::linear && op.params[param].shape.size() == 2; }

// Per mesh axis, the tensor dimension (in torch's layout) split over it, or -1 (replicated).
struct Placements {
  int dim[2] = {-1, -1};
  bool sharded() const { return dim[0] >= 0 || dim[1] >= 0; }
  bool operator==(const Placements& o) const { return dim[0] == o.dim[0] && dim[1] == o.dim[1]; }
};

Placements placements_of(const ShardingSpec& s, bool transpose) {
  Placements p;
  for (int a = 0; a < 2; ++a) {
    for (size_t d = 0; d < s.dims.size(); ++d)
      if (s.dims[d] & (1 << a)) p.dim[a] = int(d);
    if (p.dim[a] >= 0 && transpose) p.dim[a] = int(s.dims.size()) - 1 - p.dim[a];
  }
  return p;
}

// Shard(d) only on mesh axis `tp`: what a parallel style gives.
Placements on_tp(int tp, int dim) {
  Placements p;
  p.dim[tp] = dim;
  return p;
}

std::string python_placements(const Placements& p) {
  std::string out = "[";
  for (int a = 0; a < 2; ++a) out += (a ? ", " : "") + (p.dim[a] < 0 ? std::string("Replicate()") : "Shard(" + std::to_string(p.dim[a]) + ")");
  return out + "]";
}

// The parallel style that places every parameter of op `v` as the plan does, or "".
std::string style_of(const Graph& g, const IntraOpPlan& plan, size_t v, int tp) {
  const Op& op = g.ops[v];
  const OpStrategy& s = chosen(plan, v);
  auto param = [&](size_t k) { return placements_of(s.inputs[op.inputs.size() + k], torch_transposed(op, k)); };
  if (op.spec.kind == OpKind::embedding && op.params.size() == 1) {
    if (param(0) == on_tp(tp, 0)) return "RowwiseParallel";
    if (param(0) == on_tp(tp, 1)) return "ColwiseParallel";
    return "";
  }
  // A tied output head reads the embedding's table, which the embedding's own entry places.
  if (op.spec.kind != OpKind::linear || !op.spec.weight_from.empty() || op.params.empty() || op.params[0].shape.size() != 2) return "";
  const bool bias = op.params.size() > 1;
  if (param(0) == on_tp(tp, 0) && (!bias || param(1) == on_tp(tp, 0))) return "ColwiseParallel";
  if (param(0) == on_tp(tp, 1) && (!bias || param(1) == Placements{})) return "RowwiseParallel";
  return "";
}

}  // namespace

Status check_device_type(const std::string& t, const std::string& path) {
  bool ok = !t.empty() && t.size() <= 32 && t[0] >= 'a' && t[0] <= 'z';
  for (char c : t) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  if (ok) return Ok{};
  return make_error(ErrorCode::bad_value, "device type '" + t + "' is not a torch device type name; give one such as cuda, cpu, xpu, hpu or npu (lowercase letters, digits and '_')", path);
}

std::string export_dtensor(const Graph& g, const IntraOpPlan& plan, const std::string& title, const std::string& device_type) {
  // The axis most layers split by column or row (Linear) or by table (Embedding) is "tp"; on a
  // tie, axis 1 (inside a node when the mesh is the cluster's). Each op votes once per axis.
  int votes[2] = {0, 0};
  for (size_t v = 0; v < g.ops.size(); ++v) {
    if (g.ops[v].spec.kind != OpKind::linear && g.ops[v].spec.kind != OpKind::embedding) continue;
    const std::string& n = chosen(plan, v).name;
    for (int a = 0; a < 2; ++a)
      votes[a] += n.find("column@" + std::to_string(a)) != std::string::npos || n.find("row@" + std::to_string(a)) != std::string::npos;
  }
  const int tp = votes[1] >= votes[0] ? 1 : 0;
  const char* names[2] = {tp == 1 ? "dp" : "tp", tp == 1 ? "tp" : "dp"};

  // The tensor-parallel plan, and every parameter's placements (a tied table once).
  std::vector<std::pair<std::string, std::string>> tp_plan;             // module, style
  std::vector<std::pair<std::string, Placements>> params;                // name, placements
  std::vector<std::string> direct;                                       // sharded, placed by distribute_tensor
  std::vector<std::string> tied_notes;
  std::set<std::string> seen;
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const Op& op = g.ops[v];
    const OpStrategy& s = chosen(plan, v);
    const std::string style = style_of(g, plan, v, tp);
    if (!style.empty()) tp_plan.push_back({op.name(), style});
    for (size_t k = 0; k < op.params.size(); ++k) {
      const Placements p = placements_of(s.inputs[op.inputs.size() + k], torch_transposed(op, k));
      const std::string& name = op.params[k].name;
      if (!seen.insert(name).second) {
        for (const auto& [n, first] : params)
          if (n == name && !(first == p)) tied_notes.push_back(name + " (" + op.name() + " reads it as " + python_placements(p) + ")");
        continue;
      }
      params.push_back({name, p});
      if (style.empty() && p.sharded()) direct.push_back(name);
    }
  }

  std::ostringstream o;
  o << "# " << title << "\n"
    << "# Generated by autopar from Alpa's intra-op plan on a " << plan.mesh.shape_string() << " mesh: mesh dim \"" << names[0]
    << "\" is its axis 0 (" << plan.mesh.rows() << (plan.mesh.rows() == 1 ? " device" : " devices") << "), \"" << names[1]
    << "\" its axis 1 (" << plan.mesh.cols() << (plan.mesh.cols() == 1 ? " device" : " devices") << ").\n"
    << "# Ranks are laid out row-major, as the plan numbers devices (mesh position (r, c) is rank r * " << plan.mesh.cols() << " + c).\n"
    << "# Module names are the model's op names; rename them to your model's submodule paths. Needs torch >= 2.4.\n"
    << "import torch.nn as nn\n"
    << "from torch.distributed.device_mesh import init_device_mesh\n"
    << "try:  # torch >= 2.5: DTensor's public namespace\n"
    << "    from torch.distributed.tensor import Replicate, Shard, distribute_tensor\n"
    << "except ImportError:  # torch 2.4\n"
    << "    from torch.distributed._tensor import Replicate, Shard, distribute_tensor\n"
    << "from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module\n\n"
    << "DEVICE_TYPE = " << py_str(device_type) << "\n\n"
    << "mesh = init_device_mesh(DEVICE_TYPE, (" << plan.mesh.rows() << ", " << plan.mesh.cols() << "), mesh_dim_names=(\"" << names[0] << "\", \""
    << names[1] << "\"))\n\n"
    << "# Tensor parallelism over mesh[\"tp\"]: the nn.Linear and nn.Embedding modules whose parameters a parallel style\n"
    << "# places exactly as the plan does (ColwiseParallel: Linear weight [out, in] and bias Shard(0), Embedding Shard(1);\n"
    << "# RowwiseParallel: Linear weight Shard(1), bias replicated, Embedding Shard(0)).\n"
    << "tp_plan = {\n";
  for (const auto& [module, style] : tp_plan) o << "    " << py_str(module) << ": " << style << "(),\n";
  o << "}\n\n# Every parameter's DTensor placements on the mesh, one per mesh dim (\"" << names[0] << "\", \"" << names[1]
    << "\"), in PyTorch's layout (Linear weights are [out, in]).\n"
    << "param_placements = {\n";
  for (const auto& [name, p] : params) o << "    " << py_str(name) << ": " << python_placements(p) << ",\n";
  o << "}\n\n# The sharded parameters no module of tp_plan places (split over \"dp\", over both dims, or not as a parallel style\n"
    << "# splits): apply() places them with distribute_tensor on the whole mesh.\n"
    << "distributed_params = [\n";
  for (const std::string& name : direct) o << "    " << py_str(name) << ",\n";
  o << "]\n";
  if (!tied_notes.empty()) {
    o << "# Note: these tied tables are read in another layout than they are stored in (the plan reshards them there):\n";
    for (const std::string& n : tied_notes) o << "#   " << n << "\n";
  }
  o << "\n# The layout of each op's output and the algorithm chosen for it.\noutput_placements = {\n";
  for (size_t v = 0; v < g.ops.size(); ++v)
    o << "    " << py_str(g.ops[v].name()) << ": " << python_placements(placements_of(chosen(plan, v).output, false)) << ",  # "
      << chosen(plan, v).name << "\n";
  o << "}\n\n\ndef apply(model):\n"
    << "    \"\"\"Places `model`'s parameters as the plan does: tp_plan over mesh[\"tp\"], then distributed_params on the whole mesh.\n\n"
    << "    Parameters replicated over \"dp\" (data parallelism) synchronise their gradients over mesh[\"dp\"]\n"
    << "    (DistributedDataParallel(model, device_mesh=mesh[\"dp\"]), or FSDP over mesh[\"dp\"]).\n"
    << "    \"\"\"\n"
    << "    if tp_plan:\n"
    << "        model = parallelize_module(model, mesh[\"tp\"], tp_plan)\n"
    << "    for name in distributed_params:\n"
    << "        module_name, _, param_name = name.rpartition(\".\")\n"
    << "        module = model.get_submodule(module_name)\n"
    << "        tensor = getattr(module, param_name)\n"
    << "        module.register_parameter(param_name, nn.Parameter(distribute_tensor(tensor.data, mesh, param_placements[name])))\n"
    << "    return model\n";
  return o.str();
}

}  // namespace autopar
