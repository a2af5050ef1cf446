// The playground's state: the settings a user picks (the `window.autopar` getState/setState
// object of INTERFACES.md), what they load through the core (graph, cluster), and the notice
// shown to the user. Applying settings validates them through the core and is atomic: on any
// error the previous state is kept and the error becomes the notice. No ImGui in here. The
// functions over it live by what they hold: settings_json.h, background_work.h, page_result.h.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster.h"
#include "flexflow_operations.h"
#include "graph.h"
#include "json_io.h"
#include "models.h"
#include "result.h"
#include "accuracy_job.h"
#include "flexflow_view.h"
#include "inter_operation.h"
#include "schedules_view.h"
#include "search_job.h"
#include "step_inspector.h"
#include "exercises.h"
#include "lecture_state.h"
#include "alpa_view.h"
#include "panel_table.h"
#include "plan_knobs.h"
#include "plan_settings.h"
#include "plan_export.h"
#include "plan_memory_view.h"
#include "strategy.h"

namespace autopar::web {

// The FlexFlow MCMC search as the user controls it (getState().search): whether it runs (the
// page's own), and the search request's fields the link keeps under "search" (beta and seed are
// Settings' own, shared with other panels). Defaults and bounds are the request's
// (search_request_of, operation_requests.h validate).
struct SearchSettings {
  bool running = false;          // true: the search advances a little every frame
  int64_t steps = SearchRequest{}.steps;
  double budget_ms = SearchRequest{}.budget_ms;   // 0 = none
  std::string init = SearchRequest{}.init;
  bool operator==(const SearchSettings& o) const {
    return running == o.running && steps == o.steps && budget_ms == o.budget_ms && init == o.init;
  }
};

// Largest proposal budget a search accepts (the request's bound).
constexpr int64_t kMaxSearchSteps = kSearchStepsBound.hi;

// The simulator-accuracy study as the user sets it up (getState().accuracy).
struct AccuracySettings {
  int samples = 100;             // random strategies (2 .. kMaxAccuracySamples)
  bool operator==(const AccuracySettings& o) const { return samples == o.samples; }
};

// Everything the user chooses; serialised by settings_to_json, read by settings_from_json.
struct Settings {
  std::string model = "alexnet";             // "NAME[:key=value,...]", as on the CLI; the file name when model_json is set
  std::string model_json;                    // an imported model file's JSON text; empty = the built-in `model`
  std::string cluster = "lecture:2x4";       // "PRESET:NxG", as on the CLI
  std::optional<Cluster> custom_cluster;     // set when the user edited numbers: overrides `cluster`
  std::string mesh = "2x4";                  // "RxC": logical device mesh of the Alpa half
  std::string strategy = "dp";               // dp, mp, expert or random:SEED, plus ";OP=DEG@DEV" edits (strategy_text.h)
  double beta = SearchRequest{}.beta;        // MCMC acceptance sharpness
  int64_t seed = 1;                          // seeds the search and the accuracy study
  int64_t microbatches = InterRequest{}.microbatches;
  bool ignore_boundaries = false;            // inter-op plan as the Alpa paper's DP: stage boundaries free (`inter --ignore-boundaries`)
  std::string space = InterRequest{}.space;  // the inter-op pass's space (`inter --space`): "alpa" (2021: t, p, d) or "today" (knob_search.h)
  std::string precision;                     // "fp32", "tf32" or "mixed" as --precision (the model's float width, the GPU peak in use); empty: as loaded
  int zero = 0;                              // ZeRO stage of the FlexFlow strategy's ops and of the memory section
  bool remat = false;                        // recomputation, likewise
  PlanSettings plan;                         // the pipeline plan priced per stage (memory view, inter-op tab's given plan)
  SearchSettings search;
  AccuracySettings accuracy;
  ScheduleSettings schedules;                // the Schedules tab's inputs and cursor (schedules_view.h)
  std::string panel = "model";               // the panel in front
  std::string scenario;                      // the lecture scenario shown in the Lecture tab; empty = none
  std::string lang = "en";                   // the page's language: "en" or "zh" (page_strings.h)
  bool operator==(const Settings& o) const {
    return model == o.model && model_json == o.model_json && cluster == o.cluster && custom_cluster == o.custom_cluster &&
           mesh == o.mesh && strategy == o.strategy && beta == o.beta && seed == o.seed && microbatches == o.microbatches &&
           ignore_boundaries == o.ignore_boundaries && space == o.space && precision == o.precision && zero == o.zero && remat == o.remat && plan == o.plan &&
           search == o.search && accuracy == o.accuracy && schedules == o.schedules && panel == o.panel && scenario == o.scenario && lang == o.lang;
  }
};

// The visible range of the timeline and whether it follows the whole iteration.
struct TimelineViewState {
  double t0_ms = 0, t1_ms = 1;   // visible range
  bool fit = true;               // true: the range tracks [0, makespan] of every new timeline
  uint64_t revision = 0;         // FlexflowView::revision the range was last fitted to
};

// How loud a notice is.
enum class NoticeLevel { info, error };

// The last message shown to the user (the notice bar; `window.autopar.message()`).
struct Notice {
  NoticeLevel level = NoticeLevel::info;
  std::string text;     // what happened, readable on its own
  std::optional<ErrorCode> code;   // the error's code; none for info
  std::string path;     // JSON path or argument of the culprit; may be empty
};

// Recent frame durations measured by main.cpp: the whole frame() call, and the app's own work
// in it (background slice, UI, ImGui::Render) without the WebGL submission, which under a
// software renderer (SwiftShader) blocks on the GPU process. result().frame_ms reports both.
struct FrameStats {
  std::vector<float> total_ms, work_ms;   // ring buffers of the last kFrameStatsSize frames
  std::vector<int> vertices;              // likewise: vertices the frame submitted to WebGL
  size_t next = 0;                        // where the next sample goes
  int64_t frames = 0;                     // frames measured so far
};
// Where the last frame drew things a script may want to click, in CSS pixels (result().ui).
struct UiProbe {
  std::vector<std::array<float, 4>> tabs;   // per tab (panel_tab order): x, y, width, height
  float scroll_y_sum = 0;                   // sum of every window's vertical scroll (touch-scrolling tests)
  bool welcome_open = false;                // the first-visit welcome is shown
  std::map<std::string, std::array<float, 4>> languages;   // the language switch's items by code ("en", "zh")
  // Input fields and panels by name ("spec", "beta", "nodes", "search_table", ...) where the last
  // frame that showed them drew them: the input tests click next to them and swipe to them.
  std::map<std::string, std::array<float, 4>> places;
  bool keys_held_back = false;              // single keys are typing, not shortcuts (keyboard_shortcuts.h)
  float display_w = 0, display_h = 0;       // the page's size in CSS pixels
};

// Frames FrameStats keeps.
constexpr size_t kFrameStatsSize = 120;

// Records one frame: its whole duration and the app's own work in it, in ms, and the vertices
// it drew.
void record_frame_time(FrameStats& stats, double total_ms, double work_ms, int vertices);

// The whole app state the panels draw and edit. Invariant: `graph` and `cluster` always hold a
// successfully loaded model and cluster that match `settings`.
struct AppState {
  Settings settings;
  Graph graph;
  Cluster cluster;
  Notice notice;
  SpaceSize space;                   // the SOAP strategy space of graph on cluster (space_operation, updated with them)
  FlexflowView flexflow;             // the current strategy, simulated (built after init; after an edit, by ensure_flexflow)
  SearchRun search;                  // the MCMC search, if one was started
  StepInspector inspector;           // the Search tab's replay of the search's step records
  AccuracyJob accuracy;              // the accuracy study, if one was started
  LectureState lecture;              // the Lecture tab's computed scenario
  CompareState compare;              // the Compare tab's FlexFlow-vs-Alpa result
  ExercisesState exercises;          // the Exercises tab's inputs and answers
  AlpaView alpa;                     // the Alpa intra-op and inter-op plans (alpa_view.h)
  SchedulesView schedules;           // the Schedules tab's simulated schedules (schedules_view.h)
  PlanMemoryView plan_memory;        // the plan's memory per pipeline stage (plan_memory_view.h)
  PlanMoves plan_moves;              // the plan's last change, whose way the view computes ahead first
  ExportView export_view;            // the text last exported through the Export menu
  TimelineViewState timeline;
  int64_t random_strategy_seed = 1;  // the Strategy panel's seed for the Random button
  int shown_tab = -1;                // the tab the tab strip showed last frame (panel_tab numbering)
  FrameStats frame_stats;
  UiProbe ui;                        // filled by the frame (app_frame.cpp)
  bool show_welcome = false;         // the first-visit welcome (no link, no saved state)
  bool focus_panel_pending = true;   // bring settings.panel to the front on the next frame
  bool show_about = false;
};

// Loads the default settings into a fresh state; an error here is a bug in the core.
Status init_app_state(AppState& state);

// Validates `next` (model, cluster, mesh, strategy, numbers) through the core and commits it
// with the loaded graph and cluster; on error keeps `state` unchanged except for the notice.
// The FlexFlow view is rebuilt at once only when the panel in front shows it; otherwise the
// rebuild waits for ensure_flexflow.
Status apply_settings(AppState& state, const Settings& next);

// Builds the FlexFlow view (state.flexflow) when an edit left it pending. Everything that reads
// it calls this first: the panels that show it, result(), the exports.
void ensure_flexflow(AppState& state);

// True for the tabs (panel_tab numbering) whose panels show the FlexFlow view: Strategy &
// Timeline, and Exercises (exercise 3 grades moves of the current strategy).
bool tab_shows_flexflow(int tab);

// Imports a model file (file picker or drop): `file_name` labels it, `text` is its JSON. On
// success the model is replaced and the strategy keeps only what fits; on error nothing changes
// and the notice names the problem with its JSON path.
Status import_model_file(AppState& state, const std::string& file_name, const std::string& text);

// Largest model file the page imports (bytes); bigger ones are refused before parsing.
constexpr size_t kMaxModelFileBytes = 2 << 20;

// Shows an info notice.
void notify_info(AppState& state, const std::string& text);
// Shows an error notice built from a core Error.
void notify_error(AppState& state, const Error& error);

// The notice as one line of text: "error: <message> (at <path>)" or the info text.
std::string notice_line(const Notice& notice);

// Loads the model the settings describe: the imported file's JSON, else a built-in spec
// string. Errors name the state field ("model", or "model_json.<path>" inside a file).
Result<Graph> load_model_field(const Settings& settings);
// Loads the cluster the settings describe; errors name the state field "cluster".
Result<Cluster> load_cluster_field(const Settings& settings);
// The search request the settings describe (unchecked: validate it with page_search_path()).
SearchRequest search_request_of(const Settings& settings);
// Checks the settings' numbers and names (beta, seed, micro-batches, ZeRO stage, precision,
// the search request, accuracy samples, language, panel) with the requests' bounds; errors name
// the state's fields.
Status validate_settings_values(const Settings& settings);
// The items joined with `sep` ("a, b, c").
std::string join(const std::vector<std::string>& items, const std::string& sep);

// The shortest spec string for a built-in model: its name plus the non-default values, in
// the model's parameter order ("mlp:layers=6").
std::string builtin_spec_string(const BuiltinModel& model, const ModelParams& values);

// "PRESET:NxG" for a preset name and a shape.
std::string preset_spec_string(const std::string& preset, int nodes, int gpus_per_node);

}  // namespace autopar::web

// What works on the state, by what it holds: the getState/setState JSON, the work done a slice
// per frame, and result().
#include "background_work.h"
#include "page_result.h"
#include "settings_json.h"
