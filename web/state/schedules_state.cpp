// The Schedules tab over the app state. See schedules_state.h.
#include "schedules_state.h"

namespace autopar::web {

const InterOpPlan* schedules_plan(const AppState& state) { return current_inter_plan(state.alpa.inter, alpa_inputs(state)); }

void refresh_schedules(AppState& state) {
  SchedulePlanSource source;
  if (state.settings.schedules.source == "plan") {
    // The inter-op tab's plan, split as `inter --json` reports, with the page's micro-batches:
    // the input of the inter-op tab's charts and of `autopar inter --schedule`.
    source.plan = schedules_plan(state);
    source.shares = plan_shares_from_report(state.alpa.inter.report);
    source.microbatches = plan_microbatches(state.alpa.inter, alpa_inputs(state).microbatches);
  }
  if (refresh_schedules_view(state.schedules, state.settings.schedules, source) && state.schedules.report)
    // New inputs: a cursor past the new makespan is brought back to its end.
    state.settings.schedules.time = std::min(state.settings.schedules.time, state.schedules.makespan);
}

bool schedules_playing(const AppState& state) {
  return state.settings.schedules.playing && state.shown_tab == panel_tab("schedules");
}

}  // namespace autopar::web
