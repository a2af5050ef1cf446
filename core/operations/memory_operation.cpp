// Training memory per GPU. See memory_operation.h.
#include "memory_operation.h"

#include <sstream>
#include <tuple>

#include "context_expert.h"
#include "report_text.h"

namespace autopar {
namespace {
// GB with two decimals, the column the README shows; below 10 MB that reads as 0.00 GB for the
// lecture's small models, so those get their own unit (kB, MB).
std::string gb(double bytes) { return bytes >= 1e7 ? fmt("%.2f GB", bytes / 1e9) : si(bytes) + "B"; }
}  // namespace

Result<TrainingMemoryReport> memory_operation(const Graph& graph, const Cluster& cluster, const MemoryOptions& options) {
  auto r = estimate_memory(graph, cluster, options);
  if (!r.ok()) return r.error();
  return TrainingMemoryReport{graph.name(), cluster.num_devices(), options, r.value()};
}

Result<PlanMemoryReport> plan_memory_operation(const Graph& graph, const Cluster& cluster, const GivenPlan& plan, int microbatches, Optimizer optimizer) {
  InterRequest r;
  r.plan = plan;
  r.microbatches = microbatches;
  r.refuse_overflow = false;
  r.options.optimizer = optimizer;
  InterJob job(graph, cluster, r);
  const auto& priced = run_to_end(job);
  if (!priced.ok()) return priced.error();
  const InterReport& rep = priced.value();
  const StageCostTable& t = rep.table;
  PlanMemoryReport out;
  out.model = graph.name();
  out.plan = plan.text();
  out.devices = cluster.num_devices();
  out.microbatches = microbatches;
  out.capacity_bytes = cluster.gpu.memory_capacity_bytes();
  const StateBytesPerParam bp = state_bytes_per_param(training_precision(graph), optimizer, plan.distributed_optimizer);
  out.context = plan.context;
  out.expert = plan.expert;
  if (plan.context > 1)
    out.sharding.push_back("cp=" + std::to_string(plan.context) + ": each GPU holds 1/" + std::to_string(plan.context) +
                           " of every sequence (Megatron's 2*cp chunks), so activations and each layer's work split " + std::to_string(plan.context) +
                           " ways; parameters are whole on every context rank, gradients reduce over d*cp = " + std::to_string(plan.data * plan.context) + " GPUs");
  if (plan.distributed_optimizer)
    out.sharding.push_back("dist_opt=1: Megatron-LM's distributed optimizer, " + std::to_string(bp.params) + " B/param weights and " + std::to_string(bp.grads) +
                           " B/param FP32 main gradients whole, the " + std::to_string(bp.optimizer) + " B/param optimizer state sharded over d*cp = " +
                           std::to_string(plan.data * plan.context) + " GPUs (" + std::to_string(bp.params + bp.grads) + " + " + std::to_string(bp.optimizer) +
                           "/d bytes per parameter; its docs/source/api-guide/dist_optimizer.md)");
  if (plan.expert == 1 && model_experts(graph) > 0)
    out.sharding.push_back("ep=1: each GPU holds all " + std::to_string(model_experts(graph)) +
                           " experts of every MoE layer whole (expert tensor parallelism 1, context_expert.h); a zero= stage shards their states over "
                           "the stage's t*cp*d = " + std::to_string(int64_t(plan.tensor) * plan.context * plan.data) + " GPUs, Megatron-Core's expert data-parallel group");
  if (plan.expert > 1) {
    const int64_t e = model_experts(graph);
    out.sharding.push_back("ep=" + std::to_string(plan.expert) + ": each GPU holds " + std::to_string(e / plan.expert) + " of the " + std::to_string(e) +
                           " experts of every MoE layer, so their parameters, gradients and optimizer state split " + std::to_string(plan.expert) +
                           " ways (the rest of the layer is not); activations unchanged under balanced routing");
  }
  for (size_t k = 0; k < rep.plan.stages.size(); ++k) {
    const PipelineStage& st = rep.plan.stages[k];
    size_t m = 0;
    while (m + 1 < t.submeshes.size() && !(t.submeshes[m] == st.submesh)) ++m;
    const size_t idx = t.index(st.first, st.last, int(m));
    PlanStageMemory s;
    std::tie(s.first_layer, s.last_layer) = rep.stage_layers(st);
    const auto [zero, recompute] = rep.stage_memory_setting(st);
    s.zero_stage = zero;
    s.recompute = recompute_name(recompute);
    // The table keeps the states' sum; ZeRO stage z shards parameters (z >= 3), gradients
    // (z >= 2) and optimizer state (z >= 1) alike over the d replicas, so the sum splits in
    // proportion to each kind's bytes per parameter after sharding (ZeRO paper, section 5).
    const double d = double(plan.data) * plan.context;   // ZeRO shards over the data-parallel x context-parallel ranks
    const double p_share = bp.params / (zero >= 3 ? d : 1.0), g_share = bp.grads / (zero >= 2 ? d : 1.0),
                 o_share = bp.optimizer / (zero >= 1 ? d : 1.0), all = p_share + g_share + o_share;
    // DualPipe keeps both directions' copies of the states (t.state_copies, DeepSeek-V3 Table 2).
    const double states = t.state_bytes[idx] * t.state_copies;
    s.params_bytes = states * p_share / all;
    s.grads_bytes = states * g_share / all;
    s.optimizer_bytes = states * o_share / all;
    s.activation_bytes_per_microbatch = t.activation_bytes[idx];
    s.inflight_microbatches = stage_inflight_microbatches(plan.schedule, int(k), int(rep.plan.stages.size()), microbatches, plan.interleave);
    // activation_room_bytes = capacity - states - (full recomputation's one layer being recomputed)
    // - (ZeRO 3's gathered weights and unsharded gradients in flight): both counted here.
    const double recomputing = out.capacity_bytes - states - t.activation_room_bytes[idx];
    s.activation_bytes = s.inflight_microbatches * s.activation_bytes_per_microbatch + recomputing;
    s.total_bytes = states + s.activation_bytes;
    s.fits = s.total_bytes <= out.capacity_bytes * (1 + 1e-12);
    out.stages.push_back(s);
  }
  return out;
}

Json PlanMemoryReport::to_json() const {
  Json stages = Json::array();
  size_t fullest = 0;
  bool fits = true;
  for (size_t k = 0; k < this->stages.size(); ++k) {
    const PlanStageMemory& s = this->stages[k];
    if (s.total_bytes > this->stages[fullest].total_bytes) fullest = k;
    fits = fits && s.fits;
    stages.push_back(Json{{"stage", int(k + 1)},
                          {"layers", Json::array({s.first_layer, s.last_layer})},
                          {"zero_stage", s.zero_stage},
                          {"recompute", s.recompute},
                          {"params_bytes", s.params_bytes},
                          {"grads_bytes", s.grads_bytes},
                          {"optimizer_bytes", s.optimizer_bytes},
                          {"activation_bytes_per_microbatch", s.activation_bytes_per_microbatch},
                          {"inflight_microbatches", s.inflight_microbatches},
                          {"activation_bytes", s.activation_bytes},
                          {"total_bytes", s.total_bytes},
                          {"fits", s.fits}});
  }
  Json j{{"model", model}, {"plan", plan}, {"devices", devices}, {"microbatches", microbatches}, {"capacity_bytes", capacity_bytes}, {"fits", fits}, {"stages", stages},
         {"context_parallel", context}, {"expert_parallel", expert}, {"sharding", sharding}};
  if (!this->stages.empty()) {
    const PlanStageMemory& f = this->stages[fullest];
    j["fullest_stage"] = int(fullest + 1);
    j["params_bytes"] = f.params_bytes;
    j["grads_bytes"] = f.grads_bytes;
    j["optimizer_bytes"] = f.optimizer_bytes;
    j["activation_bytes"] = f.activation_bytes;
    j["total_bytes"] = f.total_bytes;
  }
  return j;
}

std::string PlanMemoryReport::to_text() const {
  std::ostringstream t;
  t << "memory per GPU: " << model << " under plan " << plan << " on " << devices << " GPUs, " << microbatches
    << " micro-batches (each stage holds its schedule's micro-batches in flight)\n";
  t << pad("stage", 7) << pad("layers", 10) << pad("states", 12, true) << pad("act/micro", 12, true) << pad("in flight", 11, true)
    << pad("activations", 13, true) << pad("total", 12, true) << "  of " << gb(capacity_bytes) << "\n";
  for (size_t k = 0; k < stages.size(); ++k) {
    const PlanStageMemory& s = stages[k];
    t << pad(std::to_string(k + 1), 7) << pad(std::to_string(s.first_layer) + "-" + std::to_string(s.last_layer), 10)
      << pad(gb(s.params_bytes + s.grads_bytes + s.optimizer_bytes), 12, true) << pad(gb(s.activation_bytes_per_microbatch), 12, true)
      << pad(fmt("%.3g", s.inflight_microbatches), 11, true) << pad(gb(s.activation_bytes), 13, true) << pad(gb(s.total_bytes), 12, true) << "  "
      << (s.fits ? "fits" : "DOES NOT FIT") << "  " << s.recompute << " recomputation" << (s.zero_stage > 0 ? ", ZeRO-" + std::to_string(s.zero_stage) : "")
      << "\n";
  }
  for (const std::string& line : sharding) t << "every stage: " << line << "\n";
  return t.str();
}

std::vector<int> data_parallel_degrees(int devices, int64_t batch) {
  std::vector<int> degrees;
  for (int d = 1; d <= devices; ++d)
    if (devices % d == 0 && (batch == 0 || d <= batch)) degrees.push_back(d);
  return degrees;
}

Json TrainingMemoryReport::to_json() const {
  const MemoryReport& m = memory;
  const MemoryOptions& o = options;
  return Json{{"model", model},
              {"param_elements", m.param_elements},
              {"devices", devices},
              {"dp", o.data_parallel},
              {"tp", o.tensor_parallel},
              {"samples_per_replica", m.samples_per_replica},
              {"zero", o.zero_stage},
              {"optimizer", optimizer_name(o.optimizer)},
              {"precision", precision_name(o.precision)},
              {"remat", o.remat},
              {"bytes_per_param", Json{{"params", m.bytes_per_param.params}, {"grads", m.bytes_per_param.grads},
                                       {"optimizer", m.bytes_per_param.optimizer}}},
              {"params_bytes", m.params_bytes},
              {"grads_bytes", m.grads_bytes},
              {"optimizer_bytes", m.optimizer_bytes},
              {"activation_bytes", m.activation_bytes},
              {"gathered_bytes", m.gathered_bytes},
              {"total_bytes", m.total_bytes},
              {"capacity_bytes", m.capacity_bytes},
              {"fits", m.fits},
              {"activations", Json{{"layers", m.layers}, {"layer_bytes", m.layer_bytes}, {"kept_input_bytes", m.kept_input_bytes},
                                   {"recompute_bytes", m.recompute_bytes}, {"other_bytes", m.other_bytes}}}};
}

std::string TrainingMemoryReport::to_text() const {
  const MemoryReport& m = memory;
  const MemoryOptions& o = options;
  std::ostringstream t;
  t << "memory per GPU: " << model << " (" << group_digits(m.param_elements) << " parameters) on " << devices << (devices == 1 ? " GPU: " : " GPUs: ") << o.data_parallel
    << "-way data parallel x " << o.tensor_parallel << "-way tensor parallel, ZeRO stage " << o.zero_stage << ", " << optimizer_name(o.optimizer)
    << ", " << precision_name(o.precision) << " precision" << (o.remat ? ", recomputation" : "") << "\n"
    << "  parameters   " << pad(gb(m.params_bytes), 12, true) << "  (" << m.bytes_per_param.params << " B/param"
    << (o.zero_stage >= 3 ? ", sharded" : "") << ")\n"
    << "  gradients    " << pad(gb(m.grads_bytes), 12, true) << "  (" << m.bytes_per_param.grads << " B/param"
    << (o.zero_stage >= 2 ? ", sharded" : "") << ")\n"
    << "  optimizer    " << pad(gb(m.optimizer_bytes), 12, true) << "  (" << m.bytes_per_param.optimizer << " B/param"
    << (o.zero_stage >= 1 ? ", sharded" : "") << ")\n"
    << (o.zero_stage >= 3 ? "  gathered     " + pad(gb(m.gathered_bytes), 12, true) + "  (ZeRO 3: the largest layer's weights twice, its gradients once)\n" : std::string())
    << "  activations  " << pad(gb(m.activation_bytes), 12, true) << "  (" << m.layers << (m.layers == 1 ? " layer" : " layers")
    << (o.remat ? ": inputs kept " + gb(m.kept_input_bytes) + ", one layer recomputed " + gb(m.recompute_bytes) : ": " + gb(m.layer_bytes))
    << "; other ops " << gb(m.other_bytes) << ")\n"
    << "  total        " << pad(gb(m.total_bytes), 12, true) << "  of " << gb(m.capacity_bytes) << ": " << (m.fits ? "fits" : "DOES NOT FIT")
    << "\n";
  return t.str();
}

}  // namespace autopar
