// Output and input regions per op kind. A split convolution reads kernel - 1 extra positions
// at inner boundaries (the halo); ops split by output channel read their whole input.
#include "regions.h"

#include <algorithm>

#include "op_kinds.h"

namespace autopar {

int64_t box_volume(const Box& b) {
  int64_t v = 1;
  for (int d = 0; d < b.rank; ++d) v *= std::max<int64_t>(0, b.hi[d] - b.lo[d]);
  return v;
}

int64_t intersection_volume(const Box& a, const Box& b) {
  int64_t v = 1;
  for (int d = 0; d < a.rank; ++d) {
    int64_t lo = std::max(a.lo[d], b.lo[d]), hi = std::min(a.hi[d], b.hi[d]);
    if (hi <= lo) return 0;
    v *= hi - lo;
  }
  return v;
}

int part_coordinate(const OpConfig& c, int part, size_t dim) {
  for (size_t j = c.degrees.size(); j-- > dim + 1;) part /= c.degrees[j];
  return part % c.degrees[dim];
}

bool even_split(const Op& op, const OpConfig& c) {
  for (size_t j = 0; j < op.split_dims.size(); ++j)
    if (op.split_dims[j].size % c.degrees[j] != 0) return false;
  return true;
}

int64_t part_units(const Op& op, const OpConfig& c, int part, size_t dim) {
  const int coord = part_coordinate(c, part, dim);
  const int64_t units = op.split_dims[dim].size;
  return part_start(units, c.degrees[dim], coord + 1) - part_start(units, c.degrees[dim], coord);
}

double part_share(const Op& op, const OpConfig& c, int part, bool parameter_only) {
  double share = 1;
  for (size_t j = 0; j < op.split_dims.size(); ++j) {
    if (parameter_only && op.split_dims[j].kind != SplitKind::parameter) continue;
    share *= double(part_units(op, c, part, j)) / double(op.split_dims[j].size);
  }
  return share;
}

namespace {

Box whole(const Shape& s) {
  Box b;
  b.rank = int(s.size());
  for (int d = 0; d < b.rank; ++d) {
    b.lo[d] = 0;
    b.hi[d] = s[size_t(d)];
  }
  return b;
}

}  // namespace

Box output_box(const Op& op, const OpConfig& c, int part) {
  const Shape& s = op.output.shape;
  Box b = whole(s);
  for (size_t j = op.split_dims.size(); j-- > 0;) {
    const int deg = c.degrees[j];
    const int coord = part % deg;
    part /= deg;
    // A split dimension partitions `size` units of s[d] / size elements each (attention's heads
    // are units of the hidden dimension; elsewhere a unit is one element), balanced when the
    // degree does not divide the size.
    const SplitDim& sd = op.split_dims[j];
    const size_t d = size_t(sd.output_dim);
    const int64_t unit = s[d] / sd.size;
    b.lo[d] = part_start(sd.size, deg, coord) * unit;
    b.hi[d] = part_start(sd.size, deg, coord + 1) * unit;
  }
  return b;
}

namespace {

// Input rows a window op reads for output rows [lo, hi): [lo*stride - pad, (hi-1)*stride - pad + kernel),
// clipped to the input.
void window_range(int64_t lo, int64_t hi, int64_t kernel, int64_t stride, int64_t pad, int64_t size, int64_t& in_lo, int64_t& in_hi) {
  in_lo = std::max<int64_t>(0, lo * stride - pad);
  in_hi = std::min<int64_t>(size, (hi - 1) * stride - pad + kernel);
}

}  // namespace

BoxList input_boxes(const Op& op, size_t input, const Box& out) {
  const Shape& in = op.inputs[input].shape;
  Box b = whole(in);
  BoxList list;
  auto one = [&](const Box& x) {
    list.count = 1;
    list.boxes[0] = x;
    return list;
  };
  const Op::Geometry& geo = op.geometry;
  switch (op_kind_traits(op.spec.kind).region) {
    case RegionRule::leading_dims:
      if (geo.flatten) {
        b.lo[0] = out.lo[0];
        b.hi[0] = out.hi[0];
      } else {
        for (int d = 0; d + 1 < int(in.size()); ++d) { b.lo[d] = out.lo[d]; b.hi[d] = out.hi[d]; }
      }
      return one(b);
    case RegionRule::window:
    case RegionRule::window_channels: {
      b.lo[0] = out.lo[0];
      b.hi[0] = out.hi[0];
      if (op_kind_traits(op.spec.kind).region == RegionRule::window_channels) { b.lo[1] = out.lo[1]; b.hi[1] = out.hi[1]; }
      // Kinds without padding or a fused pooling have those attributes absent, hence 0.
      const int64_t k = geo.kernel, s = geo.stride, p = geo.padding;
      int64_t pk = 0, ps = 1;
      if (geo.pool_kernel > 0) { pk = geo.pool_kernel; ps = geo.pool_stride; }
      for (int d = 2; d < int(in.size()); ++d) {
        int64_t lo = out.lo[d], hi = out.hi[d];
        if (pk > 0) { lo = lo * ps; hi = (hi - 1) * ps + pk; }   // back through the fused pooling
        window_range(lo, hi, k, s, p, in[size_t(d)], b.lo[d], b.hi[d]);
      }
      return one(b);
    }
    case RegionRule::batch_only:
      b.lo[0] = out.lo[0];
      b.hi[0] = out.hi[0];
      return one(b);
    case RegionRule::lookup: {
      size_t lead = geo.bag ? in.size() - 1 : in.size();
      for (int d = 0; d < int(lead); ++d) { b.lo[d] = out.lo[d]; b.hi[d] = out.hi[d]; }
      return one(b);
    }
    case RegionRule::same:
      return one(out);
    case RegionRule::gated_halves: {
      // [gate | up] along the last dimension: a slice [lo, hi) of the output reads the same
      // slice of both halves.
      const int r = in.size() > 0 ? int(in.size()) - 1 : 0;
      const int64_t f = op.output.shape[size_t(r)];
      list.count = 2;
      for (int k = 0; k < 2; ++k) {
        list.boxes[k] = out;
        list.boxes[k].lo[r] = k * f + out.lo[r];
        list.boxes[k].hi[r] = k * f + out.hi[r];
      }
      return list;
    }
    case RegionRule::attention_heads: {
      // Fused [Q | K | V] along the last dimension; a head slice [lo, hi) of the output reads
      // the same slice of each of the three, for its own samples; Q for its own positions (a
      // split of the sequence), K and V for every position (each query attends to all). With
      // grouped-query attention K and V hold kv_heads heads each, shared by heads / kv_heads
      // query heads: a slice reads the K and V heads of the groups its query heads are in.
      const int64_t h = op.output.shape[2];
      auto kv = op.spec.attrs.find("kv_heads");
      const int64_t heads = op.spec.attrs.at("heads");
      const int64_t kv_heads = kv == op.spec.attrs.end() ? heads : kv->second;
      const int64_t head_dim = h / heads, group = heads / kv_heads, kv_width = kv_heads * head_dim;
      const int64_t kv_lo = out.lo[2] / head_dim / group * head_dim;
      const int64_t kv_hi = ((out.hi[2] + head_dim - 1) / head_dim + group - 1) / group * head_dim;
      list.count = 3;
      for (int r = 0; r < 3; ++r) {
        Box& q = list.boxes[r];
        q = b;
        q.lo[0] = out.lo[0];
        q.hi[0] = out.hi[0];
        const int64_t base = r == 0 ? 0 : h + (r - 1) * kv_width;
        q.lo[2] = base + (r == 0 ? out.lo[2] : kv_lo);
        q.hi[2] = base + (r == 0 ? out.hi[2] : kv_hi);
        if (r == 0) {
          q.lo[1] = out.lo[1];
          q.hi[1] = out.hi[1];
        }
      }
      return list;
    }
  }
  return one(b);
}

}  // namespace autopar
