// The panels and tabs table. See panel_table.h.
#include "panel_table.h"

namespace autopar::web {

const std::vector<PanelEntry>& panel_table() {
  static const std::vector<PanelEntry> table = {
      {"model", 0, "Model & Cluster"}, {"cluster", 0, "Model & Cluster"},
      {"strategy", 1, "Strategy & Timeline"}, {"timeline", 1, "Strategy & Timeline"},
      {"search", 2, "Search"},
      {"accuracy", 3, "Accuracy"},
      {"lecture", 4, "Lecture"},
      {"exercises", 5, "Exercises"},
      {"compare", 6, "Compare"},
      {"intra", 7, "Alpa intra-op"},
      {"inter", 8, "Alpa inter-op"},
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

const char* tab_title(int tab) { return first_of_tab(tab).tab_title; }

const char* tab_first_panel(int tab) { return first_of_tab(tab).panel; }

}  // namespace autopar::web
