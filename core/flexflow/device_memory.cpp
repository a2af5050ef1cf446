// Training memory per GPU under a FlexFlow strategy. See device_memory.h.
#include "device_memory.h"

#include <algorithm>
#include <set>
#include <string>

#include "cost_model.h"
#include "op_kinds.h"
#include "regions.h"

namespace autopar {

DeviceMemory::DeviceMemory(const Graph& graph, const Cluster& cluster, const Strategy& strategy, Optimizer optimizer)
    : graph_(graph), optimizer_(optimizer), precision_(training_precision(graph)) {
  bytes_per_param_ = state_bytes_per_param(precision_, optimizer_);
  capacity_ = cluster.gpu.memory_capacity_bytes();
  fused_attention_ = fused_attention(cluster.gpu);
  remat_ = strategy.remat;
  configs_ = strategy.ops;
  const size_t n = graph.ops.size();
  // A weight several ops read (tied embeddings) is held once: by its first reader's parts.
  std::set<std::string> seen;
  owned_elements_.assign(n, 0);
  for (size_t v = 0; v < n; ++v)
    for (const Tensor& p : graph.ops[v].params)
      if (seen.insert(p.name).second) owned_elements_[v] += num_elements(p.shape);
  // The layers recomputation checkpoints, and what each op keeps for them: its output when it
  // is a layer's input, and a model input the layer reads (counted by the layer's first reader).
  const LayerStructure layers = find_layers(graph);
  layer_of_.assign(n, -1);
  feeds_.assign(n, 0);
  model_inputs_.assign(n, {});
  for (size_t l = 0; l < layers.layers.size(); ++l) {
    const auto [first, last] = layers.layers[l];
    std::set<int> producers;
    std::set<std::string> read;
    for (int v = first; v <= last; ++v) {
      layer_of_[size_t(v)] = int(l);
      const Op& op = graph.ops[size_t(v)];
      for (size_t k = 0; k < op.producers.size(); ++k) {
        const int p = op.producers[k];
        if (p >= 0 && p < first) producers.insert(p);
        if (p < 0 && read.insert(op.inputs[k].name).second) model_inputs_[size_t(v)].push_back(int(k));
      }
    }
    for (int p : producers) ++feeds_[size_t(p)];
  }
  const int gpus = cluster.num_devices();
  sums_.assign(size_t(gpus), Sums{});
  for (Sums& s : sums_) s.layer.assign(layers.layers.size(), 0.0);
  use_.assign(size_t(gpus), DeviceMemoryUse{});
  is_saved_.assign(size_t(gpus), 0);
  parts_.resize(n);
  for (size_t v = 0; v < n; ++v) {
    compute_contributions(int(v), configs_[v], parts_[v]);   // the cache is for moves
    apply(int(v), parts_[v], +1);
  }
  for (int d = 0; d < gpus; ++d) refresh(d);
  refresh_peak();
}

int weight_replicas(const Op& op, const OpConfig& c) {
  if (op.params.empty()) return 0;
  int pdeg = 1;
  for (size_t j = 0; j < op.split_dims.size(); ++j)
    if (op.split_dims[j].kind == SplitKind::parameter) pdeg *= c.degrees[j];
  return std::max(1, c.parts() / pdeg);
}

namespace {

// An exact 64-bit key of (degrees, ZeRO stage) when it has one: up to five degrees below 4096.
bool contribution_key(const OpConfig& c, uint64_t& key) {
  if (c.degrees.size() > 5) return false;
  key = uint64_t(c.zero & 3);
  for (int d : c.degrees) {
    if (d < 1 || d >= 4096) return false;
    key = (key << 12) | uint64_t(d);
  }
  return true;
}

// At most this many cached PartUse entries (48 bytes each: 12 MB), for the browser's sake.
constexpr size_t kMaxCachedParts = size_t(1) << 18;

}  // namespace

void DeviceMemory::contributions(int i, const OpConfig& c, std::vector<PartUse>& out) {
  uint64_t key = 0;
  if (!contribution_key(c, key)) {
    compute_contributions(i, c, out);
    return;
  }
  if (contribution_cache_.empty()) contribution_cache_.resize(graph_.ops.size());
  auto& cache = contribution_cache_[size_t(i)];
  auto hit = cache.find(key);
  if (hit == cache.end()) {
    compute_contributions(i, c, out);
    if (cached_parts_ + out.size() > kMaxCachedParts) return;
    cached_parts_ += out.size();
    hit = cache.emplace(key, out).first;
  }
  out = hit->second;
  for (size_t k = 0; k < out.size(); ++k) out[k].device = c.devices[k];
}

void DeviceMemory::compute_contributions(int i, const OpConfig& c, std::vector<PartUse>& out) const {
  out.clear();
  const Op& op = graph_.ops[size_t(i)];
  // ZeRO shards each weight shard's state over the parts that hold the same shard.
  const double replicas = double(std::max(1, weight_replicas(op, c)));
  const SavedActivations saved = saved_activations(op, fused_attention_);
  const double out_elements = double(num_elements(op.output.shape));
  const double in_elements = op.inputs.empty() ? 0 : double(num_elements(op.inputs[0].shape));
  const StateBytesPerParam& bp = bytes_per_param_;
  for (int k = 0; k < c.parts(); ++k) {
    const Box box = output_box(op, c, k);
    const double out_share = out_elements > 0 ? double(box_volume(box)) / out_elements : 0;
    double in_share = 0;
    if (in_elements > 0) {
      const BoxList reads = input_boxes(op, 0, box);
      double v = 0;
      for (int r = 0; r < reads.count; ++r) v += double(box_volume(reads.boxes[r]));
      in_share = v / in_elements;
    }
    const double e = double(owned_elements_[size_t(i)]) * part_share(op, c, k, true);
    PartUse u;
    u.device = c.devices[size_t(k)];
    u.params = e * bp.params / (c.zero >= 3 ? replicas : 1.0);
    u.grads = e * bp.grads / (c.zero >= 2 ? replicas : 1.0);
    u.optimizer = e * bp.optimizer / (c.zero >= 1 ? replicas : 1.0);
    u.saved = double(saved.with_input_bytes) * in_share + double(saved.with_output_bytes) * out_share;
    u.kept = feeds_[size_t(i)] * double(op.output_bytes) * out_share;
    for (int j : model_inputs_[size_t(i)]) {
      const BoxList reads = input_boxes(op, size_t(j), box);
      for (int r = 0; r < reads.count; ++r) u.kept += double(box_volume(reads.boxes[r])) * double(dtype_bytes(op.inputs[size_t(j)].dtype));
    }
    out.push_back(u);
  }
}

void DeviceMemory::forget_saved() {
  for (size_t k = 0; k < saved_count_; ++k) is_saved_[size_t(saved_[k].gpu)] = 0;
  saved_count_ = 0;
}

void DeviceMemory::save(int gpu) {
  if (saved_op_ == -1 || is_saved_[size_t(gpu)]) return;
  is_saved_[size_t(gpu)] = 1;
  if (saved_count_ == saved_.size()) saved_.emplace_back();
  Saved& s = saved_[saved_count_++];
  s.gpu = gpu;
  s.sums = sums_[size_t(gpu)];   // copy-assigns the layer sums into the storage it already has
  s.use = use_[size_t(gpu)];
}

void DeviceMemory::apply(int i, const std::vector<PartUse>& parts, double sign) {
  const int layer = layer_of_[size_t(i)];
  for (const PartUse& u : parts) {
    save(u.device);
    Sums& s = sums_[size_t(u.device)];
    s.params += sign * u.params;
    s.grads += sign * u.grads;
    s.optimizer += sign * u.optimizer;
    s.kept += sign * u.kept;
    if (layer >= 0) s.layer[size_t(layer)] += sign * u.saved;
    else s.other += sign * u.saved;
  }
}

void DeviceMemory::refresh(int gpu) {
  const Sums& s = sums_[size_t(gpu)];
  DeviceMemoryUse& u = use_[size_t(gpu)];
  u.params_bytes = s.params;
  u.grads_bytes = s.grads;
  u.optimizer_bytes = s.optimizer;
  // As activation_memory: every layer's activations, or under recomputation the layers'
  // inputs plus the largest layer while it is recomputed; the ops outside the layers always.
  double layers = 0, largest = 0;
  for (double b : s.layer) {
    layers += b;
    largest = std::max(largest, b);
  }
  u.activation_bytes = (remat_ ? s.kept + largest : layers) + s.other;
  u.total_bytes = u.params_bytes + u.grads_bytes + u.optimizer_bytes + u.activation_bytes;
}

void DeviceMemory::refresh_peak() {
  peak_device_ = 0;
  for (size_t d = 1; d < use_.size(); ++d)
    if (use_[d].total_bytes > use_[size_t(peak_device_)].total_bytes) peak_device_ = int(d);
}

int DeviceMemory::over_capacity_devices() const {
  int n = 0;
  for (const DeviceMemoryUse& u : use_) n += u.total_bytes > capacity_;
  return n;
}

void DeviceMemory::set_config(int i, const OpConfig& config) {
  forget_saved();
  saved_op_ = i;
  saved_config_ = configs_[size_t(i)];
  saved_peak_ = peak_device_;
  saved_parts_.swap(parts_[size_t(i)]);
  apply(i, saved_parts_, -1);
  configs_[size_t(i)] = config;
  contributions(i, config, parts_[size_t(i)]);
  apply(i, parts_[size_t(i)], +1);
  for (size_t k = 0; k < saved_count_; ++k) refresh(saved_[k].gpu);
  refresh_peak();
}

void DeviceMemory::set_remat(bool remat) {
  forget_saved();
  saved_op_ = -2;
  saved_peak_ = peak_device_;
  for (size_t d = 0; d < use_.size(); ++d) save(int(d));
  remat_ = remat;
  for (size_t d = 0; d < use_.size(); ++d) refresh(int(d));
  refresh_peak();
}

void DeviceMemory::undo() {
  if (saved_op_ == -1) return;
  for (size_t k = 0; k < saved_count_; ++k) {
    const Saved& s = saved_[k];
    sums_[size_t(s.gpu)] = s.sums;
    use_[size_t(s.gpu)] = s.use;
    is_saved_[size_t(s.gpu)] = 0;
  }
  saved_count_ = 0;
  if (saved_op_ >= 0) {
    configs_[size_t(saved_op_)] = saved_config_;
    parts_[size_t(saved_op_)].swap(saved_parts_);
  }
  else remat_ = !remat_;
  peak_device_ = saved_peak_;
  saved_op_ = -1;
}

}  // namespace autopar
