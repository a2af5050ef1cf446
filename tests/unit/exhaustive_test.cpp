// Exhaustive search on mlp3 over lecture:1x8 (`autopar exhaustive --model mlp3 --cluster
// lecture:1x8`): it counts every strategy once, its best equals the minimum of an independent
// enumeration written here (each strategy built and simulated from scratch, where
// exhaustive_search walks an odometer with delta simulation), and no MCMC run beats it.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "cluster_spec.h"
#include "mcmc.h"
#include "simulator.h"
#include "soap.h"
#include "task_graph.h"
#include "test_inputs.h"

using namespace autopar;
using autopar::test::model;

TEST_CASE("exhaustive search on mlp3 over 8 GPUs: 17,576 strategies, the minimum of a from-scratch enumeration, never beaten by MCMC") {
  const Graph g = model("mlp3");
  const Cluster c = load_cluster("lecture:1x8").value();
  REQUIRE(g.ops.size() == 3);
  // Each of the three linear ops has 26 configurations on 8 GPUs: 26^3 = 17,576.
  std::vector<std::vector<OpConfig>> space;
  for (const Op& op : g.ops) {
    space.push_back(enumerate_configs(op, 8));
    CHECK(space.back().size() == 26);
  }
  CHECK(count_space(g, 8).strategies == "17576");

  auto ex = exhaustive_search(g, c);
  REQUIRE(ex.ok());
  CHECK(ex.value().strategies_evaluated == 17576);

  // The independent enumeration: plain nested loops, a new task graph for each strategy.
  double min_ms = 0;
  int64_t count = 0, at_min = 0;
  Strategy s;
  s.ops.resize(3);
  for (const OpConfig& a : space[0])
    for (const OpConfig& b : space[1])
      for (const OpConfig& d : space[2]) {
        s.ops = {a, b, d};
        TaskGraph tg(g, c, s);
        const double ms = simulate_full(tg);
        if (count == 0 || ms < min_ms) min_ms = ms, at_min = 0;
        at_min += ms == min_ms;
        ++count;
      }
  CHECK(count == 17576);
  CHECK(ex.value().best_ms == min_ms);
  CHECK(at_min >= 1);
  // The strategy it names takes that time when simulated on its own.
  TaskGraph best(g, c, ex.value().best);
  CHECK(simulate_full(best) == ex.value().best_ms);
  // Data parallelism, one of the 17,576, is no better.
  TaskGraph dp(g, c, data_parallel(g, 8));
  CHECK(simulate_full(dp) >= min_ms);

  // MCMC explores the same space: whatever the seed and beta, its best is one of these strategies.
  for (double beta : {1.0, 50.0, 500.0, 1e6})
    for (uint64_t seed : {uint64_t(1), uint64_t(2), uint64_t(3)}) {
      CAPTURE(beta);
      CAPTURE(seed);
      SearchOptions o;
      o.beta = beta;
      o.seed = seed;
      o.steps = 2000;
      const SearchResult r = run_search(g, c, data_parallel(g, 8), o, nullptr);
      CHECK(r.best_ms >= ex.value().best_ms);
    }
}
