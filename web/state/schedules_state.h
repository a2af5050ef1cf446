// The Schedules tab over the app state: its schedules kept up to date with its inputs and, for
// the "plan" source, with the inter-op plan of the current model and cluster. No ImGui.
#pragma once
#include "app_state.h"

namespace autopar::web {

// Re-simulates the tab's schedules when their inputs (or the plan they read) changed; cheap
// otherwise. The panel calls it every frame it is drawn, result() before it reports.
void refresh_schedules(AppState& state);

// The inter-op plan the "plan" source reads: the current one for the page's inputs, else nullptr.
const InterOpPlan* schedules_plan(const AppState& state);

// True while the tab's playback runs with the tab in front (the page must keep drawing frames).
bool schedules_playing(const AppState& state);

}  // namespace autopar::web
