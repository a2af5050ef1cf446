// Unit tests of the page's logic that has no ImGui in it (web/strategy_text, web/search_job,
// web/accuracy_job): the compact strategy text round-trips and rejects bad edits; the search
// advanced in small slices gives exactly run_search's result; the accuracy study computed a few
// strategies at a time gives exactly the core's accuracy_study.
// These sources are in autopar_page_logic, the page's ImGui-free code built natively too.
#include <doctest/doctest.h>

#include "accuracy_job.h"
#include "alpa_operations.h"
#include "alpa_view.h"
#include "app_state.h"
#include "cluster_spec.h"
#include "models.h"
#include "request_fields.h"
#include "compare.h"
#include "scenarios.h"
#include "search_job.h"
#include "strategy_argument.h"
#include "strategy_text.h"

using namespace autopar;
using namespace autopar::web;

namespace {

struct Inputs {
  Graph graph;
  Cluster cluster;
};

Inputs alexnet_2x4() {
  auto g = load_model("alexnet");
  auto c = load_cluster("lecture:2x4");
  REQUIRE(g.ok());
  REQUIRE(c.ok());
  return {g.value(), c.value()};
}

}  // namespace

TEST_CASE("strategy text: named bases, edits, round trips") {
  Inputs in = alexnet_2x4();
  const Graph& g = in.graph;
  for (const char* name : {"dp", "mp", "expert", "random:7"}) {
    CAPTURE(name);
    CHECK(is_named_strategy(name));
    auto s = resolve_strategy(name, g, in.cluster);
    REQUIRE(s.ok());
    CHECK(s.value() == load_strategy(name, g, in.cluster).value());
    CHECK(encode_strategy(name, s.value(), g, in.cluster) == name);   // no edits
  }
  CHECK_FALSE(is_named_strategy("random:"));
  CHECK_FALSE(is_named_strategy("random:x"));
  CHECK(strategy_base("expert;fc6=1x8@0") == "expert");

  // fc6 (sample, channel) split 8 ways by channel from GPU 0; conv5 (sample, channel, height,
  // width) 2x2 on GPUs 4-7 by "@4", and fc7 on an explicit list.
  auto s = resolve_strategy("expert;fc6=1x8@0;conv5=2x2x1x1@4;fc7=1x2@1,6", g, in.cluster);
  REQUIRE(s.ok());
  const int fc6 = g.find_op("fc6"), conv5 = g.find_op("conv5"), fc7 = g.find_op("fc7");
  CHECK(s.value().ops[size_t(fc6)].degrees == std::vector<int>{1, 8});
  CHECK(s.value().ops[size_t(fc6)].devices == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(s.value().ops[size_t(conv5)].devices == std::vector<int>{4, 5, 6, 7});
  CHECK(s.value().ops[size_t(fc7)].devices == std::vector<int>{1, 6});
  // Encoding lists exactly the ops that differ from the base, in op order, and reads back equal.
  const std::string text = encode_strategy("expert", s.value(), g, in.cluster);
  CHECK(text == "expert;conv5=2x2x1x1@4;fc6=1x8@0;fc7=1x2@1,6");
  auto again = resolve_strategy(text, g, in.cluster);
  REQUIRE(again.ok());
  CHECK(again.value() == s.value());
  // Relative to another base, the same strategy has other edits but resolves the same.
  auto via_dp = resolve_strategy(encode_strategy("dp", s.value(), g, in.cluster), g, in.cluster);
  REQUIRE(via_dp.ok());
  CHECK(via_dp.value() == s.value());

  // Bad edits: every one an error on the path "strategy", never a crash.
  for (const char* bad : {"fast", "dp;fc6", "dp;fc6=1x8", "dp;nosuch=1@0", "dp;fc6=512x1@0", "dp;fc6=1x2@7", "dp;fc6=1x2@0,0",
                          "dp;fc6=1@0", "dp;fc6=1x1x1@0", "dp;fc6=1x8@0;fc6=1x8@0", "dp;fc6=axb@0", "dp;fc6=1x2@1-", "dp;#99=1x1@0",
                          "dp;fc6=0x1@0", "dp;fc6=1x16@0"}) {
    CAPTURE(bad);
    auto r = resolve_strategy(bad, g, in.cluster);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().path == "strategy");
    CHECK_FALSE(r.error().message.empty());
  }
  // "#INDEX" names an op by position.
  auto by_index = resolve_strategy("dp;#" + std::to_string(fc6) + "=1x8@0", g, in.cluster);
  REQUIRE(by_index.ok());
  CHECK(by_index.value().ops[size_t(fc6)].degrees == std::vector<int>{1, 8});
}

