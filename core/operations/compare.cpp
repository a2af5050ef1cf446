// Compare: FlexFlow's MCMC plan and Alpa's pipeline plan, both simulated by FlexFlow's simulator.
#include "compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "device_mesh.h"
#include "engine_export.h"
#include "pipeline_schedule.h"
#include "report_text.h"
#include "sharding_spec.h"
#include "soap.h"

namespace autopar {
namespace {

Json breakdown_json(const SimSummary& s) {
  return Json{{"compute_ms", s.compute_ms}, {"activation_transfer_ms", s.activation_transfer_ms}, {"param_sync_ms", s.param_sync_ms},
              {"activation_bytes", s.activation_bytes}, {"param_sync_bytes", s.param_sync_bytes}, {"peak_memory_bytes", s.peak_memory_bytes}};
}

// The stage's sharding as SOAP configurations of its ops, on the cluster's GPUs.
void add_stage_strategy(const Graph& stage_graph, const CompareStage& st, Strategy& out) {
  Strategy local = alpa_plan_to_strategy(stage_graph, st.intra);
  for (OpConfig& c : local.ops) {
    for (int& d : c.devices) d = st.devices[size_t(d)];
    out.ops.push_back(std::move(c));
  }
}

// The copies of a pipeline simulation must stay within the op limit of a model.
std::optional<Error> pipeline_too_large(size_t ops, int microbatches) {
  if (ops * size_t(microbatches) <= size_t(kMaxOps)) return std::nullopt;
  return make_error(ErrorCode::too_large,
                    "compare simulates one copy of the model per micro-batch: " + std::to_string(ops) + " ops x " + std::to_string(microbatches) +
                        " micro-batches is more than " + std::to_string(kMaxOps) + " ops; give fewer --microbatches",
                    "--microbatches");
}

}  // namespace

int default_compare_microbatches(const Graph& g) {
  for (int b = 8; b > 1; --b) {
    bool divides = true;
    for (const Tensor& t : g.spec.inputs) divides &= !t.shape.empty() && t.shape[0] % b == 0;
    if (divides) return b;
  }
  return 1;
}

Result<Graph> pipeline_graph(const Graph& microbatch, int microbatches) {
  if (microbatches < 1) return make_error(ErrorCode::out_of_range, "--microbatches must be at least 1", "--microbatches");
  const size_t n = microbatch.ops.size();
  if (auto e = pipeline_too_large(n, microbatches)) return *e;
  ModelSpec spec;
  spec.name = microbatch.name();
  spec.dtype = microbatch.spec.dtype;
  for (int k = 0; k < microbatches; ++k) {
    const std::string tag = "#" + std::to_string(k);
    for (Tensor t : microbatch.spec.inputs) {
      t.name += tag;
      spec.inputs.push_back(std::move(t));
    }
    for (const Op& op : microbatch.ops) {
      OpSpec s = op.spec;
      s.name += tag;
      for (std::string& in : s.inputs) in += tag;
      s.output += tag;
      if (!s.weight_from.empty()) s.weight_from += tag;
      s.shape.reset();
      spec.ops.push_back(std::move(s));
    }
  }
  auto g = build_graph(spec);
  if (!g.ok()) return g.error();
  Graph out = std::move(g.value());
  // Every copy but the last reads the weights (param_bytes stays, for its compute time) but
  // holds none: no gradient sync, no weight memory (task_graph.cpp and device_memory.cpp
  // count weights by the params an op holds).
  for (size_t v = 0; v + n < out.ops.size(); ++v) out.ops[v].params.clear();
  return out;
}

Result<AlpaPipelinePlan> plan_alpa_pipeline(const Graph& g, const Cluster& c, int microbatches) {
  AlpaPipelinePlanner planner(g, c, microbatches);
  while (!planner.step()) {
  }
  return planner.result();
}

Status check_given_inter_plan(const InterOpPlan& plan, int layers, const Cluster& c, const std::string& path) {
  const std::string at = path + ".stages";
  if (plan.stages.empty()) return make_error(ErrorCode::bad_value, at + " is empty: a pipeline plan has at least one stage", at);
  int next_layer = 0, next_device = 0;
  for (size_t k = 0; k < plan.stages.size(); ++k) {
    const PipelineStage& s = plan.stages[k];
    const std::string here = at + "[" + std::to_string(k) + "]";
    if (s.first != next_layer || s.last < s.first || s.last >= layers)
      return make_error(ErrorCode::bad_value,
                        here + " covers layers " + std::to_string(s.first) + ".." + std::to_string(s.last) + "; the stages must cover layers 0.." +
                            std::to_string(layers - 1) + " of this model in order, the next from layer " + std::to_string(next_layer),
                        here + ".first");
    const bool shape_ok = s.submesh.nodes >= 1 && s.submesh.gpus >= 1 && s.submesh.nodes <= c.nodes && s.submesh.gpus <= c.gpus_per_node &&
                          (s.submesh.nodes == 1 || s.submesh.gpus == c.gpus_per_node);
    if (!shape_ok)
      return make_error(ErrorCode::bad_value,
                        here + "'s sub-mesh " + std::to_string(s.submesh.nodes) + "x" + std::to_string(s.submesh.gpus) + " is not one of Alpa's on a " +
                            std::to_string(c.nodes) + "x" + std::to_string(c.gpus_per_node) + " cluster",
                        here + ".submesh");
    // The plan's stages sit on consecutive devices in pipeline order (the inter-op pass's boundary model).
    if (s.device_offset != next_device || next_device + s.submesh.devices() > c.num_devices())
      return make_error(ErrorCode::bad_value,
                        here + " starts at device " + std::to_string(s.device_offset) + "; the stages must sit on consecutive devices, this one from " +
                            std::to_string(next_device) + ", within the cluster's " + std::to_string(c.num_devices()),
                        here + ".device_offset");
    auto shape = parse_mesh_shape(s.logical_mesh, here + ".logical_mesh");
    if (!shape.ok()) return shape.error();
    if (shape.value().first * shape.value().second != s.submesh.devices())
      return make_error(ErrorCode::bad_value, here + "'s logical mesh " + s.logical_mesh + " does not have the sub-mesh's " +
                                                  std::to_string(s.submesh.devices()) + " devices", here + ".logical_mesh");
    next_layer = s.last + 1;
    next_device += s.submesh.devices();
  }
  if (next_layer != layers)
    return make_error(ErrorCode::bad_value, at + " end at layer " + std::to_string(next_layer - 1) + "; this model has layers 0.." + std::to_string(layers - 1),
                      at);
  return Ok{};
}

AlpaPipelinePlanner::AlpaPipelinePlanner(const Graph& g, const Cluster& c, int microbatches, const std::optional<InterOpPlan>& given)
    : cluster_(c), microbatches_(microbatches) {
  auto micro = microbatch_graph(g, microbatches);
  if (!micro.ok()) {
    outcome_.emplace(micro.error());
    return;
  }
  InterOpOptions o;
  o.microbatches = microbatches;
  // The builder groups the layers as `inter` does (its constructor plans nothing).
  builder_.emplace(std::move(micro.value()), c, o);
  plan_.microbatches = microbatches;
  if (!given) return;
  if (auto st = check_given_inter_plan(*given, int(builder_->layers().size()), c, "inter_plan"); !st.ok()) {
    outcome_.emplace(st.error());
    return;
  }
  given_ = true;
  plan_.inter = *given;
  stages_ = int64_t(plan_.inter.stages.size());
  plan_.stage_of_op.assign(builder_->graph().ops.size(), 0);
  inter_done_ = true;
}

JobProgress AlpaPipelinePlanner::progress() const {
  if (!builder_) return JobProgress{0, 0, "Alpa plan"};
  // Every layer may become a stage of its own: the stages' plans are bounded by the layers.
  const int64_t stages = inter_done_ ? stages_ : int64_t(builder_->layers().size());
  const int64_t costs = given_ ? 0 : builder_->units_total() + 1;   // the stage costs and the DP, unless the plan was given
  const int64_t total = costs + stages;
  if (done()) return JobProgress{total, total, "Alpa plan"};
  const int64_t units = (given_ ? 0 : builder_->units_done() + (inter_done_ ? 1 : 0)) + int64_t(next_stage_);
  return JobProgress{units, total, !inter_done_ && !builder_->done() ? "stage costs" : !inter_done_ ? "pipeline DP" : "stage plans"};
}

bool AlpaPipelinePlanner::step() {
  if (done()) return true;
  if (!inter_done_ && !builder_->done()) {
    builder_->step(1);
    return false;
  }
  if (!inter_done_) {
    auto table = builder_->finish();
    if (!table.ok()) {
      outcome_.emplace(table.error());
      return true;
    }
    auto inter = solve_inter_op(table.value(), microbatches_, true);
    if (!inter.ok()) {
      outcome_.emplace(inter.error());
      return true;
    }
    plan_.inter = inter.value();
    stages_ = int64_t(plan_.inter.stages.size());
    plan_.stage_of_op.assign(builder_->graph().ops.size(), 0);
    inter_done_ = true;
  } else {
    plan_stage(next_stage_++);
  }
  if (done() || int64_t(next_stage_) < stages_) return done();
  if (plan_.strategy.ops.size() != builder_->graph().ops.size())
    outcome_.emplace(make_error(ErrorCode::bad_value, "the pipeline's stages do not cover every op of the model", "stages"));
  else
    outcome_.emplace(std::move(plan_));
  return true;
}

void AlpaPipelinePlanner::plan_stage(size_t k) {
  const StageCostBuilder& builder = *builder_;
  const PipelineStage& ps = plan_.inter.stages[k];
  CompareStage st;
  st.stage = ps;
  st.first_op = builder.layers()[size_t(ps.first)].first;
  st.last_op = builder.layers()[size_t(ps.last)].second;
  st.layer_numbers = {builder.layer_numbers()[size_t(ps.first)].first, builder.layer_numbers()[size_t(ps.last)].second};
  for (int d = 0; d < ps.submesh.devices(); ++d) st.devices.push_back(ps.device_offset + d);
  auto shape = parse_mesh_shape(ps.logical_mesh, "stages[" + std::to_string(k) + "].logical_mesh");
  if (!shape.ok()) {
    outcome_.emplace(shape.error());
    return;
  }
  Cluster sub = cluster_;
  sub.nodes = ps.submesh.nodes;
  sub.gpus_per_node = ps.submesh.gpus;
  auto mesh = mesh_from_cluster(shape.value().first, shape.value().second, sub);
  if (!mesh.ok()) {
    outcome_.emplace(mesh.error());
    return;
  }
  std::vector<std::string> activations;
  Graph sg = layer_subgraph(builder.graph(), st.first_op, st.last_op, activations);
  IntraOpOptions io;
  io.grad_sync_scale = 1.0 / microbatches_;   // as the stage costs: gradients sync once per iteration
  io.gradient_inputs = activations;
  auto intra = plan_intra_op(sg, mesh.value(), io);
  if (!intra.ok()) {
    outcome_.emplace(intra.error());
    return;
  }
  st.intra = std::move(intra.value());
  add_stage_strategy(sg, st, plan_.strategy);
  for (int v = st.first_op; v <= st.last_op; ++v) plan_.stage_of_op[size_t(v)] = int(k);
  plan_.stages.push_back(std::move(st));
}

Result<SimSummary> simulate_alpa_pipeline(const Graph& g, const Cluster& c, const AlpaPipelinePlan& plan) {
  auto micro = microbatch_graph(g, plan.microbatches);
  if (!micro.ok()) return micro.error();
  auto pipe = pipeline_graph(micro.value(), plan.microbatches);
  if (!pipe.ok()) return pipe.error();
  Strategy s;
  for (int k = 0; k < plan.microbatches; ++k) s.ops.insert(s.ops.end(), plan.strategy.ops.begin(), plan.strategy.ops.end());
  if (auto st = check_simulation_size(strategy_parts(s), "Alpa's plan, simulated over its micro-batches,", "--model"); !st.ok()) return st.error();
  TaskGraph tg(pipe.value(), c, s);
  simulate_full(tg);
  return summarize(tg);
}

Result<int> check_compare_request(const CompareRequest& r) {
  if (r.steps < 1) return make_error(ErrorCode::bad_value, "--steps needs a whole number of at least 1", "--steps");
  const int microbatches = r.microbatches == 0 ? default_compare_microbatches(r.graph) : r.microbatches;
  if (microbatches < 1) return make_error(ErrorCode::out_of_range, "--microbatches must be at least 1", "--microbatches");
  for (const Tensor& t : r.graph.spec.inputs)
    if (t.shape.empty() || t.shape[0] % microbatches != 0)
      return make_error(ErrorCode::bad_value, "the batch of input '" + t.name + "' does not divide into " + std::to_string(microbatches) +
                                         " micro-batches; pick a divisor", "--microbatches");
  if (auto e = pipeline_too_large(r.graph.ops.size(), microbatches)) return *e;
  // FlexFlow's search may split any op over every GPU: its largest strategy must be simulable.
  if (auto st = check_simulation_size(int64_t(r.graph.ops.size()) * r.cluster.num_devices(), "the search's largest strategy (every op over every GPU)", "--model");
      !st.ok())
    return st.error();
  return microbatches;
}

CompareFlexflowJob::CompareFlexflowJob(const CompareRequest& request) : request_(request) {
  auto checked = check_compare_request(request);
  if (!checked.ok()) {
    finish(checked.error());
    return;
  }
  // As `autopar compare`: the proposals from data parallel with the seed, beta and stopping as the search's defaults.
  SearchOptions o;
  o.steps = request.steps;
  o.seed = request.seed;
  search_ = std::make_unique<McmcSearch>(request.graph, request.cluster, data_parallel(request.graph, request.cluster.num_devices()), o);
}

JobProgress CompareFlexflowJob::progress() const { return JobProgress{search_steps(), request_.steps, "FlexFlow search"}; }

void CompareFlexflowJob::work(BudgetMeter& meter) {
  while (!search_->result().finished) {
    const int64_t n = std::min<int64_t>(50, meter.units_left());
    search_->step(n);
    if (meter.count(n)) break;
  }
  if (!search_->result().finished) return;
  CompareFlexflowPart part;
  part.search = search_->result();
  part.sim.planning_ms = compute_ms() + meter.elapsed_ms();
  TaskGraph ff(request_.graph, request_.cluster, part.search.best);
  simulate_full(ff);
  part.sim.summary = summarize(ff);
  finish(std::move(part));
}

CompareAlpaJob::CompareAlpaJob(const CompareRequest& request) : request_(request) {
  auto checked = check_compare_request(request);
  if (!checked.ok()) finish(checked.error());
  else planner_.emplace(request.graph, request.cluster, checked.value(), request.inter_plan);
}

JobProgress CompareAlpaJob::progress() const {
  if (!planner_) return JobProgress{done() ? 1 : 0, 1, "Alpa plan"};
  JobProgress p = planner_->progress();
  p.total += 1;   // the simulation
  if (done()) p.done = p.total;
  else if (planner_->done()) p.phase = "Alpa simulation";
  return p;
}

void CompareAlpaJob::work(BudgetMeter& meter) {
  while (!planner_->done()) {
    planner_->step();
    if (meter.count()) return;   // cancel and progress land between units
  }
  if (!planner_->result().ok()) return finish(planner_->result().error());
  const CompareRequest& r = request_;
  CompareAlpaPart part;
  part.cluster_shape = std::to_string(r.cluster.nodes) + "x" + std::to_string(r.cluster.gpus_per_node);
  part.plan = planner_->result().value();
  part.sim.planning_ms = compute_ms() + meter.elapsed_ms();
  auto sim = simulate_alpa_pipeline(r.graph, r.cluster, part.plan);
  if (!sim.ok()) return finish(sim.error());
  part.sim.summary = sim.value();
  meter.count();
  finish(std::move(part));
}

CompareJob::CompareJob(CompareRequest request)
    : request_(std::make_unique<CompareRequest>(std::move(request))), flexflow_(*request_), alpa_(*request_) {
  if (flexflow_.done() && !flexflow_.result().ok()) finish(flexflow_.result().error());
}

JobProgress CompareJob::progress() const {
  if (!flexflow_.done()) {
    JobProgress p = flexflow_.progress();
    p.total += alpa_.progress().total;   // Alpa's plan and simulation follow
    return p;
  }
  JobProgress p = alpa_.progress();
  p.done += request_->steps;
  p.total += request_->steps;
  return p;
}

void CompareJob::work(BudgetMeter& meter) {
  if (!flexflow_.done()) {
    flexflow_.step(meter.left());
    if (!flexflow_.done()) return;
    if (!flexflow_.result().ok()) return finish(flexflow_.result().error());
    if (meter.spent()) return;
  }
  alpa_.step(meter.left());
  if (!alpa_.done()) return;
  if (!alpa_.result().ok()) return finish(alpa_.result().error());
  const CompareFlexflowPart& f = flexflow_.result().value();
  const CompareAlpaPart& a = alpa_.result().value();
  CompareReport report;
  report.title = request_->title;
  report.cluster_shape = a.cluster_shape;
  report.flexflow = f.search;
  report.flexflow_sim = f.sim;
  report.alpa = a.plan;
  report.alpa_sim = a.sim;
  finish(std::move(report));
}

Result<CompareReport> run_compare(CompareRequest request) {
  CompareJob job(std::move(request));
  return run_to_end(job);
}

Json compare_json(const std::string& title, Json flexflow, Json alpa) {
  return Json{{"model", title}, {"flexflow", std::move(flexflow)}, {"alpa", std::move(alpa)}};
}

Json CompareReport::to_json(const Graph& g) const {
  CompareFlexflowPart f{flexflow, flexflow_sim};
  CompareAlpaPart a{cluster_shape, alpa, alpa_sim};
  return compare_json(title, f.to_json(g), a.to_json(g));
}

Json CompareFlexflowPart::to_json(const Graph& g) const {
  const SimSummary& f = sim.summary;
  return Json{{"makespan_ms", f.makespan_ms}, {"fits", f.fits}, {"search_steps", search.steps}, {"elapsed_ms", sim.planning_ms},
              {"breakdown", breakdown_json(f)}, {"strategy", strategy_to_json(g, search.best)}};
}

Json CompareAlpaPart::to_json(const Graph& g) const {
  const AlpaPipelinePlan& alpa = plan;
  Json plan_ops = Json::array();
  Json stages = Json::array();
  // Op names are the model's: the micro-batch graph the stages index has the same ops in the same order.
  for (size_t k = 0; k < alpa.stages.size(); ++k) {
    const CompareStage& st = alpa.stages[k];
    for (int v = st.first_op; v <= st.last_op; ++v) {
      const size_t local = size_t(v - st.first_op);
      const OpStrategy& s = st.intra.strategies[local][size_t(st.intra.solution.choice[local])];
      plan_ops.push_back(Json{{"name", g.ops[size_t(v)].name()}, {"stage", int(k)}, {"strategy", s.name}, {"output_spec", spec_to_string(s.output)}});
    }
    Json boundary = nullptr;
    if (k + 1 < alpa.stages.size())
      boundary = Json{{"bytes", st.stage.send_bytes}, {"ms", st.stage.send_ms + alpa.stages[k + 1].stage.recv_ms}, {"inter_node", st.stage.send_inter_node}};
    stages.push_back(Json{{"layers", Json::array({st.layer_numbers[0], st.layer_numbers[1]})},
                          {"ops", Json::array({g.ops[size_t(st.first_op)].name(), g.ops[size_t(st.last_op)].name()})},
                          {"submesh", Json::array({st.stage.submesh.nodes, st.stage.submesh.gpus})},
                          {"logical_mesh", st.stage.logical_mesh},
                          {"devices", Json::array({st.devices.front(), st.devices.back()})},
                          {"latency", st.stage.latency},
                          {"boundary", boundary}});
  }
  const SimSummary& a = sim.summary;
  // Alpa's strategy configures the micro-batch graph, whose split dimensions can differ from the
  // model's (a batch of one has no sample split), so it is written against that graph.
  auto micro = microbatch_graph(g, alpa.microbatches);
  const Json alpa_strategy_json = micro.ok() ? strategy_to_json(micro.value(), alpa.strategy) : Json(nullptr);
  // The same plan run by the schedule model (pipeline_schedule.h): the makespans the inter-op
  // tab's charts and `inter --schedule gpipe|1f1b` give it.
  const PlanShares shares{plan_forward_share(g), plan_weight_share(g)};
  Json schedules = Json::object();
  for (const auto& [name, kind] : {std::pair<const char*, PipelineKind>{"gpipe", PipelineKind::gpipe}, {"1f1b", PipelineKind::one_f_one_b}}) {
    const PipelineSchedule ps = plan_pipeline_schedule(alpa.inter, alpa.microbatches, kind, shares);
    schedules[name] = Json{{"makespan_ms", ps.makespan_ms}, {"bubble_fraction", ps.bubble_fraction}};
  }
  return Json{{"makespan_ms", a.makespan_ms},
              {"mesh", cluster_shape},
              {"objective", alpa.inter.total_latency},
              {"schedules", schedules},
              {"microbatches", alpa.microbatches},
              {"stages", stages},
              {"solve_ms", sim.planning_ms},
              {"breakdown", breakdown_json(a)},
              {"plan", plan_ops},
              {"strategy", alpa_strategy_json}};
}

std::string CompareReport::to_text() const {
  const SimSummary& f = flexflow_sim.summary;
  const SimSummary& a = alpa_sim.summary;
  std::ostringstream t;
  char line[240];
  t << "FlexFlow and Alpa on " << title << ", both simulated by FlexFlow's simulator\n";
  std::snprintf(line, sizeof line, "  %-9s %10s %10s %12s %12s %10s\n", "", "makespan", "compute", "act. xfer", "param sync", "planning");
  t << line;
  std::snprintf(line, sizeof line, "  %-9s %8.3f ms %8.3f %12.3f %12.3f %7.0f ms (MCMC, %lld steps)\n", "FlexFlow", f.makespan_ms, f.compute_ms,
                f.activation_transfer_ms, f.param_sync_ms, flexflow_sim.planning_ms, (long long)flexflow.steps);
  t << line;
  std::snprintf(line, sizeof line, "  %-9s %8.3f ms %8.3f %12.3f %12.3f %7.1f ms (%zu stage%s, %d micro-batches)\n", "Alpa", a.makespan_ms, a.compute_ms,
                a.activation_transfer_ms, a.param_sync_ms, alpa_sim.planning_ms, alpa.stages.size(), alpa.stages.size() == 1 ? "" : "s",
                alpa.microbatches);
  t << line;
  // The search returns its best strategy even when none it saw fits (its cost only penalises
  // overflow); a makespan alone would read as a usable plan.
  if (!f.fits)
    t << "  FlexFlow's plan DOES NOT FIT: " << fmt("%.2f", double(f.peak_memory_bytes) / 1e9) << " GB on its fullest GPU, "
      << f.over_capacity_devices << " GPU" << (f.over_capacity_devices == 1 ? "" : "s") << " over capacity\n";
  t << "Alpa's pipeline (inter-op objective " << fmt("%.4g", alpa.inter.total_latency) << " ms; simulated micro-batch by micro-batch, "
    << "boundaries as transfer tasks):\n";
  for (size_t k = 0; k < alpa.stages.size(); ++k) {
    const CompareStage& st = alpa.stages[k];
    t << "  stage " << k << ": layers " << st.layer_numbers[0] << "-" << st.layer_numbers[1] << " on GPUs " << st.devices.front() << "-"
      << st.devices.back() << " (sub-mesh " << st.stage.submesh.nodes << "x" << st.stage.submesh.gpus << ", logical " << st.stage.logical_mesh << ")";
    if (k + 1 < alpa.stages.size())
      t << ", sends " << fmt("%.4g", st.stage.send_bytes / 1048576.0) << " MiB per micro-batch " << (st.stage.send_inter_node ? "across nodes" : "inside a node");
    t << "\n";
  }
  t << "(Alpa's plan as SOAP configurations: a row-parallel split of a reduced dimension runs replicated there.)\n";
  return t.str();
}

}  // namespace autopar
