// Exports for engines and traces. See export_operation.h.
#include "export_operation.h"

#include "device_mesh.h"
#include "dtensor_export.h"
#include "engine_export.h"
#include "inter_op.h"
#include "intra_op.h"
#include "job.h"
#include "mcmc.h"
#include "memory_model.h"
#include "given_plan_export.h"
#include "simulator.h"
#include "soap.h"
#include "trace_export.h"

namespace autopar {

int default_microbatches(const Graph& g, int replicas) {
  for (int b = 32; b >= 1; --b) {
    bool ok = true;
    for (const Tensor& t : g.spec.inputs) ok &= t.shape[0] % (int64_t(b) * replicas) == 0;
    if (ok) return b;
  }
  return 0;
}

Status check_export_format(const std::string& f) {
  if (f == "perfetto" || f == "dtensor" || f == "jax" || f == "megatron" || f == "torchtitan") return Ok{};
  return make_error(ErrorCode::bad_value, "--format must be perfetto, dtensor, jax, megatron or torchtitan", "--format");
}

Status check_plan_format(const std::string& format, const std::string& path) {
  if (format == "megatron" || format == "torchtitan") return Ok{};
  return make_error(ErrorCode::bad_argument, path + " applies to the megatron and torchtitan formats (the engines that take t, p, d and the memory knobs); " + format +
                                        " exports " + (format == "perfetto" ? "a FlexFlow strategy" : "Alpa's intra-op plan"),
                    path);
}

Json ExportReport::to_json() const { return format == "perfetto" ? trace : Json{{"format", format}, {"text", text}}; }

std::string ExportReport::to_text() const { return text; }

namespace {

// A given plan for Megatron-LM or torchtitan: priced as `inter --plan` prices it (so a plan that
// does not fit or split is refused with its reason), then written with every knob.
Result<ExportReport> export_given_plan(const Graph& graph, const Cluster& cluster, const ExportRequest& request) {
  const GivenPlan& plan = *request.plan;
  if (auto st = check_plan_format(request.format, "--plan"); !st.ok()) return st.error();
  InterRequest inter;
  inter.plan = plan;
  const int64_t batch = model_batch(graph);
  if (plan.micro_batch_size > 0) {
    auto b = given_plan_microbatches(plan, batch);
    if (!b.ok()) return b.error();
    inter.microbatches = b.value();
  } else {
    // Without mbs=: the most micro-batches (at most 32, as `inter`'s default) whose each replica's
    // share is whole.
    inter.microbatches = default_microbatches(graph, plan.data);
    if (inter.microbatches == 0)
      return make_error(ErrorCode::bad_value, "the model's batch of " + std::to_string(batch) + " does not split over d = " + std::to_string(plan.data) +
                                         " data-parallel replicas; give the model a batch that is a multiple of d (e.g. :batch=" +
                                         std::to_string(int64_t(plan.data) * 8) + ")", "--plan");
  }
  InterJob job(graph, cluster, inter);
  const Result<InterReport>& priced = run_to_end(job);
  if (!priced.ok()) return priced.error();
  ExportReport r;
  r.format = request.format;
  r.text = request.format == "megatron" ? export_megatron_plan(graph, cluster, plan, priced.value(), request.title)
                                        : export_torchtitan_plan(graph, cluster, plan, priced.value(), request.title);
  return r;
}

}  // namespace

Result<ExportReport> export_operation(const Graph& graph, const Cluster& cluster, const ExportRequest& request) {
  const std::string& format = request.format;
  if (auto st = check_export_format(format); !st.ok()) return st.error();
  if (request.plan) return export_given_plan(graph, cluster, request);
  ExportReport r;
  r.format = format;
  if (format == "perfetto") {
    // The given strategy, or the search's largest (every op over every GPU), must be simulable.
    const int64_t parts = request.strategy ? strategy_parts(*request.strategy) : int64_t(graph.ops.size()) * cluster.num_devices();
    if (auto st = check_simulation_size(parts, request.strategy ? "this strategy" : "the search's largest strategy (every op over every GPU)", "--strategy");
        !st.ok())
      return st.error();
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
  if (request.strategy) return make_error(ErrorCode::bad_argument, "--strategy applies to --format perfetto; the engine formats export Alpa's plan", "--strategy");
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