TEST_CASE("device lists and config text") {
  CHECK(parse_device_list("0-3", "p").value() == std::vector<int>{0, 1, 2, 3});
  CHECK(parse_device_list(" 0, 2 ,5-6 ", "p").value() == std::vector<int>{0, 2, 5, 6});
  CHECK_FALSE(parse_device_list("", "p").ok());
  CHECK_FALSE(parse_device_list("3-1", "p").ok());
  CHECK_FALSE(parse_device_list("a", "p").ok());
  CHECK(format_devices({4, 5, 6, 7}) == "4-7");
  CHECK(format_devices({0, 2}) == "0,2");
  CHECK(format_devices({3}) == "3");
  CHECK(format_op_config(OpConfig{{2, 2}, {4, 5, 6, 7}}) == "2x2@4");
  CHECK(format_op_config(OpConfig{{1, 2}, {1, 6}}) == "1x2@1,6");
  CHECK(format_op_config(OpConfig{{}, {3}}) == "@3");
}

namespace {
// Runs the page's search in an in-process worker to its end, stepping `slice_ms` at a time and
// taking the replies after every step, as frames would; returns the run.
SearchRun run_page_search(const Inputs& in, const SearchRequest& config, double slice_ms, int* updates = nullptr) {
  SearchRun run;
  auto worker = std::make_shared<WorkerClient>();
  REQUIRE(search_start(run, worker, Json{{"model", "alexnet"}, {"cluster", "lecture:2x4"}}, config).ok());
  int n = 0;
  for (int guard = 0; guard < 1000000 && !search_finished(run); ++guard) {
    worker->step_local(slice_ms);
    search_update(run, in.graph, in.cluster);
    ++n;
  }
  if (updates) *updates = n;
  return run;
}
}  // namespace

TEST_CASE("the page's search in the worker equals run_search, its partials rebuild the job's trace and chain") {
  Inputs in = alexnet_2x4();
  for (const char* init : {"dp", "expert", "random"}) {
    CAPTURE(init);
    SearchRequest config;
    config.steps = 400;
    config.seed = 3;
    config.beta = 200;
    config.init = init;
    int updates = 0;
    const SearchRun run = run_page_search(in, config, 0.0, &updates);
    CHECK(updates > 10);   // many partial replies: a step of 0 ms makes one batch of proposals
    REQUIRE_FALSE(run.error.has_value());
    SearchOptions o;
    o.steps = 400;
    o.seed = 3;
    o.beta = 200;
    const std::string name = std::string(init) == "random" ? "random:3" : init;
    const SearchResult ref = run_search(in.graph, in.cluster, load_strategy(name, in.graph, in.cluster).value(), o, nullptr);
    REQUIRE(search_state(run) != nullptr);
    const SearchResult& r = *search_state(run);
    CHECK(r.best_ms == ref.best_ms);
    CHECK(r.steps == ref.steps);
    CHECK(r.accepted == ref.accepted);
    CHECK(r.best == ref.best);
    CHECK(r.finished);
    CHECK(run.view.init == name);
    CHECK(run.report["best_ms"] == ref.best_ms);
    CHECK(run.report["steps"] == ref.steps);
    // The trace rebuilt from the partials is the job's own.
    SearchRequest request;
    request.steps = 400;
    request.seed = 3;
    request.beta = 200;
    request.init = init;
    SearchJob job(in.graph, in.cluster, request);
    run_to_end(job);
    CHECK(run.view.trace.step == job.trace().step);
    CHECK(run.view.trace.best == job.trace().best);
    CHECK(run.view.trace.current == job.trace().current);
    // The plot trace: steps increase, the best curve never rises and ends at the best.
    const SearchTrace& t = run.view.trace;
    REQUIRE(!t.step.empty());
    for (size_t k = 1; k < t.step.size(); ++k) {
      CHECK(t.step[k] > t.step[k - 1]);
      CHECK(t.best[k] <= t.best[k - 1]);
    }
    CHECK(t.best.back() == float(ref.best_ms));
  }
  SearchRequest bad;
  bad.init = "greedy";
  SearchRun job;
  auto refused = search_start(job, std::make_shared<WorkerClient>(), Json{{"model", "alexnet"}, {"cluster", "lecture:2x4"}}, bad);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().path == "search.init");
  CHECK_FALSE(job.started);
}

