// The page's MCMC search in the worker. See search_job.h.
#include "search_job.h"

namespace autopar::web {

namespace {

// The worker's request paths (request.init) as the page's state names them (search.init).
Error page_error(Error e) {
  if (e.path.rfind("request.", 0) == 0) e.path = "search." + e.path.substr(8);
  return e;
}

}  // namespace

void search_reset(SearchRun& run) {
  if (run.worker && run.request) run.worker->cancel(run.request);
  run = SearchRun{};
}

Status search_start(SearchRun& run, std::shared_ptr<WorkerClient> worker, const Json& inputs, const SearchConfig& config, int64_t units) {
  search_reset(run);
  // Checked here, not only in the worker: a bad init is refused at once, with the page's path.
  if (config.init != "dp" && config.init != "expert" && config.init != "mp" && config.init != "random")
    return make_error(ErrorCode::bad_value, "search.init must be dp, expert, mp or random, not '" + config.init + "'", "search.init");
  const Json request{{"beta", config.beta}, {"steps", config.steps}, {"budget_ms", config.budget_ms}, {"seed", config.seed}, {"init", config.init}};
  run.worker = std::move(worker);
  run.request = run.worker->start("search", inputs, request, units);
  run.started = true;
  run.paused = units >= 1;
  run.config = config;
  return Ok{};
}

void search_pause(SearchRun& run) {
  if (!run.request || run.paused) return;
  run.worker->pause(run.request);
  run.paused = true;
}

void search_resume(SearchRun& run, int64_t units) {
  if (!run.request) return;
  run.worker->resume(run.request, units);
  run.paused = units >= 1;
}

bool search_update(SearchRun& run, const Graph& graph, const Cluster& cluster) {
  if (!run.request) return false;
  for (const Json& p : run.worker->take_partials(run.request)) {
    if (auto st = run.view.apply(p, graph, cluster.num_devices()); !st.ok()) {
      run.error = st.error();
      continue;
    }
    run.reported = true;
  }
  auto outcome = run.worker->take(run.request);
  if (!outcome) return false;
  run.request = 0;
  run.finished = true;
  if (!outcome->ok()) run.error = page_error(outcome->error());
  else run.report = outcome->value().value("report", Json());
  return true;
}

const SearchResult* search_state(const SearchRun& run) { return run.started && run.reported ? &run.view.chain : nullptr; }

bool search_finished(const SearchRun& run) { return run.started && run.finished; }

double search_evals_per_s(const SearchRun& run) { return run.reported ? run.view.evals_per_s : 0.0; }

Json search_result_json(const SearchRun& run, bool running) {
  Json j;
  j["running"] = running;
  if (run.error) j["error"] = error_to_json(*run.error);
  const SearchResult* r = search_state(run);
  if (!r) {
    j["step"] = 0;
    for (const char* k : {"best_ms", "current_ms", "init_ms", "accepted", "rejected", "evals_per_s", "init", "fits", "init_fits", "remat", "report"}) j[k] = nullptr;
    j["finished"] = search_finished(run);
    return j;
  }
  j["step"] = r->steps;
  j["best_ms"] = r->best_ms;
  j["current_ms"] = r->current_ms;
  j["init_ms"] = r->init_ms;
  j["accepted"] = r->accepted;
  j["rejected"] = r->steps - r->accepted;
  j["best_step"] = r->best_step;
  j["finished"] = search_finished(run);
  j["evals_per_s"] = search_evals_per_s(run);
  j["elapsed_ms"] = run.view.compute_ms;
  j["init"] = run.view.init;
  // Memory (device_memory.h): whether the best strategy fits, the initial one did, and the
  // best's recomputation (its ZeRO stages are in its ops).
  j["fits"] = r->best_fits;
  j["init_fits"] = r->init_fits;
  j["best_peak_memory_bytes"] = r->best_peak_bytes;
  j["remat"] = r->best.remat;
  j["trace_points"] = run.view.trace.step.size();   // points of the live plot so far
  j["report"] = run.report;   // the CLI's `search --json`, once finished
  return j;
}

}  // namespace autopar::web
