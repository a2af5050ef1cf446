// Exports of a given plan (`export --plan`, the knobs of `inter --plan`: t, p, d, cp, ep, v, mbs,
// first/last, sp, recompute, ZeRO / distributed optimizer / FSDP, schedule) for the engines people
// train on today: Megatron-LM's flags and torchtitan's job config. The plan is priced first as
// `inter --plan` prices it, so a plan that does not fit or does not split is refused with the
// same error; what an engine spells otherwise or cannot run is said in a note beside the flags.
#pragma once
#include <string>

#include "cluster.h"
#include "graph.h"
#include "inter_operation.h"

namespace autopar {

// Megatron-LM core_r0.14.0's flags for `plan` on `c` (its GPUs and precision), `report` its price.
std::string export_megatron_plan(const Graph& g, const Cluster& c, const GivenPlan& plan, const InterReport& report, const std::string& title);

// torchtitan's job config (TOML: [parallelism], [activation_checkpoint], [training], and the float8
// converter under FP8) for `plan` on `c`, `report` its price.
std::string export_torchtitan_plan(const Graph& g, const Cluster& c, const GivenPlan& plan, const InterReport& report, const std::string& title);

}  // namespace autopar
