// The lecture companion's state: scenario list, set-ups and findings (core/operations/
// scenarios.h, the same scenarios `autopar scenario` runs), and the comparison of the two planners.
#include "lecture_state.h"

#include "alpa_view.h"
#include "app_state.h"
#include "page_strings.h"
#include "cluster_spec.h"
#include "models.h"
#include "scenario_charts.h"
#include "scenarios.h"

#include <chrono>
#include <cstdio>
#include <tuple>

namespace autopar::web {

const std::vector<ScenarioInfo>& scenario_list() {
  static const std::vector<ScenarioInfo> list = [] {
    std::vector<ScenarioInfo> l;
    for (const Scenario& s : scenario_catalogue()) l.push_back({s.name, s.section, s.title, s.explanation, s.page});
    return l;
  }();
  return list;
}

const ScenarioInfo* find_scenario(const std::string& name) {
  for (const auto& s : scenario_list())
    if (s.name == name) return &s;
  return nullptr;
}

bool scenario_is_light(const std::string& name) { return find_scenario(name) && !planned_scenario(name); }

const ScenarioQuestion* scenario_question(const std::string& name) {
  const Scenario* s = autopar::find_scenario(name);
  return s && s->question ? &*s->question : nullptr;
}

bool lecture_awaits_prediction(const LectureState& lecture, const std::string& name) {
  return scenario_question(name) && !lecture.prediction_checked;
}

Status lecture_predict(LectureState& lecture, const std::string& name, int choice) {
  const ScenarioQuestion* q = scenario_question(name);
  if (!q) return make_error(ErrorCode::bad_value, "scenario \"" + name + "\" asks no question", "lecture_prediction");
  if (choice < 0 || choice >= int(q->choices.size()))
    return make_error(ErrorCode::out_of_range, "lecture_prediction must be a letter from a to " + std::string(1, char('a' + q->choices.size() - 1)),
                      "lecture_prediction");
  lecture.prediction = choice;
  lecture.prediction_checked = true;
  return Ok{};
}

std::string scenario_demo_panel(const std::string& name) {
  const ScenarioInfo* info = find_scenario(name);
  if (info && info->page.is_object() && info->page.contains("panel") && info->page["panel"].is_string())
    return info->page["panel"].get<std::string>();
  return "lecture";
}

Status apply_scenario_setup(const std::string& name, Settings& next) {
  if (name.empty()) {
    next.scenario.clear();
    return Ok{};
  }
  const ScenarioInfo* info = find_scenario(name);
  if (!info) {
    std::string names;
    for (const auto& s : scenario_list()) names += (names.empty() ? "" : ", ") + s.name;
    return make_error(ErrorCode::unknown_scenario, "scenario \"" + name + "\" is unknown; use one of " + names, "scenario");
  }
  // Defaults first: a scenario's numbers must not depend on what the page showed before.
  const Settings defaults;
  next.model = defaults.model;
  next.model_json.clear();
  next.cluster = defaults.cluster;
  next.custom_cluster.reset();
  next.mesh = defaults.mesh;
  next.strategy = defaults.strategy;
  next.beta = defaults.beta;
  next.seed = defaults.seed;
  next.microbatches = defaults.microbatches;
  next.search = defaults.search;
  next.accuracy = defaults.accuracy;
  if (info->page.is_object() && info->page.contains("setup"))
    if (auto st = merge_settings_fields(info->page["setup"], next); !st.ok()) {
      Error e = st.error();
      e.message = "scenario " + name + "'s set-up: " + e.message;
      return e;
    }
  next.scenario = name;
  next.panel = "lecture";
  return Ok{};
}

void show_scenario_demo(AppState& state) {
  const std::string& name = state.settings.scenario;
  if (!find_scenario(name)) return;
  const std::string panel = scenario_demo_panel(name);
  Settings next = state.settings;
  next.panel = panel;
  if (panel == "search" && !state.search.started) next.search.running = true;
  if (!apply_settings(state, next).ok()) return;
  state.focus_panel_pending = true;
  if (panel == "inter" && !current_inter_plan(state.alpa.inter, alpa_inputs(state)) && !inter_planning(state.alpa.inter))
    start_inter_plan(state.alpa.inter, alpa_inputs(state), state.graph, state.cluster);
  if (panel == "accuracy") ensure_accuracy_started(state);
  // The Compare tab labels its inputs (compare_inputs_label): recompute when they differ.
  if (panel == "compare" && !compare_running(state.compare) &&
      (!state.compare.output.is_object() || state.compare.inputs != compare_inputs_label(state)))
    state.compare.compute_pending = true;
  if (name == "beta-sweep" && !state.lecture.sweep) beta_sweep_start(state.lecture, state.alpa.inter.worker);
  // A planned scenario (GPT-3 on 1,024 GPUs) is planned in the worker, its progress on the Lecture tab.
  if (planned_scenario(name) && state.lecture.computed_name != name && !lecture_planning(state.lecture))
    lecture_plan_start(state.lecture, name, state.alpa.inter.worker);
  // A light scenario's findings (the Lecture tab's numbers) are computed now, not when that tab is drawn next.
  if (scenario_is_light(name) && name != "beta-sweep" && state.lecture.computed_name != name && !lecture_planning(state.lecture)) {
    compute_scenario(state.lecture, name, state.alpa.inter.worker);
    state.lecture.compute_pending = false;
  }
}

void compute_scenario(LectureState& lecture, const std::string& name, std::shared_ptr<WorkerClient> worker) {
  lecture_plan_start(lecture, name, std::move(worker));
}

void lecture_plan_start(LectureState& lecture, const std::string& name, std::shared_ptr<WorkerClient> worker) {
  if (!worker) return;
  lecture_plan_cancel(lecture);
  lecture.plan.name = name;
  lecture.plan.worker = std::move(worker);
  lecture.plan.started = std::chrono::steady_clock::now();
  // A planned scenario is its pipeline plan; any other runs whole in the worker (`autopar scenario`),
  // so the page's thread never plans (nor links the solver).
  if (const PlannedScenario* p = planned_scenario(name))
    lecture.plan.request = lecture.plan.worker->start("inter", Json{{"model", p->model}, {"cluster", p->cluster}},
                                                       Json{{"microbatches", p->microbatches}});
  else
    lecture.plan.request = lecture.plan.worker->start("scenario", Json::object(), Json{{"name", name}});
}

bool lecture_plan_advance(LectureState& lecture, double budget_ms) {
  LecturePlan& plan = lecture.plan;
  if (!lecture_planning(lecture)) return false;
  if (!plan.worker->connected()) plan.worker->step_local(budget_ms);
  auto outcome = plan.worker->take(plan.request);
  if (!outcome) return false;
  plan.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - plan.started).count();
  lecture.findings.clear();
  lecture.results = Json();
  lecture.error.clear();
  lecture.computed_name = plan.name;
  const PlannedScenario* planned = planned_scenario(plan.name);
  if (!outcome->ok()) {
    lecture.error = outcome->error().message;
  } else if (!planned) {
    auto numbers = scenario_numbers_from_json(outcome->value());
    if (!numbers.ok()) {
      lecture.error = numbers.error().message;
    } else {
      lecture.results = std::move(numbers.value().results);
      lecture.findings = std::move(numbers.value().findings);
    }
  } else if (const Json& r = outcome->value(); !r.contains("report")) {
    lecture.error = "the worker's plan has no report";
  } else if (auto st = planned->findings(r["report"], lecture.results, lecture.findings); !st.ok()) {
    lecture.error = st.error().message;
  }
  plan.name.clear();
  plan.request = 0;
  return true;
}

