// The flat C API behind window.autopar (floooh/chips style): plain functions, JSON strings in
// and out, a status instead of an exception. Each returns a pointer to a static string that
// stays valid until the next call of the same function.
#include "js_hook.h"

#include <emscripten.h>

namespace autopar::web {
namespace {
AppState* g_state = nullptr;   // bound once by main() before the first frame
}  // namespace

void js_hook_bind(AppState* state) { g_state = state; }

void js_hook_download(const std::string& file_name, const std::string& text) {
  EM_ASM({
    if (typeof Module['autoparDownload'] === 'function') Module['autoparDownload'](UTF8ToString($0), UTF8ToString($1));
  }, file_name.c_str(), text.c_str());
}

void js_hook_signal_ready() {
  EM_ASM({
    if (typeof Module['autoparReady'] === 'function') Module['autoparReady']();
  });
}

Result<std::string> js_hook_link_state() {
  // Two calls: the length, then the UTF-8 bytes into a buffer we own (no malloc from JS).
  const int length = EM_ASM_INT({
    var m = /^#state=(.*)$/.exec((typeof location !== 'undefined' && location.hash) || "");
    if (!m) return 0;
    try { Module['autoparLinkText'] = decodeURIComponent(m[1]); } catch (e) { return -1; }
    return lengthBytesUTF8(Module['autoparLinkText']);
  });
  if (length < 0)
    return make_error("bad_link", "the #state= part of the link is not valid URI encoding; copy the whole link again",
                      "location.hash");
  if (length == 0) return std::string();
  std::string out(size_t(length) + 1, '\0');
  EM_ASM({ stringToUTF8(Module['autoparLinkText'], $0, $1); delete Module['autoparLinkText']; }, out.data(), length + 1);
  out.resize(size_t(length));
  return out;
}

}  // namespace autopar::web

using autopar::web::g_state;

extern "C" {

// The whole UI state as a JSON object (see INTERFACES.md, window.autopar.getState).
EMSCRIPTEN_KEEPALIVE const char* autopar_get_state() {
  static std::string out;
  out = g_state ? autopar::web::settings_to_json(g_state->settings).dump() : "null";
  return out.c_str();
}

// Applies a partial state object; {"ok":true} or {"ok":false,"error":{code,message,path}}.
EMSCRIPTEN_KEEPALIVE const char* autopar_set_state(const char* json_text) {
  static std::string out;
  if (!g_state) {
    out = R"({"ok":false,"error":{"code":"not_ready","message":"the app has not started yet","path":""}})";
    return out.c_str();
  }
  autopar::Status s = autopar::web::apply_settings_json(*g_state, json_text ? json_text : "");
  autopar::Json j;
  j["ok"] = s.ok();
  if (!s.ok()) j["error"] = autopar::error_to_json(s.error());
  out = j.dump();
  return out.c_str();
}

// The numbers the page shows, as a JSON object (window.autopar.result).
EMSCRIPTEN_KEEPALIVE const char* autopar_result() {
  static std::string out;
  if (g_state) autopar::web::refresh_intra_plan(*g_state);
  out = g_state ? autopar::web::result_to_json(*g_state).dump() : "null";
  return out.c_str();
}

// The last notice shown to the user, as one line of text (window.autopar.message).
EMSCRIPTEN_KEEPALIVE const char* autopar_message() {
  static std::string out;
  out = g_state ? autopar::web::notice_line(g_state->notice) : "";
  return out.c_str();
}

// The Perfetto/Chrome trace JSON of the current timeline (window.autopar.exportTrace).
EMSCRIPTEN_KEEPALIVE const char* autopar_export_trace() {
  static std::string out;
  out = g_state ? autopar::web::flexflow_trace_text(g_state->flexflow) : "";
  return out.c_str();
}

// Plans the pipeline (Alpa's inter-op pass) for the current state now; returns result() after.
EMSCRIPTEN_KEEPALIVE const char* autopar_plan_inter() {
  static std::string out;
  if (!g_state) return "null";
  autopar::web::plan_inter(g_state->alpa.inter, autopar::web::alpa_inputs(*g_state), g_state->graph, g_state->cluster);
  autopar::web::refresh_intra_plan(*g_state);
  out = autopar::web::result_to_json(*g_state).dump();
  return out.c_str();
}

// The text of one Export menu format (window.autopar.exportPlan): {"ok":true,"text":...} or
// {"ok":false,"error":{...}}.
EMSCRIPTEN_KEEPALIVE const char* autopar_export_plan(const char* format) {
  static std::string out;
  if (!g_state) return R"({"ok":false,"error":{"code":"not_ready","message":"the app has not started yet","path":""}})";
  auto text = autopar::web::export_plan_text(*g_state, format ? format : "");
  autopar::Json j;
  j["ok"] = text.ok();
  if (text.ok()) j["text"] = text.value();
  else j["error"] = autopar::error_to_json(text.error());
  out = j.dump();
  return out.c_str();
}

}  // extern "C"
