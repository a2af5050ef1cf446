// Per-device training memory: ZeRO's model-state accounting and Korthikanti et al.'s activation
// accounting over the op graph. See memory_model.h.
#include "memory_model.h"

#include <algorithm>
#include <map>
#include <set>

#include "cost_model.h"
#include "op_kinds.h"

namespace autopar {
namespace {

// Which tensors Megatron-style tensor parallelism splits: a matmul reading a replicated tensor
// is column-parallel (its output split), one reading a split tensor row-parallel (its output
// all-reduced, replicated); embeddings are vocabulary-parallel; other ops follow their input.
struct TensorParallelLayout {
  std::vector<bool> output_split;                 // per op
  std::map<std::string, bool> param_split;        // per parameter name (first reader decides)
};

TensorParallelLayout tensor_parallel_layout(const Graph& g) {
  TensorParallelLayout t;
  t.output_split.assign(g.ops.size(), false);
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const Op& op = g.ops[v];
    const int p = op.producers.empty() ? -1 : op.producers[0];
    const bool in_split = p >= 0 && t.output_split[size_t(p)];
    bool out = in_split;
    std::vector<bool> params(op.params.size(), false);
    switch (op_kind_traits(op.spec.kind).tensor_parallel) {
      case TensorParallelRole::matmul:
        out = !in_split;
        for (size_t k = 0; k < params.size(); ++k) params[k] = k == 0 || !in_split;   // a row-parallel bias is replicated
        break;
      case TensorParallelRole::embedding:
        out = false;
        params.assign(params.size(), true);
        break;
      case TensorParallelRole::experts:
        out = false;
        for (size_t k = 1; k < params.size(); ++k) params[k] = true;   // the gate is replicated
        break;
      case TensorParallelRole::follow:
        break;
    }
    t.output_split[v] = out;
    for (size_t k = 0; k < op.params.size(); ++k) t.param_split.emplace(op.params[k].name, params[k]);
  }
  return t;
}

}  // namespace

const char* optimizer_name(Optimizer o) { return o == Optimizer::adam ? "adam" : "sgd"; }

StateBytesPerParam state_bytes_per_param(Precision p, Optimizer o, bool fp32_main_grads) {
  StateBytesPerParam b;
  const bool mixed = is_mixed_precision(p);   // mixed, bf16, fp16 and fp8 keep 16-bit weights and gradients
  b.params = mixed ? 2 : 4;
  b.grads = mixed && !fp32_main_grads ? 2 : 4;
  const int moments = o == Optimizer::adam ? 8 : 4;   // Adam: momentum + variance; SGD: momentum (FP32)
  b.optimizer = moments + (mixed ? 4 : 0);            // mixed keeps an FP32 master copy of the weights
  return b;
}

LayerStructure find_layers(const Graph& g) {
  const int n = int(g.ops.size());
  // Cut after op k when exactly one output of ops <= k is read after k (counted incrementally).
  std::vector<int> last_use(size_t(n), -1);
  for (int v = 0; v < n; ++v)
    for (int p : g.ops[size_t(v)].producers)
      if (p >= 0) last_use[size_t(p)] = std::max(last_use[size_t(p)], v);
  std::vector<int> ending_at(size_t(n), 0);
  for (int v = 0; v < n; ++v)
    if (last_use[size_t(v)] > v) ++ending_at[size_t(last_use[size_t(v)])];
  // A model input read by several ops is live from its first reader to its last, like an op's
  // output: without this the first layer of a model fed its hidden states directly (no
  // embedding; the input feeds both a layer norm and a residual add) fell apart into pieces.
  std::map<std::string, std::pair<int, int>> input_use;   // name -> (first, last) reader
  for (int v = 0; v < n; ++v) {
    const Op& op = g.ops[size_t(v)];
    for (size_t i = 0; i < op.producers.size(); ++i)
      if (op.producers[i] < 0) {
        auto [it, fresh] = input_use.emplace(op.spec.inputs[i], std::make_pair(v, v));
        if (!fresh) it->second.second = v;
      }
  }
  std::vector<int> starting_at(size_t(n), 0);
  for (const auto& [name, use] : input_use)
    if (use.second > use.first) {
      ++starting_at[size_t(use.first)];
      ++ending_at[size_t(use.second)];
    }
  std::vector<std::pair<int, int>> units;
  int live = 0, start = 0;
  for (int k = 0; k < n; ++k) {
    live += starting_at[size_t(k)] - ending_at[size_t(k)];
    if (last_use[size_t(k)] > k) ++live;
    if (k == n - 1 || live == 1) {
      units.push_back({start, k});
      start = k + 1;
    }
  }
  // A signature per piece (kinds, shapes, attributes), as small integers.
  std::map<std::string, int> ids;
  std::vector<int> sig;
  for (auto [first, last] : units) {
    std::string s;
    for (int v = first; v <= last; ++v) {
      const Op& op = g.ops[size_t(v)];
      s += std::string(op_kind_name(op.spec.kind)) + shape_to_string(op.output.shape) + op.spec.activation;
      for (const auto& [k, x] : op.spec.attrs) s += k + "=" + std::to_string(x) + ",";
      s += ";";
    }
    sig.push_back(ids.emplace(s, int(ids.size())).first->second);
  }
  // The longest run of repeated blocks of `period` pieces (most ops covered; then shortest period).
  const int u = int(units.size());
  int best_ops = 0, best_p = 0, best_i = 0, best_c = 0;
  for (int p = 1; p <= 8 && 2 * p <= u; ++p)
    for (int i = 0; i + 2 * p <= u; ++i) {
      int c = 1;
      while (i + (c + 1) * p <= u) {
        bool same = true;
        for (int j = 0; j < p && same; ++j) same = sig[size_t(i + c * p + j)] == sig[size_t(i + j)];
        if (!same) break;
        ++c;
      }
      if (c < 2) continue;
      const int ops = units[size_t(i + c * p - 1)].second - units[size_t(i)].first + 1;
      if (ops > best_ops) { best_ops = ops; best_p = p; best_i = i; best_c = c; }
    }
  LayerStructure ls;
  if (best_c < 2) {
    ls.layers = units;
    return ls;
  }
  for (int b = 0; b < best_c; ++b)
    ls.layers.push_back({units[size_t(best_i + b * best_p)].first, units[size_t(best_i + (b + 1) * best_p - 1)].second});
  return ls;
}

