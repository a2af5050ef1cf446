// The work the page does a slice per frame without input: the running search, the accuracy study,
// the pipeline plan; and the Search panel's single steps and its best strategy. No ImGui.
#pragma once
#include <string>

#include "app_state.h"

namespace autopar::web {

// True while work advances frame by frame without input (a running search, an unfinished
// accuracy study, a lecture or comparison job, a pending plan): the page must keep drawing.
bool has_background_work(const AppState& state);

// Advances the background work (the running search, an unfinished accuracy study) by about
// `budget_ms` of wall time in total; call once per frame. Stops the search when it finishes.
void advance_background_work(AppState& state, double budget_ms);

// True when the panel in front shows the pipeline plan (the inter-op tab) or needs it (Compare
// simulates that plan): the plan then follows every change of its inputs.
bool inter_plan_followed(const AppState& state);

// Keeps the pipeline plan live while inter_plan_followed: follow_inter_plan (alpa_view.h) for
// the current inputs. Called after every change of the settings and every frame; in another
// tab it only makes a start that is owed (start_waiting).
void follow_page_inter_plan(AppState& state);

// Starts the accuracy study for the current settings unless it already runs or is complete.
void ensure_accuracy_started(AppState& state);

// Restarts the accuracy study for the current settings.
void restart_accuracy(AppState& state);

// Makes one search proposal (starting a search first when none is in progress).
void search_single_step(AppState& state);

// Discards the search and stops it.
void reset_search(AppState& state);

// Applies the best strategy found by the search as the current strategy; false (with a notice)
// when there is none.
bool use_best_strategy(AppState& state);

}  // namespace autopar::web
