// The typed requests (core/operations/operation_requests.h): the same bad value typed on the
// CLI, sent to the worker, or set on the page is refused with the same code and the same message
// (only the field's name differs, each front end naming it its own way); every request survives
// to_json -> from_json; bounds hold at both edges.
#include <doctest/doctest.h>

#include "error_code_printing.h"
#include "app_state.h"
#include "cluster_spec.h"
#include "models.h"
#include "commands.h"
#include "operation_requests.h"
#include "strategy_argument.h"
#include "worker_session.h"

using namespace autopar;

namespace {

struct Refusal {
  ErrorCode code;
  std::string path, message;
};

Refusal refusal_of(const Error& e) { return Refusal{e.code, e.path, e.message}; }

// The CLI's refusal of `words` (the command must fail).
Refusal from_cli(const std::vector<std::string>& words) {
  auto r = cli::run_command(words);
  REQUIRE_FALSE(r.ok());
  return refusal_of(r.error());
}

// The worker's refusal of starting `operation` with `request` on alexnet, lecture:2x4.
Refusal from_worker(const std::string& operation, const Json& request, const Json& inputs = Json{{"model", "alexnet"}, {"cluster", "lecture:2x4"}}) {
  auto r = start_operation(operation, inputs, request);
  REQUIRE_FALSE(r.ok());
  return refusal_of(r.error());
}

// The page's refusal of setState(`object`).
Refusal from_page(const Json& object) {
  web::AppState state;
  REQUIRE(web::init_app_state(state).ok());
  const web::Settings before = state.settings;
  auto r = web::apply_settings_object(state, object);
  REQUIRE_FALSE(r.ok());
  CHECK(state.settings == before);   // atomic
  return refusal_of(r.error());
}

// The message with the front end's name of the field replaced by FIELD: what must agree.
std::string words_of(const Refusal& r) {
  std::string m = r.message;
  for (size_t at = m.find(r.path); !r.path.empty() && at != std::string::npos; at = m.find(r.path, at + 5)) m.replace(at, r.path.size(), "FIELD");
  return m;
}

// The refusals agree: the same code, each with its own path, the same words.
void check_same(const std::vector<Refusal>& got, const std::vector<std::string>& paths) {
  REQUIRE(got.size() == paths.size());
  for (size_t k = 0; k < got.size(); ++k) {
    CAPTURE(got[k].message);
    CHECK(got[k].code == got[0].code);
    CHECK(got[k].path == paths[k]);
    CHECK(words_of(got[k]) == words_of(got[0]));
  }
}

const std::vector<std::string> kSearch = {"search", "--model", "alexnet", "--cluster", "lecture:2x4"};

std::vector<std::string> with(std::vector<std::string> words, std::initializer_list<std::string> more) {
  words.insert(words.end(), more);
  return words;
}

}  // namespace

TEST_CASE("search: a bad beta, step budget, time budget, seed or init is refused alike by the CLI, the worker and the page") {
  check_same({from_cli(with(kSearch, {"--beta", "-1"})), from_worker("search", Json{{"beta", -1}}), from_page(Json{{"beta", -1}})},
             {"--beta", "request.beta", "beta"});
  check_same({from_cli(with(kSearch, {"--beta", "2e9"})), from_worker("search", Json{{"beta", 2e9}}), from_page(Json{{"beta", 2e9}})},
             {"--beta", "request.beta", "beta"});
  CHECK(words_of(from_page(Json{{"beta", -1}})) == "FIELD is -1; it must be between 0 and 1e+09");
  check_same({from_cli(with(kSearch, {"--steps", "0"})), from_worker("search", Json{{"steps", 0}}), from_page(Json{{"search", {{"steps", 0}}}})},
             {"--steps", "request.steps", "search.steps"});
  check_same({from_cli(with(kSearch, {"--steps", "100000001"})), from_worker("search", Json{{"steps", 100000001}}),
              from_page(Json{{"search", {{"steps", 100000001}}}})},
             {"--steps", "request.steps", "search.steps"});
  check_same({from_cli(with(kSearch, {"--budget-ms", "-5"})), from_worker("search", Json{{"budget_ms", -5}}),
              from_page(Json{{"search", {{"budget_ms", -5}}}})},
             {"--budget-ms", "request.budget_ms", "search.budget_ms"});
  check_same({from_cli(with(kSearch, {"--seed", "-1"})), from_worker("search", Json{{"seed", -1}}), from_page(Json{{"seed", -1}})},
             {"--seed", "request.seed", "seed"});
  check_same({from_cli(with(kSearch, {"--seed", "9007199254740993"})), from_worker("search", Json{{"seed", 9007199254740993ULL}}),
              from_page(Json{{"seed", 9007199254740993ULL}})},
             {"--seed", "request.seed", "seed"});
  check_same({from_cli(with(kSearch, {"--init", "greedy"})), from_worker("search", Json{{"init", "greedy"}}),
              from_page(Json{{"search", {{"init", "greedy"}}}})},
             {"--init", "request.init", "search.init"});
  CHECK(from_page(Json{{"search", {{"init", "greedy"}}}}).code == ErrorCode::bad_value);
  // The optimizer is no page setting: the CLI and the worker agree.
  check_same({from_cli(with(kSearch, {"--optimizer", "rmsprop"})), from_worker("search", Json{{"optimizer", "rmsprop"}})},
             {"--optimizer", "request.optimizer"});
}

