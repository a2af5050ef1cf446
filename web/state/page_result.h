// result(): the numbers the page shows (`window.autopar.result()`), and the inputs of the Alpa
// plans they are computed for. No ImGui.
#pragma once
#include <string>
#include <vector>

#include "app_state.h"

namespace autopar::web {

// The numbers the page shows (`window.autopar.result()`); planner fields are null until run.
Json result_to_json(const AppState& state);

// The model and cluster of `s` as a worker loads them (worker_session.h's inputs).
Json operation_inputs(const Settings& s);

// What the per-stage memory view computes for the current settings: the plan (settings.plan)
// on the current model and cluster, with the page's micro-batches when the plan has no mbs.
PlanMemoryInputs plan_memory_inputs(const Settings& s);
// Keeps the per-stage memory following the settings (follow_plan_memory), in any tab: a script
// reading result().plan_memory gets it without frames, as the pipeline plan.
void refresh_plan_memory(AppState& state);

// The plans one knob step from the page's (plan_knob_steps on the current GPUs and the model's
// repeating layers, the way the plan last moved first), as the per-stage memory view asks for them.
std::vector<PlanMemoryInputs> plan_memory_around(const AppState& state);
// Computes the plans around the page's ahead while the worker is idle (prefetch_plan_memory),
// where the per-stage view is drawn: a slider moved one step then finds its plan cached. True
// when it started computing one.
bool prefetch_plan_memory_around(AppState& state);

// The inputs of the Alpa plans in the current settings.
AlpaInputs alpa_inputs(const AppState& state);
// Asks the worker for the intra-op plan of the current inputs unless it has it or computes it,
// and takes the plan once it arrived; until then result() shows it pending (intra_planning):
// result() never solves the ILP on the page's thread.
void refresh_intra_plan(AppState& state);
// The pipeline plan likewise (follow_inter_plan, in any tab: the script asked for it), and its
// result taken once the worker sent it, so that result().total_latency follows the state
// without frames and without planInter().
void refresh_inter_plan(AppState& state);

}  // namespace autopar::web
