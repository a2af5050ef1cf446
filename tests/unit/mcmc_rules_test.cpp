// The rules of FlexFlow's MCMC search (core/flexflow/mcmc.h), each checked against a figure the
// search does not compute itself:
// - the Metropolis rule: a proposal no worse than the current strategy is always accepted, a worse
//   one with probability exp(beta * (cost(S) - cost(S*)) / cost(S0)) (mcmc.h; S current, S*
//   proposed, S0 initial). A second chain written here from the documented proposal rule, the
//   same seed and a full re-simulation of each proposal must take the same decisions, and the
//   acceptance frequency of worse proposals must match the mean of that formula statistically;
// - the stop rule: a search stops once half its proposal budget brought no improvement, and
//   runs the whole budget when stop_when_stalled is off; charge_time's wall-clock version;
// - the best strategy is never worse than the initial one, for tiny, moderate and huge beta.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cluster_spec.h"
#include "device_memory.h"
#include "mcmc.h"
#include "models.h"
#include "rng.h"
#include "simulator.h"
#include "soap.h"
#include "task_graph.h"
#include "test_inputs.h"

using namespace autopar;
using autopar::test::model;

namespace {

// The makespan of `s` from a task graph built and simulated from scratch.
double full_makespan(const Graph& g, const Cluster& c, const Strategy& s) {
  TaskGraph tg(g, c, s);
  return simulate_full(tg);
}

// What one proposal of the mirror chain did.
struct Decision {
  bool proposed = false;     // the op had another configuration to take
  bool worse = false;        // the proposal cost more than the current strategy
  double p_accept = 1;       // exp(beta * (cur - new) / init) for a worse one
  bool accept = false;
};

// The chain of mcmc.h without memory moves, written again from its documentation: a random op
// (below(#ops)) takes a random configuration other than its current one (below(#others), skipping
// the current index), simulated from scratch; a worse one is accepted when uniform() < p.
class MirrorChain {
 public:
  MirrorChain(const Graph& g, const Cluster& c, const Strategy& init, double beta, uint64_t seed)
      : g_(g), c_(c), rng_(seed), current_(init), beta_(beta) {
    for (size_t i = 0; i < g.ops.size(); ++i) {
      space_.push_back(enumerate_configs(g.ops[i], c.num_devices()));
      int index = -1;
      for (size_t k = 0; k < space_.back().size(); ++k)
        if (space_.back()[k] == init.ops[i]) index = int(k);
      index_.push_back(index);
    }
    init_ = cur_ = full_makespan(g, c, init);
  }
  Decision step() {
    Decision d;
    const int op = int(rng_.below(g_.ops.size()));
    const auto& configs = space_[size_t(op)];
    const int cur = index_[size_t(op)];
    const uint64_t choices = configs.size() - (cur >= 0 ? 1 : 0);
    if (choices == 0) return d;
    d.proposed = true;
    int pick = int(rng_.below(choices));
    if (cur >= 0 && pick >= cur) ++pick;
    Strategy s = current_;
    s.ops[size_t(op)] = configs[size_t(pick)];
    const double cost = full_makespan(g_, c_, s);
    d.worse = cost > cur_;
    if (d.worse) {
      d.p_accept = std::exp(beta_ * (cur_ - cost) / init_);
      d.accept = rng_.uniform() < d.p_accept;
    } else {
      d.accept = true;
    }
    if (d.accept) {
      current_ = s;
      index_[size_t(op)] = pick;
      cur_ = cost;
    }
    return d;
  }
  const Strategy& current() const { return current_; }
  double current_ms() const { return cur_; }

 private:
  const Graph& g_;
  const Cluster& c_;
  Rng rng_;
  std::vector<std::vector<OpConfig>> space_;
  std::vector<int> index_;
  Strategy current_;
  double beta_, init_, cur_;
};

SearchOptions options(double beta, int64_t steps, uint64_t seed, bool stop_when_stalled) {
  SearchOptions o;
  o.beta = beta;
  o.steps = steps;
  o.seed = seed;
  o.stop_when_stalled = stop_when_stalled;
  o.memory_moves = 0;
  return o;
}

}  // namespace