TEST_CASE("beta 0 (a random walk: every move accepted) is a search everywhere, and its chain accepts every proposal") {
  SearchRequest r;
  r.beta = 0;
  r.steps = 50;
  CHECK(validate(r, cli_field_path()).ok());
  CHECK(search_request_from_json(Json{{"beta", 0}}, json_field_path("request")).ok());
  web::AppState state;
  REQUIRE(web::init_app_state(state).ok());
  CHECK(web::apply_settings_object(state, Json{{"beta", 0}}).ok());
  CHECK(state.settings.beta == 0);
  auto out = cli::run_command({"search", "--model", "mlp3", "--cluster", "lecture:1x2", "--beta", "0", "--steps", "50", "--json"});
  REQUIRE(out.ok());
  const Json& j = out.value().json;
  CHECK(j["accepted"] == j["steps"]);
}

TEST_CASE("micro-batches, the ZeRO stage, accuracy samples and precision are refused alike by the CLI, the worker and the page") {
  const std::vector<std::string> inter = {"inter", "--model", "mlp", "--cluster", "lecture:2x4"};
  for (int64_t bad : {int64_t(0), kMicrobatchesBound.hi + 1}) {
    CAPTURE(bad);
    check_same({from_cli(with(inter, {"--microbatches", std::to_string(bad)})), from_worker("inter", Json{{"microbatches", bad}}),
                from_page(Json{{"microbatches", bad}})},
               {"--microbatches", "request.microbatches", "microbatches"});
  }
  // The old CLI bound (65,536) was lower than the worker's and the page's: one bound now.
  InterRequest largest;
  largest.microbatches = int(kMicrobatchesBound.hi);
  CHECK(validate(largest, cli_field_path()).ok());
  check_same({from_cli({"memory", "--model", "mlp", "--cluster", "lecture:2x4", "--zero", "4"}),
              from_cli({"simulate", "--model", "mlp", "--cluster", "lecture:2x4", "--zero", "4"}),
              from_cli(with(inter, {"--zero", "4"})), from_worker("inter", Json{{"zero", 4}}), from_page(Json{{"zero", 4}})},
             {"--zero", "--zero", "--zero", "request.zero", "zero"});
  check_same({from_cli({"accuracy", "--model", "alexnet", "--cluster", "lecture:2x4", "--samples", "1"}), from_worker("accuracy", Json{{"samples", 1}}),
              from_page(Json{{"accuracy", {{"samples", 1}}}})},
             {"--samples", "request.samples", "accuracy.samples"});
  check_same({from_cli({"simulate", "--model", "mlp", "--cluster", "lecture:2x4", "--precision", "fp4"}),
              from_worker("inter", Json::object(), Json{{"model", "mlp"}, {"cluster", "lecture:2x4"}, {"precision", "fp4"}}),
              from_page(Json{{"precision", "fp4"}})},
             {"--precision", "inputs.precision", "precision"});
  // Text that is no whole number, and JSON that is none.
  CHECK(from_cli(with(inter, {"--microbatches", "eight"})).code == ErrorCode::bad_value);
  CHECK(from_worker("inter", Json{{"microbatches", "eight"}}).code == ErrorCode::wrong_type);
  CHECK(from_page(Json{{"microbatches", 2.5}}).code == ErrorCode::wrong_type);
}

