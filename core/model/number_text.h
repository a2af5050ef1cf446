// Numbers as a reader reads them, the one formatter of the page (web/strings/format_units.h)
// and of the lecture's findings: FLOPs with SI prefixes, bytes with binary prefixes, durations
// from ns to hours, thousands grouped, and very large or small numbers as "4.17 × 10¹¹" —
// never printf's "1e+03" or "3.472e+04". Pure functions; the output is the same natively and in
// WebAssembly (and in both languages: numbers are not translated).
#pragma once
#include <cstdint>
#include <string>

namespace autopar {

// "1.23 GFLOP", "512 FLOP"; three significant digits.
std::string format_flops(double flops);
// "233 MiB", "1000 MiB", "1.5 KiB", "12 B"; three significant digits.
std::string format_bytes(double bytes);
// "61.1 M", "4.1 k", "12".
std::string format_count(double count);
// A duration given in milliseconds: "352.2 ms", "12.5 µs", "1.25 s", "34.7 s", "12.5 min", "3.2 h".
std::string format_ms(double ms);
// A share as a percentage: "12.3%", "0.04%".
std::string format_percent(double fraction);
// `value` with `digits` significant digits, no trailing zeros, thousands grouped ("0.25",
// "1,000,000,000", "0.0000454"); beyond 10^15 or below 10^-6 "4.17 × 10¹¹".
std::string format_number(double value, int digits = 4);
// A whole number with its thousands grouped: "1,024", "-5".
std::string format_whole(int64_t value);
// 10^log10 read as a number: exact digits up to a million ("17,576"), else "3.7 × 10²²".
std::string format_power_of_ten(double log10_value);

}  // namespace autopar
