// Axis frames, ticks and lines for the page's own plots. See plot_canvas.h.
#include "plot_canvas.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace autopar::web {
namespace {

const ImU32 kPlotBg = IM_COL32(22, 24, 29, 255);
const ImU32 kPlotBorder = IM_COL32(70, 76, 90, 255);
const ImU32 kGrid = IM_COL32(255, 255, 255, 22);
const ImU32 kTickText = IM_COL32(160, 166, 180, 255);
const ImU32 kTitleText = IM_COL32(200, 205, 215, 255);

double axis_pos(double v, double lo, double hi, bool log_scale) {
  if (log_scale) return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  return (v - lo) / (hi - lo);
}

double axis_value(double t, double lo, double hi, bool log_scale) {
  if (log_scale) return std::pow(10.0, std::log10(lo) + t * (std::log10(hi) - std::log10(lo)));
  return lo + t * (hi - lo);
}

std::string tick_label(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int max_ticks) {
  std::vector<double> out;
  if (!(hi > lo) || max_ticks < 1 || !std::isfinite(lo) || !std::isfinite(hi)) return out;
  const double raw = (hi - lo) / max_ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (double v = first; v <= hi + step * 1e-9 && out.size() < 100; v += step) out.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return out;
}

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> out;
  if (!(lo > 0) || !(hi > lo)) return out;
  const int k0 = int(std::floor(std::log10(lo))), k1 = int(std::ceil(std::log10(hi)));
  const bool dense = k1 - k0 <= 2;
  for (int k = k0; k <= k1; ++k) {
    const double p = std::pow(10.0, k);
    for (double m : {1.0, 2.0, 5.0}) {
      if (m != 1.0 && !dense) continue;
      const double v = m * p;
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
    }
  }
  return out;
}

void pad_range(double& lo, double& hi, bool log_scale) {
  if (log_scale) {
    lo = std::max(lo, 1e-9);
    hi = std::max(hi, lo * 1.0001);
    const double span = std::log10(hi) - std::log10(lo);
    const double margin = std::max(0.05, span * 0.05);
    lo = std::pow(10.0, std::log10(lo) - margin);
    hi = std::pow(10.0, std::log10(hi) + margin);
    return;
  }
  if (!(hi > lo)) {
    const double m = std::max(std::fabs(lo) * 0.05, 1e-6);
    lo -= m;
    hi += m;
    return;
  }
  const double margin = (hi - lo) * 0.05;
  lo -= margin;
  hi += margin;
}

ImVec2 PlotFrame::to_screen(double x, double y) const {
  const double tx = axis_pos(x, x0, x1, log_x), ty = axis_pos(y, y0, y1, log_y);
  return ImVec2(float(min.x + tx * (max.x - min.x)), float(max.y - ty * (max.y - min.y)));
}

double PlotFrame::x_at(float sx) const { return axis_value((sx - min.x) / std::max(1.0f, max.x - min.x), x0, x1, log_x); }

double PlotFrame::y_at(float sy) const { return axis_value((max.y - sy) / std::max(1.0f, max.y - min.y), y0, y1, log_y); }

PlotFrame begin_plot(const char* id, ImVec2 size, double x0, double x1, double y0, double y1, bool log_x, bool log_y,
                     const char* x_title, const char* y_title, const char* x_format, const char* y_format) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, ImVec2(std::max(size.x, 60.0f), std::max(size.y, 60.0f)));
  const float font = ImGui::GetFontSize();
  const std::vector<double> yt = log_y ? log_ticks(y0, y1) : nice_ticks(y0, y1, std::max(2, int(size.y / (font * 2.6f))));
  float label_w = 0;
  for (double v : yt) label_w = std::max(label_w, ImGui::CalcTextSize(tick_label(y_format, v).c_str()).x);
  PlotFrame f;
  f.x0 = x0, f.x1 = x1, f.y0 = y0, f.y1 = y1, f.log_x = log_x, f.log_y = log_y;
  f.min = ImVec2(origin.x + label_w + font * 0.8f, origin.y + font * 1.5f);
  f.max = ImVec2(origin.x + size.x - font * 0.6f, origin.y + size.y - font * 2.6f);
  dl->AddRectFilled(f.min, f.max, kPlotBg);
  // Grid, ticks and labels.
  for (double v : yt) {
    const float y = f.to_screen(x0, v).y;
    dl->AddLine(ImVec2(f.min.x, y), ImVec2(f.max.x, y), kGrid);
    const std::string s = tick_label(y_format, v);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    dl->AddText(ImVec2(f.min.x - ts.x - font * 0.35f, y - ts.y * 0.5f), kTickText, s.c_str());
  }
  const int max_x_ticks = std::max(2, int((f.max.x - f.min.x) / (font * 6.0f)));
  const std::vector<double> xt = log_x ? log_ticks(x0, x1) : nice_ticks(x0, x1, max_x_ticks);
  for (double v : xt) {
    const float x = f.to_screen(v, y0).x;
    dl->AddLine(ImVec2(x, f.min.y), ImVec2(x, f.max.y), kGrid);
    const std::string s = tick_label(x_format, v);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    const float lx = std::clamp(x - ts.x * 0.5f, origin.x, origin.x + size.x - ts.x);
    dl->AddText(ImVec2(lx, f.max.y + font * 0.25f), kTickText, s.c_str());
  }
  dl->AddRect(f.min, f.max, kPlotBorder);
  if (x_title && *x_title) {
    const ImVec2 ts = ImGui::CalcTextSize(x_title);
    dl->AddText(ImVec2((f.min.x + f.max.x - ts.x) * 0.5f, f.max.y + font * 1.35f), kTitleText, x_title);
  }
  if (y_title && *y_title) dl->AddText(ImVec2(f.min.x, origin.y), kTitleText, y_title);
  dl->PushClipRect(f.min, f.max, true);
  return f;
}

void end_plot() { ImGui::GetWindowDrawList()->PopClipRect(); }

void plot_line(const PlotFrame& f, const float* xs, const float* ys, int count, ImU32 color, float thickness) {
  if (count < 1) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  std::vector<ImVec2> pts;
  pts.reserve(size_t(count));
  for (int i = 0; i < count; ++i) pts.push_back(f.to_screen(xs[i], ys[i]));
  if (count == 1) {
    dl->AddCircleFilled(pts[0], thickness * 1.5f, color);
    return;
  }
  dl->AddPolyline(pts.data(), count, color, ImDrawFlags_None, thickness);
}

void legend_item(ImU32 color, const char* label, bool line) {
  const float h = ImGui::GetTextLineHeight();
  ImGui::AlignTextToFramePadding();
  ImVec2 p = ImGui::GetCursorScreenPos();
  p.y += ImGui::GetStyle().FramePadding.y;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (line)
    dl->AddLine(ImVec2(p.x, p.y + h * 0.5f), ImVec2(p.x + h * 1.2f, p.y + h * 0.5f), color, 2.5f);
  else
    dl->AddRectFilled(ImVec2(p.x, p.y + h * 0.15f), ImVec2(p.x + h * 0.9f, p.y + h * 0.85f), color, 2.0f);
  ImGui::Dummy(ImVec2(h * (line ? 1.2f : 0.9f), ImGui::GetFrameHeight()));
  ImGui::SameLine(0, h * 0.3f);
  ImGui::TextUnformatted(label);
}

}  // namespace autopar::web
