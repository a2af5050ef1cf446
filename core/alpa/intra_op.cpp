// Per-op parallel algorithms on a device mesh and the intra-op problem built from them.
//
// A heavy op has loop dimensions (a matmul Y[b,j] = sum_i X[b,i] W[i,j] has b, i and j); every
// mesh axis of more than one device goes to one of them, so a 2-D mesh gives up to 9
// combinations. Splitting b is data parallelism (W's gradient is all-reduced over those axes),
// i is row parallelism (the partial outputs Y are all-reduced in the forward pass), j is column
// parallelism (the partial input gradients dX are all-reduced in the backward pass; none for
// model input data, which gets no gradient). Communication is counted; compute is not, since
// every such split divides the work evenly (lecture 5.4; an uneven split's largest part differs
// by one element, and it bounds the buffers costed here: see per_device_elements).
//
// Two cost conventions (DeviceMesh::alpa_conventions):
//   cluster mesh (--cluster): what a real run pays. Model inputs arrive split by batch (a data
//     loader); one gradient all-reduce per op (a bucket); the loss's scalar all-reduce is paid;
//     parameters may be stored split over both mesh axes.
//   Alpa mesh (--alpha/--beta): the conventions of Alpa's auto-sharding pass, so that its own
//     tests' objectives come out: rounded collective costs with constant terms (device_mesh.h);
//     model inputs take any 1-D sharding for free (the ILP picks how the loader shards them);
//     a replicated parameter pays the replicated penalty for itself and Adam's two moments, a
//     replicated input once; one all-reduce per gradient tensor; parameters are stored split
//     along at most one mesh axis (a 2-D split is sliced for the forward pass and its gradient
//     all-gathered back); the loss, not returned, costs nothing.
#include "intra_op.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>

#include "cost_model.h"
#include "op_kinds.h"