void lecture_plan_cancel(LectureState& lecture) {
  if (lecture_planning(lecture)) lecture.plan.worker->cancel(lecture.plan.request);
  lecture.plan.name.clear();
  lecture.plan.request = 0;
}

bool lecture_planning(const LectureState& lecture) { return !lecture.plan.name.empty() && lecture.plan.worker; }

double lecture_plan_progress(const LectureState& lecture) {
  if (!lecture_planning(lecture)) return 1;
  const JobProgress p = lecture.plan.worker->progress(lecture.plan.request);
  return p.phase.rfind("pipeline DP", 0) == 0 ? 0.9 + 0.1 * p.fraction() : 0.9 * p.fraction();
}

std::string lecture_plan_status(const LectureState& lecture) {
  if (!lecture_planning(lecture)) return "";
  return plan_progress_text(lecture.plan.worker->progress(lecture.plan.request), lecture.plan.worker->connected());
}

namespace {
// Searches of the sweep in flight at once: enough for a pool of workers to run side by side,
// few enough that one worker's slices stay long.
constexpr int kSweepInFlight = 4;

// Starts the sweep's next searches, in (beta, seed) order, up to kSweepInFlight in flight.
void start_sweep_searches(BetaSweepJob& job) {
  int in_flight = 0;
  for (size_t k = 0; k < job.requests.size(); ++k) in_flight += job.requests[k] && !job.ended[k] ? 1 : 0;
  for (size_t k = 0; k < job.requests.size() && in_flight < kSweepInFlight; ++k) {
    if (job.requests[k]) continue;
    // As the CLI's scenario (beta_sweep.h): `search --model alexnet --cluster lecture:2x4 --beta B --steps 2000 --seed S --init dp`.
    const BetaSweepRun run = beta_sweep_run(k);
    job.requests[k] = job.worker->start("search", Json{{"model", kBetaSweepModel}, {"cluster", kBetaSweepCluster}},
                                        Json{{"beta", run.beta}, {"steps", kBetaSweepSteps}, {"seed", run.seed}, {"init", kBetaSweepInit},
                                             {"partials", false}});
    ++in_flight;
  }
}
}  // namespace

