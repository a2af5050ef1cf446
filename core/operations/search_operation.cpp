// The MCMC search as a job. See search_operation.h.
#include "search_operation.h"

#include <chrono>
#include <sstream>

#include "flexflow_operations.h"
#include "report_text.h"
#include "strategy_argument.h"

namespace autopar {

std::string search_init_name(const std::string& init, uint64_t seed) {
  return init == "random" ? "random:" + std::to_string(seed) : init;
}

Result<Strategy> search_initial_strategy(const std::string& init_word, uint64_t seed, const Graph& graph, const Cluster& cluster,
                                         const std::string& path) {
  const std::string init = search_init_name(init_word, seed);
  if (init != "dp" && init != "expert" && init != "mp" && init.rfind("random:", 0) != 0 && init.find(".json") == std::string::npos)
    return make_error(ErrorCode::bad_value, path + " must be dp, expert, random or a strategy file, not '" + init + "'", path);
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
  // A move may split any op over every GPU: the space's largest strategy must be simulable.
  if (auto st = check_simulation_size(int64_t(graph_.ops.size()) * cluster_.num_devices(), "the search's largest strategy (every op over every GPU)", "--model");
      !st.ok()) {
    finish(st.error());
    return;
  }
  search_ = std::make_unique<McmcSearch>(graph_, cluster_, init.value(), static_cast<const SearchOptions&>(request));
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
    // Only a search with a wall-clock budget needs the clock here.
    if (request_.budget_ms > 0 && search_->charge_time(compute_ms() + meter.elapsed_ms())) trace_.record(search_->result());
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
  r.steps_requested = request_.steps;
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
  t << "MCMC: " << result.steps;
  // The lecture's stopping rule (half the budget without an improvement) ends a search early.
  if (!result.stopped_by_budget && result.steps < steps_requested)
    t << " of " << steps_requested << " proposals (stopped early: the last " << result.steps - result.best_step << " brought no improvement)";
  else
    t << " proposals";
  t << ", " << result.accepted << " accepted, beta " << beta << ", " << (full_sim ? "full" : "delta")
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

namespace {

Json config_to_json(const OpConfig& c) { return Json::array({Json(c.degrees), Json(c.devices), c.zero}); }

// A configuration written by config_to_json: whole numbers, degrees of at least 1 whose product
// is the part count, devices in range, a ZeRO stage 0..3.
Result<OpConfig> config_from_json(const Json& j, int num_devices, const std::string& path) {
  auto bad = [&] { return make_error(ErrorCode::wrong_type, path + " must be [degrees, devices, zero]", path); };
  if (!j.is_array() || j.size() != 3 || !j[0].is_array() || !j[1].is_array() || !j[2].is_number_integer()) return bad();
  OpConfig c;
  int64_t parts = 1;
  for (const Json& d : j[0]) {
    if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > num_devices) return bad();
    c.degrees.push_back(d.get<int>());
    parts *= c.degrees.back();
    if (parts > num_devices) return bad();
  }
  for (const Json& d : j[1]) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() >= num_devices) return bad();
    c.devices.push_back(d.get<int>());
  }
  if (int64_t(c.devices.size()) != parts || j[2].get<int64_t>() < 0 || j[2].get<int64_t>() > 3) return bad();
  c.zero = j[2].get<int>();
  return c;
}

const char* move_name(McmcStep::Move m) {
  switch (m) {
    case McmcStep::Move::zero: return "zero";
    case McmcStep::Move::remat: return "remat";
    case McmcStep::Move::config: break;
  }
  return "config";
}

}  // namespace

Json mcmc_step_to_json(const McmcStep& r) {
  return Json::array({r.step, move_name(r.move), r.op, config_to_json(r.from), config_to_json(r.to), r.remat_to, r.current_cost, r.proposed_cost,
                      r.proposed_ms, r.rate, r.probability, r.draw, r.accepted});
}

