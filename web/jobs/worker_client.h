// The page's side of the worker protocol (core/operations/worker_session.h): starts operations
// in the browser's worker pool (web/jobs/worker_pool.js, through a post function the WASM build
// connects), or, in the native build only (unit tests), in an in-process WorkerSession stepped a
// slice per frame; keeps each job's last progress and its outcome until taken. The page's
// module has no session (its operations would run on the drawing thread): there, without a
// pool, a job fails at once with an error saying so. No ImGui.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "job.h"
#include "json_io.h"
#include "result.h"
#include "worker_session.h"

namespace autopar::web {

class WorkerClient {
 public:
  using Post = std::function<void(const std::string& text)>;
  // Sends every later message to `post` (the browser's pool) instead of the in-process session.
  void connect(Post post) { post_ = std::move(post); }
  // True when messages go to the browser's pool.
  bool connected() const { return bool(post_); }
  // Starts `operation` (worker_session.h) and returns its id (ids grow from 1); with `units`
  // >= 1 the job does that many units of work and pauses.
  int64_t start(const std::string& operation, const Json& inputs, const Json& request, int64_t units = -1);
  // Cancels job `id` and forgets it (its late replies are ignored).
  void cancel(int64_t id);
  // Pauses job `id` in the worker (it answers with a progress reply).
  void pause(int64_t id);
  // Resumes job `id`; with `units` >= 1 for that many units of work only.
  void resume(int64_t id, int64_t units = -1);
  // Takes one reply: its envelope (job `id`, `kind` "progress", "result" or "error") and its
  // body text {KIND: ..., partial?}, or the pool's kind "ready" with the body {glpk} once a
  // worker started; replies to unknown ids are ignored. True when it ended a job (its result or
  // error arrived) or brought the workers' versions.
  bool receive(int64_t id, const std::string& kind, const std::string& body);
  // In-process only: steps the session for about `budget_ms` and takes its replies.
  void step_local(double budget_ms);
  // The last progress job `id` reported (empty before the first).
  JobProgress progress(int64_t id) const;
  // Replies received for job `id` so far.
  int replies(int64_t id) const;
  // The partial results job `id` sent since the last call, oldest first (take them before
  // take(): the result's own partial comes with it).
  std::vector<Json> take_partials(int64_t id);
  // Job `id`'s result or error once it arrived (the job is then forgotten), else nullopt.
  std::optional<Result<Json>> take(int64_t id);
  // Jobs started and not yet taken or cancelled.
  size_t pending() const { return jobs_.size(); }
  // The GLPK version the workers reported when they started (a "ready" reply {"glpk": V},
  // worker_pool.js); empty before, and in-process (the page itself links no GLPK).
  const std::string& glpk_version() const { return glpk_version_; }

 private:
  struct Pending {
    JobProgress progress;
    int replies = 0;
    std::vector<Json> partials;
    std::optional<Result<Json>> outcome;
  };
  void send(const Json& message);
  void drain_local();
  Post post_;
#ifndef __EMSCRIPTEN__
  WorkerSession local_;
#endif
  int64_t next_id_ = 1;
  std::map<int64_t, Pending> jobs_;
  std::string glpk_version_;
};

}  // namespace autopar::web
