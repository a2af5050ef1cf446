// A parallelisation strategy as a value (FlexFlow's SOAP, Jia et al. MLSys 2019, section 4): per
// op a degree for each of its split dimensions and the device of each part, plus recomputation.
// What the planners search over and the front ends show, edit and keep in share links; the
// search space itself (which configurations exist, the named strategies) is core/flexflow/soap.h.
#pragma once
#include <string>
#include <vector>

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

// Checks a configuration against an op and a cluster (each degree between 1 and its dimension's
// size, dividing it or not; one device per part, devices distinct and in range). `path` names the config in errors.
Status validate_config(const Op& op, const OpConfig& c, int num_devices, const std::string& path);

// The strategy as JSON: {"ops":[{"name","degrees":{dim:degree},"devices":[...]}]}, with "zero"
// on an op whose ZeRO stage is not 0 and "remat": true when recomputation is on.
Json strategy_to_json(const Graph& g, const Strategy& s);
// Reads a strategy for `g`; every op must appear once, by name. Errors name the JSON path.
Result<Strategy> strategy_from_json(const Json& j, const Graph& g, int num_devices);

}  // namespace autopar
