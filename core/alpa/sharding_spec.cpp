// Sharding specs and resharding (Alpa section 4.1, Table 2). Each mesh axis is looked at on
// its own: where it splits the tensor before and after decides the step — nothing, a local
// slice (free), an all-gather (the axis stops splitting), or an all-to-all (it moves to another
// dimension). When two axes change, both orders are costed and the cheaper one kept, since the
// first step changes the buffer size of the second.
#include "sharding_spec.h"

#include <algorithm>

#include "small_vector.h"

namespace autopar {

const char* axis_mask_token(AxisMask m) {
  switch (m) {
    case 0: return "R";
    case 1: return "S0";
    case 2: return "S1";
    default: return "S01";
  }
}

std::string spec_to_string(const ShardingSpec& s) {
  std::string out;
  for (AxisMask m : s.dims) out += axis_mask_token(m);
  return out;
}

Result<ShardingSpec> parse_spec(const std::string& text, const std::string& path) {
  ShardingSpec s;
  size_t i = 0;
  if (text.size() > 64) return make_error(ErrorCode::bad_spec, "sharding spec '" + text.substr(0, 20) + "...' is too long", path);
  while (i < text.size()) {
    if (text[i] == 'R') {
      s.dims.push_back(0);
      ++i;
    } else if (text.compare(i, 3, "S01") == 0) {
      s.dims.push_back(3);
      i += 3;
    } else if (text.compare(i, 2, "S0") == 0) {
      s.dims.push_back(1);
      i += 2;
    } else if (text.compare(i, 2, "S1") == 0) {
      s.dims.push_back(2);
      i += 2;
    } else {
      return make_error(ErrorCode::bad_spec, "sharding spec '" + text + "' is not a sequence of R, S0, S1 and S01 (one per tensor dimension), e.g. S0R or RS1; the problem is at character " +
                                        std::to_string(i + 1), path);
    }
  }
  if (s.dims.empty()) return make_error(ErrorCode::bad_spec, "the sharding spec is empty; give one token per tensor dimension, e.g. S0R", path);
  // Tensors have at most 6 dimensions; longer specs would only make the enumerations slow.
  if (s.dims.size() > 6) return make_error(ErrorCode::bad_spec, "sharding spec '" + text + "' has " + std::to_string(s.dims.size()) + " tokens; tensors have at most 6 dimensions", path);
  return s;
}

int64_t mask_ways(AxisMask m, const DeviceMesh& mesh) {
  int64_t w = 1;
  if (m & 1) w *= mesh.axis[0].size;
  if (m & 2) w *= mesh.axis[1].size;
  return w;
}

Status validate_spec(const ShardingSpec& s, const Shape& shape, const DeviceMesh& mesh, const std::string& path) {
  if (s.dims.size() != shape.size())
    return make_error(ErrorCode::bad_spec, "spec " + spec_to_string(s) + " has " + std::to_string(s.dims.size()) + " tokens but the tensor has " +
                                      std::to_string(shape.size()) + " dimensions " + shape_to_string(shape), path);
  AxisMask used = 0;
  for (size_t d = 0; d < s.dims.size(); ++d) {
    if (used & s.dims[d])
      return make_error(ErrorCode::bad_spec, "spec " + spec_to_string(s) + " uses a mesh axis twice; each axis may split at most one dimension", path);
    used |= s.dims[d];
    int64_t ways = mask_ways(s.dims[d], mesh);
    if (shape[d] < ways)
      return make_error(ErrorCode::bad_spec, "spec " + spec_to_string(s) + " splits dimension " + std::to_string(d) + " (size " + std::to_string(shape[d]) +
                                        ") " + std::to_string(ways) + " ways, which leaves some devices nothing; split it fewer ways", path);
  }
  return Ok{};
}


double per_device_elements(const ShardingSpec& s, const Shape& shape, const DeviceMesh& mesh) {
  double e = 1;
  for (size_t d = 0; d < shape.size(); ++d) e *= double(largest_part(shape[d], mask_ways(s.dims[d], mesh)));
  return e;
}

std::vector<ShardingSpec> all_specs(const Shape& shape, const DeviceMesh& mesh) {
  std::vector<ShardingSpec> out;
  const size_t r = shape.size();
  // Where axis 0 and axis 1 go: a dimension index, or r for "not used".
  for (size_t a1 = 0; a1 <= r; ++a1)
    for (size_t a0 = 0; a0 <= r; ++a0) {
      ShardingSpec s;
      s.dims.assign(r, 0);
      if (a0 < r) s.dims[a0] |= 1;
      if (a1 < r) s.dims[a1] |= 2;
      if (validate_spec(s, shape, mesh, "").ok() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
  std::sort(out.begin(), out.end(), [](const ShardingSpec& a, const ShardingSpec& b) {
    int ua = 0, ub = 0;
    for (AxisMask m : a.dims) ua += (m & 1) + ((m >> 1) & 1);
    for (AxisMask m : b.dims) ub += (m & 1) + ((m >> 1) & 1);
    return ua != ub ? ua < ub : a.dims < b.dims;
  });
  return out;
}

namespace {

// A spec's masks being changed axis by axis, kept inline: resharding is priced for every pair of
// strategies on every edge, and allocating a copy of each spec dominated that.
using Masks = SmallVector<AxisMask, 8>;

Masks masks_of(const ShardingSpec& s) {
  Masks m;
  for (AxisMask d : s.dims) m.push_back(d);
  return m;
}

// per_device_elements over masks.
double elements_of(const Masks& dims, const Shape& shape, const DeviceMesh& mesh) {
  double e = 1;
  for (size_t d = 0; d < shape.size(); ++d) e *= double(largest_part(shape[d], mask_ways(dims[int(d)], mesh)));
  return e;
}

int dim_of_axis(const AxisMask* dims, size_t rank, int axis) {
  for (size_t d = 0; d < rank; ++d)
    if (dims[d] & (1 << axis)) return int(d);
  return -1;
}

// What one mesh axis's change does.
enum class AxisMoveKind { none, slice, all_gather, all_to_all };
struct AxisMove {
  AxisMoveKind kind = AxisMoveKind::none;
  double bytes = 0;   // per-device buffer of the collective
  double cost = 0;
};

// Applies the change of one axis to `cur`, returning the move it takes.
AxisMove move_axis(Masks& cur, const ShardingSpec& to, int axis, const Shape& shape, int dtype_bytes, const DeviceMesh& mesh) {
  const size_t rank = to.dims.size();
  const int src = dim_of_axis(cur.data(), rank, axis), dst = dim_of_axis(to.dims.data(), rank, axis);
  const AxisMask bit = AxisMask(1 << axis);
  AxisMask* d = cur.data();
  AxisMove m;
  if (src == dst || mesh.axis[axis].size == 1) {
    // Nothing moves (an axis of one device never needs communication).
    if (src >= 0) d[src] &= AxisMask(~bit);
    if (dst >= 0) d[dst] |= bit;
    return m;
  }
  if (src < 0) {  // replicated -> split: each device keeps its slice
    d[dst] |= bit;
    m.kind = AxisMoveKind::slice;
    return m;
  }
  if (dst < 0) {  // split -> replicated: gather the slices
    d[src] &= AxisMask(~bit);
    m.kind = AxisMoveKind::all_gather;
    m.bytes = elements_of(cur, shape, mesh) * dtype_bytes;   // the gathered output
    m.cost = all_gather_cost(mesh.axis[axis], m.bytes);
    return m;
  }
  // Split along one dimension -> another: all-to-all; the per-device buffer keeps its size.
  m.kind = AxisMoveKind::all_to_all;
  m.bytes = elements_of(cur, shape, mesh) * dtype_bytes;
  d[src] &= AxisMask(~bit);
  d[dst] |= bit;
  m.cost = all_to_all_cost(mesh.axis[axis], m.bytes);
  return m;
}

// The cost of changing axis `first` and then the other.
double in_order_cost(const ShardingSpec& from, const ShardingSpec& to, const Shape& shape, int dtype_bytes, const DeviceMesh& mesh, int first) {
  Masks cur = masks_of(from);
  double cost = 0;
  for (int k = 0; k < 2; ++k) {
    const AxisMove m = move_axis(cur, to, k == 0 ? first : 1 - first, shape, dtype_bytes, mesh);
    if (m.kind != AxisMoveKind::none) cost += m.cost;
  }
  return cost;
}

// The steps of changing axis `first` and then the other.
ReshardPlan in_order(const ShardingSpec& from, const ShardingSpec& to, const Shape& shape, int dtype_bytes, const DeviceMesh& mesh, int first) {
  static const char* const kNames[] = {"none", "slice", "all-gather", "all-to-all"};
  ReshardPlan p;
  Masks cur = masks_of(from);
  for (int k = 0; k < 2; ++k) {
    const int axis = k == 0 ? first : 1 - first;
    const AxisMove m = move_axis(cur, to, axis, shape, dtype_bytes, mesh);
    if (m.kind == AxisMoveKind::none) continue;
    p.cost += m.cost;
    p.steps.push_back(ReshardStep{kNames[int(m.kind)], {axis}, m.bytes, m.cost});
  }
  return p;
}

}  // namespace

ReshardPlan reshard(const ShardingSpec& from, const ShardingSpec& to, const Shape& shape, int dtype_bytes, const DeviceMesh& mesh) {
  // The cheaper order wins; on a tie axis 0 goes first (reshard_cost chooses the same way).
  const bool second = in_order_cost(from, to, shape, dtype_bytes, mesh, 1) < in_order_cost(from, to, shape, dtype_bytes, mesh, 0);
  ReshardPlan best = in_order(from, to, shape, dtype_bytes, mesh, second ? 1 : 0);
  if (best.steps.empty()) best.steps.push_back(ReshardStep{"none", {}, 0, 0});
  return best;
}

double reshard_cost(const ShardingSpec& from, const ShardingSpec& to, const Shape& shape, int dtype_bytes, const DeviceMesh& mesh) {
  const double a = in_order_cost(from, to, shape, dtype_bytes, mesh, 0), b = in_order_cost(from, to, shape, dtype_bytes, mesh, 1);
  return b < a ? b : a;
}

}  // namespace autopar
