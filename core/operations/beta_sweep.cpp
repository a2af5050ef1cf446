// The beta sweep's runs and findings. See beta_sweep.h.
#include "beta_sweep.h"

#include "report_text.h"

namespace autopar {

const std::vector<std::string>& beta_sweep_betas() {
  static const std::vector<std::string> betas = {"1", "10", "50", "200", "500", "2000", "10000"};
  return betas;
}

size_t beta_sweep_runs() { return beta_sweep_betas().size() * kBetaSweepSeeds; }

BetaSweepRun beta_sweep_run(size_t k) {
  return {std::stod(beta_sweep_betas()[k / kBetaSweepSeeds]), uint64_t(k % kBetaSweepSeeds) + 1};
}

BetaSweepResult beta_sweep_result(const std::vector<double>& best_ms) {
  BetaSweepResult r;
  Json sweep = Json::array();
  for (size_t b = 0; b < beta_sweep_betas().size(); ++b) {
    double sum = 0;
    for (size_t s = 0; s < size_t(kBetaSweepSeeds); ++s) {
      const size_t k = b * kBetaSweepSeeds + s;
      sum += k < best_ms.size() ? best_ms[k] : 0;
    }
    const double mean = sum / kBetaSweepSeeds;
    r.mean_best_ms.push_back(mean);
    sweep.push_back(Json{{"beta", std::stod(beta_sweep_betas()[b])}, {"mean_best_ms", mean}});
    r.findings.push_back(say("beta {0}: mean best {1}", "β {0}：平均最好 {1}", {beta_sweep_betas()[b], fmt("%.2f ms", mean)}));
  }
  r.results = Json{{"sweep", sweep}};
  return r;
}

}  // namespace autopar
