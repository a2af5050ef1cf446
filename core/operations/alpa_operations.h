// The Alpa half's short operations (INTERFACES.md): reshard (one resharding, or the table of
// all) and intra (the intra-op plan on one mesh, or on every mesh shape), each a function over
// in-memory inputs returning a typed report that renders to the CLI's JSON and text. The
// inter-op pass is a job: inter_operation.h.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cluster.h"
#include "device_mesh.h"
#include "graph.h"
#include "intra_op.h"
#include "json_io.h"
#include "sharding_spec.h"

namespace autopar {

// `reshard --from S --to S`: the collectives of one resharding.
struct ReshardReport {
  std::string from, to, mesh_shape;
  ReshardPlan plan;
  std::vector<bool> axis_crosses_nodes;   // per mesh axis
  bool unitless = false;                  // costs from --alpha/--beta (no unit)
  Json to_json() const;
  std::string to_text() const;
};
// The specs must have been validated for the shape and mesh (validate_spec).
ReshardReport reshard_operation(const ShardingSpec& from, const ShardingSpec& to, const Shape& shape, int dtype_bytes, const DeviceMesh& mesh);

// `reshard --table`: the cost of every pair of specs of a tensor.
struct ReshardTableReport {
  std::string mesh_shape;
  Shape shape;
  std::vector<std::string> specs;
  std::vector<ReshardPlan> plans;         // row-major: from specs[i] to specs[j] at i * specs + j
  bool unitless = false;
  Json to_json() const;
  std::string to_text() const;
};
ReshardTableReport reshard_table_operation(const Shape& shape, int dtype_bytes, const DeviceMesh& mesh);

// The intra-op plan of a graph as `intra --json` prints it (one mesh).
Json intra_plan_json(const Graph& g, const IntraOpPlan& plan);
// The same plan as `intra` prints it without --json.
std::string intra_plan_text(const Graph& g, const IntraOpPlan& plan);

// `intra`: the plan on one mesh (intra_operation.cpp, apart: it solves, the page only reads plans).
struct IntraReport {
  IntraOpPlan plan;
  Json json;                              // intra_plan_json (the graph's names are needed to write it)
  std::string text;
  Json to_json() const { return json; }
  std::string to_text() const { return text; }
};
Result<IntraReport> intra_operation(const Graph& graph, const DeviceMesh& mesh, const IntraOpOptions& options);

// `intra`'s request (operation_requests.h reads, writes and validates it): the logical mesh and
// the solver's options, as the CLI's words, the worker's request and the page's Alpa settings
// name them. The model and the cluster are the inputs.
struct IntraRequest {
  std::string mesh;                    // "RxC"; empty: the cluster's nodes x GPUs per node
  std::string solver = "auto";         // auto, ilp, dp or exhaustive
  bool reduce_scatter = false;         // gradient all-reduce -> reduce-scatter + all-gather (ZeRO-2)
  bool remat = false;                  // recompute activations
  std::string alpa_costs;              // "a0,a1|b0,b1": price the mesh by these (--alpha/--beta), not the cluster's links
  int zero_stage = -1;                 // 0-3: fixed; -1: chosen by the planner
  Optimizer optimizer = Optimizer::adam;
  std::optional<double> memory_budget_bytes;   // per device; absent: the GPU's memory
  int force_batch_axis = -1;           // 0 or 1: every activation's batch split along that mesh axis; -1: free
  bool force_data_parallel = false;    // the mesh flattened, the batch pinned to its axis 0
};

// The intra-op problem of a request: the logical mesh priced by the cluster's links (as `intra
// --cluster C --mesh RxC`, the GPU's memory as the budget and its peak pricing recomputation),
// or by `alpa_costs` (as --alpha/--beta); the request must be valid (validate). Errors name the
// fields with `path` (its type is request_fields.h's FieldPath).
struct IntraSetup {
  DeviceMesh mesh;
  IntraOpOptions options;
};
Result<IntraSetup> intra_setup(const Cluster& cluster, const IntraRequest& request,
                               const std::function<std::string(const std::string&)>& path);
// The solver's options of a request on `cluster` (the memory budget and recomputation's price
// come from its GPU unless alpa_costs is set): intra_setup's, for `intra --all-meshes`.
IntraOpOptions intra_options(const IntraRequest& request, const Cluster& cluster);

// The intra-op plan of one op as the page lists it: the chosen algorithm, its specs as text.
struct IntraOpChoice {
  std::string name, strategy, output_spec;
  std::vector<std::string> input_specs;
  double cost = 0;
};
// Per op of `g`, the plan's choice.
std::vector<IntraOpChoice> intra_op_choices(const Graph& g, const IntraOpPlan& plan);
// Each choice as {name, strategy, output_spec, input_specs, cost} (result()'s intra_ops).
Json to_json(const std::vector<IntraOpChoice>& choices);

// A plan as a worker sends it: intra_plan_json under "report" and what that leaves out under
// "exact" (each op's input resharding cost, the optimizer memory), so the plan reads back exactly.
Json intra_plan_message(const Graph& g, const IntraOpPlan& plan);
// Reads intra_plan_message back for `g` on `mesh`: every op's chosen strategy (placed first, the
// other candidates left as empty placeholders, so their count stays), the totals, memory,
// collectives and the solver's status, as the page shows them; errors name the JSON path.
Result<IntraOpPlan> intra_plan_from_message(const Json& j, const Graph& g, const DeviceMesh& mesh);

// `intra --all-meshes`: the plan on every mesh shape R x C of the cluster's devices.
struct IntraAllMeshesReport {
  std::vector<IntraReport> meshes;
  std::vector<std::string> heavy;         // per mesh: its heavy ops' strategies, for the table
  std::string best_mesh;
  double best_objective = 0;
  Json to_json() const;
  std::string to_text() const;
};
Result<IntraAllMeshesReport> intra_all_meshes_operation(const Graph& graph, const Cluster& cluster, const IntraOpOptions& options);

}  // namespace autopar
