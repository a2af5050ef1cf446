// The outer enumeration of today's space. See knob_search.h.
#include "knob_search.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "context_expert.h"
#include "memory_model.h"

namespace autopar {

namespace {

// The tokens of the model's sequences (the second dimension of its first input; 0: none).
int64_t model_sequence(const Graph& g) {
  for (const Op& op : g.ops)
    for (size_t k = 0; k < op.inputs.size(); ++k)
      if (op.producers[k] < 0 && op.inputs[k].shape.size() >= 2) return op.inputs[k].shape[1];
  return 0;
}

}  // namespace

// ---- the micro-batch count ----

MicrobatchSearchJob::MicrobatchSearchJob(const Graph& graph, const Cluster& cluster, const InterRequest& request, int start)
    : graph_(graph), cluster_(cluster), request_(request) {
  const int64_t batch = model_batch(graph);
  for (int64_t b = 1; b <= batch && b <= 65536; ++b)
    if (batch % b == 0) divisors_.push_back(int(b));
  if (divisors_.empty()) {
    finish(make_error(ErrorCode::bad_value, "the model has no batch dimension to split into micro-batches", "--microbatches"));
    return;
  }
  // The divisor nearest `start`.
  for (size_t k = 0; k < divisors_.size(); ++k)
    if (std::abs(divisors_[k] - start) < std::abs(divisors_[start_] - start)) start_ = k;
}

std::optional<size_t> MicrobatchSearchJob::next_divisor(size_t* best_out) const {
  // The neighbours about twice and half as many.
  auto neighbour = [&](size_t k, bool up) -> std::optional<size_t> {
    const double want = up ? 2.0 * divisors_[k] : divisors_[k] / 2.0;
    std::optional<size_t> best;
    for (size_t j = 0; j < divisors_.size(); ++j) {
      if (up ? divisors_[j] <= divisors_[k] : divisors_[j] >= divisors_[k]) continue;
      if (!best || std::abs(divisors_[j] - want) < std::abs(divisors_[*best] - want)) best = j;
    }
    return best;
  };
  auto total_of = [&](size_t k) {
    const Result<InterReport>& r = runs_.at(k);
    return r.ok() ? r.value().plan.total_latency : std::numeric_limits<double>::infinity();
  };
  if (!runs_.count(start_)) return start_;
  size_t best = start_;
  double best_total = total_of(start_);
  for (bool up : {true, false}) {
    // Walk while the total falls (or, from an infeasible start, until a plan exists).
    size_t k = best;
    for (int steps = 0; steps < 12; ++steps) {
      auto next = neighbour(k, up);
      if (!next) break;
      if (!runs_.count(*next)) return *next;
      const double t = total_of(*next);
      if (!(t < best_total) && std::isfinite(best_total)) break;
      if (t < best_total) {
        best_total = t;
        best = *next;
      }
      k = *next;
    }
  }
  *best_out = best;
  return std::nullopt;
}

void MicrobatchSearchJob::work(BudgetMeter& meter) {
  while (!done()) {
    if (!inner_) {
      size_t best = 0;
      const auto next = next_divisor(&best);
      if (!next) {
        Result<InterReport> out = runs_.at(best);
        if (out.ok())
          for (const auto& [k, r] : runs_) out.value().microbatch_search.push_back({divisors_[k], r.ok() ? r.value().plan.total_latency : -1});
        finish(std::move(out));
        return;
      }
      InterRequest r = request_;
      r.microbatches = divisors_[*next];
      if (whole_counts_) {
        runs_.emplace(*next, run_inter_job(graph_, cluster_, r));
        meter.count();
        if (meter.spent()) return;
        continue;
      }
      inner_ = std::make_unique<InterJob>(graph_, cluster_, r);
      inner_index_ = *next;
    }
    const int64_t before = inner_->progress().done;
    inner_->step(meter.left());
    if (inner_->done()) {
      runs_.emplace(inner_index_, inner_->result());
      inner_.reset();
      meter.count();
    } else {
      meter.count(std::max<int64_t>(1, inner_->progress().done - before));
    }
    if (meter.spent()) return;
  }
}

JobProgress MicrobatchSearchJob::progress() const {
  JobProgress p = inner_ ? inner_->progress() : JobProgress{0, 0, "stage costs"};
  p.plans_done = plans_done();
  if (inner_) p.knobs = "B=" + std::to_string(divisors_[inner_index_]);
  return p;
}

Result<InterReport> plan_inter_searching_microbatches(const Graph& graph, const Cluster& cluster, const InterRequest& request, int start) {
  MicrobatchSearchJob job(graph, cluster, request, start);
  job.plan_whole_counts();   // run to its end here: each count's stage costs on the threads
  return run_to_end(job);
}

// ---- today's space ----

KnobSearchJob::KnobSearchJob(const Graph& graph, const Cluster& cluster, const InterRequest& request, int start)
    : graph_(graph), cluster_(cluster), request_(request), start_(start), experts_(model_experts(graph)), sequence_(model_sequence(graph)) {}

std::optional<KnobSearchJob::Point> KnobSearchJob::next_point(std::vector<Point>* order) const {
  // A point's total (infinity when nothing fits), or none when it is still to plan.
  auto total = [&](int cp, int ep) -> std::optional<double> {
    auto it = points_.find({cp, ep});
    if (it == points_.end()) return std::nullopt;
    order->push_back({cp, ep});
    return it->second.ok() ? it->second.value().plan.total_latency : std::numeric_limits<double>::infinity();
  };
  const int devices = cluster_.num_devices();
  // ep: powers of two dividing the experts and the cluster, upwards while the total falls.
  int best_ep = 1;
  auto first = total(1, 1);
  if (!first) return Point{1, 1};
  double at_ep = *first;
  for (int ep = 2; experts_ > 0 && experts_ % ep == 0 && devices % ep == 0; ep *= 2) {
    auto t = total(1, ep);
    if (!t) return Point{1, ep};
    if (*t < at_ep) {
      at_ep = *t;
      best_ep = ep;
    } else if (std::isfinite(at_ep)) {
      break;
    }
  }
  // cp: only when nothing fits without it (a long sequence), doubling while the total falls.
  if (!std::isfinite(at_ep)) {
    double prev = std::numeric_limits<double>::infinity();
    for (int cp = 2; sequence_ > 0 && sequence_ % (2 * cp) == 0 && devices % cp == 0 && cp <= 64; cp *= 2) {
      auto t = total(cp, best_ep);
      if (!t) return Point{cp, best_ep};
      if (std::isfinite(prev) && !(*t < prev)) break;
      prev = std::min(prev, *t);
    }
  }
  return std::nullopt;
}

void KnobSearchJob::finish_search(const std::vector<Point>& order) {
  const Result<InterReport>* best = nullptr;
  const Error* last_error = nullptr;
  double best_total = std::numeric_limits<double>::infinity();
  tries_.clear();
  for (const Point& pt : order) {
    const Result<InterReport>& rep = points_.at(pt);
    if (rep.ok()) {
      for (const auto& [b, t] : rep.value().microbatch_search) tries_.push_back(KnobTry{pt.first, pt.second, b, t});
      if (rep.value().plan.total_latency < best_total) {
        best_total = rep.value().plan.total_latency;
        best = &rep;
      }
    } else {
      last_error = &rep.error();
      tries_.push_back(KnobTry{pt.first, pt.second, 0, -1});
    }
  }
  if (!best) {
    finish(last_error ? *last_error : make_error(ErrorCode::infeasible, "no plan fits at any micro-batch count, cp or ep tried", "--space"));
    return;
  }
  InterReport rep = best->value();
  rep.space = "today";
  for (const KnobTry& k : tries_) rep.knob_search.push_back({double(k.context), double(k.expert), double(k.microbatches), k.total_ms});
  rep.elapsed_ms = work_ms_;
  finish(std::move(rep));
}

void KnobSearchJob::work(BudgetMeter& meter) {
  const auto started = std::chrono::steady_clock::now();
  auto add_work = [&] { work_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count(); };
  while (!done()) {
    if (!inner_) {
      std::vector<Point> order;
      const auto next = next_point(&order);
      if (!next) {
        add_work();
        finish_search(order);
        return;
      }
      InterRequest r = request_;
      r.options.choose_sequence_parallel = true;
      r.options.choose_interleave = true;
      r.options.context_parallel = next->first;
      r.options.expert_parallel = next->second;
      inner_ = std::make_unique<MicrobatchSearchJob>(graph_, cluster_, r, start_);
      if (whole_counts_) inner_->plan_whole_counts();
      inner_point_ = *next;
    }
    const int64_t before = inner_->progress().done;
    inner_->step(meter.left());
    if (inner_->done()) {
      plans_done_ += inner_->plans_done();
      points_.emplace(inner_point_, inner_->result());
      inner_.reset();
      meter.count();
    } else {
      meter.count(std::max<int64_t>(1, inner_->progress().done - before));
    }
    if (meter.spent()) break;
  }
  add_work();
}

JobProgress KnobSearchJob::progress() const {
  JobProgress p = inner_ ? inner_->progress() : JobProgress{0, 0, "stage costs"};
  p.plans_done = plans_done_ + (inner_ ? inner_->plans_done() : 0);
  p.knobs = "cp=" + std::to_string(inner_point_.first) + " ep=" + std::to_string(inner_point_.second) + (inner_ && !inner_->progress().knobs.empty() ? " " + inner_->progress().knobs : "");
  return p;
}

Result<InterReport> plan_inter_searching_knobs(const Graph& graph, const Cluster& cluster, const InterRequest& request, int start,
                                               std::vector<KnobTry>* tries) {
  KnobSearchJob job(graph, cluster, request, start);
  job.plan_whole_counts();   // run to its end here: each count's stage costs on the threads
  const Result<InterReport>& r = run_to_end(job);
  if (tries) *tries = job.tries();
  return r;
}

}  // namespace autopar
