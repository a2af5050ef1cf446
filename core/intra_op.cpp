// Per-op parallel algorithms on a device mesh and the intra-op problem built from them.
//
// A heavy op has loop dimensions (a matmul Y[b,j] = sum_i X[b,i] W[i,j] has b, i and j); every
// mesh axis of more than one device goes to one of them, so a 2-D mesh gives up to 9
// combinations. Splitting b is data parallelism (W's gradient is all-reduced over those axes),
// i is row parallelism (the partial outputs Y are all-reduced in the forward pass), j is column
// parallelism (the partial input gradients dX are all-reduced in the backward pass; none for
// model input data, which gets no gradient). Communication is counted; compute is not, since
// every such split divides the work evenly (lecture 5.4).
#include "intra_op.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>

namespace autopar {
namespace {

constexpr AxisMask kAxis[2] = {1, 2};

// Sum of an all-reduce of `bytes` over each axis in `mask` in turn.
double all_reduce_over(AxisMask mask, double bytes, const DeviceMesh& mesh) {
  double c = 0;
  for (int a = 0; a < 2; ++a)
    if (mask & kAxis[a]) c += all_reduce_cost(mesh.axis[a], bytes);
  return c;
}

double all_to_all_over(AxisMask mask, double bytes, const DeviceMesh& mesh) {
  double c = 0;
  for (int a = 0; a < 2; ++a)
    if (mask & kAxis[a]) c += all_to_all_cost(mesh.axis[a], bytes);
  return c;
}

double bytes_of(const Tensor& t, const ShardingSpec& s, const DeviceMesh& mesh) {
  return per_device_elements(s, t.shape, mesh) * dtype_bytes(t.dtype);
}

ShardingSpec spec_of_rank(size_t rank) { return ShardingSpec{std::vector<AxisMask>(rank, 0)}; }

// Every way to give each mesh axis (of more than one device) to one of `roles` loop dimensions,
// as masks per role; `fits(masks)` tells whether the splits divide. When no assignment fits,
// axes may stay unassigned (replicated).
std::vector<std::vector<AxisMask>> role_assignments(const DeviceMesh& mesh, size_t roles,
                                                    const std::function<bool(const std::vector<AxisMask>&)>& fits) {
  std::vector<std::vector<AxisMask>> out;
  auto run = [&](bool allow_unassigned) {
    const size_t options = roles + (allow_unassigned ? 1 : 0);
    for (size_t r0 = 0; r0 < options; ++r0)
      for (size_t r1 = 0; r1 < options; ++r1) {
        std::vector<AxisMask> m(roles, 0);
        bool skip = false;
        const size_t pick[2] = {r0, r1};
        for (int a = 0; a < 2; ++a) {
          if (mesh.axis[a].size == 1) {
            if (pick[a] != 0) skip = true;   // an axis of one device changes nothing: one variant only
            continue;
          }
          if (pick[a] < roles) m[pick[a]] |= kAxis[a];
        }
        if (!skip && fits(m) && std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
      }
  };
  run(false);
  if (out.empty()) run(true);
  return out;
}

std::string role_name(const std::vector<AxisMask>& masks, const std::vector<const char*>& names) {
  std::string s;
  for (int a = 0; a < 2; ++a)
    for (size_t r = 0; r < masks.size(); ++r)
      if (masks[r] & kAxis[a]) s += (s.empty() ? "" : " ") + std::string(names[r]) + "@" + std::to_string(a);
  return s.empty() ? "replicated" : s;
}

bool divides(int64_t size, AxisMask m, const DeviceMesh& mesh) { return size % mask_ways(m, mesh) == 0; }

double param_bytes_of(const Op& op, const std::vector<ShardingSpec>& param_specs, const DeviceMesh& mesh) {
  double b = 0;
  for (size_t k = 0; k < op.params.size(); ++k) b += bytes_of(op.params[k], param_specs[k], mesh);
  return b;
}

// Memory of a strategy: parameters and their gradients, and the output kept for backward.
void set_memory(OpStrategy& s, const Op& op, const DeviceMesh& mesh) {
  std::vector<ShardingSpec> params(s.inputs.begin() + long(op.inputs.size()), s.inputs.end());
  s.memory_bytes = 2 * param_bytes_of(op, params, mesh) + bytes_of(op.output, s.output, mesh);
}

// Matmul-like ops: linear, conv1d, conv2d. Roles: data (b), row (i, the reduced dimension),
// column (j, the output features or channels).
std::vector<OpStrategy> matmul_strategies(const Op& op, const DeviceMesh& mesh, bool input_is_data) {
  const Shape& x = op.inputs[0].shape;
  const Shape& y = op.output.shape;
  const bool conv = op.spec.kind != OpKind::linear;
  const bool flatten = op.geometry.flatten;
  const size_t x_i = conv ? 1 : x.size() - 1;          // reduced dimension of X
  const size_t y_j = conv ? 1 : y.size() - 1;          // output feature dimension of Y
  const int64_t b = x[0], i = conv ? x[1] : x.back(), j = y[y_j];
  std::vector<OpStrategy> out;
  for (const auto& m : role_assignments(mesh, 3, [&](const std::vector<AxisMask>& r) {
         return divides(b, r[0], mesh) && divides(j, r[2], mesh) && (r[1] == 0 || (!flatten && divides(i, r[1], mesh)));
       })) {
    OpStrategy s;
    s.name = role_name(m, {"data", "row", "column"});
    ShardingSpec xs = spec_of_rank(x.size()), ys = spec_of_rank(y.size());
    xs.dims[0] = m[0];
    xs.dims[x_i] |= m[1];
    ys.dims[0] = m[0];
    ys.dims[y_j] |= m[2];
    s.inputs.push_back(xs);
    // Weight: linear [i, j]; convolution [j, i, k...]. Bias: [j].
    for (const Tensor& p : op.params) {
      ShardingSpec ps = spec_of_rank(p.shape.size());
      if (p.shape.size() == 1) {
        ps.dims[0] = m[2];
      } else if (conv) {
        ps.dims[0] = m[2];
        ps.dims[1] = m[1];
      } else {
        ps.dims[0] = m[1];
        ps.dims[1] = m[2];
      }
      s.inputs.push_back(ps);
    }
    s.output = ys;
    s.forward_comm = all_reduce_over(m[1], bytes_of(op.output, ys, mesh), mesh);
    if (!input_is_data) s.backward_comm = all_reduce_over(m[2], bytes_of(op.inputs[0], xs, mesh), mesh);
    std::vector<ShardingSpec> params(s.inputs.begin() + 1, s.inputs.end());
    s.grad_sync = all_reduce_over(m[0], param_bytes_of(op, params, mesh), mesh);
    set_memory(s, op, mesh);
    out.push_back(s);
  }
  return out;
}

// Embedding: roles data (b), row (the table's rows: partial outputs all-reduced), column (the
// embedding width).
std::vector<OpStrategy> embedding_strategies(const Op& op, const DeviceMesh& mesh) {
  const Shape& ids = op.inputs[0].shape;
  const Shape& y = op.output.shape;
  const Shape& table = op.params[0].shape;
  std::vector<OpStrategy> out;
  for (const auto& m : role_assignments(mesh, 3, [&](const std::vector<AxisMask>& r) {
         return divides(ids[0], r[0], mesh) && divides(table[0], r[1], mesh) && divides(table[1], r[2], mesh);
       })) {
    OpStrategy s;
    s.name = role_name(m, {"data", "row", "column"});
    ShardingSpec is = spec_of_rank(ids.size()), ys = spec_of_rank(y.size()), ts = spec_of_rank(2);
    is.dims[0] = m[0];
    ys.dims[0] = m[0];
    ys.dims[y.size() - 1] = m[2];
    ts.dims[0] = m[1];
    ts.dims[1] = m[2];
    s.inputs = {is, ts};
    s.output = ys;
    s.forward_comm = all_reduce_over(m[1], bytes_of(op.output, ys, mesh), mesh);
    s.grad_sync = all_reduce_over(m[0], bytes_of(op.params[0], ts, mesh), mesh);
    set_memory(s, op, mesh);
    out.push_back(s);
  }
  return out;
}

// Attention core: split by batch or by heads, no communication either way.
std::vector<OpStrategy> attention_strategies(const Op& op, const DeviceMesh& mesh) {
  const Shape& x = op.inputs[0].shape;
  const int64_t heads = op.spec.attrs.at("heads");
  auto kv = op.spec.attrs.find("kv_heads");   // grouped-query attention: split whole K/V groups
  const int64_t kv_heads = kv == op.spec.attrs.end() ? heads : kv->second;
  std::vector<OpStrategy> out;
  for (const auto& m : role_assignments(mesh, 2, [&](const std::vector<AxisMask>& r) {
         return divides(x[0], r[0], mesh) && divides(heads, r[1], mesh) && divides(kv_heads, r[1], mesh);
       })) {
    OpStrategy s;
    s.name = role_name(m, {"data", "heads"});
    ShardingSpec xs = spec_of_rank(3), ys = spec_of_rank(3);
    xs.dims[0] = ys.dims[0] = m[0];
    xs.dims[2] = ys.dims[2] = m[1];
    s.inputs = {xs};
    s.output = ys;
    set_memory(s, op, mesh);
    out.push_back(s);
  }
  return out;
}

// Mixture of experts: split the tokens by data or by expert; expert parallelism dispatches and
// combines tokens with all-to-alls (GShard), twice forward and twice backward.
std::vector<OpStrategy> moe_strategies(const Op& op, const DeviceMesh& mesh) {
  const Shape& x = op.inputs[0].shape;
  const int64_t experts = op.spec.attrs.at("experts"), top_k = op.spec.attrs.at("top_k");
  std::vector<OpStrategy> out;
  for (const auto& m : role_assignments(mesh, 2, [&](const std::vector<AxisMask>& r) {
         return divides(x[0], AxisMask(r[0] | r[1]), mesh) && divides(experts, r[1], mesh);
       })) {
    OpStrategy s;
    s.name = role_name(m, {"data", "expert"});
    ShardingSpec xs = spec_of_rank(x.size());
    xs.dims[0] = AxisMask(m[0] | m[1]);
    s.inputs = {xs};
    for (const Tensor& p : op.params) {
      ShardingSpec ps = spec_of_rank(p.shape.size());
      if (p.shape.size() == 3) ps.dims[0] = m[1];   // expert weights [E, ...]
      s.inputs.push_back(ps);
    }
    s.output = xs;
    const double tokens = bytes_of(op.inputs[0], xs, mesh) * double(top_k);
    s.forward_comm = 2 * all_to_all_over(m[1], tokens, mesh);
    s.backward_comm = 2 * all_to_all_over(m[1], tokens, mesh);
    // The gate is replicated everywhere; expert weights only across the data axes.
    s.grad_sync = all_reduce_over(AxisMask(m[0] | m[1]), bytes_of(op.params[0], s.inputs[1], mesh), mesh) +
                  all_reduce_over(m[0], bytes_of(op.params[1], s.inputs[2], mesh) + bytes_of(op.params[2], s.inputs[3], mesh), mesh);
    set_memory(s, op, mesh);
    out.push_back(s);
  }
  return out;
}

// Light ops follow the spec of their first operand, cleared where the op cannot split
// (a normalised row, a loss over classes, flattened or pooled dimensions).
std::vector<OpStrategy> follower_strategies(const Op& op, const DeviceMesh& mesh, const std::vector<ShardingSpec>& candidates) {
  std::vector<OpStrategy> out;
  auto add = [&](const ShardingSpec& in0) {
    OpStrategy s;
    const size_t r = in0.dims.size();
    ShardingSpec first = in0, output;
    switch (op.spec.kind) {
      case OpKind::layernorm:
      case OpKind::softmax:
      case OpKind::rmsnorm:
        first.dims[r - 1] = 0;
        output = first;
        break;
      case OpKind::loss:
        first.dims[r - 1] = 0;
        output = ShardingSpec{std::vector<AxisMask>(first.dims.begin(), first.dims.end() - 1)};
        break;
      case OpKind::flatten:
      case OpKind::concat:
      case OpKind::first_token:
        for (size_t d = 1; d < r; ++d) first.dims[d] = 0;
        output = spec_of_rank(op.output.shape.size());
        output.dims[0] = first.dims[0];
        break;
      case OpKind::pool2d:
        for (size_t d = 2; d < r; ++d) first.dims[d] = 0;
        output = first;
        break;
      default:
        output = first;
    }
    // Every data input in the same layout (concat: each with its own width).
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      ShardingSpec sk = first;
      if (op.spec.kind == OpKind::concat) {
        sk = spec_of_rank(op.inputs[k].shape.size());
        sk.dims[0] = first.dims[0];
      }
      if (!validate_spec(sk, op.inputs[k].shape, mesh, "").ok()) return;
      s.inputs.push_back(sk);
    }
    if (!validate_spec(output, op.output.shape, mesh, "").ok()) return;
    AxisMask used = 0;
    for (AxisMask m : output.dims) used |= m;
    for (const Tensor& p : op.params) s.inputs.push_back(spec_of_rank(p.shape.size()));   // replicated
    s.output = output;
    s.name = "follow " + spec_to_string(first);
    double pbytes = 0;
    for (const Tensor& p : op.params) pbytes += double(tensor_bytes(p));
    s.grad_sync = all_reduce_over(used, pbytes, mesh);
    if (op.spec.kind == OpKind::loss) s.forward_comm = all_reduce_over(used, double(dtype_bytes(op.output.dtype)), mesh);
    set_memory(s, op, mesh);
    for (const OpStrategy& o : out)
      if (o.inputs == s.inputs && o.output == s.output) return;
    out.push_back(s);
  };
  for (const ShardingSpec& c : candidates)
    if (c.dims.size() == op.inputs[0].shape.size()) add(c);
  if (out.empty()) add(spec_of_rank(op.inputs[0].shape.size()));
  return out;
}

}  // namespace

int64_t work_split(const OpStrategy& s, const DeviceMesh& mesh) {
  AxisMask used = 0;
  for (AxisMask m : s.output.dims) used |= m;
  for (const ShardingSpec& in : s.inputs)
    for (AxisMask m : in.dims) used |= m;
  return mask_ways(used, mesh);
}

ShardingSpec input_data_spec(const Shape& shape, const DeviceMesh& mesh) {
  ShardingSpec s = spec_of_rank(shape.size());
  for (AxisMask m : {AxisMask(3), AxisMask(2), AxisMask(1)})
    if (mask_ways(m, mesh) > 1 && shape[0] % mask_ways(m, mesh) == 0) {
      s.dims[0] = m;
      break;
    }
  return s;
}

std::vector<std::vector<OpStrategy>> enumerate_strategies(const Graph& g, const DeviceMesh& mesh, const IntraOpOptions& options) {
  std::vector<std::vector<OpStrategy>> all(g.ops.size());
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const Op& op = g.ops[v];
    const bool input_is_data = op.producers[0] < 0 && std::find(options.gradient_inputs.begin(), options.gradient_inputs.end(),
                                                                op.inputs[0].name) == options.gradient_inputs.end();
    switch (op.spec.kind) {
      case OpKind::linear:
      case OpKind::conv1d:
      case OpKind::conv2d: all[v] = matmul_strategies(op, mesh, input_is_data); break;
      case OpKind::embedding: all[v] = embedding_strategies(op, mesh); break;
      case OpKind::attention: all[v] = attention_strategies(op, mesh); break;
      case OpKind::moe: all[v] = moe_strategies(op, mesh); break;
      default: {
        std::vector<ShardingSpec> candidates;
        if (input_is_data) {
          candidates.push_back(input_data_spec(op.inputs[0].shape, mesh));
        } else if (op.producers[0] < 0) {
          candidates = all_specs(op.inputs[0].shape, mesh);   // a stage's activation: any layout it arrives in
        } else {
          for (const OpStrategy& s : all[size_t(op.producers[0])])
            if (std::find(candidates.begin(), candidates.end(), s.output) == candidates.end()) candidates.push_back(s.output);
        }
        all[v] = follower_strategies(op, mesh, candidates);
      }
    }
    if (options.data_parallel_only) {
      // No operator parallelism: keep the strategies that split nothing but the batch.
      std::vector<OpStrategy> kept;
      for (const OpStrategy& s : all[v])
        if (s.name.find("row") == std::string::npos && s.name.find("column") == std::string::npos &&
            s.name.find("heads") == std::string::npos && s.name.find("expert") == std::string::npos)
          kept.push_back(s);
      if (!kept.empty()) all[v] = kept;
    }
    for (OpStrategy& s : all[v]) s.grad_sync *= options.grad_sync_scale;
    // Model input data arrives in its loader spec; moving it costs (forward only: no gradient).
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      if (op.producers[k] >= 0) continue;
      // A pipeline stage's activations arrive as the previous stage sends them (costed there).
      if (std::find(options.gradient_inputs.begin(), options.gradient_inputs.end(), op.inputs[k].name) != options.gradient_inputs.end()) continue;
      const ShardingSpec loaded = input_data_spec(op.inputs[k].shape, mesh);
      for (OpStrategy& s : all[v])
        s.input_reshard += reshard(loaded, s.inputs[k], op.inputs[k].shape, dtype_bytes(op.inputs[k].dtype), mesh).cost;
    }
  }
  return all;
}