Result<McmcStep> mcmc_step_from_json(const Json& j, int num_ops, int num_devices, const std::string& path) {
  if (!j.is_array() || j.size() != 13) return make_error(ErrorCode::wrong_type, path + " must be an array of 13 fields (mcmc_step_to_json)", path);
  McmcStep r;
  if (!j[0].is_number_integer() || !j[1].is_string() || !j[2].is_number_integer() || !j[5].is_boolean() || !j[12].is_boolean())
    return make_error(ErrorCode::wrong_type, path + ": step, move, op, remat_to or accepted has the wrong type", path);
  for (size_t k = 6; k <= 11; ++k)
    if (!j[k].is_number()) return make_error(ErrorCode::wrong_type, path + "[" + std::to_string(k) + "] must be a number", path + "[" + std::to_string(k) + "]");
  r.step = j[0].get<int64_t>();
  const std::string move = j[1].get<std::string>();
  if (move == "config") r.move = McmcStep::Move::config;
  else if (move == "zero") r.move = McmcStep::Move::zero;
  else if (move == "remat") r.move = McmcStep::Move::remat;
  else return make_error(ErrorCode::bad_value, path + "[1] must be config, zero or remat", path + "[1]");
  r.op = j[2].get<int>();
  if (r.op < -1 || r.op >= num_ops || (r.op < 0 && r.move != McmcStep::Move::remat))
    return make_error(ErrorCode::out_of_range, path + "[2] is not an op of the model", path + "[2]");
  if (r.move != McmcStep::Move::remat) {
    auto from = config_from_json(j[3], num_devices, path + "[3]");
    if (!from.ok()) return from.error();
    auto to = config_from_json(j[4], num_devices, path + "[4]");
    if (!to.ok()) return to.error();
    r.from = std::move(from.value());
    r.to = std::move(to.value());
  }
  r.remat_to = j[5].get<bool>();
  r.current_cost = j[6].get<double>();
  r.proposed_cost = j[7].get<double>();
  r.proposed_ms = j[8].get<double>();
  r.rate = j[9].get<double>();
  r.probability = j[10].get<double>();
  r.draw = j[11].get<double>();
  r.accepted = j[12].get<bool>();
  return r;
}

Json SearchPartial::next(const SearchJob& job) {
  const SearchResult* r = job.state();
  if (!r) return nullptr;
  const SearchTrace& t = job.trace();
  // A thinning rewrote the points already sent: send them all again.
  if (t.stride != sent_stride_ || t.step.size() < sent_points_) sent_points_ = 0;
  const size_t from = sent_points_;
  Json steps = Json::array(), best = Json::array(), current = Json::array();
  for (size_t k = from; k < t.step.size(); ++k) {
    steps.push_back(t.step[k]);
    best.push_back(t.best[k]);
    current.push_back(t.current[k]);
  }
  sent_points_ = t.step.size();
  sent_stride_ = t.stride;
  Json j{{"state", Json{{"steps", r->steps},
                        {"accepted", r->accepted},
                        {"best_ms", r->best_ms},
                        {"current_ms", r->current_ms},
                        {"init_ms", r->init_ms},
                        {"best_step", r->best_step},
                        {"best_fits", r->best_fits},
                        {"best_peak_bytes", r->best_peak_bytes},
                        {"init_fits", r->init_fits},
                        {"memory_moves", r->memory_moves},
                        {"finished", r->finished},
                        {"stopped_by_budget", r->stopped_by_budget},
                        {"compute_ms", job.compute_ms()},
                        {"evals_per_s", job.evals_per_s()},
                        {"init", job.init_name()}}},
         {"trace", Json{{"from", from}, {"stride", t.stride}, {"step", steps}, {"best", best}, {"current", current}}}};
  if (job.search()) {
    const auto& records = job.search()->step_records();
    if (records.size() > sent_records_) {
      Json list = Json::array();
      for (size_t k = sent_records_; k < records.size(); ++k) list.push_back(mcmc_step_to_json(records[k]));
      j["records"] = std::move(list);
      sent_records_ = records.size();
    }
  }
  // The best strategy is the largest part: only when it changed (best_step moves with it).
  if (!sent_ || r->best_step != sent_best_step_) j["best"] = strategy_to_json(job.graph(), r->best);
  sent_best_step_ = r->best_step;
  sent_ = true;
  return j;
}

