// The page's own small plots, drawn with ImDrawList: an axis frame with "nice" ticks (linear or
// logarithmic), grid lines and labels, mapping data to screen; used by the Search panel's cost
// trace and the Accuracy panel's scatter. Tick computation is pure; drawing is ImGui.
#pragma once
#include <string>
#include <vector>

#include "imgui.h"

namespace autopar::web {

// Up to about `max_ticks` round tick values within [lo, hi] (steps of 1, 2 or 5 x 10^k).
std::vector<double> nice_ticks(double lo, double hi, int max_ticks);

// Tick values for a logarithmic axis over [lo, hi] (lo > 0): powers of ten, and 2 and 5 times
// them when the range spans few decades.
std::vector<double> log_ticks(double lo, double hi);

// [lo, hi] widened to round values and never empty (a flat series gets a margin).
void pad_range(double& lo, double& hi, bool log_scale);

// The mapping of one drawn plot: data range and the screen rectangle inside the axes.
struct PlotFrame {
  ImVec2 min, max;                  // plot area, screen pixels
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  bool log_x = false, log_y = false;
  // Screen position of data point (x, y) (not clamped).
  ImVec2 to_screen(double x, double y) const;
  // Data x at screen x.
  double x_at(float screen_x) const;
  // Data y at screen y.
  double y_at(float screen_y) const;
  // True when the screen point lies inside the plot area.
  bool contains(ImVec2 p) const { return p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y; }
};

// Reserves `size` pixels at the cursor (an item with id `id`), draws the background, grid,
// ticks, tick labels (formatted by `x_format`/`y_format`, printf with one double) and axis
// titles; returns the frame to draw data into, with the draw list clipped to it.
// Always pair with end_plot().
PlotFrame begin_plot(const char* id, ImVec2 size, double x0, double x1, double y0, double y1, bool log_x, bool log_y,
                     const char* x_title, const char* y_title, const char* x_format = "%g", const char* y_format = "%g");

// Pops the clip rectangle begin_plot pushed.
void end_plot();

// A polyline through (xs[i], ys[i]) in the frame.
void plot_line(const PlotFrame& f, const float* xs, const float* ys, int count, ImU32 color, float thickness);

// A small legend swatch and label, on the current line.
void legend_item(ImU32 color, const char* label, bool line = false);

}  // namespace autopar::web
