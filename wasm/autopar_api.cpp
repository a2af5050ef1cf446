// The CLI as JSON in the worker module (linked into autopar-worker, never into the page): any
// CLI command, JSON in, JSON out, so that the browser computes exactly what the CLI prints
// (window.autopar.run(["simulate", "--model", ...]), a Promise the page's worker pool fulfils,
// wasm/worker_loop.js). Returns a status instead of throwing: {"ok":true,"result":{...}} or
// {"ok":false,"error":{...}}.
#include <emscripten/emscripten.h>

#include <string>
#include <vector>

#include "../cli/commands.h"

using namespace autopar;

extern "C" {

// Runs one CLI command given as a JSON array of words (without "--json"); the returned string
// stays valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* autopar_run(const char* words_json) {
  static std::string out;
  auto j = parse_json_text(words_json ? words_json : "", "the command");
  std::vector<std::string> words;
  if (j.ok() && j.value().is_array()) {
    for (const auto& w : j.value()) {
      if (!w.is_string()) { words.clear(); break; }
      words.push_back(w.get<std::string>());
    }
  }
  if (!j.ok() || words.empty()) {
    Error e = j.ok() ? make_error(ErrorCode::bad_argument, "give the command as a JSON array of strings, e.g. [\"models\"]", "") : j.error();
    out = Json{{"ok", false}, {"error", error_to_json(e)}}.dump();
    return out.c_str();
  }
  words.push_back("--json");
  auto r = cli::run_command(words);
  out = r.ok() ? Json{{"ok", true}, {"result", r.value().json}}.dump() : Json{{"ok", false}, {"error", error_to_json(r.error())}}.dump();
  return out.c_str();
}

}  // extern "C"