TEST_CASE("compare's seed and steps: the CLI and the worker agree") {
  const std::vector<std::string> compare = {"compare", "--model", "mlp3", "--cluster", "lecture:1x2"};
  check_same({from_cli(with(compare, {"--steps", "0"})), from_worker("compare_flexflow", Json{{"steps", 0}})}, {"--steps", "request.steps"});
  check_same({from_cli(with(compare, {"--seed", "-3"})), from_worker("compare_alpa", Json{{"seed", -3}})}, {"--seed", "request.seed"});
  check_same({from_cli(with(compare, {"--microbatches", "2000000"})), from_worker("compare_alpa", Json{{"microbatches", 2000000}})},
             {"--microbatches", "request.microbatches"});
}

TEST_CASE("every request survives to_json -> from_json, and from_json refuses what validate refuses") {
  const FieldPath path = json_field_path("request");
  SearchRequest s;
  s.beta = 0;
  s.steps = kSearchStepsBound.hi;
  s.budget_ms = 250;
  s.seed = uint64_t(kSeedBound.hi);
  s.init = "random:7";
  s.full_sim = true;
  s.optimizer = Optimizer::sgd;
  s.memory_moves = 1;
  auto s2 = search_request_from_json(request_to_json(s), path);
  REQUIRE(s2.ok());
  CHECK(request_to_json(s2.value()) == request_to_json(s));
  CHECK(s2.value().init == "random:7");
  CHECK(s2.value().optimizer == Optimizer::sgd);

  InterRequest i;
  i.microbatches = 64;
  i.boundaries = false;
  i.options.zero_stage = 2;
  i.options.optimizer = Optimizer::sgd;
  i.plan = parse_given_plan("t=2,p=2,d=2,v=2").value();
  auto i2 = inter_request_from_json(request_to_json(i), path);
  REQUIRE(i2.ok());
  CHECK(request_to_json(i2.value()) == request_to_json(i));
  CHECK(i2.value().plan->interleave == 2);
  CHECK(inter_request_from_json(Json::object(), path).value().options.zero_stage == -1);   // absent: the planner's choice

  AccuracyRequest a;
  a.samples = kAccuracySamplesBound.lo;
  a.seed = 9;
  a.simulator = CostMode::calibrated;
  auto a2 = accuracy_request_from_json(request_to_json(a), path);
  REQUIRE(a2.ok());
  CHECK(request_to_json(a2.value()) == request_to_json(a));

  CompareRequest c;
  c.title = "mlp3 on lecture:1x2";
  c.seed = 4;
  c.steps = 10;
  c.microbatches = 4;
  auto c2 = compare_request_from_json(request_to_json(c), path);
  REQUIRE(c2.ok());
  CHECK(request_to_json(c2.value()) == request_to_json(c));
  CHECK(compare_request_from_json(Json{{"microbatches", 0}}, path).value().microbatches == 0);   // 0: the default

  MemoryOptions m;
  m.data_parallel = 4;
  m.tensor_parallel = 2;
  m.zero_stage = 3;
  m.precision = Precision::mixed;
  m.remat = true;
  auto m2 = memory_request_from_json(request_to_json(m), path);
  REQUIRE(m2.ok());
  CHECK(request_to_json(m2.value()) == request_to_json(m));

  ExportRequest e;
  e.format = "dtensor";
  e.seed = 5;
  e.title = "t";
  e.device_type = "cpu";
  auto e2 = export_request_from_json(request_to_json(e), path);
  REQUIRE(e2.ok());
  CHECK(request_to_json(e2.value()) == request_to_json(e));
  e.format = "jax";   // a device type applies to dtensor only
  CHECK(export_request_from_json(request_to_json(e), path).error().path == "request.device_type");

  // A request that is not an object, and JavaScript's 2000.0 for a whole number.
  CHECK(search_request_from_json(Json::array(), path).error().code == ErrorCode::wrong_type);
  CHECK(search_request_from_json(Json{{"steps", 2000.0}}, path).value().steps == 2000);
  CHECK(search_request_from_json(Json{{"steps", 2000.5}}, path).error().code == ErrorCode::wrong_type);
  // A value that would wrap when narrowed to int is out of range, not wrapped into range.
  CHECK(search_request_from_json(Json{{"memory_moves", int64_t(1) << 32}}, path).error().code == ErrorCode::out_of_range);
  CHECK(inter_request_from_json(Json{{"microbatches", (int64_t(1) << 32) + 8}}, path).error().code == ErrorCode::out_of_range);
}