void beta_sweep_start(LectureState& lecture, std::shared_ptr<WorkerClient> worker) {
  if (lecture.sweep && lecture.sweep->worker)
    for (size_t k = 0; k < lecture.sweep->requests.size(); ++k)
      if (lecture.sweep->requests[k] && !lecture.sweep->ended[k]) lecture.sweep->worker->cancel(lecture.sweep->requests[k]);
  auto job = std::make_shared<BetaSweepJob>();
  const size_t n = beta_sweep_runs();
  job->worker = std::move(worker);
  job->requests.assign(n, 0);
  job->best_ms.assign(n, 0.0);
  job->ended.assign(n, false);
  job->running = true;
  start_sweep_searches(*job);
  lecture.sweep = job;
  lecture.computed_name.clear();
  lecture.findings.clear();
  lecture.error.clear();
}

int beta_sweep_done(const BetaSweepJob& job) { return job.finished; }

void beta_sweep_advance(LectureState& lecture, double budget_ms) {
  if (!lecture.sweep || !lecture.sweep->running) return;
  BetaSweepJob& job = *lecture.sweep;
  if (!job.worker->connected()) job.worker->step_local(budget_ms);
  for (size_t k = 0; k < job.requests.size(); ++k) {
    if (!job.requests[k] || job.ended[k]) continue;
    job.worker->take_partials(job.requests[k]);
    auto outcome = job.worker->take(job.requests[k]);
    if (!outcome) continue;
    job.ended[k] = true;
    ++job.finished;
    if (!outcome->ok() || !outcome->value().contains("report")) {
      lecture.error = outcome->ok() ? "the worker's search has no report" : outcome->error().message;
      for (size_t i = 0; i < job.requests.size(); ++i)
        if (job.requests[i] && !job.ended[i]) job.worker->cancel(job.requests[i]);
      job.running = false;
      return;
    }
    job.best_ms[k] = outcome->value()["report"]["best_ms"].get<double>();
  }
  size_t first_open = 0;
  while (first_open < job.ended.size() && job.ended[first_open]) ++first_open;
  job.beta_index = int(std::min(first_open, job.ended.size() - 1) / kBetaSweepSeeds);
  job.seed = int(std::min(first_open, job.ended.size() - 1) % kBetaSweepSeeds) + 1;
  if (first_open < job.ended.size()) {
    start_sweep_searches(job);
    return;
  }
  // Done: the means and findings as the CLI's scenario makes them.
  job.running = false;
  BetaSweepResult result = beta_sweep_result(job.best_ms);
  job.mean_best_ms = std::move(result.mean_best_ms);
  lecture.computed_name = "beta-sweep";
  lecture.findings = std::move(result.findings);
  lecture.results = std::move(result.results);
}

std::string compare_inputs_label(const AppState& state) {
  return state.settings.model + " on " + (state.settings.custom_cluster ? std::string("custom") : state.settings.cluster) + ", seed " +
         std::to_string(state.settings.seed) + ", B = " + std::to_string(state.settings.microbatches);
}