TEST_CASE("MCMC acceptance: better always, worse with exp(beta * (cur - new) / init), decision by decision and in frequency") {
  // Worse proposals grouped by their acceptance probability: [0, .25), [.25, .5), [.5, .75), [.75, 1].
  double p_sum[4] = {0, 0, 0, 0}, p_var[4] = {0, 0, 0, 0};
  int worse_n[4] = {0, 0, 0, 0}, worse_accepted[4] = {0, 0, 0, 0};
  int better = 0, better_accepted = 0;
  struct Case {
    const char* model;
    const char* cluster;
    double beta;
    uint64_t seed;
  };
  // Betas where a worse proposal's relative cost increase (a few percent to a few times the
  // initial makespan) gives probabilities across (0, 1).
  for (const Case k : {Case{"mlp3", "lecture:1x4", 2, 11}, Case{"mlp3", "lecture:2x4", 5, 12}, Case{"alexnet", "lecture:1x4", 20, 13}}) {
    CAPTURE(k.model);
    CAPTURE(k.cluster);
    const Graph g = model(k.model);
    const Cluster c = load_cluster(k.cluster).value();
    const Strategy init = data_parallel(g, c.num_devices());
    McmcSearch search(g, c, init, options(k.beta, 1500, k.seed, false));
    REQUIRE(search.result().init_fits);   // costs are makespans: no memory penalty in play
    MirrorChain mirror(g, c, init, k.beta, k.seed);
    CHECK(search.result().init_ms == mirror.current_ms());
    for (int i = 0; i < 1500; ++i) {
      const int64_t accepted_before = search.result().accepted;
      REQUIRE(search.step(1) == 1);
      const Decision d = mirror.step();
      const bool accepted = search.result().accepted > accepted_before;
      REQUIRE_MESSAGE(accepted == d.accept, "proposal " << i << ": the search and the documented rule disagree");
      // The chain is where the mirror is, at the same makespan.
      REQUIRE(search.current() == mirror.current());
      REQUIRE(search.result().current_ms == mirror.current_ms());
      if (!d.proposed) continue;
      if (!d.worse) {
        ++better;
        better_accepted += accepted;
        continue;
      }
      const int bin = std::min(3, int(d.p_accept * 4));
      ++worse_n[bin];
      worse_accepted[bin] += accepted;
      p_sum[bin] += d.p_accept;
      p_var[bin] += d.p_accept * (1 - d.p_accept);
    }
    // Every accepted strategy, re-simulated from scratch: the chain's current makespan.
    CHECK(full_makespan(g, c, search.current()) == search.result().current_ms);
  }
  CHECK(better > 100);
  CHECK(better_accepted == better);
  // Statistics: in each probability band the accepted count is the sum of the probabilities
  // within 4 standard deviations (sqrt of the sum of p(1 - p), the binomial variance).
  int worse_total = 0;
  for (int bin = 0; bin < 4; ++bin) {
    CAPTURE(bin);
    CAPTURE(worse_n[bin]);
    worse_total += worse_n[bin];
    if (worse_n[bin] < 30) continue;
    CHECK(std::fabs(worse_accepted[bin] - p_sum[bin]) <= 4 * std::sqrt(p_var[bin]) + 1);
  }
  CHECK(worse_total > 500);
  CHECK(worse_n[0] >= 30);   // the bands low and high are both exercised
  CHECK(worse_n[3] >= 30);
}

TEST_CASE("MCMC acceptance at the extremes: beta 0 accepts every proposal, huge beta none that is worse") {
  const Graph g = model("mlp3");
  const Cluster c = load_cluster("lecture:2x4").value();
  const Strategy init = data_parallel(g, c.num_devices());
  // beta 0: exp(0) = 1 > uniform() (which is < 1), so every proposal is taken. Every op of mlp3
  // has more than one configuration on 8 GPUs, so each of the 400 steps is a proposal.
  McmcSearch zero(g, c, init, options(0, 400, 5, false));
  zero.step(400);
  CHECK(zero.result().steps == 400);
  CHECK(zero.result().accepted == 400);
  // beta 1e300: exp(-1e300 * delta / init) underflows to 0 for any worse proposal: a greedy
  // descent, whose current strategy is therefore always its best.
  MirrorChain greedy_mirror(g, c, init, 1e300, 6);
  McmcSearch greedy(g, c, init, options(1e300, 400, 6, false));
  int worse_taken = 0;
  for (int i = 0; i < 400; ++i) {
    greedy.step(1);
    const Decision d = greedy_mirror.step();
    worse_taken += d.worse && d.accept;
    CHECK(greedy.result().current_ms == greedy.result().best_ms);
  }
  CHECK(worse_taken == 0);
  CHECK(greedy.current() == greedy_mirror.current());
  CHECK(greedy.result().accepted < 400);
}