TEST_CASE("bounds hold at both edges, in validate and as typed on the CLI") {
  const FieldPath cli = cli_field_path();
  SearchRequest s;
  for (double beta : {kBetaBound.lo, kBetaBound.hi}) {
    s.beta = beta;
    CHECK(validate(s, cli).ok());
  }
  for (double beta : {-1e-9, kBetaBound.hi * 1.000001}) {
    s.beta = beta;
    CHECK(validate(s, cli).error().code == ErrorCode::out_of_range);
  }
  s = SearchRequest{};
  for (int64_t steps : {kSearchStepsBound.lo, kSearchStepsBound.hi}) {
    s.steps = steps;
    CHECK(validate(s, cli).ok());
  }
  for (int64_t steps : {kSearchStepsBound.lo - 1, kSearchStepsBound.hi + 1}) {
    s.steps = steps;
    CHECK(validate(s, cli).error().path == "--steps");
  }
  InterRequest i;
  for (int m : {int(kMicrobatchesBound.lo), int(kMicrobatchesBound.hi)}) {
    i.microbatches = m;
    CHECK(validate(i, cli).ok());
  }
  for (int m : {int(kMicrobatchesBound.lo) - 1, int(kMicrobatchesBound.hi) + 1}) {
    i.microbatches = m;
    CHECK(validate(i, cli).error().path == "--microbatches");
  }
  AccuracyRequest a;
  for (int n : {int(kAccuracySamplesBound.lo), int(kAccuracySamplesBound.hi)}) {
    a.samples = n;
    CHECK(validate(a, cli).ok());
  }
  for (int n : {int(kAccuracySamplesBound.lo) - 1, int(kAccuracySamplesBound.hi) + 1}) {
    a.samples = n;
    CHECK(validate(a, cli).error().path == "--samples");
  }
  MemoryOptions m;
  for (int z : {0, 3}) {
    m.zero_stage = z;
    CHECK(validate(m, cli).ok());
  }
  for (int z : {-1, 4}) {
    m.zero_stage = z;
    CHECK(validate(m, cli).error().path == "--zero");
  }
  // The page takes the same edges: the largest seed and micro-batch count, the smallest sample count.
  web::AppState state;
  REQUIRE(web::init_app_state(state).ok());
  CHECK(web::apply_settings_object(state, Json{{"seed", kSeedBound.hi}, {"microbatches", kMicrobatchesBound.hi}, {"accuracy", {{"samples", 2}}}}).ok());
  CHECK(state.settings.seed == kSeedBound.hi);
}

TEST_CASE("intra: a bad solver, ZeRO stage, memory budget or batch axis is refused alike by the CLI and the worker") {
  const std::vector<std::string> intra = {"intra", "--model", "alexnet", "--cluster", "lecture:2x4", "--mesh", "2x4"};
  check_same({from_cli(with(intra, {"--solver", "greedy"})), from_worker("intra", Json{{"solver", "greedy"}})}, {"--solver", "request.solver"});
  CHECK(words_of(from_worker("intra", Json{{"solver", "greedy"}})) == "FIELD must be auto, ilp, dp or exhaustive, not 'greedy'");
  check_same({from_cli(with(intra, {"--zero", "4"})), from_worker("intra", Json{{"zero", 4}})}, {"--zero", "request.zero"});
  check_same({from_cli(with(intra, {"--memory-budget-bytes", "-5"})), from_worker("intra", Json{{"memory_budget_bytes", -5}})},
             {"--memory-budget-bytes", "request.memory_budget_bytes"});
  check_same({from_cli(with(intra, {"--force-batch-axis", "2"})), from_worker("intra", Json{{"force_batch_axis", 2}})},
             {"--force-batch-axis", "request.force_batch_axis"});
  // Two fields in conflict: the message names both, each front end its own way.
  const Refusal both_cli = from_cli(with(intra, {"--force-batch-axis", "1", "--force-data-parallel"}));
  const Refusal both_worker = from_worker("intra", Json{{"force_batch_axis", 1}, {"force_data_parallel", true}});
  CHECK(both_cli.code == ErrorCode::bad_argument);
  CHECK(both_worker.code == ErrorCode::bad_argument);
  CHECK(both_cli.path == "--force-batch-axis");
  CHECK(both_worker.path == "request.force_batch_axis");
  CHECK(both_cli.message.rfind("--force-data-parallel already pins the batch", 0) == 0);
  CHECK(both_worker.message.rfind("request.force_data_parallel already pins the batch", 0) == 0);
  check_same({from_cli(with(intra, {"--optimizer", "rmsprop"})), from_worker("intra", Json{{"optimizer", "rmsprop"}})},
             {"--optimizer", "request.optimizer"});
  // A mesh that does not fit the cluster: the same check (mesh_from_cluster) names each front end's field.
  check_same({from_cli({"intra", "--model", "alexnet", "--cluster", "lecture:2x4", "--mesh", "3x3"}), from_worker("intra", Json{{"mesh", "3x3"}})},
             {"--mesh", "request.mesh"});
}

