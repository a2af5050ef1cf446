// The panel table's draw functions. See panel_registry.h.
#include "panel_registry.h"

#include "panel_schedules.h"

namespace autopar::web {

const std::vector<PanelDraw>& panel_draws() {
  static const std::vector<PanelDraw> draws = {
      {"model", draw_model_panel, &AppLayout::model},
      {"cluster", draw_cluster_panel, &AppLayout::cluster},
      {"strategy", draw_strategy_panel, &AppLayout::strategy},
      {"timeline", draw_timeline_panel, &AppLayout::timeline},
      {"search", draw_search_panel, &AppLayout::search},
      {"accuracy", draw_accuracy_panel, &AppLayout::accuracy},
      {"lecture", draw_lecture_panel, &AppLayout::lecture},
      {"exercises", draw_exercises_panel, &AppLayout::exercises},
      {"compare", draw_compare_panel, &AppLayout::compare},
      {"intra", draw_intra_panel, &AppLayout::intra},
      {"inter", draw_inter_panel, &AppLayout::inter},
      {"schedules", draw_schedules_panel, &AppLayout::schedules},
  };
  return draws;
}

void draw_tab_panels(AppState& state, int tab, const AppLayout& layout) {
  const std::vector<PanelEntry>& table = panel_table();
  const std::vector<PanelDraw>& draws = panel_draws();
  for (size_t i = 0; i < table.size() && i < draws.size(); ++i)
    if (table[i].tab == tab) draws[i].draw(state, layout.*draws[i].rect);
}

}  // namespace autopar::web
