// The flat C API behind window.autopar (floooh/chips style): plain functions, JSON strings in
// and out, a status instead of an exception. Each returns a pointer to a static string that
// stays valid until the next call of the same function.
#include "js_hook.h"
#include "schedules_state.h"

#include <emscripten.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "exercise_grading.h"
#include "page_strings.h"
#include "share_link.h"
#include "ui_style.h"

namespace autopar::web {
namespace {
AppState* g_state = nullptr;   // bound once by main() before the first frame
}  // namespace

void js_hook_bind(AppState* state) {
  g_state = state;
  // The page's worker pool (index.html, web/worker_pool.js) when it started one; else the
  // planning stays in-process, a slice per frame.
  const bool pool = EM_ASM_INT({ return typeof Module['autoparWorkerPost'] === 'function' ? 1 : 0; });
  if (pool)
    state->alpa.inter.worker->connect([](const std::string& text) {
      EM_ASM({ Module['autoparWorkerPost'](UTF8ToString($0)); }, text.c_str());
    });
}

void js_hook_download(const std::string& file_name, const std::string& text) {
  EM_ASM({
    if (typeof Module['autoparDownload'] === 'function') Module['autoparDownload'](UTF8ToString($0), UTF8ToString($1));
  }, file_name.c_str(), text.c_str());
}

void js_hook_request_cjk_font() {
  EM_ASM({
    if (typeof Module['autoparLoadCjkFont'] === 'function') Module['autoparLoadCjkFont']();
    else Module['_autopar_cjk_font_loaded'](0, 0);
  });
}

void js_hook_signal_ready() {
  EM_ASM({
    if (typeof Module['autoparReady'] === 'function') Module['autoparReady']();
  });
}

namespace {
bool g_redraw_requested = false;   // set by exported functions that change the state
bool g_progress_frame_requested = false;   // set by a worker's progress reply

// A string property of a JS object left in Module by the caller, copied into C++ memory.
std::string take_module_string(const char* name) {
  // Two calls: the length, then the UTF-8 bytes into a buffer we own (no malloc from JS).
  const int length = EM_ASM_INT({
    var v = Module[UTF8ToString($0)];
    return typeof v === 'string' ? lengthBytesUTF8(v) : 0;
  }, name);
  std::string out(size_t(length) + 1, '\0');
  EM_ASM({
    var key = UTF8ToString($0);
    if (typeof Module[key] === 'string') stringToUTF8(Module[key], $1, $2);
    delete Module[key];
  }, name, out.data(), length + 1);
  out.resize(size_t(length));
  return out;
}

// setState's and importModel's reply: {ok} or {ok:false, error} (the caller keeps the string).
std::string status_reply(const autopar::Status& s) {
  autopar::Json j;
  j["ok"] = s.ok();
  if (!s.ok()) j["error"] = autopar::error_to_json(s.error());
  return j.dump();
}

// The reply of a call made before the app has started (there is no state to act on yet).
const char* not_started_reply() {
  static const std::string out = status_reply(autopar::make_error(autopar::ErrorCode::not_ready, "the app has not started yet"));
  return out.c_str();
}
}  // namespace

InitialState js_hook_initial_state() {
  EM_ASM({
    var s = typeof Module['autoparInitialState'] === 'function' ? Module['autoparInitialState']() : null;
    Module['autoparInitialSource'] = s ? String(s.source) : '';
    Module['autoparInitialFragment'] = s ? String(s.fragment) : '';
  });
  InitialState out;
  out.source = take_module_string("autoparInitialSource");
  out.fragment = take_module_string("autoparInitialFragment");
  return out;
}

void js_hook_publish_state(const std::string& fragment) {
  EM_ASM({
    if (typeof Module['autoparPublishState'] === 'function') Module['autoparPublishState'](UTF8ToString($0));
  }, fragment.c_str());
}

void js_hook_copy_link() {
  EM_ASM({
    if (typeof Module['autoparCopyLink'] === 'function') Module['autoparCopyLink']();
  });
}

void js_hook_pick_model_file() {
  EM_ASM({
    if (typeof Module['autoparPickModelFile'] === 'function') Module['autoparPickModelFile']();
  });
}

namespace {
std::string g_published;                   // the fragment last put into the address bar and localStorage
std::optional<Settings> g_published_for;   // the settings it was made from (encoding an imported model is not free)
}  // namespace

void js_hook_publish_if_changed(const AppState& state) {
  if (g_published_for && state.settings == *g_published_for) return;
  g_published_for = state.settings;
  if (std::string fragment = share_fragment(state.settings); fragment != g_published) {
    js_hook_publish_state(fragment);
    g_published = std::move(fragment);
  }
}

void js_hook_hold_publication(const AppState& state) {
  g_published_for = state.settings;
  g_published = share_fragment(state.settings);
}

int js_hook_input_serial() {
  return EM_ASM_INT({ return typeof Module['autoparInputSerial'] === 'function' ? Module['autoparInputSerial']() | 0 : 0; });
}

bool js_hook_take_redraw_request() {
  const bool requested = g_redraw_requested;
  g_redraw_requested = false;
  return requested;
}

bool js_hook_take_progress_frame_request() {
  const bool requested = g_progress_frame_requested;
  g_progress_frame_requested = false;
  return requested;
}

}  // namespace autopar::web