TEST_CASE("the search trace keeps at most kSearchTraceMaxPoints points, also as the page rebuilds it across thinnings") {
  Inputs in = alexnet_2x4();
  SearchRequest config;
  config.steps = 6000;
  config.beta = 1;   // wanders: no early stop for lack of improvement is likely to cut it short
  const SearchRun run = run_page_search(in, config, 0.0);
  const SearchTrace& t = run.view.trace;
  CHECK(t.step.size() <= kSearchTraceMaxPoints);
  CHECK(t.step.size() == t.best.size());
  CHECK(t.step.size() == t.current.size());
  CHECK(t.step.front() == 0.0f);
  CHECK(t.stride > 1);   // it was thinned at least once
  SearchRequest request;
  request.steps = 6000;
  request.beta = 1;
  SearchJob job(in.graph, in.cluster, request);
  run_to_end(job);
  CHECK(t.step == job.trace().step);
  CHECK(t.current == job.trace().current);
  CHECK(t.stride == job.trace().stride);
}

TEST_CASE("the page's search pauses, single-steps and resumes in the worker, with the same result") {
  Inputs in = alexnet_2x4();
  SearchRequest config;
  config.steps = 300;
  config.seed = 5;
  SearchRun run;
  auto worker = std::make_shared<WorkerClient>();
  const Json inputs{{"model", "alexnet"}, {"cluster", "lecture:2x4"}};
  REQUIRE(search_start(run, worker, inputs, config, 1).ok());   // one proposal, then paused
  for (int k = 0; k < 5; ++k) {
    worker->step_local(0);
    search_update(run, in.graph, in.cluster);
  }
  REQUIRE(search_state(run) != nullptr);
  CHECK(search_state(run)->steps == 1);
  search_resume(run, 1);
  for (int k = 0; k < 5; ++k) {
    worker->step_local(0);
    search_update(run, in.graph, in.cluster);
  }
  CHECK(search_state(run)->steps == 2);
  search_resume(run);
  worker->step_local(0);
  search_pause(run);
  worker->step_local(0);
  search_update(run, in.graph, in.cluster);
  const int64_t at_pause = search_state(run)->steps;
  CHECK(at_pause > 2);
  worker->step_local(0);
  search_update(run, in.graph, in.cluster);
  CHECK(search_state(run)->steps == at_pause);   // paused: no work
  search_resume(run);
  for (int guard = 0; guard < 100000 && !search_finished(run); ++guard) {
    worker->step_local(1);
    search_update(run, in.graph, in.cluster);
  }
  SearchRequest request;
  request.steps = 300;
  request.seed = 5;
  SearchJob job(in.graph, in.cluster, request);
  const SearchReport& ref = run_to_end(job).value();
  CHECK(search_state(run)->best == ref.result.best);
  CHECK(run.report["history"] == ref.to_json()["history"]);
  CHECK(worker->pending() == 0);
}

