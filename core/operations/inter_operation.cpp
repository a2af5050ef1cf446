// The inter-op pass as a job. See inter_operation.h.
#include "inter_operation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>

#include "context_expert.h"
#include "intra_op_problem.h"
#include "cost_model.h"
#include "memory_model.h"
#include "number_text.h"
#include "pipeline_schedule.h"
#include "report_text.h"

namespace autopar {

namespace {

// What both jobs plan on: the graph of one micro-batch, and the request's options with the
// micro-batch count set.
struct MicroBatchInputs {
  Graph graph;
  InterOpOptions options;
};

// A given plan's context parallelism plans its cp ranks' shorter sequences (context_expert.h).
Result<MicroBatchInputs> microbatch_inputs(const Graph& graph, const InterRequest& request) {
  auto micro = microbatch_graph(graph, request.microbatches);
  if (!micro.ok()) return micro.error();
  InterOpOptions o = request.options;
  o.microbatches = request.microbatches;
  if (request.plan) {
    o.context_parallel = request.plan->context;
    o.expert_parallel = request.plan->expert;
  }
  // A given plan's cp, or a searched one (knob_search.h).
  if (o.context_parallel > 1) {
    auto split = context_parallel_graph(micro.value(), o.context_parallel);
    if (!split.ok()) return split.error();
    micro = std::move(split.value());
  }
  return MicroBatchInputs{std::move(micro.value()), o};
}

// Whether a given plan's expert parallelism fits the model: experts to shard (a dense model has
// none), ep dividing the experts (E / ep whole experts per GPU) and a stage's t * cp * d GPUs
// (Megatron-Core with expert tensor parallelism 1 carves the expert-parallel groups out of them:
// t * cp * d = ep * expert data-parallel size; parallel_state.initialize_model_parallel).
Status check_given_plan_experts(const GivenPlan& g, const Graph& graph) {
  if (g.expert <= 1) return Ok{};
  const int64_t experts = model_experts(graph);
  const std::string key = "plan item 'ep=" + std::to_string(g.expert) + "'";
  if (experts == 0)
    return make_error(ErrorCode::bad_value, key + ": model '" + graph.name() + "' is dense (no mixture-of-experts layer), so there are no experts to shard; leave ep out (or ep=1)", "--plan");
  if (experts % g.expert != 0)
    return make_error(ErrorCode::bad_value, key + ": model '" + graph.name() + "' has " + std::to_string(experts) + " experts per MoE layer, which ep does not divide; pick ep dividing " +
                                       std::to_string(experts), "--plan");
  const int64_t stage = int64_t(g.tensor) * g.context * g.data;
  if (stage % g.expert != 0)
    return make_error(ErrorCode::bad_value, key + ": ep must divide a stage's t*cp*d = " + std::to_string(stage) +
                                       " GPUs (Megatron-Core builds the expert-parallel groups from them, expert tensor parallelism 1); pick ep dividing " +
                                       std::to_string(stage), "--plan");
  return Ok{};
}

// The sub-mesh of one stage of a given plan: t * cp * d GPUs, part of one node (a power of two,
// as Alpa's sub-meshes) or whole nodes.
Result<Submesh> given_plan_submesh(const GivenPlan& g, const Cluster& c) {
  const int64_t per_stage = int64_t(g.tensor) * g.context * g.data, all = int64_t(per_stage) * g.pipeline;
  const std::string product = g.context > 1 ? "t*cp*p*d" : "t*p*d";
  if (all != c.num_devices())
    return make_error(ErrorCode::bad_value, "plan " + g.text() + " uses " + product + " = " + std::to_string(all) + " GPUs but the cluster has " +
                                       std::to_string(c.num_devices()) + "; make " + product + " equal to nodes * gpus per node", "--plan");
  const int G = c.gpus_per_node;
  if (per_stage < G) {
    if (G % per_stage != 0 || (per_stage & (per_stage - 1)) != 0)
      return make_error(ErrorCode::bad_value, "a stage of plan " + g.text() + " has t*cp*d = " + std::to_string(per_stage) + " GPUs; inside a node of " +
                                         std::to_string(G) + " a stage's GPUs must be a power of two dividing it", "--plan");
    return Submesh{1, int(per_stage)};
  }
  if (per_stage % G != 0)
    return make_error(ErrorCode::bad_value, "a stage of plan " + g.text() + " has t*cp*d = " + std::to_string(per_stage) + " GPUs, not whole nodes of " +
                                       std::to_string(G), "--plan");
  return Submesh{int(per_stage / G), G};
}

// A given plan's stages over L layers: the first and last as given, the others an equal share
// of the rest (Megatron-LM's rule); each stage's layers split into v interleaved chunks.
Result<std::vector<std::pair<int, int>>> given_plan_stages(const GivenPlan& g, int L) {
  const int given_ends = (g.first_stage_layers > 0) + (g.last_stage_layers > 0);
  const int middle = g.pipeline - given_ends, rest = L - g.first_stage_layers - g.last_stage_layers;
  if (given_ends > g.pipeline || rest < 0 || (middle == 0 ? rest != 0 : rest % middle != 0 || rest == 0))
    return make_error(ErrorCode::bad_value, "the model has " + std::to_string(L) + " layers, which " + std::to_string(g.pipeline) +
                                       " pipeline stages do not split evenly" + (given_ends ? " after the first/last stages' layers" : "") +
                                       " (Megatron-LM needs the layer count divisible by p; give first= and last= for the end stages)", "--plan");
  const int per = middle > 0 ? rest / middle : 0;
  std::vector<std::pair<int, int>> stages;
  for (int k = 0, next = 0; k < g.pipeline; ++k) {
    const int n = k == 0 && g.first_stage_layers > 0 ? g.first_stage_layers : k == g.pipeline - 1 && g.last_stage_layers > 0 ? g.last_stage_layers : per;
    if (g.interleave > 1 && n % g.interleave != 0)
      return make_error(ErrorCode::bad_value, "stage " + std::to_string(k + 1) + "'s " + std::to_string(n) + " layers (layers " + std::to_string(next + 1) + "-" +
                                         std::to_string(next + n) + ") do not split into v = " + std::to_string(g.interleave) +
                                         " interleaved chunks; pick v dividing every stage's layer count", "--plan");
    stages.push_back({next, next + n - 1});
    next += n;
  }
  return stages;
}

}  // namespace

const char* recompute_name(Recompute r) {
  return r == Recompute::none ? "none" : r == Recompute::selective ? "selective" : "full";
}

std::string GivenPlan::text() const {
  auto item = [](const char* key, int v) { return std::string(",") + key + "=" + std::to_string(v); };
  return "t=" + std::to_string(tensor) + ",p=" + std::to_string(pipeline) + ",d=" + std::to_string(data) +
         (context > 1 ? item("cp", context) : "") + (expert > 1 ? item("ep", expert) : "") +
         (micro_batch_size > 0 ? item("mbs", micro_batch_size) : "") + (first_stage_layers > 0 ? item("first", first_stage_layers) : "") +
         (last_stage_layers > 0 ? item("last", last_stage_layers) : "") + (interleave > 1 ? item("v", interleave) : "") +
         (sequence_parallel ? ",sp=1" : "") +
         (recompute == Recompute::full ? "" : recompute == Recompute::none ? ",remat=0" : ",recompute=selective") +
         (recompute_layers > 0 ? item("recompute_layers", recompute_layers) : "") +
         (distributed_optimizer ? ",dist_opt=1" : zero_stage >= 0 ? item("zero", zero_stage) : "") + (reshard_after_forward ? "" : ",reshard=0") + (schedule ? std::string(",schedule=") + schedule_name(*schedule) : "");
}

Result<GivenPlan> parse_given_plan(const std::string& text, const std::string& arg_path) {
  GivenPlan g;
  const std::string usage = "; write --plan t=8,p=8,d=16 (tensor, pipeline and data-parallel sizes; optional mbs=2 micro-batch size, "
                            "v=2 interleaving, first=/last= end-stage layers, sp=0|1 sequence parallelism, recompute=none|selective|full "
                            "(remat=0|1), recompute_layers=N (full: only N layers per stage or chunk), zero=0..3, dist_opt=0|1 (Megatron's distributed optimizer: zero=1 with FP32 gradients), reshard=0|1 (zero=3), cp=, ep=, schedule=zb-h1)";
  size_t start = 0;
  std::vector<std::string> seen;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (std::find(seen.begin(), seen.end(), key) != seen.end() ||
        ((key == "remat" || key == "recompute") && std::find(seen.begin(), seen.end(), key == "remat" ? "recompute" : "remat") != seen.end()))
      return make_error(ErrorCode::bad_value, "plan gives '" + key + "' twice (remat and recompute are one setting)" + usage, arg_path);
    seen.push_back(key);
    if (key == "schedule") {
      auto kind = parse_schedule_kind(value, arg_path);
      if (!kind.ok()) return kind.error();
      g.schedule = kind.value();
      if (comma >= text.size()) break;
      continue;
    }
    if (key == "recompute") {
      if (value == "none") g.recompute = Recompute::none;
      else if (value == "selective") g.recompute = Recompute::selective;
      else if (value == "full") g.recompute = Recompute::full;
      else return make_error(ErrorCode::bad_value, "plan item '" + item + "': recompute is none, selective or full" + usage, arg_path);
      if (comma >= text.size()) break;
      continue;
    }
    int* target = key == "t" ? &g.tensor : key == "p" ? &g.pipeline : key == "d" ? &g.data : key == "v" ? &g.interleave
                  : key == "cp" ? &g.context : key == "ep" ? &g.expert : key == "mbs" ? &g.micro_batch_size
                  : key == "first" ? &g.first_stage_layers : key == "last" ? &g.last_stage_layers
                  : key == "recompute_layers" ? &g.recompute_layers : nullptr;
    const bool flag = key == "remat" || key == "sp" || key == "zero" || key == "reshard" || key == "dist_opt";
    if (!flag && !target) return make_error(ErrorCode::bad_value, "plan item '" + item + "': the key '" + key + "' is unknown" + usage, arg_path);
    if (value.empty() || value.size() > 6 || value.find_first_not_of("0123456789") != std::string::npos)
      return make_error(ErrorCode::bad_value, "plan item '" + item + "' needs a whole number" + usage, arg_path);
    const int v = std::stoi(value);
    if (key == "remat" || key == "sp" || key == "reshard" || key == "dist_opt") {
      if (v > 1) return make_error(ErrorCode::bad_value, "plan item '" + item + "': " + key + " is 0 or 1" + usage, arg_path);
      if (key == "remat") g.recompute = v == 1 ? Recompute::full : Recompute::none;
      else if (key == "reshard") g.reshard_after_forward = v == 1;
      else if (key == "dist_opt") g.distributed_optimizer = v == 1;
      else g.sequence_parallel = v == 1;
    } else if (key == "zero") {
      if (v > 3) return make_error(ErrorCode::bad_value, "plan item '" + item + "': zero is 0, 1, 2 or 3 (3 = FSDP)" + usage, arg_path);
      g.zero_stage = v;
    } else {
      if (v < 1 || v > kMaxDevices) return make_error(ErrorCode::out_of_range, "plan item '" + item + "' must be between 1 and " + std::to_string(kMaxDevices), arg_path);
      *target = v;
    }
    if (comma >= text.size()) break;
  }
  if (g.recompute_layers > 0 && g.recompute != Recompute::full)
    return make_error(ErrorCode::bad_value, std::string("plan item 'recompute_layers=") + std::to_string(g.recompute_layers) +
                                       "' recomputes that many layers in full (Megatron-LM's --recompute-method block), but the plan says recompute=" +
                                       recompute_name(g.recompute) + "; give recompute=full or leave recompute_layers out",
                      arg_path);
  if (g.distributed_optimizer) {
    // Megatron's distributed optimizer shards the optimizer state only (its docs: gradients and
    // parameters are not distributed): ZeRO stage 1.
    if (g.zero_stage >= 0 && g.zero_stage != 1)
      return make_error(ErrorCode::bad_value, "plan item 'dist_opt=1' is Megatron-LM's distributed optimizer, ZeRO stage 1 with FP32 gradients, but the plan says zero=" +
                                         std::to_string(g.zero_stage) + "; leave zero out (or zero=1), or drop dist_opt=1 for ZeRO " + std::to_string(g.zero_stage),
                        arg_path);
    g.zero_stage = 1;
  }
  if (!g.reshard_after_forward && g.zero_stage != 3)
    return make_error(ErrorCode::bad_value, "plan item 'reshard=0' keeps ZeRO 3's gathered weights from forward to backward, but the plan is not zero=3; add zero=3 or leave reshard out", arg_path);
  if (g.sequence_parallel && g.tensor == 1)
    return make_error(ErrorCode::bad_value, "plan item 'sp=1' splits along the tensor-parallel group, but t=1; give t=2 or more, or leave sp out", arg_path);
  return g;
}

