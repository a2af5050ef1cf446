// A worker reply as one object for the tests' checks: its body with its envelope's id
// ({id, KIND: ..., partial?}).
#pragma once
#include "json_io.h"
#include "worker_session.h"

namespace autopar {

// The body of `r` with "id" (and "kind") from its envelope.
inline Json reply_json(const WorkerReply& r) {
  Json j = Json::parse(r.body);
  j["id"] = r.id;
  j["kind"] = r.kind;
  return j;
}

}  // namespace autopar