ActivationMemory activation_memory(const Graph& g, const std::vector<double>& saved, const std::vector<double>& outputs,
                                   const std::map<std::string, double>& model_inputs, bool remat) {
  return activation_memory(g, find_layers(g), saved, outputs, model_inputs, remat);
}

ActivationMemory activation_memory(const Graph& g, const LayerStructure& ls, const std::vector<double>& saved,
                                   const std::vector<double>& outputs, const std::map<std::string, double>& model_inputs, bool remat) {
  ActivationMemory r;
  r.layers = int(ls.layers.size());
  std::vector<bool> in_layer(g.ops.size(), false);
  for (auto [first, last] : ls.layers) {
    double full = 0;
    for (int v = first; v <= last; ++v) {
      full += saved[size_t(v)];
      in_layer[size_t(v)] = true;
    }
    r.layer_bytes += full;
    r.recompute_bytes = std::max(r.recompute_bytes, full);
    // The layer's input: the one tensor crossing into it (or the model inputs it reads).
    std::set<int> producers;
    std::set<std::string> read;
    for (int v = first; v <= last; ++v)
      for (size_t k = 0; k < g.ops[size_t(v)].producers.size(); ++k) {
        const int p = g.ops[size_t(v)].producers[k];
        if (p < 0) read.insert(g.ops[size_t(v)].inputs[k].name);
        else if (p < first) producers.insert(p);
      }
    for (int p : producers) r.kept_input_bytes += outputs[size_t(p)];
    for (const std::string& name : read) {
      auto it = model_inputs.find(name);
      if (it != model_inputs.end()) r.kept_input_bytes += it->second;
    }
  }
  for (size_t v = 0; v < g.ops.size(); ++v)
    if (!in_layer[v]) r.other_bytes += saved[v];
  if (remat) {
    r.total_bytes = r.kept_input_bytes + r.recompute_bytes + r.other_bytes;
  } else {
    r.recompute_bytes = 0;
    r.kept_input_bytes = 0;
    r.total_bytes = r.layer_bytes + r.other_bytes;
  }
  return r;
}

Precision training_precision(const Graph& g) { return g.spec.dtype == DType::f16 ? Precision::mixed : Precision::fp32; }

int64_t model_batch(const Graph& g) {
  int64_t batch = 0;
  for (const Tensor& t : g.spec.inputs)
    if (!t.shape.empty()) batch = std::max(batch, t.shape[0]);
  return batch;
}

