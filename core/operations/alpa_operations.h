// The Alpa half's short operations (INTERFACES.md): reshard (one resharding, or the table of
// all) and intra (the intra-op plan on one mesh, or on every mesh shape), each a function over
// in-memory inputs returning a typed report that renders to the CLI's JSON and text. The
// inter-op pass is a job: inter_operation.h.
#pragma once
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

// `intra`: the plan on one mesh.
struct IntraReport {
  IntraOpPlan plan;
  Json json;                              // intra_plan_json (the graph's names are needed to write it)
  std::string text;
  Json to_json() const { return json; }
  std::string to_text() const { return text; }
};
Result<IntraReport> intra_operation(const Graph& graph, const DeviceMesh& mesh, const IntraOpOptions& options);

// The intra-op problem as the page and its worker set it up: the logical mesh "RxC" priced by
// the cluster's links (as `intra --cluster C --mesh RxC`, the GPU's memory as the budget and its
// peak pricing recomputation), or by `alpa_costs` "a0,a1|b0,b1" (as --alpha/--beta); errors
// name `path`.
struct IntraSetup {
  DeviceMesh mesh;
  IntraOpOptions options;
};
Result<IntraSetup> intra_setup(const Cluster& cluster, const std::string& mesh, const std::string& alpa_costs, const std::string& solver,
                               bool reduce_scatter, bool remat, const std::string& path = "mesh");

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
