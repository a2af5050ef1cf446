// The operations as messages. See worker_session.h.
#include "worker_session.h"

#include <chrono>
#include <functional>
#include <optional>
#include <utility>

#include "accuracy_operation.h"
#include "alpa_operations.h"
#include "cluster_spec.h"
#include "compare.h"
#include "export_operation.h"
#include "flexflow_operations.h"
#include "inter_operation.h"
#include "knob_search.h"
#include "memory_model.h"
#include "memory_operation.h"
#include "models.h"
#include "operation_requests.h"
#include "report_text.h"
#include "scenarios.h"
#include "search_operation.h"

namespace autopar {

namespace {

// inputs.precision (as --precision), when given.
Result<std::optional<Precision>> precision_of(const Json& inputs) {
  if (!inputs.is_object() || !inputs.contains("precision")) return std::optional<Precision>();
  auto text = string_from_json(inputs["precision"], "inputs.precision", "fp32, tf32, bf16, fp16, fp8 or mixed");
  if (!text.ok()) return text.error();
  auto parsed = precision_from_text(text.value(), "inputs.precision");
  if (!parsed.ok()) return parsed.error();
  return std::optional<Precision>(parsed.value());
}

}  // namespace

Result<Graph> graph_from_inputs(const Json& inputs) {
  if (!inputs.is_object() || !inputs.contains("model") || !inputs["model"].is_string())
    return make_error(ErrorCode::missing_field, "the inputs need 'model': a built-in model such as \"transformer:layers=24\"", "inputs.model");
  auto precision = precision_of(inputs);
  if (!precision.ok()) return precision.error();
  std::string model = inputs["model"].get<std::string>();
  if (inputs.contains("model_json")) {
    if (!inputs["model_json"].is_string()) return make_error(ErrorCode::wrong_type, "inputs.model_json must be the model file's text", "inputs.model_json");
    // The page's imported file by its name, with the overrides typed after it ("NAME.json:batch=16").
    const ModelFileSpec spec = split_model_file_spec(model);
    auto g = spec.is_file ? load_model_json(inputs["model_json"].get<std::string>(), spec.file, spec.overrides, "inputs.model")
                          : load_model_json(inputs["model_json"].get<std::string>(), model);
    if (!g.ok()) {
      Error e = g.error();
      e.path = e.path.empty() ? "inputs.model_json" : "inputs.model_json." + e.path;
      return e;
    }
    return g;
  }
  // --precision's model half, as the CLI and the page load it: 16-bit floats in mixed precision.
  if (precision.value())
    model += std::string(model.find(':') == std::string::npos ? ":" : ",") + "dtype_bytes=" + (is_mixed_precision(*precision.value()) ? "2" : "4");
  auto spec = builtin_model_spec(model, "inputs.model");
  if (!spec.ok()) return spec.error();
  return build_graph(spec.value());
}

Result<Cluster> cluster_from_inputs(const Json& inputs) {
  if (!inputs.is_object() || !inputs.contains("cluster"))
    return make_error(ErrorCode::missing_field, "the inputs need 'cluster': a spec such as \"lecture:4x8\" or the cluster's JSON", "inputs.cluster");
  auto precision = precision_of(inputs);
  if (!precision.ok()) return precision.error();
  const Json& c = inputs["cluster"];
  auto cluster = c.is_string() ? load_cluster(c.get<std::string>(), "inputs.cluster") : cluster_from_json(c);
  if (!cluster.ok()) {
    Error e = cluster.error();
    if (!c.is_string()) e.path = e.path.empty() ? "inputs.cluster" : "inputs.cluster." + e.path;
    return e;
  }
  if (precision.value()) cluster.value().gpu.precision = *precision.value();   // --precision's cluster half: the GPU peak in use
  return cluster;
}

Result<std::shared_ptr<const BuiltInputs>> InputsCache::get(const Json& inputs) {
  // The whole inputs' text is the key: an imported model is its file's text, and a hash that
  // collided would price another model.
  std::string key = inputs.dump();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first != key) continue;
    entries_.splice(entries_.begin(), entries_, it);
    return entries_.front().second;
  }
  auto graph = graph_from_inputs(inputs);
  if (!graph.ok()) return graph.error();
  auto cluster = cluster_from_inputs(inputs);
  if (!cluster.ok()) return cluster.error();
  ++builds_;
  entries_.emplace_front(std::move(key), std::make_shared<const BuiltInputs>(BuiltInputs{std::move(graph.value()), std::move(cluster.value())}));
  if (entries_.size() > kSize) entries_.pop_back();
  return entries_.front().second;
}

