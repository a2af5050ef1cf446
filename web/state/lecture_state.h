// The lecture companion's state (issue 6): the scenarios of `autopar scenario` as the Lecture tab
// shows them, the page set-up that demonstrates each one, its computed findings, and the
// FlexFlow-vs-Alpa comparison of the Compare tab. The scenarios are core's
// (core/operations/scenarios.h), so the page shows what `autopar scenario NAME` prints; the beta
// sweep and the comparison run the same core calls in slices across frames. No ImGui.
#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "beta_sweep.h"
#include "cluster.h"
#include "compare.h"
#include "compare_summary.h"
#include "graph.h"
#include "json_io.h"
#include "language.h"
#include "result.h"
#include "scenarios.h"
#include "worker_client.h"

namespace autopar::web {

struct Settings;
struct AppState;
struct InterOpView;

// One scenario of core's catalogue as `autopar scenario --list --json` lists it.
struct ScenarioInfo {
  std::string name, section;
  Bilingual title, explanation;   // in both languages (language.h)
  Json page;   // {"setup": getState fields, "panel": the tab that shows it}; null when the CLI gives none
};

// The beta sweep of scenario beta-sweep run in the page (its runs and findings: beta_sweep.h),
// each search the worker's "search" operation (the same job as the CLI's), a few at a time so
// that a pool runs them side by side.
struct BetaSweepJob {
  std::shared_ptr<WorkerClient> worker;   // the page's worker client
  std::vector<int64_t> requests;          // per search (beta index * seeds + seed - 1): its job id, 0 before it starts
  std::vector<double> best_ms;            // per search: its best time once its result arrived
  std::vector<bool> ended;                // per search: its result arrived
  int finished = 0;                       // searches ended
  int beta_index = 0;                     // the first search not ended: its beta (into beta_sweep_betas())
  int seed = 1;                           // and its seed, 1 .. 5
  std::vector<double> mean_best_ms;       // per beta, once the sweep is done
  bool running = false;
};

// A scenario computed in the page's worker: a planned scenario's plan (gpt3-1024, scenarios.h's
// PlannedScenario; its findings come from the plan's report as the CLI's do), or any other
// scenario run whole there (the worker's "scenario" operation, `autopar scenario NAME`).
struct LecturePlan {
  std::string name;                         // the scenario being planned (empty: none)
  int64_t request = 0;                      // the worker's job id
  std::shared_ptr<WorkerClient> worker;     // the page's worker client (the Alpa view's)
  std::chrono::steady_clock::time_point started;
  double elapsed_ms = 0;                    // wall time of the last plan, start to result
};

// The Lecture tab: the scenario shown and its computed findings.
struct LectureState {
  std::string computed_name;              // scenario whose findings are below; empty when none
  std::vector<Bilingual> findings;        // the scenario's findings, as the CLI prints them (with --lang en and zh)
  Json results;                           // the scenario's `results` object
  std::string error;                      // why computing failed; empty when it did not
  bool compute_pending = false;           // true: compute the shown scenario on the next frame
  std::shared_ptr<BetaSweepJob> sweep;    // the beta sweep, while it runs or once it ran
  LecturePlan plan;                       // a planned scenario's plan in the worker
  // The shown scenario's question (Scenario::question): the reader's choice (-1: none yet) and
  // whether it was checked; the findings show only once it was.
  int prediction = -1;
  bool prediction_checked = false;
};

// Starts computing scenario `name` on `worker` (a planned scenario: its plan), replacing one in progress.
void lecture_plan_start(LectureState& lecture, const std::string& name, std::shared_ptr<WorkerClient> worker);
// In-process, works on it for about `budget_ms`; takes the worker's result once there and makes
// the findings (computed_name, findings, results or error). Returns true when it ended now.
bool lecture_plan_advance(LectureState& lecture, double budget_ms);
// Stops the plan in progress.
void lecture_plan_cancel(LectureState& lecture);
// True while a scenario is being computed (planned) in the worker.
bool lecture_planning(const LectureState& lecture);
// Its progress in [0, 1] (the stage costs to 0.9, the DP the rest) and a status line.
double lecture_plan_progress(const LectureState& lecture);
std::string lecture_plan_status(const LectureState& lecture);

// Starts the beta sweep on `worker` (replacing a previous one).
void beta_sweep_start(LectureState& lecture, std::shared_ptr<WorkerClient> worker);

// Takes the searches' results and starts the next ones (in-process, steps them for about
// `budget_ms` first); when the last ends, its findings and results become the lecture's (equal
// to `autopar scenario beta-sweep`). A failed search stops the sweep with its error.
void beta_sweep_advance(LectureState& lecture, double budget_ms);

// Searches finished so far in the sweep (0 .. betas x seeds).
int beta_sweep_done(const BetaSweepJob& job);

// The Compare tab: FlexFlow's MCMC plan and Alpa's plan, simulated by the same simulator. The
// two planners run as two worker jobs side by side ("compare_flexflow", "compare_alpa": on two
// workers when the pool has them), and their halves merge into `autopar compare --json`. Alpa's
// half simulates the page's own pipeline plan (the inter-op tab's, one plan per page state) with
// the page's micro-batches: it starts once that plan is there.
struct CompareState {
  Json output;                            // `autopar compare --json` output; null until computed
  std::optional<CompareSummary> summary;  // the output read into typed rows (what the tab draws)
  std::string inputs;                     // "model on cluster, seed N" the output belongs to
  std::string title;                      // "model on cluster", as the report's "model"
  std::string error;                      // why computing failed; empty when it did not
  std::optional<Error> failure;           // that error with its code and path
  bool compute_pending = false;           // true: start the comparison on this frame
  std::shared_ptr<WorkerClient> worker;   // the page's worker client
  int64_t flexflow_request = 0;           // FlexFlow's half in the worker; 0 when none or ended
  int64_t alpa_request = 0;               // Alpa's half likewise
  Json flexflow, alpa;                    // the halves' JSON as they arrive (null before)
  int64_t steps = 2000;                   // FlexFlow's proposals asked for
  int microbatches = 0;                   // the page's micro-batches, Alpa's half's
  std::string inter_key;                  // the inputs (alpa_view.h inter_key) of the pipeline plan Alpa's half simulates
  bool alpa_waiting = false;              // Alpa's half waits for that plan (the inter-op tab's planning)
  double inter_work_ms = 0;               // that plan's own planning work, part of Alpa's planning time
  Json worker_inputs;                     // the inputs the halves run on
  Json request;                           // the halves' request (Alpa's gets the plan added)
  std::chrono::steady_clock::time_point started;
  double elapsed_ms = 0;                  // wall time of the last comparison, start to merge
};

// Every scenario, in lecture order (computed once).
const std::vector<ScenarioInfo>& scenario_list();

// The scenario called `name`, or nullptr.
const ScenarioInfo* find_scenario(const std::string& name);

// True when the scenario is computed as soon as it opens, in the page's worker (each takes well
// under a second there; beta-sweep's 35 searches run side by side on the pool): every one but
// gpt3-1024, whose plan takes minutes and starts on request.
bool scenario_is_light(const std::string& name);

// The question scenario `name` asks before its findings show, or nullptr.
const ScenarioQuestion* scenario_question(const std::string& name);
// True while the shown scenario's findings wait for the reader's prediction.
bool lecture_awaits_prediction(const LectureState& lecture, const std::string& name);
// "Check my prediction": records choice `choice` (an index into the question's choices) for the
// shown scenario; out_of_range when it is no choice of it, no_question when it asks none.
Status lecture_predict(LectureState& lecture, const std::string& name, int choice);

// Sets `next` up to demonstrate scenario `name`: the computing fields (model, cluster, mesh,
// strategy, beta, seed, micro-batches, search, accuracy) go back to their defaults and then take
// the scenario's set-up (`autopar scenario --list --json`, "page.setup"); records the name in
// next.scenario; the panel becomes "lecture". "" clears the scenario; unknown names are an error.
Status apply_scenario_setup(const std::string& name, Settings& next);

// The tab (panel name) where the scenario's set-up is best seen, e.g. "strategy" or "search".
std::string scenario_demo_panel(const std::string& name);

// "Show it": brings the shown scenario's tab to the front and starts what that tab computes
// (the search, the pipeline plan, the accuracy study, the comparison or the beta sweep), so its
// numbers appear without further clicks (window.autopar.showScenario).
void show_scenario_demo(AppState& state);

// Starts scenario `name` in `worker` (the "scenario" operation); lecture_plan_advance stores its findings.
void compute_scenario(LectureState& lecture, const std::string& name, std::shared_ptr<WorkerClient> worker);

// Starts the comparison of the model and cluster `worker_inputs` (worker_session.h) on
// `worker`, replacing one in progress; `inputs` names them for the tab ("model on cluster, seed
// N, B = 32"). FlexFlow's half starts now; Alpa's waits for the pipeline plan of
// `inter_key` (compare_take_inter_plan) and simulates it with `microbatches`. Errors go to
// compare.error.
void compare_start(CompareState& compare, std::shared_ptr<WorkerClient> worker, const Json& worker_inputs, const std::string& inputs, int64_t seed,
                   int microbatches, const std::string& inter_key);

// Starts Alpa's half once `view` holds the pipeline plan it waits for (the very plan the
// inter-op tab shows); that plan's error fails the comparison, and inputs changed meanwhile
// (neither the plan shown nor the planning in progress is for them) end it with an error saying so.
void compare_take_inter_plan(CompareState& compare, const InterOpView& view);

// The Compare tab's label of the page's inputs: "model on cluster, seed N, B = 32" (B: the micro-batches).
std::string compare_inputs_label(const AppState& state);

// Starts the comparison of the page's state (the Compare tab's Run, window.autopar.compare):
// its model, cluster, seed and micro-batches, Alpa's half on the page's pipeline plan, which is
// planned now when neither shown nor in progress.
void start_page_compare(AppState& state);

// Takes the halves' results (in-process, steps them for about `budget_ms` first); when both are
// there, stores the merged output (the same JSON as `autopar compare --json`). A failed half
// cancels the other and its error (code, path) becomes the tab's.
void compare_advance(CompareState& compare, double budget_ms);

// True while the comparison runs.
bool compare_running(const CompareState& compare);

// Stops the comparison in progress.
void compare_cancel(CompareState& compare);

// FlexFlow proposals made so far in the running comparison.
int64_t compare_search_steps(const CompareState& compare);

// result().scenario: {name, findings, versus_lecture, charts: [{id, points}], question: {asked,
// answered, chosen, correct} or null} when computed (texts in the page's language), else null.
Json lecture_result_json(const LectureState& lecture);

// result().compare: {flexflow_ms, alpa_ms, report: `autopar compare --json`, elapsed_ms} when
// computed; {running, flexflow_steps} while it runs; {error: {code, message, path}} when it
// failed; else null.
Json compare_result_json(const CompareState& compare);
// Why FlexFlow's plan cannot reach Alpa's, in the page's language, when Alpa's pipelined plan
// (several stages over micro-batches) is the faster: SOAP has no micro-batch pipeline. Empty
// otherwise. result().compare.why_flexflow_slower carries it.
std::string compare_pipeline_note(const CompareSummary& summary);

}  // namespace autopar::web