TEST_CASE("the page's accuracy study in the worker equals the core's accuracy_study; its samples arrive as partials") {
  Inputs in = alexnet_2x4();
  web::AccuracyJob job;   // the page's, not core's (accuracy_operation.h)
  accuracy_start(job, std::make_shared<WorkerClient>(), Json{{"model", "alexnet"}, {"cluster", "lecture:2x4"}}, 60, 5);
  int slices = 0;
  size_t last = 0;
  bool grew_in_steps = false;   // the scatter fills in before the study ends
  // A zero budget simulates one strategy per step.
  while (!accuracy_advance(job, 0.0) && slices < 1000) {
    ++slices;
    grew_in_steps |= job.real_ms.size() > last && job.real_ms.size() < 60;
    last = job.real_ms.size();
  }
  CHECK(slices == 59);
  CHECK(grew_in_steps);
  CHECK_FALSE(job.error.has_value());
  for (CostMode mode : {CostMode::ideal, CostMode::calibrated}) {
    const AccuracyResult ref = accuracy_study(in.graph, in.cluster, 60, 5, mode);
    const AccuracySummary& got = mode == CostMode::ideal ? job.ideal : job.calibrated;
    const std::vector<double>& sim = mode == CostMode::ideal ? job.ideal_ms : job.calibrated_ms;
    REQUIRE(ref.points.size() == sim.size());
    for (size_t i = 0; i < sim.size(); ++i) {
      CHECK(sim[i] == ref.points[i].simulated_ms);
      CHECK(job.real_ms[i] == ref.points[i].real_ms);
    }
    CHECK(got.mean_rel_error == ref.mean_rel_error);
    CHECK(got.max_rel_error == ref.max_rel_error);
    CHECK(got.kendall_tau == ref.kendall_tau);
    CHECK(got.top_kendall_tau == ref.top_kendall_tau);
    CHECK(got.top_count == ref.top_count);
    CHECK(got.sim_best_true_rank == ref.sim_best_true_rank);
  }
}

TEST_CASE("the page keeps drawing only while work advances without input") {
  AppState state;
  REQUIRE(init_app_state(state).ok());
  CHECK(!has_background_work(state));
  REQUIRE(apply_settings_json(state, R"({"search":{"running":true,"steps":1000000}})").ok());
  CHECK(has_background_work(state));
  REQUIRE(apply_settings_json(state, R"({"search":{"running":false}})").ok());
  CHECK(!has_background_work(state));
  // A lecture scenario waits for its tab: pending work elsewhere does not keep frames coming.
  state.lecture.compute_pending = true;
  state.shown_tab = panel_tab("model");
  CHECK(!has_background_work(state));
  state.shown_tab = panel_tab("lecture");
  CHECK(has_background_work(state));
  state.lecture.compute_pending = false;
  ensure_accuracy_started(state);
  CHECK(has_background_work(state));
}

TEST_CASE("the panels table: every tab brings its first panel to the front, every panel lives in one tab") {
  CHECK(tab_count() == 10);
  CHECK(panel_names().size() == panel_table().size());
  for (int t = 0; t < tab_count(); ++t) {
    CAPTURE(t);
    CHECK(panel_tab(tab_first_panel(t)) == t);
    CHECK(std::string(tab_title(t)).size() > 0);
  }
  CHECK(panel_tab("timeline") == panel_tab("strategy"));
  CHECK(std::string(tab_title(panel_tab("inter"))) == "Alpa inter-op");
  CHECK(panel_tab("nope") == 0);
}

TEST_CASE("the page reads built-in model specs with core's parser") {
  auto c = parse_builtin_model("mlp:layers=6", "model");
  REQUIRE(c.ok());
  CHECK(c.value().model == find_builtin_model("mlp"));
  CHECK(c.value().values.at("layers") == 6);
  CHECK(builtin_spec_string(*c.value().model, c.value().values) == "mlp:layers=6");
  auto bad = parse_builtin_model("mlp:layers=x", "model");
  REQUIRE(!bad.ok());
  CHECK(bad.error().path == "model");
}

TEST_CASE("the page's beta sweep, as searches in the worker, equals autopar scenario beta-sweep") {
  LectureState lecture;
  beta_sweep_start(lecture, std::make_shared<WorkerClient>());
  REQUIRE(lecture.sweep);
  for (int guard = 0; guard < 100000 && lecture.sweep->running; ++guard) beta_sweep_advance(lecture, 20);
  CHECK(lecture.error.empty());
  CHECK(beta_sweep_done(*lecture.sweep) == int(beta_sweep_betas().size()) * kBetaSweepSeeds);
  auto cli = scenario_operation("beta-sweep", "scenario");
  REQUIRE(cli.ok());
  CHECK(lecture.results == cli.value().results);
  CHECK(lecture.computed_name == "beta-sweep");
  REQUIRE(lecture.findings.size() == cli.value().findings.size());
  for (size_t k = 0; k < lecture.findings.size(); ++k) CHECK(lecture.findings[k].en == cli.value().findings[k].en);
}

