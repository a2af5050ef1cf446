// The Simulator accuracy panel (lecture 3.4): N random strategies, each simulated by the ideal
// simulator (FlexFlow's assumptions A1-A4), by the calibrated one (message-size-aware
// bandwidth) and by the finer "real execution" model; a scatter of simulated against real time
// with the y = x line, and per simulator the mean and max relative error, Kendall's tau over all
// strategies and over the best ones, and the true rank of the simulator's favourite. The study
// runs in slices across frames (advance_background_work) with a progress bar.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "format_units.h"
#include "imgui.h"
#include "panel_common.h"
#include "panels.h"
#include "plot_canvas.h"

namespace autopar::web {
namespace {

const ImU32 kIdealColor = IM_COL32(96, 170, 255, 210);
const ImU32 kCalibratedColor = IM_COL32(255, 160, 70, 210);
const ImU32 kDiagonal = IM_COL32(220, 220, 230, 140);

void draw_setup(AppState& state) {
  const float font = ImGui::GetFontSize();
  if (!ImGui::BeginTable("##acc_form", 2, ImGuiTableFlags_SizingStretchProp)) return;
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, font * 7.5f);
  ImGui::TableSetupColumn("widget", ImGuiTableColumnFlags_WidthStretch);
  form_label(tr("acc.strategies"), tr("acc.strategies_tip"));
  int samples = state.settings.accuracy.samples;
  if (ImGui::InputInt("##samples", &samples, 10, 100, ImGuiInputTextFlags_EnterReturnsTrue) || ImGui::IsItemDeactivatedAfterEdit()) {
    samples = std::clamp(samples, 2, kMaxAccuracySamples);
    if (samples != state.settings.accuracy.samples) {
      Settings next = state.settings;
      next.accuracy.samples = samples;
      apply_from_ui(state, next, tr_fill("notice.accuracy", {std::to_string(samples)}));
      restart_accuracy(state);
    }
  }
  form_label(tr("acc.seed"), tr("acc.seed_tip"));
  int64_t seed = state.settings.seed;
  const int64_t one = 1, ten = 10;
  if (ImGui::InputScalar("##acc_seed", ImGuiDataType_S64, &seed, &one, &ten, "%lld")) {
    Settings next = state.settings;
    next.seed = std::max<int64_t>(0, seed);
    apply_from_ui(state, next, "");
    restart_accuracy(state);
  }
  ImGui::EndTable();
  if (ImGui::Button(tr_id("acc.recompute").c_str())) restart_accuracy(state);
  ImGui::SameLine();
  const AccuracyJob& job = state.accuracy;
  const int done = int(job.real_ms.size());
  char overlay[64];
  std::snprintf(overlay, sizeof overlay, tr("acc.progress"), done, job.samples);
  ImGui::ProgressBar(job.samples ? float(done) / float(job.samples) : 0.0f, ImVec2(-FLT_MIN, 0), overlay);
}

void draw_metrics(const AppState& state) {
  const AccuracyJob& job = state.accuracy;
  const float font = ImGui::GetFontSize();
  if (!ImGui::BeginTable("##metrics", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH)) return;
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("ideal", ImGuiTableColumnFlags_WidthFixed, font * 5.5f);
  ImGui::TableSetupColumn("calibrated", ImGuiTableColumnFlags_WidthFixed, font * 5.5f);
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  ImGui::TableSetColumnIndex(0);
  ImGui::TextDisabled("%s", tr("acc.vs_fine"));
  ImGui::TableSetColumnIndex(1);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kIdealColor), "%s", tr("acc.ideal"));
  ImGui::TableSetColumnIndex(2);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kCalibratedColor), "%s", tr("acc.calibrated"));
  auto row = [&](const char* label, const char* help, auto value) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(tr(label));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(help));
    for (int k = 0; k < 2; ++k) {
      ImGui::TableSetColumnIndex(1 + k);
      if (!job.complete) {
        ImGui::TextDisabled("...");
        continue;
      }
      text_right_aligned(value(k == 0 ? job.ideal : job.calibrated));
    }
  };
  row("acc.mean_error", "acc.mean_error_tip",
      [](const AccuracySummary& s) { return format_percent(s.mean_rel_error); });
  row("acc.max_error", "acc.max_error_tip",
      [](const AccuracySummary& s) { return format_percent(s.max_rel_error); });
  row("acc.tau_all", "acc.tau_all_tip",
      [](const AccuracySummary& s) { return format_number(s.kendall_tau, 3); });
  row("acc.tau_top", "acc.tau_top_tip",
      [](const AccuracySummary& s) { return format_number(s.top_kendall_tau, 3) + " (" + std::to_string(s.top_count) + ")"; });
  row("acc.rank", "acc.rank_tip",
      [](const AccuracySummary& s) { return std::to_string(s.sim_best_true_rank); });
  ImGui::EndTable();
}