namespace {

// A Job<Report> with the graph and cluster it refers to, and its report's JSON.
template <class JobType, class ToJson>
class OperationOf : public RunningOperation {
 public:
  OperationOf(Graph graph, Cluster cluster, ToJson to_json) : graph_(std::move(graph)), cluster_(std::move(cluster)), to_json_(std::move(to_json)) {}
  template <class... Args>
  void start(Args&&... args) {
    job_ = std::make_unique<JobType>(graph_, cluster_, std::forward<Args>(args)...);
  }
  // For jobs that own their graph and cluster (they take them by value).
  template <class... Args>
  void start_owning(Graph g, Cluster c, Args&&... args) {
    job_ = std::make_unique<JobType>(std::move(g), std::move(c), std::forward<Args>(args)...);
  }
  bool step(const StepBudget& budget) override { return job_->step(budget); }
  JobProgress progress() const override { return job_->progress(); }
  void cancel() override { job_->cancel(); }
  Result<Json> result() const override {
    const auto& r = job_->result();
    if (!r.ok()) return r.error();
    return to_json_(r.value(), *job_);
  }
  Json partial() override { return partial_ ? partial_(*job_) : Json(nullptr); }
  // Gives the operation partial results: `f(job)` returns what is new since its last call.
  void set_partial(std::function<Json(const JobType&)> f) { partial_ = std::move(f); }

 private:
  Graph graph_;                 // before job_: the job may refer to them
  Cluster cluster_;
  ToJson to_json_;
  std::function<Json(const JobType&)> partial_;
  std::unique_ptr<JobType> job_;
};

template <class JobType, class ToJson>
std::unique_ptr<OperationOf<JobType, ToJson>> make_operation(Graph g, Cluster c, ToJson f) {
  return std::make_unique<OperationOf<JobType, ToJson>>(std::move(g), std::move(c), std::move(f));
}

// The worker names request fields "request.NAME".
const FieldPath kRequestPath = json_field_path("request");

// request.NAME as a whole number in `bound`, else `fallback` when absent.
Result<int> request_int(const Json& request, const char* name, WholeBound bound, int fallback) {
  if (!request.contains(name)) return fallback;
  auto x = whole_from_json(request[name], kRequestPath(name));
  if (!x.ok()) return x.error();
  if (auto st = check_bound(x.value(), bound, kRequestPath(name)); !st.ok()) return st.error();
  return int(x.value());
}

// One half of compare (CompareFlexflowJob or CompareAlpaJob) with the request it refers to;
// its result is {KEY: the half's JSON}, as `compare --json` holds it under KEY.
template <class Half>
class CompareHalfOperation : public RunningOperation {
 public:
  CompareHalfOperation(CompareRequest request, const char* key) : request_(std::move(request)), job_(request_), key_(key) {}
  bool step(const StepBudget& budget) override { return job_.step(budget); }
  JobProgress progress() const override { return job_.progress(); }
  void cancel() override { job_.cancel(); }
  Result<Json> result() const override {
    const auto& r = job_.result();
    if (!r.ok()) return r.error();
    return Json{{key_, r.value().to_json(request_.graph)}};
  }

 private:
  CompareRequest request_;   // before job_: the job refers to it
  Half job_;
  const char* key_;
};

// An operation done in one unit of work (the intra-op plan, an export): `run` computes its
// result on the first step.
class SingleStepOperation : public RunningOperation {
 public:
  SingleStepOperation(const char* phase, std::function<Result<Json>()> run) : phase_(phase), run_(std::move(run)) {}
  bool step(const StepBudget&) override {
    if (!outcome_) outcome_.emplace(run_());
    return true;
  }
  JobProgress progress() const override { return JobProgress{outcome_ ? 1 : 0, 1, phase_}; }
  void cancel() override {
    if (!outcome_) outcome_.emplace(cancelled_error());
  }
  Result<Json> result() const override { return *outcome_; }

