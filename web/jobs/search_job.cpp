// The page's MCMC search in the worker. See search_job.h.
#include "search_job.h"

#include "operation_requests.h"

namespace autopar::web {

namespace {

// The worker's request paths (request.init) as the page's state names them (search.init, beta).
Error page_error(Error e) {
  if (e.path.rfind("request.", 0) == 0) {
    const std::string field = e.path.substr(8), page = page_search_path()(field);
    // The message names the field as the worker does; the page's name replaces it.
    if (e.message.rfind(e.path, 0) == 0) e.message = page + e.message.substr(e.path.size());
    e.path = page;
  }
  return e;
}

}  // namespace

void search_reset(SearchRun& run) {
  if (run.worker && run.request) run.worker->cancel(run.request);
  run = SearchRun{};
}

FieldPath page_search_path() {
  return [](const std::string& field) { return field == "beta" || field == "seed" ? field : "search." + field; };
}

Status search_start(SearchRun& run, std::shared_ptr<WorkerClient> worker, const Json& inputs, const SearchRequest& config, int64_t units) {
  search_reset(run);
  // Checked here, not only in the worker: a bad request is refused at once, with the page's names.
  if (auto st = validate(config, page_search_path()); !st.ok()) return st.error();
  const Json request = request_to_json(config);
  // Numbered across resets (which clear the run), so a view following one notices the next.
  static int64_t searches_started = 0;
  run.generation = ++searches_started;
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
