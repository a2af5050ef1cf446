// The operations as messages. See worker_session.h.
#include "worker_session.h"

#include <utility>

#include "cluster_spec.h"
#include "inter_operation.h"
#include "models.h"

namespace autopar {

Result<Graph> graph_from_inputs(const Json& inputs) {
  if (!inputs.is_object() || !inputs.contains("model") || !inputs["model"].is_string())
    return make_error(ErrorCode::missing_field, "the inputs need 'model': a built-in model such as \"transformer:layers=24\"", "inputs.model");
  const std::string model = inputs["model"].get<std::string>();
  if (inputs.contains("model_json")) {
    if (!inputs["model_json"].is_string()) return make_error(ErrorCode::wrong_type, "inputs.model_json must be the model file's text", "inputs.model_json");
    auto g = load_model_json(inputs["model_json"].get<std::string>(), model);
    if (!g.ok()) {
      Error e = g.error();
      e.path = e.path.empty() ? "inputs.model_json" : "inputs.model_json." + e.path;
      return e;
    }
    return g;
  }
  auto spec = builtin_model_spec(model, "inputs.model");
  if (!spec.ok()) return spec.error();
  return build_graph(spec.value());
}

Result<Cluster> cluster_from_inputs(const Json& inputs) {
  if (!inputs.is_object() || !inputs.contains("cluster"))
    return make_error(ErrorCode::missing_field, "the inputs need 'cluster': a spec such as \"lecture:4x8\" or the cluster's JSON", "inputs.cluster");
  const Json& c = inputs["cluster"];
  if (c.is_string()) return load_cluster(c.get<std::string>(), "inputs.cluster");
  auto cluster = cluster_from_json(c);
  if (!cluster.ok()) {
    Error e = cluster.error();
    e.path = e.path.empty() ? "inputs.cluster" : "inputs.cluster." + e.path;
    return e;
  }
  return cluster;
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
  bool step(const StepBudget& budget) override { return job_->step(budget); }
  JobProgress progress() const override { return job_->progress(); }
  void cancel() override { job_->cancel(); }
  Result<Json> result() const override {
    const auto& r = job_->result();
    if (!r.ok()) return r.error();
    return to_json_(r.value(), *job_);
  }

 private:
  Graph graph_;                 // before job_: the job may refer to them
  Cluster cluster_;
  ToJson to_json_;
  std::unique_ptr<JobType> job_;
};

template <class JobType, class ToJson>
std::unique_ptr<OperationOf<JobType, ToJson>> make_operation(Graph g, Cluster c, ToJson f) {
  return std::make_unique<OperationOf<JobType, ToJson>>(std::move(g), std::move(c), std::move(f));
}

// request.NAME as an integer in [lo, hi], else `fallback` when absent.
Result<int> request_int(const Json& request, const char* name, int lo, int hi, int fallback) {
  if (!request.contains(name)) return fallback;
  const Json& v = request[name];
  const std::string path = std::string("request.") + name;
  if (!v.is_number_integer()) return make_error(ErrorCode::wrong_type, path + " must be an integer", path);
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi)
    return make_error(ErrorCode::out_of_range, path + " is " + std::to_string(x) + "; it must be " + std::to_string(lo) + " to " + std::to_string(hi), path);
  return int(x);
}

// The inter-op request of a message: micro-batches and boundaries.
Result<InterRequest> inter_request(const Json& request) {
  InterRequest r;
  auto micro = request_int(request, "microbatches", 1, 1 << 20, 32);
  if (!micro.ok()) return micro.error();
  r.microbatches = micro.value();
  if (request.contains("ignore_boundaries")) {
    if (!request["ignore_boundaries"].is_boolean()) return make_error(ErrorCode::wrong_type, "request.ignore_boundaries must be true or false", "request.ignore_boundaries");
    r.boundaries = !request["ignore_boundaries"].get<bool>();
  }
  return r;
}

// What the page needs of an inter-op report: the CLI's JSON, the plan to the bit, the layers.
Json inter_result_json(const InterReport& report) {
  Json numbers = Json::array(), ops = Json::array();
  for (const auto& [a, b] : report.layer_numbers) numbers.push_back(Json::array({a, b}));
  for (const auto& [a, b] : report.layer_ops) ops.push_back(Json::array({a, b}));
  return Json{{"report", report.to_json()}, {"plan", inter_plan_to_json(report.plan)}, {"layer_numbers", numbers}, {"layer_ops", ops}};
}

}  // namespace