namespace {
// `compare --json` without its wall-clock fields.
Json without_times(Json j) {
  j["flexflow"].erase("elapsed_ms");
  j["alpa"].erase("solve_ms");
  return j;
}
}  // namespace

TEST_CASE("the page's compare, two halves in the worker merged, equals autopar compare --microbatches B --json; a failed half keeps code and path") {
  for (const char* model : {"alexnet", "transformer:layers=2"}) {
    CAPTURE(model);
    AppState state;
    REQUIRE(init_app_state(state).ok());
    REQUIRE(apply_settings_json(state, Json{{"model", model}, {"cluster", "lecture:2x4"}, {"seed", 3}, {"microbatches", 4}}.dump()).ok());
    start_page_compare(state);
    CHECK(compare_running(state.compare));
    CHECK(state.compare.alpa_waiting);   // Alpa's half waits for the page's pipeline plan
    int frames = 0;
    for (; frames < 100000 && compare_running(state.compare); ++frames) {
      ++state.frame_stats.frames;
      advance_background_work(state, 1);
    }
    CHECK(frames > 2);
    REQUIRE(state.compare.error.empty());
    CompareRequest r;
    r.graph = load_model(model).value();
    r.cluster = load_cluster("lecture:2x4").value();
    r.title = std::string(model) + " on lecture:2x4";
    r.seed = 3;
    r.microbatches = 4;   // the page's, not compare's default
    auto ref = run_compare(r);
    REQUIRE(ref.ok());
    CHECK(without_times(state.compare.output).dump() == without_times(ref.value().to_json(r.graph)).dump());
    CHECK(compare_result_json(state.compare)["alpa_ms"] == ref.value().alpa_sim.summary.makespan_ms);
    CHECK(state.alpa.inter.worker->pending() == 0);
  }
  // A batch of 1 in 3 micro-batches: the FlexFlow half refuses it (so does the plan), with the CLI's option as the path.
  CompareState cmp;
  compare_start(cmp, std::make_shared<WorkerClient>(), Json{{"model", "mlp:batch=1"}, {"cluster", "lecture:1x2"}}, "mlp on lecture:1x2, seed 1, B = 3", 1, 3,
                "no plan");
  for (int k = 0; k < 1000 && compare_running(cmp); ++k) compare_advance(cmp, 1);
  REQUIRE(cmp.failure.has_value());
  CHECK(cmp.failure->path == "--microbatches");
  CHECK(compare_result_json(cmp)["error"]["code"] == "bad_value");
  CHECK(!cmp.alpa_waiting);
}

