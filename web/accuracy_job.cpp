// The page's sliced simulator-accuracy study. See accuracy_job.h.
//
// It runs core's accuracy_sample a few strategies per frame (accuracy_study would do all of them
// in one call and freeze the page) and summarises with core's summarize_accuracy.
#include "accuracy_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "simulator.h"
#include "soap.h"

namespace autopar::web {

void accuracy_reset(AccuracyJob& job) { job = AccuracyJob{}; }

void accuracy_start(AccuracyJob& job, int samples, uint64_t seed) {
  accuracy_reset(job);
  job.started = true;
  job.samples = std::clamp(samples, 2, kMaxAccuracySamples);
  job.seed = seed;
  job.rng = Rng(seed);
}

bool accuracy_advance(AccuracyJob& job, const Graph& graph, const Cluster& cluster, double budget_ms) {
  if (!job.started || job.complete) return job.complete;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); };
  do {
    // Exactly accuracy_study's sequence: one seed per strategy, which also seeds the jitter.
    const AccuracySample a = accuracy_sample(graph, cluster, job.rng.next());
    job.ideal_ms.push_back(a.ideal_ms);
    job.calibrated_ms.push_back(a.calibrated_ms);
    job.real_ms.push_back(a.real_ms);
  } while (int(job.real_ms.size()) < job.samples && elapsed() < budget_ms);
  job.compute_ms += elapsed();
  if (int(job.real_ms.size()) >= job.samples) {
    job.ideal = summarize_accuracy(job.ideal_ms, job.real_ms);
    job.calibrated = summarize_accuracy(job.calibrated_ms, job.real_ms);
    job.complete = true;
  }
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
  return Json{{"samples", job.samples}, {"done", int(job.real_ms.size())}, {"complete", job.complete},
              {"seed", job.seed},       {"ideal", summary(job.ideal)},     {"calibrated", summary(job.calibrated)}};
}

}  // namespace autopar::web
