// The Schedules tab (issue 42): pipeline schedules stepped through as Gantt charts.
#pragma once
#include "panels.h"

namespace autopar::web {

inline constexpr const char* kSchedulesWindow = "window.schedules";

// The Schedules panel: inputs (schedules, devices, micro-batches, v, F/B/W/comm or the
// inter-op plan's stages), playback (play, pause, step, speed, a scrubbable cursor), per
// schedule its figures as `autopar schedule --json` gives them, its Gantt chart (each
// micro-batch its colour; F solid, B darker, W lighter and hatched, sends on thin link rows;
// passes after the cursor faded) and under it each device's activations in flight over time
// with their peak; two schedules stacked on one time axis; what each schedule does.
void draw_schedules_panel(AppState& state, const PanelRect& rect);

}  // namespace autopar::web
