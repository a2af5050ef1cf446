// Each entry of the panel table (state/panel_table.h, ImGui-free) with what draws it: its draw
// function and its rectangle in the window layout. draw_app_frame draws the tab in front from it.
#pragma once
#include <string>
#include <vector>

#include "panel_table.h"
#include "panels.h"

namespace autopar::web {

// Draws one panel's window at a rectangle of the layout.
using PanelDrawFn = void (*)(AppState& state, const PanelRect& rect);

// The drawing side of one panel-table entry.
struct PanelDraw {
  const char* panel;             // PanelEntry::panel of the entry it draws
  PanelDrawFn draw;
  PanelRect AppLayout::*rect;    // where in the layout its window goes
};

// One row per panel-table entry, in panel_table() order (a test checks the names match).
const std::vector<PanelDraw>& panel_draws();

// Draws the panels of tab `tab` (panel_table numbering), in table order, at their rectangles.
void draw_tab_panels(AppState& state, int tab, const AppLayout& layout);

}  // namespace autopar::web