TEST_CASE("the intra-op plan of an edit, computed in the worker and read back, shows what the synchronous plan shows") {
  struct Case {
    const char* model;
    const char* cluster;
    const char* mesh;
    const char* solver;
    bool reduce_scatter, remat;
    const char* alpa_costs;
  };
  for (const Case c : {Case{"transformer:layers=4", "lecture:2x4", "2x4", "auto", false, false, ""},
                       Case{"alexnet", "lecture:2x4", "4x2", "ilp", true, false, ""},
                       Case{"mlp:layers=6,batch=256,in=32,hidden=32,out=32", "lecture:1x4", "2x2", "auto", true, true, "1,1|1,0.1"},
                       Case{"wide-resnet", "lecture:2x4", "1x8", "auto", false, true, ""}}) {
    CAPTURE(c.model);
    CAPTURE(c.mesh);
    const Graph g = load_model(c.model).value();
    const Cluster cl = load_cluster(c.cluster).value();
    AlpaInputs in;
    in.model = c.model;
    in.cluster = c.cluster;
    in.mesh = c.mesh;
    in.solver = c.solver;
    in.reduce_scatter = c.reduce_scatter;
    in.remat = c.remat;
    in.alpa_costs = c.alpa_costs;
    // The reference: the same problem solved here, on the test's thread, straight from core.
    IntraOpView sync;
    auto setup = intra_setup(cl, intra_request(in), json_field_path(""));
    REQUIRE(setup.ok());
    auto direct = plan_intra_op(g, setup.value().mesh, setup.value().options);
    REQUIRE(direct.ok());
    sync.key = intra_key(in);
    sync.plan = direct.value();
    sync.ops = intra_op_choices(g, direct.value());
    IntraOpView async;
    auto worker = std::make_shared<WorkerClient>();
    request_intra_plan(async, in, worker);
    CHECK(intra_planning(async));
    request_intra_plan(async, in, worker);   // the same inputs again: no second job
    CHECK(worker->pending() == 1);
    CHECK_FALSE(take_intra_plan(async, in, g, cl));   // nothing stepped yet
    worker->step_local(0);
    REQUIRE(take_intra_plan(async, in, g, cl));
    CHECK_FALSE(intra_planning(async));
    REQUIRE(async.plan.has_value());
    AlpaView a, b;
    a.intra = sync;
    b.intra = async;
    Json ja = alpa_result_json(a, in), jb = alpa_result_json(b, in);
    for (Json* j : {&ja, &jb}) j->erase("intra_solve_ms");   // wall clock
    CHECK(ja.dump() == jb.dump());
    CHECK(jb["intra_source"] == "worker");
    // The spec strings of each op are the plan's own (independently: spec_to_string of the choice).
    REQUIRE(jb["intra_ops"].size() == g.ops.size());
    for (size_t v = 0; v < g.ops.size(); ++v) {
      const OpStrategy& s = direct.value().strategies[v][size_t(direct.value().solution.choice[v])];
      CHECK(jb["intra_ops"][v]["output_spec"] == spec_to_string(s.output));
      CHECK(jb["intra_ops"][v]["input_specs"].size() == s.inputs.size());
    }
    Json pa = intra_plan_json(g, *sync.plan), pb = intra_plan_json(g, *async.plan);
    for (Json* j : {&pa, &pb}) j->erase("solve_ms");
    CHECK(pa.dump() == pb.dump());
    // New inputs while the worker plans others: the old job is dropped, the new one awaited.
    in.mesh = std::string(c.mesh) == "1x8" ? "2x4" : "1x8";
    request_intra_plan(async, in, worker);
    in.solver = std::string(c.solver) == "ilp" ? "auto" : "ilp";
    request_intra_plan(async, in, worker);
    CHECK(worker->pending() == 1);
    worker->step_local(0);
    REQUIRE(take_intra_plan(async, in, g, cl));
    CHECK_FALSE(intra_planning(async));
    CHECK(async.key == intra_key(in));
    CHECK(worker->pending() == 0);
  }
  // A mesh that does not match the devices: the worker's error keeps its code, its path the page's.
  IntraOpView view;
  auto worker = std::make_shared<WorkerClient>();
  AlpaInputs in;
  in.model = "alexnet";
  in.cluster = "lecture:2x4";
  in.mesh = "3x3";
  in.solver = "auto";
  request_intra_plan(view, in, worker);
  worker->step_local(0);
  const Graph g = load_model("alexnet").value();
  const Cluster cl = load_cluster("lecture:2x4").value();
  take_intra_plan(view, in, g, cl);
  REQUIRE(view.error.has_value());
  CHECK(view.error->path == "mesh");
}