Result<MemoryReport> estimate_memory(const Graph& g, const Cluster& c, const MemoryOptions& o) {
  if (o.data_parallel < 1 || o.data_parallel > kMaxDevices)
    return make_error(ErrorCode::out_of_range, "the data-parallel degree must be between 1 and " + std::to_string(kMaxDevices), "--dp");
  if (o.tensor_parallel < 1 || o.tensor_parallel > kMaxDevices)
    return make_error(ErrorCode::out_of_range, "the tensor-parallel degree must be between 1 and " + std::to_string(kMaxDevices), "--mesh");
  if (o.zero_stage < 0 || o.zero_stage > 3) return make_error(ErrorCode::out_of_range, "the ZeRO stage is 0, 1, 2 or 3", "--zero");
  // The global batch splits over the replicas; an uneven split gives some replicas one sample
  // more, and the largest bounds the memory (as uneven splits do everywhere).
  const int64_t batch = model_batch(g);
  if (batch > 0 && o.data_parallel > batch)
    return make_error(ErrorCode::out_of_range, "the data-parallel degree " + std::to_string(o.data_parallel) + " is larger than the batch of " +
                                          std::to_string(batch) + ": every replica needs at least one sample; use --dp " +
                                          std::to_string(batch) + " or less, or a larger batch",
                      "--dp");
  MemoryReport r;
  r.samples_per_replica = batch > 0 ? (batch + o.data_parallel - 1) / o.data_parallel : 0;
  const double dp = o.data_parallel, tp = o.tensor_parallel;
  // The share of the batch one replica holds: 1 / dp when dp divides the batch.
  const double batch_share = batch > 0 ? double(r.samples_per_replica) / double(batch) : 1.0 / dp;
  const TensorParallelLayout layout = tensor_parallel_layout(g);

  // Model states (tied weights once), split by tensor parallelism, sharded by ZeRO.
  std::set<std::string> seen;
  for (const Op& op : g.ops)
    for (const Tensor& p : op.params)
      if (seen.insert(p.name).second) {
        r.param_elements += num_elements(p.shape);
        r.device_param_elements += double(num_elements(p.shape)) / (layout.param_split.at(p.name) ? tp : 1.0);
      }
  r.bytes_per_param = state_bytes_per_param(o.precision, o.optimizer);
  r.params_bytes = r.device_param_elements * r.bytes_per_param.params / (o.zero_stage >= 3 ? dp : 1.0);
  r.grads_bytes = r.device_param_elements * r.bytes_per_param.grads / (o.zero_stage >= 2 ? dp : 1.0);
  r.optimizer_bytes = r.device_param_elements * r.bytes_per_param.optimizer / (o.zero_stage >= 1 ? dp : 1.0);

  // Activations kept for backward, per device: the batch splits over the replicas, split
  // tensors over the tensor-parallel group.
  auto share = [&](double bytes, bool split) { return bytes * batch_share / (split ? tp : 1.0); };
  std::vector<double> saved(g.ops.size());
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const Op& op = g.ops[v];
    const SavedActivations s = saved_activations(op, fused_attention(c.gpu));
    const int p = op.producers.empty() ? -1 : op.producers[0];
    saved[v] = share(double(s.with_input_bytes), p >= 0 && layout.output_split[size_t(p)]) +
               share(double(s.with_output_bytes), layout.output_split[v]);
  }
  std::vector<double> outputs(g.ops.size());
  for (size_t v = 0; v < g.ops.size(); ++v) outputs[v] = share(double(g.ops[v].output_bytes), layout.output_split[v]);
  std::map<std::string, double> inputs;
  for (const Tensor& t : g.spec.inputs) inputs[t.name] = share(double(tensor_bytes(t)), false);
  const ActivationMemory a = activation_memory(g, saved, outputs, inputs, o.remat);
  r.layers = a.layers;
  r.layer_bytes = a.layer_bytes;
  r.kept_input_bytes = a.kept_input_bytes;
  r.recompute_bytes = a.recompute_bytes;
  r.other_bytes = a.other_bytes;
  r.activation_bytes = a.total_bytes;
  if (o.zero_stage >= 3) {
    double largest = 0;
    for (const auto& [first, last] : find_layers(g).layers) {
      double e = 0;
      for (int v = first; v <= last; ++v)
        for (const Tensor& p : g.ops[size_t(v)].params) e += double(num_elements(p.shape)) / (layout.param_split.at(p.name) ? tp : 1.0);
      largest = std::max(largest, e);
    }
    r.gathered_bytes = largest * (2.0 * r.bytes_per_param.params + r.bytes_per_param.grads);
  }
  r.total_bytes = r.params_bytes + r.grads_bytes + r.optimizer_bytes + r.gathered_bytes + r.activation_bytes;
  r.capacity_bytes = c.gpu.memory_capacity_bytes();
  r.fits = r.total_bytes <= r.capacity_bytes;
  return r;
}

}  // namespace autopar
