// The playground's UI: each panel is a free function that draws one window from the app state
// and edits it through apply_settings (never by poking the loaded graph or cluster directly).
// draw_app_frame lays them out: menu bar on top, a tab strip under it (Model & Cluster |
// Strategy & Timeline | Search | Accuracy | Lecture | Exercises | Compare), the windows of the tab in front, and the notice bar
// at the bottom, all fixed windows sized to the viewport.
#pragma once
#include "app_state.h"
#include "imgui.h"
#include "timeline_layout.h"

namespace autopar::web {

// Where one fixed window goes, in framebuffer pixels.
struct PanelRect {
  ImVec2 pos;
  ImVec2 size;
};

// The window layout for a display of `display` pixels: menu bar of `menu_height`, tab strip of
// `tabs_height`, notice bar of `notice_height`; per tab its windows side by side (stacked when
// the display is narrow).
struct AppLayout {
  PanelRect tabs;
  PanelRect model, cluster;        // tab "Model & Cluster"
  PanelRect strategy, timeline;    // tab "Strategy & Timeline"
  PanelRect search;                // tab "Search"
  PanelRect accuracy;              // tab "Accuracy"
  PanelRect lecture, exercises, compare;  // tabs "Lecture", "Exercises", "Compare" (full width)
  PanelRect intra, inter;          // tabs "Alpa intra-op", "Alpa inter-op" (full width)
  PanelRect schedules;             // tab "Schedules" (full width)
  PanelRect notice;
};

// Computes the layout; `ui_scale` is the UI scale (device pixel ratio) used for minimum widths.
AppLayout compute_layout(ImVec2 display, float menu_height, float tabs_height, float notice_height, float ui_scale);
// The layout of this frame under the main menu bar of height `menu_height`: the tab strip's and
// the notice bar's heights follow the style (draw_app_frame and the panels test use it).
AppLayout frame_layout(float menu_height, float ui_scale);

// The tab strip: shows the tab of settings.panel and switches settings.panel when clicked.
void draw_tab_strip(AppState& state, const PanelRect& rect);

// The FlexFlow Strategy panel: named strategies, the per-op configuration editor, the cost
// breakdown and memory per GPU against capacity.
void draw_strategy_panel(AppState& state, const PanelRect& rect);

// The Timeline panel: a Gantt chart of the simulated iteration, one lane per GPU and per used
// link; wheel zoom around the cursor, drag to pan, fit, hover tooltips, folded narrow spans.
void draw_timeline_panel(AppState& state, const PanelRect& rect);

// A box the Timeline panel drew: the layout's box and its rectangle on screen.
struct DrawnTimelineBox {
  TimelineBox box;
  ImVec2 min, max;
};
// The boxes the Timeline panel drew in the latest frame it was shown (where a test hovers).
const std::vector<DrawnTimelineBox>& timeline_drawn_boxes();

// The Search panel: MCMC settings, Run / Pause / Step / Reset, live cost plot and statistics.
void draw_search_panel(AppState& state, const PanelRect& rect);

// The Simulator accuracy panel: simulated vs "real" time for N random strategies.
void draw_accuracy_panel(AppState& state, const PanelRect& rect);

// Draws the whole UI for one frame (between ImGui::NewFrame and ImGui::Render).
void draw_app_frame(AppState& state, float ui_scale);

// The main menu bar (Examples, View, Help) with a one-line summary on its right; returns its height.
float draw_menu_bar(AppState& state);

// The memory section of the Cluster panel (panel_memory.cpp): one GPU's training memory as a
// stacked bar against capacity, with ZeRO stage, data-parallel degree and recomputation controls.
void draw_memory_section(AppState& state);

// The page's pipeline plan (getState().plan) as knobs: tp, pp, dp, cp, ep over the divisors of
// the GPU count (tp, pp and cp move dp so that their product stays the GPU count), v, mbs, SP,
// recomputation, ZeRO stage, reshard-after-forward and the optimizer; `id` keeps two copies apart.
void draw_plan_knobs(AppState& state, const char* id);
// The plan's memory per GPU per pipeline stage (panel_plan_memory.cpp): `autopar memory --plan`'s
// numbers as one stacked bar per stage against capacity, and which stage is short by how much.
void draw_plan_memory_section(AppState& state);

// The Model panel: built-in model picker, parameters and the op table.
void draw_model_panel(AppState& state, const PanelRect& rect);

// The Cluster panel: preset, shape, mesh, GPU and link numbers, and a drawing of the devices.
void draw_cluster_panel(AppState& state, const PanelRect& rect);

// The Cluster drawing as the browser tests see it: whether it was drawn in the latest frame, the
// groups' source ("mesh": the intra-op mesh as one stage; "plan": the inter-op plan's stages),
// every visible device box (framebuffer pixels times `css_per_pixel`) and the hovered device
// with its groups (null when none), as JSON.
std::string cluster_drawing_json(float css_per_pixel);

// The notice bar: the last notice, red for errors.
void draw_notice_bar(AppState& state, const PanelRect& rect);

// Window titles as keys of the string tables (page_strings.h); begin_panel names a window
// "title###key", so its ImGui id stays the same in both languages.
inline constexpr const char* kModelWindow = "window.model";
inline constexpr const char* kClusterWindow = "window.cluster";
inline constexpr const char* kStrategyWindow = "window.strategy";
inline constexpr const char* kTimelineWindow = "window.timeline";
inline constexpr const char* kSearchWindow = "window.search";
inline constexpr const char* kAccuracyWindow = "window.accuracy";
inline constexpr const char* kLectureWindow = "window.lecture";
inline constexpr const char* kExercisesWindow = "window.exercises";
inline constexpr const char* kCompareWindow = "window.compare";

// The Lecture menu of the menu bar: the scenarios by section, the exercises and the comparison.
void draw_lecture_menu(AppState& state);

// Sets the page up for scenario `name` and shows it in the Lecture tab (errors become the notice).
void open_scenario(AppState& state, const std::string& name);

// The Lecture panel: the scenarios by section; the chosen one's explanation, set-up and numbers.
void draw_lecture_panel(AppState& state, const PanelRect& rect);

// The Exercises panel: lecture section 11's exercises, each with inputs, an answer box and a check.
void draw_exercises_panel(AppState& state, const PanelRect& rect);

// The Compare panel: FlexFlow's and Alpa's plans simulated by the same simulator, side by side.
void draw_compare_panel(AppState& state, const PanelRect& rect);

inline constexpr const char* kIntraWindow = "window.intra";
inline constexpr const char* kInterWindow = "window.inter";

// The Alpa intra-op panel: mesh and per-axis costs, solver and time, per op the chosen algorithm
// with its sharding specs drawn on the mesh and its cost, totals, and a resharding table.
void draw_intra_panel(AppState& state, const PanelRect& rect);

// The Alpa inter-op panel: micro-batches, Plan (on demand), the stages on the cluster, stage
// latencies, and the GPipe and 1F1B schedules as Gantt charts with their bubble fractions.
void draw_inter_panel(AppState& state, const PanelRect& rect);

// A sharding spec drawn as its label (e.g. "S0R") beside a rows x cols device grid (colour =
// shard held); `dims` holds the mesh axes of each tensor dimension (ShardingSpec::dims).
void draw_spec_grid(const std::string& label, const std::vector<uint8_t>& dims, int rows, int cols, float cell);

// The Export menu of the menu bar (trace, strategy, engine plans); opens the export window.
void draw_export_menu(AppState& state);

// The export window: the exported text, read-only and copyable, with Download and Copy.
void draw_export_window(AppState& state);

// Applies `next` and, on success, shows `done` as an info notice (errors become the notice).
void apply_from_ui(AppState& state, const Settings& next, const std::string& done);

}  // namespace autopar::web