TEST_CASE("simulate: a bad ZeRO stage, fine seed or two cost models are refused alike by the CLI and the worker") {
  const std::vector<std::string> simulate = {"simulate", "--model", "alexnet", "--cluster", "lecture:2x4", "--strategy", "dp"};
  check_same({from_cli(with(simulate, {"--zero", "4"})), from_worker("simulate", Json{{"zero", 4}})}, {"--zero", "request.zero"});
  check_same({from_cli(with(simulate, {"--fine", "-1"})), from_worker("simulate", Json{{"fine", -1}})}, {"--fine", "request.fine"});
  const Refusal two_cli = from_cli(with(simulate, {"--fine", "1", "--calibrated"}));
  const Refusal two_worker = from_worker("simulate", Json{{"fine", 1}, {"calibrated", true}});
  CHECK(two_cli.code == ErrorCode::bad_argument);
  CHECK(two_worker.code == ErrorCode::bad_argument);
  CHECK(two_cli.path == "--calibrated");
  CHECK(two_worker.path == "request.calibrated");
  CHECK(two_cli.message == "--calibrated and --fine SEED choose different cost models (the calibrated simulator, the finer execution model); give one");
  CHECK(two_worker.message ==
        "request.calibrated and request.fine SEED choose different cost models (the calibrated simulator, the finer execution model); give one");
  check_same({from_cli(with(simulate, {"--optimizer", "rmsprop"})), from_worker("simulate", Json{{"optimizer", "rmsprop"}})},
             {"--optimizer", "request.optimizer"});
  check_same({from_cli({"simulate", "--model", "alexnet", "--cluster", "lecture:2x4", "--strategy", "greedy"}),
              from_worker("simulate", Json{{"strategy", "greedy"}})},
             {"--strategy", "request.strategy"});
}

TEST_CASE("intra and simulate requests survive to_json -> from_json; the worker's simulate is the CLI's") {
  const FieldPath path = json_field_path("request");
  IntraRequest i;
  i.mesh = "4x2";
  i.solver = "ilp";
  i.reduce_scatter = true;
  i.remat = true;
  i.alpa_costs = "1,1|1,0.1";
  i.zero_stage = 2;
  i.optimizer = Optimizer::sgd;
  i.memory_budget_bytes = 1e9;
  i.force_batch_axis = 1;
  auto i2 = intra_request_from_json(request_to_json(i), path);
  REQUIRE(i2.ok());
  CHECK(request_to_json(i2.value()) == request_to_json(i));
  CHECK(i2.value().memory_budget_bytes == 1e9);
  CHECK_FALSE(intra_request_from_json(Json::object(), path).value().memory_budget_bytes.has_value());   // absent: the GPU's memory

  const Graph g = load_model("alexnet").value();
  const Cluster c = load_cluster("lecture:2x4").value();
  SimulateRequest s;
  s.strategy = load_strategy("expert", g, c).value();
  s.zero_stage = 1;
  s.remat = true;
  s.optimizer = Optimizer::sgd;
  s.cost.mode = CostMode::fine;
  s.cost.jitter_seed = 7;
  auto s2 = simulate_request_from_json(request_to_json(s, g), g, c, path);
  REQUIRE(s2.ok());
  CHECK(request_to_json(s2.value(), g) == request_to_json(s, g));

  // The worker's simulate (a strategy by name, --zero, --remat, --calibrated) prints what the CLI prints.
  auto cli = cli::run_command({"simulate", "--model", "alexnet", "--cluster", "lecture:2x4", "--strategy", "expert", "--zero", "2", "--remat",
                               "--calibrated", "--json"});
  REQUIRE(cli.ok());
  auto op = start_operation("simulate", Json{{"model", "alexnet"}, {"cluster", "lecture:2x4"}},
                            Json{{"strategy", "expert"}, {"zero", 2}, {"remat", true}, {"calibrated", true}});
  REQUIRE(op.ok());
  while (!op.value()->step(StepBudget::time(1e9))) {}
  REQUIRE(op.value()->result().ok());
  CHECK(op.value()->result().value() == cli.value().json);
}
