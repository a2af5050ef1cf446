// Simulator-accuracy study (lecture 3.4): ideal or calibrated simulator vs the fine model.
#include "accuracy.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "rng.h"
#include "simulator.h"
#include "soap.h"

namespace autopar {

double kendall_tau(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = a.size();
  if (n < 2) return 1;
  int64_t concordant = 0, discordant = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      double x = (a[i] - a[j]) * (b[i] - b[j]);
      if (x > 0) ++concordant;
      else if (x < 0) ++discordant;
    }
  return double(concordant - discordant) / (double(n) * double(n - 1) / 2);
}

AccuracySample accuracy_sample(const Graph& graph, const Cluster& cluster, uint64_t strategy_seed) {
  Strategy s = random_strategy(graph, cluster.num_devices(), strategy_seed);
  TaskGraph ideal(graph, cluster, s, CostSettings{CostMode::ideal, 0});
  TaskGraph calibrated(graph, cluster, s, CostSettings{CostMode::calibrated, 0});
  TaskGraph fine(graph, cluster, s, CostSettings{CostMode::fine, strategy_seed});
  return AccuracySample{simulate_full(ideal), simulate_full(calibrated), simulate_full(fine)};
}

AccuracyResult summarize_accuracy(const std::vector<double>& sim, const std::vector<double>& real) {
  AccuracyResult r;
  const int samples = int(std::min(sim.size(), real.size()));
  r.samples = samples;
  double sum = 0;
  for (int i = 0; i < samples; ++i) {
    double e = std::fabs(sim[size_t(i)] - real[size_t(i)]) / real[size_t(i)];
    sum += e;
    r.max_rel_error = std::max(r.max_rel_error, e);
  }
  r.mean_rel_error = samples ? sum / samples : 0;
  r.kendall_tau = kendall_tau(sim, real);
  // Among the strategies that are really the best: does the simulator order them right?
  std::vector<int> by_real(static_cast<size_t>(samples));
  std::iota(by_real.begin(), by_real.end(), 0);
  std::sort(by_real.begin(), by_real.end(), [&](int a, int b) { return real[size_t(a)] < real[size_t(b)] || (real[size_t(a)] == real[size_t(b)] && a < b); });
  r.top_count = std::min(samples, std::max(10, samples / 10));
  std::vector<double> top_sim, top_real;
  for (int k = 0; k < r.top_count; ++k) {
    top_sim.push_back(sim[size_t(by_real[size_t(k)])]);
    top_real.push_back(real[size_t(by_real[size_t(k)])]);
  }
  r.top_kendall_tau = kendall_tau(top_sim, top_real);
  if (samples > 0) {
    int favourite = int(std::min_element(sim.begin(), sim.begin() + samples) - sim.begin());
    r.sim_best_true_rank = int(std::find(by_real.begin(), by_real.end(), favourite) - by_real.begin()) + 1;
  }
  return r;
}

AccuracyResult accuracy_study(const Graph& graph, const Cluster& cluster, int samples, uint64_t seed, CostMode simulator) {
  Rng rng(seed);
  std::vector<double> sim, real;
  std::vector<AccuracyPoint> points;
  for (int i = 0; i < samples; ++i) {
    AccuracySample a = accuracy_sample(graph, cluster, rng.next());
    sim.push_back(simulator == CostMode::calibrated ? a.calibrated_ms : a.ideal_ms);
    real.push_back(a.real_ms);
    points.push_back({sim.back(), real.back()});
  }
  AccuracyResult r = summarize_accuracy(sim, real);
  r.points = std::move(points);
  return r;
}

}  // namespace autopar
