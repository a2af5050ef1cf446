// The panels and tabs table. See panel_table.h.
#include "panel_table.h"

#include "page_strings.h"

namespace autopar::web {

const std::vector<PanelEntry>& panel_table() {
  static const std::vector<PanelEntry> table = {
      {"model", 0, "tab.model", "window.model"},
      {"cluster", 0, "tab.model", "window.cluster"},
      {"strategy", 1, "tab.strategy", "window.strategy"},
      {"timeline", 1, "tab.strategy", "window.timeline"},
      {"search", 2, "tab.search", "window.search"},
      {"accuracy", 3, "tab.accuracy", "window.accuracy"},
      {"lecture", 4, "tab.lecture", "window.lecture"},
      {"exercises", 5, "tab.exercises", "window.exercises"},
      {"compare", 6, "tab.compare", "window.compare"},
      {"intra", 7, "tab.intra", "window.intra"},
      {"inter", 8, "tab.inter", "window.inter"},
      {"schedules", 9, "tab.schedules", "window.schedules"},
  };
  return table;
}

const std::vector<std::string>& panel_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const PanelEntry& e : panel_table()) n.push_back(e.panel);
    return n;
  }();
  return names;
}

int panel_tab(const std::string& panel) {
  for (const PanelEntry& e : panel_table())
    if (panel == e.panel) return e.tab;
  return 0;
}

int tab_count() { return panel_table().back().tab + 1; }

namespace {
const PanelEntry& first_of_tab(int tab) {
  for (const PanelEntry& e : panel_table())
    if (e.tab == tab) return e;
  return panel_table().front();
}
}  // namespace

const char* tab_title(int tab) { return tr(first_of_tab(tab).tab_title); }

const char* tab_first_panel(int tab) { return first_of_tab(tab).panel; }

}  // namespace autopar::web
