// result(): the numbers the page shows (`window.autopar.result()`), and the inputs of the Alpa
// plans they are computed for. No ImGui.
#pragma once
#include <string>

#include "app_state.h"

namespace autopar::web {

// The numbers the page shows (`window.autopar.result()`); planner fields are null until run.
Json result_to_json(const AppState& state);

// The model and cluster of `s` as a worker loads them (worker_session.h's inputs).
Json operation_inputs(const Settings& s);

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