void start_page_compare(AppState& state) {
  const AlpaInputs in = alpa_inputs(state);
  const std::string key = inter_key(in);
  InterOpView& view = state.alpa.inter;
  // Alpa's half simulates the page's pipeline plan: plan it now unless it is shown or on its way.
  const bool have = view.key == key && (view.plan || view.error);
  if (!have && !(view.job && view.job->key == key)) start_inter_plan(view, in, state.graph, state.cluster);
  compare_start(state.compare, view.worker, operation_inputs(state.settings), compare_inputs_label(state), state.settings.seed,
                int(state.settings.microbatches), key);
  compare_take_inter_plan(state.compare, view);
}

void compare_take_inter_plan(CompareState& compare, const InterOpView& view) {
  if (!compare.alpa_waiting) return;
  const bool shown = view.key == compare.inter_key && (view.plan || view.error);
  if (!shown) {
    if (view.job && view.job->key == compare.inter_key) return;   // on its way
    compare_cancel(compare);
    compare.failure = make_error(ErrorCode::cancelled, "the page's inputs changed while Compare waited for their pipeline plan; press Run again", "");
    compare.error = compare.failure->message;
    return;
  }
  compare.alpa_waiting = false;
  if (!view.plan) {   // the planner's own error, as the inter-op tab shows it
    compare_cancel(compare);
    compare.failure = *view.error;
    compare.error = view.error->message;
    return;
  }
  Json request = compare.request;
  request["inter_plan"] = inter_plan_to_json(*view.plan);
  compare.inter_work_ms = view.work_ms;
  compare.alpa_request = compare.worker->start("compare_alpa", compare.worker_inputs, request);
}

void compare_start(CompareState& compare, std::shared_ptr<WorkerClient> worker, const Json& worker_inputs, const std::string& inputs, int64_t seed,
                   int microbatches, const std::string& inter_key) {
  compare_cancel(compare);
  compare.error.clear();
  compare.failure.reset();
  compare.output = Json();
  compare.summary.reset();
  compare.flexflow = Json();
  compare.alpa = Json();
  compare.inputs = inputs;
  compare.title = inputs.substr(0, inputs.rfind(", seed "));
  compare.worker = std::move(worker);
  compare.started = std::chrono::steady_clock::now();
  compare.microbatches = microbatches;
  compare.inter_key = inter_key;
  compare.worker_inputs = worker_inputs;
  // As `autopar compare --microbatches B`: 2,000 proposals from data parallel with the seed, and
  // Alpa's pipeline with the page's micro-batches; the two halves side by side.
  compare.request = Json{{"title", compare.title}, {"seed", seed}, {"steps", compare.steps}, {"microbatches", microbatches}};
  compare.flexflow_request = compare.worker->start("compare_flexflow", worker_inputs, compare.request);
  compare.inter_work_ms = 0;
  compare.alpa_waiting = true;   // compare_take_inter_plan starts Alpa's half on the page's plan
}

bool compare_running(const CompareState& compare) { return compare.flexflow_request || compare.alpa_request || compare.alpa_waiting; }

void compare_cancel(CompareState& compare) {
  compare.alpa_waiting = false;
  if (!compare.worker) return;
  if (compare.flexflow_request) compare.worker->cancel(compare.flexflow_request);
  if (compare.alpa_request) compare.worker->cancel(compare.alpa_request);
  compare.flexflow_request = compare.alpa_request = 0;
}

int64_t compare_search_steps(const CompareState& compare) {
  if (compare.flexflow_request) return compare.worker->progress(compare.flexflow_request).done;
  return compare.flexflow.is_object() ? compare.steps : 0;
}

