// The page's simulator-accuracy study in the worker. See accuracy_job.h.
#include "accuracy_job.h"

#include <algorithm>

#include "accuracy_operation.h"
#include "operation_requests.h"

namespace autopar::web {

void accuracy_reset(AccuracyJob& job) {
  if (job.worker && job.request) job.worker->cancel(job.request);
  job = AccuracyJob{};
}

void accuracy_start(AccuracyJob& job, std::shared_ptr<WorkerClient> worker, const Json& inputs, int samples, uint64_t seed) {
  accuracy_reset(job);
  job.started = true;
  job.samples = std::clamp(samples, 2, kMaxAccuracySamples);
  job.seed = seed;
  job.worker = std::move(worker);
  AccuracyRequest request;
  request.samples = job.samples;
  request.seed = seed;
  job.request = job.worker->start("accuracy", inputs, request_to_json(request));
}

namespace {

// Appends one partial {from, ideal, calibrated, real}; false when it does not fit what came before.
bool apply_partial(AccuracyJob& job, const Json& p) {
  if (!p.is_object() || !p.contains("from") || !p["from"].is_number_unsigned() || p["from"].get<size_t>() != job.real_ms.size()) return false;
  for (const char* key : {"ideal", "calibrated", "real"})
    if (!p.contains(key) || !p[key].is_array() || p[key].size() != p["real"].size()) return false;
  for (size_t i = 0; i < p["real"].size(); ++i) {
    job.ideal_ms.push_back(p["ideal"][i].get<double>());
    job.calibrated_ms.push_back(p["calibrated"][i].get<double>());
    job.real_ms.push_back(p["real"][i].get<double>());
  }
  return true;
}

}  // namespace

bool accuracy_advance(AccuracyJob& job, double budget_ms) {
  if (!job.started || !job.request) return job.complete;
  if (!job.worker->connected()) job.worker->step_local(budget_ms);
  for (const Json& p : job.worker->take_partials(job.request))
    if (!apply_partial(job, p)) job.error = make_error(ErrorCode::bad_value, "the worker's samples do not follow each other", "accuracy");
  auto outcome = job.worker->take(job.request);
  if (!outcome) return false;
  job.request = 0;
  if (!outcome->ok()) {
    job.error = outcome->error();
    return false;
  }
  auto ideal = AccuracyReport::summary_from_json(outcome->value().value("ideal", Json()), "ideal");
  auto calibrated = AccuracyReport::summary_from_json(outcome->value().value("calibrated", Json()), "calibrated");
  if (!ideal.ok() || !calibrated.ok()) {
    job.error = !ideal.ok() ? ideal.error() : calibrated.error();
    return false;
  }
  job.ideal = ideal.value();
  job.calibrated = calibrated.value();
  job.ideal.samples = job.calibrated.samples = int(job.real_ms.size());
  job.complete = !job.error && int(job.real_ms.size()) == job.samples;
  return job.complete;
}

Json accuracy_result_json(const AccuracyJob& job) {
  if (!job.started) return nullptr;
  auto summary = [&](const AccuracySummary& s) -> Json {
    if (!job.complete) return nullptr;
    return Json{{"mean_rel_error", s.mean_rel_error}, {"max_rel_error", s.max_rel_error},
                {"kendall_tau", s.kendall_tau},       {"top_kendall_tau", s.top_kendall_tau},
                {"top_count", s.top_count},           {"sim_best_true_rank", s.sim_best_true_rank}};
  };
  Json j{{"samples", job.samples}, {"done", int(job.real_ms.size())}, {"complete", job.complete},
         {"seed", job.seed},       {"ideal", summary(job.ideal)},     {"calibrated", summary(job.calibrated)}};
  if (job.error) j["error"] = error_to_json(*job.error);
  return j;
}

}  // namespace autopar::web