Status SearchView::apply(const Json& partial, const Graph& graph, int num_devices) {
  if (!partial.is_object() || !partial.contains("state") || !partial["state"].is_object() || !partial.contains("trace") ||
      !partial["trace"].is_object())
    return make_error(ErrorCode::missing_field, "a search partial needs 'state' and 'trace' objects", "partial");
  const Json& s = partial["state"];
  const Json& t = partial["trace"];
  SearchResult next = chain;
  SearchTrace trace_next = trace;
  std::string init_next;
  double compute = 0, evals = 0;
  // Every field is checked before any is kept: a malformed partial changes nothing.
  auto number = [&](const Json& o, const char* key, const std::string& path) -> Result<double> {
    if (!o.contains(key) || !o[key].is_number()) return make_error(ErrorCode::wrong_type, path + "." + key + " must be a number", path + "." + key);
    return o[key].get<double>();
  };
  auto flag = [&](const char* key) -> Result<bool> {
    if (!s.contains(key) || !s[key].is_boolean()) return make_error(ErrorCode::wrong_type, std::string("partial.state.") + key + " must be true or false", std::string("partial.state.") + key);
    return s[key].get<bool>();
  };
  for (const char* key : {"steps", "accepted", "best_step"})
    if (!s.contains(key) || !s[key].is_number_integer())
      return make_error(ErrorCode::wrong_type, std::string("partial.state.") + key + " must be an integer", std::string("partial.state.") + key);
  next.steps = s["steps"].get<int64_t>();
  next.accepted = s["accepted"].get<int64_t>();
  next.best_step = s["best_step"].get<int64_t>();
  for (auto [key, out] : {std::pair<const char*, double*>{"best_ms", &next.best_ms}, {"current_ms", &next.current_ms}, {"init_ms", &next.init_ms},
                          {"best_peak_bytes", &next.best_peak_bytes}, {"compute_ms", &compute}, {"evals_per_s", &evals}}) {
    auto v = number(s, key, "partial.state");
    if (!v.ok()) return v.error();
    *out = v.value();
  }
  for (auto [key, out] : {std::pair<const char*, bool*>{"best_fits", &next.best_fits}, {"init_fits", &next.init_fits},
                          {"memory_moves", &next.memory_moves}, {"finished", &next.finished}, {"stopped_by_budget", &next.stopped_by_budget}}) {
    auto v = flag(key);
    if (!v.ok()) return v.error();
    *out = v.value();
  }
  if (!s.contains("init") || !s["init"].is_string()) return make_error(ErrorCode::wrong_type, "partial.state.init must be a string", "partial.state.init");
  init_next = s["init"].get<std::string>();
  if (!t.contains("from") || !t["from"].is_number_unsigned() || !t.contains("stride") || !t["stride"].is_number_integer())
    return make_error(ErrorCode::wrong_type, "partial.trace needs integers 'from' and 'stride'", "partial.trace");
  const size_t from = t["from"].get<size_t>();
  if (from > trace_next.step.size()) return make_error(ErrorCode::out_of_range, "partial.trace.from is past the points received", "partial.trace.from");
  trace_next.step.resize(from);
  trace_next.best.resize(from);
  trace_next.current.resize(from);
  trace_next.stride = t["stride"].get<int64_t>();
  for (const char* key : {"step", "best", "current"})
    if (!t.contains(key) || !t[key].is_array() || t[key].size() != t["step"].size())
      return make_error(ErrorCode::wrong_type, std::string("partial.trace.") + key + " must be an array as long as partial.trace.step", std::string("partial.trace.") + key);
  for (size_t k = 0; k < t["step"].size(); ++k) {
    if (!t["step"][k].is_number() || !t["best"][k].is_number() || !t["current"][k].is_number())
      return make_error(ErrorCode::wrong_type, "partial.trace holds numbers only", "partial.trace.step[" + std::to_string(k) + "]");
    trace_next.step.push_back(t["step"][k].get<float>());
    trace_next.best.push_back(t["best"][k].get<float>());
    trace_next.current.push_back(t["current"][k].get<float>());
  }
  if (partial.contains("best")) {
    auto best = strategy_from_json(partial["best"], graph, num_devices);
    if (!best.ok()) {
      Error e = best.error();
      e.path = "partial.best" + (e.path.empty() ? "" : "." + e.path);
      return e;
    }
    next.best = std::move(best.value());
  }
  std::vector<McmcStep> new_steps;
  if (partial.contains("records")) {
    const Json& list = partial["records"];
    if (!list.is_array()) return make_error(ErrorCode::wrong_type, "partial.records must be an array", "partial.records");
    for (size_t k = 0; k < list.size(); ++k) {
      auto r = mcmc_step_from_json(list[k], int(graph.ops.size()), num_devices, "partial.records[" + std::to_string(k) + "]");
      if (!r.ok()) return r.error();
      new_steps.push_back(std::move(r.value()));
    }
  }
  steps.insert(steps.end(), new_steps.begin(), new_steps.end());
  chain = std::move(next);
  trace = std::move(trace_next);
  init = std::move(init_next);
  compute_ms = compute;
  evals_per_s = evals;
  return Ok{};
}

}  // namespace autopar