void draw_scatter(const AppState& state, ImVec2 size, bool log_axes, bool show_ideal, bool show_calibrated) {
  const AccuracyJob& job = state.accuracy;
  const size_t n = job.real_ms.size();
  double lo = 1e300, hi = 0;
  for (size_t i = 0; i < n; ++i) {
    lo = std::min({lo, job.real_ms[i], show_ideal ? job.ideal_ms[i] : job.real_ms[i], show_calibrated ? job.calibrated_ms[i] : job.real_ms[i]});
    hi = std::max({hi, job.real_ms[i], show_ideal ? job.ideal_ms[i] : job.real_ms[i], show_calibrated ? job.calibrated_ms[i] : job.real_ms[i]});
  }
  if (n == 0) lo = 1, hi = 10;
  pad_range(lo, hi, log_axes);
  if (!log_axes) lo = std::max(0.0, lo);
  // Square-ish: the same range on both axes so that y = x is the diagonal.
  const PlotFrame f = begin_plot("##scatter", size, lo, hi, lo, hi, log_axes, log_axes, tr("acc.x_axis"),
                                 tr("acc.y_axis"), "%g", "%g");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // y = x, dashed.
  const int dashes = 60;
  for (int k = 0; k < dashes; k += 2) {
    const double a = log_axes ? lo * std::pow(hi / lo, double(k) / dashes) : lo + (hi - lo) * k / dashes;
    const double b = log_axes ? lo * std::pow(hi / lo, double(k + 1) / dashes) : lo + (hi - lo) * (k + 1) / dashes;
    dl->AddLine(f.to_screen(a, a), f.to_screen(b, b), kDiagonal, 1.5f);
  }
  const float r = std::max(2.0f, ImGui::GetFontSize() * 0.2f);
  int hovered = -1;
  const ImVec2 m = ImGui::GetIO().MousePos;
  float best_d = r * r * 4;
  for (size_t i = 0; i < n; ++i) {
    if (show_calibrated) {
      const ImVec2 p = f.to_screen(job.real_ms[i], job.calibrated_ms[i]);
      dl->AddCircleFilled(p, r, kCalibratedColor, 10);
    }
    if (show_ideal) {
      const ImVec2 p = f.to_screen(job.real_ms[i], job.ideal_ms[i]);
      dl->AddCircleFilled(p, r, kIdealColor, 10);
      const float d = (p.x - m.x) * (p.x - m.x) + (p.y - m.y) * (p.y - m.y);
      if (d < best_d) best_d = d, hovered = int(i);
    }
  }
  if (ImGui::IsItemHovered() && f.contains(m)) {
    if (hovered >= 0) {
      const size_t i = size_t(hovered);
      ImGui::SetTooltip(tr("acc.point_tip"), hovered + 1, format_ms(job.real_ms[i]).c_str(),
                        format_ms(job.ideal_ms[i]).c_str(), 100 * (job.ideal_ms[i] / job.real_ms[i] - 1),
                        format_ms(job.calibrated_ms[i]).c_str(), 100 * (job.calibrated_ms[i] / job.real_ms[i] - 1));
    } else {
      ImGui::SetTooltip(tr("acc.cursor_tip"), format_ms(f.x_at(m.x)).c_str(), format_ms(f.y_at(m.y)).c_str());
    }
  }
  end_plot();
}

}  // namespace

void draw_accuracy_panel(AppState& state, const PanelRect& rect) {
  if (!begin_panel(state, kAccuracyWindow, "accuracy", rect)) {
    ImGui::End();
    return;
  }
  ensure_accuracy_started(state);
  const float font = ImGui::GetFontSize();
  const float left_w = std::clamp(ImGui::GetContentRegionAvail().x * 0.34f, font * 24.0f, font * 30.0f);
  ImGui::BeginChild("##acc_left", ImVec2(left_w, 0), false);
  section_header(tr("acc.study"));
  draw_setup(state);
  section_header(tr("acc.against"));
  draw_metrics(state);
  ImGui::Spacing();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s", tr("acc.note"));
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
  ImGui::SameLine(0, font);

  ImGui::BeginChild("##acc_right", ImVec2(0, 0), false);
  static bool log_axes = true, show_ideal = true, show_calibrated = true;   // widget scratch: view options
  ImGui::Checkbox("##show_ideal", &show_ideal);
  ImGui::SameLine(0, 4);
  legend_item(kIdealColor, tr("acc.ideal_simulator"));
  ImGui::SameLine(0, font);
  ImGui::Checkbox("##show_cal", &show_calibrated);
  ImGui::SameLine(0, 4);
  legend_item(kCalibratedColor, tr("acc.calibrated_simulator"));
  ImGui::SameLine(0, font);
  legend_item(kDiagonal, tr("acc.diagonal"), true);
  ImGui::SameLine(0, font * 2);
  ImGui::Checkbox(tr_id("acc.log_axes").c_str(), &log_axes);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float side = std::min(avail.x, avail.y + font * 2.0f);
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + std::max(0.0f, (avail.x - side) * 0.5f));
  draw_scatter(state, ImVec2(side, avail.y), log_axes, show_ideal, show_calibrated);
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace autopar::web
