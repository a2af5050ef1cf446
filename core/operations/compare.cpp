// Compare: FlexFlow's MCMC plan and Alpa's pipeline plan, both simulated by FlexFlow's simulator.
#include "compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "device_mesh.h"
#include "engine_export.h"
#include "sharding_spec.h"

namespace autopar {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

Json breakdown_json(const SimSummary& s) {
  return Json{{"compute_ms", s.compute_ms}, {"activation_transfer_ms", s.activation_transfer_ms}, {"param_sync_ms", s.param_sync_ms},
              {"activation_bytes", s.activation_bytes}, {"param_sync_bytes", s.param_sync_bytes}, {"peak_memory_bytes", s.peak_memory_bytes}};
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
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
  return make_error("too_large",
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
  if (microbatches < 1) return make_error("out_of_range", "--microbatches must be at least 1", "--microbatches");
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
  for (size_t v = 0; v + n < out.ops.size(); ++v) {   // every copy but the last
    out.ops[v].param_bytes = 0;
    out.ops[v].params.clear();
  }
  return out;
}

Result<AlpaPipelinePlan> plan_alpa_pipeline(const Graph& g, const Cluster& c, int microbatches) {
  auto micro = microbatch_graph(g, microbatches);
  if (!micro.ok()) return micro.error();
  InterOpOptions o;
  o.microbatches = microbatches;
  StageCostBuilder builder(micro.value(), c, o);
  auto table = builder.finish();
  if (!table.ok()) return table.error();
  auto inter = solve_inter_op(table.value(), microbatches, true);
  if (!inter.ok()) return inter.error();
  AlpaPipelinePlan plan;
  plan.microbatches = microbatches;
  plan.inter = inter.value();
  const Graph& mg = builder.graph();
  plan.stage_of_op.assign(mg.ops.size(), 0);
  for (size_t k = 0; k < plan.inter.stages.size(); ++k) {
    const PipelineStage& ps = plan.inter.stages[k];
    CompareStage st;
    st.stage = ps;
    st.first_op = builder.layers()[size_t(ps.first)].first;
    st.last_op = builder.layers()[size_t(ps.last)].second;
    st.layer_numbers = {builder.layer_numbers()[size_t(ps.first)].first, builder.layer_numbers()[size_t(ps.last)].second};
    for (int d = 0; d < ps.submesh.devices(); ++d) st.devices.push_back(ps.device_offset + d);
    auto shape = parse_mesh_shape(ps.logical_mesh, "stages[" + std::to_string(k) + "].logical_mesh");
    if (!shape.ok()) return shape.error();
    Cluster sub = c;
    sub.nodes = ps.submesh.nodes;
    sub.gpus_per_node = ps.submesh.gpus;
    auto mesh = mesh_from_cluster(shape.value().first, shape.value().second, sub);
    if (!mesh.ok()) return mesh.error();
    std::vector<std::string> activations;
    Graph sg = layer_subgraph(mg, st.first_op, st.last_op, activations);
    IntraOpOptions io;
    io.grad_sync_scale = 1.0 / microbatches;   // as the stage costs: gradients sync once per iteration
    io.gradient_inputs = activations;
    auto intra = plan_intra_op(sg, mesh.value(), io);
    if (!intra.ok()) return intra.error();
    st.intra = std::move(intra.value());
    add_stage_strategy(sg, st, plan.strategy);
    for (int v = st.first_op; v <= st.last_op; ++v) plan.stage_of_op[size_t(v)] = int(k);
    plan.stages.push_back(std::move(st));
  }
  if (plan.strategy.ops.size() != mg.ops.size())
    return make_error("bad_value", "the pipeline's stages do not cover every op of the model", "stages");
  return plan;
}

Result<SimSummary> simulate_alpa_pipeline(const Graph& g, const Cluster& c, const AlpaPipelinePlan& plan) {
  auto micro = microbatch_graph(g, plan.microbatches);
  if (!micro.ok()) return micro.error();
  auto pipe = pipeline_graph(micro.value(), plan.microbatches);
  if (!pipe.ok()) return pipe.error();
  Strategy s;
  for (int k = 0; k < plan.microbatches; ++k) s.ops.insert(s.ops.end(), plan.strategy.ops.begin(), plan.strategy.ops.end());
  TaskGraph tg(pipe.value(), c, s);
  simulate_full(tg);
  return summarize(tg);
}

CompareJob::CompareJob(CompareRequest request) : request_(std::make_unique<CompareRequest>(std::move(request))) {
  CompareRequest& r = *request_;
  if (r.steps < 1) error_ = make_error("bad_value", "--steps needs a whole number of at least 1", "--steps");
  if (r.microbatches == 0) r.microbatches = default_compare_microbatches(r.graph);
  if (!error_) {
    for (const Tensor& t : r.graph.spec.inputs)
      if (t.shape.empty() || t.shape[0] % r.microbatches != 0) {
        error_ = make_error("bad_value", "the batch of input '" + t.name + "' does not divide into " + std::to_string(r.microbatches) +
                                             " micro-batches; pick a divisor", "--microbatches");
        break;
      }
  }
  if (!error_) error_ = pipeline_too_large(r.graph.ops.size(), r.microbatches);
  if (error_) {
    done_ = true;
    return;
  }
  report_.title = r.title;
  report_.cluster_shape = std::to_string(r.cluster.nodes) + "x" + std::to_string(r.cluster.gpus_per_node);
  SearchOptions o;
  o.steps = r.steps;
  o.seed = r.seed;
  search_ = std::make_unique<McmcSearch>(r.graph, r.cluster, data_parallel(r.graph, r.cluster.num_devices()), o);
}

int64_t CompareJob::search_steps() const { return search_ ? search_->result().steps : 0; }

double CompareJob::progress() const {
  if (done_) return 1;
  // The search is most of the work on the lecture's models; Alpa's planning is the last tenth.
  return 0.9 * double(search_steps()) / double(std::max<int64_t>(1, request_->steps));
}

bool CompareJob::step(double budget_ms) {
  if (done_) return true;
  const auto t0 = std::chrono::steady_clock::now();
  if (!search_->result().finished) {
    do search_->step(50);
    while (!search_->result().finished && ms_since(t0) < budget_ms);
    search_ms_ += ms_since(t0);
    if (!search_->result().finished) return false;
  }
  finish_alpa();
  return true;
}

void CompareJob::finish_alpa() {
  const CompareRequest& r = *request_;
  report_.flexflow = search_->result();
  report_.flexflow_sim.planning_ms = search_ms_;
  TaskGraph ff(r.graph, r.cluster, report_.flexflow.best);
  simulate_full(ff);
  report_.flexflow_sim.summary = summarize(ff);
  const auto t0 = std::chrono::steady_clock::now();
  auto plan = plan_alpa_pipeline(r.graph, r.cluster, r.microbatches);
  done_ = true;
  if (!plan.ok()) {
    error_ = plan.error();
    return;
  }
  report_.alpa = std::move(plan.value());
  report_.alpa_sim.planning_ms = ms_since(t0);
  auto sim = simulate_alpa_pipeline(r.graph, r.cluster, report_.alpa);
  if (!sim.ok()) {
    error_ = sim.error();
    return;
  }
  report_.alpa_sim.summary = sim.value();
}

Result<CompareReport> CompareJob::finish() {
  while (!done_) step(1e9);
  if (error_) return *error_;
  return report_;
}

Result<CompareReport> run_compare(CompareRequest request) {
  CompareJob job(std::move(request));
  return job.finish();
}

Json CompareReport::to_json(const Graph& g) const {
  Json plan = Json::array();
  Json stages = Json::array();
  // Op names are the model's: the micro-batch graph the stages index has the same ops in the same order.
  for (size_t k = 0; k < alpa.stages.size(); ++k) {
    const CompareStage& st = alpa.stages[k];
    for (int v = st.first_op; v <= st.last_op; ++v) {
      const size_t local = size_t(v - st.first_op);
      const OpStrategy& s = st.intra.strategies[local][size_t(st.intra.solution.choice[local])];
      plan.push_back(Json{{"name", g.ops[size_t(v)].name()}, {"stage", int(k)}, {"strategy", s.name}, {"output_spec", spec_to_string(s.output)}});
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
  const SimSummary& f = flexflow_sim.summary;
  const SimSummary& a = alpa_sim.summary;
  // Alpa's strategy configures the micro-batch graph, whose split dimensions can differ from the
  // model's (a batch of one has no sample split), so it is written against that graph.
  auto micro = microbatch_graph(g, alpa.microbatches);
  const Json alpa_strategy_json = micro.ok() ? strategy_to_json(micro.value(), alpa.strategy) : Json(nullptr);
  return Json{{"model", title},
              {"flexflow", Json{{"makespan_ms", f.makespan_ms}, {"fits", f.fits}, {"search_steps", flexflow.steps}, {"elapsed_ms", flexflow_sim.planning_ms},
                                {"breakdown", breakdown_json(f)}, {"strategy", strategy_to_json(g, flexflow.best)}}},
              {"alpa", Json{{"makespan_ms", a.makespan_ms},
                            {"mesh", cluster_shape},
                            {"objective", alpa.inter.total_latency},
                            {"microbatches", alpa.microbatches},
                            {"stages", stages},
                            {"solve_ms", alpa_sim.planning_ms},
                            {"breakdown", breakdown_json(a)},
                            {"plan", plan},
                            {"strategy", alpa_strategy_json}}}};
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
