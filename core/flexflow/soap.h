// FlexFlow's SOAP search space (Jia et al., MLSys 2019, section 4): a configuration per op gives
// a degree for each of its split dimensions (Sample, Attribute, Parameter) and the device of each
// part (Operator placement); a strategy picks one configuration per op. Also the named
// strategies (dp, mp, expert, random) and strategy files.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "json_io.h"
#include "result.h"

namespace autopar {

// How one op is parallelised: a degree per split dimension (in the op's split_dims order) and
// the device of each of the product-of-degrees parts (part index is row-major over the dims).
struct OpConfig {
  std::vector<int> degrees;
  std::vector<int> devices;
  // ZeRO stage over the replicas of each weight shard (the parts holding the same shard): 0
  // all-reduces the gradients; 1 shards the optimizer state and 2 also the gradients (both a
  // reduce-scatter, then an all-gather of the updated weights); 3 also the weights (gathered
  // before the forward and again before the backward pass, no gather after the update).
  int zero = 0;
  // Number of parts.
  int parts() const { return int(devices.size()); }
  bool operator==(const OpConfig& o) const { return degrees == o.degrees && devices == o.devices && zero == o.zero; }
  bool operator!=(const OpConfig& o) const { return !(*this == o); }
};

// One configuration per op of a graph, in the graph's op order.
struct Strategy {
  std::vector<OpConfig> ops;
  // Recomputation: the ops of the repeating layers (find_layers) run their forward pass again
  // before their backward pass and keep only each layer's input, as `memory --remat` counts.
  bool remat = false;
  bool operator==(const Strategy& o) const { return ops == o.ops && remat == o.remat; }
};

// The configurations the search space allows for `op` on `num_devices` devices: power-of-two
// degrees that divide their dimension (the sample dimension also takes those up to its size
// that do not: balanced, uneven parts), whose product divides the device count, with the parts
// on an aligned block of consecutive devices. Ordered by degrees, then by block.
std::vector<OpConfig> enumerate_configs(const Op& op, int num_devices);

// Exact size of the strategy space (product of per-op counts) as a decimal string, and log10.
struct SpaceSize {
  std::vector<int64_t> configs_per_op;
  std::vector<int64_t> uneven_configs_per_op;   // of those, configs with a degree that does not divide its dimension
  std::string strategies;
  double log10_strategies = 0;
};
// Counts configurations per op and multiplies them exactly (arbitrary precision).
SpaceSize count_space(const Graph& g, int num_devices);

// Checks a configuration against an op and a cluster (each degree between 1 and its dimension's
// size, dividing it or not; one device per part, devices distinct and in range). `path` names the config in errors.
Status validate_config(const Op& op, const OpConfig& c, int num_devices, const std::string& path);

// Data parallel: every op split along its sample dimension over all devices (unevenly when the
// batch does not divide; over fewer only when there are fewer samples), parameters replicated.
Strategy data_parallel(const Graph& g, int num_devices);
// Model parallel (operator placement): each op whole on one device, ops spread round-robin
// in topological order so that consecutive layers sit on different GPUs.
Strategy model_parallel(const Graph& g, int num_devices);
// The expert strategy of the FlexFlow paper: convolutions and other ops data parallel, fully
// connected layers split by parameter over the GPUs of one node (unevenly when the channels do
// not divide), each embedding table on its own device.
Strategy expert_strategy(const Graph& g, const Cluster& cluster);
// A uniformly random configuration per op from enumerate_configs.
Strategy random_strategy(const Graph& g, int num_devices, uint64_t seed);

// "dp", "mp", "expert", "random:SEED" or a strategy file (.json); errors name `arg_path`.
Result<Strategy> load_strategy(const std::string& text, const Graph& g, const Cluster& cluster,
                               const std::string& arg_path = "--strategy");

// The strategy as JSON: {"ops":[{"name","degrees":{dim:degree},"devices":[...]}]}, with "zero"
// on an op whose ZeRO stage is not 0 and "remat": true when recomputation is on.
Json strategy_to_json(const Graph& g, const Strategy& s);
// Reads a strategy for `g`; every op must appear once, by name. Errors name the JSON path.
Result<Strategy> strategy_from_json(const Json& j, const Graph& g, int num_devices);

}  // namespace autopar
