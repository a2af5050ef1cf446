// The Lecture tab's charts (issue 40): for each scenario whose CLI output is a table or a series
// (the beta sweep, the accuracy study, the simulator's speed, an MCMC trace, the published runs,
// the strategies' times against the lecture's ...), the chart that shows it, computed from the
// scenario's results without ImGui: the panel only paints what this returns, and the unit tests
// check the numbers plotted are the results'.
#pragma once
#include <string>
#include <vector>

#include "json_io.h"

namespace autopar::web {

// One series of a chart: its points and how they are drawn.
struct ChartSeries {
  enum class Style { line, points, line_points, bars };
  std::string label;                 // the legend's text, in the page's language
  std::vector<double> x, y;          // bars: x is the category's index; NaN y: no bar or point there
  Style style = Style::line_points;
  int color = 0;                     // index into the panel's palette
};

// One box of a Gantt chart (the task graph): a task on its lane.
struct ChartBox {
  int lane = 0;
  double start = 0, end = 0;
  int color = 0;
  std::string label;                 // shown when hovered
};

// A chart: axes, series (or boxes) and, for bars, the categories under the x axis.
struct ScenarioChart {
  std::string id;                    // stable ("beta_sweep", "accuracy_alexnet", ...), the ImGui id and the tests' key
  std::string title, x_title, y_title;
  bool log_x = false, log_y = false;
  std::vector<std::string> categories;   // a bar chart's groups (x = 0 .. n-1); empty: a numeric x axis
  std::vector<std::string> lanes;        // a Gantt chart's lanes (boxes below); empty otherwise
  std::vector<ChartSeries> series;
  std::vector<ChartBox> boxes;
  // Points plotted (every finite y over every series, and the boxes): what result() reports.
  int points() const;
};

// The charts of scenario `name` for its `results` (what `autopar scenario NAME --json` prints),
// texts in the page's language; empty when the scenario prints no table or series (or the
// results lack them).
std::vector<ScenarioChart> scenario_charts(const std::string& name, const Json& results);

}  // namespace autopar::web
