// FlexFlow's strategy search (section 6): Metropolis-Hastings over the SOAP space. A proposal
// gives one random op a random configuration; it is accepted with probability
// min(1, exp(beta * (cost(S) - cost(S*)) / cost(S0))), the costs being simulated makespans and
// S0 the initial strategy (so beta is dimensionless). A strategy whose training memory
// (device_memory.h) exceeds a GPU's capacity costs more (see search_cost), and the best
// strategy is the fastest that fits whenever the chain met one. Runs step by step, so the page can show
// it live; delta simulation by default, full re-simulation on request (same results).
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "device_memory.h"
#include "rng.h"
#include "simulator.h"
#include "strategy.h"

namespace autopar {

// Search settings (INTERFACES.md `search`); the search operation's request extends them
// (core/operations/search_operation.h), so the defaults here are the CLI's and the page's.
struct SearchOptions {
  double beta = 500;             // acceptance sharpness; 0 accepts every move (a random walk)
  int64_t steps = 2000;          // proposal budget
  double budget_ms = 0;          // wall-clock budget; 0 = none (results then depend on the seed only)
  uint64_t seed = 1;
  bool full_sim = false;         // re-simulate from scratch at every step instead of delta simulation
  bool stop_when_stalled = true; // stop once half the budget brought no improvement
  Optimizer optimizer = Optimizer::adam;   // whose state the memory counts
  // Proposals of ZeRO stages (per op) and recomputation (search-wide) besides configurations:
  // 1 on, 0 off, -1 (auto) on when the initial strategy does not fit.
  int memory_moves = -1;
  // Keep a record (McmcStep) of each of the first `record_steps` proposals (the page's step
  // inspector); 0 keeps none, so the CLI's search pays nothing for them.
  int64_t record_steps = 0;
};

// What one proposal did (the page's MCMC step inspector): which move, from what to what, the
// costs, Metropolis-Hastings' acceptance probability and whether the chain took it.
struct McmcStep {
  enum class Move : uint8_t { config, zero, remat };
  int64_t step = 0;              // 1-based proposal number
  Move move = Move::config;      // a new configuration, a new ZeRO stage, or recomputation flipped
  int op = -1;                   // the op proposed (-1 for a recomputation flip)
  OpConfig from, to;             // its configuration before and as proposed (zero: the ZeRO stage changes)
  bool remat_to = false;         // remat: recomputation as proposed
  double current_cost = 0;       // the chain's cost before the proposal (search_cost: ms, more when memory overflows)
  double proposed_cost = 0;      // the proposal's cost
  double proposed_ms = 0;        // the proposal's simulated makespan
  double rate = 0;               // beta / cost(S0): the acceptance probability's scale per unit of cost
  double probability = 1;        // acceptance_probability(current_cost, proposed_cost, rate)
  double draw = -1;              // the uniform number drawn against it (-1: none, an improvement is always taken)
  bool accepted = false;
  // proposed_cost - current_cost (negative: an improvement).
  double delta_cost() const { return proposed_cost - current_cost; }
};

// The cost the chain minimises: the makespan of a strategy that fits; for one that does not,
// the makespan times 2 x peak / capacity. The factor of at least 2 makes any overflow worse
// than most speedups, and growing with the overflow it leads the chain towards strategies
// that need less (FlexFlow's later versions also fold memory into the simulated cost).
double search_cost(double makespan_ms, const DeviceMemory& memory);

// Metropolis-Hastings' acceptance probability of a move from a strategy costing `current` to one
// costing `proposed`: min(1, exp(rate * (current - proposed))), where `rate` is beta per unit of
// cost (the search's beta / cost(S0)). The one place the formula is written: the search draws
// against it and lecture exercise 2 asks for it. A NaN rate gives NaN (never accepted).
double acceptance_probability(double current, double proposed, double rate);

// The state and result of a search.
struct SearchResult {
  double init_ms = 0;
  double best_ms = 0;
  double current_ms = 0;
  int64_t steps = 0;             // proposals made
  int64_t accepted = 0;
  int64_t best_step = 0;         // step of the last improvement
  Strategy best;
  bool best_fits = true;         // the best strategy's training memory fits every GPU
  double best_peak_bytes = 0;    // and its fullest GPU's need
  bool init_fits = true;
  bool memory_moves = false;     // ZeRO and recomputation were proposed
  std::vector<std::pair<int64_t, double>> history;   // (step, best_ms) at every improvement
  bool finished = false;
  bool stopped_by_budget = false;  // finished by the wall-clock budget (charge_time)
  double setup_ms = 0;           // run_search: wall time building the search (configs, first simulation)
};

// A Metropolis-Hastings search that can be advanced a few steps at a time.
class McmcSearch {
 public:
  // Starts from `init`; the graph and cluster must outlive the search.
  McmcSearch(const Graph& graph, const Cluster& cluster, const Strategy& init, const SearchOptions& options);
  // Makes up to `n` proposals (fewer when the search finishes); returns proposals made.
  int64_t step(int64_t n);
  // Marks the search finished (e.g. its wall-clock budget ran out).
  void finish() { result_.finished = true; }
  // FlexFlow's stopping rule for options.budget_ms > 0, the one place it is written: given the
  // search time spent so far (`spent_ms`, in all), finishes the search when the budget is spent
  // or half of it brought no improvement. Returns true when this call stopped the search.
  bool charge_time(double spent_ms);
  const SearchResult& result() const { return result_; }
  // The strategy the chain is at now.
  const Strategy& current() const { return current_; }
  const SearchOptions& options() const { return options_; }
  // The records of the first options().record_steps proposals made so far, in order.
  const std::vector<McmcStep>& step_records() const { return records_; }

