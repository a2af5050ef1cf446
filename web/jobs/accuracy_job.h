// The simulator-accuracy study (lecture 3.4) as the page runs it: the accuracy operation
// (core/operations/accuracy_operation.h, the same job as `autopar accuracy`) in the page's worker
// ("accuracy"), whose replies carry the new samples as they are simulated (AccuracyPartial), so
// the scatter fills in live; the ideal and the calibrated simulator side by side against the
// fine "real execution" model. Without a worker (native tests) the same messages run
// in-process. No ImGui in here.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "accuracy_operation.h"
#include "json_io.h"
#include "request_fields.h"
#include "result.h"
#include "worker_client.h"

namespace autopar::web {

// Largest study the page runs: the accuracy request's bound (request_fields.h), the CLI's too.
constexpr int kMaxAccuracySamples = int(kAccuracySamplesBound.hi);

// The page shows core's summary of the study.
using AccuracySummary = AccuracyResult;

// A study: its job in the worker and the samples and summaries it reported.
struct AccuracyJob {
  bool started = false;
  int samples = 0;                  // target
  uint64_t seed = 1;
  std::shared_ptr<WorkerClient> worker;
  int64_t request = 0;              // the worker's job id; 0 once it ended
  std::vector<double> ideal_ms, calibrated_ms, real_ms;   // per strategy received so far
  bool complete = false;
  AccuracySummary ideal, calibrated;                      // valid when complete
  std::optional<Error> error;                             // why the study failed
};

// Discards the study (cancelling it in the worker).
void accuracy_reset(AccuracyJob& job);

// Starts a study of `samples` random strategies drawn with `seed` on the model and cluster
// `inputs` (worker_session.h) in `worker`.
void accuracy_start(AccuracyJob& job, std::shared_ptr<WorkerClient> worker, const Json& inputs, int samples, uint64_t seed);

// Takes the worker's replies (in-process, steps it for about `budget_ms` first): the new samples,
// then the summaries. Returns true when the study is complete.
bool accuracy_advance(AccuracyJob& job, double budget_ms);

// result().accuracy: {samples, done, complete, seed, ideal:{...}, calibrated:{...}, error?}; the
// summaries are null until complete; null when no study was started.
Json accuracy_result_json(const AccuracyJob& job);

}  // namespace autopar::web
