// The operations as messages (the page's Web Workers speak this; wasm/autopar_worker.cpp is the
// thin entry). A message in is {id, op: "start" | "cancel" | "pause" | "resume", operation,
// inputs, request, units?}; the replies out are {id, progress, partial?} while a job runs, then
// {id, result, partial?} or {id, error: {code, message, path}}. `partial` is what a job has to
// show since its previous reply (the search's new trace points and chain state, the accuracy
// study's new samples), so a page can draw it live. "pause" stops stepping a job and answers
// with a progress reply; "resume" steps it again, for `units` units of work only when given
// (then it pauses again and answers); "units" on a start does the same from the start.
// Inputs name the model and cluster as the page holds them: {model: "NAME[:k=v]" or the
// imported file's name with model_json: its text, cluster: "SPEC" or the cluster's JSON,
// precision?: "fp32" | "tf32" | "mixed" as --precision}. Requests are read with
// operation_requests.h (the CLI's and the page's bounds and messages, named "request.FIELD").
// Operations: "inter" (request {microbatches, ignore_boundaries, parts?}: the pipeline plan; with
// parts, from stage costs computed in shares), "stage_costs" (request {microbatches,
// share_index, share_count}: one share of the stage costs, for a pool of workers), "search"
// (request {beta, steps, budget_ms, seed, init, full_sim, optimizer, memory_moves, partials}: `autopar search`), "accuracy"
// (request {samples, seed}: `autopar accuracy`, both simulators), "compare_flexflow" and
// "compare_alpa" (request {title, seed, steps, microbatches}: the two halves of `autopar
// compare`, which a page runs side by side and merges), "intra" (request IntraRequest
// {mesh, solver, reduce_scatter, remat, alpa_costs, ...}: the intra-op plan, as
// intra_plan_message), "simulate" (request SimulateRequest {strategy, zero, remat, optimizer,
// calibrated, fine}: `autopar simulate`'s JSON), "export" (request ExportRequest {format, seed,
// title, device_type}: `autopar export`, result {format, text}; the page's Export menu, so that
// its ILP runs here). Jobs are stepped in start order, each
// a share of the step's time, so a cancel between two steps stops a job before its next step.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "job.h"
#include "json_io.h"
#include "result.h"

namespace autopar {

// The model named by a message's inputs (as the page loads it); errors name inputs.model...
Result<Graph> graph_from_inputs(const Json& inputs);
// The cluster named by a message's inputs (a spec string or cluster JSON); errors name inputs.cluster...
Result<Cluster> cluster_from_inputs(const Json& inputs);

// A started operation, whatever its report: steps, progress, and its result as JSON.
class RunningOperation {
 public:
  virtual ~RunningOperation() = default;
  // Works within `budget`; returns true when done.
  virtual bool step(const StepBudget& budget) = 0;
  // How far it is.
  virtual JobProgress progress() const = 0;
  // Stops it (its result becomes the cancelled error).
  virtual void cancel() = 0;
  // The result as the reply's `result`, or its error; only valid when done.
  virtual Result<Json> result() const = 0;
  // What the job has to show since the previous call (null: nothing new); the session sends it
  // with every progress reply and with the result.
  virtual Json partial() { return nullptr; }
};

// Starts `operation` on `inputs` with `request`; a bad request or input is an error naming it.
Result<std::unique_ptr<RunningOperation>> start_operation(const std::string& operation, const Json& inputs, const Json& request);

// One reply: its job's id (0 for a message without one), kind ("progress", "result" or
// "error") and JSON text {id, KIND: ...}.
struct WorkerReply {
  int64_t id = 0;
  std::string kind;
  std::string text;
};

// One worker's jobs.
class WorkerSession {
 public:
  // Progress replies of a job go out at most every `progress_every_ms` (0: after every step);
  // partial results are never lost: a later reply carries them.
  explicit WorkerSession(double progress_every_ms = 0) : progress_every_ms_(progress_every_ms) {}
  // Handles one message text; its replies (an error for a bad message) are queued.
  void message(const std::string& text);
  // Steps the running (not paused) jobs in start order for about `budget_ms` in all, each an
  // equal share of what is left (and at least one unit), queueing progress replies and the
  // results of those that end.
  void step(double budget_ms);
  // True while a job runs and is not paused.
  bool busy() const;
  // The queued replies, oldest first; the queue is emptied.
  std::vector<WorkerReply> take_replies();

 private:
  struct Entry {
    std::unique_ptr<RunningOperation> op;
    bool paused = false;
    int64_t units_left = -1;           // >= 0: pause after this many more units of work
    double last_progress_ms = -1e300;  // session clock of the last progress reply
  };
  void reply(int64_t id, const char* kind, Json body, Json partial = nullptr);
  void reply_error(int64_t id, const Error& e) { reply(id, "error", error_to_json(e)); }
  void reply_progress(int64_t id, Entry& e);
  double now_ms() const;
  double progress_every_ms_;
  std::map<int64_t, Entry> jobs_;      // by id: the page's ids grow, so in start order
  std::vector<WorkerReply> replies_;
};

}  // namespace autopar
