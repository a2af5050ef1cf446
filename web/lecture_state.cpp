// The lecture companion's state: scenario list, set-ups and findings (core/operations/
// scenarios.h, the same scenarios `autopar scenario` runs), and the comparison of the two planners.
#include "lecture_state.h"

#include "alpa_view.h"
#include "app_state.h"
#include "page_strings.h"
#include "cluster_spec.h"
#include "models.h"
#include "scenarios.h"
#include "soap.h"
#include "device_mesh.h"
#include "engine_export.h"
#include "intra_op.h"
#include "simulator.h"
#include "sharding_spec.h"
#include "task_graph.h"

#include <chrono>
#include <cstdio>

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

bool scenario_is_light(const std::string& name) {
  for (const char* n : {"conv1d-splits", "space-sizes", "alexnet-strategies", "task-graph", "resharding-table", "linear-nine", "megatron", "cross-mesh-resharding"})
    if (name == n) return true;
  return false;
}

std::string scenario_cli_command(const std::string& name) { return "autopar scenario " + name; }

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
    return make_error("unknown_scenario", "scenario \"" + name + "\" is unknown; use one of " + names, "scenario");
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
  if (panel == "search" && !state.search.job) next.search.running = true;
  if (!apply_settings(state, next).ok()) return;
  state.focus_panel_pending = true;
  if (panel == "inter" && !current_inter_plan(state.alpa.inter, alpa_inputs(state)) && !inter_planning(state.alpa.inter))
    start_inter_plan(state.alpa.inter, alpa_inputs(state), state.graph, state.cluster);
  if (panel == "accuracy") ensure_accuracy_started(state);
  // The Compare tab labels its inputs "model on cluster, seed N": recompute when they differ.
  const std::string compare_inputs = state.settings.model + " on " + state.settings.cluster + ", seed " + std::to_string(state.settings.seed);
  if (panel == "compare" && !state.compare.job && (!state.compare.output.is_object() || state.compare.inputs != compare_inputs))
    state.compare.compute_pending = true;
  if (name == "beta-sweep" && !state.lecture.sweep) beta_sweep_start(state.lecture);
  // A planned scenario (GPT-3 on 1,024 GPUs) is planned in the worker, its progress on the Lecture tab.
  if (planned_scenario(name) && state.lecture.computed_name != name && !lecture_planning(state.lecture))
    lecture_plan_start(state.lecture, name, state.alpa.inter.worker);
  // A light scenario's findings (the Lecture tab's numbers) are computed now, not when that tab is drawn next.
  if (scenario_is_light(name) && state.lecture.computed_name != name) {
    compute_scenario(state.lecture, name);
    state.lecture.compute_pending = false;
  }
}

void compute_scenario(LectureState& lecture, const std::string& name) {
  lecture.findings.clear();
  lecture.results = Json();
  lecture.error.clear();
  lecture.computed_name = name;
  auto r = scenario_operation(name, "scenario");
  if (!r.ok()) {
    lecture.error = r.error().message;
    return;
  }
  lecture.findings = r.value().findings;
  lecture.results = r.value().results;
}