 private:
  const char* phase_;
  std::function<Result<Json>()> run_;
  std::optional<Result<Json>> outcome_;
};

// The compare request of a message (compare_request_from_json) with the inputs' graph and cluster.
Result<CompareRequest> compare_request(const Json& request, Graph graph, Cluster cluster) {
  auto r = compare_request_from_json(request, kRequestPath);
  if (!r.ok()) return r.error();
  r.value().graph = std::move(graph);
  r.value().cluster = std::move(cluster);
  return r;
}

using Started = Result<std::unique_ptr<RunningOperation>>;

// "compare_flexflow" or "compare_alpa": one half of compare.
Started start_compare_half(const std::string& operation, const Json& req, Graph graph, Cluster cluster) {
  auto cr = compare_request(req, std::move(graph), std::move(cluster));
  if (!cr.ok()) return cr.error();
  if (operation == "compare_flexflow")
    return std::unique_ptr<RunningOperation>(std::make_unique<CompareHalfOperation<CompareFlexflowJob>>(std::move(cr.value()), "flexflow"));
  return std::unique_ptr<RunningOperation>(std::make_unique<CompareHalfOperation<CompareAlpaJob>>(std::move(cr.value()), "alpa"));
}

// "intra": request IntraRequest (intra_request_from_json), as the page's IntraOpView sends it.
Started start_intra(const Json& req, Graph graph, const Cluster& cluster) {
  auto ir = intra_request_from_json(req, kRequestPath);
  if (!ir.ok()) return ir.error();
  auto setup = intra_setup(cluster, ir.value(), kRequestPath);
  if (!setup.ok()) return setup.error();
  // The plan exactly, as the page reads it back (intra_plan_message).
  return std::unique_ptr<RunningOperation>(
      std::make_unique<SingleStepOperation>("intra-op plan", [graph = std::move(graph), setup = std::move(setup.value())]() -> Result<Json> {
        auto plan = plan_intra_op(graph, setup.mesh, setup.options);
        if (!plan.ok()) return plan.error();
        return intra_plan_message(graph, plan.value());
      }));
}

// "simulate": `autopar simulate` (request SimulateRequest, simulate_request_from_json); its
// result is the CLI's JSON.
Started start_simulate(const Json& req, Graph graph, Cluster cluster) {
  auto sr = simulate_request_from_json(req, graph, cluster, kRequestPath);
  if (!sr.ok()) return sr.error();
  return std::unique_ptr<RunningOperation>(std::make_unique<SingleStepOperation>(
      "simulate", [graph = std::move(graph), cluster = std::move(cluster), request = std::move(sr.value())]() -> Result<Json> {
        return simulate_operation(graph, cluster, request).to_json();
      }));
}

// "export": `autopar export` (request: ExportRequest, export_request_from_json); its result is
// {format, text}, the file's text.
Started start_export(const Json& req, Graph graph, Cluster cluster) {
  auto er = export_request_from_json(req, kRequestPath);
  if (!er.ok()) return er.error();
  return std::unique_ptr<RunningOperation>(std::make_unique<SingleStepOperation>(
      "export", [graph = std::move(graph), cluster = std::move(cluster), request = std::move(er.value())]() -> Result<Json> {
        auto report = export_operation(graph, cluster, request);
        if (!report.ok()) return report.error();
        return Json{{"format", report.value().format}, {"text", report.value().text}};
      }));
}

// "scenario": `autopar scenario NAME` (request {"name"}); its result is the scenario's numbers
// (scenario_numbers_to_json), which the page's Lecture tab shows. Needs no inputs.
Started start_scenario(const Json& req) {
  if (!req.contains("name")) return make_error(ErrorCode::missing_field, "request.name is missing: give the scenario's name", "request.name");
  auto name = string_from_json(req["name"], "request.name", "a scenario's name");
  if (!name.ok()) return name.error();
  return std::unique_ptr<RunningOperation>(std::make_unique<SingleStepOperation>("scenario", [name = name.value()]() -> Result<Json> {
    auto report = scenario_operation(name, "request.name");
    if (!report.ok()) return report.error();
    return scenario_numbers_to_json(report.value());
  }));
}

// "plan_memory": `autopar memory --plan P --microbatches B --optimizer O --json` (request
// {plan, microbatches, optimizer}); B comes from the plan's mbs= when it has one, as on the
// CLI. Its result is that command's JSON (PlanMemoryReport), the page's per-stage memory view.
// The model is the session's built one, shared rather than copied: a slider's neighbouring
// plans arrive one after another on the same model.
Started start_plan_memory(const Json& req, std::shared_ptr<const BuiltInputs> built) {
  const Graph& graph = built->graph;
  if (!req.contains("plan")) return make_error(ErrorCode::missing_field, "request.plan is missing: give a plan such as \"t=8,p=8,d=1\"", "request.plan");
  auto text = string_from_json(req["plan"], "request.plan", "a plan such as \"t=8,p=8,d=1\"");
  if (!text.ok()) return text.error();
  auto plan = parse_given_plan(text.value(), "request.plan");
  if (!plan.ok()) return plan.error();
  auto microbatches = request_int(req, "microbatches", kMicrobatchesBound, 1);
  if (!microbatches.ok()) return microbatches.error();
  int b = microbatches.value();
  if (plan.value().micro_batch_size > 0) {
    auto from_mbs = given_plan_microbatches(plan.value(), model_batch(graph));
    if (!from_mbs.ok()) return make_error(from_mbs.error().code, from_mbs.error().message, "request.plan");
    b = from_mbs.value();
  }
  Optimizer optimizer = Optimizer::adam;
  if (req.contains("optimizer")) {
    auto o = string_from_json(req["optimizer"], "request.optimizer", "adam or sgd");
    if (!o.ok()) return o.error();
    auto parsed = optimizer_from_text(o.value(), "request.optimizer");
    if (!parsed.ok()) return parsed.error();
    optimizer = parsed.value();
  }
  return std::unique_ptr<RunningOperation>(std::make_unique<SingleStepOperation>(
      "plan memory", [built = std::move(built), plan = plan.value(), b, optimizer]() -> Result<Json> {
        auto report = plan_memory_operation(built->graph, built->cluster, plan, b, optimizer);
        if (!report.ok()) return report.error();
        return report.value().to_json();
      }));
}

// "accuracy": both simulators' summaries; the samples themselves go out as partials.
Started start_accuracy(const Json& req, Graph graph, Cluster cluster) {
  auto ar = accuracy_request_from_json(req, kRequestPath);
  if (!ar.ok()) return ar.error();
  auto op = make_operation<AccuracyJob>(Graph{}, Cluster{}, [](const AccuracyReport& report, const AccuracyJob&) {
    return Json{{"ideal", AccuracyReport::summary_json(report.ideal)}, {"calibrated", AccuracyReport::summary_json(report.calibrated)}};
  });
  op->start_owning(std::move(graph), std::move(cluster), ar.value());
  op->set_partial([partial = std::make_shared<AccuracyPartial>()](const AccuracyJob& job) { return partial->next(job); });
  return std::unique_ptr<RunningOperation>(std::move(op));
}

// "search": `autopar search`, with the live plot's partials unless request.partials is false
// (the page's beta sweep wants only the reports).
Started start_search(const Json& req, Graph graph, Cluster cluster) {
  auto sr = search_request_from_json(req, kRequestPath);
  if (!sr.ok()) return sr.error();
  bool partials = true;
  if (req.contains("partials")) {
    auto v = bool_from_json(req["partials"], kRequestPath("partials"));
    if (!v.ok()) return v.error();
    partials = v.value();
  }
  // A live search keeps records of its first proposals for the page's step inspector (they do
  // not change the chain or the report).
  if (partials) sr.value().record_steps = kInspectorRecordSteps;
  // The job owns its copies of the graph and cluster: the operation's are unused.
  auto op = make_operation<SearchJob>(Graph{}, Cluster{}, [](const SearchReport& report, const SearchJob&) { return Json{{"report", report.to_json()}}; });
  op->start_owning(std::move(graph), std::move(cluster), sr.value(), std::string("request.init"));
  if (partials) op->set_partial([partial = std::make_shared<SearchPartial>()](const SearchJob& job) { return partial->next(job); });
  return std::unique_ptr<RunningOperation>(std::move(op));
}

// request.parts: stage-cost parts computed in shares by a pool of workers.
Result<std::vector<StageCostPart>> stage_cost_parts(const Json& parts_json) {
  if (!parts_json.is_array() || parts_json.empty()) return make_error(ErrorCode::wrong_type, "request.parts must be an array of stage-cost parts", "request.parts");
  std::vector<StageCostPart> parts;
  for (size_t k = 0; k < parts_json.size(); ++k) {
    auto part = stage_cost_part_from_json(parts_json[k]);
    if (!part.ok()) {
      Error e = part.error();
      e.path = "request.parts[" + std::to_string(k) + "]" + (e.path.empty() ? "" : "." + e.path);
      return e;
    }
    parts.push_back(std::move(part.value()));
  }
  return parts;
}

// "inter" (the plan, from parts when given) or "stage_costs" (one share of the stage costs).
Started start_inter(const std::string& operation, const Json& req, Graph graph, Cluster cluster) {
  auto ir = inter_request_from_json(req, kRequestPath);
  if (!ir.ok()) return ir.error();
  if (ir.value().plan && ir.value().plan->micro_batch_size > 0) {
    auto b = given_plan_microbatches(*ir.value().plan, model_batch(graph));
    if (!b.ok()) return make_error(b.error().code, b.error().message, "request.plan");
    ir.value().microbatches = b.value();
  }
  if (ir.value().space == "today") {
    // Today's space plans whole plans one after another (knob_search.h): on one worker, never in shares.
    if (operation == "stage_costs" || req.contains("parts"))
      return make_error(ErrorCode::bad_argument, "request.space today plans several whole plans on one worker; start it as \"inter\" without parts or shares",
                        operation == "stage_costs" ? "operation" : "request.parts");
    auto op = make_operation<KnobSearchJob>(std::move(graph), std::move(cluster), [](const InterReport& report, const KnobSearchJob&) { return to_json(inter_plan_message(report)); });
    op->start(ir.value(), ir.value().microbatches);
    return std::unique_ptr<RunningOperation>(std::move(op));
  }
  if (operation == "stage_costs") {
    auto count = request_int(req, "share_count", WholeBound{1, 1024}, 1);
    if (!count.ok()) return count.error();
    auto index = request_int(req, "share_index", WholeBound{0, count.value() - 1}, 0);
    if (!index.ok()) return index.error();
    auto op = make_operation<StageCostJob>(std::move(graph), std::move(cluster),
                                           [](const StageCostPart& part, const StageCostJob&) { return stage_cost_part_to_json(part); });
    op->start(ir.value(), index.value(), count.value());
    return std::unique_ptr<RunningOperation>(std::move(op));
  }
  auto op = make_operation<InterJob>(std::move(graph), std::move(cluster), [](const InterReport& report, const InterJob&) { return to_json(inter_plan_message(report)); });
  if (req.contains("parts")) {
    auto parts = stage_cost_parts(req["parts"]);
    if (!parts.ok()) return parts.error();
    op->start(ir.value(), parts.value());
  } else {
    op->start(ir.value());
  }
  return std::unique_ptr<RunningOperation>(std::move(op));
}

}  // namespace

