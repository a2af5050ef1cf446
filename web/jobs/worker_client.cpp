// The page's side of the worker protocol. See worker_client.h.
#include "worker_client.h"

#include <utility>

namespace autopar::web {

void WorkerClient::send(const Json& message) {
  const std::string text = message.dump();
  if (post_) return post_(text);
#ifndef __EMSCRIPTEN__
  local_.message(text);
#else
  if (message.value("op", std::string()) == "start")
    receive(message["id"].get<int64_t>(), "error",
            Json{{"error", error_to_json(make_error(ErrorCode::browser, "this browser started no Web Workers, where the page computes; "
                                                    "reload the page, or use a browser that allows them", ""))}}.dump());
#endif
}

void WorkerClient::drain_local() {
#ifndef __EMSCRIPTEN__
  // Errors found when a message was read (bad inputs) are replies of the local session too.
  if (!post_)
    for (const WorkerReply& r : local_.take_replies()) receive(r.id, r.kind, r.body);
#endif
}

int64_t WorkerClient::start(const std::string& operation, const Json& inputs, const Json& request, int64_t units) {
  const int64_t id = next_id_++;
  jobs_[id] = Pending{};
  Json m{{"id", id}, {"op", "start"}, {"operation", operation}, {"inputs", inputs}, {"request", request}};
  if (units >= 1) m["units"] = units;
  send(m);
  return id;
}

void WorkerClient::cancel(int64_t id) {
  if (jobs_.erase(id) == 0) return;
  send(Json{{"id", id}, {"op", "cancel"}});
}

void WorkerClient::pause(int64_t id) {
  if (jobs_.count(id)) send(Json{{"id", id}, {"op", "pause"}});
}

void WorkerClient::resume(int64_t id, int64_t units) {
  if (!jobs_.count(id)) return;
  Json m{{"id", id}, {"op", "resume"}};
  if (units >= 1) m["units"] = units;
  send(m);
}

bool WorkerClient::receive(int64_t id, const std::string& kind, const std::string& body) {
  auto parsed = parse_json_text(body, "the worker's reply");
  if (!parsed.ok() || !parsed.value().is_object()) return false;
  const Json& j = parsed.value();
  // The pool's word that a worker started (wasm/worker_loop.js): what it runs with.
  if (kind == "ready") {
    if (j.contains("glpk") && j["glpk"].is_string()) glpk_version_ = j["glpk"].get<std::string>();
    return true;
  }
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second.outcome || !j.contains(kind)) return false;
  Pending& p = it->second;
  ++p.replies;
  if (j.contains("partial") && !j["partial"].is_null()) p.partials.push_back(j["partial"]);
  const Json& value = j[kind];
  if (kind == "progress") {
    p.progress.done = value.value("done", int64_t(0));
    p.progress.total = value.value("total", int64_t(0));
    p.progress.phase = value.value("phase", std::string());
    p.progress.plans_done = value.value("plans_done", int64_t(0));
    p.progress.knobs = value.value("knobs", std::string());
  } else if (kind == "result") {
    p.outcome = Result<Json>(value);
  } else if (kind == "error") {
    p.outcome = Result<Json>(error_from_json(value));
  }
  return p.outcome.has_value();
}

void WorkerClient::step_local(double budget_ms) {
#ifndef __EMSCRIPTEN__
  if (post_ || !local_.busy()) return;
  local_.step(budget_ms);
  for (const WorkerReply& r : local_.take_replies()) receive(r.id, r.kind, r.body);
#else
  (void)budget_ms;
#endif
}

JobProgress WorkerClient::progress(int64_t id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? JobProgress{} : it->second.progress;
}

int WorkerClient::replies(int64_t id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? 0 : it->second.replies;
}

std::vector<Json> WorkerClient::take_partials(int64_t id) {
  drain_local();
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return {};
  return std::exchange(it->second.partials, {});
}

std::optional<Result<Json>> WorkerClient::take(int64_t id) {
  drain_local();
  auto it = jobs_.find(id);
  if (it == jobs_.end() || !it->second.outcome) return std::nullopt;
  auto out = std::move(it->second.outcome);
  jobs_.erase(it);
  return out;
}

}  // namespace autopar::web
