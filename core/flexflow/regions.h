// Which part of a tensor each part of an op writes and reads (FlexFlow section 5.1): the output
// box of a part, and the boxes of each input it needs, including the halo of a split
// convolution. The task graph intersects these to find data dependencies and transfer sizes.
#pragma once
#include <cstdint>
#include <vector>

#include "graph.h"
#include "strategy.h"
#include "uneven_split.h"

namespace autopar {

// A half-open box [lo[d], hi[d]) per dimension (at most 6, like every tensor here). Fixed
// size: the task graph builds thousands of these per strategy and must not allocate.
struct Box {
  Box() {}  // leaves lo/hi unset: only the first `rank` entries are ever read
  int rank = 0;
  int64_t lo[6];
  int64_t hi[6];
  bool operator==(const Box& o) const {
    if (rank != o.rank) return false;
    for (int d = 0; d < rank; ++d) if (lo[d] != o.lo[d] || hi[d] != o.hi[d]) return false;
    return true;
  }
};

// Up to three boxes: what one part reads of one input.
struct BoxList {
  BoxList() {}
  int count = 0;
  Box boxes[3];
};

// Elements in a box.
int64_t box_volume(const Box& b);
// Elements in the intersection of two boxes of the same rank (0 when disjoint).
int64_t intersection_volume(const Box& a, const Box& b);

// Coordinate of part `part` on split dimension `dim` (parts are row-major over the degrees).
int part_coordinate(const OpConfig& c, int part, size_t dim);

// True when every degree of `c` divides its dimension (all parts of the op are equal).
bool even_split(const Op& op, const OpConfig& c);
// Units of split dimension `dim` that part `part` covers.
int64_t part_units(const Op& op, const OpConfig& c, int part, size_t dim);
// The share of the op's work that part `part` does: the product over the split dimensions
// of part_units / size (1 / parts when the split is even). With `parameter_only`, only the
// parameter dimensions count: the share of the weights the part holds.
double part_share(const Op& op, const OpConfig& c, int part, bool parameter_only = false);

// The box of the output that part `part` computes.
Box output_box(const Op& op, const OpConfig& c, int part);

// The boxes of input `input` (in that tensor's coordinates) that a part computing `out` reads.
// Usually one box; attention reads three (its slice of Q, K and V).
BoxList input_boxes(const Op& op, size_t input, const Box& out);

}  // namespace autopar
