// The simulator-accuracy study (lecture 3.4) as the page runs it: the same random strategies,
// seeds and cost models as the core's accuracy_study (`autopar accuracy`), computed a few
// strategies per frame, with the ideal and the calibrated simulator side by side against the
// fine "real execution" model. No ImGui in here.
#pragma once
#include <cstdint>
#include <vector>

#include "accuracy.h"
#include "cluster.h"
#include "graph.h"
#include "json_io.h"
#include "rng.h"

namespace autopar::web {

// Largest study the page runs.
constexpr int kMaxAccuracySamples = 5000;

// The page shows core's summary of the study.
using AccuracySummary = AccuracyResult;

// A study in progress. Holds no references: the graph and cluster are passed to each advance;
// reset it whenever they change.
struct AccuracyJob {
  bool started = false;
  int samples = 0;                  // target
  uint64_t seed = 1;
  Rng rng{1};
  std::vector<double> ideal_ms, calibrated_ms, real_ms;   // per strategy done so far
  bool complete = false;
  AccuracySummary ideal, calibrated;                      // valid when complete
  double compute_ms = 0;
};

// Discards the study.
void accuracy_reset(AccuracyJob& job);

// Starts a study of `samples` random strategies drawn with `seed`.
void accuracy_start(AccuracyJob& job, int samples, uint64_t seed);

// Simulates strategies for roughly `budget_ms` of wall time (at least one); computes the
// summaries when the last one is done. Returns true when the study is complete.
bool accuracy_advance(AccuracyJob& job, const Graph& graph, const Cluster& cluster, double budget_ms);

// result().accuracy: {samples, done, complete, seed, ideal:{...}, calibrated:{...}}; the
// summaries are null until complete; null when no study was started.
Json accuracy_result_json(const AccuracyJob& job);

}  // namespace autopar::web
