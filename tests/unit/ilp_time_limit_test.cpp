// The intra-op ILP's time limit (core/alpa/ilp_solver.cpp): GLPK stopped by it gives either a
// plan marked "time_limit" that is a valid assignment priced as GLPK says, or the "time_limit"
// error naming --solver; never a plan marked optimal that is not. A generous limit solves to the
// optimum: a planted one on a large problem, exhaustive enumeration and the chain DP on small ones.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "error_code_printing.h"
#include "cluster_spec.h"
#include "intra_op.h"
#include "intra_op_problem.h"
#include "models.h"
#include "rng.h"
#include "test_inputs.h"

using namespace autopar;

namespace {

// A problem GLPK cannot finish in a few milliseconds: `n` nodes of `k` strategies, a chain plus
// `extra` random long edges, every edge matrix random (so none folds into node costs). When
// `planted` is set, the assignment i(v) = v % k costs 0 and every other entry at least 1, so the
// optimum is 0 there (by construction, not by any solver).
IntraProblem hard_problem(uint64_t seed, int n, int k, int extra, bool planted) {
  Rng rng(seed);
  IntraProblem p;
  auto at = [&](int v) { return v % k; };
  // An entry of the planted assignment costs 0; every other one is drawn from 1 to `range`.
  auto draw = [&](bool on_planted, uint64_t range) { return planted && on_planted ? 0.0 : double(1 + rng.below(range)); };
  p.node_cost.resize(size_t(n));
  p.node_memory.resize(size_t(n));
  for (int v = 0; v < n; ++v)
    for (int i = 0; i < k; ++i) {
      p.node_cost[size_t(v)].push_back(draw(i == at(v), 100));
      p.node_memory[size_t(v)].push_back(double(1 + rng.below(50)));
    }
  auto add_edge = [&](int u, int v) {
    p.edges.push_back(IntraProblem::Edge{u, v, {}});
    for (int i = 0; i < k * k; ++i) p.edges.back().cost.push_back(draw(i / k == at(u) && i % k == at(v), 200));
  };
  for (int v = 1; v < n; ++v) add_edge(v - 1, v);
  for (int x = 0; x < extra; ++x) {
    const int u = int(rng.below(uint64_t(n - 2)));
    add_edge(u, u + 2 + int(rng.below(uint64_t(n - u - 2))));
  }
  return p;
}

// A solve stopped or not, the answer must be one of the two the code promises.
void check_promise(const IntraProblem& p, const Result<IntraSolution>& r) {
  if (!r.ok()) {
    CHECK(r.error().code == ErrorCode::time_limit);
    CHECK(r.error().path == "--solver");
    CHECK(r.error().message.find("time limit") != std::string::npos);
    return;
  }
  const IntraSolution& s = r.value();
  CHECK((s.status == "time_limit" || s.status == "optimal"));
  REQUIRE(s.choice.size() == p.node_cost.size());
  for (size_t v = 0; v < s.choice.size(); ++v) CHECK((s.choice[v] >= 0 && s.choice[v] < p.choices(int(v))));
  CHECK(evaluate_assignment(p, s.choice) == doctest::Approx(s.objective));
}

}  // namespace

TEST_CASE("ILP time limit: 1 ms stops GLPK before any plan, and the error says so and names --solver") {
  // GLPK checks its limit before each branch-and-bound node as (tm_lim - 1) <= elapsed ms, so a
  // limit of 1 ms stops it before the root node is solved, whatever the machine's speed: no
  // integer solution exists yet, and the code promises the "time_limit" error then.
  const IntraProblem p = hard_problem(1, 60, 6, 60, false);
  for (double limit : {1.0, 0.5}) {   // 0.5 ms rounds to GLPK's 0
    CAPTURE(limit);
    auto r = solve_ilp(p, limit);
    REQUIRE_FALSE(r.ok());
    check_promise(p, r);
  }
  // The planted problem too, although its optimum is easy to find.
  const IntraProblem easy = hard_problem(2, 60, 6, 60, true);
  auto r = solve_ilp(easy, 1);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::time_limit);
}

TEST_CASE("ILP time limit: short limits give the time_limit error or a valid plan; optimal only at the optimum") {
  const IntraProblem planted = hard_problem(3, 40, 6, 40, true);
  std::vector<int> at(40);
  for (int v = 0; v < 40; ++v) at[size_t(v)] = v % 6;
  REQUIRE(evaluate_assignment(planted, at) == 0);   // the planted optimum
  for (double limit : {5.0, 50.0, 500.0}) {
    CAPTURE(limit);
    auto r = solve_ilp(planted, limit);
    check_promise(planted, r);
    if (r.ok() && r.value().status == "optimal") CHECK(r.value().objective == doctest::Approx(0).scale(1));
  }
  const IntraProblem hard = hard_problem(4, 60, 6, 60, false);
  for (double limit : {5.0, 50.0, 300.0}) {
    CAPTURE(limit);
    check_promise(hard, solve_ilp(hard, limit));
  }
}

namespace {

// Solved with a ten-minute limit: optimal, at `optimum` by GLPK's value and by the evaluator.
void check_solves_to(const IntraProblem& p, double optimum) {
  auto r = solve_ilp(p, 600000);
  REQUIRE(r.ok());
  CHECK(r.value().status == "optimal");
  CHECK(r.value().objective == doctest::Approx(optimum).scale(1));
  CHECK(evaluate_assignment(p, r.value().choice) == doctest::Approx(optimum).scale(1));
}

}  // namespace

TEST_CASE("ILP with a generous limit: optimal, and equal to the planted optimum, the chain DP and exhaustive enumeration") {
  // Large: 40 nodes of 6 strategies with 39 + 40 random edge matrices (3,084 variables), optimum 0 by construction.
  const IntraProblem planted = hard_problem(5, 40, 6, 40, true);
  CHECK(solve_ilp(planted, 600000).value().variables == 40 * 6 + 79 * 36);
  check_solves_to(planted, 0);
  // A chain of 30 nodes of 5: the Viterbi DP is exact.
  const IntraProblem chain = hard_problem(6, 30, 5, 0, false);
  REQUIRE(is_chain(chain));
  auto dp = solve_chain_dp(chain);
  REQUIRE(dp.ok());
  check_solves_to(chain, dp.value().objective);
  // 8 nodes of 4 with branches: 4^8 = 65,536 assignments, every one priced by the enumeration.
  const IntraProblem small = hard_problem(7, 8, 4, 4, false);
  REQUIRE_FALSE(is_chain(small));
  auto ex = solve_exhaustive(small);
  REQUIRE(ex.ok());
  check_solves_to(small, ex.value().objective);
}

TEST_CASE("ILP time limit through the intra-op planner: the plan's error names --solver, a generous limit plans optimally") {
  const Graph g = autopar::test::model("transformer:layers=2,batch=8,seq=64,hidden=256,heads=4");
  const DeviceMesh mesh = mesh_from_cluster(2, 4, load_cluster("lecture:2x4").value()).value();
  IntraOpOptions o;
  o.solver = "ilp";
  o.time_limit_ms = 1;
  auto stopped = plan_intra_op(g, mesh, o);
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.error().code == ErrorCode::time_limit);
  CHECK(stopped.error().path == "--solver");
  o.time_limit_ms = 600000;
  auto solved = plan_intra_op(g, mesh, o);
  REQUIRE(solved.ok());
  CHECK(solved.value().solution.status == "optimal");
  auto ex = plan_intra_op(g, mesh, IntraOpOptions{"exhaustive"});
  if (ex.ok()) CHECK(solved.value().objective == doctest::Approx(ex.value().objective));
}