Result<IntraOpPlan> plan_intra_op(const Graph& g, const DeviceMesh& mesh, const IntraOpOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  IntraOpPlan plan;
  plan.mesh = mesh;
  plan.strategies = enumerate_strategies(g, mesh, options);
  IntraProblem& p = plan.problem;
  p.memory_budget = options.memory_budget_bytes;
  for (const auto& ss : plan.strategies) {
    std::vector<double> cost, mem;
    for (const OpStrategy& s : ss) {
      cost.push_back(s.cost());
      mem.push_back(s.memory_bytes);
    }
    p.node_cost.push_back(cost);
    p.node_memory.push_back(mem);
  }
  // Edges: resharding the activation forward and its gradient backward.
  for (size_t v = 0; v < g.ops.size(); ++v)
    for (size_t k = 0; k < g.ops[v].inputs.size(); ++k) {
      const int u = g.ops[v].producers[k];
      if (u < 0) continue;
      const Tensor& t = g.ops[v].inputs[k];
      IntraProblem::Edge e;
      e.u = u;
      e.v = int(v);
      std::map<std::pair<ShardingSpec, ShardingSpec>, double> memo;
      for (const OpStrategy& a : plan.strategies[size_t(u)])
        for (const OpStrategy& b : plan.strategies[v]) {
          auto key = std::make_pair(a.output, b.inputs[k]);
          auto it = memo.find(key);
          if (it == memo.end()) {
            double c = reshard(a.output, b.inputs[k], t.shape, dtype_bytes(t.dtype), mesh).cost +
                       reshard(b.inputs[k], a.output, t.shape, dtype_bytes(t.dtype), mesh).cost;
            it = memo.emplace(key, c).first;
          }
          e.cost.push_back(it->second);
        }
      p.edges.push_back(e);
    }
  std::string solver = options.solver;
  if (solver == "auto") solver = is_chain(p) && options.memory_budget_bytes <= 0 ? "dp" : "ilp";
  Result<IntraSolution> sol = make_error("bad_value", "unknown solver '" + options.solver + "'; use ilp, dp or exhaustive", "--solver");
  if (solver == "ilp") sol = solve_ilp(p, options.time_limit_ms, options.write_lp);
  else if (solver == "dp") sol = solve_chain_dp(p);
  else if (solver == "exhaustive") sol = solve_exhaustive(p);
  if (!sol.ok()) return sol.error();
  plan.solution = sol.value();
  plan.objective = plan.solution.objective;
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const OpStrategy& s = plan.strategies[v][size_t(plan.solution.choice[v])];
    plan.communication_cost += s.forward_comm + s.backward_comm + s.grad_sync;
    plan.resharding_cost += s.input_reshard;
    plan.memory_per_device += s.memory_bytes;
    plan.activation_memory_per_device += per_device_elements(s.output, g.ops[v].output.shape, mesh) * dtype_bytes(g.ops[v].output.dtype);
    plan.grad_sync_cost += options.grad_sync_scale > 0 ? s.grad_sync / options.grad_sync_scale : 0;
  }
  plan.param_memory_per_device = plan.memory_per_device - plan.activation_memory_per_device;
  for (const auto& e : p.edges)
    plan.resharding_cost += e.cost[size_t(plan.solution.choice[size_t(e.u)] * p.choices(e.v) + plan.solution.choice[size_t(e.v)])];
  plan.solve_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace autopar
