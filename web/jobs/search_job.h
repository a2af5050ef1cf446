// The MCMC search as the page runs it: the search operation (core/operations/search_operation.h,
// the same job `autopar search` runs) started in the page's worker (worker_client.h, "search"),
// whose replies carry partial results: the chain's counts and costs, the new points of the live
// plot's trace and the best strategy when it changed (SearchPartial), mirrored here in a
// SearchView. Pause and the single Step are the worker's pause / resume. With no time budget
// the result equals `autopar search` with the same model, cluster, beta, steps, seed and init
// (report: its --json output). Without a worker (native tests) the same messages run in-process.
// No ImGui.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cluster.h"
#include "graph.h"
#include "json_io.h"
#include "request_fields.h"
#include "search_operation.h"
#include "worker_client.h"

namespace autopar::web {

// The page's names of a search request's fields in its errors: beta and seed at the top of the
// state (shared with the lecture, the accuracy study and compare), the others under search
// ("search.steps"), as getState/setState and share links spell them.
FieldPath page_search_path();

// At most this many points are kept per plotted series (older ones are thinned 2:1).
constexpr size_t kSearchTraceMaxPoints = SearchTrace::kMaxPoints;

// The page's search: its job in the worker and what the worker reported of it.
struct SearchRun {
  std::shared_ptr<WorkerClient> worker;   // where it runs (the page's client)
  int64_t request = 0;                    // the worker's job id; 0 once it ended (or none started)
  bool started = false;                   // a search exists (running, paused or finished)
  bool paused = false;                    // paused in the worker (Pause, or after a single Step)
  bool finished = false;                  // the worker's result arrived
  bool reported = false;                  // the view holds at least one partial
  int64_t generation = 0;                 // which search of the page this is (1, 2, ...: the step inspector follows it)
  SearchRequest config;                   // what it was started with
  SearchView view;                        // the chain, trace and timing as last reported
  Json report;                            // `autopar search --json` of the finished search; null before
  std::optional<Error> error;             // why the search failed (paths as the page's: search.init)
};

// Discards the search (cancelling it in the worker).
void search_reset(SearchRun& run);

// Starts a fresh search of `inputs` (worker_session.h's inputs) with `config` on `worker`,
// replacing any previous one; with `units` >= 1 it makes that many proposals and pauses. A
// request validate refuses is that error with the page's names (page_search_path), and no
// search is started.
Status search_start(SearchRun& run, std::shared_ptr<WorkerClient> worker, const Json& inputs, const SearchRequest& config, int64_t units = -1);

// Pauses the search in the worker (its next reply shows where it stopped).
void search_pause(SearchRun& run);
// Resumes it; with `units` >= 1 only for that many proposals.
void search_resume(SearchRun& run, int64_t units = -1);

// Takes the worker's replies (partials into the view, then the result) for the search of
// `graph` on `cluster`; returns true when the search ended with this call.
bool search_update(SearchRun& run, const Graph& graph, const Cluster& cluster);

// The chain as last reported, or null when no search exists or none was reported yet.
const SearchResult* search_state(const SearchRun& run);

// True when a search exists and has finished (or failed).
bool search_finished(const SearchRun& run);

// Proposals per second of compute time (0 before any).
double search_evals_per_s(const SearchRun& run);

// result().search: {running, step, best_ms, current_ms, init_ms, accepted, rejected, finished,
// evals_per_s, elapsed_ms, init, fits, init_fits, remat, best_peak_memory_bytes, best_step,
// report (once finished: `autopar search --json`), error?}; best_ms etc. null before a search
// reported.
Json search_result_json(const SearchRun& run, bool running);

}  // namespace autopar::web
