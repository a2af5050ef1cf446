// `accuracy` as a job (INTERFACES.md, lecture 3.4): random strategies simulated by the ideal
// and the calibrated simulator and by the finer "real execution" model, then compared. A unit
// of work is one strategy; the i-th is drawn with the i-th output of Rng(seed), so the report
// equals accuracy_study's however the job is sliced. Both simulators are summarised: the CLI
// prints the one asked for, the page shows both.
#pragma once
#include <cstdint>
#include <vector>

#include "accuracy.h"
#include "cluster.h"
#include "graph.h"
#include "job.h"
#include "rng.h"

namespace autopar {

// What the study is started with.
struct AccuracyRequest {
  int samples = 300;                       // random strategies (at least 2)
  uint64_t seed = 1;
  CostMode simulator = CostMode::ideal;    // the one the report's JSON and text show: ideal or calibrated
};

// The finished study.
struct AccuracyReport {
  AccuracyRequest request;
  std::vector<double> ideal_ms, calibrated_ms, real_ms;   // per strategy
  AccuracyResult ideal, calibrated;                       // summaries (no points)
  // `accuracy --json` for request.simulator, with its points [simulated, real].
  Json to_json() const;
  std::string to_text() const;
  // The summary of one simulator as the page's result() shows it (no points).
  static Json summary_json(const AccuracyResult& r);
  // Reads summary_json back (samples are not in it: 0); a malformed one is an error naming `path`.
  static Result<AccuracyResult> summary_from_json(const Json& j, const std::string& path);
};

// A study in progress. Owns copies of its graph and cluster.
class AccuracyJob : public Job<AccuracyReport> {
 public:
  AccuracyJob(Graph graph, Cluster cluster, const AccuracyRequest& request);
  JobProgress progress() const override;
  // Strategies done so far, and their times (for a live scatter plot).
  int done_samples() const { return int(real_ms_.size()); }
  const std::vector<double>& ideal_ms() const { return ideal_ms_; }
  const std::vector<double>& calibrated_ms() const { return calibrated_ms_; }
  const std::vector<double>& real_ms() const { return real_ms_; }
  const AccuracyRequest& request() const { return request_; }

 protected:
  void work(BudgetMeter& meter) override;

 private:
  Graph graph_;
  Cluster cluster_;
  AccuracyRequest request_;
  Rng rng_;
  std::vector<double> ideal_ms_, calibrated_ms_, real_ms_;
};

// The study's new samples since the last call, for a page drawing the scatter live (the
// worker's partial replies): {from, ideal, calibrated, real} (the samples from index `from` on).
class AccuracyPartial {
 public:
  // The partial for `job` now; null when no sample is new.
  Json next(const AccuracyJob& job);

 private:
  size_t sent_ = 0;
};

}  // namespace autopar
