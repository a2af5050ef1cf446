// The memory of the page's plan per pipeline stage. See plan_memory_view.h.
#include "plan_memory_view.h"

#include <algorithm>
#include <utility>

namespace autopar::web {
namespace {

// Per frame of in-process work (native tests: the WorkerClient's own session).
constexpr double kLocalStepMs = 1000;

Result<double> number_field(const Json& j, const char* name, const std::string& path) {
  if (!j.contains(name) || !j[name].is_number()) return make_error(ErrorCode::wrong_type, path + "." + name + " must be a number", path + "." + name);
  return j[name].get<double>();
}

}  // namespace

std::string plan_memory_key(const PlanMemoryInputs& in) {
  return in.plan + "|" + std::to_string(in.microbatches) + "|" + in.optimizer + "|" + in.worker_inputs.dump();
}

Result<PlanMemoryReport> plan_memory_report_from_json(const Json& j) {
  if (!j.is_object() || !j.contains("stages") || !j["stages"].is_array())
    return make_error(ErrorCode::wrong_type, "a plan's memory must be an object with a stages array", "stages");
  PlanMemoryReport r;
  r.model = j.value("model", "");
  r.plan = j.value("plan", "");
  r.devices = j.value("devices", 0);
  r.microbatches = j.value("microbatches", 0);
  auto cap = number_field(j, "capacity_bytes", "report");
  if (!cap.ok()) return cap.error();
  r.capacity_bytes = cap.value();
  r.context = j.value("context_parallel", 1);
  r.expert = j.value("expert_parallel", 1);
  if (j.contains("sharding") && j["sharding"].is_array())
    for (const Json& s : j["sharding"])
      if (s.is_string()) r.sharding.push_back(s.get<std::string>());
  for (size_t k = 0; k < j["stages"].size(); ++k) {
    const Json& s = j["stages"][k];
    const std::string path = "stages[" + std::to_string(k) + "]";
    PlanStageMemory m;
    if (!s.is_object() || !s.contains("layers") || !s["layers"].is_array() || s["layers"].size() != 2)
      return make_error(ErrorCode::wrong_type, path + ".layers must be [first, last]", path + ".layers");
    m.first_layer = s["layers"][0].get<int>();
    m.last_layer = s["layers"][1].get<int>();
    m.zero_stage = s.value("zero_stage", 0);
    m.recompute = s.value("recompute", "");
    double* fields[] = {&m.params_bytes, &m.grads_bytes, &m.optimizer_bytes, &m.activation_bytes_per_microbatch,
                        &m.inflight_microbatches, &m.activation_bytes, &m.total_bytes};
    const char* names[] = {"params_bytes", "grads_bytes", "optimizer_bytes", "activation_bytes_per_microbatch",
                           "inflight_microbatches", "activation_bytes", "total_bytes"};
    for (size_t f = 0; f < 7; ++f) {
      auto x = number_field(s, names[f], path);
      if (!x.ok()) return x.error();
      *fields[f] = x.value();
    }
    m.fits = s.value("fits", false);
    r.stages.push_back(m);
  }
  return r;
}

namespace {

std::list<PlanMemoryView::Entry>::iterator find_entry(PlanMemoryView& view, const std::string& key) {
  return std::find_if(view.cache.begin(), view.cache.end(), [&](const PlanMemoryView::Entry& e) { return e.key == key; });
}

// Takes job `request`'s outcome into the cache (as computed ahead or not) once it arrived, and
// clears `key` and `request`; true then.
bool take_report(PlanMemoryView& view, WorkerClient& worker, std::string& key, int64_t& request, bool ahead) {
  auto outcome = worker.take(request);
  if (!outcome) return false;
  Result<PlanMemoryReport> report = outcome->ok() ? plan_memory_report_from_json(outcome->value()) : Result<PlanMemoryReport>(outcome->error());
  view.cache.push_front(PlanMemoryView::Entry{std::move(key), std::move(report), ahead});
  if (view.cache.size() > kPlanMemoryCacheSize) view.cache.pop_back();
  key.clear();
  request = 0;
  return true;
}

// Asks the worker for `in`'s report; returns the job's id.
int64_t start_computing(WorkerClient& worker, const PlanMemoryInputs& in) {
  return worker.start("plan_memory", in.worker_inputs, Json{{"plan", in.plan}, {"microbatches", in.microbatches}, {"optimizer", in.optimizer}});
}

}  // namespace

const Result<PlanMemoryReport>* cached_plan_memory(PlanMemoryView& view, const PlanMemoryInputs& in) {
  auto it = find_entry(view, plan_memory_key(in));
  if (it == view.cache.end()) return nullptr;
  if (it->ahead) {
    it->ahead = false;
    ++view.prefetch_hits;
  }
  if (it != view.cache.begin()) view.cache.splice(view.cache.begin(), view.cache, it);
  return &view.cache.front().report;
}

const Result<PlanMemoryReport>* find_plan_memory(const PlanMemoryView& view, const PlanMemoryInputs& in) {
  const std::string key = plan_memory_key(in);
  for (const auto& e : view.cache)
    if (e.key == key) return &e.report;
  return nullptr;
}

bool plan_memory_pending(const PlanMemoryView& view) { return !view.pending_key.empty(); }

bool follow_plan_memory(PlanMemoryView& view, WorkerClient& worker, const PlanMemoryInputs& in) {
  bool arrived = false;
  if ((plan_memory_pending(view) || !view.prefetch_key.empty()) && !worker.connected()) worker.step_local(kLocalStepMs);
  if (plan_memory_pending(view) && take_report(view, worker, view.pending_key, view.request, false)) {
    view.last_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - view.started).count();
    arrived = true;
  }
  if (!view.prefetch_key.empty()) take_report(view, worker, view.prefetch_key, view.prefetch_request, true);
  if (plan_memory_pending(view)) return arrived;
  std::string key = plan_memory_key(in);
  if (find_entry(view, key) != view.cache.end()) return arrived;
  view.started = std::chrono::steady_clock::now();
  if (view.prefetch_key == key) {
    // Being computed ahead: it is the one asked for now (its wait counts from here).
    view.pending_key = std::exchange(view.prefetch_key, std::string());
    view.request = std::exchange(view.prefetch_request, 0);
    return arrived;
  }
  view.pending_key = std::move(key);
  view.request = start_computing(worker, in);
  return arrived;
}

