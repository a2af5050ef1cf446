// The beta sweep of lecture 4.4 (scenario beta-sweep): 7 betas x 5 seeds of 2,000-step MCMC
// searches of AlexNet on lecture:2x4 from data parallel, and the mean best time per beta. The
// CLI's scenario runs the searches one after the other; the page runs them in its workers side
// by side. Both take the runs and the findings from here, so they print the same.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "json_io.h"
#include "language.h"

namespace autopar {

// The betas of the sweep, as the findings write them.
const std::vector<std::string>& beta_sweep_betas();
// Seeds per beta (1 .. kBetaSweepSeeds).
constexpr int kBetaSweepSeeds = 5;
// What every search of the sweep runs: `search --model M --cluster C --steps N --init I`.
constexpr const char* kBetaSweepModel = "alexnet";
constexpr const char* kBetaSweepCluster = "lecture:2x4";
constexpr int64_t kBetaSweepSteps = 2000;
constexpr const char* kBetaSweepInit = "dp";

// One search of the sweep: its beta and seed.
struct BetaSweepRun {
  double beta = 0;
  uint64_t seed = 1;
};
// Searches in the whole sweep (betas x seeds).
size_t beta_sweep_runs();
// Search `k` of the sweep, in (beta, seed) order: beta index k / seeds, seed k % seeds + 1.
BetaSweepRun beta_sweep_run(size_t k);

// The sweep's outcome from every search's best time (in run order, beta_sweep_runs() of them).
struct BetaSweepResult {
  std::vector<double> mean_best_ms;     // per beta, summed seed 1 to 5 (the order fixes the rounding)
  Json results;                         // the scenario's results: {"sweep": [{beta, mean_best_ms}]}
  std::vector<Bilingual> findings;      // "beta B: mean best X ms", per beta
};
BetaSweepResult beta_sweep_result(const std::vector<double>& best_ms);

}  // namespace autopar
