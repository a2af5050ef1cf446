// Unit tests of the typed operations and their one job shape (core/operations): a job stepped
// in slices of any size gives the report of one unlimited step and of the core function it
// wraps; cancelling ends it with the "cancelled" error; bad input ends it with the error's own
// code and path; reports render what the CLI prints.
#include <doctest/doctest.h>

#include "error_code_printing.h"
#include "accuracy_operation.h"
#include "cluster_spec.h"
#include "commands.h"
#include "flexflow_operations.h"
#include "inter_operation.h"
#include "models.h"
#include "search_operation.h"
#include "simulator_fixtures.h"
#include "strategy_argument.h"

using namespace autopar;

namespace {

Graph model(const std::string& spec) { return load_model(spec).value(); }
Cluster cluster(const std::string& spec) { return load_cluster(spec).value(); }

// Steps a job in slices of `units` until done; returns the number of steps taken.
template <class Report>
int step_in_slices(Job<Report>& job, int64_t units) {
  int steps = 0;
  while (!job.step(StepBudget::work(units))) ++steps;
  return steps + 1;
}

}  // namespace

TEST_CASE("a search stepped one proposal at a time equals one unlimited step and run_search") {
  SearchRequest request;
  request.steps = 400;
  request.seed = 3;
  request.beta = 200;
  SearchJob whole(model("alexnet"), cluster("lecture:2x4"), request);
  SearchJob sliced(model("alexnet"), cluster("lecture:2x4"), request);
  REQUIRE(whole.step(StepBudget::unlimited()));
  CHECK(step_in_slices(sliced, 1) > 100);
  REQUIRE(whole.result().ok());
  REQUIRE(sliced.result().ok());
  const SearchResult& a = whole.result().value().result;
  const SearchResult& b = sliced.result().value().result;
  CHECK(a.best_ms == b.best_ms);
  CHECK(a.steps == b.steps);
  CHECK(a.accepted == b.accepted);
  CHECK(a.history == b.history);
  CHECK(a.best == b.best);
  // The core's own loop, from the same data-parallel start.
  const Graph g = model("alexnet");
  const Cluster c = cluster("lecture:2x4");
  SearchOptions o;
  o.steps = 400;
  o.seed = 3;
  o.beta = 200;
  const SearchResult core = run_search(g, c, data_parallel(g, c.num_devices()), o, nullptr);
  CHECK(core.best_ms == a.best_ms);
  CHECK(core.steps == a.steps);
  // The live plot's trace starts at the initial strategy and ends at the last proposal.
  REQUIRE(!sliced.trace().step.empty());
  CHECK(sliced.trace().step.front() == 0);
  CHECK(sliced.trace().step.back() == float(b.steps));
  CHECK(sliced.progress().done == b.steps);
}

TEST_CASE("search errors keep their code and path through the job") {
  SearchRequest request;
  request.init = "nope";
  SearchJob job(model("mlp3"), cluster("lecture:1x4"), request, "search.init");
  REQUIRE(job.done());
  REQUIRE(!job.result().ok());
  CHECK(job.result().error().code == ErrorCode::bad_value);
  CHECK(job.result().error().path == "search.init");
}

TEST_CASE("a cancelled job is done with the cancelled error, and stepping it does nothing") {
  SearchRequest request;
  request.steps = 100000;
  SearchJob job(model("alexnet"), cluster("lecture:2x4"), request);
  job.step(StepBudget::work(10));
  REQUIRE(!job.done());
  job.cancel();
  CHECK(job.done());
  REQUIRE(!job.result().ok());
  CHECK(job.result().error().code == ErrorCode::cancelled);
  const int64_t steps = job.state()->steps;
  CHECK(job.step(StepBudget::work(10)));
  CHECK(job.state()->steps == steps);
}

TEST_CASE("an accuracy study in slices of 3 strategies equals accuracy_study for both simulators") {
  const Graph g = model("mlp3");
  const Cluster c = cluster("lecture:1x4");
  AccuracyRequest request;
  request.samples = 25;
  request.seed = 5;
  AccuracyJob job(g, c, request);
  CHECK(step_in_slices(job, 3) == 9);
  REQUIRE(job.result().ok());
  const AccuracyReport& r = job.result().value();
  for (CostMode mode : {CostMode::ideal, CostMode::calibrated}) {
    const AccuracyResult core = accuracy_study(g, c, 25, 5, mode);
    const AccuracyResult& mine = mode == CostMode::ideal ? r.ideal : r.calibrated;
    CHECK(core.mean_rel_error == mine.mean_rel_error);
    CHECK(core.kendall_tau == mine.kendall_tau);
    CHECK(core.top_kendall_tau == mine.top_kendall_tau);
    CHECK(core.sim_best_true_rank == mine.sim_best_true_rank);
  }
  CHECK(job.progress().fraction() == 1.0);
}

TEST_CASE("the inter-op job in slices of one unit gives the plan of one unlimited step, with its phases in order") {
  InterRequest request;
  request.microbatches = 8;
  const Graph g = model("transformer:layers=4");
  const Cluster c = cluster("lecture:2x4");
  InterJob whole(g, c, request), sliced(g, c, request);
  REQUIRE(whole.step(StepBudget::unlimited()));
  CHECK(sliced.progress().phase == "stage costs");
  bool saw_dp = false;
  while (!sliced.step(StepBudget::work(1))) {
    saw_dp |= sliced.progress().phase == "pipeline DP";
    CHECK(sliced.progress().done <= sliced.progress().total);
  }
  CHECK(saw_dp);
  REQUIRE(whole.result().ok());
  REQUIRE(sliced.result().ok());
  const InterReport& a = whole.result().value();
  const InterReport& b = sliced.result().value();
  CHECK(a.plan.total_latency == b.plan.total_latency);
  REQUIRE(a.plan.stages.size() == b.plan.stages.size());
  Json ja = a.to_json(), jb = b.to_json();
  for (Json* j : {&ja, &jb}) {   // wall-clock fields
    j->erase("elapsed_ms");
    j->erase("phases");
  }
  CHECK(ja == jb);
  // The core's one-call functions agree.
  InterOpOptions o;
  o.microbatches = 8;
  auto table = stage_costs_from_model(microbatch_graph(g, 8).value(), c, o);
  REQUIRE(table.ok());
  auto plan = solve_inter_op(table.value(), 8);
  REQUIRE(plan.ok());
  CHECK(plan.value().total_latency == a.plan.total_latency);
}