using autopar::web::g_redraw_requested;
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
  if (!g_state) return autopar::web::not_started_reply();
  g_redraw_requested = true;
  autopar::Status s = autopar::web::apply_settings_json(*g_state, json_text ? json_text : "");
  autopar::web::js_hook_publish_if_changed(*g_state);
  out = autopar::web::status_reply(s);
  return out.c_str();
}

// The numbers the page shows, as a JSON object (window.autopar.result); the intra-op plan of
// new inputs is asked of the workers and reads pending (intra_planning) until it arrives.
EMSCRIPTEN_KEEPALIVE const char* autopar_result() {
  static std::string out;
  if (g_state) {
    autopar::web::ensure_flexflow(*g_state);
    autopar::web::refresh_intra_plan(*g_state);
    autopar::web::refresh_inter_plan(*g_state);
    autopar::web::refresh_plan_memory(*g_state);
    autopar::web::refresh_exercise_data(*g_state);
    autopar::web::refresh_schedules(*g_state);
  }
  if (!g_state) {
    out = "null";
    return out.c_str();
  }
  autopar::Json j = autopar::web::result_to_json(*g_state);
  j["cjk_font"] = autopar::web::cjk_font_status_name();   // not_needed, loading, loaded, failed
  j["font_glyphs"] = autopar::web::font_glyph_count();     // glyphs in the UI font's atlas
  j["missing_glyphs"] = autopar::web::missing_glyph_count();   // string-table characters drawn as '?'
  out = j.dump();
  return out.c_str();
}

// The CJK font's bytes fetched by the page (malloc'd by it; taken over and freed here), or
// size 0 when the fetch failed. The atlas is rebuilt before the next frame.
EMSCRIPTEN_KEEPALIVE void autopar_cjk_font_loaded(unsigned char* data, int size) {
  std::vector<unsigned char> bytes;
  if (data && size > 0) bytes.assign(data, data + size);
  std::free(data);
  autopar::web::set_cjk_font(std::move(bytes));
  g_redraw_requested = true;
}

// "Show it" of the shown scenario (window.autopar.showScenario): its tab in front, its
// computation started; {"ok":true,"panel":...} or {"ok":false,...} when no scenario is shown.
EMSCRIPTEN_KEEPALIVE const char* autopar_show_scenario() {
  static std::string out;
  if (!g_state || !autopar::web::find_scenario(g_state->settings.scenario)) {
    out = autopar::web::status_reply(
        autopar::make_error(autopar::ErrorCode::not_ready, "no scenario is shown; setState({scenario: NAME}) first", "scenario"));
    return out.c_str();
  }
  g_redraw_requested = true;
  autopar::web::show_scenario_demo(*g_state);
  autopar::web::js_hook_publish_if_changed(*g_state);
  out = autopar::Json{{"ok", true}, {"panel", g_state->settings.panel}}.dump();
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
  if (g_state) autopar::web::ensure_flexflow(*g_state);
  out = g_state ? autopar::web::flexflow_trace_text(g_state->flexflow) : "";
  return out.c_str();
}

// Starts planning the pipeline (Alpa's inter-op pass) for the current state, as the Plan
// button does (window.autopar.planInter() then waits on autopar_inter_status); {"ok":true}.
EMSCRIPTEN_KEEPALIVE const char* autopar_plan_inter() {
  if (!g_state) return autopar::web::not_started_reply();
  // Drawn as a worker's progress is (web/main.cpp): a plan that ends within 150 ms
  // shows up done, without a frame meanwhile taking the cores it plans on.
  autopar::web::g_progress_frame_requested = true;
  autopar::web::start_inter_plan(g_state->alpa.inter, autopar::web::alpa_inputs(*g_state), g_state->graph, g_state->cluster);
  return R"({"ok":true})";
}