Result<int> given_plan_microbatches(const GivenPlan& g, int64_t batch) {
  const int64_t per_step = int64_t(g.micro_batch_size) * g.data;
  if (g.micro_batch_size < 1 || batch % per_step != 0)
    return make_error(ErrorCode::bad_value, "the model's batch of " + std::to_string(batch) + " does not split into micro-batches of mbs = " +
                                       std::to_string(g.micro_batch_size) + " on each of d = " + std::to_string(g.data) +
                                       " replicas; make the batch a multiple of mbs * d", "--plan");
  return int(batch / per_step);
}

Result<InterReport> run_inter_job(const Graph& graph, const Cluster& cluster, const InterRequest& request) {
#ifndef __EMSCRIPTEN__
  const int threads = int(std::min(8u, std::thread::hardware_concurrency()));
  if (threads > 1 && !request.plan) {
    const auto start = std::chrono::steady_clock::now();
    // Each share plans its own (sub-mesh, logical mesh) pairs; GLPK keeps its state per thread.
    std::vector<std::optional<Result<StageCostPart>>> shares(static_cast<size_t>(threads));
    std::vector<std::thread> pool;
    try {
      for (int i = 0; i < threads; ++i)
        pool.emplace_back([&graph, &cluster, &request, &shares, i, threads] {
          {
            StageCostJob job(graph, cluster, request, i, threads);
            shares[size_t(i)] = run_to_end(job);
          }
          free_ilp_thread_state();   // this thread's GLPK environment, never freed otherwise
        });
    } catch (const std::system_error&) {
      // No more threads: the shares started finish, the rest runs as one job below.
    }
    for (std::thread& t : pool) t.join();
    std::vector<StageCostPart> parts;
    for (auto& s : shares)
      if (s && s->ok()) parts.push_back(std::move(s->value()));
    if (parts.size() == shares.size()) {
      InterJob job(graph, cluster, request, parts, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      return run_to_end(job);
    }
  }
#endif
  InterJob job(graph, cluster, request);
  return run_to_end(job);
}

InterJob::InterJob(const Graph& graph, const Cluster& cluster, const InterRequest& request) : request_(request) {
  const auto start = std::chrono::steady_clock::now();
  report_.microbatches = request.microbatches;
  report_.mode = request.options.mode;
  report_.from_model = true;
  report_.boundaries = request.boundaries;
  report_.brute_force = request.brute_force;
  report_.model_name = graph.name();
  report_.forward_share = plan_forward_share(graph);
  report_.weight_share = plan_weight_share(graph);
  // A given plan's GPUs are checked first: a plan for the wrong cluster is the fault to name,
  // whatever the micro-batch count.
  if (request.plan) {
    if (auto sub = given_plan_submesh(*request.plan, cluster); !sub.ok()) {
      finish(sub.error());
      return;
    }
    if (auto experts = check_given_plan_experts(*request.plan, graph); !experts.ok()) {
      finish(experts.error());
      return;
    }
  }
  auto micro = microbatch_inputs(graph, request);
  if (!micro.ok()) {
    finish(micro.error());
    return;
  }
  InterOpOptions& o = micro.value().options;
  if (request.plan) {
    // The model's own layers, split evenly; every stage on the plan's sub-mesh and d x t mesh.
    auto sub = given_plan_submesh(*request.plan, cluster);
    if (!sub.ok()) {
      finish(sub.error());
      return;
    }
    report_.given = request.plan;
    o.fixed_submesh = sub.value();
    o.fixed_mesh_rows = request.plan->data * request.plan->context;   // the d x cp ranks reduce gradients together
    o.force_remat = request.plan->recompute == Recompute::full;
    o.recompute = int(request.plan->recompute);
    o.recompute_layers = request.plan->recompute_layers;
    o.sequence_parallel = request.plan->sequence_parallel;
    o.reshard_after_forward = request.plan->reshard_after_forward;
    if (request.plan->zero_stage >= 0) o.zero_stage = request.plan->zero_stage;
    o.distributed_optimizer = request.plan->distributed_optimizer;
    o.layers = 0;
    o.max_layers = 1 << 20;
    o.interleave = request.plan->interleave;
    o.schedule = request.plan->schedule;   // its stages hold what that schedule keeps in flight
    auto layers = plan_layers(micro.value().graph, o);
    if (layers.ok()) {
      auto stages = given_plan_stages(*request.plan, int(layers.value().ops.size()));
      if (!stages.ok()) {
        finish(stages.error());
        return;
      }
      for (const auto& [first, last] : stages.value()) o.stage_ends.push_back(last);
    }
  }
  request_.options = o;
  report_.context_parallel = o.context_parallel;
  report_.expert_parallel = o.expert_parallel;
  // How the layers were found: Alpa's construction when asked for, else the model's own or cuts.
  if (o.layers > 0) {
    report_.layer_source = "auto";
  } else {
    auto layers = plan_layers(micro.value().graph, o);
    report_.layer_source = layers.ok() ? layers.value().source : "cuts";
  }
  builder_.emplace(std::move(micro.value().graph), cluster_for_model(cluster, graph), o);
  setup_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

InterJob::InterJob(const Graph& graph, const Cluster& cluster, const InterRequest& request, const std::vector<StageCostPart>& parts, double parts_ms)
    : InterJob(graph, cluster, request) {
  setup_ms_ += parts_ms;
  if (done() || !builder_) return;   // the model's error
  auto table = merge_stage_cost_parts(parts);
  if (!table.ok()) {
    finish(table.error());
    return;
  }
  // The parts must be of this model's table (the same layers, sub-meshes and every pair once).
  int units = 0, reused = 0;
  for (const StageCostPart& p : parts) {
    units += p.units;
    reused += p.reused;
  }
  if (units != builder_->units_total() || table.value().layers != int(builder_->layers().size())) {
    finish(make_error(ErrorCode::bad_value,
                      "the stage-cost parts hold " + std::to_string(units) + " units of work; this model on this cluster has " +
                          std::to_string(builder_->units_total()) + " (parts of another model, or shares missing)",
                      "parts"));
    return;
  }
  report_.table = std::move(table.value());
  take_layers(*builder_);
  report_.reused = reused;
  report_.solves = units;
  builder_.reset();
  if (request_.plan) return;   // work() prices it
  solver_.emplace(report_.table, request_.microbatches, request_.boundaries);
}

StageCostJob::StageCostJob(const Graph& graph, const Cluster& cluster, const InterRequest& request, int share_index, int share_count) {
  auto micro = microbatch_inputs(graph, request);
  if (!micro.ok()) {
    finish(micro.error());
    return;
  }
  builder_.emplace(std::move(micro.value().graph), cluster_for_model(cluster, graph), micro.value().options, share_index, share_count);
}

void StageCostJob::work(BudgetMeter& meter) {
  while (!builder_->done()) {
    builder_->step(1);
    if (meter.count()) break;
  }
  if (builder_->done()) finish(builder_->finish_part());
}

JobProgress StageCostJob::progress() const {
  return builder_ ? JobProgress{builder_->units_done(), builder_->units_total(), "stage costs"} : JobProgress{0, 0, "stage costs"};
}

void InterJob::take_layers(const StageCostBuilder& b) {
  report_.layers = b.layers();
  report_.layer_numbers = b.layer_numbers();
  const Graph& g = b.graph();
  for (const auto& [first, last] : report_.layers) report_.layer_ops.push_back({g.ops[size_t(first)].name(), g.ops[size_t(last)].name()});
}

Json inter_plan_to_json(const InterOpPlan& p) {
  Json stages = Json::array();
  for (const PipelineStage& s : p.stages)
    stages.push_back(Json{{"first", s.first},
                          {"last", s.last},
                          {"submesh", Json::array({s.submesh.nodes, s.submesh.gpus})},
                          {"latency", s.latency},
                          {"logical_mesh", s.logical_mesh},
                          {"device_offset", s.device_offset},
                          {"recv_ms", s.recv_ms},
                          {"send_ms", s.send_ms},
                          {"send_bytes", s.send_bytes},
                          {"send_inter_node", s.send_inter_node}});
  return Json{{"total_latency", p.total_latency},
              {"t_max", p.t_max},
              {"interleave", p.interleave},
              {"t_max_tried", p.t_max_tried},
              {"t_max_candidates", p.t_max_candidates},
              {"boundaries", p.boundaries},
              {"stages", stages}};
}

InterPlanMessage inter_plan_message(const InterReport& report) {
  InterPlanMessage m;
  m.report = report.to_json();
  m.elapsed_ms = report.elapsed_ms;
  m.plan = report.plan;
  m.layer_numbers = report.layer_numbers;
  m.layer_ops = report.layer_ops;
  return m;
}

Json to_json(const InterPlanMessage& m) {
  Json numbers = Json::array(), ops = Json::array();
  for (const auto& [a, b] : m.layer_numbers) numbers.push_back(Json::array({a, b}));
  for (const auto& [a, b] : m.layer_ops) ops.push_back(Json::array({a, b}));
  return Json{{"report", m.report}, {"plan", inter_plan_to_json(m.plan)}, {"layer_numbers", numbers}, {"layer_ops", ops}};
}

Result<InterPlanMessage> inter_plan_message_from_json(const Json& j) {
  if (!j.is_object() || !j.contains("plan")) return make_error(ErrorCode::missing_field, "an inter-op plan message needs 'plan'", "plan");
  InterPlanMessage m;
  auto plan = inter_plan_from_json(j["plan"]);
  if (!plan.ok()) return plan.error();
  m.plan = std::move(plan.value());
  if (!j.contains("report") || !j["report"].is_object()) return make_error(ErrorCode::missing_field, "an inter-op plan message needs its 'report' object", "report");
  m.report = j["report"];
  if (m.report.contains("elapsed_ms")) {
    if (!m.report["elapsed_ms"].is_number()) return make_error(ErrorCode::wrong_type, "report.elapsed_ms must be a number", "report.elapsed_ms");
    m.elapsed_ms = m.report["elapsed_ms"].get<double>();
  }
  for (const char* key : {"layer_numbers", "layer_ops"}) {
    if (!j.contains(key)) continue;
    const Json& list = j[key];
    if (!list.is_array()) return make_error(ErrorCode::wrong_type, std::string(key) + " must be an array of pairs", key);
    for (size_t k = 0; k < list.size(); ++k) {
      const Json& n = list[k];
      const std::string at = std::string(key) + "[" + std::to_string(k) + "]";
      const bool numbers = key[6] == 'n';   // layer_numbers: two whole numbers; layer_ops: two names
      const bool ok = n.is_array() && n.size() == 2 &&
                      (numbers ? n[0].is_number_integer() && n[1].is_number_integer() : n[0].is_string() && n[1].is_string());
      if (!ok) return make_error(ErrorCode::wrong_type, at + (numbers ? " must be two whole numbers" : " must be two op names"), at);
      if (numbers) m.layer_numbers.push_back({n[0].get<int>(), n[1].get<int>()});
      else m.layer_ops.push_back({n[0].get<std::string>(), n[1].get<std::string>()});
    }
  }
  return m;
}

Result<InterOpPlan> inter_plan_from_json(const Json& j) {
  auto bad = [](const std::string& path) { return make_error(ErrorCode::bad_value, "a pipeline plan's field " + path + " is missing or of the wrong type", path); };
  auto num = [](const Json& o, const char* k, double& out) {
    if (!o.contains(k) || !o[k].is_number()) return false;
    out = o[k].get<double>();
    return true;
  };
  auto integer = [](const Json& o, const char* k, int& out) {
    if (!o.contains(k) || !o[k].is_number_integer()) return false;
    out = o[k].get<int>();
    return true;
  };
  InterOpPlan p;
  if (!j.is_object()) return bad("plan");
  if (!num(j, "total_latency", p.total_latency)) return bad("total_latency");
  if (!num(j, "t_max", p.t_max)) return bad("t_max");
  if (j.contains("interleave") && (!integer(j, "interleave", p.interleave) || p.interleave < 1)) return bad("interleave");
  if (!integer(j, "t_max_tried", p.t_max_tried)) return bad("t_max_tried");
  if (!integer(j, "t_max_candidates", p.t_max_candidates)) return bad("t_max_candidates");
  if (!j.contains("boundaries") || !j["boundaries"].is_boolean()) return bad("boundaries");
  p.boundaries = j["boundaries"].get<bool>();
  if (!j.contains("stages") || !j["stages"].is_array()) return bad("stages");
  for (size_t k = 0; k < j["stages"].size(); ++k) {
    const Json& o = j["stages"][k];
    const std::string at = "stages[" + std::to_string(k) + "]";
    PipelineStage s;
    if (!o.is_object() || !integer(o, "first", s.first) || !integer(o, "last", s.last) || !num(o, "latency", s.latency) ||
        !integer(o, "device_offset", s.device_offset) || !num(o, "recv_ms", s.recv_ms) || !num(o, "send_ms", s.send_ms) ||
        !num(o, "send_bytes", s.send_bytes) || !o.contains("logical_mesh") || !o["logical_mesh"].is_string() ||
        !o.contains("send_inter_node") || !o["send_inter_node"].is_boolean() || !o.contains("submesh") || !o["submesh"].is_array() ||
        o["submesh"].size() != 2 || !o["submesh"][0].is_number_integer() || !o["submesh"][1].is_number_integer())
      return bad(at);
    s.logical_mesh = o["logical_mesh"].get<std::string>();
    s.send_inter_node = o["send_inter_node"].get<bool>();
    s.submesh = Submesh{o["submesh"][0].get<int>(), o["submesh"][1].get<int>()};
    p.stages.push_back(s);
  }
  return p;
}

InterJob::InterJob(StageCostTable table, const InterRequest& request) : request_(request) {
  report_.microbatches = request.microbatches;
  report_.mode = request.options.mode;
  report_.boundaries = request.boundaries;
  report_.brute_force = request.brute_force;
  report_.table = std::move(table);
  solver_.emplace(report_.table, request.microbatches, request.boundaries);
}

void InterJob::work(BudgetMeter& meter) {
  if (builder_) {
    // One unit per call: a unit is an intra-op solve, long enough to read the clock after each.
    while (!builder_->done()) {
      builder_->step(1);
      if (meter.count()) break;
    }
    if (!builder_->done()) return;
    auto table = builder_->finish();
    if (!table.ok()) {
      finish(table.error());
      return;
    }
    report_.table = std::move(table.value());
    take_layers(*builder_);
    report_.reused = builder_->reused_solves();
    report_.solves = builder_->units_done();
    builder_.reset();
    if (request_.plan) return price_given_plan(meter);
    solver_.emplace(report_.table, request_.microbatches, request_.boundaries);
    if (meter.spent()) return;
  }
  if (!solver_ && request_.plan) return price_given_plan(meter);
  solve(meter);
}

void InterJob::price_given_plan(BudgetMeter& meter) {
  const GivenPlan& g = *request_.plan;
  const StageCostTable& t = report_.table;
  auto split = given_plan_stages(g, t.layers);
  if (!split.ok()) return finish(split.error());
  const std::vector<std::pair<int, int>>& stages = split.value();
  int m = 0;
  while (m < int(t.submeshes.size()) && !(t.submeshes[size_t(m)] == request_.options.fixed_submesh)) ++m;
  // Each stage as given: its recomputation and ZeRO stage, and the activations of the
  // micro-batches its schedule holds in flight, must fit its GPUs' memory; else the plan is
  // refused naming the stage (numbered from 1, as the stage table), its layers and the bytes.
  for (size_t k = 0; k < stages.size() && m < int(t.submeshes.size()); ++k) {
    const auto [first, last] = stages[k];
    const std::string where = "stage " + std::to_string(k + 1) + " (layers " +
                              std::to_string(report_.layer_numbers.empty() ? first + 1 : report_.layer_numbers[size_t(first)].first) + "-" +
                              std::to_string(report_.layer_numbers.empty() ? last + 1 : report_.layer_numbers[size_t(last)].second) + ")";
    const size_t idx = t.index(first, last, m);
    if (!std::isfinite(t.latency[idx]))
      return finish(make_error(ErrorCode::infeasible, where + " cannot be planned on its " + std::to_string(t.submeshes[size_t(m)].devices()) + " GPUs", "--plan"));
    const double inflight = stage_inflight_microbatches(g.schedule, int(k), int(stages.size()), request_.microbatches, g.interleave);
    const double need = inflight * t.activation_bytes[idx], room = t.activation_room_bytes[idx];
    if (request_.refuse_overflow && need > room * (1 + 1e-12)) {
      const int r = t.remat[idx];
      const std::string setting = std::string(r == 1 ? "full" : r == 2 ? "selective" : "no") + " recomputation, ZeRO-" + std::to_string(t.zero_stage[idx]);
      return finish(make_error(ErrorCode::infeasible,
                               where + " does not fit with " + setting + ": " + fmt("%.3g", inflight) + " micro-batches in flight keep " + si(need) +
                                   "B of activations per GPU where its model states leave " + si(std::max(0.0, room)) + "B (short by " +
                                   si(need - std::max(0.0, room)) + "B); try recompute=selective or full, sp=1, a higher zero=, or more pipeline stages",
                               "--plan"));
    }
  }
  auto plan = evaluate_inter_op_plan(t, request_.microbatches, stages, m, request_.boundaries, g.interleave);
  if (!plan.ok()) return finish(plan.error());
  report_.plan = plan.value();
  if (Status sc = price_schedules(); !sc.ok()) return finish(sc.error());
  report_.elapsed_ms = setup_ms_ + compute_ms() + meter.elapsed_ms();
  finish(std::move(report_));
}

void InterJob::solve(BudgetMeter& meter) {
  // --schedule NAME or auto without a given plan: the DP runs per schedule, on its memory.
  if (!request_.schedule.empty() && !request_.brute_force && !request_.plan) return solve_per_schedule(meter);
  const double start_ms = meter.elapsed_ms();   // this slice's time in the DP is added to dp_ms
  if (request_.brute_force) {
    auto plan = brute_force_inter_op(report_.table, request_.microbatches, request_.boundaries);
    if (!plan.ok()) return finish(plan.error());
    report_.plan = plan.value();
  } else {
    if (!main_plan_done_) {
      while (!solver_->done()) {
        solver_->step(1);
        if (meter.count()) break;
      }
      if (!solver_->done()) {
        report_.dp_ms += meter.elapsed_ms() - start_ms;
        return;
      }
      auto plan = solver_->finish();
      if (!plan.ok()) return finish(plan.error());
      report_.plan = plan.value();
      main_plan_done_ = true;
      if (request_.options.choose_interleave) {
        // Megatron-LM runs interleaving with more than one stage and a micro-batch count that
        // the stages divide (its schedules' assertion); every chunk needs a layer.
        const int L = report_.table.layers, D = report_.table.nodes * report_.table.gpus_per_node, B = request_.microbatches;
        for (int v = 2; v <= kMaxInterleave; ++v)
          for (int p = 2; p <= std::min(L / v, D); ++p)
            if (B % p == 0) interleave_runs_.push_back({v, p});
        if (!interleave_runs_.empty()) base_table_ = report_.table;   // copied only when a run will read it (B = 1 has none)
      }
      apply_memory_options(report_.table, report_.plan);   // the settings the DP chose per position
    }
    const bool ended = solve_interleaved(meter);
    report_.dp_ms += meter.elapsed_ms() - start_ms;
    if (!ended) return;
  }
  if (request_.brute_force) report_.dp_ms += meter.elapsed_ms() - start_ms;
  if (Status sc = price_schedules(); !sc.ok()) return finish(sc.error());
  report_.elapsed_ms = setup_ms_ + compute_ms() + meter.elapsed_ms();
  finish(report_);
}

bool InterJob::solve_interleaved(BudgetMeter& meter) {
  const int B = request_.microbatches;
  while (interleave_run_ < interleave_runs_.size()) {
    const auto [v, p] = interleave_runs_[interleave_run_];
    if (!run_solver_) {
      if (run_table_v_ != v) {
        run_table_ = stage_costs_for_schedule(base_table_, ScheduleKind::interleaved, v, request_.options);
        run_table_v_ = v;
      }
      InflightRule rule{ScheduleKind::interleaved, v, p};
      rule.interleaved_total = true;
      run_solver_.emplace(run_table_, B, request_.boundaries, rule);
    }
    while (!run_solver_->done()) {
      run_solver_->step(1);
      if (meter.count()) break;
    }
    if (!run_solver_->done()) return false;
    auto plan = run_solver_->finish();
    run_solver_.reset();
    ++interleave_run_;
    const double best = interleaved_best_ ? interleaved_best_->total_latency : report_.plan.total_latency;
    if (plan.ok() && plan.value().total_latency < best) {   // ties keep 1F1B, then the smaller v and p
      interleaved_best_ = plan.value();
      interleaved_table_ = run_table_;
    }
    if (meter.spent() && interleave_run_ < interleave_runs_.size()) return false;
  }
  if (interleaved_best_) {
    // The report's plan and stage costs become the interleaved plan's (its own ZeRO and
    // recomputation per stage, for its in-flight micro-batches).
    report_.plan = *interleaved_best_;
    report_.table = std::move(interleaved_table_);
    apply_memory_options(report_.table, report_.plan);
    interleaved_best_.reset();
  }
  return true;
}

Result<std::vector<ScheduleKind>> InterJob::schedule_kinds() const {
  const std::optional<ScheduleKind> given = request_.plan ? request_.plan->schedule : std::nullopt;
  if (given) return std::vector<ScheduleKind>{*given};
  if (request_.schedule == "auto") return all_schedule_kinds();
  auto k = parse_schedule_kind(request_.schedule, "--schedule");
  if (!k.ok()) return make_error(k.error().code, k.error().message + ", or auto", "--schedule");
  return std::vector<ScheduleKind>{k.value()};
}

namespace {
// The interleaved schedule's v: the plan's, else 2 (the smallest that interleaves).
int schedule_interleave(const std::optional<GivenPlan>& plan) { return plan && plan->interleave > 1 ? plan->interleave : 2; }
}  // namespace

PlanScheduleRow InterJob::schedule_row(const InterOpPlan& plan, const StageCostTable& t, ScheduleKind kind) const {
  // The plan as the schedule model sees it, built as the page's charts build it (pipeline_schedule.h).
  PlanPipeline pp = plan_pipeline(plan, report_.microbatches, PlanShares{report_.forward_share, report_.weight_share});
  const int v = schedule_interleave(request_.plan);
  PlanScheduleRow row;
  row.kind = kind;
  row.interleave = kind == ScheduleKind::interleaved ? v : 1;
  const int chunks = schedule_chunks_per_device(kind, v);
  auto submesh_index = [&](const PipelineStage& st) {
    size_t m = 0;
    while (m + 1 < t.submeshes.size() && !(t.submeshes[m] == st.submesh)) ++m;
    return int(m);
  };
  // A schedule with chunks splits each stage's layers as evenly as they go (3 layers: 2 + 1),
  // each chunk taking its layers' share of the stage's time: their own stage costs on the
  // stage's sub-mesh where the table has them, else their count.
  if (chunks > 1) pp.chunk_share.assign(plan.stages.size(), {});
  for (size_t k = 0; k < plan.stages.size() && chunks > 1 && row.why.empty(); ++k) {
    const PipelineStage& st = plan.stages[k];
    const std::vector<int> sizes = split_stage_chunks(st.last - st.first + 1, chunks);
    if (sizes.empty()) {
      const auto [first, last] = report_.stage_layers(st);
      row.why = "stage " + std::to_string(k + 1) + "'s layers " + std::to_string(first) + "-" + std::to_string(last) + " are fewer than its " +
                std::to_string(chunks) + " chunks";
      break;
    }
    std::vector<double> time, count;
    bool known = true;
    for (int c = 0, a = st.first; c < chunks; a += sizes[size_t(c)], ++c) {
      const double x = t.latency[t.index(a, a + sizes[size_t(c)] - 1, submesh_index(st))];
      known = known && std::isfinite(x) && x > 0;
      time.push_back(x);
      count.push_back(sizes[size_t(c)]);
    }
    const std::vector<double>& w = known ? time : count;
    double sum = 0;
    for (double x : w) sum += x;
    for (double x : w) pp.chunk_share[k].push_back(x / sum);
  }
  Result<ScheduleResult> r = make_error(ErrorCode::infeasible, row.why);
  if (row.why.empty()) {
    auto in = plan_schedule_input(pp, kind, v);
    r = in.ok() ? simulate_schedule(in.value()) : Result<ScheduleResult>(in.error());
    if (!r.ok()) row.why = r.error().message;
  }
  if (!r.ok()) return row;
  row.total_ms = r.value().makespan_ms;
  row.bubble_fraction = r.value().bubble_fraction;
  row.peak_inflight = r.value().peak_inflight;
  row.fits = true;
  // Each stage's activations in flight against the memory its model states leave (DualPipe
  // keeps a second copy of them: DeepSeek-V3 Table 2's 2x parameters, unless the table's
  // choices already left it out).
  const bool second_copy = schedule_parameter_copies(kind) > t.state_copies;
  for (size_t k = 0; k < plan.stages.size() && row.fits; ++k) {
    const PipelineStage& st = plan.stages[k];
    const size_t idx = t.index(st.first, st.last, submesh_index(st));
    const double peak = row.peak_inflight[k];
    const double act = idx < t.activation_bytes.size() ? t.activation_bytes[idx] : 0;
    if (act > 0) {
      const double room = t.activation_room_bytes[idx] - (second_copy ? t.state_bytes[idx] : 0);
      if (peak * act > room * (1 + 1e-12)) {
        row.fits = false;
        row.why = "stage " + std::to_string(k + 1) + " holds " + fmt("%.3g", peak) + " micro-batches of activations (" + si(peak * act) +
                  "B per GPU) where " + si(std::max(0.0, room)) + "B are free" + (second_copy ? " after a second copy of its model states" : "");
      }
    } else if (idx < t.max_succ_stages.size() && t.max_succ_stages[idx] >= 0 && peak > t.max_succ_stages[idx] + 1 + 1e-9) {
      row.fits = false;
      row.why = "stage " + std::to_string(k + 1) + " holds " + fmt("%.3g", peak) + " micro-batches of activations; its memory allows " +
                std::to_string(t.max_succ_stages[idx] + 1);
    }
  }
  return row;
}

Status InterJob::price_schedules() {
  const std::optional<ScheduleKind> given = request_.plan ? request_.plan->schedule : std::nullopt;
  if (request_.schedule.empty() && !given) return Ok{};
  auto kinds = schedule_kinds();
  if (!kinds.ok()) return kinds.error();
  if (!report_.planned_per_schedule) {
    report_.schedules.clear();
    for (ScheduleKind kind : kinds.value()) report_.schedules.push_back(schedule_row(report_.plan, report_.table, kind));
  }
  int best = -1;
  for (size_t i = 0; i < report_.schedules.size(); ++i)
    if (report_.schedules[i].fits && (best < 0 || report_.schedules[i].total_ms < report_.schedules[size_t(best)].total_ms)) best = int(i);
  if (best < 0) {
    const PlanScheduleRow& row = report_.schedules.front();
    if (kinds.value().size() == 1)
      return make_error(ErrorCode::infeasible, std::string("the plan cannot run under ") + schedule_name(row.kind) + ": " + row.why,
                        given ? "--plan" : "--schedule");
    return make_error(ErrorCode::infeasible, "no pipeline schedule fits this plan's memory: " + row.why, "--schedule");
  }
  report_.chosen_schedule = best;
  if (report_.planned_per_schedule) {
    // The report's plan and stage costs are the chosen schedule's (its own ZeRO and recomputation per stage).
    const PlanScheduleRow& row = report_.schedules[size_t(best)];
    report_.plan = row.plan;
    report_.table = stage_costs_for_schedule(base_table_, row.kind, schedule_interleave(request_.plan), request_.options);
    apply_memory_options(report_.table, report_.plan);
  }
  report_.plan.total_latency = report_.schedules[size_t(best)].total_ms;
  return Ok{};
}

void InterJob::solve_per_schedule(BudgetMeter& meter) {
  const double start_ms = meter.elapsed_ms();
  const int v = schedule_interleave(request_.plan);
  if (runs_.empty()) {
    auto kinds = schedule_kinds();
    if (!kinds.ok()) return finish(kinds.error());
    base_table_ = report_.table;
    report_.planned_per_schedule = true;
    report_.schedules.clear();
    const int L = base_table_.layers, D = base_table_.nodes * base_table_.gpus_per_node, B = request_.microbatches;
    for (ScheduleKind kind : kinds.value()) {
      PlanScheduleRow row;
      row.kind = kind;
      row.interleave = kind == ScheduleKind::interleaved ? v : 1;
      row.planned = true;
      report_.schedules.push_back(row);
      const size_t at = report_.schedules.size() - 1;
      if (!schedule_inflight_needs_stage_count(kind)) {
        runs_.push_back({kind, 0, at});
        continue;
      }
      // Its memory depends on the stage count: one DP per count the schedule can run with
      // (validate_schedule_input's rules), each fixing p.
      int added = 0;
      for (int p = 1; p <= std::min(L, D); ++p) {
        if (kind == ScheduleKind::interleaved && B % p != 0) continue;
        if (kind == ScheduleKind::dualpipe && (p % 2 != 0 || B % 2 != 0 || B < 2 * p)) continue;
        if (kind == ScheduleKind::dualpipe_v && B < 2 * p) continue;
        if (int64_t(p) * schedule_chunks_per_device(kind, v) > L) continue;   // every chunk needs a layer
        runs_.push_back({kind, p, at});
        ++added;
      }
      if (added == 0) report_.schedules[at].why = std::string("no stage count suits ") + schedule_name(kind) + " with " + std::to_string(B) + " micro-batches";
    }
    run_ = 0;
  }
  while (run_ < runs_.size()) {
    const ScheduleRun& run = runs_[run_];
    PlanScheduleRow& row = report_.schedules[run.row];
    const auto run_start = std::chrono::steady_clock::now();
    std::optional<Result<InterOpPlan>> reused;
    if (!run_solver_ && run.kind == ScheduleKind::zb_v) {
      const auto it = zb_h1_plans_.find(run.stages);
      bool two_layers = it != zb_h1_plans_.end();
      if (two_layers && it->second.ok())
        for (const PipelineStage& st : it->second.value().stages) two_layers = two_layers && st.last > st.first;
      if (two_layers) reused = it->second;   // ZB-H1 found none at p, or its best suits ZB-V
    }
    if (!run_solver_ && !reused) {
      if (run_table_kind_ != int(run.kind)) {
        run_table_ = stage_costs_for_schedule(base_table_, run.kind, v, request_.options);
        run_table_kind_ = int(run.kind);
      }
      run_solver_.emplace(run_table_, request_.microbatches, request_.boundaries, InflightRule{run.kind, v, run.stages});
    }
    while (run_solver_ && !run_solver_->done()) {
      run_solver_->step(1);
      if (meter.count()) break;
    }
    const bool finished = reused || run_solver_->done();
    Result<InterOpPlan> plan = reused ? *reused : finished ? run_solver_->finish() : Result<InterOpPlan>(Error{});
    if (finished && !reused && run.kind == ScheduleKind::zb_h1) zb_h1_plans_.emplace(run.stages, plan);
    if (reused && run_table_kind_ != int(run.kind)) {   // the simulation reads ZB-V's table (the same entries as ZB-H1's)
      run_table_ = stage_costs_for_schedule(base_table_, run.kind, v, request_.options);
      run_table_kind_ = int(run.kind);
    }
    if (finished) {
      run_solver_.reset();
      ++run_;
      if (!reused) {
        ++row.dp_runs;
        ++report_.schedule_dp_runs;
      }
    }
    row.dp_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - run_start).count();
    if (!finished) break;
    if (!plan.ok()) {
      if (row.plan.stages.empty() && row.why.empty()) row.why = plan.error().message;
      continue;
    }
    // Its memory checked with the settings the DP chose per position.
    PlanScheduleRow sim;
    bool chosen_options = false;
    for (const PipelineStage& st : plan.value().stages) chosen_options = chosen_options || st.memory_option >= 0;
    if (chosen_options) {
      StageCostTable chosen = run_table_;
      apply_memory_options(chosen, plan.value());
      sim = schedule_row(plan.value(), chosen, run.kind);
    } else {
      sim = schedule_row(plan.value(), run_table_, run.kind);
    }
    // Of the stage counts tried, the fastest fitting plan (a fitting one before one that does not).
    const bool better = row.plan.stages.empty() || (sim.fits && !row.fits) ||
                        (sim.fits == row.fits && sim.total_ms > 0 && (row.total_ms == 0 || sim.total_ms < row.total_ms));
    if (!better) continue;
    sim.planned = true;
    sim.plan = plan.value();
    sim.dp_total_ms = plan.value().total_latency;
    sim.dp_runs = row.dp_runs;
    sim.dp_ms = row.dp_ms;
    row = sim;
  }
  const double spent = meter.elapsed_ms() - start_ms;
  report_.dp_ms += spent;
  report_.schedule_dp_ms += spent;
  if (run_ < runs_.size()) return;
  if (Status sc = price_schedules(); !sc.ok()) return finish(sc.error());
  report_.elapsed_ms = setup_ms_ + compute_ms() + meter.elapsed_ms();
  finish(report_);
}

JobProgress InterJob::progress() const {
  if (builder_) return JobProgress{builder_->units_done(), builder_->units_total(), "stage costs"};
  if (!runs_.empty()) return JobProgress{int(run_), int(runs_.size()), "pipeline DP per schedule"};
  if (!interleave_runs_.empty()) return JobProgress{int(interleave_run_), int(interleave_runs_.size()), "pipeline DP, interleaved"};
  if (solver_) return JobProgress{solver_->rows_done(), solver_->rows_bound(), "pipeline DP"};
  return JobProgress{0, 0, "pipeline DP"};
}

std::pair<int, Recompute> InterReport::stage_memory_setting(const PipelineStage& st) const {
  size_t sm = 0;
  while (sm + 1 < table.submeshes.size() && !(table.submeshes[sm] == st.submesh)) ++sm;
  const size_t entry = table.index(st.first, st.last, int(sm));
  const int zero = entry < table.zero_stage.size() ? table.zero_stage[entry] : 0;
  const int r = entry < table.remat.size() ? table.remat[entry] : 0;
  return {zero, r == 1 ? Recompute::full : r == 2 ? Recompute::selective : Recompute::none};
}

bool InterReport::stage_sequence_parallel(const PipelineStage& st) const {
  if (given) return given->sequence_parallel;
  size_t sm = 0;
  while (sm + 1 < table.submeshes.size() && !(table.submeshes[sm] == st.submesh)) ++sm;
  const size_t entry = table.index(st.first, st.last, int(sm));
  return entry < table.sequence_parallel.size() && table.sequence_parallel[entry];
}

std::pair<int, int> InterReport::stage_layers(const PipelineStage& st) const {
  if (!from_model) return {st.first, st.last};
  return {layer_numbers[size_t(st.first)].first, layer_numbers[size_t(st.last)].second};
}

namespace {
// The boundary from stage k to stage k + 1 of the plan, priced as the DP priced it.
BoundaryCost boundary_after(const StageCostTable& table, const InterOpPlan& p, size_t k) {
  const auto& next = p.stages[k + 1];
  size_t m = 0;
  while (!(table.submeshes[m] == next.submesh)) ++m;
  return boundary_cost(table, p.stages[k].last, p.stages[k].submesh.devices(), table.index(next.first, next.last, int(m)),
                       boundary_crosses_nodes(table, next.device_offset));
}
}  // namespace

Json InterReport::to_json() const {
  const InterOpPlan& p = plan;
  Json stages = Json::array();
  double boundary_total = 0;
  for (size_t k = 0; k < p.stages.size(); ++k) {
    const auto& st = p.stages[k];
    const auto [first, last] = stage_layers(st);
    Json s{{"layers", Json::array({first, last})},
           {"submesh", Json::array({st.submesh.nodes, st.submesh.gpus})},
           {"latency", st.latency},
           {"logical_mesh", st.logical_mesh}};
    const auto [zero, remat] = stage_memory_setting(st);
    s["zero_stage"] = zero;
    s["remat"] = remat == Recompute::full;
    s["recompute"] = recompute_name(remat);
    s["sequence_parallel"] = stage_sequence_parallel(st);
    {
      size_t sm = 0;
      while (sm + 1 < table.submeshes.size() && !(table.submeshes[sm] == st.submesh)) ++sm;
      const size_t entry = table.index(st.first, st.last, int(sm));
      if (entry < table.state_bytes.size()) {
        // Per GPU: model states, one micro-batch's activations, and (a given plan) the
        // micro-batches its schedule holds in flight.
        Json mem{{"state_bytes", table.state_bytes[entry]}, {"activation_bytes_per_microbatch", table.activation_bytes[entry]},
                 {"activation_room_bytes", table.activation_room_bytes[entry]}};
        if (given) mem["inflight_microbatches"] = stage_inflight_microbatches(given->schedule, int(k), int(p.stages.size()), microbatches, given->interleave);
        s["memory"] = mem;
        // A given plan's context and expert parallelism, per micro-batch (inside `latency`).
        if (given && given->context > 1 && entry < table.ring_exposed_ms.size()) s["ring_exposed_ms"] = table.ring_exposed_ms[entry];
        if (given && given->expert > 1 && entry < table.all_to_all_ms.size()) s["all_to_all_ms"] = table.all_to_all_ms[entry];
      }
    }
    if (from_model) s["ops"] = Json::array({layer_ops[size_t(st.first)].first, layer_ops[size_t(st.last)].second});
    if (table.has_boundaries) {
      s["device_offset"] = st.device_offset;
      if (k + 1 < p.stages.size()) {
        const BoundaryCost b = boundary_after(table, p, k);
        boundary_total += b.ms();
        const std::string link = b.inter_node ? "inter-node" : "intra-node";
        Json coll = Json::array();
        coll.push_back(Json{{"kind", "send/recv"}, {"link", link}, {"bytes", b.bytes}, {"ms", b.send_ms}, {"senders", b.senders},
                            {"bytes_per_sender", b.stream_bytes}, {"what", "one copy forward, the gradient back, a slice from each sending GPU"}});
        if (b.replicas > 1)
          coll.push_back(b.local_all_gather
                             ? Json{{"kind", "all-gather"}, {"link", "inside the receiving mesh"}, {"replicas", b.replicas}, {"ms", b.allgather_ms},
                                    {"instead_of_ms", b.plain_recv_ms}}
                             : Json{{"kind", "send/recv"}, {"link", link}, {"bytes", b.bytes * (b.replicas - 1)}, {"ms", b.plain_recv_ms},
                                    {"what", "the other replicas' copies (cheaper than a local all-gather here)"}, {"instead_of_ms", b.allgather_ms}});
        s["boundary"] = Json{{"bytes", b.bytes}, {"ms", b.ms()}, {"inter_node", b.inter_node}, {"collectives", coll}};
      } else {
        s["boundary"] = nullptr;
      }
    }
    stages.push_back(s);
  }
  Json out{{"total_latency", p.total_latency},
              {"t_max", p.t_max},
              // v of interleaved 1F1B the total is priced with (sum / v + (B - 1/v) t_max); 1: 1F1B.
              {"interleave", p.interleave},
              {"microbatches", microbatches},
              {"mode", mode},
              {"layers", table.layers},
              {"t_max_tried", p.t_max_tried},
              {"t_max_candidates", p.t_max_candidates},
              {"solver", given ? "given plan" : brute_force ? "brute-force" : "dp"},
              {"boundaries", table.has_boundaries ? (boundaries ? "priced" : "ignored") : "none"},
              {"boundary_ms_total", boundary_total},
              {"layer_source", layer_source},
              {"reused_solves", reused},
              {"elapsed_ms", elapsed_ms},
              // Wall-clock time per phase: the stage costs (the intra-op solves, or reading the file), the DP.
              {"phases", Json{{"stage_costs", Json{{"elapsed_ms", elapsed_ms - dp_ms}}}, {"dp", Json{{"elapsed_ms", dp_ms}}}}},
              {"stages", stages}};
  if (!microbatch_search.empty()) {
    Json tried = Json::array();
    for (const auto& [b, total] : microbatch_search) {
      Json entry{{"microbatches", b}};
      entry["total_latency"] = total >= 0 ? Json(total) : Json(nullptr);
      tried.push_back(entry);
    }
    out["microbatch_search"] = tried;
  }
  if (space != "alpa") {
    // Today's space: the cp and ep of the plan, and every point of the outer enumeration.
    out["space"] = space;
    out["context_parallel"] = context_parallel;
    out["expert_parallel"] = expert_parallel;
    Json tried = Json::array();
    for (const auto& k : knob_search) {
      Json entry{{"cp", int(k[0])}, {"ep", int(k[1])}, {"microbatches", int(k[2])}};
      entry["total_latency"] = k[3] >= 0 ? Json(k[3]) : Json(nullptr);
      tried.push_back(entry);
    }
    out["knob_search"] = tried;
  }
  if (given)
    out["plan"] = Json{{"tensor", given->tensor}, {"pipeline", given->pipeline}, {"data", given->data}, {"context", given->context},
                       {"expert", given->expert}, {"interleave", given->interleave},
                       {"remat", given->remat()}, {"recompute", recompute_name(given->recompute)}, {"recompute_layers", given->recompute_layers},
                       {"sequence_parallel", given->sequence_parallel}, {"distributed_optimizer", given->distributed_optimizer}, {"text", given->text()}};
  // How a stage's time splits into F, B and W: the page's schedule charts read these.
  out["forward_share"] = forward_share;
  out["weight_share"] = weight_share;
  if (!schedules.empty()) {
    Json rows = Json::array();
    for (const PlanScheduleRow& r : schedules) {
      Json row{{"schedule", schedule_name(r.kind)}, {"fits", r.fits}};
      if (r.kind == ScheduleKind::interleaved) row["v"] = r.interleave;
      if (r.total_ms > 0) {
        row["total_latency"] = r.total_ms;
        row["bubble_fraction"] = r.bubble_fraction;
        row["peak_inflight"] = r.peak_inflight;
      }
      if (!r.why.empty()) row["why"] = r.why;
      if (r.planned) {
        // Its own plan (the DP on its memory): stages as [first, last] layers, the DP's closed
        // form, the stages recomputing, and the DPs run (one per stage count p tried).
        Json layers = Json::array();
        int recomputed = 0;
        for (const PipelineStage& st : r.plan.stages) {
          const auto [a, b] = stage_layers(st);
          layers.push_back(Json::array({a, b}));
        }
        if (int(&r - &schedules[0]) == chosen_schedule)
          for (const PipelineStage& st : r.plan.stages) recomputed += stage_memory_setting(st).second != Recompute::none;
        row["stage_count"] = r.plan.stages.size();
        row["stage_layers"] = layers;
        if (r.dp_total_ms > 0) row["dp_total_latency"] = r.dp_total_ms;
        row["dp_runs"] = r.dp_runs;
        row["dp_ms"] = r.dp_ms;
        if (int(&r - &schedules[0]) == chosen_schedule) row["recomputed_stages"] = recomputed;
      }
      rows.push_back(row);
    }
    out["schedule"] = schedule_name(schedules[size_t(chosen_schedule)].kind);
    out["schedules"] = rows;
    // How the schedule was chosen: a DP per schedule on its own memory ("per-schedule DP"), or
    // every schedule simulated on the one plan ("one plan": a given plan).
    out["schedule_planning"] = planned_per_schedule ? "per-schedule DP" : "one plan";
    if (planned_per_schedule) out["schedule_dp"] = Json{{"runs", schedule_dp_runs}, {"elapsed_ms", schedule_dp_ms}};
  }
  return out;
}

std::string InterReport::to_text() const {
  const InterOpPlan& p = plan;
  std::ostringstream t;
  const std::string unit = from_model ? " ms" : "";
  // A time in human units ("18.9 s", "352.2 ms"; number_text.h) when it is one, else the plain unitless cost.
  auto time_text = [&](double v) { return from_model ? format_ms(v) : fmt("%.4g", v); };
  if (given) t << "given plan " << given->text() << " (" << given->pipeline << " equal stages of " << given->data * given->context << "x" << given->tensor
                << (given->context > 1 ? ", context parallel: " + std::to_string(given->context) + " ranks share each sequence (ring attention)" : "")
                << (given->expert > 1 ? ", expert parallel: experts split " + std::to_string(given->expert) + " ways" : "")
                << (given->recompute == Recompute::full ? (given->recompute_layers > 0 ? ", full recomputation of " + std::to_string(given->recompute_layers) + " layers per " + (given->interleave > 1 ? "chunk" : "stage") : std::string(", full recomputation")) : given->recompute == Recompute::selective ? ", selective recomputation" : ", no recomputation")
                << (given->sequence_parallel ? ", sequence parallel" : "") << (given->interleave > 1 ? ", interleaved" : "") << ")\n";
  t << (from_model ? "pipeline of " + model_name : std::string("pipeline")) << " on " << table.nodes << "x" << table.gpus_per_node << " with "
    << microbatches << (microbatches == 1 ? " micro-batch (" : " micro-batches (") << mode
    << (table.has_boundaries ? (boundaries ? ", boundaries priced" : ", boundaries ignored as in Alpa's DP") : "") << "): " << p.stages.size()
    << (p.stages.size() == 1 ? " stage, total " : " stages, total ") << time_text(p.total_latency) << " (t_max " << time_text(p.t_max) << ", ";
  if (p.interleave > 1 && !given)
    t << "interleaved 1F1B, v = " << p.interleave << " chunks per device: sum / v + (B - 1/v) t_max, ";
  // The brute force enumerates every slicing and sub-mesh instead of t_max candidates.
  if (given) t << "priced, not searched)\n";
  else if (brute_force) t << "brute force over every slicing)\n";
  else t << p.t_max_tried << " of " << p.t_max_candidates << " t_max candidates tried)\n";
  t << pad("stage", 7) << pad("layers", 10) << pad("sub-mesh", 10) << pad("logical", 9) << pad("latency", 11, true)
    << (table.has_boundaries ? "  " + pad("boundary to next", 36) : "") << "  ops\n";
  for (size_t k = 0; k < p.stages.size(); ++k) {
    const auto& st = p.stages[k];
    const auto [first, last] = stage_layers(st);
    std::string ops, bnd;
    if (from_model) ops = layer_ops[size_t(st.first)].first + " .. " + layer_ops[size_t(st.last)].second;
    if (table.has_boundaries && k + 1 < p.stages.size()) {
      const BoundaryCost b = boundary_after(table, p, k);
      bnd = si(b.bytes) + "B " + (b.inter_node ? "across nodes " : "in a node ") + fmt("%.3g", b.ms()) + " ms" +
            (b.replicas > 1 ? (b.local_all_gather ? " (+local AG)" : " (x" + std::to_string(b.replicas) + " copies)") : "");
    }
    t << pad(std::to_string(k + 1), 7) << pad(std::to_string(first) + "-" + std::to_string(last), 10)
      << pad("(" + std::to_string(st.submesh.nodes) + "," + std::to_string(st.submesh.gpus) + ")", 10) << pad(st.logical_mesh, 9)
      << pad(fmt("%.4g", st.latency), 11, true) << (table.has_boundaries ? "  " + pad(bnd, 36) : "") << "  " << ops;
    const auto [zero, remat] = stage_memory_setting(st);
    t << (stage_sequence_parallel(st) && !given ? "  SP" : "") << (zero > 0 ? "  ZeRO-" + std::to_string(zero) : "") << (remat == Recompute::full ? "  recomputed" : remat == Recompute::selective ? "  attention recomputed" : "") << "\n";
  }
  if (!schedules.empty()) {
    t << (planned_per_schedule ? "pipeline schedules, each on its own DP plan (its memory per stage; the stages above are the chosen one's)"
                               : "pipeline schedules on these stages")
      << " (F = " << fmt("%.2f", forward_share) << " of a stage's time, W = " << fmt("%.2f", weight_share)
      << " of its backward, from the model's FLOPs):\n";
    for (size_t i = 0; i < schedules.size(); ++i) {
      const PlanScheduleRow& r = schedules[i];
      std::string plan_text;
      if (r.planned && !r.plan.stages.empty()) {
        plan_text = "  " + std::to_string(r.plan.stages.size()) + (r.plan.stages.size() == 1 ? " stage" : " stages") + ", DP " +
                    time_text(r.dp_total_ms) + ", " + std::to_string(r.dp_runs) + (r.dp_runs == 1 ? " DP" : " DPs");
      }
      t << (int(i) == chosen_schedule ? "* " : "  ") << pad(schedule_name(r.kind), 12)
        << (r.total_ms > 0 ? pad(time_text(r.total_ms), 14, true) + "  bubble " + pad(fmt("%.1f%%", 100 * r.bubble_fraction), 6, true) : pad("-", 14, true))
        << plan_text << (r.fits ? "" : "  does not fit: " + r.why) << "\n";
    }
    if (planned_per_schedule)
      t << "per-schedule DPs: " << schedule_dp_runs << " in " << format_ms(schedule_dp_ms) << " (the stage costs reused; no new intra-op solve)\n";
  }
  if (space != "alpa") {
    t << "today's space: cp " << context_parallel << ", ep " << expert_parallel << " (points tried, cp/ep/B -> total:";
    for (const auto& k : knob_search)
      t << " " << int(k[0]) << "/" << int(k[1]) << "/" << int(k[2]) << (k[3] >= 0 ? " -> " + time_text(k[3]) : std::string(" -> none"));
    t << ")\n";
  }
  if (!microbatch_search.empty()) {
    t << "micro-batches searched:";
    for (const auto& [b, total] : microbatch_search) t << " " << b << (total >= 0 ? " -> " + time_text(total) : std::string(" -> none"));
    t << "\n";
  }
  if (from_model)
    t << "layers: " << layers.size() << " ("
      << (layer_source == "model" ? "the model's own" : layer_source == "auto" ? "Alpa's automatic construction" : "graph cuts")
      << "); intra-op solves: " << solves << " units, " << reused << " reused from identical layers\n";
  return t.str();
}

}  // namespace autopar