bool prefetch_plan_memory(PlanMemoryView& view, WorkerClient& worker, const PlanMemoryInputs& current,
                          const std::function<std::vector<PlanMemoryInputs>()>& around) {
  if (std::string key = plan_memory_key(current); key != view.ahead_of) {
    view.ahead = around();
    view.ahead_of = std::move(key);
    view.ahead_next = 0;
  }
  if (plan_memory_pending(view) || !view.prefetch_key.empty() || worker.pending() > 0) return false;
  while (view.ahead_next < view.ahead.size() && find_plan_memory(view, view.ahead[view.ahead_next])) ++view.ahead_next;
  if (view.ahead_next == view.ahead.size()) return false;
  const PlanMemoryInputs& in = view.ahead[view.ahead_next++];
  view.prefetch_key = plan_memory_key(in);
  view.prefetch_request = start_computing(worker, in);
  ++view.prefetched;
  return true;
}

size_t plan_memory_ahead_left(const PlanMemoryView& view) {
  size_t left = 0;
  for (size_t k = view.ahead_next; k < view.ahead.size(); ++k) left += find_plan_memory(view, view.ahead[k]) == nullptr;
  return left;
}

PlanMemoryShown plan_memory_to_show(PlanMemoryView& view, const PlanMemoryInputs& in, int64_t frame) {
  PlanMemoryShown shown;
  shown.report = cached_plan_memory(view, in);
  if (shown.report) {
    view.shown_key = plan_memory_key(in);
  } else if (auto it = find_entry(view, view.shown_key); it != view.cache.end()) {
    shown = PlanMemoryShown{&it->report, true};
  }
  view.shown_plan = in.plan;
  view.shown_stale = shown.stale;
  view.shown_frame = shown.report ? frame : -1;
  return shown;
}

int fullest_stage(const PlanMemoryReport& r) {
  int best = -1;
  for (size_t k = 0; k < r.stages.size(); ++k)
    if (best < 0 || r.stages[k].total_bytes > r.stages[size_t(best)].total_bytes) best = int(k);
  return best;
}

Json plan_memory_result_json(const PlanMemoryView& view, const PlanMemoryInputs& in) {
  Json j{{"plan", in.plan}, {"pending", plan_memory_pending(view)}, {"last_ms", view.last_ms}};
  j["ahead"] = Json{{"left", plan_memory_ahead_left(view)}, {"computing", !view.prefetch_key.empty()}, {"started", view.prefetched}, {"hits", view.prefetch_hits}};
  j["shown"] = Json{{"plan", view.shown_plan}, {"stale", view.shown_stale}, {"frame", view.shown_frame}};
  const Result<PlanMemoryReport>* r = find_plan_memory(view, in);
  j["ready"] = r != nullptr;
  if (!r) return j;
  if (!r->ok()) {
    j["error"] = Json{{"message", r->error().message}, {"path", r->error().path}};
    return j;
  }
  const PlanMemoryReport& m = r->value();
  Json stages = Json::array();
  bool fits = true;
  for (const PlanStageMemory& s : m.stages) {
    fits = fits && s.fits;
    stages.push_back(Json{{"layers", Json::array({s.first_layer, s.last_layer})}, {"params_bytes", s.params_bytes}, {"grads_bytes", s.grads_bytes},
                          {"optimizer_bytes", s.optimizer_bytes}, {"activation_bytes", s.activation_bytes},
                          {"activation_bytes_per_microbatch", s.activation_bytes_per_microbatch}, {"inflight_microbatches", s.inflight_microbatches},
                          {"total_bytes", s.total_bytes}, {"fits", s.fits}, {"recompute", s.recompute}, {"zero_stage", s.zero_stage}});
  }
  j["stages"] = stages;
  j["fits"] = fits;
  j["capacity_bytes"] = m.capacity_bytes;
  j["microbatches"] = m.microbatches;
  return j;
}

}  // namespace autopar::web
