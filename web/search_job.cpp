// The page's incremental MCMC search. See search_job.h.
#include "search_job.h"

namespace autopar::web {

void search_reset(SearchRun& run) { run = SearchRun{}; }

Status search_start(SearchRun& run, const Graph& graph, const Cluster& cluster, const SearchConfig& config) {
  search_reset(run);
  SearchRequest request;
  request.beta = config.beta;
  request.steps = config.steps;
  request.budget_ms = config.budget_ms;
  request.seed = config.seed;
  request.init = config.init;
  auto job = std::make_unique<SearchJob>(graph, cluster, request, "search.init");
  if (job->done() && !job->result().ok()) return job->result().error();
  run.job = std::move(job);
  run.config = config;
  return Ok{};
}

int64_t search_advance(SearchRun& run, int64_t max_steps, double budget_ms) {
  if (!run.job || run.job->done()) return 0;
  const int64_t before = run.job->state()->steps;
  run.job->step(StepBudget{budget_ms, max_steps});
  return run.job->state()->steps - before;
}

const SearchResult* search_state(const SearchRun& run) { return run.job ? run.job->state() : nullptr; }

bool search_finished(const SearchRun& run) { return run.job && run.job->done(); }

double search_evals_per_s(const SearchRun& run) { return run.job ? run.job->evals_per_s() : 0.0; }

Json search_result_json(const SearchRun& run, bool running) {
  Json j;
  j["running"] = running;
  const SearchResult* r = search_state(run);
  if (!r) {
    j["step"] = 0;
    for (const char* k : {"best_ms", "current_ms", "init_ms", "accepted", "rejected", "evals_per_s", "init", "fits", "init_fits", "remat"}) j[k] = nullptr;
    j["finished"] = false;
    return j;
  }
  j["step"] = r->steps;
  j["best_ms"] = r->best_ms;
  j["current_ms"] = r->current_ms;
  j["init_ms"] = r->init_ms;
  j["accepted"] = r->accepted;
  j["rejected"] = r->steps - r->accepted;
  j["best_step"] = r->best_step;
  j["finished"] = r->finished;
  j["evals_per_s"] = search_evals_per_s(run);
  j["elapsed_ms"] = run.job->compute_ms();
  j["init"] = run.job->init_name();
  // Memory (device_memory.h): whether the best strategy fits, the initial one did, and the
  // best's recomputation (its ZeRO stages are in its ops).
  j["fits"] = r->best_fits;
  j["init_fits"] = r->init_fits;
  j["best_peak_memory_bytes"] = r->best_peak_bytes;
  j["remat"] = r->best.remat;
  return j;
}

}  // namespace autopar::web
