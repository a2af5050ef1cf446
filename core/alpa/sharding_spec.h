// Alpa's sharding specs (section 4.1): for each tensor dimension, which mesh axes split it
// (R, S0, S1 or S01), and resharding: the collectives that turn one spec into another, derived
// by comparing source and target mesh axis by mesh axis (the paper's Table 2).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "device_mesh.h"
#include "graph.h"
#include "result.h"
#include "uneven_split.h"

namespace autopar {

// A mask of mesh axes: bit 0 = axis 0, bit 1 = axis 1. 0 = R, 1 = S0, 2 = S1, 3 = S01.
using AxisMask = uint8_t;

// One mask per tensor dimension.
struct ShardingSpec {
  std::vector<AxisMask> dims;
  bool operator==(const ShardingSpec& o) const { return dims == o.dims; }
  bool operator!=(const ShardingSpec& o) const { return dims != o.dims; }
  bool operator<(const ShardingSpec& o) const { return dims < o.dims; }
};

// "R", "S0", "S1" or "S01".
const char* axis_mask_token(AxisMask m);
// The spec as a string: "S0R", "RS1", "S01R", "RRS1".
std::string spec_to_string(const ShardingSpec& s);
// Parses a spec string (tokens R, S0, S1, S01, one per dimension). Errors name `path`.
Result<ShardingSpec> parse_spec(const std::string& text, const std::string& path = "--from");
// Checks a spec against a tensor shape and a mesh: one token per dimension, each mesh axis used
// at most once, and every split leaving each device at least one element of its dimension. A
// split need not divide its dimension: the parts then differ by one element (uneven split).
Status validate_spec(const ShardingSpec& s, const Shape& shape, const DeviceMesh& mesh, const std::string& path);
// Number of devices an axis mask splits a dimension into.
int64_t mask_ways(AxisMask m, const DeviceMesh& mesh);
// Elements the device with the largest shard holds of a tensor with this spec (the product of
// ceil(dim / ways)): uneven splits are bounded by their largest part, in time and memory.
double per_device_elements(const ShardingSpec& s, const Shape& shape, const DeviceMesh& mesh);
// Every valid spec of a tensor of this shape on this mesh, in a fixed order (R first).
std::vector<ShardingSpec> all_specs(const Shape& shape, const DeviceMesh& mesh);

// One step of a resharding.
struct ReshardStep {
  std::string collective;   // none, slice, all-gather, all-to-all (all-reduce, reduce-scatter for partial sums)
  std::vector<int> axes;
  double bytes = 0;         // per-device buffer B of the collective
  double cost = 0;
};
// The cheapest sequence of per-axis steps from one spec to another, and its total cost.
struct ReshardPlan {
  std::vector<ReshardStep> steps;
  double cost = 0;
};
// Resharding a tensor of `shape` from `from` to `to` (both valid) on `mesh`.
ReshardPlan reshard(const ShardingSpec& from, const ShardingSpec& to, const Shape& shape, int dtype_bytes, const DeviceMesh& mesh);
// reshard(...).cost, bit for bit, without building the steps or allocating: the planners price
// every pair of strategies on every edge with it.
double reshard_cost(const ShardingSpec& from, const ShardingSpec& to, const Shape& shape, int dtype_bytes, const DeviceMesh& mesh);

}  // namespace autopar
