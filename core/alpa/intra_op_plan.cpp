// Alpa's intra-op pass solved (section 4): the problem of intra_op.cpp handed to a solver (the
// chain DP, exhaustive search or the ILP with GLPK), under each ZeRO stage and recomputation
// setting until a plan fits. Apart from the problem's construction, which programs that do not
// solve with GLPK (the page's exercises) use without linking it.
#include <algorithm>
#include <chrono>
#include <functional>

#include "intra_op.h"
#include "intra_op_problem.h"

namespace autopar {

namespace {

// Sets the plan's totals for a ZeRO stage and recomputation setting.
void apply_memory_choice(const Graph& g, IntraOpPlan& plan, const IntraOpOptions& options, int zero_stage, bool remat) {
  const MemoryChoice c = evaluate_memory_choice(g, plan, options, zero_stage, remat);
  plan.memory = c.memory;
  plan.zero_cost = c.zero_cost;
  plan.reduce_scatter_delta = zero_stage >= 1 ? c.zero_cost : 0;
  plan.recompute_cost = c.recompute_compute;
  plan.communication_cost = plan.base_communication_cost + c.zero_cost + c.recompute_comm;
  plan.objective = plan.solver_objective + c.cost_delta();
  plan.param_memory_per_device = c.memory.params_bytes + c.memory.grads_bytes;
  plan.activation_memory_per_device = c.memory.activation_bytes;
  plan.optimizer_memory_per_device = c.memory.optimizer_bytes;
  plan.memory_per_device = plan.param_memory_per_device + plan.activation_memory_per_device;
  IntraOpOptions counted = options;
  counted.reduce_scatter = false;
  plan.collectives = count_collectives(g, plan, counted);
}

}  // namespace

namespace {

// One solve with every strategy's memory counted under a ZeRO stage and recomputation setting
// (recomputed layers count no activations: the exact total is checked after the solve) and a
// budget (0: none); the totals are those of that setting.
Result<IntraOpPlan> solve_once(const Graph& g, const DeviceMesh& mesh, const IntraOpOptions& options, int zero_stage, double budget) {
  IntraOpPlan plan = intra_op_problem(g, mesh, options, zero_stage, budget);
  const IntraProblem& p = plan.problem;
  std::string solver = options.solver;
  // Asked to write the ILP, the automatic choice solves it too (the chain DP finds the same optimum).
  if (solver == "auto") solver = is_chain(p) && budget <= 0 && options.write_lp.empty() ? "dp" : "ilp";
  if (solver != "ilp" && !options.write_lp.empty())
    return make_error(ErrorCode::bad_argument, "--write-lp writes the ILP, which --solver " + solver + " does not build; use --solver ilp or leave --solver out",
                      "--write-lp");
  Result<IntraSolution> sol = make_error(ErrorCode::bad_value, "unknown solver '" + options.solver + "'; use ilp, dp or exhaustive", "--solver");
  if (solver == "ilp" && options.ilp_cache && options.write_lp.empty()) {
    if (const IntraSolution* known = options.ilp_cache->find(p, options.time_limit_ms)) {
      sol = *known;
    } else {
      sol = solve_ilp(p, options.time_limit_ms);
      if (sol.ok()) options.ilp_cache->store(p, options.time_limit_ms, sol.value());
    }
  } else if (solver == "ilp") {
    sol = solve_ilp(p, options.time_limit_ms, options.write_lp);
  }
  else if (solver == "dp") sol = solve_chain_dp(p);
  else if (solver == "exhaustive") sol = solve_exhaustive(p);
  if (!sol.ok()) return sol.error();
  plan.solution = sol.value();
  plan.solver_objective = plan.solution.objective;
  // The totals of the chosen plan, recomputed from its strategies and edges.
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const OpStrategy& s = plan.strategies[v][size_t(plan.solution.choice[v])];
    plan.base_communication_cost += s.forward_comm + s.backward_comm + s.grad_sync + s.recompute_comm;
    plan.resharding_cost += s.input_reshard;
    plan.penalty_cost += s.penalty;
    plan.grad_sync_cost += options.grad_sync_scale > 0 ? s.grad_sync / options.grad_sync_scale : 0;
  }
  for (const auto& e : p.edges)
    plan.resharding_cost += e.cost[size_t(plan.solution.choice[size_t(e.u)] * p.choices(e.v) + plan.solution.choice[size_t(e.v)])];
  apply_memory_choice(g, plan, options, zero_stage, options.remat);
  return plan;
}

}  // namespace

Result<IntraOpPlan> plan_intra_op(const Graph& g, const DeviceMesh& mesh, const IntraOpOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (options.zero_stage < -1 || options.zero_stage > 3) return make_error(ErrorCode::out_of_range, "the ZeRO stage is 0, 1, 2 or 3", "--zero");
  const int fixed_zero = options.zero_stage >= 0 ? options.zero_stage : options.reduce_scatter ? 2 : -1;
  auto first = solve_once(g, mesh, options, fixed_zero >= 0 ? fixed_zero : 0, options.memory_budget_bytes);
  if (!first.ok()) return first.error();
  IntraOpPlan best = first.value();
  if (!best.memory.fits) {
    // The plan does not fit: the cheapest ZeRO stage and recomputation setting that fits. Each
    // setting is first applied to the plan found; where that does not fit, the ILP is re-solved
    // with the setting's memory and the budget (where it fits, no plan is cheaper under it: the
    // unconstrained optimum is).
    std::vector<int> zeros = fixed_zero >= 0 ? std::vector<int>{fixed_zero} : std::vector<int>{0, 1, 2, 3};
    std::vector<bool> remats = options.remat ? std::vector<bool>{true} : options.choose_remat ? std::vector<bool>{false, true} : std::vector<bool>{false};
    const double budget = options.memory_budget_bytes > 0 ? options.memory_budget_bytes : options.capacity_bytes;
    bool found = false;
    int tries = 0;
    auto consider = [&](const IntraOpPlan& p) {
      if (p.memory.fits && (!found || p.objective < best.objective)) {
        best = p;
        found = true;
      }
    };
    for (int z : zeros)
      for (bool r : remats) {
        IntraOpPlan p = first.value();
        apply_memory_choice(g, p, options, z, r);
        ++tries;
        consider(p);
        if (p.memory.fits) continue;
        IntraOpOptions o = options;
        o.remat = r;
        auto q = solve_once(g, mesh, o, z, budget);
        ++tries;
        if (q.ok()) consider(q.value());
      }
    best.memory_tries = tries;
  }
  best.solve_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return best;
}


}  // namespace autopar