void lecture_plan_start(LectureState& lecture, const std::string& name, std::shared_ptr<WorkerClient> worker) {
  const PlannedScenario* p = planned_scenario(name);
  if (!p || !worker) return;
  lecture_plan_cancel(lecture);
  lecture.plan.name = name;
  lecture.plan.worker = std::move(worker);
  lecture.plan.started = std::chrono::steady_clock::now();
  lecture.plan.request = lecture.plan.worker->start("inter", Json{{"model", p->model}, {"cluster", p->cluster}},
                                                     Json{{"microbatches", p->microbatches}});
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
  if (!outcome->ok()) {
    lecture.error = outcome->error().message;
  } else if (const Json& r = outcome->value(); !r.contains("report")) {
    lecture.error = "the worker's plan has no report";
  } else if (auto st = planned_scenario(plan.name)->findings(r["report"], lecture.results, lecture.findings); !st.ok()) {
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
  return p.phase == "pipeline DP" ? 0.9 + 0.1 * p.fraction() : 0.9 * p.fraction();
}

std::string lecture_plan_status(const LectureState& lecture) {
  if (!lecture_planning(lecture)) return "";
  return plan_progress_text(lecture.plan.worker->progress(lecture.plan.request), lecture.plan.worker->connected());
}

const std::vector<std::string>& beta_sweep_betas() {
  static const std::vector<std::string> betas = {"1", "10", "50", "200", "500", "2000", "10000"};
  return betas;
}

namespace {
// Starts the search of the sweep's current (beta, seed).
void start_sweep_search(BetaSweepJob& job) {
  SearchOptions o;
  o.beta = std::stod(beta_sweep_betas()[size_t(job.beta_index)]);
  o.steps = 2000;
  o.seed = uint64_t(job.seed);
  job.search = std::make_unique<McmcSearch>(*job.graph, *job.cluster, data_parallel(*job.graph, job.cluster->num_devices()), o);
}
}  // namespace

void beta_sweep_start(LectureState& lecture) {
  auto job = std::make_shared<BetaSweepJob>();
  auto g = load_model("alexnet");
  auto c = load_cluster("lecture:2x4");
  if (!g.ok() || !c.ok()) {
    lecture.error = !g.ok() ? g.error().message : c.error().message;
    return;
  }
  job->graph = std::make_unique<Graph>(std::move(g.value()));
  job->cluster = std::make_unique<Cluster>(std::move(c.value()));
  job->running = true;
  start_sweep_search(*job);
  lecture.sweep = job;
  lecture.computed_name.clear();
  lecture.findings.clear();
  lecture.error.clear();
}

int beta_sweep_done(const BetaSweepJob& job) { return job.beta_index * kBetaSweepSeeds + job.seed - 1; }

void beta_sweep_advance(LectureState& lecture, double budget_ms) {
  if (!lecture.sweep || !lecture.sweep->running) return;
  BetaSweepJob& job = *lecture.sweep;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
  while (job.running && elapsed() < budget_ms) {
    job.search->step(50);
    if (!job.search->result().finished) continue;
    job.sum_best_ms += job.search->result().best_ms;
    if (++job.seed > kBetaSweepSeeds) {
      job.mean_best_ms.push_back(job.sum_best_ms / kBetaSweepSeeds);
      job.sum_best_ms = 0;
      job.seed = 1;
      if (++job.beta_index == int(beta_sweep_betas().size())) {
        job.running = false;
        job.search.reset();
        break;
      }
    }
    start_sweep_search(job);
  }
  if (job.running) return;
  // Done: the findings in the CLI's words.
  lecture.computed_name = "beta-sweep";
  lecture.findings.clear();
  Json sweep = Json::array();
  for (size_t i = 0; i < job.mean_best_ms.size(); ++i) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.2f ms", job.mean_best_ms[i]);
    lecture.findings.push_back(say("beta {0}: mean best {1}", "β {0}：平均最好 {1}", {beta_sweep_betas()[i], buf}));
    sweep.push_back(Json{{"beta", std::stod(beta_sweep_betas()[i])}, {"mean_best_ms", job.mean_best_ms[i]}});
  }
  lecture.results = Json{{"sweep", sweep}};
}

void compare_start(CompareState& compare, const Graph& graph, const Cluster& cluster, const std::string& inputs, int64_t seed) {
  compare.error.clear();
  compare.output = Json();
  compare.inputs = inputs;
  // As `autopar compare`: 2,000 proposals from data parallel with the seed, then Alpa's pipeline.
  CompareRequest r;
  r.graph = graph;
  r.cluster = cluster;
  r.title = inputs.substr(0, inputs.rfind(", seed "));
  r.seed = uint64_t(seed);
  compare.job = std::make_shared<CompareJob>(std::move(r));
}

int64_t compare_search_steps(const CompareState& compare) { return compare.job ? compare.job->search_steps() : 0; }

void compare_advance(CompareState& compare, double budget_ms) {
  if (!compare.job || !compare.job->step(budget_ms)) return;
  auto report = compare.job->finish();
  if (report.ok())
    compare.output = report.value().to_json(compare.job->request().graph);
  else
    compare.error = report.error().message;
  compare.job.reset();
}

Json lecture_result_json(const LectureState& lecture) {
  if (lecture_planning(lecture))
    return Json{{"name", lecture.plan.name}, {"planning", true}, {"progress", lecture_plan_progress(lecture)}};
  if (lecture.computed_name.empty() || !lecture.error.empty()) return nullptr;
  Json findings = Json::array();
  for (const Bilingual& f : lecture.findings) findings.push_back(f.in(page_language()));
  Json j{{"name", lecture.computed_name}, {"findings", findings}};
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
  if (!compare.output.is_object()) return nullptr;
  return Json{{"flexflow_ms", compare.output["flexflow"]["makespan_ms"]}, {"alpa_ms", compare.output["alpa"]["makespan_ms"]}};
}

}  // namespace autopar::web
