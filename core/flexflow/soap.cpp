// SOAP configurations, space sizes and the named strategies (FlexFlow section 4).
#include "soap.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "regions.h"
#include "rng.h"

namespace autopar {
namespace {

// Every degree vector whose product divides n, in lexicographic order of the degrees: powers of
// two that divide their dimension, and for the sample dimension (the batch) every power of two
// up to its size, a degree that does not divide it giving balanced parts (see regions.h). So a
// batch that does not divide has the same choices as one that does, while the other dimensions
// (AlexNet's 55x55 feature maps, say) keep the lecture's space and its counts.
void degree_vectors(const Op& op, int n, size_t dim, std::vector<int>& current, int64_t product,
                    std::vector<std::vector<int>>& out) {
  if (dim == op.split_dims.size()) {
    out.push_back(current);
    return;
  }
  for (int64_t d = 1; product * d <= n; d *= 2) {
    const SplitDim& sd = op.split_dims[dim];
    const bool allowed = sd.kind == SplitKind::sample ? d <= sd.size : sd.size % d == 0;
    if (n % (product * d) != 0 || !allowed) break;
    current.push_back(int(d));
    degree_vectors(op, n, dim + 1, current, product * d, out);
    current.pop_back();
  }
}

OpConfig block_config(std::vector<int> degrees, int first_device) {
  OpConfig c;
  c.degrees = std::move(degrees);
  int parts = 1;
  for (int d : c.degrees) parts *= d;
  for (int k = 0; k < parts; ++k) c.devices.push_back(first_device + k);
  return c;
}

int find_dim(const Op& op, SplitKind kind) {
  for (size_t j = 0; j < op.split_dims.size(); ++j)
    if (op.split_dims[j].kind == kind) return int(j);
  return -1;
}

// The split dimension called `name` ("heads"), or -1.
int find_dim_named(const Op& op, const char* name) {
  for (size_t j = 0; j < op.split_dims.size(); ++j)
    if (op.split_dims[j].name == name) return int(j);
  return -1;
}

// One dimension split `degree` ways over devices first..first+degree-1, the rest whole.
OpConfig split_one(const Op& op, int dim, int degree, int first_device) {
  std::vector<int> degrees(op.split_dims.size(), 1);
  if (dim >= 0) degrees[size_t(dim)] = degree;
  else degree = 1;
  return block_config(degrees, first_device);
}

// Base-1e9 digits, least significant first: exact products of config counts.
std::vector<uint32_t> multiply(const std::vector<uint32_t>& a, uint64_t m) {
  std::vector<uint32_t> r;
  uint64_t carry = 0;
  for (uint32_t digit : a) {
    // m < 2^31 keeps digit * m + carry below 2^64.
    uint64_t v = uint64_t(digit) * m + carry;
    r.push_back(uint32_t(v % 1000000000u));
    carry = v / 1000000000u;
  }
  while (carry) { r.push_back(uint32_t(carry % 1000000000u)); carry /= 1000000000u; }
  return r;
}

std::string to_decimal(const std::vector<uint32_t>& a) {
  std::string s = std::to_string(a.back());
  for (size_t i = a.size() - 1; i-- > 0;) {
    std::string part = std::to_string(a[i]);
    s += std::string(9 - part.size(), '0') + part;
  }
  return s;
}

}  // namespace

std::vector<OpConfig> enumerate_configs(const Op& op, int num_devices) {
  std::vector<std::vector<int>> vectors;
  std::vector<int> current;
  degree_vectors(op, num_devices, 0, current, 1, vectors);
  std::vector<OpConfig> configs;
  for (const auto& degrees : vectors) {
    int parts = 1;
    for (int d : degrees) parts *= d;
    for (int first = 0; first + parts <= num_devices; first += parts) configs.push_back(block_config(degrees, first));
  }
  return configs;
}

SpaceSize count_space(const Graph& g, int num_devices) {
  SpaceSize s;
  std::vector<uint32_t> total{1};
  double log10_total = 0;
  // An op's configurations depend only on the kinds and sizes of its split dimensions, and a
  // transformer repeats a few of those over hundreds of ops: each is enumerated once (a 48-layer
  // model on 32 GPUs spent 10 ms of a page edit here).
  std::map<std::vector<std::pair<SplitKind, int64_t>>, std::pair<int64_t, int64_t>> counted;   // -> (configs, uneven ones)
  for (const Op& op : g.ops) {
    std::vector<std::pair<SplitKind, int64_t>> shape;
    for (const SplitDim& d : op.split_dims) shape.emplace_back(d.kind, d.size);
    auto it = counted.find(shape);
    if (it == counted.end()) {
      const auto configs = enumerate_configs(op, num_devices);
      int64_t uneven = 0;
      for (const OpConfig& c : configs) uneven += even_split(op, c) ? 0 : 1;
      it = counted.emplace(std::move(shape), std::pair<int64_t, int64_t>{int64_t(configs.size()), uneven}).first;
    }
    const auto [n, uneven] = it->second;
    s.configs_per_op.push_back(n);
    s.uneven_configs_per_op.push_back(uneven);
    total = multiply(total, uint64_t(n));
    log10_total += std::log10(double(n));
  }
  s.strategies = to_decimal(total);
  // Rounded so that the printed value is the same whatever libm computed the logarithm.
  s.log10_strategies = std::round(log10_total * 1e6) / 1e6;
  return s;
}

Strategy data_parallel(const Graph& g, int num_devices) {
  Strategy s;
  for (const Op& op : g.ops) {
    // Every device, whether or not the batch divides (uneven parts), unless there are fewer samples.
    int dim = find_dim(op, SplitKind::sample);
    int64_t degree = dim < 0 ? 1 : std::min<int64_t>(op.split_dims[size_t(dim)].size, num_devices);
    s.ops.push_back(split_one(op, dim, int(degree), 0));
  }
  return s;
}

Strategy model_parallel(const Graph& g, int num_devices) {
  Strategy s;
  for (size_t i = 0; i < g.ops.size(); ++i) s.ops.push_back(split_one(g.ops[i], -1, 1, int(i % size_t(num_devices))));
  return s;
}

ExpertRecipe expert_recipe(const Graph& g) {
  int tables = 0;
  for (const Op& op : g.ops) {
    if (op.spec.kind == OpKind::attention) return ExpertRecipe::transformer;
    if (op.spec.kind == OpKind::embedding) ++tables;
  }
  return tables >= 2 ? ExpertRecipe::dlrm : ExpertRecipe::cnn;
}

const char* expert_recipe_name(ExpertRecipe r) {
  switch (r) {
    case ExpertRecipe::transformer: return "transformer";
    case ExpertRecipe::dlrm: return "dlrm";
    case ExpertRecipe::cnn: break;
  }
  return "cnn";
}

const char* expert_recipe_summary(ExpertRecipe r) {
  switch (r) {
    case ExpertRecipe::transformer:
      return "Megatron-LM: QKV, FFN-in, attention-out and FFN-out split by output channel and attention by head over each node's GPUs, "
             "data parallel across nodes; norms and adds data parallel";
    case ExpertRecipe::dlrm:
      return "FlexFlow's DLRM recipe: each embedding table whole on its own GPU, fully connected layers split by parameter in a node, the rest data parallel";
    case ExpertRecipe::cnn: break;
  }
  return "FlexFlow's CNN recipe: convolutions and other ops data parallel, fully connected layers split by parameter over one node's GPUs";
}

namespace {

// The FlexFlow paper's recipe (AlexNet, DLRM): see expert_strategy.
Strategy flexflow_paper_expert(const Graph& g, const Cluster& cluster) {
  const int n = cluster.num_devices();
  Strategy s = data_parallel(g, n);
  int table = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    if (op.spec.kind == OpKind::embedding) {
      // Each table whole on its own device: only the looked-up rows move.
      s.ops[i] = split_one(op, -1, 1, table++ % n);
    } else if (op.spec.kind == OpKind::linear && op.param_bytes > 0) {
      // Fully connected: split the output channels over the GPUs of one node (fast links),
      // unevenly when they do not divide.
      int dim = find_dim(op, SplitKind::parameter);
      if (dim < 0) continue;
      int64_t degree = std::min<int64_t>(op.split_dims[size_t(dim)].size, cluster.gpus_per_node);
      s.ops[i] = split_one(op, dim, int(degree), 0);
    }
  }
  return s;
}

// Sample split `across` ways and dimension `dim` `within` ways (the last varying fastest, so a
// node's GPUs hold one sample slice's `within` parts), over the first across x within devices.
OpConfig tensor_and_data(const Op& op, int dim, int within, int across) {
  std::vector<int> degrees(op.split_dims.size(), 1);
  const int sample = find_dim(op, SplitKind::sample);
  if (sample >= 0) degrees[size_t(sample)] = int(std::min<int64_t>(across, op.split_dims[size_t(sample)].size));
  if (dim >= 0) degrees[size_t(dim)] = int(std::min<int64_t>(within, op.split_dims[size_t(dim)].size));
  return block_config(degrees, 0);
}

// Megatron-LM's recipe within SOAP: see expert_strategy.
Strategy megatron_expert(const Graph& g, const Cluster& cluster) {
  const int n = cluster.num_devices();
  const int within = cluster.gpus_per_node, across = cluster.nodes;
  Strategy s = data_parallel(g, n);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const bool weights = op.param_bytes > 0;
    if ((op.spec.kind == OpKind::linear || op.spec.kind == OpKind::embedding) && weights)
      s.ops[i] = tensor_and_data(op, find_dim(op, SplitKind::parameter), within, across);
    else if (op.spec.kind == OpKind::attention)
      s.ops[i] = tensor_and_data(op, find_dim_named(op, "heads"), within, across);
  }
  return s;
}

}  // namespace

Strategy expert_strategy(const Graph& g, const Cluster& cluster) {
  if (expert_recipe(g) == ExpertRecipe::transformer) return megatron_expert(g, cluster);
  return flexflow_paper_expert(g, cluster);
}

Strategy random_strategy(const Graph& g, int num_devices, uint64_t seed) {
  Rng rng(seed);
  Strategy s;
  for (const Op& op : g.ops) {
    auto configs = enumerate_configs(op, num_devices);
    s.ops.push_back(configs[size_t(rng.below(configs.size()))]);
  }
  return s;
}

}  // namespace autopar
