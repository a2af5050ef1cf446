// Metropolis-Hastings search and exhaustive enumeration over the SOAP space.
#include "mcmc.h"

#include <chrono>
#include <cmath>

#include "soap.h"

namespace autopar {

double acceptance_probability(double current, double proposed, double rate) {
  const double p = std::exp(rate * (current - proposed));
  return p > 1.0 ? 1.0 : p;   // not std::min: a NaN must stay NaN (the draw then never accepts)
}

double search_cost(double makespan_ms, const DeviceMemory& memory) {
  if (memory.fits() || memory.capacity_bytes() <= 0) return makespan_ms;
  return makespan_ms * 2.0 * memory.peak_bytes() / memory.capacity_bytes();
}

McmcSearch::McmcSearch(const Graph& graph, const Cluster& cluster, const Strategy& init, const SearchOptions& options)
    : graph_(graph), cluster_(cluster), options_(options), rng_(options.seed), current_(init),
      memory_(graph, cluster, init, options.optimizer) {
  const int n = cluster.num_devices();
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    space_.push_back(enumerate_configs(graph.ops[i], n));
    int index = -1;
    for (size_t k = 0; k < space_.back().size(); ++k)
      if (space_.back()[k] == init.ops[i]) index = int(k);
    current_index_.push_back(index);
  }
  double cost;
  if (options.full_sim) {
    TaskGraph tg(graph, cluster, init);
    cost = simulate_full(tg);
  } else {
    delta_ = std::make_unique<DeltaSimulator>(graph, cluster, init);
    cost = delta_->makespan();
  }
  result_.init_ms = result_.best_ms = result_.current_ms = cost;
  result_.best = init;
  result_.best_fits = result_.init_fits = memory_.fits();
  result_.best_peak_bytes = memory_.peak_bytes();
  result_.memory_moves = options.memory_moves > 0 || (options.memory_moves < 0 && !memory_.fits());
  current_cost_ = best_cost_ = init_cost_ = search_cost(cost, memory_);
  result_.history.push_back({0, cost});
}

void McmcSearch::consider_best(double makespan, double cost) {
  // A strategy that fits beats every one that does not; among equals the cost decides.
  const bool fits = memory_.fits();
  if (fits != result_.best_fits ? !fits : cost >= best_cost_) return;
  best_cost_ = cost;
  result_.best_ms = makespan;
  result_.best = current_;
  result_.best_fits = fits;
  result_.best_peak_bytes = memory_.peak_bytes();
  result_.best_step = result_.steps;
  result_.history.push_back({result_.steps, makespan});
}

double McmcSearch::evaluate(int op, const OpConfig& config) {
  memory_.set_config(op, config);
  if (delta_) return delta_->set_config(op, config);
  // The baseline delta simulation is measured against: a new task graph for every proposal.
  Strategy s = current_;
  s.ops[size_t(op)] = config;
  TaskGraph tg(graph_, cluster_, s);
  return simulate_full(tg);
}

double McmcSearch::evaluate_remat(bool remat) {
  memory_.set_remat(remat);
  if (delta_) return delta_->set_remat(remat);
  Strategy s = current_;
  s.remat = remat;
  TaskGraph tg(graph_, cluster_, s);
  return simulate_full(tg);
}

bool McmcSearch::zero_applies(int op, const OpConfig& c) const {
  return graph_.ops[size_t(op)].param_bytes > 0 && weight_replicas(graph_.ops[size_t(op)], c) >= 2;
}

void McmcSearch::revert() {
  memory_.undo();
  if (delta_) delta_->undo();
}

bool McmcSearch::decide(McmcStep record, double makespan, double cost, double rate) {
  // The draw only when the proposal is worse, as always: the same seed gives the same chain
  // whether or not steps are recorded.
  const bool better = cost <= current_cost_;
  const double p = better ? 1.0 : acceptance_probability(current_cost_, cost, rate);
  double draw = -1;
  bool accept = better;
  if (!better) {
    draw = rng_.uniform();
    accept = draw < p;
  }
  if (int64_t(records_.size()) < options_.record_steps) {
    record.step = result_.steps;
    record.current_cost = current_cost_;
    record.proposed_cost = cost;
    record.proposed_ms = makespan;
    record.rate = rate;
    record.probability = p;
    record.draw = draw;
    record.accepted = accept;
    records_.push_back(std::move(record));
  }
  return accept;
}

