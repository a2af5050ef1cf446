// The evaluator, the chain DP (Viterbi) and exhaustive enumeration of intra-op problems.
#include <algorithm>
#include <cmath>
#include <limits>

#include "intra_op_problem.h"

namespace autopar {

double evaluate_assignment(const IntraProblem& p, const std::vector<int>& choice) {
  double total = 0;
  for (size_t v = 0; v < p.node_cost.size(); ++v) total += p.node_cost[v][size_t(choice[v])];
  for (const auto& e : p.edges) total += e.cost[size_t(choice[size_t(e.u)] * p.choices(e.v) + choice[size_t(e.v)])];
  return total;
}

double assignment_memory(const IntraProblem& p, const std::vector<int>& choice) {
  double m = 0;
  for (size_t v = 0; v < p.node_memory.size(); ++v) m += p.node_memory[v][size_t(choice[v])];
  return m;
}

bool is_chain(const IntraProblem& p) {
  const size_t n = p.node_cost.size();
  if (p.edges.size() + 1 != n && !(n == 0 && p.edges.empty())) return false;
  std::vector<bool> seen(n, false);
  for (const auto& e : p.edges) {
    if (e.v != e.u + 1 || seen[size_t(e.u)]) return false;
    seen[size_t(e.u)] = true;
  }
  return true;
}

Result<IntraSolution> solve_chain_dp(const IntraProblem& p) {
  if (!is_chain(p))
    return make_error(ErrorCode::not_a_chain, "the chain DP solves only chain graphs (each op feeding just the next); this graph has branches — use --solver ilp", "--solver");
  if (p.memory_budget > 0)
    return make_error(ErrorCode::bad_value, "the chain DP does not take a memory budget; use --solver ilp or exhaustive", "--memory-budget-bytes");
  const size_t n = p.node_cost.size();
  IntraSolution sol;
  sol.solver = "dp";
  if (n == 0) return sol;
  // best[v][j]: cheapest cost of nodes 0..v with v taking j; from[v][j]: u's choice for it.
  std::vector<std::vector<double>> best(n);
  std::vector<std::vector<int>> from(n);
  best[0] = p.node_cost[0];
  from[0].assign(best[0].size(), -1);
  for (size_t v = 1; v < n; ++v) {
    const auto& e = p.edges[v - 1];
    const int ku = p.choices(int(v - 1)), kv = p.choices(int(v));
    best[v].assign(size_t(kv), std::numeric_limits<double>::infinity());
    from[v].assign(size_t(kv), 0);
    for (int j = 0; j < kv; ++j)
      for (int i = 0; i < ku; ++i) {
        double c = best[v - 1][size_t(i)] + e.cost[size_t(i * kv + j)] + p.node_cost[v][size_t(j)];
        if (c < best[v][size_t(j)]) {
          best[v][size_t(j)] = c;
          from[v][size_t(j)] = i;
        }
      }
  }
  sol.choice.assign(n, 0);
  int j = int(std::min_element(best[n - 1].begin(), best[n - 1].end()) - best[n - 1].begin());
  // The DP's own sum along the best path (tests compare it with evaluate_assignment).
  sol.objective = best[n - 1][size_t(j)];
  for (size_t v = n; v-- > 0;) {
    sol.choice[v] = j;
    j = from[v][size_t(j)];
  }
  return sol;
}

Result<IntraSolution> solve_exhaustive(const IntraProblem& p, double limit) {
  double count = 1;
  for (const auto& c : p.node_cost) count *= double(c.size());
  if (count > limit)
    return make_error(ErrorCode::too_large, "exhaustive search would try " + std::to_string(int64_t(std::min(count, 9e18))) + " assignments; the limit is " +
                                       std::to_string(int64_t(limit)) + " (use --solver ilp or dp)", "--solver");
  const size_t n = p.node_cost.size();
  IntraSolution sol;
  sol.solver = "exhaustive";
  std::vector<int> choice(n, 0);
  double best = std::numeric_limits<double>::infinity();
  while (true) {
    if (p.memory_budget <= 0 || assignment_memory(p, choice) <= p.memory_budget) {
      double c = evaluate_assignment(p, choice);
      if (c < best) {
        best = c;
        sol.choice = choice;
      }
    }
    size_t v = n;
    while (v > 0 && choice[v - 1] + 1 == p.choices(int(v - 1))) choice[--v] = 0;
    if (v == 0) break;
    ++choice[v - 1];
  }
  if (sol.choice.empty() && n > 0)
    return make_error(ErrorCode::infeasible, "no assignment fits the memory budget; raise --memory-budget-bytes or use more devices", "--memory-budget-bytes");
  sol.objective = sol.choice.empty() ? 0 : best;   // the minimum the enumeration saw
  return sol;
}

}  // namespace autopar
