// The operations as messages (the page's Web Workers speak this; wasm/autopar_worker.cpp is the
// thin entry). A message in is {id, op: "start" | "cancel", operation, inputs, request}; the
// replies out are {id, progress} while a job runs, then {id, result} or {id, error: {code,
// message, path}}. Inputs name the model and cluster as the page holds them: {model: "NAME[:k=v]"
// or the imported file's name with model_json: its text, cluster: "SPEC" or the cluster's JSON}.
// Operations: "inter" (request {microbatches, ignore_boundaries, parts?}: the pipeline plan; with
// parts, from stage costs computed in shares) and "stage_costs" (request {microbatches,
// share_index, share_count}: one share of the stage costs, for a pool of workers). Jobs are
// stepped in start order, so a cancel between two steps stops a job before its next step.
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
  // Handles one message text; its replies (an error for a bad message) are queued.
  void message(const std::string& text);
  // Steps the running jobs in start order for about `budget_ms` in all (each at least one unit),
  // queueing one progress reply per running job and the results of those that end.
  void step(double budget_ms);
  // True while a job runs.
  bool busy() const { return !jobs_.empty(); }
  // The queued replies, oldest first; the queue is emptied.
  std::vector<WorkerReply> take_replies();

 private:
  void reply(int64_t id, const char* kind, Json body);
  void reply_error(int64_t id, const Error& e) { reply(id, "error", error_to_json(e)); }
  std::map<int64_t, std::unique_ptr<RunningOperation>> jobs_;   // by id: the page's ids grow, so in start order
  std::vector<WorkerReply> replies_;
};

}  // namespace autopar
