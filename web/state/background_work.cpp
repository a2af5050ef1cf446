// The work the page does a slice per frame. See background_work.h.
#include "background_work.h"

#include <cstdio>

#include "schedules_state.h"
#include "strategy_text.h"

namespace autopar::web {

bool has_background_work(const AppState& state) {
  // The lecture's and the comparison's jobs advance only while their tab is drawn (panel_lecture,
  // panel_compare): elsewhere they wait, and so may the frames.
  const bool lecture_shown = state.shown_tab == panel_tab("lecture");
  const bool compare_shown = state.shown_tab == panel_tab("compare");
  // In a worker, its replies wake the frames (autopar_worker_reply); in-process, every frame works on it.
  const bool in_process = !state.alpa.inter.worker->connected();
  return (state.search.request && !state.search.paused && in_process) || (state.accuracy.request && in_process) ||
         (lecture_shown && (state.lecture.compute_pending || (state.lecture.sweep && state.lecture.sweep->running))) ||
         (compare_shown && state.compare.compute_pending) || (compare_running(state.compare) && in_process) ||
         (state.alpa.inter.job.has_value() && in_process) || state.alpa.inter.start_waiting || (lecture_planning(state.lecture) && in_process) ||
         (intra_planning(state.alpa.intra) && in_process) || (export_pending(state.export_view.job) && in_process) ||
         (plan_memory_pending(state.plan_memory) && in_process) ||
         schedules_playing(state);   // the Schedules tab's playback moves by the clock
}

void advance_background_work(AppState& state, double budget_ms) {
  // In-process (no worker pool: native tests), the page's jobs are stepped here, once a frame.
  WorkerClient& worker = *state.alpa.inter.worker;
  if (!worker.connected()) worker.step_local(budget_ms);
  if (state.search.request && search_update(state.search, state.graph, state.cluster)) {
    state.settings.search.running = false;
    if (const SearchResult* r = search_state(state.search); r && !state.search.error) {
      char text[256];
      std::snprintf(text, sizeof text, "Search finished: best %.3f ms after %lld proposals (from %.3f ms, %.2fx)%s.", r->best_ms,
                    static_cast<long long>(r->steps), r->init_ms, r->init_ms / r->best_ms,
                    r->stopped_by_budget ? ", stopped by the time budget" : "");
      notify_info(state, text);
    } else if (state.search.error) {
      notify_error(state, *state.search.error);
    }
  }
  if (state.accuracy.request) accuracy_advance(state.accuracy, 0);
  // The intra-op plan of an edit, once the worker has it.
  if (intra_planning(state.alpa.intra)) take_intra_plan(state.alpa.intra, alpa_inputs(state), state.graph, state.cluster);
  // The comparison's halves keep going in any tab; their merge waits for both.
  compare_advance(state.compare, 0);
  // A planned scenario's plan (the Lecture tab) likewise, until another scenario is chosen.
  if (lecture_planning(state.lecture) && state.settings.scenario != state.lecture.plan.name) lecture_plan_cancel(state.lecture);
  if (lecture_planning(state.lecture)) lecture_plan_advance(state.lecture, budget_ms);
  // The pipeline plan follows its inputs where it is shown (a debounced start is due here).
  follow_page_inter_plan(state);
  // A pipeline plan keeps going in any tab (at most one slice per frame; the panel's call then does nothing).
  if (state.alpa.inter.job)
    advance_inter_plan(state.alpa.inter, alpa_inputs(state), state.graph, state.cluster, budget_ms, state.frame_stats.frames);
  // Compare's Alpa half starts on that plan once it is there.
  compare_take_inter_plan(state.compare, state.alpa.inter);
}

bool inter_plan_followed(const AppState& state) {
  const int inter = panel_tab("inter"), compare = panel_tab("compare");
  const int front = panel_tab(state.settings.panel);
  return front == inter || front == compare || state.shown_tab == inter || state.shown_tab == compare;
}

void follow_page_inter_plan(AppState& state) {
  // A start owed (a debounced change, or result() asked for the plan) is made in any tab.
  if (!inter_plan_followed(state) && !state.alpa.inter.start_waiting) return;
  follow_inter_plan(state.alpa.inter, alpa_inputs(state), state.graph, state.cluster);
}

void ensure_accuracy_started(AppState& state) {
  if (!state.accuracy.started) restart_accuracy(state);
}

void restart_accuracy(AppState& state) {
  accuracy_start(state.accuracy, state.alpa.inter.worker, operation_inputs(state.settings), state.settings.accuracy.samples,
                 uint64_t(state.settings.seed));
}

void search_single_step(AppState& state) {
  if (!state.search.started || search_finished(state.search)) {
    if (auto st = search_start(state.search, state.alpa.inter.worker, operation_inputs(state.settings), search_request_of(state.settings), 1); !st.ok())
      notify_error(state, st.error());
    return;
  }
  search_resume(state.search, 1);
}

void reset_search(AppState& state) {
  search_reset(state.search);
  state.settings.search.running = false;
}

bool use_best_strategy(AppState& state) {
  if (!search_state(state.search)) {
    notify_error(state, make_error(ErrorCode::no_search, "run the search first: there is no best strategy yet", "search"));
    return false;
  }
  const SearchResult& r = *search_state(state.search);
  Settings next = state.settings;
  next.strategy = encode_strategy(state.search.view.init, r.best, state.graph, state.cluster);
  if (!apply_settings(state, next).ok()) return false;
  char text[200];
  std::snprintf(text, sizeof text, "Applied the best strategy found (%.3f ms, step %lld) to the Strategy panel.", r.best_ms,
                static_cast<long long>(r.best_step));
  notify_info(state, text);
  return true;
}

}  // namespace autopar::web
