// The page's incremental MCMC search. See search_job.h.
#include "search_job.h"

#include <chrono>

#include "soap.h"

namespace autopar::web {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Appends the chain's state after a proposal, keeping one point per `trace_stride` steps.
void record(SearchJob& job) {
  const SearchResult& r = job.search->result();
  if (r.steps % job.trace_stride != 0 && !r.finished) return;
  if (!job.trace_step.empty() && job.trace_step.back() == float(r.steps)) return;
  job.trace_step.push_back(float(r.steps));
  job.trace_best.push_back(float(r.best_ms));
  job.trace_current.push_back(float(r.current_ms));
  if (job.trace_step.size() >= kSearchTraceMaxPoints) {
    // Thin 2:1, keeping the first point, and double the stride.
    size_t out = 0;
    for (size_t i = 0; i < job.trace_step.size(); i += 2, ++out) {
      job.trace_step[out] = job.trace_step[i];
      job.trace_best[out] = job.trace_best[i];
      job.trace_current[out] = job.trace_current[i];
    }
    job.trace_step.resize(out);
    job.trace_best.resize(out);
    job.trace_current.resize(out);
    job.trace_stride *= 2;
  }
}

}  // namespace

void search_reset(SearchJob& job) { job = SearchJob{}; }

Status search_start(SearchJob& job, const Graph& graph, const Cluster& cluster, const SearchConfig& config) {
  search_reset(job);
  std::string init = config.init;
  if (init == "random") init = "random:" + std::to_string(config.seed);
  if (init != "dp" && init != "expert" && init != "mp" && init.rfind("random:", 0) != 0)
    return make_error("bad_value", "search.init must be dp, expert, mp or random, not \"" + config.init + "\"", "search.init");
  auto s = load_strategy(init, graph, cluster, "search.init");
  if (!s.ok()) return s.error();
  SearchOptions o;
  o.beta = config.beta;
  o.steps = config.steps;
  o.budget_ms = config.budget_ms;
  o.seed = config.seed;
  job.search = std::make_unique<McmcSearch>(graph, cluster, s.value(), o);
  job.config = config;
  job.init_strategy = init;
  record(job);
  return Ok{};
}

int64_t search_advance(SearchJob& job, int64_t max_steps, double budget_ms) {
  if (!job.search || job.search->result().finished) return 0;
  const auto start = Clock::now();
  int64_t made = 0;
  // Small batches between clock reads: a proposal costs microseconds.
  constexpr int64_t kBatch = 16;
  while (made < max_steps && !job.search->result().finished) {
    const int64_t batch = std::min<int64_t>(kBatch, max_steps - made);
    for (int64_t k = 0; k < batch && !job.search->result().finished; ++k) {
      made += job.search->step(1);
      record(job);
    }
    const SearchResult& r = job.search->result();
    const double now = job.compute_ms + ms_since(start);
    if (r.best_step != job.last_best_step) {
      job.last_best_step = r.best_step;
      job.last_improvement_ms = now;
    }
    if (job.config.budget_ms > 0 &&
        (now >= job.config.budget_ms || now - job.last_improvement_ms >= job.config.budget_ms / 2)) {
      job.search->finish();
      job.stopped_by_budget = true;
      record(job);
    }
    if (ms_since(start) >= budget_ms) break;
  }
  job.compute_ms += ms_since(start);
  return made;
}

bool search_finished(const SearchJob& job) { return job.search && job.search->result().finished; }

double search_evals_per_s(const SearchJob& job) {
  if (!job.search || job.compute_ms <= 0) return 0;
  return double(job.search->result().steps) / (job.compute_ms / 1000.0);
}

Json search_result_json(const SearchJob& job, bool running) {
  Json j;
  j["running"] = running;
  if (!job.search) {
    j["step"] = 0;
    for (const char* k : {"best_ms", "current_ms", "init_ms", "accepted", "rejected", "evals_per_s", "init"}) j[k] = nullptr;
    j["finished"] = false;
    return j;
  }
  const SearchResult& r = job.search->result();
  j["step"] = r.steps;
  j["best_ms"] = r.best_ms;
  j["current_ms"] = r.current_ms;
  j["init_ms"] = r.init_ms;
  j["accepted"] = r.accepted;
  j["rejected"] = r.steps - r.accepted;
  j["best_step"] = r.best_step;
  j["finished"] = r.finished;
  j["evals_per_s"] = search_evals_per_s(job);
  j["elapsed_ms"] = job.compute_ms;
  j["init"] = job.init_strategy;
  return j;
}

}  // namespace autopar::web
