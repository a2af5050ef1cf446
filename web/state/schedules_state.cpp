// The Schedules tab over the app state. See schedules_state.h.
#include "schedules_state.h"

namespace autopar::web {

const InterOpPlan* schedules_plan(const AppState& state) { return current_inter_plan(state.alpa.inter, alpa_inputs(state)); }

void refresh_schedules(AppState& state) {
  const InterOpPlan* plan = state.settings.schedules.source == "plan" ? schedules_plan(state) : nullptr;
  if (refresh_schedules_view(state.schedules, state.settings.schedules, plan) && state.schedules.report)
    // New inputs: a cursor past the new makespan is brought back to its end.
    state.settings.schedules.time = std::min(state.settings.schedules.time, state.schedules.makespan);
}

bool schedules_playing(const AppState& state) {
  return state.settings.schedules.playing && state.shown_tab == panel_tab("schedules");
}

}  // namespace autopar::web
