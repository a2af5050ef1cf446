// The balanced uneven split. See uneven_split.h.
#include "uneven_split.h"

#include <algorithm>

namespace autopar {

int64_t part_start(int64_t units, int64_t degree, int64_t coord) {
  const int64_t base = units / degree, rem = units % degree;
  return coord * base + std::min<int64_t>(coord, rem);
}

int part_of_unit(int64_t units, int64_t degree, int64_t unit) {
  const int64_t base = units / degree, rem = units % degree;
  const int64_t big = rem * (base + 1);   // units held by the larger parts
  // base == 0 (more parts than units) never reaches the division: every unit is below big.
  return int(unit < big ? unit / (base + 1) : rem + (unit - big) / base);
}

int64_t largest_part(int64_t units, int64_t degree) { return degree <= 1 ? units : (units + degree - 1) / degree; }

}  // namespace autopar
