// The simulator-accuracy study of lecture 3.4: simulate N random strategies with the ideal (or
// calibrated) simulator and with the finer "real execution" model, and compare: relative
// error, Kendall tau over all strategies and among the best ones, and the true rank of the
// strategy the simulator likes best.
#pragma once
#include <cstdint>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "task_graph.h"

namespace autopar {

// One strategy's two times.
struct AccuracyPoint {
  double simulated_ms;
  double real_ms;
};

// Summary of the study (INTERFACES.md `accuracy`).
struct AccuracyResult {
  int samples = 0;
  double mean_rel_error = 0;
  double max_rel_error = 0;
  double kendall_tau = 0;          // over all strategies
  double top_kendall_tau = 0;      // among the best tenth (at least 10) by real time
  int top_count = 0;
  int sim_best_true_rank = 0;      // 1 = the simulator's favourite is really the fastest
  std::vector<AccuracyPoint> points;
};

// Kendall's tau-a of two equally long sequences (ties count as neither concordant nor discordant).
double kendall_tau(const std::vector<double>& a, const std::vector<double>& b);

// One random strategy (the one `strategy_seed` draws; it also seeds the fine model's jitter)
// under the three cost models.
struct AccuracySample {
  double ideal_ms = 0, calibrated_ms = 0, real_ms = 0;
};
AccuracySample accuracy_sample(const Graph& graph, const Cluster& cluster, uint64_t strategy_seed);

// The study's summary of simulated vs real times (errors, Kendall tau overall and among the
// best tenth by real time, the true rank of the simulator's favourite); no points.
AccuracyResult summarize_accuracy(const std::vector<double>& simulated_ms, const std::vector<double>& real_ms);

// Runs the study on `samples` random strategies, the i-th drawn with the i-th output of
// Rng(seed); `simulator` is CostMode::ideal or CostMode::calibrated, against CostMode::fine.
AccuracyResult accuracy_study(const Graph& graph, const Cluster& cluster, int samples, uint64_t seed, CostMode simulator);

}  // namespace autopar