TEST_CASE("MCMC stop rule: a search stops once half its budget brought no improvement; without the rule it runs the budget") {
  for (const char* m : {"mlp3", "alexnet"})
    for (int64_t budget : {int64_t(1), int64_t(301), int64_t(1000)})
      for (uint64_t seed : {uint64_t(1), uint64_t(2)}) {
        CAPTURE(m);
        CAPTURE(budget);
        CAPTURE(seed);
        const Graph g = model(m);
        const Cluster c = load_cluster("lecture:1x4").value();
        const Strategy init = data_parallel(g, c.num_devices());
        // Greedy (huge beta) runs stall quickly, so the rule has work to do.
        McmcSearch s(g, c, init, options(1e9, budget, seed, true));
        const int64_t half = std::max<int64_t>(1, budget / 2);   // 1 -> 1, 301 -> 150, 1000 -> 500
        // Step by step: a proposal is made exactly while the last improvement is less than half
        // the budget ago (and the budget lasts).
        while (!s.result().finished) {
          const int64_t since = s.result().steps - s.result().best_step;
          const bool may_propose = since < half && s.result().steps < budget;
          CHECK(s.step(1) == (may_propose ? 1 : 0));
        }
        const SearchResult& r = s.result();
        CHECK(r.finished);
        CHECK(r.steps <= budget);
        if (r.steps < budget) CHECK(r.steps == r.best_step + half);
        else CHECK(r.steps - r.best_step <= half);
        // The same search as one call: the same stop.
        McmcSearch whole(g, c, init, options(1e9, budget, seed, true));
        whole.step(budget);
        CHECK(whole.result().steps == r.steps);
        // Without the rule: every proposal of the budget is made.
        McmcSearch all(g, c, init, options(1e9, budget, seed, false));
        CHECK(all.step(budget + 10) == budget);
        CHECK(all.result().steps == budget);
        CHECK(all.result().finished);
        CHECK(all.result().best_ms <= r.best_ms);   // the same chain, run on past the stop
      }
  // The rule does stop some of these early (else the loop above proves little): mlp3, 1000 steps.
  const Graph g = model("mlp3");
  const Cluster c = load_cluster("lecture:1x4").value();
  McmcSearch s(g, c, data_parallel(g, 4), options(1e9, 1000, 1, true));
  s.step(1000);
  CHECK(s.result().steps < 1000);
  CHECK(s.result().steps == s.result().best_step + 500);
}

TEST_CASE("MCMC stop rule in wall-clock time: charge_time stops at the budget or after half of it without improvement") {
  const Graph g = model("mlp3");
  const Cluster c = load_cluster("lecture:1x4").value();
  const Strategy init = data_parallel(g, 4);
  SearchOptions o = options(1e9, 1000000, 3, true);
  o.budget_ms = 100;
  {
    // No improvement since the start (time 0): stopped at 50 = 100 / 2, not before.
    McmcSearch s(g, c, init, o);
    CHECK_FALSE(s.charge_time(10));
    CHECK_FALSE(s.charge_time(49.99));
    CHECK(s.charge_time(50));
    CHECK(s.result().finished);
    CHECK(s.result().stopped_by_budget);
    CHECK_FALSE(s.charge_time(60));   // already finished: not stopped again
  }
  {
    // An improvement seen at 30 ms moves the stall clock: stopped at 30 + 50 = 80.
    McmcSearch s(g, c, init, o);
    CHECK_FALSE(s.charge_time(5));
    while (s.result().best_step == 0) REQUIRE(s.step(1) == 1);
    CHECK_FALSE(s.charge_time(30));
    CHECK_FALSE(s.charge_time(79.99));
    CHECK(s.charge_time(80));
  }
  {
    // Without the stall rule only the budget stops it.
    o.stop_when_stalled = false;
    McmcSearch s(g, c, init, o);
    CHECK_FALSE(s.charge_time(99.99));
    CHECK(s.charge_time(100));
    CHECK(s.result().stopped_by_budget);
  }
  {
    // No wall-clock budget: charge_time never stops a search.
    o.budget_ms = 0;
    McmcSearch s(g, c, init, o);
    CHECK_FALSE(s.charge_time(1e9));
    CHECK_FALSE(s.result().finished);
  }
}

TEST_CASE("MCMC best <= initial: several models, seeds and betas from 0 to 1e300; best re-simulates to best_ms") {
  struct Case {
    const char* model;
    const char* cluster;
  };
  for (const Case k : {Case{"mlp3", "lecture:1x4"}, Case{"alexnet", "lecture:2x4"}, Case{"transformer:layers=2,batch=8,seq=64,hidden=128,heads=4", "lecture:1x4"},
                       Case{"elm", "lecture:1x2"}})
    for (double beta : {0.0, 1e-9, 1.0, 500.0, 1e9, 1e300})
      for (uint64_t seed : {uint64_t(1), uint64_t(7)}) {
        CAPTURE(k.model);
        CAPTURE(beta);
        CAPTURE(seed);
        const Graph g = model(k.model);
        const Cluster c = load_cluster(k.cluster).value();
        for (const Strategy& init : {data_parallel(g, c.num_devices()), random_strategy(g, c.num_devices(), seed)}) {
          SearchOptions o = options(beta, 300, seed, true);
          o.memory_moves = -1;
          const SearchResult r = run_search(g, c, init, o, nullptr);
          REQUIRE(r.init_fits);
          CHECK(r.init_ms == full_makespan(g, c, init));
          CHECK(r.best_ms <= r.init_ms);
          CHECK(r.best_fits);
          CHECK(full_makespan(g, c, r.best) == r.best_ms);
          // The history records each improvement: it starts at the initial cost and only falls.
          REQUIRE(!r.history.empty());
          CHECK(r.history.front().second == r.init_ms);
          CHECK(r.history.back().second == r.best_ms);
          for (size_t i = 1; i < r.history.size(); ++i) CHECK(r.history[i].second < r.history[i - 1].second);
          CHECK(r.best_step <= r.steps);
        }
      }
}