void compare_advance(CompareState& compare, double budget_ms) {
  if (!compare_running(compare)) return;
  if (!compare.worker->connected()) compare.worker->step_local(budget_ms);
  for (auto [request, half, key] : {std::tuple<int64_t*, Json*, const char*>{&compare.flexflow_request, &compare.flexflow, "flexflow"},
                                    {&compare.alpa_request, &compare.alpa, "alpa"}}) {
    if (!*request) continue;
    auto outcome = compare.worker->take(*request);
    if (!outcome) continue;
    *request = 0;
    if (!outcome->ok() || !outcome->value().contains(key)) {
      const Error e = outcome->ok() ? make_error(ErrorCode::missing_field, std::string("the worker's compare half has no ") + key, key) : outcome->error();
      compare_cancel(compare);
      compare.failure = e;
      compare.error = e.message;
      return;
    }
    *half = std::move(outcome->value()[key]);
  }
  if (compare_running(compare)) return;
  // Alpa's planning time: its stages' intra-op plans (the half) and the inter-op pass before it.
  if (compare.alpa.is_object() && compare.alpa.contains("solve_ms") && compare.alpa["solve_ms"].is_number())
    compare.alpa["solve_ms"] = compare.alpa["solve_ms"].get<double>() + compare.inter_work_ms;
  compare.output = compare_json(compare.title, compare.flexflow, compare.alpa);
  auto summary = compare_summary_from_json(compare.output);
  if (!summary.ok()) {
    compare.failure = summary.error();
    compare.error = summary.error().message;
    compare.output = Json();
    return;
  }
  compare.summary = std::move(summary.value());
  compare.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - compare.started).count();
}

Json lecture_result_json(const LectureState& lecture) {
  if (lecture_planning(lecture))
    return Json{{"name", lecture.plan.name}, {"planning", true}, {"progress", lecture_plan_progress(lecture)}};
  if (lecture.computed_name.empty() || !lecture.error.empty()) return nullptr;
  Json findings = Json::array();
  for (const Bilingual& f : lecture.findings) findings.push_back(f.in(page_language()));
  Json versus = Json::array();
  for (const Bilingual& v : versus_lecture(lecture.computed_name, lecture.results)) versus.push_back(v.in(page_language()));
  Json charts = Json::array();
  for (const ScenarioChart& c : scenario_charts(lecture.computed_name, lecture.results)) charts.push_back(Json{{"id", c.id}, {"points", c.points()}});
  Json question = nullptr;
  if (const ScenarioQuestion* q = scenario_question(lecture.computed_name))
    question = Json{{"asked", true}, {"answered", lecture.prediction_checked},
                    {"chosen", lecture.prediction >= 0 ? Json(std::string(1, char('a' + lecture.prediction))) : Json(nullptr)},
                    {"correct", lecture.prediction_checked ? Json(lecture.prediction == q->answer) : Json(nullptr)}};
  Json j{{"name", lecture.computed_name}, {"findings", findings}, {"versus_lecture", versus}, {"charts", charts}, {"question", question}};
  // A planned scenario: its plan's headline numbers and the page's wall time (the results hold
  // the whole report; result() stays small).
  if (planned_scenario(lecture.computed_name) && lecture.results.contains("plan")) {
    const Json& plan = lecture.results["plan"];
    j["total_latency"] = plan["total_latency"];
    j["stages"] = plan["stages"].size();
    j["gpus_used"] = lecture.results["gpus_used"];
    j["worker_elapsed_ms"] = plan["elapsed_ms"];
    j["page_elapsed_ms"] = lecture.plan.elapsed_ms;
  }
  return j;
}

Json compare_result_json(const CompareState& compare) {
  if (compare.failure) return Json{{"error", error_to_json(*compare.failure)}, {"running", false}};
  if (compare_running(compare)) return Json{{"running", true}, {"flexflow_steps", compare_search_steps(compare)}};
  if (!compare.output.is_object()) return nullptr;
  Json j{{"flexflow_ms", compare.output["flexflow"]["makespan_ms"]},
         {"alpa_ms", compare.output["alpa"]["makespan_ms"]},
         {"report", compare.output},
         {"elapsed_ms", compare.elapsed_ms},
         {"running", false}};
  const std::string note = compare.summary ? compare_pipeline_note(*compare.summary) : "";
  j["why_flexflow_slower"] = note.empty() ? Json(nullptr) : Json(note);
  return j;
}

std::string compare_pipeline_note(const CompareSummary& summary) {
  if (summary.flexflow_faster() || summary.stages.size() < 2 || summary.microbatches < 2) return "";
  char speedup[32];
  std::snprintf(speedup, sizeof speedup, "%.2f", summary.speedup());
  return tr_fill("compare.why_pipeline", {std::to_string(summary.stages.size()), std::to_string(summary.microbatches), speedup});
}

}  // namespace autopar::web
