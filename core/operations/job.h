// The one shape of every long operation (search, accuracy, inter, compare): a job is started by
// constructing it, advanced by step() with a budget of wall time and units of work, shows its
// progress, can be cancelled, and ends with a typed report or an Error (code, message, path).
// The CLI steps a job to its end in one call; the page steps it a slice per frame (or in a
// worker). How the work is sliced never changes the report: only an operation's own wall-clock
// limit (search --budget-ms) depends on time.
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "json_io.h"
#include "result.h"

namespace autopar {

// How much one step() may do: it stops after the unit of work that spends either part (and
// always does at least one unit unless the job ends).
struct StepBudget {
  double time_ms = std::numeric_limits<double>::infinity();   // wall time
  int64_t units = std::numeric_limits<int64_t>::max();        // units of work, in the job's own unit
  // No limit: the step runs the job to its end.
  static StepBudget unlimited() { return StepBudget{}; }
  // At most `ms` of wall time.
  static StepBudget time(double ms) { return StepBudget{ms, std::numeric_limits<int64_t>::max()}; }
  // At most `n` units of work.
  static StepBudget work(int64_t n) { return StepBudget{std::numeric_limits<double>::infinity(), n}; }
};

// Measures one step against its budget: a job calls count() after each unit of work.
class BudgetMeter {
 public:
  explicit BudgetMeter(const StepBudget& budget) : budget_(budget), start_(Clock::now()) {}
  // Records `n` units done; true when the budget is now spent.
  bool count(int64_t n = 1) {
    units_ += n;
    return spent();
  }
  // True when the units or the time of the budget are used up.
  // (No clock read under a budget of units alone: in WebAssembly a read is a call out to JavaScript.)
  bool spent() const { return units_ >= budget_.units || (std::isfinite(budget_.time_ms) && elapsed_ms() >= budget_.time_ms); }
  // Units that may still be done in this step.
  int64_t units_left() const { return units_ >= budget_.units ? 0 : budget_.units - units_; }
  // What is left of the budget, for a job stepping another job inside its own step.
  StepBudget left() const { return StepBudget{std::max(0.0, budget_.time_ms - elapsed_ms()), units_left()}; }
  // Wall time since the step began, in ms.
  double elapsed_ms() const { return std::chrono::duration<double, std::milli>(Clock::now() - start_).count(); }

 private:
  using Clock = std::chrono::steady_clock;
  StepBudget budget_;
  Clock::time_point start_;
  int64_t units_ = 0;
};

// How far a job is: units done of a total (an upper bound where the exact count is unknown
// until the end) and what it is doing now.
struct JobProgress {
  JobProgress() = default;
  // One plan's (or search's) count: JobProgress{done, total, "stage costs"}.
  JobProgress(int64_t d, int64_t t, std::string p) : done(d), total(t), phase(std::move(p)) {}
  int64_t done = 0;
  int64_t total = 0;            // 0: unknown
  std::string phase;            // e.g. "stage costs", "pipeline DP", "search"
  // An operation that runs several whole plans (today's space: one per cp, ep and micro-batch
  // count tried) says how many have ended and which one is in progress ("cp=1 ep=1 B=32"); the
  // fields above are then that plan's. Empty `knobs`: one plan only.
  int64_t plans_done = 0;
  std::string knobs;
  // done / total in [0, 1] (0 when the total is unknown).
  double fraction() const { return total > 0 ? std::min(1.0, double(done) / double(total)) : 0.0; }
  // {"done","total","fraction","phase"}, and "plans_done","knobs" when several plans run.
  Json to_json() const {
    Json j{{"done", done}, {"total", total}, {"fraction", fraction()}, {"phase", phase}};
    if (!knobs.empty()) {
      j["plans_done"] = plans_done;
      j["knobs"] = knobs;
    }
    return j;
  }
};

// The error a cancelled job ends with.
inline Error cancelled_error() { return make_error(ErrorCode::cancelled, "the operation was cancelled before it finished; start it again", ""); }

// A long operation producing a `Report`. Subclasses implement work() and progress() and call
// finish() once, with the report or the first error; errors keep their code and path.
template <class Report>
class Job {
 public:
  virtual ~Job() = default;
  Job() = default;
  Job(const Job&) = delete;              // jobs are held in place: their parts refer to each other
  Job& operator=(const Job&) = delete;

  // Works within `budget` (at least one unit unless the job ends); returns done().
  bool step(const StepBudget& budget) {
    if (done()) return true;
    BudgetMeter meter(budget);
    work(meter);
    compute_ms_ += meter.elapsed_ms();
    return done();
  }
  // True when the job finished, failed or was cancelled.
  bool done() const { return outcome_.has_value(); }
  // Stops the job: it is done and its result is cancelled_error() (no effect once done).
  void cancel() {
    if (!done()) outcome_.emplace(cancelled_error());
  }
  // The report, or why there is none; only valid when done().
  const Result<Report>& result() const { return *outcome_; }
  // How far the job is.
  virtual JobProgress progress() const = 0;
  // Wall time spent inside step() so far, in ms.
  double compute_ms() const { return compute_ms_; }

 protected:
  // Does work until `meter` says the budget is spent or the job ends (then calls finish()).
  virtual void work(BudgetMeter& meter) = 0;
  // Ends the job with its report or error (first call wins).
  void finish(Result<Report> outcome) {
    if (!done()) outcome_.emplace(std::move(outcome));
  }

 private:
  std::optional<Result<Report>> outcome_;
  double compute_ms_ = 0;
};

// Steps `job` to its end and returns its result.
template <class Report>
const Result<Report>& run_to_end(Job<Report>& job) {
  while (!job.step(StepBudget::unlimited())) {
  }
  return job.result();
}

}  // namespace autopar
