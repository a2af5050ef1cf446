// The worker module (autopar-worker.js/.wasm, run in a Web Worker by the page): the operations
// as messages (core/operations/worker_session.h), without ImGui or GL. wasm/worker_loop.js
// posts the page's messages in and steps the jobs between messages.
#include <emscripten.h>

#include <string>

#include "glpk.h"
#include "json_io.h"
#include "worker_session.h"

namespace {
// Progress at most every 100 ms per job: the page redraws on each reply, and partial results
// are carried by the next reply, never dropped.
autopar::WorkerSession g_session(100);
std::string g_out;

// The queued replies, one a line: the envelope "ID KIND " before the body's JSON (which has no
// newline), so the loop routes a body without reading or editing it.
const char* take_replies() {
  g_out.clear();
  for (const autopar::WorkerReply& r : g_session.take_replies()) {
    g_out += std::to_string(r.id) + " " + r.kind + " " + r.body + "\n";
  }
  return g_out.c_str();
}
}  // namespace

extern "C" {

// Handles one message {id, op, operation, inputs, request}; returns the replies it made at once
// (errors), one a line.
EMSCRIPTEN_KEEPALIVE const char* autopar_worker_message(const char* json) {
  g_session.message(json ? json : "");
  return take_replies();
}

// Holds part `index` of `count` (a share's result body) for the coming "inter" job `id`
// (WorkerSession::part); returns its error reply, if any, as a line.
EMSCRIPTEN_KEEPALIVE const char* autopar_worker_part(double id, int index, int count, const char* body) {
  g_session.part(int64_t(id), index, count, body ? body : "");
  return take_replies();
}

// Steps the running jobs for about `budget_ms`; returns the replies (progress, results), one a line.
EMSCRIPTEN_KEEPALIVE const char* autopar_worker_step(double budget_ms) {
  g_session.step(budget_ms);
  return take_replies();
}

// What this worker runs with, as JSON {"glpk": VERSION}: the page's About box shows it (the
// page itself does not link GLPK; the intra-op ILP is solved here).
EMSCRIPTEN_KEEPALIVE const char* autopar_worker_about() {
  static const std::string about = autopar::Json{{"glpk", glp_version()}}.dump();
  return about.c_str();
}

// 1 while a job runs.
EMSCRIPTEN_KEEPALIVE int autopar_worker_busy() { return g_session.busy() ? 1 : 0; }

}  // extern "C"