Result<std::unique_ptr<RunningOperation>> start_operation(const std::string& operation, const Json& inputs, const Json& request, InputsCache* cache) {
  if (!request.is_null() && !request.is_object()) return make_error(ErrorCode::wrong_type, "request must be an object", "request");
  const Json req = request.is_null() ? Json::object() : request;
  if (operation != "inter" && operation != "stage_costs" && operation != "search" && operation != "compare_flexflow" && operation != "compare_alpa" &&
      operation != "accuracy" && operation != "intra" && operation != "export" && operation != "simulate" && operation != "scenario" &&
      operation != "plan_memory")
    return make_error(ErrorCode::bad_value,
                      "unknown operation '" + operation +
                          "'; the worker runs inter, stage_costs, search, accuracy, compare_flexflow, compare_alpa, intra, export, simulate, scenario and plan_memory",
                      "operation");
  if (operation == "scenario") return start_scenario(req);
  InputsCache own;   // without a session's cache, the inputs are built for this operation alone
  auto built = (cache ? *cache : own).get(inputs);
  if (!built.ok()) return built.error();
  if (operation == "plan_memory") return start_plan_memory(req, std::move(built.value()));
  // The other operations own (and may change) their copies.
  Result<Graph> graph = built.value()->graph;
  Result<Cluster> cluster = built.value()->cluster;
  if (operation == "compare_flexflow" || operation == "compare_alpa")
    return start_compare_half(operation, req, std::move(graph.value()), std::move(cluster.value()));
  if (operation == "intra") return start_intra(req, std::move(graph.value()), cluster.value());
  if (operation == "simulate") return start_simulate(req, std::move(graph.value()), std::move(cluster.value()));
  if (operation == "export") return start_export(req, std::move(graph.value()), std::move(cluster.value()));
  if (operation == "accuracy") return start_accuracy(req, std::move(graph.value()), std::move(cluster.value()));
  if (operation == "search") return start_search(req, std::move(graph.value()), std::move(cluster.value()));
  return start_inter(operation, req, std::move(graph.value()), std::move(cluster.value()));
}