int64_t McmcSearch::step(int64_t n) {
  int64_t made = 0;
  const double scale = options_.beta / init_cost_;
  while (made < n && !result_.finished) {
    if (result_.steps >= options_.steps ||
        (options_.stop_when_stalled && result_.steps - result_.best_step >= std::max<int64_t>(1, options_.steps / 2))) {
      result_.finished = true;
      break;
    }
    // Propose: a random op gets a random configuration other than its current one (keeping its
    // ZeRO stage). With memory moves, as often: a random op with replicated weights gets
    // another ZeRO stage; and once in 2n + 1 proposals recomputation is turned on or off.
    const uint64_t n_ops = graph_.ops.size();
    const uint64_t move = result_.memory_moves ? rng_.below(2 * n_ops + 1) : 0;
    if (move >= n_ops) {
      ++result_.steps;
      ++made;
      double makespan;
      OpConfig zero_config;
      int zero_op = -1;
      McmcStep record;
      if (move == 2 * n_ops) {
        makespan = evaluate_remat(!current_.remat);
        record.move = McmcStep::Move::remat;
        record.remat_to = !current_.remat;
      } else {
        zero_op = int(move - n_ops);
        zero_config = current_.ops[size_t(zero_op)];
        if (!zero_applies(zero_op, zero_config)) continue;
        int stage = int(rng_.below(3));
        if (stage >= zero_config.zero) ++stage;
        zero_config.zero = stage;
        makespan = evaluate(zero_op, zero_config);
        if (int64_t(records_.size()) < options_.record_steps) {
          record.move = McmcStep::Move::zero;
          record.op = zero_op;
          record.from = current_.ops[size_t(zero_op)];
          record.to = zero_config;
        }
      }
      const double cost = search_cost(makespan, memory_);
      if (decide(std::move(record), makespan, cost, scale)) {
        ++result_.accepted;
        if (delta_) delta_->compact_if_scattered();
        if (zero_op >= 0) current_.ops[size_t(zero_op)] = zero_config;
        else current_.remat = !current_.remat;
        result_.current_ms = makespan;
        current_cost_ = cost;
        consider_best(makespan, cost);
      } else {
        revert();
      }
      continue;
    }
    const int op = int(result_.memory_moves ? move : rng_.below(graph_.ops.size()));
    const auto& configs = space_[size_t(op)];
    const int cur = current_index_[size_t(op)];
    const uint64_t choices = configs.size() - (cur >= 0 ? 1 : 0);
    ++result_.steps;
    ++made;
    if (choices == 0) continue;
    int pick = int(rng_.below(choices));
    if (cur >= 0 && pick >= cur) ++pick;
    OpConfig proposal = configs[size_t(pick)];
    proposal.zero = current_.ops[size_t(op)].zero;
    const double makespan = evaluate(op, proposal);
    const double cost = search_cost(makespan, memory_);
    McmcStep record;
    if (int64_t(records_.size()) < options_.record_steps) {
      record.op = op;
      record.from = current_.ops[size_t(op)];
      record.to = proposal;
    }
    // Metropolis-Hastings: always accept an improvement, a worse one with exp(-beta * delta / cost(S0)).
    if (decide(std::move(record), makespan, cost, scale)) {
      ++result_.accepted;
      if (delta_) delta_->compact_if_scattered();
      current_.ops[size_t(op)] = proposal;
      current_index_[size_t(op)] = pick;
      result_.current_ms = makespan;
      current_cost_ = cost;
      consider_best(makespan, cost);
    } else {
      revert();
    }
  }
  if (result_.steps >= options_.steps) result_.finished = true;
  return made;
}

bool McmcSearch::charge_time(double spent_ms) {
  if (options_.budget_ms <= 0 || result_.finished) return false;
  if (result_.best_step != charged_best_step_) {
    charged_best_step_ = result_.best_step;
    last_improvement_ms_ = spent_ms;
  }
  if (spent_ms >= options_.budget_ms || (options_.stop_when_stalled && spent_ms - last_improvement_ms_ >= options_.budget_ms / 2)) {
    result_.finished = result_.stopped_by_budget = true;
    return true;
  }
  return false;
}

SearchResult run_search(const Graph& graph, const Cluster& cluster, const Strategy& init, const SearchOptions& options,
                        double* elapsed_ms) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  McmcSearch search(graph, cluster, init, options);
  auto elapsed = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); };
  const double setup_ms = elapsed();
  while (!search.result().finished) {
    search.step(options.budget_ms > 0 ? 64 : options.steps);
    if (options.budget_ms > 0) search.charge_time(elapsed());
  }
  if (elapsed_ms) *elapsed_ms = elapsed();
  SearchResult r = search.result();
  r.setup_ms = setup_ms;
  return r;
}

Result<ExhaustiveResult> exhaustive_search(const Graph& graph, const Cluster& cluster) {
  const int n = cluster.num_devices();
  SpaceSize size = count_space(graph, n);
  if (size.log10_strategies > std::log10(kMaxExhaustiveStrategies))
    return make_error(ErrorCode::too_large, "the space has " + (size.strategies.size() > 30 ? "about 10^" + std::to_string(int(size.log10_strategies)) : size.strategies) +
                                       " strategies; exhaustive search enumerates at most 2,000,000 (use search instead, or a smaller model or cluster)",
                      "--model");
  std::vector<std::vector<OpConfig>> space;
  for (const Op& op : graph.ops) space.push_back(enumerate_configs(op, n));
  std::vector<size_t> index(graph.ops.size(), 0);
  Strategy s;
  for (auto& configs : space) s.ops.push_back(configs[0]);
  DeltaSimulator sim(graph, cluster, s);
  ExhaustiveResult r;
  r.best_ms = sim.makespan();
  r.best = s;
  r.strategies_evaluated = 1;
  // Odometer over the configurations, last op fastest: each step changes one op (plus carries).
  while (true) {
    size_t i = index.size();
    while (i > 0 && index[i - 1] + 1 == space[i - 1].size()) {
      index[i - 1] = 0;
      s.ops[i - 1] = space[i - 1][0];
      sim.set_config(int(i - 1), s.ops[i - 1]);
      --i;
    }
    if (i == 0) break;
    ++index[i - 1];
    s.ops[i - 1] = space[i - 1][index[i - 1]];
    double ms = sim.set_config(int(i - 1), s.ops[i - 1]);
    ++r.strategies_evaluated;
    if (ms < r.best_ms) {
      r.best_ms = ms;
      r.best = s;
    }
  }
  return r;
}

}  // namespace autopar
