// core/operations/beta_sweep.h: the sweep's runs in (beta, seed) order and its findings, by hand.
#include <doctest/doctest.h>

#include "beta_sweep.h"

using namespace autopar;

TEST_CASE("beta sweep: 7 betas x 5 seeds in (beta, seed) order") {
  REQUIRE(beta_sweep_runs() == 35);
  CHECK(beta_sweep_run(0).beta == 1);
  CHECK(beta_sweep_run(0).seed == 1);
  CHECK(beta_sweep_run(4).seed == 5);
  CHECK(beta_sweep_run(5).beta == 10);
  CHECK(beta_sweep_run(5).seed == 1);
  CHECK(beta_sweep_run(34).beta == 10000);
  CHECK(beta_sweep_run(34).seed == 5);
}

TEST_CASE("beta sweep result: the mean of each beta's five best times, in the scenario's words") {
  // Run k's best time is k ms: beta b's runs are 5b .. 5b + 4, their mean 5b + 2.
  std::vector<double> best_ms;
  for (size_t k = 0; k < beta_sweep_runs(); ++k) best_ms.push_back(double(k));
  const BetaSweepResult r = beta_sweep_result(best_ms);
  REQUIRE(r.mean_best_ms.size() == 7);
  CHECK(r.mean_best_ms[0] == 2);
  CHECK(r.mean_best_ms[6] == 32);
  REQUIRE(r.findings.size() == 7);
  CHECK(r.findings[0].en == "beta 1: mean best 2.00 ms");
  CHECK(r.findings[6].en == "beta 10000: mean best 32.00 ms");
  CHECK(r.findings[6].zh == "β 10000：平均最好 32.00 ms");
  CHECK(r.results["sweep"].size() == 7);
  CHECK(r.results["sweep"][3]["beta"].get<double>() == 200);
  CHECK(r.results["sweep"][3]["mean_best_ms"].get<double>() == 17);
}
