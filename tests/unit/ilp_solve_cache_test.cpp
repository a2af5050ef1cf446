// The memo of intra-op ILP solves (ilp_solve_cache.h): a problem equal in every number to one
// solved before takes that solve's answer, and nothing else does. Witnesses: fresh GLPK solves of
// the same problems (the answers equal bit for bit), problems one ulp apart (a miss), and a
// model's stage costs with the memo against the layers planned again without it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "cluster_spec.h"
#include "device_mesh.h"
#include "intra_op.h"
#include "intra_op_problem.h"
#include "test_inputs.h"

using namespace autopar;
using autopar::test::model;

namespace {

// A triangle (not a chain, so the ILP solves it) whose edge costs are not separable.
IntraProblem triangle() {
  IntraProblem p;
  p.node_cost = {{1, 2, 3}, {2, 1}, {0.5, 0.25, 4}};
  p.node_memory = {{1, 1, 1}, {1, 1}, {1, 1, 1}};
  p.edges = {{0, 1, {0, 3, 2, 0, 1, 5}}, {1, 2, {0, 1, 2, 3, 0, 1}}, {0, 2, {0, 2, 2, 2, 0, 2, 2, 2, 0}}};
  return p;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("the ILP memo answers an equal problem as a fresh solve does, and no other") {
  IlpSolveCache cache;
  const IntraProblem p = triangle();
  CHECK(cache.find(p, 1000) == nullptr);
  auto solved = solve_ilp(p, 1000);
  REQUIRE(solved.ok());
  cache.store(p, 1000, solved.value());
  const IntraSolution* known = cache.find(triangle(), 1000);
  REQUIRE(known != nullptr);
  auto again = solve_ilp(triangle(), 1000);
  REQUIRE(again.ok());
  CHECK(known->choice == again.value().choice);
  CHECK(same_bits(known->objective, again.value().objective));
  CHECK(cache.hits() == 1);
  // One ulp in one number, a memory budget, another time limit: other problems.
  IntraProblem nudged = triangle();
  nudged.edges[2].cost[4] = std::nextafter(nudged.edges[2].cost[4], 1.0);
  CHECK(cache.find(nudged, 1000) == nullptr);
  IntraProblem budget = triangle();
  budget.memory_budget = 3;
  CHECK(cache.find(budget, 1000) == nullptr);
  CHECK(cache.find(triangle(), 2000) == nullptr);
  IntraProblem swapped = triangle();
  std::swap(swapped.node_memory[0][0], swapped.node_memory[0][1]);
  swapped.node_memory[0][1] = 2;
  CHECK(cache.find(swapped, 1000) == nullptr);
  CHECK(cache.hits() == 1);
  CHECK(cache.bytes() > 0);
}

TEST_CASE("a layer planned through the ILP memo equals its plan solved afresh, on every logical mesh") {
  // A transformer block (branches: an ILP, not the chain DP) on each logical mesh of 8 GPUs,
  // planned twice through one memo (the second time from it) and once without.
  const Graph g = model("transformer:layers=1,batch=16,seq=128,hidden=512,heads=8");
  const Cluster c = load_cluster("lecture:1x8").value();
  IlpSolveCache cache;
  int plans = 0;
  for (int rows : {1, 2, 4, 8}) {
    const DeviceMesh mesh = mesh_from_cluster(rows, 8 / rows, c).value();
    IntraOpOptions fresh;
    fresh.solver = "ilp";
    fresh.gpu = c.gpu;
    IntraOpOptions memo = fresh;
    memo.ilp_cache = &cache;
    auto a = plan_intra_op(g, mesh, fresh);
    auto b = plan_intra_op(g, mesh, memo);
    auto b2 = plan_intra_op(g, mesh, memo);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    REQUIRE(b2.ok());
    for (const auto* q : {&b.value(), &b2.value()}) {
      CHECK(q->solution.choice == a.value().solution.choice);
      CHECK(same_bits(q->objective, a.value().objective));
      CHECK(same_bits(q->memory_per_device, a.value().memory_per_device));
    }
    ++plans;
  }
  CHECK(cache.hits() >= plans);   // each second plan solved nothing
}
