// The simulator-accuracy study as a job. See accuracy_operation.h.
#include "accuracy_operation.h"

#include <sstream>

#include "report_text.h"

namespace autopar {

AccuracyJob::AccuracyJob(Graph graph, Cluster cluster, const AccuracyRequest& request)
    : graph_(std::move(graph)), cluster_(std::move(cluster)), request_(request), rng_(request.seed) {
  if (request.samples < 2) finish(make_error(ErrorCode::out_of_range, "the study needs at least 2 strategies", "samples"));
  if (request.simulator == CostMode::fine) finish(make_error(ErrorCode::bad_value, "the simulator studied is ideal or calibrated", "simulator"));
}

void AccuracyJob::work(BudgetMeter& meter) {
  while (int(real_ms_.size()) < request_.samples) {
    // Exactly accuracy_study's sequence: one seed per strategy, which also seeds the jitter.
    const AccuracySample a = accuracy_sample(graph_, cluster_, rng_.next());
    ideal_ms_.push_back(a.ideal_ms);
    calibrated_ms_.push_back(a.calibrated_ms);
    real_ms_.push_back(a.real_ms);
    if (meter.count()) break;
  }
  if (int(real_ms_.size()) < request_.samples) return;
  AccuracyReport r;
  r.request = request_;
  r.ideal_ms = ideal_ms_;
  r.calibrated_ms = calibrated_ms_;
  r.real_ms = real_ms_;
  r.ideal = summarize_accuracy(ideal_ms_, real_ms_);
  r.calibrated = summarize_accuracy(calibrated_ms_, real_ms_);
  finish(std::move(r));
}

JobProgress AccuracyJob::progress() const { return JobProgress{int64_t(real_ms_.size()), request_.samples, "accuracy"}; }

Json AccuracyReport::summary_json(const AccuracyResult& s) {
  return Json{{"mean_rel_error", s.mean_rel_error}, {"max_rel_error", s.max_rel_error}, {"kendall_tau", s.kendall_tau},
              {"top_kendall_tau", s.top_kendall_tau}, {"top_count", s.top_count},        {"sim_best_true_rank", s.sim_best_true_rank}};
}

Result<AccuracyResult> AccuracyReport::summary_from_json(const Json& j, const std::string& path) {
  AccuracyResult r;
  if (!j.is_object()) return make_error(ErrorCode::wrong_type, path + " must be an object", path);
  for (auto [key, out] : {std::pair<const char*, double*>{"mean_rel_error", &r.mean_rel_error}, {"max_rel_error", &r.max_rel_error},
                          {"kendall_tau", &r.kendall_tau}, {"top_kendall_tau", &r.top_kendall_tau}}) {
    if (!j.contains(key) || !j[key].is_number()) return make_error(ErrorCode::wrong_type, path + "." + key + " must be a number", path + "." + key);
    *out = j[key].get<double>();
  }
  for (auto [key, out] : {std::pair<const char*, int*>{"top_count", &r.top_count}, {"sim_best_true_rank", &r.sim_best_true_rank}}) {
    if (!j.contains(key) || !j[key].is_number_integer()) return make_error(ErrorCode::wrong_type, path + "." + key + " must be an integer", path + "." + key);
    *out = j[key].get<int>();
  }
  return r;
}

Json AccuracyPartial::next(const AccuracyJob& job) {
  const size_t n = size_t(job.done_samples());
  if (n <= sent_) return nullptr;
  Json ideal = Json::array(), calibrated = Json::array(), real = Json::array();
  for (size_t i = sent_; i < n; ++i) {
    ideal.push_back(job.ideal_ms()[i]);
    calibrated.push_back(job.calibrated_ms()[i]);
    real.push_back(job.real_ms()[i]);
  }
  Json j{{"from", sent_}, {"ideal", ideal}, {"calibrated", calibrated}, {"real", real}};
  sent_ = n;
  return j;
}

Json AccuracyReport::to_json() const {
  const bool calibrated_sim = request.simulator == CostMode::calibrated;
  const AccuracyResult& r = calibrated_sim ? calibrated : ideal;
  const std::vector<double>& sim = calibrated_sim ? calibrated_ms : ideal_ms;
  Json points = Json::array();
  for (size_t i = 0; i < sim.size(); ++i) points.push_back(Json::array({sim[i], real_ms[i]}));
  return Json{{"samples", r.samples},
              {"simulator", calibrated_sim ? "calibrated" : "ideal"},
              {"mean_rel_error", r.mean_rel_error},
              {"max_rel_error", r.max_rel_error},
              {"kendall_tau", r.kendall_tau},
              {"top_kendall_tau", r.top_kendall_tau},
              {"top_count", r.top_count},
              {"sim_best_true_rank", r.sim_best_true_rank},
              {"points", points}};
}

std::string AccuracyReport::to_text() const {
  const bool calibrated_sim = request.simulator == CostMode::calibrated;
  const AccuracyResult& r = calibrated_sim ? calibrated : ideal;
  std::ostringstream t;
  t << (calibrated_sim ? "calibrated" : "ideal") << " simulator vs the fine model on " << r.samples << " random strategies\n"
    << "mean relative error  " << fmt("%.1f", 100 * r.mean_rel_error) << " %\n"
    << "max relative error   " << fmt("%.1f", 100 * r.max_rel_error) << " %\n"
    << "Kendall tau (all)    " << fmt("%.3f", r.kendall_tau) << "\n"
    << "Kendall tau (best " << r.top_count << ") " << fmt("%.3f", r.top_kendall_tau) << "\n"
    << "true rank of the simulator's favourite: " << r.sim_best_true_rank << "\n";
  return t.str();
}

}  // namespace autopar
