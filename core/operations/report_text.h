// Small formatting helpers shared by the operations' text renderings (what the CLI prints
// without --json) and the page's labels.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace autopar {

// Formats a count with thousands separators ("17,576").
std::string group_digits(int64_t n);
// Formats FLOPs or bytes with a unit prefix ("1.23 G").
std::string si(double v);
// Formats one number with a printf format ("%.2f ms").
std::string fmt(const char* format, double v);
// Pads (never truncates) to a column width in terminal columns (display_width: a CJK character
// takes two), on the right or, with `right`, on the left.
std::string pad(const std::string& s, size_t width, bool right = false);

}  // namespace autopar