TEST_CASE("an inter-op job on micro-batches that do not divide the batch ends at once with the core's error") {
  InterRequest request;
  request.microbatches = 7;
  InterJob job(model("transformer:layers=2,batch=8"), cluster("lecture:1x4"), request);
  REQUIRE(job.done());
  REQUIRE(!job.result().ok());
  CHECK(job.result().error().code == ErrorCode::bad_value);
}

TEST_CASE("a time budget bounds a step, and the report does not depend on it") {
  AccuracyRequest request;
  request.samples = 40;
  AccuracyJob timed(model("alexnet"), cluster("lecture:2x4"), request);
  int steps = 0;
  while (!timed.step(StepBudget::time(0.01))) ++steps;
  CHECK(steps > 1);
  AccuracyJob whole(model("alexnet"), cluster("lecture:2x4"), request);
  REQUIRE(run_to_end(whole).ok());
  CHECK(timed.result().value().ideal.kendall_tau == whole.result().value().ideal.kendall_tau);
}

TEST_CASE("the CLI prints the operation's report: simulate's JSON and text come from the report") {
  const Graph g = model("alexnet");
  const Cluster c = cluster("lecture:2x4");
  SimulateRequest request;
  request.strategy = load_strategy("expert", g, c).value();
  request.expert = true;   // --strategy expert: the report names the recipe
  const SimulateReport r = simulate_operation(g, c, request);
  REQUIRE(r.expert_recipe.has_value());
  CHECK(*r.expert_recipe == ExpertRecipe::cnn);
  auto out = cli::run_command({"simulate", "--model", "alexnet", "--cluster", "lecture:2x4", "--strategy", "expert"});
  REQUIRE(out.ok());
  CHECK(out.value().json == r.to_json());
  CHECK(out.value().text == r.to_text());
  // The makespan it reports, on a timeline worked by hand (simulator_test.cpp's two ops on two
  // GPUs of 1e6 FLOP/ms and 1000 bytes/ms): a's forward 0.010384 ms, its 96-byte output to GPU 1
  // 0.096, b's forward 0.010096 and backward 0.010192, the gradient back 0.096, a's backward
  // 0.010768: 0.23344 ms in all.
  SimulateRequest two;
  two.strategy.ops = {OpConfig{{1, 1}, {0}}, OpConfig{{1, 1}, {1}}};
  const SimulateReport hand = simulate_operation(test::two_linear_ops(4), test::round_cluster(1, 2), two);
  CHECK(hand.to_json()["makespan_ms"].get<double>() == doctest::Approx(0.23344).epsilon(1e-12));
}

TEST_CASE("text reports count in words that agree with the number: one stage, one GPU, brute force") {
  // "1 stages", "on 1 GPUs", "1 micro-batches" and, for --brute-force, "0 of 0 t_max candidates
  // tried" (the brute force tries none: it enumerates every slicing).
  auto inter = cli::run_command({"inter", "--model", "mlp3", "--cluster", "lecture:1x3", "--microbatches", "1"});
  REQUIRE(inter.ok());
  CHECK(inter.value().text.find("with 1 micro-batch (") != std::string::npos);
  CHECK(inter.value().text.find("): 1 stage, total") != std::string::npos);
  auto brute = cli::run_command({"inter", "--model", "alexnet", "--cluster", "lecture:1x2", "--microbatches", "4", "--brute-force"});
  REQUIRE(brute.ok());
  CHECK(brute.value().text.find("0 of 0") == std::string::npos);
  CHECK(brute.value().text.find("brute force") != std::string::npos);
  auto memory = cli::run_command({"memory", "--model", "mlp3", "--cluster", "lecture:1x1"});
  REQUIRE(memory.ok());
  CHECK(memory.value().text.find("on 1 GPU:") != std::string::npos);
  auto space = cli::run_command({"space", "--model", "mlp3", "--cluster", "lecture:1x1"});
  REQUIRE(space.ok());
  CHECK(space.value().text.find("on 1 device\n") != std::string::npos);
}

TEST_CASE("a search that stops early says why in its text") {
  // --steps 500 on mlp3 over 3 GPUs ends after 262 proposals (none improved in the last half of
  // the budget); the text said only "262 proposals", as if the option had been ignored.
  auto out = cli::run_command({"search", "--model", "mlp3", "--cluster", "lecture:1x3", "--steps", "500", "--seed", "1"});
  REQUIRE(out.ok());
  const int64_t steps = out.value().json["steps"].get<int64_t>();
  REQUIRE(steps < 500);
  CHECK(out.value().text.find("MCMC: " + std::to_string(steps) + " of 500 proposals (stopped early: the last ") != std::string::npos);
  // A search that uses its whole budget says nothing more.
  auto full = cli::run_command({"search", "--model", "alexnet", "--cluster", "lecture:2x4", "--steps", "50", "--seed", "1"});
  REQUIRE(full.ok());
  if (full.value().json["steps"].get<int64_t>() == 50) CHECK(full.value().text.find("stopped early") == std::string::npos);
}
