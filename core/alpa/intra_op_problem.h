// The intra-op planning problem as the solvers see it (Alpa section 4.2): only numbers. Each
// node picks one of its strategies; a node strategy has a cost and a memory use; each edge
// (u, v) has a cost for every pair of strategies (the resharding matrix R_uv). Minimise the
// sum of node costs plus edge costs, optionally under a memory budget.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "result.h"

namespace autopar {

// The numbers of an intra-op problem.
struct IntraProblem {
  std::vector<std::vector<double>> node_cost;     // [node][strategy]
  std::vector<std::vector<double>> node_memory;   // [node][strategy], bytes per device
  struct Edge {
    int u = 0, v = 0;
    std::vector<double> cost;                     // [i * k_v + j]: u takes i, v takes j
  };
  std::vector<Edge> edges;
  double memory_budget = 0;                       // bytes per device; 0 = none
  // Strategies of node v.
  int choices(int v) const { return int(node_cost[size_t(v)].size()); }
};

// The cost of an assignment (one strategy per node), computed from scratch: the independent
// evaluator every solver is checked against.
double evaluate_assignment(const IntraProblem& p, const std::vector<int>& choice);
// Memory per device of an assignment.
double assignment_memory(const IntraProblem& p, const std::vector<int>& choice);

// A solver's answer.
struct IntraSolution {
  std::vector<int> choice;
  double objective = 0;          // as the solver computed it (not from evaluate_assignment)
  std::string solver;            // "ilp", "dp", "exhaustive"
  std::string status = "optimal";// optimal, or time_limit (best found)
  int variables = 0, constraints = 0;   // ILP size
};

// True when the edges form one chain 0 -> 1 -> ... -> n-1 (what the chain DP solves).
bool is_chain(const IntraProblem& p);
// Viterbi over a chain: exact. Refuses non-chains and memory budgets.
Result<IntraSolution> solve_chain_dp(const IntraProblem& p);
// Every assignment (at most `limit`): exact, honours the memory budget.
Result<IntraSolution> solve_exhaustive(const IntraProblem& p, double limit = 2e6);
// The ILP with GLPK (one-hot node choices, linearised edge terms, memory budget, time limit).
// `lp_path` non-empty: also writes the exact ILP there in CPLEX LP format.
Result<IntraSolution> solve_ilp(const IntraProblem& p, double time_limit_ms, const std::string& lp_path = "");
// Frees the solver's state of the calling thread (GLPK keeps an environment per thread, which
// lives until freed): a thread that solved ILPs calls it before it ends.
void free_ilp_thread_state();

}  // namespace autopar
