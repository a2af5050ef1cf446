// Human-readable numbers for the panels: the core's one formatter (core/model/number_text.h:
// FLOPs with SI prefixes, bytes with binary prefixes, durations, counts, thousands grouped, never
// an "e+03"), named in the page's namespace. No ImGui.
#pragma once
#include "number_text.h"

namespace autopar::web {

using autopar::format_bytes;
using autopar::format_count;
using autopar::format_flops;
using autopar::format_ms;
using autopar::format_number;
using autopar::format_percent;
using autopar::format_power_of_ten;
using autopar::format_whole;

}  // namespace autopar::web
