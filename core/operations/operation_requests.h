// The typed requests of the operations the CLI, the worker and the page all start (search,
// inter, accuracy, compare, memory, export, intra, simulate): for each, reading it from JSON, writing it back,
// and validate, the one place its bounds are checked. The CLI maps its words onto a request and
// calls validate with cli_field_path(); the worker reads it with *_request_from_json and
// json_field_path("request"); the page fills it from its settings and validates it with its
// own names. So the same bad value is refused with the same code and message in all three
// (only the field's name differs, request_fields.h). Requests are filled over their defaults:
// a field missing from the JSON keeps its default.
#pragma once
#include "accuracy_operation.h"
#include "alpa_operations.h"
#include "compare.h"
#include "export_operation.h"
#include "flexflow_operations.h"
#include "inter_operation.h"
#include "json_io.h"
#include "memory_model.h"
#include "request_fields.h"
#include "result.h"
#include "search_operation.h"

namespace autopar {

// `search`: {beta, steps, budget_ms, seed, init, full_sim, optimizer, memory_moves}.
Result<SearchRequest> search_request_from_json(const Json& j, const FieldPath& path);
Json request_to_json(const SearchRequest& r);
// Bounds: beta (kBetaBound), steps, budget_ms, seed, init (dp, expert, mp, random, random:N or
// a strategy file), memory_moves (-1, 0 or 1).
Status validate(const SearchRequest& r, const FieldPath& path);

// `inter`: {microbatches, ignore_boundaries, plan (its text), zero, optimizer, schedule, space
// ("alpa" or "today"; written only when not alpa, so older requests read the same)}.
Result<InterRequest> inter_request_from_json(const Json& j, const FieldPath& path);
Json request_to_json(const InterRequest& r);
// Bounds: microbatches (kMicrobatchesBound), zero (kZeroStageBound), schedule (a name or auto),
// space (alpa or today; today not with a plan).
Status validate(const InterRequest& r, const FieldPath& path);

// `accuracy`: {samples, seed, simulator: "ideal" | "calibrated"}.
Result<AccuracyRequest> accuracy_request_from_json(const Json& j, const FieldPath& path);
Json request_to_json(const AccuracyRequest& r);
// Bounds: samples (kAccuracySamplesBound), seed.
Status validate(const AccuracyRequest& r, const FieldPath& path);

// `compare` (its graph and cluster come from the inputs, not the request): {title, seed, steps,
// microbatches (absent or 0: the default, default_compare_microbatches), inter_plan (optional:
// Alpa's pipeline plan as inter_plan_to_json writes it, simulated as given)}.
Result<CompareRequest> compare_request_from_json(const Json& j, const FieldPath& path);
Json request_to_json(const CompareRequest& r);
// Bounds: seed, steps (kSearchStepsBound), microbatches (0 or kMicrobatchesBound).
Status validate(const CompareRequest& r, const FieldPath& path);

// `memory` (the parallel degrees follow from the mesh, checked against the cluster by the
// command): {dp, tp, zero, optimizer, precision, remat}.
Result<MemoryOptions> memory_request_from_json(const Json& j, const FieldPath& path);
Json request_to_json(const MemoryOptions& r);
// Bounds: dp and tp at least 1, zero (kZeroStageBound).
Status validate(const MemoryOptions& r, const FieldPath& path);

// `export` (a given strategy comes from the inputs, not the request): {format, seed, title,
// device_type}.
Result<ExportRequest> export_request_from_json(const Json& j, const FieldPath& path);
Json request_to_json(const ExportRequest& r);
// Checks: format (check_export_format), seed, device_type only with dtensor.
Status validate(const ExportRequest& r, const FieldPath& path);

// `intra` (the model and cluster come from the inputs; the CLI's --alpha a0,a1 --beta b0,b1 are
// alpa_costs "a0,a1|b0,b1"): {mesh, solver, reduce_scatter, remat, alpa_costs, zero, optimizer,
// memory_budget_bytes, force_batch_axis, force_data_parallel}.
Result<IntraRequest> intra_request_from_json(const Json& j, const FieldPath& path);
Json request_to_json(const IntraRequest& r);
// Checks: solver (auto, ilp, dp, exhaustive), zero (-1 or kZeroStageBound), memory_budget_bytes
// (positive, at most 1e18), force_batch_axis (-1, 0, 1), force_data_parallel not with
// force_batch_axis.
Status validate(const IntraRequest& r, const FieldPath& path);

// The force_batch_axis refusal for a value typed as `typed` when !ok (the CLI takes only 0 or 1;
// -1, the default, is Alpa's own choice).
Status check_force_batch_axis(const std::string& typed, bool ok, const FieldPath& path);

// `simulate` (the strategy is resolved against the inputs' model and cluster): {strategy: "dp",
// "expert", "mp", "random:SEED" or the strategy's JSON (strategy_to_json), zero, remat,
// optimizer, calibrated, fine (the finer execution model's jitter seed), trace, task_graph}.
Result<SimulateRequest> simulate_request_from_json(const Json& j, const Graph& graph, const Cluster& cluster, const FieldPath& path);
Json request_to_json(const SimulateRequest& r, const Graph& graph);
// Checks: zero (-1 or kZeroStageBound), the fine model's seed (kSeedBound).
Status validate(const SimulateRequest& r, const FieldPath& path);
// The calibrated simulator and the finer execution model are two cost models: both asked for
// is bad_argument, named by `path` ("calibrated", "fine").
Status check_cost_model_choice(bool calibrated, bool fine, const FieldPath& path);

}  // namespace autopar
