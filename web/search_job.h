// The MCMC search as the page runs it: the search operation's job (core/operations/
// search_operation.h, the same one `autopar search` runs) advanced a bounded amount of wall time
// per frame, so the page never freezes. Its time budget and FlexFlow's stopping rule, the live
// plot's trace and the report all come from that job: with no time budget the result equals
// `autopar search` with the same model, cluster, beta, steps, seed and init. No ImGui.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "cluster.h"
#include "graph.h"
#include "json_io.h"
#include "search_operation.h"

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
constexpr size_t kSearchTraceMaxPoints = SearchTrace::kMaxPoints;

// The page's search: the job (owning copies of the graph and cluster it started on) and what it
// was started with.
struct SearchRun {
  std::unique_ptr<SearchJob> job;         // null: no search started
  SearchConfig config;
};

// Discards the search.
void search_reset(SearchRun& run);

// Starts a fresh search on `graph` and `cluster` with `config` (replacing any previous one); a
// bad init is an error naming search.init, and no search is kept.
Status search_start(SearchRun& run, const Graph& graph, const Cluster& cluster, const SearchConfig& config);

// Advances the search by at most `max_steps` proposals and roughly `budget_ms` of wall time;
// returns the proposals made. The job finishes itself when its time budget rules say so.
int64_t search_advance(SearchRun& run, int64_t max_steps, double budget_ms);

// The chain so far, or null when no search exists.
const SearchResult* search_state(const SearchRun& run);

// True when a search exists and has finished.
bool search_finished(const SearchRun& run);

// Proposals per second of compute time (0 before any).
double search_evals_per_s(const SearchRun& run);

// result().search: {step, best_ms, current_ms, init_ms, accepted, rejected, finished, evals_per_s,
// init}; best_ms etc. null before a search starts.
Json search_result_json(const SearchRun& run, bool running);

}  // namespace autopar::web