TEST_CASE("an edit on a tab that does not show the simulation leaves it pending; reading it builds it once, as an eager edit does") {
  AppState eager, lazy;
  REQUIRE(init_app_state(eager).ok());
  REQUIRE(init_app_state(lazy).ok());
  REQUIRE(apply_settings_json(eager, R"({"panel":"strategy"})").ok());
  REQUIRE(apply_settings_json(lazy, R"({"panel":"intra"})").ok());
  const auto edit = [](AppState& s, const char* json) { REQUIRE(apply_settings_json(s, json).ok()); };
  for (const char* json : {R"({"model":"transformer:layers=3","cluster":"lecture:2x4","mesh":"2x4"})", R"({"strategy":"expert"})",
                           R"({"model":"transformer:layers=4"})"}) {
    edit(eager, json);
    edit(lazy, json);
    CHECK(eager.flexflow.task_graph != nullptr);   // the Strategy tab shows it: built at once
    CHECK(!eager.flexflow.pending);
    CHECK(lazy.flexflow.task_graph == nullptr);    // the intra-op tab does not: it waits
    CHECK(lazy.flexflow.pending.has_value());
  }
  const uint64_t revision = lazy.flexflow.revision;
  ensure_flexflow(lazy);
  CHECK(lazy.flexflow.revision == revision + 1);   // three edits, one build
  ensure_flexflow(lazy);
  CHECK(lazy.flexflow.revision == revision + 1);   // nothing pending: nothing built
  REQUIRE(lazy.flexflow.task_graph != nullptr);
  CHECK(lazy.flexflow.summary.makespan_ms > 0);
  CHECK(lazy.flexflow.summary.makespan_ms == eager.flexflow.summary.makespan_ms);
  CHECK(lazy.flexflow.summary.tasks == eager.flexflow.summary.tasks);
  CHECK(lazy.flexflow.gpu_memory_bytes == eager.flexflow.gpu_memory_bytes);
  CHECK(lazy.flexflow.data_parallel_ms == eager.flexflow.data_parallel_ms);
  CHECK(lazy.flexflow.strategy == eager.flexflow.strategy);
  // A failed edit keeps the pending strategy of the last good one.
  REQUIRE(apply_settings_json(lazy, R"({"panel":"intra"})").ok());
  REQUIRE(apply_settings_json(lazy, R"({"model":"transformer:layers=5","strategy":"expert"})").ok());
  CHECK(!apply_settings_json(lazy, R"({"model":"no-such-model"})").ok());
  ensure_flexflow(lazy);
  REQUIRE(lazy.flexflow.task_graph != nullptr);
  CHECK(lazy.graph.ops.size() == load_model("transformer:layers=5").value().ops.size());
  CHECK(lazy.flexflow.summary.makespan_ms > 0);
}

TEST_CASE("a strategy too large to simulate leaves no task graph and says why; the page still takes the inputs (Alpa plans them)") {
  // 96 layers (1,730 ops) on 2,048 GPUs: data parallelism alone is about 1.8 million op parts,
  // beyond kMaxSimulatedParts; a build would need several GB (it aborted the page before).
  AppState s;
  REQUIRE(init_app_state(s).ok());
  REQUIRE(apply_settings_json(s, R"({"panel":"strategy","model":"transformer:layers=96","cluster":"h100:256x8","mesh":"256x8"})").ok());
  ensure_flexflow(s);
  CHECK(s.flexflow.task_graph == nullptr);
  REQUIRE(s.flexflow.error.has_value());
  CHECK(s.flexflow.error->code == ErrorCode::too_large);
  CHECK(s.flexflow.error->message.find("1048576 parts") != std::string::npos);
  const Json r = flexflow_result_json(s.flexflow);
  CHECK(r["makespan_ms"].is_null());
  CHECK(r["flexflow_error"].is_string());
  // Back to a small cluster: simulated again, the message gone.
  REQUIRE(apply_settings_json(s, R"({"model":"transformer:layers=4","cluster":"lecture:2x4","mesh":"2x4"})").ok());
  ensure_flexflow(s);
  CHECK(s.flexflow.task_graph != nullptr);
  CHECK(!s.flexflow.error.has_value());
  CHECK(flexflow_result_json(s.flexflow)["makespan_ms"].is_number());
}

TEST_CASE("check_simulation_size: up to kMaxSimulatedParts op parts pass, one more is too_large at its path") {
  CHECK(check_simulation_size(kMaxSimulatedParts, "this strategy", "--strategy").ok());
  const Status over = check_simulation_size(kMaxSimulatedParts + 1, "this strategy", "--strategy");
  REQUIRE(!over.ok());
  CHECK(over.error().code == ErrorCode::too_large);
  CHECK(over.error().path == "--strategy");
  const Inputs in = alexnet_2x4();
  const Strategy dp = load_strategy("dp", in.graph, in.cluster).value();
  int64_t parts = 0;
  for (const OpConfig& c : dp.ops) parts += c.parts();
  CHECK(strategy_parts(dp) == parts);
  CHECK(parts > int64_t(in.graph.ops.size()));   // data parallel splits ops over the 8 GPUs
}