// Whether the pipeline planning still runs, taking the worker's result first when it arrived:
// {"planning":bool,"progress":fraction}.
EMSCRIPTEN_KEEPALIVE const char* autopar_inter_status() {
  static std::string out;
  if (!g_state) return R"({"planning":false,"progress":0})";
  auto& view = g_state->alpa.inter;
  // A negative "frame" of its own each call, so that no call is skipped as already advanced
  // (planInter checks right after each worker reply, often twice between two frames).
  static int64_t calls = 0;
  if (view.job)
    autopar::web::advance_inter_plan(view, autopar::web::alpa_inputs(*g_state), g_state->graph, g_state->cluster, 0, -2 - calls++);
  out = autopar::Json{{"planning", autopar::web::inter_planning(view)}, {"progress", autopar::web::inter_plan_progress(view)}}.dump();
  return out.c_str();
}

// Which long jobs still run, taking the worker's replies first (as a frame would):
// {"search","compare","accuracy","inter","intra"}: true while running (a paused search is not;
// intra: the worker computes the intra-op plan of the current inputs, which result() shows as
// pending until then: the page never solves it itself).
// window.autopar's runSearch(), compare() and studyAccuracy() wait on it.
EMSCRIPTEN_KEEPALIVE const char* autopar_jobs_status() {
  static std::string out;
  if (!g_state) return R"({"search":false,"compare":false,"accuracy":false,"inter":false,"intra":false})";
  autopar::web::AppState& s = *g_state;
  if (s.search.request && autopar::web::search_update(s.search, s.graph, s.cluster)) s.settings.search.running = false;
  autopar::web::compare_advance(s.compare, 0);
  if (s.compare.alpa_waiting) {   // Alpa's half waits for the page's pipeline plan: take it if it came
    if (s.alpa.inter.job)
      autopar::web::take_inter_plan(s.alpa.inter, autopar::web::alpa_inputs(s), s.graph, s.cluster);
    autopar::web::compare_take_inter_plan(s.compare, s.alpa.inter);
  }
  if (s.accuracy.request) autopar::web::accuracy_advance(s.accuracy, 0);
  if (autopar::web::intra_planning(s.alpa.intra))
    autopar::web::take_intra_plan(s.alpa.intra, autopar::web::alpa_inputs(s), s.graph, s.cluster);
  out = autopar::Json{{"search", s.search.request != 0 && !s.search.paused},
                      {"compare", autopar::web::compare_running(s.compare) || s.compare.compute_pending},
                      {"accuracy", s.accuracy.request != 0},
                      {"inter", autopar::web::inter_planning(s.alpa.inter)},
                      {"intra", autopar::web::intra_planning(s.alpa.intra)}}.dump();
  return out.c_str();
}

// Starts the comparison of the current model and cluster as the Compare tab's Run does; {"ok":true}.
EMSCRIPTEN_KEEPALIVE const char* autopar_compare() {
  if (!g_state) return autopar::web::not_started_reply();
  g_redraw_requested = true;
  autopar::web::start_page_compare(*g_state);
  return R"({"ok":true})";
}

// Starts the accuracy study for the current settings unless it runs or is complete; {"ok":true}.
EMSCRIPTEN_KEEPALIVE const char* autopar_study_accuracy() {
  if (!g_state) return autopar::web::not_started_reply();
  g_redraw_requested = true;
  autopar::web::ensure_accuracy_started(*g_state);
  return R"({"ok":true})";
}

// A reply of the page's worker pool: its envelope (job id, kind) beside its body text
// (worker_session.h).
EMSCRIPTEN_KEEPALIVE void autopar_worker_reply(double id, const char* kind, const char* body) {
  if (!g_state) return;
  // A result or an error wakes the page as an input does; progress asks for one frame (the main
  // loop spaces them out, so that drawing does not take the cores the workers plan on).
  if (g_state->alpa.inter.worker->receive(int64_t(id), kind ? kind : "", body ? body : "")) g_redraw_requested = true;
  else autopar::web::g_progress_frame_requested = true;
}

// Exports started by window.autopar.exportPlan, by their id, until their outcome is taken.
static std::map<int64_t, autopar::web::ExportJob> g_exports;
static int64_t g_next_export = 1;

