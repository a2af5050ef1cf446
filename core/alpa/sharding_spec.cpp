// Sharding specs and resharding (Alpa section 4.1, Table 2). Each mesh axis is looked at on
// its own: where it splits the tensor before and after decides the step — nothing, a local
// slice (free), an all-gather (the axis stops splitting), or an all-to-all (it moves to another
// dimension). When two axes change, both orders are costed and the cheaper one kept, since the
// first step changes the buffer size of the second.
#include "sharding_spec.h"

#include <algorithm>

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
  if (text.size() > 64) return make_error("bad_spec", "sharding spec '" + text.substr(0, 20) + "...' is too long", path);
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
      return make_error("bad_spec", "sharding spec '" + text + "' is not a sequence of R, S0, S1 and S01 (one per tensor dimension), e.g. S0R or RS1; the problem is at character " +
                                        std::to_string(i + 1), path);
    }
  }
  if (s.dims.empty()) return make_error("bad_spec", "the sharding spec is empty; give one token per tensor dimension, e.g. S0R", path);
  // Tensors have at most 6 dimensions; longer specs would only make the enumerations slow.
  if (s.dims.size() > 6) return make_error("bad_spec", "sharding spec '" + text + "' has " + std::to_string(s.dims.size()) + " tokens; tensors have at most 6 dimensions", path);
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
    return make_error("bad_spec", "spec " + spec_to_string(s) + " has " + std::to_string(s.dims.size()) + " tokens but the tensor has " +
                                      std::to_string(shape.size()) + " dimensions " + shape_to_string(shape), path);
  AxisMask used = 0;
  for (size_t d = 0; d < s.dims.size(); ++d) {
    if (used & s.dims[d])
      return make_error("bad_spec", "spec " + spec_to_string(s) + " uses a mesh axis twice; each axis may split at most one dimension", path);
    used |= s.dims[d];
    int64_t ways = mask_ways(s.dims[d], mesh);
    if (shape[d] < ways)
      return make_error("bad_spec", "spec " + spec_to_string(s) + " splits dimension " + std::to_string(d) + " (size " + std::to_string(shape[d]) +
                                        ") " + std::to_string(ways) + " ways, which leaves some devices nothing; split it fewer ways", path);
  }
  return Ok{};
}

int64_t largest_part(int64_t size, int64_t ways) { return ways <= 1 ? size : (size + ways - 1) / ways; }

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

int dim_of_axis(const ShardingSpec& s, int axis) {
  for (size_t d = 0; d < s.dims.size(); ++d)
    if (s.dims[d] & (1 << axis)) return int(d);
  return -1;
}

// Applies the change of one axis to `cur`, returning the step it takes.
ReshardStep step_for_axis(ShardingSpec& cur, const ShardingSpec& to, int axis, const Shape& shape, int dtype_bytes, const DeviceMesh& mesh) {
  const int src = dim_of_axis(cur, axis), dst = dim_of_axis(to, axis);
  const AxisMask bit = AxisMask(1 << axis);
  ReshardStep st;
  st.axes = {axis};
  if (src == dst || mesh.axis[axis].size == 1) {
    // Nothing moves (an axis of one device never needs communication).
    if (src >= 0) cur.dims[size_t(src)] &= AxisMask(~bit);
    if (dst >= 0) cur.dims[size_t(dst)] |= bit;
    st.collective = "none";
    return st;
  }
  if (src < 0) {  // replicated -> split: each device keeps its slice
    cur.dims[size_t(dst)] |= bit;
    st.collective = "slice";
    return st;
  }
  if (dst < 0) {  // split -> replicated: gather the slices
    cur.dims[size_t(src)] &= AxisMask(~bit);
    st.collective = "all-gather";
    st.bytes = per_device_elements(cur, shape, mesh) * dtype_bytes;   // the gathered output
    st.cost = all_gather_cost(mesh.axis[axis], st.bytes);
    return st;
  }
  // Split along one dimension -> another: all-to-all; the per-device buffer keeps its size.
  st.collective = "all-to-all";
  st.bytes = per_device_elements(cur, shape, mesh) * dtype_bytes;
  cur.dims[size_t(src)] &= AxisMask(~bit);
  cur.dims[size_t(dst)] |= bit;
  st.cost = all_to_all_cost(mesh.axis[axis], st.bytes);
  return st;
}

ReshardPlan in_order(const ShardingSpec& from, const ShardingSpec& to, const Shape& shape, int dtype_bytes, const DeviceMesh& mesh, int first) {
  ReshardPlan p;
  ShardingSpec cur = from;
  for (int k = 0; k < 2; ++k) {
    ReshardStep st = step_for_axis(cur, to, k == 0 ? first : 1 - first, shape, dtype_bytes, mesh);
    if (st.collective == "none") continue;
    p.cost += st.cost;
    p.steps.push_back(st);
  }
  return p;
}

}  // namespace

ReshardPlan reshard(const ShardingSpec& from, const ShardingSpec& to, const Shape& shape, int dtype_bytes, const DeviceMesh& mesh) {
  ReshardPlan a = in_order(from, to, shape, dtype_bytes, mesh, 0);
  ReshardPlan b = in_order(from, to, shape, dtype_bytes, mesh, 1);
  ReshardPlan best = b.cost < a.cost ? b : a;
  if (best.steps.empty()) best.steps.push_back(ReshardStep{"none", {}, 0, 0});
  return best;
}

}  // namespace autopar
