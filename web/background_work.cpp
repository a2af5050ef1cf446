// The work the page does a slice per frame. See background_work.h.
#include "background_work.h"

#include <cstdio>

#include "strategy_text.h"

namespace autopar::web {

bool has_background_work(const AppState& state) {
  // The lecture's and the comparison's jobs advance only while their tab is drawn (panel_lecture,
  // panel_compare): elsewhere they wait, and so may the frames.
  const bool lecture_shown = state.shown_tab == panel_tab("lecture");
  const bool compare_shown = state.shown_tab == panel_tab("compare");
  return (state.settings.search.running && state.search.job) || (state.accuracy.started && !state.accuracy.complete) ||
         (lecture_shown && (state.lecture.compute_pending || (state.lecture.sweep && state.lecture.sweep->running))) ||
         (compare_shown && (state.compare.compute_pending || state.compare.job)) ||
         // In a worker, its replies wake the frames (autopar_worker_reply); in-process, every frame works on it.
         (state.alpa.inter.job.has_value() && !state.alpa.inter.worker->connected()) ||
         (lecture_planning(state.lecture) && !state.lecture.plan.worker->connected());
}

void advance_background_work(AppState& state, double budget_ms) {
  const bool searching = state.settings.search.running && state.search.job;
  const bool studying = state.accuracy.started && !state.accuracy.complete;
  const double share = searching && studying ? budget_ms / 2 : budget_ms;
  if (searching) {
    search_advance(state.search, kMaxSearchSteps, share);
    if (search_finished(state.search)) {
      state.settings.search.running = false;
      const SearchResult& r = *search_state(state.search);
      char text[256];
      std::snprintf(text, sizeof text, "Search finished: best %.3f ms after %lld proposals (from %.3f ms, %.2fx)%s.", r.best_ms,
                    static_cast<long long>(r.steps), r.init_ms, r.init_ms / r.best_ms,
                    r.stopped_by_budget ? ", stopped by the time budget" : "");
      notify_info(state, text);
    }
  }
  if (studying) accuracy_advance(state.accuracy, state.graph, state.cluster, share);
  // A planned scenario's plan (the Lecture tab) likewise, until another scenario is chosen.
  if (lecture_planning(state.lecture) && state.settings.scenario != state.lecture.plan.name) lecture_plan_cancel(state.lecture);
  if (lecture_planning(state.lecture)) lecture_plan_advance(state.lecture, budget_ms);
  // A pipeline plan keeps going in any tab (at most one slice per frame; the panel's call then does nothing).
  if (state.alpa.inter.job)
    advance_inter_plan(state.alpa.inter, alpa_inputs(state), state.graph, state.cluster, budget_ms, state.frame_stats.frames);
}

void ensure_accuracy_started(AppState& state) {
  if (!state.accuracy.started) accuracy_start(state.accuracy, state.settings.accuracy.samples, uint64_t(state.settings.seed));
}

void restart_accuracy(AppState& state) {
  accuracy_start(state.accuracy, state.settings.accuracy.samples, uint64_t(state.settings.seed));
}

void search_single_step(AppState& state) {
  if (!state.search.job || search_finished(state.search)) {
    if (auto st = search_start(state.search, state.graph, state.cluster, search_config_of(state.settings)); !st.ok()) {
      notify_error(state, st.error());
      return;
    }
  }
  search_advance(state.search, 1, 1e9);
}

void reset_search(AppState& state) {
  search_reset(state.search);
  state.settings.search.running = false;
}

bool use_best_strategy(AppState& state) {
  if (!state.search.job) {
    notify_error(state, make_error("no_search", "run the search first: there is no best strategy yet", "search"));
    return false;
  }
  const SearchResult& r = *search_state(state.search);
  Settings next = state.settings;
  next.strategy = encode_strategy(state.search.job->init_name(), r.best, state.graph, state.cluster);
  if (!apply_settings(state, next).ok()) return false;
  char text[200];
  std::snprintf(text, sizeof text, "Applied the best strategy found (%.3f ms, step %lld) to the Strategy panel.", r.best_ms,
                static_cast<long long>(r.best_step));
  notify_info(state, text);
  return true;
}

}  // namespace autopar::web
