// Human-readable numbers for the panels: FLOPs with SI prefixes, bytes with binary prefixes,
// counts with SI suffixes. Pure functions, no ImGui.
#pragma once
#include <cstdint>
#include <string>

namespace autopar::web {

// "1.23 GFLOP", "512 FLOP"; three significant digits.
std::string format_flops(double flops);
// "233 MiB", "1.5 KiB", "12 B".
std::string format_bytes(double bytes);
// "61.1 M", "4.1 k", "12".
std::string format_count(double count);
// A duration given in milliseconds, readable: "352.2 ms", "12.5 \u00b5s" (micro sign), "1.25 s".
std::string format_ms(double ms);
// A share as a percentage: "12.3%", "0.04%".
std::string format_percent(double fraction);
// A number with `digits` significant digits and no trailing zeros ("0.25", "1.5e+09").
std::string format_number(double value, int digits = 4);

}  // namespace autopar::web
