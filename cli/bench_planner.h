// `autopar bench`'s planner figures (bench_planner.cpp): how long Alpa's two passes take as the
// model and the cluster grow.
#pragma once
#include <sstream>

#include "json_io.h"

namespace autopar::cli {

// One cheap planning run for the default `bench` output (about a second): its JSON, and a line
// of text appended to `t`.
Json planner_bench_line(std::ostringstream& t);
// The long sweep of `bench --planner`: layers 12 to 96 on a fixed cluster, GPUs 8 to 1,024,
// and GPT-3 175B on 1,024 GPUs; minutes of work. Its JSON, with a table appended to `t`.
Json planner_bench_sweep(std::ostringstream& t);

}  // namespace autopar::cli
