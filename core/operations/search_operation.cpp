// The MCMC search as a job. See search_operation.h.
#include "search_operation.h"

#include <chrono>
#include <sstream>

#include "flexflow_operations.h"
#include "report_text.h"
#include "soap.h"

namespace autopar {

std::string search_init_name(const std::string& init, uint64_t seed) {
  return init == "random" ? "random:" + std::to_string(seed) : init;
}

Result<Strategy> search_initial_strategy(const std::string& init_word, uint64_t seed, const Graph& graph, const Cluster& cluster,
                                         const std::string& path) {
  const std::string init = search_init_name(init_word, seed);
  if (init != "dp" && init != "expert" && init != "mp" && init.rfind("random:", 0) != 0 && init.find(".json") == std::string::npos)
    return make_error("bad_value", path + " must be dp, expert, random or a strategy file, not '" + init + "'", path);
  return load_strategy(init, graph, cluster, path);
}

void SearchTrace::record(const SearchResult& r) {
  if (r.steps % stride != 0 && !r.finished) return;
  if (!step.empty() && step.back() == float(r.steps)) return;
  step.push_back(float(r.steps));
  best.push_back(float(r.best_ms));
  current.push_back(float(r.current_ms));
  if (step.size() >= kMaxPoints) {
    // Thin 2:1, keeping the first point, and double the stride.
    size_t out = 0;
    for (size_t i = 0; i < step.size(); i += 2, ++out) {
      step[out] = step[i];
      best[out] = best[i];
      current[out] = current[i];
    }
    step.resize(out);
    best.resize(out);
    current.resize(out);
    stride *= 2;
  }
}

SearchJob::SearchJob(Graph graph, Cluster cluster, const SearchRequest& request, const std::string& init_path)
    : graph_(std::move(graph)), cluster_(std::move(cluster)), request_(request), init_name_(search_init_name(request.init, request.seed)) {
  const auto start = std::chrono::steady_clock::now();
  auto init = search_initial_strategy(request.init, request.seed, graph_, cluster_, init_path);
  if (!init.ok()) {
    finish(init.error());
    return;
  }
  SearchOptions o;
  o.beta = request.beta;
  o.steps = request.steps;
  o.budget_ms = request.budget_ms;
  o.seed = request.seed;
  o.full_sim = request.full_sim;
  o.optimizer = request.optimizer;
  o.memory_moves = request.memory_moves;
  search_ = std::make_unique<McmcSearch>(graph_, cluster_, init.value(), o);
  trace_.record(search_->result());
  setup_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void SearchJob::work(BudgetMeter& meter) {
  // Small batches between clock reads: a proposal costs microseconds.
  constexpr int64_t kBatch = 16;
  while (!search_->result().finished) {
    const int64_t batch = std::min<int64_t>(kBatch, meter.units_left());
    for (int64_t k = 0; k < batch && !search_->result().finished; ++k) {
      search_->step(1);
      trace_.record(search_->result());
    }
    const bool spent = meter.count(batch);
    if (search_->charge_time(compute_ms() + meter.elapsed_ms())) trace_.record(search_->result());
    if (spent) break;
  }
  if (search_->result().finished) finish_report(compute_ms() + meter.elapsed_ms());
}

double SearchJob::evals_per_s() const {
  if (!search_ || compute_ms() <= 0) return 0;
  return double(search_->result().steps) / (compute_ms() / 1000.0);
}

JobProgress SearchJob::progress() const {
  return JobProgress{search_ ? search_->result().steps : 0, request_.steps, "search"};
}

void SearchJob::finish_report(double search_ms) {
  SearchReport r;
  r.result = search_->result();
  r.result.setup_ms = setup_ms_;
  r.init = init_name_;
  r.beta = request_.beta;
  r.full_sim = request_.full_sim;
  r.elapsed_ms = setup_ms_ + search_ms;
  r.evals_per_s = search_ms > 0 ? double(r.result.steps) / (search_ms / 1000.0) : 0.0;
  TaskGraph best(graph_, cluster_, r.result.best);
  simulate_full(best);
  r.breakdown = summarize(best, request_.optimizer);
  for (size_t i = 0; i < graph_.ops.size(); ++i)
    if (weight_replicas(graph_.ops[i], r.result.best.ops[i]) >= 2) ++r.zero_ops[r.result.best.ops[i].zero];
  r.capacity_bytes = cluster_.gpu.memory_capacity_bytes();
  r.strategy = strategy_to_json(graph_, r.result.best);
  r.strategy_text = strategy_table_text(graph_, r.result.best);
  r.breakdown_text = simulation_summary_text(r.breakdown, cluster_);
  finish(std::move(r));
}

Json SearchReport::to_json() const {
  Json history = Json::array();
  for (const auto& [step, ms] : result.history) history.push_back(Json::array({step, ms}));
  return Json{{"best_ms", result.best_ms},
              {"init_ms", result.init_ms},
              {"steps", result.steps},
              {"accepted", result.accepted},
              {"evals_per_s", evals_per_s},
              {"elapsed_ms", elapsed_ms},
              {"simulation", full_sim ? "full" : "delta"},
              {"breakdown", simulation_summary_json(breakdown, capacity_bytes)},
              {"fits", breakdown.fits},
              {"init_fits", result.init_fits},
              {"memory_moves", result.memory_moves},
              {"remat", result.best.remat},
              {"zero_ops", Json::array({zero_ops[0], zero_ops[1], zero_ops[2], zero_ops[3]})},
              {"strategy", strategy},
              {"history", history}};
}

std::string SearchReport::to_text() const {
  std::ostringstream t;
  t << "MCMC: " << result.steps << " proposals, " << result.accepted << " accepted, beta " << beta << ", " << (full_sim ? "full" : "delta")
    << " simulation, " << fmt("%.0f", evals_per_s) << " evaluations/s\n"
    << "initial " << init << ": " << fmt("%.3f", result.init_ms) << " ms -> best " << fmt("%.3f", result.best_ms) << " ms (";
  // A best that fits can be slower than an initial strategy that does not: say so instead of a
  // speed-up below 1.
  if (result.best_ms > result.init_ms && !result.init_fits)
    t << fmt("%.2f", result.best_ms / result.init_ms) << "x slower, to fit)\n";
  else
    t << fmt("%.2f", result.init_ms / result.best_ms) << "x)\n";
  // Memory is mentioned only when it constrained the search (the output is otherwise unchanged).
  if (!result.init_fits || !breakdown.fits)
    t << "memory: the initial strategy " << (result.init_fits ? "fits" : "does not fit") << "; the best "
      << (breakdown.fits ? "fits" : "DOES NOT FIT") << " (" << si(breakdown.peak_memory.total_bytes) << "B of " << si(capacity_bytes)
      << "B on GPU " << breakdown.peak_device << ")\n";
  if (result.memory_moves) {
    t << "memory choices: recomputation " << (result.best.remat ? "on" : "off") << "; ops with replicated weights by ZeRO stage:";
    for (int z = 0; z < 4; ++z) t << " " << z << ": " << zero_ops[z];
    t << "\n";
  }
  t << "\n"
    << breakdown_text << "\n" << strategy_text;
  return t.str();
}

}  // namespace autopar