 private:
  // Metropolis-Hastings' decision on a proposal costing `cost` (its makespan `makespan`):
  // always an improvement, a worse one with acceptance_probability; records it when asked.
  bool decide(McmcStep record, double makespan, double cost, double rate);
  double evaluate(int op, const OpConfig& config);
  double evaluate_remat(bool remat);
  // True when a ZeRO stage changes anything for `op` under `c`: it has weights and replicas of them.
  bool zero_applies(int op, const OpConfig& c) const;
  void revert();
  // Records the chain's state after an accepted proposal (or the start) as the best when it is.
  void consider_best(double makespan, double cost);

  const Graph& graph_;
  const Cluster& cluster_;
  SearchOptions options_;
  Rng rng_;
  std::vector<std::vector<OpConfig>> space_;
  std::vector<int> current_index_;   // index of each op's config in space_, -1 if not listed
  Strategy current_;
  std::unique_ptr<DeltaSimulator> delta_;
  DeviceMemory memory_;
  double current_cost_ = 0, best_cost_ = 0, init_cost_ = 0;
  SearchResult result_;
  int64_t charged_best_step_ = 0;    // best_step when charge_time last saw an improvement
  double last_improvement_ms_ = 0;   // the search time then
  std::vector<McmcStep> records_;
};

// Runs a whole search (honouring options.budget_ms with a steady clock); `elapsed_ms` receives
// the wall-clock time spent, of which the result's setup_ms went to building the search.
SearchResult run_search(const Graph& graph, const Cluster& cluster, const Strategy& init, const SearchOptions& options,
                        double* elapsed_ms);

// Result of enumerating the whole space.
struct ExhaustiveResult {
  double best_ms = 0;
  int64_t strategies_evaluated = 0;
  Strategy best;
};
// Largest space `exhaustive` enumerates.
constexpr double kMaxExhaustiveStrategies = 2e6;
// Simulates every strategy of the space (refuses spaces above kMaxExhaustiveStrategies).
Result<ExhaustiveResult> exhaustive_search(const Graph& graph, const Cluster& cluster);

}  // namespace autopar
