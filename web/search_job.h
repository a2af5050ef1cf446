// The MCMC search as the page runs it: a core McmcSearch advanced a bounded amount of wall time
// per frame (so the page never freezes), its own compute time counted against the time budget
// with FlexFlow's stopping rule (budget spent, or half of it without improvement), and a
// decimated trace of best and current cost for the live plot. With no time budget the result
// equals `autopar search` with the same model, cluster, beta, steps, seed and init. No ImGui.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "json_io.h"
#include "mcmc.h"

namespace autopar::web {

// What a search is started with (the Search panel's inputs).
struct SearchConfig {
  double beta = 500;
  int64_t steps = 2000;          // proposal budget
  double budget_ms = 0;          // compute-time budget; 0 = none
  uint64_t seed = 1;
  std::string init = "dp";       // dp, expert or random (random:SEED with the search seed)
  bool operator==(const SearchConfig& o) const {
    return beta == o.beta && steps == o.steps && budget_ms == o.budget_ms && seed == o.seed && init == o.init;
  }
  bool operator!=(const SearchConfig& o) const { return !(*this == o); }
};

// At most this many points are kept per plotted series (older ones are thinned 2:1).
constexpr size_t kSearchTraceMaxPoints = 2048;

// A search in progress (or finished). Holds references to the graph and cluster it started on:
// reset it whenever they change.
struct SearchJob {
  std::unique_ptr<McmcSearch> search;     // null: no search started
  SearchConfig config;                    // what `search` was started with
  std::string init_strategy;              // the named strategy it started from ("dp", "random:7")
  double compute_ms = 0;                  // time spent inside McmcSearch::step
  double last_improvement_ms = 0;         // compute_ms at the last new best
  int64_t last_best_step = 0;
  bool stopped_by_budget = false;
  // Plot trace: one point every `trace_stride` steps (step, best, current).
  std::vector<float> trace_step, trace_best, trace_current;
  int64_t trace_stride = 1;
};

// Discards the search.
void search_reset(SearchJob& job);

// Starts a fresh search on `graph` and `cluster` with `config` (replacing any previous one).
Status search_start(SearchJob& job, const Graph& graph, const Cluster& cluster, const SearchConfig& config);

// Advances the search by at most `max_steps` proposals and roughly `budget_ms` of wall time;
// returns the proposals made. Marks the search finished when the time budget rules say so.
int64_t search_advance(SearchJob& job, int64_t max_steps, double budget_ms);

// True when a search exists and has finished.
bool search_finished(const SearchJob& job);

// Proposals per second of compute time (0 before any).
double search_evals_per_s(const SearchJob& job);

// result().search: {step, best_ms, current_ms, init_ms, accepted, rejected, finished, evals_per_s,
// init}; best_ms etc. null before a search starts.
Json search_result_json(const SearchJob& job, bool running);

}  // namespace autopar::web