Result<std::unique_ptr<RunningOperation>> start_operation(const std::string& operation, const Json& inputs, const Json& request) {
  if (!request.is_null() && !request.is_object()) return make_error(ErrorCode::wrong_type, "request must be an object", "request");
  const Json req = request.is_null() ? Json::object() : request;
  if (operation != "inter" && operation != "stage_costs")
    return make_error(ErrorCode::bad_value, "unknown operation '" + operation + "'; the worker runs inter and stage_costs", "operation");
  auto graph = graph_from_inputs(inputs);
  if (!graph.ok()) return graph.error();
  auto cluster = cluster_from_inputs(inputs);
  if (!cluster.ok()) return cluster.error();
  auto ir = inter_request(req);
  if (!ir.ok()) return ir.error();
  if (operation == "stage_costs") {
    auto count = request_int(req, "share_count", 1, 1024, 1);
    if (!count.ok()) return count.error();
    auto index = request_int(req, "share_index", 0, count.value() - 1, 0);
    if (!index.ok()) return index.error();
    auto op = make_operation<StageCostJob>(std::move(graph.value()), std::move(cluster.value()),
                                           [](const StageCostPart& part, const StageCostJob&) { return stage_cost_part_to_json(part); });
    op->start(ir.value(), index.value(), count.value());
    return std::unique_ptr<RunningOperation>(std::move(op));
  }
  auto op = make_operation<InterJob>(std::move(graph.value()), std::move(cluster.value()),
                                     [](const InterReport& report, const InterJob&) { return inter_result_json(report); });
  if (req.contains("parts")) {
    if (!req["parts"].is_array() || req["parts"].empty()) return make_error(ErrorCode::wrong_type, "request.parts must be an array of stage-cost parts", "request.parts");
    std::vector<StageCostPart> parts;
    for (size_t k = 0; k < req["parts"].size(); ++k) {
      auto part = stage_cost_part_from_json(req["parts"][k]);
      if (!part.ok()) {
        Error e = part.error();
        e.path = "request.parts[" + std::to_string(k) + "]" + (e.path.empty() ? "" : "." + e.path);
        return e;
      }
      parts.push_back(std::move(part.value()));
    }
    op->start(ir.value(), parts);
  } else {
    op->start(ir.value());
  }
  return std::unique_ptr<RunningOperation>(std::move(op));
}

void WorkerSession::reply(int64_t id, const char* kind, Json body) {
  replies_.push_back(WorkerReply{id, kind, Json{{"id", id}, {kind, std::move(body)}}.dump()});
}

void WorkerSession::message(const std::string& text) {
  auto parsed = parse_json_text(text, "the worker message");
  if (!parsed.ok()) return reply_error(0, parsed.error());
  const Json& m = parsed.value();
  if (!m.is_object() || !m.contains("id") || !m["id"].is_number_integer())
    return reply_error(0, make_error(ErrorCode::missing_field, "a worker message needs an integer 'id'", "id"));
  const int64_t id = m["id"].get<int64_t>();
  const std::string op = m.value("op", "");
  if (op == "cancel") {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return;   // already finished: its result was sent
    it->second->cancel();
    reply_error(id, it->second->result().error());
    jobs_.erase(it);
    return;
  }
  if (op != "start") return reply_error(id, make_error(ErrorCode::bad_value, "op must be \"start\" or \"cancel\"", "op"));
  if (!m.contains("operation") || !m["operation"].is_string())
    return reply_error(id, make_error(ErrorCode::missing_field, "a start message needs 'operation', e.g. \"inter\"", "operation"));
  auto job = start_operation(m["operation"].get<std::string>(), m.contains("inputs") ? m["inputs"] : Json(), m.contains("request") ? m["request"] : Json());
  if (!job.ok()) return reply_error(id, job.error());
  jobs_[id] = std::move(job.value());
}

void WorkerSession::step(double budget_ms) {
  const BudgetMeter total(StepBudget::time(budget_ms));
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const double left = std::max(0.0, budget_ms - total.elapsed_ms());
    const bool done = it->second->step(StepBudget::time(left));
    if (!done) {
      reply(it->first, "progress", it->second->progress().to_json());
      ++it;
      continue;
    }
    const auto r = it->second->result();
    if (r.ok()) reply(it->first, "result", r.value());
    else reply_error(it->first, r.error());
    it = jobs_.erase(it);
  }
}

std::vector<WorkerReply> WorkerSession::take_replies() { return std::exchange(replies_, {}); }

}  // namespace autopar
