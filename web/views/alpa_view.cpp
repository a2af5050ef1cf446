// The Alpa plans of the page (see alpa_view.h): the same core calls as `autopar intra` and
// `autopar inter`, so that the numbers equal the CLI's; and the pipeline schedules for the Gantt.
#include "alpa_view.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>

#include "alpa_operations.h"
#include "inter_operation.h"
#include "mesh_position.h"
#include "operation_requests.h"
#include "format_units.h"
#include "page_strings.h"
#include "pipeline_schedule.h"
#include "request_fields.h"

namespace autopar::web {

namespace {
Json worker_inputs(const AlpaInputs& in);   // below, with the inter-op plan's helpers
}  // namespace

std::string intra_key(const AlpaInputs& in) {
  return in.model + "|" + in.cluster + "|" + in.mesh + "|" + in.solver + (in.reduce_scatter ? "|rs" : "") + (in.remat ? "|remat" : "") +
         (in.alpa_costs.empty() ? "" : "|alpa:" + in.alpa_costs);
}

namespace {

// Shortest text that reads back as the same double (the CLI parses it with strtod).
std::string number_text(double v) {
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace

std::string alpa_costs_key(const IntraOpView& view) {
  if (!view.alpa_costs) return "";
  return number_text(view.alpha[0]) + "," + number_text(view.alpha[1]) + "|" + number_text(view.beta[0]) + "," + number_text(view.beta[1]);
}

Status apply_intra_options(IntraOpView& view, const Json& j) {
  if (!j.is_object()) return make_error(ErrorCode::wrong_type, "intra must be an object {solver, reduce_scatter, remat}", "intra");
  IntraOpView next = view;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string path = "intra." + it.key();
    if (it.key() == "solver") {
      const std::string s = it.value().is_string() ? it.value().get<std::string>() : "";
      if (s != "auto" && s != "ilp" && s != "dp" && s != "exhaustive")
        return make_error(ErrorCode::bad_value, "intra.solver must be auto, ilp, dp or exhaustive", path);
      next.solver = s;
    } else if (it.key() == "costs") {
      const std::string c = it.value().is_string() ? it.value().get<std::string>() : "";
      if (c != "cluster" && c != "alpa") return make_error(ErrorCode::bad_value, "intra.costs must be \"cluster\" or \"alpa\"", path);
      next.alpa_costs = c == "alpa";
    } else if (it.key() == "alpha" || it.key() == "beta") {
      const Json& v = it.value();
      const bool ok = v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number() && v[0].get<double>() >= 0 &&
                      v[1].get<double>() >= 0 && v[0].get<double>() <= 1e12 && v[1].get<double>() <= 1e12;
      if (!ok) return make_error(ErrorCode::bad_value, path + " must be two numbers >= 0 (axis 0, axis 1), e.g. [1, 0.1]", path);
      double* out = it.key() == "alpha" ? next.alpha : next.beta;
      out[0] = v[0].get<double>();
      out[1] = v[1].get<double>();
    } else if (it.key() == "reduce_scatter" || it.key() == "remat") {
      if (!it.value().is_boolean()) return make_error(ErrorCode::wrong_type, path + " must be true or false", path);
      (it.key() == "remat" ? next.remat : next.reduce_scatter) = it.value().get<bool>();
    } else {
      return make_error(ErrorCode::unknown_field, "intra has no field \"" + it.key() + "\"; known: solver, reduce_scatter, remat, costs, alpha, beta",
                        path);
    }
  }
  view.solver = next.solver;
  view.reduce_scatter = next.reduce_scatter;
  view.remat = next.remat;
  view.alpa_costs = next.alpa_costs;
  for (int a = 0; a < 2; ++a) {
    view.alpha[a] = next.alpha[a];
    view.beta[a] = next.beta[a];
  }
  return Ok{};
}

Json intra_options_json(const IntraOpView& view) {
  return Json{{"solver", view.solver},
              {"reduce_scatter", view.reduce_scatter},
              {"remat", view.remat},
              {"costs", view.alpa_costs ? "alpa" : "cluster"},
              {"alpha", Json::array({view.alpha[0], view.alpha[1]})},
              {"beta", Json::array({view.beta[0], view.beta[1]})}};
}

std::string inter_key(const AlpaInputs& in) {
  return in.model + "|" + in.cluster + "|" + std::to_string(in.microbatches) + (in.ignore_boundaries ? "|no-boundaries" : "") +
         (in.plan.empty() ? "" : "|plan " + in.plan) + (in.space == "alpa" ? "" : "|space " + in.space);
}

namespace {

// Cancels the worker's intra-op plan, if any.
void drop_intra_request(IntraOpView& view) {
  if (view.request && view.worker) view.worker->cancel(view.request);
  view.request = 0;
  view.pending_key.clear();
}

// Commits a plan (or its error) for `key`.
void set_intra_plan(IntraOpView& view, const std::string& key, Result<IntraOpPlan> plan, size_t ops) {
  view.key = key;
  view.plan.reset();
  view.error.reset();
  view.ops.clear();
  if (plan.ok()) view.plan = std::move(plan.value());
  else view.error = plan.error();
  if (view.reshard_op >= int(ops)) view.reshard_op = -1;
}

}  // namespace

IntraRequest intra_request(const AlpaInputs& in) {
  IntraRequest r;
  r.mesh = in.mesh;
  r.solver = in.solver;
  r.reduce_scatter = in.reduce_scatter;
  r.remat = in.remat;
  r.alpa_costs = in.alpa_costs;
  return r;
}

void request_intra_plan(IntraOpView& view, const AlpaInputs& in, std::shared_ptr<WorkerClient> worker) {
  const std::string key = intra_key(in);
  if (key == view.key || (view.request && key == view.pending_key)) return;
  drop_intra_request(view);
  view.worker = std::move(worker);
  view.pending_key = key;
  view.request = view.worker->start("intra", worker_inputs(in), request_to_json(intra_request(in)));
}

bool take_intra_plan(IntraOpView& view, const AlpaInputs& in, const Graph& graph, const Cluster& cluster) {
  if (!view.request) return false;
  if (view.pending_key != intra_key(in)) {   // the inputs changed since: a new request follows
    drop_intra_request(view);
    return false;
  }
  auto outcome = view.worker->take(view.request);
  if (!outcome) return false;
  const std::string key = view.pending_key;
  view.request = 0;
  view.pending_key.clear();
  if (!outcome->ok()) {
    // The worker's paths (request.mesh) as the page's state names them (mesh).
    Error e = outcome->error();
    if (e.path.rfind("request.", 0) == 0) e.path = e.path.substr(8);
    set_intra_plan(view, key, e, graph.ops.size());
    return true;
  }
  // The page names the request's fields as its state does ("mesh").
  auto setup = intra_setup(cluster, intra_request(in), json_field_path(""));
  if (!setup.ok()) {
    set_intra_plan(view, key, setup.error(), graph.ops.size());
    return true;
  }
  set_intra_plan(view, key, intra_plan_from_message(outcome->value(), graph, setup.value().mesh), graph.ops.size());
  if (view.plan) view.ops = intra_op_choices(graph, *view.plan);
  return true;
}

bool intra_planning(const IntraOpView& view) { return view.request != 0; }

namespace {

// The stage costs count for this share of the progress bar, the DP for the rest.
constexpr double kStageCostShare = 0.9;

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The worker's inputs: the model and cluster as it loads them.
Json worker_inputs(const AlpaInputs& in) {
  if (!in.worker_inputs.is_null()) return in.worker_inputs;
  Json j{{"model", in.model}, {"cluster", in.cluster}};
  if (!in.cluster.empty() && in.cluster[0] == '{') {
    auto c = parse_json_text(in.cluster, "cluster");
    if (c.ok()) j["cluster"] = c.value();
  }
  return j;
}

// Reads the worker's `inter` result (an InterPlanMessage) into the view.
Status apply_inter_result(InterOpView& view, const Json& r) {
  auto m = inter_plan_message_from_json(r);
  if (!m.ok()) return m.error();
  view.plan = std::move(m.value().plan);
  view.report = std::move(m.value().report);
  view.work_ms = m.value().elapsed_ms;
  view.layer_numbers = std::move(m.value().layer_numbers);
  for (const auto& [first, last] : m.value().layer_ops) {
    view.layer_first_op.push_back(first);
    view.layer_last_op.push_back(last);
  }
  return Ok{};
}

// Ends the planning in progress with the worker's result or error.
void finish_job(InterOpView& view, const Result<Json>& outcome) {
  InterOpJob& job = *view.job;
  view.key = job.key;
  view.plan.reset();
  view.error.reset();
  view.report = Json();
  view.work_ms = 0;
  view.layer_first_op.clear();
  view.layer_last_op.clear();
  view.layer_numbers.clear();
  if (outcome.ok()) {
    if (auto s = apply_inter_result(view, outcome.value()); !s.ok()) {
      view.plan.reset();
      view.error = s.error();
    }
  } else {
    view.error = outcome.error();
  }
  job.timing.elapsed_ms = ms_since(job.started);
  if (view.plan) job.timing.work_ms = view.work_ms;
  view.timing = job.timing;
  view.job.reset();
  view.pending = false;
}

// Drops the planning in progress without marking its inputs cancelled (superseded by others).
void drop_inter_job(InterOpView& view) {
  if (view.job) view.worker->cancel(view.job->request);
  view.job.reset();
  view.pending = false;
}

// In-process: works for about `budget_ms`; then takes the result if it is there.
bool work_on_job(InterOpView& view, double budget_ms) {
  InterOpJob& job = *view.job;
  if (!view.worker->connected()) {
    const auto start = std::chrono::steady_clock::now();
    view.worker->step_local(budget_ms);
    const double ms = ms_since(start);
    job.timing.longest_slice_ms = std::max(job.timing.longest_slice_ms, ms);
  }
  const int64_t id = job.request;
  const int replies = view.worker->replies(id);   // before take() forgets the job
  auto outcome = view.worker->take(id);
  if (!outcome) return false;
  job.timing.slices = std::max(replies, 1);
  finish_job(view, *outcome);
  return true;
}

}  // namespace

Result<InterRequest> inter_request(const AlpaInputs& in) {
  InterRequest r;
  r.microbatches = in.microbatches;
  r.boundaries = !in.ignore_boundaries;
  r.space = in.space;
  if (!in.plan.empty()) {   // priced as given (worker_session.cpp)
    auto plan = parse_given_plan(in.plan, "plan");
    if (!plan.ok()) return plan.error();
    r.plan = plan.value();
  }
  return r;
}

void start_inter_plan(InterOpView& view, const AlpaInputs& in, const Graph&, const Cluster&) {
  if (view.job) view.worker->cancel(view.job->request);
  view.job.reset();
  InterOpJob& job = view.job.emplace();
  job.key = inter_key(in);
  job.started = std::chrono::steady_clock::now();
  view.last_start = job.started;
  view.start_waiting = false;
  if (view.cancelled_key == job.key) view.cancelled_key.clear();   // asked for again
  view.pending = true;
  auto request = inter_request(in);
  if (!request.ok()) {   // a given plan that does not parse: its error, as the worker would say it
    finish_job(view, request.error());
    return;
  }
  job.request = view.worker->start("inter", worker_inputs(in), request_to_json(request.value()));
}

bool advance_inter_plan(InterOpView& view, const AlpaInputs& in, const Graph& graph, const Cluster& cluster, double budget_ms,
                        int64_t frame) {
  if (!view.job || view.advanced_frame == frame) return false;
  view.advanced_frame = frame;
  if (view.job->key != inter_key(in)) {
    // Inputs changed back to those of the plan shown: nothing to compute.
    if (view.key == inter_key(in) && (view.plan || view.error)) {
      drop_inter_job(view);
      return false;
    }
    start_inter_plan(view, in, graph, cluster);
  }
  return work_on_job(view, budget_ms);
}

void cancel_inter_plan(InterOpView& view) {
  if (view.job) view.cancelled_key = view.job->key;
  else if (view.start_waiting) view.cancelled_key = view.waiting_key;
  view.start_waiting = false;
  drop_inter_job(view);
}

bool follow_inter_plan(InterOpView& view, const AlpaInputs& in, const Graph& graph, const Cluster& cluster) {
  const std::string key = inter_key(in);
  const bool shown = view.key == key && (view.plan || view.error);
  if (shown || key == view.cancelled_key) {
    // Back to the inputs shown (or to cancelled ones): a planning for others is superseded.
    if (view.job && view.job->key != key) drop_inter_job(view);
    view.start_waiting = false;
    return false;
  }
  if (view.job && view.job->key == key) {
    view.start_waiting = false;
    return false;
  }
  drop_inter_job(view);   // superseded: its result would be for inputs no longer shown
  const auto now = std::chrono::steady_clock::now();
  if (view.last_start && std::chrono::duration<double, std::milli>(now - *view.last_start).count() < kInterFollowDebounceMs) {
    view.start_waiting = true;
    view.waiting_key = key;
    return false;
  }
  start_inter_plan(view, in, graph, cluster);
  return true;
}

bool take_inter_plan(InterOpView& view, const AlpaInputs& in, const Graph&, const Cluster&) {
  if (!view.job || view.job->key != inter_key(in)) return false;
  return work_on_job(view, 0);
}

bool inter_planning(const InterOpView& view) { return view.job.has_value() || view.start_waiting; }

double inter_plan_elapsed_ms(const InterOpView& view) { return view.job ? ms_since(view.job->started) : view.timing.elapsed_ms; }

double inter_plan_progress(const InterOpView& view) {
  if (!view.job) return view.start_waiting ? 0 : 1;
  const JobProgress p = view.worker->progress(view.job->request);
  const double plan = p.phase.rfind("pipeline DP", 0) == 0 ? kStageCostShare + (1 - kStageCostShare) * p.fraction() : kStageCostShare * p.fraction();
  if (p.knobs.empty()) return plan;
  // Today's space plans whole plans in turn, how many is known only at the end: each fills half
  // of what is left of the bar, so it only moves forward.
  return 1 - std::pow(0.5, double(p.plans_done)) * (1 - plan / 2);
}

std::string inter_plan_status(const InterOpView& view) {
  if (!view.job) return view.start_waiting ? tr("inter.replanning") : "";
  return plan_progress_text(view.worker->progress(view.job->request), view.worker->connected());
}

std::string plan_progress_text(const JobProgress& p, bool in_worker) {
  if (p.phase.empty()) return tr(in_worker ? "plan.starting_in_worker" : "plan.starting");
  // Today's space: which of its whole plans is in progress ("plan 3 (cp=1 ep=1 B=16), ").
  const std::string which = p.knobs.empty() ? "" : tr_fill("plan.knobs", {std::to_string(p.plans_done + 1), p.knobs});
  if (p.phase == "pipeline DP") return which + tr_fill("plan.dp_rows", {std::to_string(p.done), std::to_string(p.total)});
  if (p.phase == "pipeline DP, interleaved") return which + tr_fill("plan.dp_interleaved", {std::to_string(p.done), std::to_string(p.total)});
  return which + tr_fill("plan.stage_costs", {std::to_string(p.done), std::to_string(p.total)}) + (in_worker ? tr("plan.in_worker") : "");
}

void plan_inter(InterOpView& view, const AlpaInputs& in, const Graph& graph, const Cluster& cluster) {
  std::shared_ptr<WorkerClient> worker = view.worker;
  if (worker->connected()) view.worker = std::make_shared<WorkerClient>();   // in-process here
  start_inter_plan(view, in, graph, cluster);
  while (view.job && !work_on_job(view, std::numeric_limits<double>::infinity())) {}
  view.worker = worker;
}

int step_microbatches(const Graph& graph, int64_t current, int direction) {
  // Every input's batch (first dimension) must divide evenly: the divisors of their gcd.
  int64_t batch = 0;
  for (const Tensor& t : graph.spec.inputs)
    if (!t.shape.empty()) batch = std::gcd(batch, int64_t(t.shape[0]));
  const int64_t lo = kMicrobatchesBound.lo, hi = std::min<int64_t>(kMicrobatchesBound.hi, batch > 0 ? batch : kMicrobatchesBound.hi);
  if (batch <= 0) return int(std::clamp<int64_t>(current + direction, lo, hi));   // no batch to divide: plain steps
  if (direction > 0) {
    for (int64_t b = std::max(current + 1, lo); b <= hi; ++b)
      if (batch % b == 0) return int(b);
  } else {
    for (int64_t b = std::min(current - 1, hi); b >= lo; --b)
      if (batch % b == 0) return int(b);
  }
  return int(current);
}

std::pair<int, int> stage_layer_numbers(const InterOpView& view, const PipelineStage& stage) {
  const auto& n = view.layer_numbers;
  if (stage.first < 0 || size_t(stage.last) >= n.size()) return {stage.first + 1, stage.last + 1};
  return {n[size_t(stage.first)].first, n[size_t(stage.last)].second};
}

const InterOpPlan* current_inter_plan(const InterOpView& view, const AlpaInputs& in) {
  return view.plan && view.key == inter_key(in) ? &*view.plan : nullptr;
}

StageKnobs stage_knobs(const Json& report, size_t stage) {
  StageKnobs k;
  if (!report.is_object() || !report.contains("stages") || !report["stages"].is_array() || stage >= report["stages"].size()) return k;
  const Json& s = report["stages"][stage];
  k.recompute = s.value("recompute", k.recompute);
  k.zero_stage = s.value("zero_stage", k.zero_stage);
  k.sequence_parallel = s.value("sequence_parallel", k.sequence_parallel);
  return k;
}

int plan_microbatches(const InterOpView& view, int asked) {
  const Json& r = view.report;
  if (r.is_object() && r.contains("space") && r.contains("microbatches") && r["microbatches"].is_number_integer()) return r["microbatches"].get<int>();
  return asked;
}

InterOpTerms inter_op_terms(const InterOpPlan& plan, int microbatches) {
  InterOpTerms t;
  for (size_t k = 0; k < plan.stages.size(); ++k) {
    const PipelineStage& s = plan.stages[k];
    const double lane = s.latency + (plan.boundaries ? s.recv_ms : 0);
    const double send = plan.boundaries ? s.send_ms : 0;
    t.lane_ms.push_back(lane);
    t.send_ms.push_back(send);
    t.sum_ms += lane + send;
    // Ties go to the lane: the stage's own time is what a reader looks for first.
    if (lane > t.t_max || k == 0) {
      t.t_max = lane;
      t.t_max_stage = int(k);
      t.t_max_is_send = false;
    }
    if (send > t.t_max) {
      t.t_max = send;
      t.t_max_stage = int(k);
      t.t_max_is_send = true;
    }
  }
  // Interleaved 1F1B (v chunks per device): the fill and drain shrink by v, as the planner prices it.
  const double v = double(std::max(1, plan.interleave)), B = double(std::max(microbatches, 1));
  t.total_ms = v > 1 ? t.sum_ms / v + (B - 1 / v) * t.t_max : t.sum_ms + (B - 1) * t.t_max;
  return t;
}

ScheduleReading read_schedule(const PipelineSchedule& sched, int stages) {
  ScheduleReading r;
  r.idle.assign(size_t(std::max(stages, 0)), {});
  std::vector<std::vector<const PipelineBox*>> boxes(size_t(std::max(stages, 0)));
  for (const PipelineBox& b : sched.boxes)
    if (!b.transfer && b.stage >= 0 && b.stage < stages) boxes[size_t(b.stage)].push_back(&b);
  for (int s = 0; s < stages; ++s) {
    auto& list = boxes[size_t(s)];
    std::sort(list.begin(), list.end(), [](const PipelineBox* a, const PipelineBox* b) { return a->start_ms < b->start_ms; });
    double t = 0;
    auto gap = [&](double a, double b) {
      if (b - a > 1e-9 * std::max(1.0, sched.makespan_ms)) {
        r.idle[size_t(s)].push_back({a, b});
        r.idle_ms += b - a;
      }
    };
    for (const PipelineBox* b : list) {
      gap(t, b->start_ms);
      t = std::max(t, b->end_ms);
    }
    gap(t, sched.makespan_ms);
    // Activations held: +1 when a micro-batch's forward starts, -1 when its backward ends
    // (ends before starts at the same instant).
    std::vector<std::pair<double, int>> events;
    for (const PipelineBox* b : list) events.push_back(b->forward ? std::make_pair(b->start_ms, +1) : std::make_pair(b->end_ms, -1));
    std::sort(events.begin(), events.end());
    int held = 0;
    for (const auto& [time, delta] : events) {
      held += delta;
      r.peak_in_flight = std::max(r.peak_in_flight, held);
    }
  }
  return r;
}

std::string schedule_explanation(const InterOpPlan& plan, const PipelineSchedule& gpipe, const PipelineSchedule& one_f_one_b, int microbatches) {
  const int stages = int(plan.stages.size());
  const ScheduleReading g = read_schedule(gpipe, stages), f = read_schedule(one_f_one_b, stages);
  const InterOpTerms terms = inter_op_terms(plan, microbatches);
  double send = 0, lane = 0;
  for (size_t k = 0; k < terms.lane_ms.size(); ++k) {
    send = std::max(send, terms.send_ms[k]);
    lane = std::max(lane, terms.lane_ms[k]);
  }
  const std::string held = std::to_string(f.peak_in_flight), held_gpipe = std::to_string(g.peak_in_flight);
  // An interleaved plan (today's space) is priced by interleaving's closed form; the charts run
  // its stages unchunked, so say which the total is and where the chunks can be watched.
  const std::string interleaved = plan.interleave > 1 ? " " + tr_fill("inter.interleaved_charts", {std::to_string(plan.interleave)}) : "";
  if (one_f_one_b.makespan_ms > gpipe.makespan_ms * (1 + 1e-9)) {
    if (send > 0)
      return tr_fill("inter.why_1f1b_slower", {format_ms(one_f_one_b.makespan_ms), format_ms(gpipe.makespan_ms), format_ms(send / 2), format_ms(lane),
                                               format_ms(f.idle_ms), format_ms(g.idle_ms), held, held_gpipe}) + interleaved;
    return tr_fill("inter.why_1f1b_slower_free", {format_ms(one_f_one_b.makespan_ms), format_ms(gpipe.makespan_ms), held, held_gpipe}) + interleaved;
  }
  return tr_fill("inter.why_1f1b_same", {format_ms(one_f_one_b.makespan_ms), format_ms(gpipe.makespan_ms), held, held_gpipe}) + interleaved;
}

std::string schedule_by_hand(const PipelineSchedule& sched, int microbatches) {
  if (sched.idle_ms.empty() || sched.forward_ms.size() != sched.idle_ms.size()) return "";
  size_t k = 0;
  for (size_t s = 1; s < sched.idle_ms.size(); ++s)
    if (sched.idle_ms[s] < sched.idle_ms[k]) k = s;
  return tr_fill("inter.makespan_by_hand", {format_ms(sched.makespan_ms), std::to_string(microbatches), format_ms(sched.forward_ms[k]),
                                            format_ms(sched.backward_ms[k]), std::to_string(k), format_ms(sched.idle_ms[k])});
}

Json alpa_result_json(const AlpaView& view, const AlpaInputs& in) {
  Json j;
  const bool intra_ok = view.intra.plan && view.intra.key == intra_key(in);
  j["objective"] = nullptr;
  j["intra_ops"] = nullptr;
  j["intra_options"] = intra_options_json(view.intra);
  j["intra_planning"] = intra_planning(view.intra);   // the worker computes the plan of these inputs: the fields above are null until it arrives
  if (intra_ok) {
    const IntraOpPlan& p = *view.intra.plan;
    j["objective"] = p.objective;
    j["communication_cost"] = p.communication_cost;
    j["resharding_cost"] = p.resharding_cost;
    j["memory_per_device_bytes"] = p.memory_per_device;
    j["optimizer_memory_per_device_bytes"] = p.optimizer_memory_per_device;
    j["solver_objective"] = p.solver_objective;
    j["collectives"] = Json{{"all-reduce", p.collectives.all_reduce},
                            {"all-gather", p.collectives.all_gather},
                            {"reduce-scatter", p.collectives.reduce_scatter},
                            {"all-to-all", p.collectives.all_to_all}};
    j["intra_solver"] = p.solution.solver;
    j["intra_solve_ms"] = p.solve_ms;
    j["intra_ops"] = to_json(view.intra.ops);
    j["intra_source"] = "worker";   // where the plan shown was computed: the page never solves it
  } else if (view.intra.error && view.intra.key == intra_key(in)) {
    j["intra_error"] = error_to_json(*view.intra.error);
  }
  const InterOpPlan* inter = current_inter_plan(view.inter, in);
  j["total_latency"] = inter ? Json(inter->total_latency) : Json(nullptr);
  j["inter_planning"] = inter_planning(view.inter);
  // 1 once the plan (or its error) for these inputs is there, a fraction while planning.
  const bool inter_known = view.inter.key == inter_key(in) && (view.inter.plan || view.inter.error);
  j["inter_status"] = inter_plan_status(view.inter);   // the tab's line beside the progress bar ("" when idle)
  j["inter_progress"] = inter_planning(view.inter) ? Json(inter_plan_progress(view.inter)) : inter_known ? Json(1.0) : Json(nullptr);
  const InterOpTiming& timing = view.inter.job ? view.inter.job->timing : view.inter.timing;
  j["inter_timing"] = Json{{"elapsed_ms", inter_plan_elapsed_ms(view.inter)},
                           {"work_ms", timing.work_ms},
                           {"longest_slice_ms", timing.longest_slice_ms},
                           {"slices", timing.slices}};
  if (inter) {
    j["t_max"] = inter->t_max;
    j["inter_interleave"] = inter->interleave;   // v of interleaved 1F1B the total prices (1: 1F1B)
    j["inter_report"] = view.inter.report;   // `autopar inter --json` for these inputs, as the worker made it
    Json stages = Json::array();
    for (size_t k = 0; k < inter->stages.size(); ++k) {
      const PipelineStage& s = inter->stages[k];
      // In the model's numbering, as `autopar inter` prints them.
      const auto [first, last] = stage_layer_numbers(view.inter, s);
      Json st{{"layers", Json::array({first, last})},
              {"submesh", Json::array({s.submesh.nodes, s.submesh.gpus})},
              {"latency", s.latency},
              {"logical_mesh", s.logical_mesh},
              {"device_offset", s.device_offset}};
      st["boundary"] = k + 1 < inter->stages.size() ? Json{{"ms", s.send_ms + inter->stages[k + 1].recv_ms}} : Json(nullptr);
      const StageKnobs knobs = stage_knobs(view.inter.report, k);   // as the tab's "knobs chosen" column
      st["recompute"] = knobs.recompute;
      st["zero_stage"] = knobs.zero_stage;
      st["sequence_parallel"] = knobs.sequence_parallel;
      stages.push_back(st);
    }
    j["stages"] = stages;
    j["boundaries"] = inter->boundaries ? "priced" : "ignored";
    // The space searched and, in today's, what it chose beyond the stages (`inter --space today --json`).
    const Json& report = view.inter.report;
    j["inter_space"] = report.is_object() ? report.value("space", std::string("alpa")) : std::string("alpa");
    j["inter_microbatches"] = plan_microbatches(view.inter, in.microbatches);
    if (report.contains("context_parallel")) j["inter_context_parallel"] = report["context_parallel"];
    if (report.contains("expert_parallel")) j["inter_expert_parallel"] = report["expert_parallel"];
    if (report.contains("knob_search")) j["inter_knob_search"] = report["knob_search"];
    // The schedule model's GPipe and 1F1B on the plan (the makespans of `inter --schedule gpipe|1f1b`).
    const PlanShares shares = plan_shares_from_report(view.inter.report);
    const int B = plan_microbatches(view.inter, in.microbatches);
    const PipelineSchedule gpipe = plan_pipeline_schedule(*inter, B, PipelineKind::gpipe, shares);
    const PipelineSchedule f1b = plan_pipeline_schedule(*inter, B, PipelineKind::one_f_one_b, shares);
    j["bubble_fraction"] = Json{{"gpipe", gpipe.bubble_fraction}, {"1f1b", f1b.bubble_fraction}};
    // What the tab shows to redo the total by hand, and what its charts show.
    const InterOpTerms terms = inter_op_terms(*inter, B);
    j["inter_terms"] = Json{{"lanes", terms.lane_ms},     {"sends", terms.send_ms},          {"sum_ms", terms.sum_ms},
                            {"t_max", terms.t_max},       {"t_max_stage", terms.t_max_stage}, {"t_max_is_send", terms.t_max_is_send},
                            {"total_ms", terms.total_ms}, {"microbatches", B}};
    Json schedules;
    for (const auto& [name, sched] : {std::pair<const char*, const PipelineSchedule*>{"gpipe", &gpipe}, {"1f1b", &f1b}}) {
      const ScheduleReading r = read_schedule(*sched, int(inter->stages.size()));
      // Per stage what redoes the makespan by hand: microbatches x (F + B) + its idle time.
      schedules[name] = Json{{"makespan_ms", sched->makespan_ms}, {"bubble_fraction", sched->bubble_fraction}, {"idle_ms", r.idle_ms},
                             {"peak_in_flight", r.peak_in_flight}, {"forward_ms", sched->forward_ms},   {"backward_ms", sched->backward_ms},
                             {"stage_idle_ms", sched->idle_ms},   {"send_ms", sched->send_ms}};
    }
    schedules["explanation"] = schedule_explanation(*inter, gpipe, f1b, B);
    schedules["forward_share"] = shares.forward;
    schedules["weight_share"] = shares.weight;
    schedules["microbatches"] = B;
    j["inter_schedules"] = schedules;   // "schedules" is the Schedules tab's (page_result.cpp)
  } else if (view.inter.error && view.inter.key == inter_key(in)) {
    j["inter_error"] = error_to_json(*view.inter.error);
  }
  return j;
}

int shard_count(const std::vector<uint8_t>& dims, int rows, int cols) {
  int n = 1;
  for (uint8_t m : dims) n *= ((m & 1) ? rows : 1) * ((m & 2) ? cols : 1);
  return n;
}

int shard_of_device(const std::vector<uint8_t>& dims, int r, int c, int rows, int cols) {
  int id = 0;
  for (uint8_t m : dims) {
    const int ways = ((m & 1) ? rows : 1) * ((m & 2) ? cols : 1);
    int part = 0;
    if (m == 1) part = r;
    else if (m == 2) part = c;
    else if (m == 3) part = mesh_position_device(r, c, cols);   // S01: its shards follow the devices
    id = id * ways + part;
  }
  return id;
}

}  // namespace autopar::web
