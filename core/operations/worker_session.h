// The operations as messages (the page's Web Workers speak this; wasm/autopar_worker.cpp is the
// thin entry). A message in is {id, op: "start" | "cancel" | "pause" | "resume", operation,
// inputs, request, units?, held_parts?}; each reply out is an envelope (id, kind) beside its
// body: {progress, partial?} while a job runs, then {result, partial?} or {error: {code,
// message, path}}. `partial` is what a job has to
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
// its ILP runs here), "plan_memory" (request {plan, microbatches, optimizer}: `autopar memory
// --plan`'s JSON, the page's memory per pipeline stage). Jobs are stepped in start order, each
// a share of the step's time, so a cancel between two steps stops a job before its next step.
#pragma once
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <utility>
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

// A message's model and cluster, built.
struct BuiltInputs {
  Graph graph;
  Cluster cluster;
};

// The inputs of a session's recent messages, built once each: a page sends the same model with
// every request while a knob moves, and building it again each time (Llama 3.1 405B's 1,264 ops
// from its config) cost as much as pricing a plan on it.
class InputsCache {
 public:
  // The graph and cluster `inputs` name (graph_from_inputs, cluster_from_inputs), built on the
  // first request for them and kept among the most recent kSize; an error is returned, not kept.
  Result<std::shared_ptr<const BuiltInputs>> get(const Json& inputs);
  // How many times inputs were built (not found here).
  int64_t builds() const { return builds_; }
  // Inputs kept: an imported model, the built-in one beside it, a Lecture scenario's.
  static constexpr size_t kSize = 4;

 private:
  std::list<std::pair<std::string, std::shared_ptr<const BuiltInputs>>> entries_;   // by inputs text, most recent first
  int64_t builds_ = 0;
};

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
// With `cache`, the inputs are looked up there (and built into it when new).
Result<std::unique_ptr<RunningOperation>> start_operation(const std::string& operation, const Json& inputs, const Json& request,
                                                          InputsCache* cache = nullptr);

// One reply: an envelope (its job's id, 0 for a message without one, and kind: "progress",
// "result" or "error") beside its body, the JSON text {KIND: ..., partial?}. Whoever routes a
// reply reads the envelope and passes the body on untouched, never editing its text.
struct WorkerReply {
  int64_t id = 0;
  std::string kind;
  std::string body;
};

// One worker's jobs.
class WorkerSession {
 public:
  // Progress replies of a job go out at most every `progress_every_ms` (0: after every step);
  // partial results are never lost: a later reply carries them.
  explicit WorkerSession(double progress_every_ms = 0) : progress_every_ms_(progress_every_ms) {}
  // Handles one message text; its replies (an error for a bad message) are queued. A start
  // message with "held_parts": true takes the stage-cost parts held for its id (part()) as its
  // request's "parts"; a cancel forgets parts held for its id.
  void message(const std::string& text);
  // Holds part `index` of `count` for the coming "inter" job `id`: `body` is the body of a
  // "stage_costs" job's result reply ({"result": PART}), read here as it arrives, so that a
  // pool's merging worker never splices the parts into one message text. A bad body is an
  // error reply of job `id`.
  void part(int64_t id, int64_t index, int64_t count, const std::string& body);
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
  // The parts held for job `id`, in order, as a request's "parts"; an error when one is missing.
  Result<Json> take_held_parts(int64_t id);
  double now_ms() const;
  double progress_every_ms_;
  InputsCache inputs_;                 // the models of this session's messages
  std::map<int64_t, Entry> jobs_;      // by id: the page's ids grow, so in start order
  std::map<int64_t, std::vector<Json>> held_parts_;   // by the id of the "inter" job to come
  std::vector<WorkerReply> replies_;
};

}  // namespace autopar
