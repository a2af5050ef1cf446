// The operations' typed requests. See operation_requests.h.
#include "operation_requests.h"

#include "strategy_argument.h"

namespace autopar {
namespace {

// Reads j[name], when present, with `read(value, path)` into `out`; errors name the field as
// the front end does.
template <class T, class Read>
Status read_field(const Json& j, const char* name, const FieldPath& path, T& out, Read read) {
  if (!j.contains(name)) return Ok{};
  auto v = read(j[name], path(name));
  if (!v.ok()) return v.error();
  out = static_cast<T>(v.value());
  return Ok{};
}

// A request must be a JSON object (or null: every field at its default).
Status check_object(const Json& j, const FieldPath& path) {
  if (j.is_null() || j.is_object()) return Ok{};
  const std::string p = path("");
  const std::string where = p.empty() || p.back() != '.' ? p : p.substr(0, p.size() - 1);
  return make_error(ErrorCode::wrong_type, (where.empty() ? std::string("the request") : where) + " must be an object", where);
}

const Json& object_or_empty(const Json& j) {
  static const Json empty = Json::object();
  return j.is_object() ? j : empty;
}

auto read_whole = [](const Json& v, const std::string& p) { return whole_from_json(v, p); };
auto read_number = [](const Json& v, const std::string& p) { return number_from_json(v, p); };
auto read_bool = [](const Json& v, const std::string& p) { return bool_from_json(v, p); };

auto read_optimizer = [](const Json& v, const std::string& p) -> Result<Optimizer> {
  auto s = string_from_json(v, p, "adam or sgd");
  if (!s.ok()) return s.error();
  return optimizer_from_text(s.value(), p);
};

// The seed as a whole number in kSeedBound (the seed fields of every request).
Status check_seed(uint64_t seed, const FieldPath& path) {
  return check_bound(seed > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(seed), kSeedBound, path("seed"));
}

}  // namespace

// ---- search ----

Result<SearchRequest> search_request_from_json(const Json& j, const FieldPath& path) {
  if (auto st = check_object(j, path); !st.ok()) return st.error();
  const Json& o = object_or_empty(j);
  SearchRequest r;
  int64_t seed = int64_t(r.seed), moves = r.memory_moves;
  Status st = read_field(o, "beta", path, r.beta, read_number);
  if (st.ok()) st = read_field(o, "steps", path, r.steps, read_whole);
  if (st.ok()) st = read_field(o, "budget_ms", path, r.budget_ms, read_number);
  if (st.ok()) st = read_field(o, "seed", path, seed, read_whole);
  if (st.ok()) st = read_field(o, "init", path, r.init, [](const Json& v, const std::string& p) {
    return string_from_json(v, p, "dp, expert, mp, random, random:SEED or a strategy file");
  });
  if (st.ok()) st = read_field(o, "full_sim", path, r.full_sim, read_bool);
  if (st.ok()) st = read_field(o, "optimizer", path, r.optimizer, read_optimizer);
  if (st.ok()) st = read_field(o, "memory_moves", path, moves, read_whole);
  if (!st.ok()) return st.error();
  // Checked before narrowing: a negative seed must not become a huge unsigned one, nor a huge
  // memory_moves wrap into range.
  auto checked_seed = seed_from_whole(seed, path("seed"));
  if (!checked_seed.ok()) return checked_seed.error();
  if (auto b = check_bound(moves, kMemoryMovesBound, path("memory_moves")); !b.ok()) return b.error();
  r.seed = checked_seed.value();
  r.memory_moves = int(moves);
  if (auto v = validate(r, path); !v.ok()) return v.error();
  return r;
}

Json request_to_json(const SearchRequest& r) {
  return Json{{"beta", r.beta},         {"steps", r.steps},       {"budget_ms", r.budget_ms},
              {"seed", r.seed},         {"init", r.init},         {"full_sim", r.full_sim},
              {"optimizer", optimizer_word(r.optimizer)},        {"memory_moves", r.memory_moves}};
}

Status validate(const SearchRequest& r, const FieldPath& path) {
  if (auto st = check_bound(r.beta, kBetaBound, path("beta")); !st.ok()) return st;
  if (auto st = check_bound(r.steps, kSearchStepsBound, path("steps")); !st.ok()) return st;
  if (auto st = check_bound(r.budget_ms, kBudgetMsBound, path("budget_ms")); !st.ok()) return st;
  if (auto st = check_seed(r.seed, path); !st.ok()) return st;
  const std::string& init = r.init;
  const auto strategy_seed = init.rfind("random:", 0) == 0 ? whole_from_text(init.substr(7), "") : Result<int64_t>(int64_t(-1));
  const bool random_seeded = strategy_seed.ok() && strategy_seed.value() >= 0;
  const bool file = init.size() > 5 && init.compare(init.size() - 5, 5, ".json") == 0;
  if (init != "dp" && init != "expert" && init != "mp" && init != "random" && !random_seeded && !file)
    return make_error(ErrorCode::bad_value,
                      path("init") + " is '" + init + "'; use dp, expert, mp, random (seeded with the search's seed), random:SEED or a strategy file",
                      path("init"));
  if (auto st = check_bound(int64_t(r.memory_moves), kMemoryMovesBound, path("memory_moves")); !st.ok()) return st;
  return Ok{};
}

// ---- inter ----

Result<InterRequest> inter_request_from_json(const Json& j, const FieldPath& path) {
  if (auto st = check_object(j, path); !st.ok()) return st.error();
  const Json& o = object_or_empty(j);
  InterRequest r;
  bool ignore_boundaries = !r.boundaries;
  int64_t microbatches = r.microbatches, zero = r.options.zero_stage;
  Status st = read_field(o, "microbatches", path, microbatches, read_whole);
  if (st.ok()) st = read_field(o, "ignore_boundaries", path, ignore_boundaries, read_bool);
  if (st.ok()) st = read_field(o, "zero", path, zero, read_whole);
  if (st.ok()) st = read_field(o, "optimizer", path, r.options.optimizer, read_optimizer);
  if (!st.ok()) return st.error();
  // Checked before narrowing to int.
  if (auto b = check_bound(microbatches, kMicrobatchesBound, path("microbatches")); !b.ok()) return b.error();
  if (o.contains("zero"))
    if (auto b = check_bound(zero, kZeroStageBound, path("zero")); !b.ok()) return b.error();
  r.boundaries = !ignore_boundaries;
  r.microbatches = int(microbatches);
  r.options.zero_stage = int(zero);
  // A given plan to price (`inter --plan`), as its text "t=8,p=8,d=16[,mbs=2][,v=2]".
  if (o.contains("plan")) {
    auto text = string_from_json(o["plan"], path("plan"), "a plan text such as \"t=8,p=8,d=16\"");
    if (!text.ok()) return text.error();
    auto plan = parse_given_plan(text.value(), path("plan"));
    if (!plan.ok()) return plan.error();
    r.plan = plan.value();
  }
  // The pipeline schedule (`inter --schedule`): a name or "auto".
  if (o.contains("schedule")) {
    auto text = string_from_json(o["schedule"], path("schedule"), "a schedule name such as \"zb-h1\", or \"auto\"");
    if (!text.ok()) return text.error();
    r.schedule = text.value();
  }
  // The space searched (`inter --space`).
  if (o.contains("space")) {
    auto text = string_from_json(o["space"], path("space"), "\"alpa\" or \"today\"");
    if (!text.ok()) return text.error();
    r.space = text.value();
  }
  if (auto v = validate(r, path); !v.ok()) return v.error();
  return r;
}

Json request_to_json(const InterRequest& r) {
  Json j{{"microbatches", r.microbatches}, {"ignore_boundaries", !r.boundaries}, {"optimizer", optimizer_word(r.options.optimizer)}};
  if (r.options.zero_stage >= 0) j["zero"] = r.options.zero_stage;
  if (r.plan) j["plan"] = r.plan->text();
  if (!r.schedule.empty()) j["schedule"] = r.schedule;
  if (r.space != InterRequest{}.space) j["space"] = r.space;
  return j;
}

Status validate(const InterRequest& r, const FieldPath& path) {
  if (auto st = check_bound(int64_t(r.microbatches), kMicrobatchesBound, path("microbatches")); !st.ok()) return st;
  // -1: each stage's ZeRO stage is chosen by the planner (the field left out).
  if (r.options.zero_stage != -1)
    if (auto st = check_bound(int64_t(r.options.zero_stage), kZeroStageBound, path("zero")); !st.ok()) return st;
  if (!r.schedule.empty() && r.schedule != "auto") {
    auto kind = parse_schedule_kind(r.schedule, path("schedule"));
    if (!kind.ok()) return make_error(kind.error().code, kind.error().message + ", or auto (the fastest that fits)", path("schedule"));
  }
  if (!r.schedule.empty() && r.plan && r.plan->schedule)
    return make_error(ErrorCode::bad_argument, "the plan names its schedule already; give the schedule once: in the plan (schedule=) or on its own, not both", path("schedule"));
  if (r.space != "alpa" && r.space != "today")
    return make_error(ErrorCode::bad_value, path("space") + " is '" + r.space + "'; use alpa (Alpa's choices) or today (also sequence, context and expert parallelism and the micro-batch size)", path("space"));
  if (r.space == "today" && r.plan)
    return make_error(ErrorCode::bad_argument, path("space") + " today searches a model's plan; leave out the plan", path("space"));
  return Ok{};
}

// ---- accuracy ----

Result<AccuracyRequest> accuracy_request_from_json(const Json& j, const FieldPath& path) {
  if (auto st = check_object(j, path); !st.ok()) return st.error();
  const Json& o = object_or_empty(j);
  AccuracyRequest r;
  int64_t samples = r.samples, seed = int64_t(r.seed);
  std::string simulator = "ideal";
  Status st = read_field(o, "samples", path, samples, read_whole);
  if (st.ok()) st = read_field(o, "seed", path, seed, read_whole);
  if (st.ok()) st = read_field(o, "simulator", path, simulator, [](const Json& v, const std::string& p) {
    return string_from_json(v, p, "ideal or calibrated");
  });
  if (!st.ok()) return st.error();
  if (simulator != "ideal" && simulator != "calibrated")
    return make_error(ErrorCode::bad_value, path("simulator") + " is '" + simulator + "'; use ideal or calibrated", path("simulator"));
  if (auto b = check_bound(samples, kAccuracySamplesBound, path("samples")); !b.ok()) return b.error();
  auto checked_seed = seed_from_whole(seed, path("seed"));
  if (!checked_seed.ok()) return checked_seed.error();
  r.samples = int(samples);
  r.seed = checked_seed.value();
  r.simulator = simulator == "calibrated" ? CostMode::calibrated : CostMode::ideal;
  return r;
}

Json request_to_json(const AccuracyRequest& r) {
  return Json{{"samples", r.samples}, {"seed", r.seed}, {"simulator", r.simulator == CostMode::calibrated ? "calibrated" : "ideal"}};
}

Status validate(const AccuracyRequest& r, const FieldPath& path) {
  if (auto st = check_bound(int64_t(r.samples), kAccuracySamplesBound, path("samples")); !st.ok()) return st;
  return check_seed(r.seed, path);
}

// ---- compare ----

Result<CompareRequest> compare_request_from_json(const Json& j, const FieldPath& path) {
  if (auto st = check_object(j, path); !st.ok()) return st.error();
  const Json& o = object_or_empty(j);
  CompareRequest r;
  int64_t seed = int64_t(r.seed), microbatches = r.microbatches;
  Status st = read_field(o, "title", path, r.title, [](const Json& v, const std::string& p) { return string_from_json(v, p, "a string"); });
  if (st.ok()) st = read_field(o, "seed", path, seed, read_whole);
  if (st.ok()) st = read_field(o, "steps", path, r.steps, read_whole);
  if (st.ok()) st = read_field(o, "microbatches", path, microbatches, read_whole);
  if (!st.ok()) return st.error();
  auto checked_seed = seed_from_whole(seed, path("seed"));
  if (!checked_seed.ok()) return checked_seed.error();
  // 0 in JSON is the default, like leaving the field out (an older page sent it).
  if (microbatches != 0)
    if (auto b = check_bound(microbatches, kMicrobatchesBound, path("microbatches")); !b.ok()) return b.error();
  r.seed = checked_seed.value();
  r.microbatches = int(microbatches);
  // The page's inter-op plan, simulated as given (Compare and the inter-op tab show one plan).
  if (o.contains("inter_plan")) {
    auto plan = inter_plan_from_json(o["inter_plan"]);
    if (!plan.ok()) {
      Error e = plan.error();
      e.path = path("inter_plan") + "." + e.path;
      e.message = path("inter_plan") + ": " + e.message;
      return e;
    }
    r.inter_plan = std::move(plan.value());
  }
  if (auto v = validate(r, path); !v.ok()) return v.error();
  return r;
}

Json request_to_json(const CompareRequest& r) {
  Json j{{"title", r.title}, {"seed", r.seed}, {"steps", r.steps}};
  if (r.microbatches != 0) j["microbatches"] = r.microbatches;
  if (r.inter_plan) j["inter_plan"] = inter_plan_to_json(*r.inter_plan);
  return j;
}

Status validate(const CompareRequest& r, const FieldPath& path) {
  if (auto st = check_seed(r.seed, path); !st.ok()) return st;
  if (auto st = check_bound(r.steps, kSearchStepsBound, path("steps")); !st.ok()) return st;
  if (r.microbatches != 0)
    if (auto st = check_bound(int64_t(r.microbatches), kMicrobatchesBound, path("microbatches")); !st.ok()) return st;
  return Ok{};
}

// ---- memory ----

Result<MemoryOptions> memory_request_from_json(const Json& j, const FieldPath& path) {
  if (auto st = check_object(j, path); !st.ok()) return st.error();
  const Json& o = object_or_empty(j);
  MemoryOptions r;
  int64_t dp = r.data_parallel, tp = r.tensor_parallel, zero = r.zero_stage;
  Status st = read_field(o, "dp", path, dp, read_whole);
  if (st.ok()) st = read_field(o, "tp", path, tp, read_whole);
  if (st.ok()) st = read_field(o, "zero", path, zero, read_whole);
  if (st.ok()) st = read_field(o, "optimizer", path, r.optimizer, read_optimizer);
  if (st.ok()) st = read_field(o, "remat", path, r.remat, read_bool);
  if (st.ok()) st = read_field(o, "precision", path, r.precision, [](const Json& v, const std::string& p) -> Result<Precision> {
    auto s = string_from_json(v, p, "fp32, tf32, bf16, fp16, fp8 or mixed");
    if (!s.ok()) return s.error();
    return precision_from_text(s.value(), p);
  });
  if (!st.ok()) return st.error();
  // Checked as read: a huge value must not wrap when narrowed to int.
  for (auto [x, name] : {std::pair<int64_t, const char*>{dp, "dp"}, {tp, "tp"}})
    if (auto b = check_bound(x, WholeBound{1, 1 << 24}, path(name)); !b.ok()) return b.error();
  if (auto b = check_bound(zero, kZeroStageBound, path("zero")); !b.ok()) return b.error();
  r.data_parallel = int(dp);
  r.tensor_parallel = int(tp);
  r.zero_stage = int(zero);
  return r;
}

Json request_to_json(const MemoryOptions& r) {
  return Json{{"dp", r.data_parallel}, {"tp", r.tensor_parallel}, {"zero", r.zero_stage}, {"optimizer", optimizer_word(r.optimizer)},
              {"precision", precision_name(r.precision)}, {"remat", r.remat}};
}

Status validate(const MemoryOptions& r, const FieldPath& path) {
  if (auto st = check_bound(int64_t(r.data_parallel), WholeBound{1, 1 << 24}, path("dp")); !st.ok()) return st;
  if (auto st = check_bound(int64_t(r.tensor_parallel), WholeBound{1, 1 << 24}, path("tp")); !st.ok()) return st;
  return check_bound(int64_t(r.zero_stage), kZeroStageBound, path("zero"));
}

// ---- export ----

Result<ExportRequest> export_request_from_json(const Json& j, const FieldPath& path) {
  if (auto st = check_object(j, path); !st.ok()) return st.error();
  const Json& o = object_or_empty(j);
  ExportRequest r;
  int64_t seed = int64_t(r.seed);
  auto read_string = [](const Json& v, const std::string& p) { return string_from_json(v, p, "a string"); };
  Status st = read_field(o, "format", path, r.format, read_string);
  if (st.ok()) st = read_field(o, "seed", path, seed, read_whole);
  if (st.ok()) st = read_field(o, "title", path, r.title, read_string);
  if (st.ok()) st = read_field(o, "device_type", path, r.device_type, read_string);
  std::string plan;
  if (st.ok()) st = read_field(o, "plan", path, plan, read_string);
  if (!st.ok()) return st.error();
  if (!plan.empty()) {
    auto given = parse_given_plan(plan, path("plan"));
    if (!given.ok()) return given.error();
    r.plan = given.value();
  }
  auto checked_seed = seed_from_whole(seed, path("seed"));
  if (!checked_seed.ok()) return checked_seed.error();
  r.seed = checked_seed.value();
  if (auto v = validate(r, path); !v.ok()) return v.error();
  return r;
}

Json request_to_json(const ExportRequest& r) {
  Json j{{"format", r.format}, {"seed", r.seed}, {"title", r.title}, {"device_type", r.device_type}};
  if (r.plan) j["plan"] = r.plan->text();
  return j;
}

Status validate(const ExportRequest& r, const FieldPath& path) {
  if (auto st = check_export_format(r.format); !st.ok()) {
    Error e = st.error();
    e.path = path("format");
    return e;
  }
  // Only the DTensor export builds a device mesh; elsewhere the field would be silently ignored.
  if (r.device_type != "cuda" && r.format != "dtensor")
    return make_error(ErrorCode::bad_argument, path("device_type") + " applies to the dtensor format (init_device_mesh's device type)", path("device_type"));
  if (r.plan)
    if (auto st = check_plan_format(r.format, path("plan")); !st.ok()) return st.error();
  return check_seed(r.seed, path);
}

// ---- intra ----

Status check_force_batch_axis(const std::string& typed, bool ok, const FieldPath& path) {
  if (ok) return Ok{};
  return make_error(ErrorCode::bad_value,
                    path("force_batch_axis") + " must be 0 or 1 (the mesh axis every activation's batch is split along), not '" + typed + "'",
                    path("force_batch_axis"));
}

Result<IntraRequest> intra_request_from_json(const Json& j, const FieldPath& path) {
  if (auto st = check_object(j, path); !st.ok()) return st.error();
  const Json& o = object_or_empty(j);
  IntraRequest r;
  int64_t zero = r.zero_stage, axis = r.force_batch_axis;
  double budget = 0;
  auto read_string = [](const Json& v, const std::string& p) { return string_from_json(v, p, "a string"); };
  Status st = read_field(o, "mesh", path, r.mesh, read_string);
  if (st.ok()) st = read_field(o, "solver", path, r.solver, read_string);
  if (st.ok()) st = read_field(o, "reduce_scatter", path, r.reduce_scatter, read_bool);
  if (st.ok()) st = read_field(o, "remat", path, r.remat, read_bool);
  if (st.ok()) st = read_field(o, "alpa_costs", path, r.alpa_costs, read_string);
  if (st.ok()) st = read_field(o, "zero", path, zero, read_whole);
  if (st.ok()) st = read_field(o, "optimizer", path, r.optimizer, read_optimizer);
  if (st.ok()) st = read_field(o, "memory_budget_bytes", path, budget, read_number);
  if (st.ok()) st = read_field(o, "force_batch_axis", path, axis, read_whole);
  if (st.ok()) st = read_field(o, "force_data_parallel", path, r.force_data_parallel, read_bool);
  if (!st.ok()) return st.error();
  // Checked before narrowing to int.
  if (o.contains("zero"))
    if (auto b = check_bound(zero, kZeroStageBound, path("zero")); !b.ok()) return b.error();
  if (auto b = check_force_batch_axis(std::to_string(axis), axis >= -1 && axis <= 1, path); !b.ok()) return b.error();
  r.zero_stage = int(zero);
  r.force_batch_axis = int(axis);
  if (o.contains("memory_budget_bytes")) r.memory_budget_bytes = budget;
  if (auto v = validate(r, path); !v.ok()) return v.error();
  return r;
}

Json request_to_json(const IntraRequest& r) {
  Json j{{"mesh", r.mesh},         {"solver", r.solver},  {"reduce_scatter", r.reduce_scatter}, {"remat", r.remat},
         {"alpa_costs", r.alpa_costs}, {"optimizer", optimizer_word(r.optimizer)}, {"force_batch_axis", r.force_batch_axis},
         {"force_data_parallel", r.force_data_parallel}};
  if (r.zero_stage >= 0) j["zero"] = r.zero_stage;
  if (r.memory_budget_bytes) j["memory_budget_bytes"] = *r.memory_budget_bytes;
  return j;
}

Status validate(const IntraRequest& r, const FieldPath& path) {
  if (r.solver != "auto" && r.solver != "ilp" && r.solver != "dp" && r.solver != "exhaustive")
    return make_error(ErrorCode::bad_value, path("solver") + " must be auto, ilp, dp or exhaustive, not '" + r.solver + "'", path("solver"));
  // -1: the planner chooses (the field left out).
  if (r.zero_stage != -1)
    if (auto st = check_bound(int64_t(r.zero_stage), kZeroStageBound, path("zero")); !st.ok()) return st;
  if (r.memory_budget_bytes && !(*r.memory_budget_bytes > 0 && *r.memory_budget_bytes <= 1e18))
    return make_error(ErrorCode::bad_value, path("memory_budget_bytes") + " needs a positive number of bytes per device", path("memory_budget_bytes"));
  // Alpa's force_batch_dim_to_mesh_dim and force_data_parallel (its AutoShardingOption).
  if (auto st = check_force_batch_axis(std::to_string(r.force_batch_axis), r.force_batch_axis >= -1 && r.force_batch_axis <= 1, path); !st.ok())
    return st;
  if (r.force_data_parallel && r.force_batch_axis != -1)
    return make_error(ErrorCode::bad_argument,
                      path("force_data_parallel") + " already pins the batch to axis 0 of the flattened mesh; give one of the two", path("force_batch_axis"));
  return Ok{};
}

// ---- simulate ----

Status check_cost_model_choice(bool calibrated, bool fine, const FieldPath& path) {
  if (!calibrated || !fine) return Ok{};
  return make_error(ErrorCode::bad_argument,
                    path("calibrated") + " and " + path("fine") +
                        " SEED choose different cost models (the calibrated simulator, the finer execution model); give one",
                    path("calibrated"));
}

Result<SimulateRequest> simulate_request_from_json(const Json& j, const Graph& graph, const Cluster& cluster, const FieldPath& path) {
  if (auto st = check_object(j, path); !st.ok()) return st.error();
  const Json& o = object_or_empty(j);
  SimulateRequest r;
  int64_t zero = r.zero_stage, fine_seed = 0;
  bool calibrated = false;
  Status st = read_field(o, "zero", path, zero, read_whole);
  if (st.ok()) st = read_field(o, "remat", path, r.remat, read_bool);
  if (st.ok()) st = read_field(o, "optimizer", path, r.optimizer, read_optimizer);
  if (st.ok()) st = read_field(o, "calibrated", path, calibrated, read_bool);
  if (st.ok()) st = read_field(o, "fine", path, fine_seed, read_whole);
  if (st.ok()) st = read_field(o, "trace", path, r.trace, read_bool);
  if (st.ok()) st = read_field(o, "task_graph", path, r.task_graph, read_bool);
  if (!st.ok()) return st.error();
  if (auto c = check_cost_model_choice(calibrated, o.contains("fine"), path); !c.ok()) return c.error();
  if (o.contains("zero"))
    if (auto b = check_bound(zero, kZeroStageBound, path("zero")); !b.ok()) return b.error();
  r.zero_stage = int(zero);
  if (calibrated) r.cost.mode = CostMode::calibrated;
  if (o.contains("fine")) {
    auto seed = seed_from_whole(fine_seed, path("fine"));
    if (!seed.ok()) return seed.error();
    r.cost.mode = CostMode::fine;
    r.cost.jitter_seed = seed.value();
  }
  // The strategy: a name (as --strategy) or its JSON; data parallel when absent.
  const Json strategy = o.contains("strategy") ? o["strategy"] : Json("dp");
  if (strategy.is_object()) {
    auto s = strategy_from_json(strategy, graph, cluster.num_devices());
    if (!s.ok()) {
      Error e = s.error();
      e.path = e.path.empty() ? path("strategy") : path("strategy") + "." + e.path;
      return e;
    }
    r.strategy = s.value();
  } else {
    auto text = string_from_json(strategy, path("strategy"), "dp, expert, mp, random:SEED or the strategy's JSON");
    if (!text.ok()) return text.error();
    auto s = load_strategy(text.value(), graph, cluster, path("strategy"));
    if (!s.ok()) return s.error();
    r.strategy = s.value();
    r.expert = text.value() == "expert";
  }
  if (auto v = validate(r, path); !v.ok()) return v.error();
  return r;
}

Json request_to_json(const SimulateRequest& r, const Graph& graph) {
  Json j{{"strategy", strategy_to_json(graph, r.strategy)}, {"remat", r.remat},         {"optimizer", optimizer_word(r.optimizer)},
         {"calibrated", r.cost.mode == CostMode::calibrated}, {"trace", r.trace}, {"task_graph", r.task_graph}};
  if (r.zero_stage >= 0) j["zero"] = r.zero_stage;
  if (r.cost.mode == CostMode::fine) j["fine"] = r.cost.jitter_seed;
  return j;
}

Status validate(const SimulateRequest& r, const FieldPath& path) {
  if (r.zero_stage != -1)
    if (auto st = check_bound(int64_t(r.zero_stage), kZeroStageBound, path("zero")); !st.ok()) return st;
  if (r.cost.mode == CostMode::fine)
    if (auto st = check_bound(r.cost.jitter_seed > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(r.cost.jitter_seed), kSeedBound, path("fine")); !st.ok())
      return st;
  return Ok{};
}

}  // namespace autopar
