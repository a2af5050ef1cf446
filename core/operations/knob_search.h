// Today's space (`inter --space today`): the inter-op pass choosing, beyond Alpa's layer split,
// sub-meshes and logical meshes, every knob a 2024 training run sets. Per stage (inside the
// stage costs and the DP, StageMemoryOption): recomputation none / selective / full, the ZeRO
// stage (3 = FSDP) and sequence parallelism, each position taking the fastest that holds its
// schedule's micro-batches in flight. Globally, an outer enumeration: the micro-batch count
// (the micro-batch size, batch / B), context parallelism where the model does not fit without
// it, and expert parallelism on a mixture-of-experts model.
#pragma once
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "inter_operation.h"
#include "job.h"

namespace autopar {

// The micro-batch count searched (plan_inter_searching_microbatches) as a job: one whole plan
// (an InterJob) per count tried, stepped a slice at a time, so that the page's worker shows its
// progress and can cancel it between two slices. Run to its end, its report is the function's.
class MicrobatchSearchJob : public Job<InterReport> {
 public:
  // B over the divisors of the model's batch from `start` (its nearest divisor). `graph` and
  // `cluster` are read while the job runs: the caller keeps them alive until it is done.
  MicrobatchSearchJob(const Graph& graph, const Cluster& cluster, const InterRequest& request, int start);
  // The plan in progress (its phase and units), the plans ended and its "B=N".
  JobProgress progress() const override;
  // Whole plans ended so far.
  int plans_done() const { return int(runs_.size()); }
  // Plans each count at once with run_inter_job (its stage costs on the machine's threads)
  // instead of slice by slice: for a caller that runs the job to its end (the CLI), where
  // progress between slices is not shown. The reports are the same.
  void plan_whole_counts() { whole_counts_ = true; }

 protected:
  void work(BudgetMeter& meter) override;

 private:
  // The walk replayed over the totals known: the divisor to plan next, or none once it ended
  // (then *best is the best divisor's index).
  std::optional<size_t> next_divisor(size_t* best) const;
  const Graph& graph_;
  const Cluster& cluster_;
  InterRequest request_;
  std::vector<int> divisors_;
  size_t start_ = 0;
  std::map<size_t, Result<InterReport>> runs_;   // per divisor index planned
  std::unique_ptr<InterJob> inner_;              // the plan in progress
  size_t inner_index_ = 0;
  bool whole_counts_ = false;                    // plan_whole_counts()
};

// One point of the outer enumeration and what the planner found there.
struct KnobTry {
  int context = 1, expert = 1;         // cp, ep
  int microbatches = 0;                // B; the micro-batch is batch / B sequences
  double total_ms = -1;                // the plan's total (-1: no plan fits)
};

// The best plan over the knobs, searched as follows (each point is one InterJob on its own
// micro-batch graph; the intra-op solves of a point serve all its per-stage choices):
// - ep: 1 on a dense model; on an MoE model the powers of two dividing the experts, upwards
//   from 1 while the total falls (every stage then has ep dividing its GPUs);
// - cp: 1, and only when nothing fits at cp the next power of two (the sequence splitting into
//   2 cp chunks), then once more while the total falls;
// - B: from `start` (its nearest divisor of the batch), doubling and halving while the total
//   falls (plan_inter_searching_microbatches).
// The report is the best point's, with every point tried in `tries`. Errors: the last point's
// error when no point has a plan.
// Today's space (plan_inter_searching_knobs) as a job: one MicrobatchSearchJob per (cp, ep)
// point, stepped a slice at a time (progress, cancel). Run to its end, its report is the
// function's (the CLI's `inter --space today`), and tries() its points.
class KnobSearchJob : public Job<InterReport> {
 public:
  // `graph` and `cluster` are read while the job runs: the caller keeps them alive.
  KnobSearchJob(const Graph& graph, const Cluster& cluster, const InterRequest& request, int start);
  // The plan in progress (its phase and units), every plan ended so far, and "cp=1 ep=1 B=32".
  JobProgress progress() const override;
  // Every point tried, in the order tried (complete once done).
  const std::vector<KnobTry>& tries() const { return tries_; }
  // Each point's micro-batch search plans whole counts (MicrobatchSearchJob::plan_whole_counts).
  void plan_whole_counts() { whole_counts_ = true; }

 protected:
  void work(BudgetMeter& meter) override;

 private:
  using Point = std::pair<int, int>;   // (cp, ep)
  // The enumeration replayed over the points known: the point to plan next, or none once it
  // ended; `order` gets the points in the order the enumeration asks for them.
  std::optional<Point> next_point(std::vector<Point>* order) const;
  void finish_search(const std::vector<Point>& order);
  const Graph& graph_;
  const Cluster& cluster_;
  InterRequest request_;
  int start_ = 0;
  int64_t experts_ = 0, sequence_ = 0;
  std::map<Point, Result<InterReport>> points_;
  std::unique_ptr<MicrobatchSearchJob> inner_;   // the point in progress
  Point inner_point_{1, 1};
  int plans_done_ = 0;                           // whole plans of the points ended
  std::vector<KnobTry> tries_;
  double work_ms_ = 0;                           // the job's own work, the report's elapsed_ms
  bool whole_counts_ = false;                    // plan_whole_counts()
};

Result<InterReport> plan_inter_searching_knobs(const Graph& graph, const Cluster& cluster, const InterRequest& request, int start,
                                               std::vector<KnobTry>* tries = nullptr);

}  // namespace autopar