namespace autopar {
namespace {

constexpr AxisMask kAxis[2] = {1, 2};

// The axes of `mask` that have more than one device (the others never communicate).
AxisMask live_axes(AxisMask mask, const DeviceMesh& mesh) {
  AxisMask m = 0;
  for (int a = 0; a < 2; ++a)
    if ((mask & kAxis[a]) && mesh.axis[a].size > 1) m |= kAxis[a];
  return m;
}

int axis_count(AxisMask mask, const DeviceMesh& mesh) {
  const AxisMask m = live_axes(mask, mesh);
  return (m & 1) + ((m >> 1) & 1);
}

// One collective over each axis of `mask` in turn, `cost` pricing it on one axis. With `sharding`
// the buffer shrinks by each axis's size after its step: a reduce-scatter scatters it, and the
// all-gather undoing it starts from the scattered size (each step's buffer is its gathered output,
// the last step the whole of `bytes`), so both walk the same sizes.
double collective_over(AxisMask mask, double bytes, const DeviceMesh& mesh, double (*cost)(const MeshAxis&, double),
                       bool sharding) {
  double c = 0;
  for (int a = 0; a < 2; ++a)
    if (mask & kAxis[a]) {
      c += cost(mesh.axis[a], bytes);
      if (sharding) bytes /= mesh.axis[a].size;
    }
  return c;
}

// An all-reduce of `bytes` per device over each axis of `mask` in turn.
double all_reduce_over(AxisMask mask, double bytes, const DeviceMesh& mesh) {
  return collective_over(mask, bytes, mesh, all_reduce_cost, false);
}
// An all-to-all of `bytes` per device over each axis of `mask` in turn.
double all_to_all_over(AxisMask mask, double bytes, const DeviceMesh& mesh) {
  return collective_over(mask, bytes, mesh, all_to_all_cost, false);
}
// A reduce-scatter of a buffer of `bytes` per device over the axes of `mask`.
double reduce_scatter_over(AxisMask mask, double bytes, const DeviceMesh& mesh) {
  return collective_over(mask, bytes, mesh, reduce_scatter_cost, true);
}
// The all-gather undoing reduce_scatter_over: back to `bytes` per device.
double all_gather_over(AxisMask mask, double bytes, const DeviceMesh& mesh) {
  return collective_over(mask, bytes, mesh, all_gather_cost, true);
}

// True when dimension 1 of the op's output is its sequence: the op kind declares a "length"
// attribute split there (op_kinds.cpp), which holds for the transformer's linears, norms,
// residual adds, dropout, activations and loss, and not for convolutions' channels.
bool has_sequence_dim(const Op& op) {
  for (const SplitDim& d : op.split_dims)
    if (d.kind == SplitKind::attribute && d.output_dim == 1 && d.name == "length") return true;
  return false;
}

CollectiveCounts all_reduces(int n) {
  CollectiveCounts c;
  c.all_reduce = n;
  return c;
}

double bytes_of(const Tensor& t, const ShardingSpec& s, const DeviceMesh& mesh) {
  return per_device_elements(s, t.shape, mesh) * dtype_bytes(t.dtype);
}

ShardingSpec spec_of_rank(size_t rank) { return ShardingSpec{std::vector<AxisMask>(rank, 0)}; }

bool replicated(const ShardingSpec& s, const DeviceMesh& mesh) {
  AxisMask used = 0;
  for (AxisMask m : s.dims) used |= m;
  return live_axes(used, mesh) == 0;
}

// Every way to give each mesh axis (of more than one device) to one of `roles` loop dimensions,
// as masks per role; `fits(masks)` tells whether the splits are possible. When no assignment
// fits, axes may stay unassigned (replicated).
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

// The mesh axes of a mask as digits: "0", "1" or "01".
std::string axes_text(AxisMask m) { return std::string(m & 1 ? "0" : "") + (m & 2 ? "1" : ""); }

// A dimension of `size` can be split over the axes of `m` when every device gets at least one
// element; the parts need not be equal (uneven split, largest part ceil(size / ways)).
bool fits(int64_t size, AxisMask m, const DeviceMesh& mesh) { return size >= mask_ways(m, mesh); }

std::vector<ShardingSpec> param_specs_of(const OpStrategy& s, const Op& op) {
  return std::vector<ShardingSpec>(s.inputs.begin() + long(op.inputs.size()), s.inputs.end());
}

double param_bytes_of(const Op& op, const std::vector<ShardingSpec>& param_specs, const DeviceMesh& mesh) {
  double b = 0;
  for (size_t k = 0; k < op.params.size(); ++k) b += bytes_of(op.params[k], param_specs[k], mesh);
  return b;
}

// Memory of a strategy: parameters and their gradients, and the output kept for backward.
void set_memory(OpStrategy& s, const Op& op, const DeviceMesh& mesh) {
  s.memory_bytes = 2 * param_bytes_of(op, param_specs_of(s, op), mesh) + bytes_of(op.output, s.output, mesh);
}

// The gradient synchronisation of a strategy whose parameter k is all-reduced over
// `axes[k]`, and, under Alpa's conventions, its parameter terms (see the file comment).
void set_parameter_costs(OpStrategy& s, const Op& op, const std::vector<AxisMask>& axes, const DeviceMesh& mesh) {
  const std::vector<ShardingSpec> specs = param_specs_of(s, op);
  const bool alpa = mesh.alpa_conventions();
  // A tied head's weight is the embedding's table (read transposed): the two uses' gradients add
  // up on each device and the table's own op synchronises (and, under Alpa's conventions, pays
  // the replicated penalty for) the sum once; the head pays neither again.
  auto tied = [&](size_t k) { return !op.spec.weight_from.empty() && op.params[k].name == op.spec.weight_from + ".weight"; };
  s.grad_sync = 0;
  s.grad_syncs.clear();
  for (size_t k = 0; k < op.params.size(); ++k) {
    if (tied(k)) continue;
    const AxisMask m = live_axes(axes[k], mesh);
    const double bytes = bytes_of(op.params[k], specs[k], mesh);
    if (m == 0 || bytes <= 0) continue;
    // Alpa: one all-reduce per tensor; a cluster: one bucket per op and set of axes.
    auto it = std::find_if(s.grad_syncs.begin(), s.grad_syncs.end(), [&](const GradSync& g) { return g.axes == m; });
    if (alpa || it == s.grad_syncs.end()) {
      s.grad_syncs.push_back(GradSync{{int(k)}, m, bytes, 0});
    } else {
      it->params.push_back(int(k));
      it->bytes += bytes;
    }
  }
  for (GradSync& g : s.grad_syncs) {
    g.cost = all_reduce_over(g.axes, g.bytes, mesh);
    s.grad_sync += g.cost;
  }
  s.penalty = 0;
  s.update_collectives = CollectiveCounts{};
  if (!alpa) return;
  const double pen = replicated_penalty(mesh);
  for (size_t k = 0; k < op.params.size(); ++k) {
    if (tied(k)) continue;
    const ShardingSpec& p = specs[k];
    AxisMask used = 0;
    for (AxisMask d : p.dims) used |= d;
    used = live_axes(used, mesh);
    if (used == 0) {
      s.penalty += 3 * pen;   // the parameter and Adam's two moments, each an input of the step
    } else if (used == 3) {
      // Stored split along one axis; the gradient is all-gathered over the other, whichever is cheaper.
      double best = 0;
      for (int keep = 0; keep < 2; ++keep) {
        ShardingSpec stored = p;
        for (AxisMask& d : stored.dims) d &= kAxis[keep];
        const double c = all_gather_cost(mesh.axis[1 - keep], bytes_of(op.params[k], stored, mesh));
        if (keep == 0 || c < best) best = c;
      }
      s.grad_sync += best;
      s.update_collectives.all_gather += 1;
    }
  }
}

// Matmul-like ops: linear, conv1d, conv2d. Roles: data (b), row (i, the reduced dimension),
// column (j, the output features or channels).
// With `sequence` (Megatron's sequence parallelism, Korthikanti et al. 2022, section 4.2.2) a
// [batch, seq, features] linear also offers: a row split whose output is reduce-scattered along
// the sequence instead of all-reduced (its output gradient all-gathered back in the backward
// pass), and a column split reading an input split along the sequence, all-gathered before the
// product; its input gradient is then reduce-scattered instead of all-reduced, and the input is
// all-gathered again in the backward pass for the weight gradient, since only the sequence
// shard is kept (the paper's section 4.2.2 stores the shard, not the gathered input).
std::vector<OpStrategy> matmul_strategies(const Op& op, const DeviceMesh& mesh, bool input_is_data, bool sequence) {
  const Shape& x = op.inputs[0].shape;
  const Shape& y = op.output.shape;
  const bool conv = op.spec.kind != OpKind::linear;
  const bool flatten = op.geometry.flatten;
  const size_t x_i = conv ? 1 : x.size() - 1;          // reduced dimension of X
  const size_t y_j = conv ? 1 : y.size() - 1;          // output feature dimension of Y
  const int64_t b = x[0], i = conv ? x[1] : x.back(), j = y[y_j];
  std::vector<OpStrategy> out;
  for (const auto& m : role_assignments(mesh, 3, [&](const std::vector<AxisMask>& r) {
         return fits(b, r[0], mesh) && fits(j, r[2], mesh) && (r[1] == 0 || (!flatten && fits(i, r[1], mesh)));
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
    s.forward_collectives = all_reduces(axis_count(m[1], mesh));
    if (!input_is_data) {
      s.backward_comm = all_reduce_over(m[2], bytes_of(op.inputs[0], xs, mesh), mesh);
      s.backward_collectives = all_reduces(axis_count(m[2], mesh));
    }
    set_parameter_costs(s, op, std::vector<AxisMask>(op.params.size(), m[0]), mesh);
    set_memory(s, op, mesh);
    out.push_back(s);
    if (!sequence || conv || flatten || x.size() != 3 || y.size() != 3 || !has_sequence_dim(op)) continue;
    const bool scatter_out = m[1] != 0 && fits(y[1], m[1], mesh), gather_in = m[2] != 0 && fits(x[1], m[2], mesh);
    const double y_bytes = bytes_of(op.output, ys, mesh), x_bytes = bytes_of(op.inputs[0], xs, mesh);
    for (int variant = 1; variant < 4; ++variant) {
      const bool scatter = (variant & 1) != 0, gather = (variant & 2) != 0;
      if ((scatter && !scatter_out) || (gather && !gather_in)) continue;
      OpStrategy v = s;
      v.forward_comm = v.backward_comm = 0;
      v.forward_collectives = v.backward_collectives = CollectiveCounts{};
      if (scatter) {
        v.output.dims[1] = m[1];
        v.forward_comm += reduce_scatter_over(m[1], y_bytes, mesh);
        v.forward_collectives.reduce_scatter += axis_count(m[1], mesh);
        v.backward_comm += all_gather_over(m[1], y_bytes, mesh);
        v.backward_collectives.all_gather += axis_count(m[1], mesh);
      } else {
        v.forward_comm += s.forward_comm;
        v.forward_collectives += s.forward_collectives;
      }
      if (gather) {
        v.inputs[0].dims[1] = m[2];
        v.forward_comm += all_gather_over(m[2], x_bytes, mesh);
        v.forward_collectives.all_gather += axis_count(m[2], mesh);
        v.backward_comm += all_gather_over(m[2], x_bytes, mesh);
        v.backward_collectives.all_gather += axis_count(m[2], mesh);
        if (!input_is_data) {
          v.backward_comm += reduce_scatter_over(m[2], x_bytes, mesh);
          v.backward_collectives.reduce_scatter += axis_count(m[2], mesh);
        }
      } else {
        v.backward_comm += s.backward_comm;
        v.backward_collectives += s.backward_collectives;
      }
      v.name = s.name + (scatter ? " seq-out@" + axes_text(m[1]) : "") + (gather ? " seq-in@" + axes_text(m[2]) : "");
      set_memory(v, op, mesh);
      out.push_back(v);
    }
  }
  return out;
}

// Embedding: roles data (b), row (the table's rows: partial outputs all-reduced), column (the
// embedding width). With `sequence`, a row split of a [batch, seq, width] output may instead
// reduce-scatter it along the sequence (Megatron's sequence parallelism after its
// vocabulary-parallel embedding), the output gradient all-gathered back in the backward pass.
std::vector<OpStrategy> embedding_strategies(const Op& op, const DeviceMesh& mesh, bool sequence) {
  const Shape& ids = op.inputs[0].shape;
  const Shape& y = op.output.shape;
  const Shape& table = op.params[0].shape;
  std::vector<OpStrategy> out;
  for (const auto& m : role_assignments(mesh, 3, [&](const std::vector<AxisMask>& r) {
         return fits(ids[0], r[0], mesh) && fits(table[0], r[1], mesh) && fits(table[1], r[2], mesh);
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
    s.forward_collectives = all_reduces(axis_count(m[1], mesh));
    set_parameter_costs(s, op, {m[0]}, mesh);
    set_memory(s, op, mesh);
    out.push_back(s);
    if (!sequence || m[1] == 0 || y.size() != 3 || !has_sequence_dim(op) || !fits(y[1], m[1], mesh)) continue;
    OpStrategy v = s;
    const double y_bytes = bytes_of(op.output, ys, mesh);
    v.output.dims[1] = m[1];
    v.forward_comm = reduce_scatter_over(m[1], y_bytes, mesh);
    v.forward_collectives = CollectiveCounts{};
    v.forward_collectives.reduce_scatter = axis_count(m[1], mesh);
    v.backward_comm = all_gather_over(m[1], y_bytes, mesh);
    v.backward_collectives.all_gather = axis_count(m[1], mesh);
    v.name = s.name + " seq-out@" + axes_text(m[1]);
    set_memory(v, op, mesh);
    out.push_back(v);
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
         return fits(x[0], r[0], mesh) && fits(heads, r[1], mesh) && fits(kv_heads, r[1], mesh);
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
// Under a given plan's expert parallelism (`tokens_everywhere`) one strategy: every device its
// own tokens (the batch over the rows, the sequence over the columns as sequence parallelism
// splits it, where they fit), the experts whole everywhere; the plan's ep-way expert split and
// its all-to-alls are priced apart (context_expert.h).
std::vector<OpStrategy> moe_strategies(const Op& op, const DeviceMesh& mesh, bool tokens_everywhere) {
  const Shape& x = op.inputs[0].shape;
  const int64_t experts = op.spec.attrs.at("experts"), top_k = op.spec.attrs.at("top_k");
  std::vector<OpStrategy> out;
  if (tokens_everywhere) {
    OpStrategy s;
    ShardingSpec xs = spec_of_rank(x.size());
    const AxisMask rows = live_axes(kAxis[0], mesh), cols = live_axes(kAxis[1], mesh);
    if (x.size() >= 3 && fits(x[0], rows, mesh) && fits(x[1], cols, mesh)) {
      xs.dims[0] = rows;
      xs.dims[1] = cols;
    } else if (fits(x[0], AxisMask(rows | cols), mesh)) {
      xs.dims[0] = AxisMask(rows | cols);
    } else {
      xs.dims[0] = fits(x[0], rows, mesh) ? rows : AxisMask(0);
    }
    s.name = "tokens (expert parallel)";
    s.inputs = {xs};
    for (const Tensor& p : op.params) s.inputs.push_back(spec_of_rank(p.shape.size()));
    s.output = xs;
    AxisMask used = 0;
    for (AxisMask d : xs.dims) used = AxisMask(used | d);
    set_parameter_costs(s, op, std::vector<AxisMask>(op.params.size(), used), mesh);
    set_memory(s, op, mesh);
    out.push_back(s);
    return out;
  }
  for (const auto& m : role_assignments(mesh, 2, [&](const std::vector<AxisMask>& r) {
         return fits(x[0], AxisMask(r[0] | r[1]), mesh) && fits(experts, r[1], mesh);
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
    s.forward_collectives.all_to_all = s.backward_collectives.all_to_all = 2 * axis_count(m[1], mesh);
    // The gate is replicated everywhere; expert weights only across the data axes.
    std::vector<AxisMask> axes(op.params.size(), m[0]);
    axes[0] = AxisMask(m[0] | m[1]);
    set_parameter_costs(s, op, axes, mesh);
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
    const ShardingRule rule = op_kind_traits(op.spec.kind).sharding;
    switch (rule) {
      case ShardingRule::follow_whole_rows:
        first.dims[r - 1] = 0;
        output = first;
        break;
      case ShardingRule::follow_loss:
        first.dims[r - 1] = 0;
        output = ShardingSpec{std::vector<AxisMask>(first.dims.begin(), first.dims.end() - 1)};
        break;
      case ShardingRule::follow_batch_only:
        for (size_t d = 1; d < r; ++d) first.dims[d] = 0;
        output = spec_of_rank(op.output.shape.size());
        output.dims[0] = first.dims[0];
        break;
      case ShardingRule::follow_no_spatial:
        for (size_t d = 2; d < r; ++d) first.dims[d] = 0;
        output = first;
        break;
      default:
        output = first;
    }
    // Every data input in the same layout (batch-only kinds such as concat: each input with its
    // own rank and width, split only along the batch).
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      ShardingSpec sk = first;
      if (rule == ShardingRule::follow_batch_only) {
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
    set_parameter_costs(s, op, std::vector<AxisMask>(op.params.size(), used), mesh);
    // The loss is reported, so its partial sums are all-reduced; Alpa's train step does not
    // return it, so there it is free.
    if (rule == ShardingRule::follow_loss && !mesh.alpa_conventions()) {
      s.forward_comm = all_reduce_over(used, double(dtype_bytes(op.output.dtype)), mesh);
      s.forward_collectives = all_reduces(axis_count(used, mesh));
    }
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

// Sequence parallelism for an op that follows its operand (a norm, dropout, residual add,
// activation or loss): beside each candidate spec of a [batch, seq, ...] input, the same spec with
// its sequence dimension also split over the mesh axes it leaves free (each non-empty set of
// them), so that the op runs on its share of the positions (Korthikanti et al. 2022, 4.2.2).
std::vector<ShardingSpec> with_sequence_splits(const std::vector<ShardingSpec>& candidates, const Shape& shape, const DeviceMesh& mesh) {
  std::vector<ShardingSpec> out = candidates;
  if (shape.size() != 3) return out;
  for (const ShardingSpec& c : candidates) {
    if (c.dims.size() != 3) continue;
    const AxisMask free = live_axes(AxisMask(3 & ~(c.dims[0] | c.dims[1] | c.dims[2])), mesh);
    for (AxisMask f : {AxisMask(1), AxisMask(2), AxisMask(3)}) {
      if ((f & free) != f) continue;
      ShardingSpec split = c;
      split.dims[1] = AxisMask(c.dims[1] | f);
      if (fits(shape[1], split.dims[1], mesh) && std::find(out.begin(), out.end(), split) == out.end()) out.push_back(split);
    }
  }
  return out;
}

// The specs Alpa lets a model input take: replicated, or one dimension split along one mesh
// axis (its EnumerateAll1DPartition for parameters), 1-D splits first.
std::vector<ShardingSpec> alpa_input_specs(const Shape& shape, const DeviceMesh& mesh) {
  std::vector<ShardingSpec> out;
  for (size_t d = 0; d < shape.size(); ++d)
    for (int a = 0; a < 2; ++a) {
      if (mesh.axis[a].size <= 1 || shape[d] < mesh.axis[a].size) continue;
      ShardingSpec s = spec_of_rank(shape.size());
      s.dims[d] = kAxis[a];
      out.push_back(s);
    }
  out.push_back(spec_of_rank(shape.size()));
  return out;
}

bool is_gradient_input(const IntraOpOptions& o, const std::string& name) {
  return std::find(o.gradient_inputs.begin(), o.gradient_inputs.end(), name) != o.gradient_inputs.end();
}

// The reduce-scatter of one gradient synchronisation: on a cluster the bucket is a flat buffer
// (ZeRO flattens it), always divisible; under Alpa's conventions the tensor is scattered along
// its first dimension that can take the extra split. Returns the dimension, -1 for a flat
// bucket, -2 when the tensor cannot be scattered (it keeps its all-reduce).
int scatter_dim(const Op& op, const OpStrategy& s, const GradSync& g, const DeviceMesh& mesh) {
  if (!mesh.alpa_conventions()) return -1;
  const Tensor& p = op.params[size_t(g.params[0])];
  const ShardingSpec& spec = s.inputs[op.inputs.size() + size_t(g.params[0])];
  // A tensor no mesh axis splits is scattered along its first dimension or not at all (Alpa
  // keeps test_bert's 2 x 16 token-type table whole over 4 devices and all-reduces it).
  bool whole = true;
  for (AxisMask d : spec.dims) whole = whole && live_axes(d, mesh) == 0;
  if (whole) return !p.shape.empty() && p.shape[0] >= mask_ways(g.axes, mesh) ? 0 : -2;
  // Else a dimension no mesh axis splits yet first (a kernel split by columns is scattered by
  // rows), else one that can take a second split (a bias already split by columns).
  for (int pass = 0; pass < 2; ++pass)
    for (size_t d = 0; d < p.shape.size(); ++d)
      if ((pass == 1 || live_axes(spec.dims[d], mesh) == 0) && p.shape[d] >= mask_ways(AxisMask(spec.dims[d] | g.axes), mesh)) return int(d);
  return -2;
}

// Reduce-scatter + all-gather replacing the all-reduce of `g` (scattered along `dim`), and the
// gradient bytes per device that remain.
struct ScatteredSync {
  double cost = 0;
  double reduce_cost = 0, gather_cost = 0;   // the two halves of cost
  double grad_bytes = 0;
};

ScatteredSync scattered(const Op& op, const OpStrategy& s, const GradSync& g, int dim, const DeviceMesh& mesh) {
  ScatteredSync out;
  std::vector<int> axes;
  for (int a = 0; a < 2; ++a)
    if (g.axes & kAxis[a]) axes.push_back(a);
  if (dim == -1) {   // a flat bucket: each step divides the buffer
    double b = g.bytes;
    for (int a : axes) {
      out.reduce_cost += reduce_scatter_cost(mesh.axis[a], b);
      b /= mesh.axis[a].size;
    }
    out.grad_bytes = b;
    for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
      b *= mesh.axis[*it].size;
      out.gather_cost += all_gather_cost(mesh.axis[*it], b);
    }
    out.cost = out.reduce_cost + out.gather_cost;
    return out;
  }
  const Tensor& p = op.params[size_t(g.params[0])];
  ShardingSpec cur = s.inputs[op.inputs.size() + size_t(g.params[0])];
  for (int a : axes) {
    out.reduce_cost += reduce_scatter_cost(mesh.axis[a], bytes_of(p, cur, mesh));
    cur.dims[size_t(dim)] |= kAxis[a];
  }
  out.grad_bytes = bytes_of(p, cur, mesh);
  for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
    cur.dims[size_t(dim)] &= AxisMask(~kAxis[*it]);
    out.gather_cost += all_gather_cost(mesh.axis[*it], bytes_of(p, cur, mesh));
  }
  out.cost = out.reduce_cost + out.gather_cost;
  return out;
}

const OpStrategy& chosen(const IntraOpPlan& plan, size_t v) { return plan.strategies[v][size_t(plan.solution.choice[v])]; }

// The share of each parameter a device keeps once its gradient is reduce-scattered (ZeRO):
// 1 / the devices it is synchronised over (the largest part when uneven), 1 when it is not.
std::vector<double> zero_shares(const Op& op, const OpStrategy& s, const DeviceMesh& mesh) {
  std::vector<double> share(op.params.size(), 1.0);
  for (const GradSync& gs : s.grad_syncs) {
    const int dim = scatter_dim(op, s, gs, mesh);
    if (dim == -2 || gs.bytes <= 0) continue;
    const double kept = scattered(op, s, gs, dim, mesh).grad_bytes / gs.bytes;
    for (int k : gs.params) share[size_t(k)] = kept;
  }
  return share;
}

double fraction_of(const Tensor& t, const ShardingSpec& s, const DeviceMesh& mesh) {
  const double n = double(num_elements(t.shape));
  return n > 0 ? per_device_elements(s, t.shape, mesh) / n : 0;
}

// What an op keeps for its backward pass on one device under a strategy (op_kinds.h's
// saved_activations, each tensor split as the strategy splits it).
double saved_bytes(const Op& op, const OpStrategy& s, const DeviceMesh& mesh, const IntraOpOptions& options) {
  const SavedActivations a = saved_activations(op, options.gpu && fused_attention(*options.gpu));
  double b = double(a.with_output_bytes) * fraction_of(op.output, s.output, mesh);
  if (!op.inputs.empty() && !s.inputs.empty()) b += double(a.with_input_bytes) * fraction_of(op.inputs[0], s.inputs[0], mesh);
  return b;
}

// Model states of an op on one device under ZeRO stage `zero`.
void add_states(const Op& op, const OpStrategy& s, const DeviceMesh& mesh, const StateBytesPerParam& bp, int zero, double& params,
                double& grads, double& optimizer) {
  const std::vector<double> share = zero >= 1 ? zero_shares(op, s, mesh) : std::vector<double>(op.params.size(), 1.0);
  for (size_t k = 0; k < op.params.size(); ++k) {
    const double e = per_device_elements(s.inputs[op.inputs.size() + k], op.params[k].shape, mesh);
    params += e * bp.params * (zero >= 3 ? share[k] : 1.0);
    grads += e * bp.grads * (zero >= 2 ? share[k] : 1.0);
    optimizer += e * bp.optimizer * share[k];
  }
}

}  // namespace

std::vector<double> param_state_bytes(const Op& op, const OpStrategy& s, const DeviceMesh& mesh, const StateBytesPerParam& bp, int zero) {
  std::vector<double> out(op.params.size(), 0.0);
  const std::vector<double> share = zero >= 1 ? zero_shares(op, s, mesh) : std::vector<double>(op.params.size(), 1.0);
  for (size_t k = 0; k < op.params.size(); ++k) {
    const double e = per_device_elements(s.inputs[op.inputs.size() + k], op.params[k].shape, mesh);
    out[k] = e * (bp.params * (zero >= 3 ? share[k] : 1.0) + bp.grads * (zero >= 2 ? share[k] : 1.0) + bp.optimizer * share[k]);
  }
  return out;
}

namespace {

// For each item, the index of its spec among the distinct specs in first-seen order.
template <class SpecOf>
std::vector<int> distinct_index(const std::vector<OpStrategy>& items, SpecOf spec_of) {
  std::vector<const ShardingSpec*> seen;
  std::vector<int> index;
  index.reserve(items.size());
  for (const OpStrategy& it : items) {
    const ShardingSpec& s = spec_of(it);
    size_t i = 0;
    while (i < seen.size() && *seen[i] != s) ++i;
    if (i == seen.size()) seen.push_back(&s);
    index.push_back(int(i));
  }
  return index;
}

}  // namespace

CollectiveCounts collectives_of(const ReshardPlan& p) {
  CollectiveCounts c;
  for (const ReshardStep& st : p.steps) {
    if (st.collective == "all-gather") ++c.all_gather;
    else if (st.collective == "all-to-all") ++c.all_to_all;
    else if (st.collective == "all-reduce") ++c.all_reduce;
    else if (st.collective == "reduce-scatter") ++c.reduce_scatter;
  }
  return c;
}

int64_t work_split(const OpStrategy& s, const DeviceMesh& mesh) {
  AxisMask used = 0;
  for (AxisMask m : s.output.dims) used |= m;
  for (const ShardingSpec& in : s.inputs)
    for (AxisMask m : in.dims) used |= m;
  return mask_ways(used, mesh);
}

double work_fraction(const OpStrategy& s, const Op& op, const DeviceMesh& mesh) {
  double imbalance = 1;
  auto split = [&](int64_t size, AxisMask m) {
    const int64_t ways = mask_ways(m, mesh);
    if (ways > 1 && size > 0) imbalance *= double(largest_part(size, ways) * ways) / double(size);
  };
  AxisMask out_axes = 0;
  for (size_t d = 0; d < s.output.dims.size() && d < op.output.shape.size(); ++d) {
    split(op.output.shape[d], s.output.dims[d]);
    out_axes |= s.output.dims[d];
  }
  if (!s.inputs.empty() && !op.inputs.empty())
    for (size_t d = 0; d < s.inputs[0].dims.size() && d < op.inputs[0].shape.size(); ++d)
      split(op.inputs[0].shape[d], AxisMask(s.inputs[0].dims[d] & ~out_axes));   // reduced dimensions (row parallel)
  return imbalance / double(work_split(s, mesh));
}

ShardingSpec input_data_spec(const Shape& shape, const DeviceMesh& mesh) {
  ShardingSpec s = spec_of_rank(shape.size());
  for (AxisMask m : {AxisMask(3), AxisMask(2), AxisMask(1)})
    if (live_axes(m, mesh) == m && mask_ways(m, mesh) > 1 && fits(shape[0], m, mesh)) {   // only axes of several devices
      s.dims[0] = m;
      break;
    }
  return s;
}

std::vector<std::vector<OpStrategy>> enumerate_strategies(const Graph& g, const DeviceMesh& mesh, const IntraOpOptions& options) {
  const bool alpa = mesh.alpa_conventions();
  const double pen = replicated_penalty(mesh);
  // The mesh axis every activation's batch is pinned to, or -1 (Alpa's force_batch_dim_to_mesh_dim;
  // its default on a 2-D mesh is axis 0, leaving axis 1 to operator parallelism).
  const int batch_axis = options.force_batch_axis >= 0 ? std::min(options.force_batch_axis, 1)
                         : alpa && mesh.rows() > 1 && mesh.cols() > 1 ? 0 : -1;
  // The batch dimension's spec under that pin: split along the axis, or whole on an axis of one device.
  const AxisMask batch_mask = batch_axis >= 0 && mesh.axis[batch_axis].size > 1 ? AxisMask(1 << batch_axis) : AxisMask(0);
  // Sequence-dimension strategies: autopar's addition on cluster meshes (Alpa's conventions keep
  // Alpa's own strategy set, which its reference tests check; data parallelism alone has no
  // operator split for a sequence split to save memory beside).
  const bool sequence = options.sequence_strategies && !alpa && !options.data_parallel_only;
  std::vector<std::vector<OpStrategy>> all(g.ops.size());
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const Op& op = g.ops[v];
    const bool input_is_data = op.producers[0] < 0 && !is_gradient_input(options, op.inputs[0].name);
    switch (op_kind_traits(op.spec.kind).sharding) {
      case ShardingRule::matmul: all[v] = matmul_strategies(op, mesh, input_is_data, sequence); break;
      case ShardingRule::embedding: all[v] = embedding_strategies(op, mesh, sequence); break;
      case ShardingRule::attention: all[v] = attention_strategies(op, mesh); break;
      case ShardingRule::experts: all[v] = moe_strategies(op, mesh, options.expert_parallel > 1); break;
      default: {
        std::vector<ShardingSpec> candidates;
        if (input_is_data) {
          if (alpa) candidates = alpa_input_specs(op.inputs[0].shape, mesh);   // narrowed on 2-D meshes below
          else if (batch_mask != 0 && op.inputs[0].shape[0] >= mesh.axis[batch_axis].size) {   // the loader splits the batch where it is pinned
            ShardingSpec pinned = spec_of_rank(op.inputs[0].shape.size());
            pinned.dims[0] = batch_mask;
            candidates.push_back(pinned);
          } else candidates.push_back(input_data_spec(op.inputs[0].shape, mesh));
        } else if (op.producers[0] < 0) {
          candidates = all_specs(op.inputs[0].shape, mesh);   // a stage's activation: any layout it arrives in
        } else {
          for (const OpStrategy& s : all[size_t(op.producers[0])])
            if (std::find(candidates.begin(), candidates.end(), s.output) == candidates.end()) candidates.push_back(s.output);
        }
        if (sequence && has_sequence_dim(op)) candidates = with_sequence_splits(candidates, op.inputs[0].shape, mesh);
        all[v] = follower_strategies(op, mesh, candidates);
      }
    }
    // The batch dimension of every activation pinned to `batch_axis` (see above).
    if (batch_axis >= 0) {
      std::vector<OpStrategy> kept;
      for (const OpStrategy& s : all[v]) {
        bool pinned = !s.output.dims.empty() && s.output.dims[0] == batch_mask;
        for (size_t k = 0; k < op.inputs.size(); ++k) pinned = pinned && s.inputs[k].dims[0] == batch_mask;
        if (pinned) kept.push_back(s);
      }
      if (!kept.empty()) all[v] = kept;
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
    for (OpStrategy& s : all[v]) {
      s.grad_sync *= options.grad_sync_scale;
      for (GradSync& gs : s.grad_syncs) gs.cost *= options.grad_sync_scale;
    }
    // Model input data arrives in its loader spec; moving it costs (forward only: no gradient).
    // Under Alpa's conventions the loader delivers any 1-D spec (a replicated one pays the penalty).
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      if (op.producers[k] >= 0) continue;
      // A pipeline stage's activations arrive as the previous stage sends them (costed there),
      // or, when asked, split by batch over the mesh (a layer chained with batch-split layers).
      const bool activation = is_gradient_input(options, op.inputs[k].name);
      if (activation && !options.activations_batch_split) continue;
      const Tensor& t = op.inputs[k];
      std::vector<ShardingSpec> sources = alpa && !activation ? alpa_input_specs(t.shape, mesh) : std::vector<ShardingSpec>{input_data_spec(t.shape, mesh)};
      if (batch_mask != 0 && !activation && t.shape[0] >= mesh.axis[batch_axis].size) {   // the batch on its pinned axis (see above)
        ShardingSpec batch = spec_of_rank(t.shape.size());
        batch.dims[0] = batch_mask;
        sources = {batch};
      }
      for (OpStrategy& s : all[v]) {
        double best = -1, best_penalty = 0, best_cost = 0;
        const ShardingSpec* best_src = nullptr;
        for (const ShardingSpec& src : sources) {
          const double cost = reshard_cost(src, s.inputs[k], t.shape, dtype_bytes(t.dtype), mesh);
          const double penalty = alpa && replicated(src, mesh) ? pen : 0;
          if (best < 0 || cost + penalty < best) {
            best = cost + penalty;
            best_penalty = penalty;
            best_cost = cost;
            best_src = &src;
          }
        }
        s.input_reshard += best_cost;
        s.penalty += best_penalty;
        s.input_collectives += collectives_of(reshard(*best_src, s.inputs[k], t.shape, dtype_bytes(t.dtype), mesh));
      }
    }
    // Rematerialization runs the forward pass again before the backward pass.
    if (options.remat)
      for (OpStrategy& s : all[v]) s.recompute_comm = s.forward_comm + s.input_reshard;
  }
  return all;
}

CollectiveCounts count_collectives(const Graph& g, const IntraOpPlan& plan, const IntraOpOptions& options) {
  const DeviceMesh& mesh = plan.mesh;
  const bool remat = options.remat || plan.memory.remat;
  const bool scatter = options.reduce_scatter || plan.memory.zero_stage >= 1;
  const int forward_passes = remat ? 2 : 1;
  // ZeRO 3 gathers the weights before every forward pass and the backward pass instead of once
  // after the update.
  const int gathers = plan.memory.zero_stage >= 3 ? forward_passes + 1 : 1;
  CollectiveCounts c;
  // Gradient collectives combine per set of mesh axes (and scatter dimension).
  std::set<std::pair<int, int>> all_reduce_groups, scatter_groups;
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const OpStrategy& s = chosen(plan, v);
    for (int k = 0; k < forward_passes; ++k) {
      c += s.forward_collectives;
      c += s.input_collectives;
    }
    c += s.backward_collectives;
    c += s.update_collectives;
    for (const GradSync& gs : s.grad_syncs) {
      const int dim = scatter ? scatter_dim(g.ops[v], s, gs, mesh) : -2;
      if (dim == -2) all_reduce_groups.insert({gs.axes, 0});
      else scatter_groups.insert({gs.axes, dim});
    }
  }
  for (const auto& [axes, dim] : all_reduce_groups) c.all_reduce += axis_count(AxisMask(axes), mesh);
  for (const auto& [axes, dim] : scatter_groups) {
    c.reduce_scatter += axis_count(AxisMask(axes), mesh);
    c.all_gather += gathers * axis_count(AxisMask(axes), mesh);
  }
  for (size_t v = 0; v < g.ops.size(); ++v)
    for (size_t k = 0; k < g.ops[v].inputs.size(); ++k) {
      const int u = g.ops[v].producers[k];
      if (u < 0) continue;
      const Tensor& t = g.ops[v].inputs[k];
      const ShardingSpec& from = chosen(plan, size_t(u)).output;
      const ShardingSpec& to = chosen(plan, v).inputs[k];
      const CollectiveCounts fwd = collectives_of(reshard(from, to, t.shape, dtype_bytes(t.dtype), mesh));
      for (int p = 0; p < forward_passes; ++p) c += fwd;
      c += collectives_of(reshard(to, from, t.shape, dtype_bytes(t.dtype), mesh));
    }
  return c;
}

MemoryChoice evaluate_memory_choice(const Graph& g, const IntraOpPlan& plan, const IntraOpOptions& options, int zero_stage, bool remat) {
  const DeviceMesh& mesh = plan.mesh;
  const StateBytesPerParam bp = state_bytes_per_param(training_precision(g), options.optimizer, options.fp32_main_grads);
  const int forward_passes = remat ? 2 : 1;
  const bool recompute_unpriced = remat && !options.remat;   // the solve did not see the second forward pass
  MemoryChoice c;
  PlanMemory& m = c.memory;
  m.zero_stage = zero_stage;
  m.remat = remat;
  std::vector<double> saved(g.ops.size()), outputs(g.ops.size());
  std::map<std::string, double> inputs;
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const Op& op = g.ops[v];
    const OpStrategy& s = chosen(plan, v);
    add_states(op, s, mesh, bp, zero_stage, m.params_bytes, m.grads_bytes, m.optimizer_bytes);
    if (zero_stage >= 1)
      for (const GradSync& gs : s.grad_syncs) {
        const int dim = scatter_dim(op, s, gs, mesh);
        if (dim == -2) continue;
        const ScatteredSync rs = scattered(op, s, gs, dim, mesh);
        // The reduce-scatter is once per iteration (scaled like the all-reduce it replaces);
        // ZeRO 3's weight gathers are in every micro-batch's passes.
        c.zero_cost += zero_stage >= 3 ? rs.reduce_cost * options.grad_sync_scale + rs.gather_cost * (forward_passes + 1)
                                       : rs.cost * options.grad_sync_scale;
        c.zero_cost -= gs.cost;
        c.zero3_gather_ms += rs.gather_cost;
        c.zero3_reduce_ms += rs.reduce_cost;
        c.zero3_replaced_ms += gs.cost;
      }
    saved[v] = saved_bytes(op, s, mesh, options);
    outputs[v] = bytes_of(op.output, s.output, mesh);
    for (size_t k = 0; k < op.inputs.size(); ++k)
      if (op.producers[k] < 0 && inputs.emplace(op.inputs[k].name, bytes_of(op.inputs[k], s.inputs[k], mesh)).second)
        m.input_bytes += inputs[op.inputs[k].name];
    if (recompute_unpriced) c.recompute_comm += s.forward_comm + s.input_reshard;
    if (remat && options.gpu) c.recompute_compute += op_forward_ms(*options.gpu, op, work_fraction(s, op, mesh));
  }
  if (recompute_unpriced)
    for (size_t v = 0; v < g.ops.size(); ++v)
      for (size_t k = 0; k < g.ops[v].inputs.size(); ++k) {
        const int u = g.ops[v].producers[k];
        if (u < 0) continue;
        const Tensor& t = g.ops[v].inputs[k];
        c.recompute_comm += reshard_cost(chosen(plan, size_t(u)).output, chosen(plan, v).inputs[k], t.shape, dtype_bytes(t.dtype), mesh);
      }
  m.activation_bytes = activation_memory(g, plan.layers, saved, outputs, inputs, remat).total_bytes;
  m.total_bytes = m.params_bytes + m.grads_bytes + m.optimizer_bytes + m.activation_bytes;
  m.capacity_bytes = options.memory_budget_bytes > 0 ? options.memory_budget_bytes : options.capacity_bytes;
  m.fits = m.capacity_bytes <= 0 || m.total_bytes <= m.capacity_bytes;
  return c;
}


IntraOpPlan intra_op_problem(const Graph& g, const DeviceMesh& mesh, const IntraOpOptions& options, int zero_stage, double budget) {
  IntraOpPlan plan;
  plan.mesh = mesh;
  plan.layers = find_layers(g);   // once: every ZeRO and recomputation setting tried counts activations over them
  plan.strategies = enumerate_strategies(g, mesh, options);
  IntraProblem& p = plan.problem;
  p.memory_budget = budget;
  const StateBytesPerParam bp = state_bytes_per_param(training_precision(g), options.optimizer, options.fp32_main_grads);
  for (size_t v = 0; v < g.ops.size(); ++v) {
    std::vector<double> cost, mem;
    for (const OpStrategy& s : plan.strategies[v]) {
      cost.push_back(s.cost());
      double params = 0, grads = 0, optimizer = 0;
      if (budget > 0) add_states(g.ops[v], s, mesh, bp, zero_stage, params, grads, optimizer);
      mem.push_back(budget > 0 ? params + grads + optimizer + (options.remat ? 0 : saved_bytes(g.ops[v], s, mesh, options)) : s.memory_bytes);
    }
    p.node_cost.push_back(cost);
    p.node_memory.push_back(mem);
  }
  // Edges: resharding the activation forward (again when rematerialized) and its gradient backward.
  const double forward_passes = options.remat ? 2 : 1;
  for (size_t v = 0; v < g.ops.size(); ++v)
    for (size_t k = 0; k < g.ops[v].inputs.size(); ++k) {
      const int u = g.ops[v].producers[k];
      if (u < 0) continue;
      const Tensor& t = g.ops[v].inputs[k];
      IntraProblem::Edge e;
      e.u = u;
      e.v = int(v);
      // Strategies share few distinct specs: price each distinct pair once.
      const std::vector<int> from = distinct_index(plan.strategies[size_t(u)], [](const OpStrategy& a) -> const ShardingSpec& { return a.output; });
      const std::vector<int> to = distinct_index(plan.strategies[v], [k](const OpStrategy& b) -> const ShardingSpec& { return b.inputs[k]; });
      const int nf = 1 + *std::max_element(from.begin(), from.end()), nt = 1 + *std::max_element(to.begin(), to.end());
      std::vector<double> priced(size_t(nf) * size_t(nt), -1);
      e.cost.reserve(from.size() * to.size());
      for (size_t i = 0; i < from.size(); ++i)
        for (size_t j = 0; j < to.size(); ++j) {
          double& c = priced[size_t(from[i]) * size_t(nt) + size_t(to[j])];
          if (c < 0) {
            const ShardingSpec& a = plan.strategies[size_t(u)][i].output;
            const ShardingSpec& b = plan.strategies[v][j].inputs[k];
            c = forward_passes * reshard_cost(a, b, t.shape, dtype_bytes(t.dtype), mesh) + reshard_cost(b, a, t.shape, dtype_bytes(t.dtype), mesh);
          }
          e.cost.push_back(c);
        }
      p.edges.push_back(e);
    }
  return plan;
}

}  // namespace autopar