// The reply of an export that ended: {"ok":true,"text":...} or {"ok":false,"error":{...}}.
static autopar::Json export_outcome_json(const autopar::Result<std::string>& text) {
  autopar::Json j{{"ok", text.ok()}};
  if (text.ok()) j["text"] = text.value();
  else j["error"] = autopar::error_to_json(text.error());
  return j;
}

// Starts one Export menu format (window.autopar.exportPlan; the engine formats are planned by a
// worker): {"ok":true,"id":N} to wait on with autopar_export_status, or its outcome at once
// (perfetto, strategy, an unknown format).
EMSCRIPTEN_KEEPALIVE const char* autopar_export_plan(const char* format) {
  static std::string out;
  if (!g_state) return autopar::web::not_started_reply();
  autopar::web::ExportJob job = autopar::web::start_export(*g_state, format ? format : "");
  if (job.outcome) {
    out = export_outcome_json(*job.outcome).dump();
    return out.c_str();
  }
  const int64_t id = g_next_export++;
  g_exports[id] = std::move(job);
  out = autopar::Json{{"ok", true}, {"id", id}}.dump();
  return out.c_str();
}

// Export `id_text`'s state: {"pending":true} while the worker plans it, else its outcome (as
// autopar_export_plan's) with "pending":false, once (the export is then forgotten).
EMSCRIPTEN_KEEPALIVE const char* autopar_export_status(const char* id_text) {
  static std::string out;
  auto it = g_state && id_text ? g_exports.find(std::atoll(id_text)) : g_exports.end();
  if (it == g_exports.end()) {
    static const std::string unknown = autopar::Json{{"pending", false}, {"ok", false},
        {"error", autopar::error_to_json(autopar::make_error(autopar::ErrorCode::bad_value, "no such export", "id"))}}.dump();
    return unknown.c_str();
  }
  if (!autopar::web::take_export(*g_state, it->second)) return R"({"pending":true})";
  autopar::Json j = export_outcome_json(*it->second.outcome);
  j["pending"] = false;
  g_exports.erase(it);
  out = j.dump();
  return out.c_str();
}

// The fragment of the share link of the current state (window.autopar.shareLink).
EMSCRIPTEN_KEEPALIVE const char* autopar_share_fragment() {
  static std::string out;
  out = g_state ? autopar::web::share_fragment(g_state->settings) : "";
  return out.c_str();
}

// Imports a model file's JSON text named `file_name` (drop, file picker, window.autopar.importModel):
// {"ok":true} or {"ok":false,"error":{...}}; the notice tells the user either way.
EMSCRIPTEN_KEEPALIVE const char* autopar_import_model(const char* file_name, const char* text) {
  static std::string out;
  if (!g_state) return autopar::web::not_started_reply();
  g_redraw_requested = true;
  autopar::Status s = autopar::web::import_model_file(*g_state, file_name ? file_name : "", text ? text : "");
  autopar::web::js_hook_publish_if_changed(*g_state);
  out = autopar::web::status_reply(s);
  return out.c_str();
}

// Opens a share-link fragment typed into the address bar (the page's hashchange listener).
EMSCRIPTEN_KEEPALIVE void autopar_open_fragment(const char* fragment) {
  if (!g_state) return;
  g_redraw_requested = true;
  autopar::web::apply_share_fragment(*g_state, fragment ? fragment : "", "the link");
  autopar::web::js_hook_publish_if_changed(*g_state);
}

// Shows a notice from the page's side ("info" or "error"), e.g. the clipboard's answer.
EMSCRIPTEN_KEEPALIVE void autopar_notify(const char* level, const char* text) {
  if (!g_state) return;
  g_redraw_requested = true;
  const std::string message = text ? text : "";
  if (level && std::string(level) == "error")
    autopar::web::notify_error(*g_state, autopar::make_error(autopar::ErrorCode::browser, message, ""));
  else
    autopar::web::notify_info(*g_state, message);
}

// A notice index.html raises, by its key in the string tables (so it reads in the page's
// language) with {0}, {1}, ... from `args_json`, a JSON array of strings.
EMSCRIPTEN_KEEPALIVE void autopar_notify_key(const char* level, const char* key, const char* args_json) {
  std::vector<std::string> args;
  const nlohmann::json j = nlohmann::json::parse(args_json ? args_json : "[]", nullptr, false);
  if (j.is_array())
    for (const auto& a : j) args.push_back(a.is_string() ? a.get<std::string>() : a.dump());
  autopar_notify(level, autopar::web::tr_fill(key ? key : "", args).c_str());
}

}  // extern "C"
