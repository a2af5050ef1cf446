// The inter-op pass as a job. See inter_operation.h.
#include "inter_operation.h"

#include <chrono>
#include <sstream>

#include "report_text.h"

namespace autopar {

namespace {

// What both jobs plan on: the graph of one micro-batch, and the request's options with the
// micro-batch count set.
struct MicroBatchInputs {
  Graph graph;
  InterOpOptions options;
};

Result<MicroBatchInputs> microbatch_inputs(const Graph& graph, const InterRequest& request) {
  auto micro = microbatch_graph(graph, request.microbatches);
  if (!micro.ok()) return micro.error();
  InterOpOptions o = request.options;
  o.microbatches = request.microbatches;
  return MicroBatchInputs{std::move(micro.value()), o};
}

}  // namespace

InterJob::InterJob(const Graph& graph, const Cluster& cluster, const InterRequest& request) : request_(request) {
  const auto start = std::chrono::steady_clock::now();
  report_.microbatches = request.microbatches;
  report_.mode = request.options.mode;
  report_.from_model = true;
  report_.boundaries = request.boundaries;
  report_.brute_force = request.brute_force;
  report_.model_name = graph.name();
  auto micro = microbatch_inputs(graph, request);
  if (!micro.ok()) {
    finish(micro.error());
    return;
  }
  const InterOpOptions& o = micro.value().options;
  request_.options = o;
  // How the layers were found: Alpa's construction when asked for, else the model's own or cuts.
  if (o.layers > 0) {
    report_.layer_source = "auto";
  } else {
    auto layers = plan_layers(micro.value().graph, o);
    report_.layer_source = layers.ok() ? layers.value().source : "cuts";
  }
  builder_.emplace(std::move(micro.value().graph), cluster, o);
  setup_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

InterJob::InterJob(const Graph& graph, const Cluster& cluster, const InterRequest& request, const std::vector<StageCostPart>& parts)
    : InterJob(graph, cluster, request) {
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
  solver_.emplace(report_.table, request_.microbatches, request_.boundaries);
}

StageCostJob::StageCostJob(const Graph& graph, const Cluster& cluster, const InterRequest& request, int share_index, int share_count) {
  auto micro = microbatch_inputs(graph, request);
  if (!micro.ok()) {
    finish(micro.error());
    return;
  }
  builder_.emplace(std::move(micro.value().graph), cluster, micro.value().options, share_index, share_count);
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
              {"t_max_tried", p.t_max_tried},
              {"t_max_candidates", p.t_max_candidates},
              {"boundaries", p.boundaries},
              {"stages", stages}};
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
    report_.table = table.value();
    take_layers(*builder_);
    report_.reused = builder_->reused_solves();
    report_.solves = builder_->units_done();
    builder_.reset();
    solver_.emplace(report_.table, request_.microbatches, request_.boundaries);
    if (meter.spent()) return;
  }
  solve(meter);
}

void InterJob::solve(BudgetMeter& meter) {
  const double start_ms = meter.elapsed_ms();   // this slice's time in the DP is added to dp_ms
  if (request_.brute_force) {
    auto plan = brute_force_inter_op(report_.table, request_.microbatches, request_.boundaries);
    if (!plan.ok()) return finish(plan.error());
    report_.plan = plan.value();
  } else {
    while (!solver_->done()) {
      solver_->step(1);
      if (meter.count()) break;
    }
    report_.dp_ms += meter.elapsed_ms() - start_ms;
    if (!solver_->done()) return;
    auto plan = solver_->finish();
    if (!plan.ok()) return finish(plan.error());
    report_.plan = plan.value();
  }
  if (request_.brute_force) report_.dp_ms += meter.elapsed_ms() - start_ms;
  report_.elapsed_ms = setup_ms_ + compute_ms() + meter.elapsed_ms();
  finish(report_);
}

JobProgress InterJob::progress() const {
  if (builder_) return JobProgress{builder_->units_done(), builder_->units_total(), "stage costs"};
  if (solver_) return JobProgress{solver_->rows_done(), solver_->rows_bound(), "pipeline DP"};
  return JobProgress{0, 0, "pipeline DP"};
}