void WorkerSession::reply(int64_t id, const char* kind, Json body, Json partial) {
  Json j{{kind, std::move(body)}};
  if (!partial.is_null()) j["partial"] = std::move(partial);
  replies_.push_back(WorkerReply{id, kind, j.dump()});
}

double WorkerSession::now_ms() const {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void WorkerSession::reply_progress(int64_t id, Entry& e) {
  e.last_progress_ms = now_ms();
  reply(id, "progress", e.op->progress().to_json(), e.op->partial());
}

bool WorkerSession::busy() const {
  for (const auto& [id, e] : jobs_)
    if (!e.paused) return true;
  return false;
}

// Reads a message's optional "units" (a whole number >= 1); -1 when absent.
static Result<int64_t> message_units(const Json& m) {
  if (!m.contains("units")) return int64_t(-1);
  if (!m["units"].is_number_integer() || m["units"].get<int64_t>() < 1)
    return make_error(ErrorCode::bad_value, "units must be a whole number of at least 1", "units");
  return m["units"].get<int64_t>();
}

void WorkerSession::message(const std::string& text) {
  auto parsed = parse_json_text(text, "the worker message");
  if (!parsed.ok()) return reply_error(0, parsed.error());
  const Json& m = parsed.value();
  if (!m.is_object() || !m.contains("id") || !m["id"].is_number_integer())
    return reply_error(0, make_error(ErrorCode::missing_field, "a worker message needs an integer 'id'", "id"));
  const int64_t id = m["id"].get<int64_t>();
  const std::string op = m.value("op", "");
  auto units = message_units(m);
  if (!units.ok()) return reply_error(id, units.error());
  if (op == "cancel") held_parts_.erase(id);   // a gathering dropped before its job started
  if (op == "cancel" || op == "pause" || op == "resume") {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return;   // already finished: its result was sent
    Entry& e = it->second;
    if (op == "pause") {
      e.paused = true;
      return reply_progress(id, e);
    }
    if (op == "resume") {
      e.paused = false;
      e.units_left = units.value();
      return;
    }
    e.op->cancel();
    reply_error(id, e.op->result().error());
    jobs_.erase(it);
    return;
  }
  if (op != "start") return reply_error(id, make_error(ErrorCode::bad_value, "op must be \"start\", \"cancel\", \"pause\" or \"resume\"", "op"));
  if (!m.contains("operation") || !m["operation"].is_string())
    return reply_error(id, make_error(ErrorCode::missing_field, "a start message needs 'operation', e.g. \"inter\"", "operation"));
  Json request = m.contains("request") ? m["request"] : Json();
  if (m.contains("held_parts")) {
    auto parts = take_held_parts(id);
    if (!parts.ok()) return reply_error(id, parts.error());
    if (!request.is_null() && !request.is_object()) return reply_error(id, make_error(ErrorCode::wrong_type, "request must be an object", "request"));
    request["parts"] = std::move(parts.value());
  }
  auto job = start_operation(m["operation"].get<std::string>(), m.contains("inputs") ? m["inputs"] : Json(), request, &inputs_);
  if (!job.ok()) return reply_error(id, job.error());
  Entry& e = jobs_[id];
  e.op = std::move(job.value());
  e.units_left = units.value();
}

void WorkerSession::part(int64_t id, int64_t index, int64_t count, const std::string& body) {
  const std::string path = "parts[" + std::to_string(index) + "]";
  if (count < 1 || count > 1024 || index < 0 || index >= count)
    return reply_error(id, make_error(ErrorCode::out_of_range, "part " + std::to_string(index) + " of " + std::to_string(count) +
                                                                   ": a pool has 1 to 1024 parts, numbered from 0", path));
  auto parsed = parse_json_text(body, "stage-cost part " + std::to_string(index));
  if (!parsed.ok()) return reply_error(id, parsed.error());
  if (!parsed.value().is_object() || !parsed.value().contains("result"))
    return reply_error(id, make_error(ErrorCode::missing_field, "a stage-cost part is a \"stage_costs\" job's result reply {\"result\": ...}", path));
  std::vector<Json>& held = held_parts_[id];
  if (held.size() != size_t(count)) held.assign(size_t(count), Json());
  held[size_t(index)] = std::move(parsed.value()["result"]);
}

Result<Json> WorkerSession::take_held_parts(int64_t id) {
  auto it = held_parts_.find(id);
  if (it == held_parts_.end()) return make_error(ErrorCode::missing_field, "no stage-cost parts are held for job " + std::to_string(id), "held_parts");
  std::vector<Json> held = std::move(it->second);
  held_parts_.erase(it);
  Json parts = Json::array();
  for (size_t k = 0; k < held.size(); ++k) {
    if (held[k].is_null())
      return make_error(ErrorCode::missing_field, "stage-cost part " + std::to_string(k) + " of " + std::to_string(held.size()) + " never arrived",
                        "held_parts");
    parts.push_back(std::move(held[k]));
  }
  return parts;
}

void WorkerSession::step(double budget_ms) {
  const BudgetMeter total(StepBudget::time(budget_ms));
  size_t running = 0;
  for (const auto& [id, e] : jobs_) running += e.paused ? 0 : 1;
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    Entry& e = it->second;
    if (e.paused) {
      ++it;
      continue;
    }
    // An equal share of the time left for each job still to step (so two jobs in one worker
    // advance side by side); a job limited to some units does only those.
    const double left = std::max(0.0, budget_ms - total.elapsed_ms()) / double(std::max<size_t>(running--, 1));
    StepBudget budget = StepBudget::time(left);
    const int64_t before = e.op->progress().done;
    if (e.units_left >= 0) budget.units = e.units_left;
    const bool done = e.op->step(budget);
    if (!done) {
      if (e.units_left >= 0) {
        e.units_left = std::max<int64_t>(0, e.units_left - std::max<int64_t>(1, e.op->progress().done - before));
        if (e.units_left == 0) {
          e.paused = true;   // the units asked for are done: answer with where it is
          e.units_left = -1;
          reply_progress(it->first, e);
          ++it;
          continue;
        }
      }
      if (now_ms() - e.last_progress_ms >= progress_every_ms_) reply_progress(it->first, e);
      ++it;
      continue;
    }
    const auto r = e.op->result();
    if (r.ok()) reply(it->first, "result", r.value(), e.op->partial());
    else reply_error(it->first, r.error());
    it = jobs_.erase(it);
  }
}
std::vector<WorkerReply> WorkerSession::take_replies() { return std::exchange(replies_, {}); }

}  // namespace autopar
