// The playground's state: the settings a user picks (the `window.autopar` getState/setState
// object of INTERFACES.md), what they load through the core (graph, cluster), and the notice
// shown to the user. Applying settings validates them through the core and is atomic: on any
// error the previous state is kept and the error becomes the notice. No ImGui in here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "json_io.h"
#include "models.h"
#include "result.h"

namespace autopar::web {

// Progress of the FlexFlow MCMC search as the user controls it.
struct SearchSettings {
  bool running = false;
  int64_t steps = 0;
};

// Everything the user chooses; serialised by settings_to_json, read by settings_from_json.
struct Settings {
  std::string model = "alexnet";             // "NAME[:key=value,...]", as on the CLI
  std::string cluster = "lecture:2x4";       // "PRESET:NxG", as on the CLI
  std::optional<Cluster> custom_cluster;     // set when the user edited numbers: overrides `cluster`
  std::string mesh = "2x4";                  // "RxC": logical device mesh of the Alpa half
  std::string strategy = "dp";               // dp, mp, expert or random:SEED
  double beta = 500;                         // MCMC acceptance sharpness
  int64_t seed = 1;
  int64_t microbatches = 32;
  SearchSettings search;
  std::string panel = "model";               // the panel in front
};

// How loud a notice is.
enum class NoticeLevel { info, error };

// The last message shown to the user (the notice bar; `window.autopar.message()`).
struct Notice {
  NoticeLevel level = NoticeLevel::info;
  std::string text;     // what happened, readable on its own
  std::string code;     // error code; empty for info
  std::string path;     // JSON path or argument of the culprit; may be empty
};

// The whole app state the panels draw and edit. Invariant: `graph` and `cluster` always hold a
// successfully loaded model and cluster that match `settings`.
struct AppState {
  Settings settings;
  Graph graph;
  Cluster cluster;
  Notice notice;
  bool focus_panel_pending = true;   // bring settings.panel to the front on the next frame
  bool show_about = false;
  bool show_imgui_demo = false;
};

// The panel names `settings.panel` accepts, in menu order.
const std::vector<std::string>& panel_names();

// Loads the default settings into a fresh state; an error here is a bug in the core.
Status init_app_state(AppState& state);

// Validates `next` (model, cluster, mesh, strategy, numbers) through the core and commits it
// with the loaded graph and cluster; on error keeps `state` unchanged except for the notice.
Status apply_settings(AppState& state, const Settings& next);

// Applies a partial settings object given as JSON text (`window.autopar.setState`): unknown
// fields and wrong types are errors naming the field; atomic like apply_settings.
Status apply_settings_json(AppState& state, const std::string& json_text);

// The settings as the getState object (cluster is a spec string, or an object when edited).
Json settings_to_json(const Settings& settings);

// The numbers the page shows (`window.autopar.result()`); planner fields are null until run.
Json result_to_json(const AppState& state);

// Shows an info notice.
void notify_info(AppState& state, const std::string& text);
// Shows an error notice built from a core Error.
void notify_error(AppState& state, const Error& error);

// The notice as one line of text: "error: <message> (at <path>)" or the info text.
std::string notice_line(const Notice& notice);

// A built-in model choice parsed from a spec string: its model and every parameter's value.
struct BuiltinChoice {
  const BuiltinModel* model = nullptr;   // nullptr when the spec names no built-in model
  ModelParams values;                    // every parameter, defaults filled in
};

// Splits "NAME[:key=value,...]" into the built-in model and its values (no range checks:
// use it on specs the core already accepted).
BuiltinChoice parse_builtin_choice(const std::string& spec);

// The shortest spec string for a built-in model: its name plus the non-default values, in
// the model's parameter order ("mlp:layers=6").
std::string builtin_spec_string(const BuiltinModel& model, const ModelParams& values);

// "PRESET:NxG" for a preset name and a shape.
std::string preset_spec_string(const std::string& preset, int nodes, int gpus_per_node);

// Parses "RxC" (both >= 1); nullopt when malformed.
std::optional<std::pair<int, int>> parse_mesh(const std::string& text);

// Every mesh shape "RxC" with R*C == devices, R ascending.
std::vector<std::string> mesh_shapes(int devices);

}  // namespace autopar::web
