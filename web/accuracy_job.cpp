// The page's sliced simulator-accuracy study. See accuracy_job.h.
//
// The per-strategy loop and the summary repeat core/accuracy.cpp's accuracy_study step by step
// (it runs all samples in one call, which would freeze the page); the browser test compares
// the page's numbers with `autopar accuracy` so that the two cannot drift apart unnoticed.
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

AccuracySummary summarize_accuracy(const std::vector<double>& sim, const std::vector<double>& real) {
  AccuracySummary r;
  const int samples = int(std::min(sim.size(), real.size()));
  double sum = 0;
  for (int i = 0; i < samples; ++i) {
    const double e = std::fabs(sim[size_t(i)] - real[size_t(i)]) / real[size_t(i)];
    sum += e;
    r.max_rel_error = std::max(r.max_rel_error, e);
  }
  r.mean_rel_error = samples ? sum / samples : 0;
  r.kendall_tau = kendall_tau(sim, real);
  std::vector<int> by_real(static_cast<size_t>(samples));
  std::iota(by_real.begin(), by_real.end(), 0);
  std::sort(by_real.begin(), by_real.end(), [&](int a, int b) {
    return real[size_t(a)] < real[size_t(b)] || (real[size_t(a)] == real[size_t(b)] && a < b);
  });
  r.top_count = std::min(samples, std::max(10, samples / 10));
  std::vector<double> top_sim, top_real;
  for (int k = 0; k < r.top_count; ++k) {
    top_sim.push_back(sim[size_t(by_real[size_t(k)])]);
    top_real.push_back(real[size_t(by_real[size_t(k)])]);
  }
  r.top_kendall_tau = kendall_tau(top_sim, top_real);
  if (samples > 0) {
    const int favourite = int(std::min_element(sim.begin(), sim.begin() + samples) - sim.begin());
    r.sim_best_true_rank = int(std::find(by_real.begin(), by_real.end(), favourite) - by_real.begin()) + 1;
  }
  return r;
}

bool accuracy_advance(AccuracyJob& job, const Graph& graph, const Cluster& cluster, double budget_ms) {
  if (!job.started || job.complete) return job.complete;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const int n = cluster.num_devices();
  auto elapsed = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); };
  do {
    // Exactly accuracy_study's sequence: one seed per strategy, which also seeds the jitter.
    const uint64_t strategy_seed = job.rng.next();
    Strategy s = random_strategy(graph, n, strategy_seed);
    TaskGraph ideal(graph, cluster, s, CostSettings{CostMode::ideal, 0});
    TaskGraph calibrated(graph, cluster, s, CostSettings{CostMode::calibrated, 0});
    TaskGraph fine(graph, cluster, s, CostSettings{CostMode::fine, strategy_seed});
    job.ideal_ms.push_back(simulate_full(ideal));
    job.calibrated_ms.push_back(simulate_full(calibrated));
    job.real_ms.push_back(simulate_full(fine));
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
