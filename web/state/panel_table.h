// The page's panels and the tabs that hold them, as one table: the panel names `settings.panel`
// accepts, the tab each lives in, the tab strip's titles, the View menu and the panel a tab
// brings to the front all come from it. No ImGui in here.
#pragma once
#include <string>
#include <vector>

namespace autopar::web {

// One panel: its name (getState().panel), its tab (0-based, in strip order), the key of that
// tab's title and the key of the panel's window title (page_strings.h). Its draw function and
// rectangle: panels/panel_registry.h.
struct PanelEntry {
  const char* panel;
  int tab;
  const char* tab_title;
  const char* window_title;
};

// Every panel in menu order; the panels of a tab are adjacent, the first is the one the tab
// brings to the front.
const std::vector<PanelEntry>& panel_table();

// The panel names `settings.panel` accepts, in menu order.
const std::vector<std::string>& panel_names();
// The tab a panel lives in (0 for an unknown name: Model & Cluster).
int panel_tab(const std::string& panel);
// Number of tabs.
int tab_count();
// A tab's title in the page's language ("Strategy & Timeline"); the first tab's for a number out of range.
const char* tab_title(int tab);
// The panel a tab brings to the front ("strategy").
const char* tab_first_panel(int tab);

}  // namespace autopar::web
