// `intra`'s planning operations (see alpa_operations.h): the intra-op plan on one mesh and on
// every mesh shape. Apart from the rest of alpa_operations.cpp because they solve the ILP: the
// page uses that file's reading and writing of plans, and links no GLPK.
#include <sstream>

#include "alpa_operations.h"
#include "report_text.h"

namespace autopar {

Result<IntraReport> intra_operation(const Graph& graph, const DeviceMesh& mesh, const IntraOpOptions& options) {
  auto plan = plan_intra_op(graph, mesh, options);
  if (!plan.ok()) return plan.error();
  return IntraReport{plan.value(), intra_plan_json(graph, plan.value()), intra_plan_text(graph, plan.value())};
}

Result<IntraAllMeshesReport> intra_all_meshes_operation(const Graph& graph, const Cluster& cluster, const IntraOpOptions& options) {
  const int n = cluster.num_devices();
  IntraAllMeshesReport r;
  r.best_objective = 1e300;
  for (int rows = 1; rows <= n; ++rows) {
    if (n % rows) continue;
    auto mesh = mesh_from_cluster(rows, n / rows, cluster);
    if (!mesh.ok()) return mesh.error();
    auto plan = intra_operation(graph, mesh.value(), options);
    if (!plan.ok()) return plan.error();
    const IntraOpPlan& p = plan.value().plan;
    std::string heavy;
    for (size_t v = 0; v < graph.ops.size() && heavy.size() < 60; ++v) {
      const OpStrategy& s = p.strategies[v][size_t(p.solution.choice[v])];
      if (s.name.rfind("follow", 0) != 0) heavy += (heavy.empty() ? "" : ", ") + s.name;
    }
    if (p.objective < r.best_objective) {
      r.best_objective = p.objective;
      r.best_mesh = mesh.value().shape_string();
    }
    r.heavy.push_back(heavy);
    r.meshes.push_back(std::move(plan.value()));
  }
  return r;
}

Json IntraAllMeshesReport::to_json() const {
  Json list = Json::array();
  for (const auto& m : meshes) list.push_back(m.json);
  return Json{{"meshes", list}, {"best_mesh", best_mesh}, {"best_objective", best_objective}};
}

std::string IntraAllMeshesReport::to_text() const {
  std::ostringstream t;
  t << pad("mesh", 8) << pad("objective", 12, true) << pad("comm", 12, true) << pad("reshard", 12, true) << "  heavy ops\n";
  for (size_t k = 0; k < meshes.size(); ++k) {
    const IntraOpPlan& p = meshes[k].plan;
    t << pad(p.mesh.shape_string(), 8) << pad(fmt("%.4g", p.objective), 12, true) << pad(fmt("%.4g", p.communication_cost), 12, true)
      << pad(fmt("%.4g", p.resharding_cost), 12, true) << "  " << heavy[k] << "\n";
  }
  t << "best: " << best_mesh << "\n";
  return t.str();
}

}  // namespace autopar
