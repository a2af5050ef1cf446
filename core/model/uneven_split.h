// How a dimension of `units` elements splits `degree` ways when the degree does not divide it:
// the one convention of both planners and the page. Parts are balanced, as frameworks split a
// batch that does not divide (torch.chunk-like sizes, PyTorch's DistributedSampler): they
// differ by at most one unit, and the first units % degree parts are the larger ones. Times and
// memory are bounded by the largest part.
#pragma once
#include <cstdint>

namespace autopar {

// First unit of part `coord` (0 <= coord <= degree; coord == degree gives `units`).
int64_t part_start(int64_t units, int64_t degree, int64_t coord);
// The part holding unit `unit` (0 <= unit < units).
int part_of_unit(int64_t units, int64_t degree, int64_t unit);
// Units of the largest part: ceil(units / degree) (`units` itself for degree <= 1).
int64_t largest_part(int64_t units, int64_t degree);

}  // namespace autopar
