// Exports for engines and traces. See export_operation.h.
#include "export_operation.h"

#include "device_mesh.h"
#include "dtensor_export.h"
#include "engine_export.h"
#include "inter_op.h"
#include "intra_op.h"
#include "mcmc.h"
#include "simulator.h"
#include "soap.h"
#include "trace_export.h"

namespace autopar {

int default_microbatches(const Graph& g) {
  for (int b = 32; b > 1; --b) {
    bool ok = true;
    for (const Tensor& t : g.spec.inputs) ok &= t.shape[0] % b == 0;
    if (ok) return b;
  }
  return 1;
}

Status check_export_format(const std::string& f) {
  if (f == "perfetto" || f == "dtensor" || f == "jax" || f == "megatron" || f == "torchtitan") return Ok{};
  return make_error("bad_value", "--format must be perfetto, dtensor, jax, megatron or torchtitan", "--format");
}

Json ExportReport::to_json() const { return format == "perfetto" ? trace : Json{{"format", format}, {"text", text}}; }

std::string ExportReport::to_text() const { return text; }

Result<ExportReport> export_operation(const Graph& graph, const Cluster& cluster, const ExportRequest& request) {
  const std::string& format = request.format;
  if (auto st = check_export_format(format); !st.ok()) return st.error();
  ExportReport r;
  r.format = format;
  if (format == "perfetto") {
    Strategy s;
    if (request.strategy) {
      s = *request.strategy;
    } else {
      // MCMC from data parallel: the FlexFlow plan when no strategy is given.
      SearchOptions o;
      o.steps = 2000;
      o.seed = request.seed;
      s = run_search(graph, cluster, data_parallel(graph, cluster.num_devices()), o, nullptr).best;
    }
    TaskGraph tg(graph, cluster, s);
    simulate_full(tg);
    r.trace = perfetto_trace(tg);
    r.text = r.trace.dump() + "\n";
    return r;
  }
  if (request.strategy) return make_error("bad_argument", "--strategy applies to --format perfetto; the engine formats export Alpa's plan", "--strategy");
  if (auto st = check_device_type(request.device_type); !st.ok()) return st.error();
  if (format == "dtensor" || format == "jax") {
    // Alpa's intra-op plan on the whole cluster as one nodes x GPUs mesh.
    auto mesh = mesh_from_cluster(cluster.nodes, cluster.gpus_per_node, cluster);
    if (!mesh.ok()) return mesh.error();
    auto intra = plan_intra_op(graph, mesh.value(), IntraOpOptions{});
    if (!intra.ok()) return intra.error();
    r.text = format == "dtensor" ? export_dtensor(graph, intra.value(), request.title, request.device_type) : export_jax(graph, intra.value(), request.title);
    return r;
  }
  // Alpa's pipeline plan: the inter-op stages, and (for Megatron-LM's tensor-parallel size) each
  // stage's intra-op plan on its own logical mesh, as compare plans them.
  const int b = default_microbatches(graph);
  auto pipe = plan_alpa_pipeline(graph, cluster, b);
  if (!pipe.ok()) return pipe.error();
  r.text = format == "megatron" ? export_megatron(graph, pipe.value(), cluster.num_devices(), request.title)
                                : export_torchtitan_schedule(int(pipe.value().inter.stages.size()), b);
  return r;
}

}  // namespace autopar
