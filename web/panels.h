// The playground's UI: each panel is a free function that draws one window from the app state
// and edits it through apply_settings (never by poking the loaded graph or cluster directly).
// draw_app_frame lays them out: menu bar on top, Model panel on the left, Cluster panel on the
// right, notice bar at the bottom, all fixed windows sized to the viewport.
#pragma once
#include "app_state.h"
#include "imgui.h"

namespace autopar::web {

// Where one fixed window goes, in framebuffer pixels.
struct PanelRect {
  ImVec2 pos;
  ImVec2 size;
};

// The window layout for a display of `display` pixels: menu bar of `menu_height`, notice bar
// of `notice_height`, Model left and Cluster right (stacked when the display is narrow).
struct AppLayout {
  PanelRect model;
  PanelRect cluster;
  PanelRect notice;
};

// Computes the layout; `ui_scale` is the UI scale (device pixel ratio) used for minimum widths.
AppLayout compute_layout(ImVec2 display, float menu_height, float notice_height, float ui_scale);

// Draws the whole UI for one frame (between ImGui::NewFrame and ImGui::Render).
void draw_app_frame(AppState& state, float ui_scale);

// The main menu bar (Examples, View, Help) with a one-line summary on its right; returns its height.
float draw_menu_bar(AppState& state);

// The Model panel: built-in model picker, parameters and the op table.
void draw_model_panel(AppState& state, const PanelRect& rect);

// The Cluster panel: preset, shape, mesh, GPU and link numbers, and a drawing of the devices.
void draw_cluster_panel(AppState& state, const PanelRect& rect);

// The notice bar: the last notice, red for errors.
void draw_notice_bar(AppState& state, const PanelRect& rect);

// Window titles, also the ImGui IDs used to bring a panel to the front.
inline constexpr const char* kModelWindow = "Model";
inline constexpr const char* kClusterWindow = "Cluster";

// Applies `next` and, on success, shows `done` as an info notice (errors become the notice).
void apply_from_ui(AppState& state, const Settings& next, const std::string& done);

}  // namespace autopar::web