std::pair<int, bool> InterReport::stage_memory_setting(const PipelineStage& st) const {
  size_t sm = 0;
  while (sm + 1 < table.submeshes.size() && !(table.submeshes[sm] == st.submesh)) ++sm;
  const size_t entry = table.index(st.first, st.last, int(sm));
  const int zero = entry < table.zero_stage.size() ? table.zero_stage[entry] : 0;
  const bool remat = entry < table.remat.size() && table.remat[entry];
  return {zero, remat};
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
  return boundary_cost(table, p.stages[k].last, table.index(next.first, next.last, int(m)), boundary_crosses_nodes(table, next.device_offset));
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
    s["remat"] = remat;
    if (from_model) s["ops"] = Json::array({layer_ops[size_t(st.first)].first, layer_ops[size_t(st.last)].second});
    if (table.has_boundaries) {
      s["device_offset"] = st.device_offset;
      if (k + 1 < p.stages.size()) {
        const BoundaryCost b = boundary_after(table, p, k);
        boundary_total += b.ms();
        const std::string link = b.inter_node ? "inter-node" : "intra-node";
        Json coll = Json::array();
        coll.push_back(Json{{"kind", "send/recv"}, {"link", link}, {"bytes", b.bytes}, {"ms", b.send_ms}, {"what", "one copy forward, the gradient back"}});
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
  return Json{{"total_latency", p.total_latency},
              {"t_max", p.t_max},
              {"microbatches", microbatches},
              {"mode", mode},
              {"layers", table.layers},
              {"t_max_tried", p.t_max_tried},
              {"t_max_candidates", p.t_max_candidates},
              {"solver", brute_force ? "brute-force" : "dp"},
              {"boundaries", table.has_boundaries ? (boundaries ? "priced" : "ignored") : "none"},
              {"boundary_ms_total", boundary_total},
              {"layer_source", layer_source},
              {"reused_solves", reused},
              {"elapsed_ms", elapsed_ms},
              // Wall-clock time per phase: the stage costs (the intra-op solves, or reading the file), the DP.
              {"phases", Json{{"stage_costs", Json{{"elapsed_ms", elapsed_ms - dp_ms}}}, {"dp", Json{{"elapsed_ms", dp_ms}}}}},
              {"stages", stages}};
}

std::string InterReport::to_text() const {
  const InterOpPlan& p = plan;
  std::ostringstream t;
  const std::string unit = from_model ? " ms" : "";
  t << (from_model ? "pipeline of " + model_name : std::string("pipeline")) << " on " << table.nodes << "x" << table.gpus_per_node << " with "
    << microbatches << (microbatches == 1 ? " micro-batch (" : " micro-batches (") << mode
    << (table.has_boundaries ? (boundaries ? ", boundaries priced" : ", boundaries ignored as in Alpa's DP") : "") << "): " << p.stages.size()
    << (p.stages.size() == 1 ? " stage, total " : " stages, total ") << fmt("%.4g", p.total_latency) << unit << " (t_max " << fmt("%.4g", p.t_max) << ", ";
  // The brute force enumerates every slicing and sub-mesh instead of t_max candidates.
  if (brute_force) t << "brute force over every slicing)\n";
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
    t << pad(std::to_string(k), 7) << pad(std::to_string(first) + "-" + std::to_string(last), 10)
      << pad("(" + std::to_string(st.submesh.nodes) + "," + std::to_string(st.submesh.gpus) + ")", 10) << pad(st.logical_mesh, 9)
      << pad(fmt("%.4g", st.latency), 11, true) << (table.has_boundaries ? "  " + pad(bnd, 36) : "") << "  " << ops;
    const auto [zero, remat] = stage_memory_setting(st);
    t << (zero > 0 ? "  ZeRO-" + std::to_string(zero) : "") << (remat ? "  recomputed" : "") << "\n";
  }
  if (from_model)
    t << "layers: " << layers.size() << " ("
      << (layer_source == "model" ? "the model's own" : layer_source == "auto" ? "Alpa's automatic construction" : "graph cuts")
      << "); intra-op solves: " << solves << " units, " << reused << " reused from identical layers\n";
  return t.str();
}

}  // namespace autopar
