// The Lecture tab and the Lecture menu (issue 6): every demo of lecture 15 as a scenario of
// `autopar scenario`, listed by section. Choosing one sets the page up to demonstrate it (model,
// cluster, strategy, beta, samples) and shows its title, section and explanation, then computes
// its numbers in the page's workers (the CLI's own scenario operation) and shows its findings,
// its charts (scenario_charts.h) and where they differ from the lecture notes, and why. A
// scenario with a question asks it first and shows its findings once the reader has predicted.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "imgui.h"
#include "lecture_state.h"
#include "panel_common.h"
#include "panels.h"
#include "plot_canvas.h"
#include "scenario_charts.h"
#include "scenarios.h"
#include "ui_style.h"

namespace autopar::web {
namespace {

// A bullet whose text wraps at the panel's edge (BulletText does not wrap: long findings were cut).
void wrapped_bullet(const std::string& text) {
  ImGui::Bullet();
  ImGui::TextWrapped("%s", text.c_str());
}

// What the set-up of a scenario loaded, in one line.
std::string setup_line(const AppState& state) {
  char beta[32];
  std::snprintf(beta, sizeof beta, "%g", state.settings.beta);
  return tr_fill("lecture.setup_line", {state.settings.model, state.settings.cluster, state.settings.mesh, state.settings.strategy, beta,
                                        std::to_string(state.settings.accuracy.samples)});
}

void draw_scenario_list(AppState& state) {
  std::string last_section;
  for (const auto& s : scenario_list()) {
    const std::string major = s.section.substr(0, s.section.find('.'));
    if (major != last_section) {
      if (!last_section.empty()) ImGui::Spacing();
      ImGui::TextDisabled(tr("lecture.section"), major.c_str());
      last_section = major;
    }
    const std::string label = s.section + "  " + s.name;
    if (ImGui::Selectable(label.c_str(), state.settings.scenario == s.name)) open_scenario(state, s.name);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.title.in(page_language()).c_str());
  }
}

// The beta sweep's progress (its 35 searches side by side in the page's workers) and a button to run it again.
void draw_beta_sweep_controls(AppState& state) {
  LectureState& lecture = state.lecture;
  // 25 ms of a frame: the reader is watching this progress bar, and the page still draws at 30+ fps.
  beta_sweep_advance(lecture, 25.0);
  const bool running = lecture.sweep && lecture.sweep->running;
  if (!running && ImGui::Button(tr_id("lecture.compute_again").c_str())) beta_sweep_start(lecture, state.alpa.inter.worker);
  if (running) {
    const int total = int(beta_sweep_betas().size()) * kBetaSweepSeeds;
    const int done = beta_sweep_done(*lecture.sweep);
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, tr("lecture.sweep_progress"), done + 1, total,
                  beta_sweep_betas()[size_t(lecture.sweep->beta_index)].c_str(), lecture.sweep->seed);
    ImGui::ProgressBar(float(done) / float(total), ImVec2(ImGui::GetFontSize() * 22.0f, 0), overlay);
  }
  ImGui::SameLine();
  // Wrapped: beside the button it ran past a phone's edge.
  text_disabled_wrapped("%s", tr("lecture.sweep_note"));
}

// The charts' colours, by ChartSeries::color: blue, orange, green, red, greys for reference
// values, purple, then pale blue, orange and green (the lecture's numbers beside 0, 1 and 2).
ImU32 chart_color(int index) {
  static const ImU32 colors[] = {IM_COL32(96, 170, 255, 255), IM_COL32(255, 170, 70, 255), IM_COL32(110, 205, 120, 255),
                                 IM_COL32(240, 100, 100, 255), IM_COL32(170, 170, 170, 255), IM_COL32(120, 120, 120, 230),
                                 IM_COL32(200, 200, 200, 255), IM_COL32(190, 130, 255, 255), IM_COL32(96, 170, 255, 120),
                                 IM_COL32(255, 170, 70, 120), IM_COL32(110, 205, 120, 120)};
  return colors[size_t(std::max(0, index)) % (sizeof colors / sizeof colors[0])];
}

// A task graph as a small Gantt chart: one lane per GPU or link, a box per task (hover: its times).
void draw_gantt(const ScenarioChart& c, float width) {
  const float font = ImGui::GetFontSize();
  const float lane_h = font * 1.3f, label_w = font * 6.5f;
  const float height = lane_h * float(c.lanes.size()) + font * 1.6f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(("##" + c.id).c_str(), ImVec2(width, height));
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  double span = 0;
  for (const auto& b : c.boxes) span = std::max(span, b.end);
  if (!(span > 0)) return;
  const float x0 = p0.x + label_w, x1 = p0.x + width - font * 0.5f;
  const float kx = float((x1 - x0) / span);
  for (size_t l = 0; l < c.lanes.size(); ++l) {
    const float y = p0.y + lane_h * float(l);
    dl->AddText(ImVec2(p0.x, y + 2), IM_COL32(200, 200, 210, 255), c.lanes[l].c_str());
    dl->AddLine(ImVec2(x0, y + lane_h - 1), ImVec2(x1, y + lane_h - 1), IM_COL32(60, 64, 72, 255));
  }
  std::string tip;
  for (const auto& b : c.boxes) {
    const float y = p0.y + lane_h * float(b.lane) + 2;
    const ImVec2 a(x0 + float(b.start) * kx, y), e(std::max(x0 + float(b.start) * kx + 2.0f, x0 + float(b.end) * kx), y + lane_h - 5);
    dl->AddRectFilled(a, e, chart_color(b.color));
    dl->AddRect(a, e, IM_COL32(20, 20, 24, 255));
    if (hovered && mouse.x >= a.x && mouse.x <= e.x && mouse.y >= a.y && mouse.y <= e.y) tip = b.label;
  }
  const float axis_y = p0.y + lane_h * float(c.lanes.size()) + 2;
  for (double t : nice_ticks(0, span, 6)) {
    char label[32];
    std::snprintf(label, sizeof label, "%g", t);
    dl->AddText(ImVec2(x0 + float(t) * kx, axis_y), IM_COL32(170, 170, 180, 255), label);
  }
  dl->AddText(ImVec2(p0.x, axis_y), IM_COL32(170, 170, 180, 255), c.x_title.c_str());
  if (!tip.empty()) ImGui::SetTooltip("%s", tip.c_str());
}

// One chart of the shown scenario: bars over categories, lines and points over numbers, or a Gantt chart.
void draw_chart(const ScenarioChart& c) {
  const float font = ImGui::GetFontSize();
  const float width = std::min(ImGui::GetContentRegionAvail().x, font * 40.0f);
  ImGui::Spacing();
  text_disabled_wrapped("%s", c.title.c_str());
  if (!c.lanes.empty()) {
    draw_gantt(c, width);
    return;
  }
  // The data's range (positive values only on a log axis).
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  const bool bars = !c.categories.empty();
  for (const auto& s : c.series)
    for (size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
      if (!std::isfinite(s.x[k]) || !std::isfinite(s.y[k]) || (c.log_x && s.x[k] <= 0) || (c.log_y && s.y[k] <= 0)) continue;
      x0 = std::min(x0, s.x[k]), x1 = std::max(x1, s.x[k]);
      y0 = std::min(y0, s.y[k]), y1 = std::max(y1, s.y[k]);
    }
  if (x0 > x1 || y0 > y1) return;
  if (bars) {
    x0 = -0.5, x1 = double(c.categories.size()) - 0.5;
    if (!c.log_y) y0 = std::min(0.0, y0);
  }
  if (!bars) pad_range(x0, x1, c.log_x);
  pad_range(y0, y1, c.log_y);
  const float height = font * (bars ? 13.0f : 15.0f);
  const PlotFrame f = begin_plot(("##" + c.id).c_str(), ImVec2(width, height), x0, x1, y0, y1, c.log_x, c.log_y,
                                 bars ? "" : c.x_title.c_str(), c.y_title.c_str(), bars ? "" : "%g", "%g");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  int bar_series = 0;
  for (const auto& s : c.series) bar_series += s.style == ChartSeries::Style::bars ? 1 : 0;
  int bar_index = 0;
  for (const auto& s : c.series) {
    const ImU32 color = chart_color(s.color);
    if (s.style == ChartSeries::Style::bars) {
      // Bars side by side in each category, 80% of its width.
      const double w = 0.8 / std::max(1, bar_series);
      for (size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
        if (!std::isfinite(s.y[k]) || (c.log_y && s.y[k] <= 0)) continue;
        const double left = s.x[k] - 0.4 + w * bar_index;
        const ImVec2 a = f.to_screen(left, s.y[k]), b = f.to_screen(left + w, c.log_y ? y0 : 0.0);
        dl->AddRectFilled(ImVec2(a.x + 1, a.y), ImVec2(b.x - 1, b.y), color);
      }
      ++bar_index;
      continue;
    }
    std::vector<float> xs, ys;
    for (size_t k = 0; k < s.x.size() && k < s.y.size(); ++k)
      if (std::isfinite(s.y[k])) xs.push_back(float(s.x[k])), ys.push_back(float(s.y[k]));
    if (s.style != ChartSeries::Style::points) plot_line(f, xs.data(), ys.data(), int(xs.size()), color, s.style == ChartSeries::Style::line ? 1.5f : 2.0f);
    if (s.style != ChartSeries::Style::line)
      for (size_t k = 0; k < xs.size(); ++k) dl->AddCircleFilled(f.to_screen(xs[k], ys[k]), s.style == ChartSeries::Style::points ? 2.5f : 3.5f, color);
  }
  end_plot();
  if (bars) {
    // The categories under their bars (cut to the width a category has).
    const float slot = (f.max.x - f.min.x) / float(c.categories.size());
    for (size_t k = 0; k < c.categories.size(); ++k) {
      std::string label = c.categories[k];
      while (label.size() > 2 && ImGui::CalcTextSize(label.c_str()).x > slot - 4) label.pop_back();
      const float w = ImGui::CalcTextSize(label.c_str()).x;
      dl->AddText(ImVec2(f.min.x + slot * (float(k) + 0.5f) - w * 0.5f, f.max.y + 3), IM_COL32(200, 200, 210, 255), label.c_str());
    }
  }
  bool first = true;
  for (const auto& s : c.series) {
    if (s.label.empty()) continue;
    if (!first) ImGui::SameLine();
    first = false;
    legend_item(chart_color(s.color), s.label.c_str(), s.style == ChartSeries::Style::line);
  }
}

// The shown scenario's question, before its findings: choices, and "Check my prediction".
void draw_question(AppState& state, const ScenarioInfo& info, const ScenarioQuestion& q) {
  LectureState& lecture = state.lecture;
  section_header(tr("lecture.predict_first"));
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
  ImGui::TextWrapped("%s", breakable_text(q.prompt.in(page_language())).c_str());
  ImGui::PopStyleColor();
  for (size_t k = 0; k < q.choices.size(); ++k)
    if (wrapped_radio(std::string(1, char('a' + k)), breakable_text(q.choices[k].in(page_language())), lecture.prediction == int(k),
                      "predict" + std::to_string(k)) &&
        !lecture.prediction_checked)
      lecture.prediction = int(k);
  if (!lecture.prediction_checked) {
    if (lecture.prediction < 0) ImGui::BeginDisabled();
    if (ImGui::Button(tr_id("lecture.check_prediction").c_str())) (void)lecture_predict(lecture, info.name, lecture.prediction);
    if (lecture.prediction < 0) ImGui::EndDisabled();
    ImGui::SameLine();
    text_disabled_wrapped("%s", tr("lecture.predict_note"));
    return;
  }
  const bool right = lecture.prediction == q.answer;
  ImGui::TextColored(right ? ImVec4(0.45f, 0.85f, 0.45f, 1.0f) : ImVec4(1.0f, 0.55f, 0.45f, 1.0f), right ? tr("lecture.prediction_right") : tr("lecture.prediction_wrong"),
                     std::string(1, char('a' + q.answer)).c_str());
  ImGui::TextWrapped("%s", breakable_text(q.why.in(page_language())).c_str());
}

void draw_findings(AppState& state, const ScenarioInfo& info) {
  LectureState& lecture = state.lecture;
  // The numbers are computed in the worker as soon as the scenario opens; "Computing..." shows until they arrive.
  if (lecture.compute_pending) {
    if (info.name != "beta-sweep") compute_scenario(lecture, info.name, state.alpa.inter.worker);
    else if (!lecture.sweep) beta_sweep_start(lecture, state.alpa.inter.worker);   // "Show it" may have started it
    lecture.compute_pending = false;
  }
  if (lecture_planning(lecture) && lecture.plan.name == info.name && !planned_scenario(info.name))
    lecture_plan_advance(lecture, 25.0);   // in-process only; in a worker, takes the result
  // A question first: the reader predicts before the findings show (they compute meanwhile).
  const ScenarioQuestion* question = scenario_question(info.name);
  if (question) draw_question(state, info, *question);
  section_header(tr("lecture.numbers"));
  if (info.name == "beta-sweep") {
    draw_beta_sweep_controls(state);
  } else if (planned_scenario(info.name)) {
    // Planned in the page's worker (the main thread only draws): a progress bar and Cancel.
    const PlannedScenario& p = *planned_scenario(info.name);
    if (lecture_planning(lecture)) {
      lecture_plan_advance(lecture, 25.0);   // in-process only; in a worker, takes the result
    }
    if (lecture_planning(lecture)) {
      const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - lecture.plan.started).count();
      char overlay[64];
      std::snprintf(overlay, sizeof overlay, "%.0f%%  %.1f s", 100 * lecture_plan_progress(lecture), elapsed / 1000);
      ImGui::ProgressBar(float(lecture_plan_progress(lecture)), ImVec2(ImGui::GetFontSize() * 18, 0), overlay);
      ImGui::SameLine();
      if (ImGui::Button(tr("inter.cancel"))) lecture_plan_cancel(lecture);
      ImGui::SameLine();
      text_disabled_wrapped("%s", lecture_plan_status(lecture).c_str());
    } else if (ImGui::Button(tr(lecture.computed_name == info.name ? "lecture.plan_again" : "lecture.plan_in_page"))) {
      lecture_plan_start(lecture, info.name, state.alpa.inter.worker);
    }
    text_disabled_wrapped(tr("lecture.plan_command"), p.model.c_str(), p.cluster.c_str(), p.microbatches,
                          lecture.plan.worker && lecture.plan.worker->connected() ? "" : tr("lecture.no_worker"));
    if (lecture.computed_name == info.name && lecture.plan.elapsed_ms > 0)
      text_disabled_wrapped(tr("lecture.planned_in"), lecture.plan.elapsed_ms / 1000);
  } else if (!lecture_planning(lecture)) {
    if (ImGui::SmallButton(tr_id("lecture.compute_again").c_str())) lecture.compute_pending = true;
    if (lecture.computed_name == info.name && lecture.plan.elapsed_ms > 0) {
      ImGui::SameLine();
      text_disabled_wrapped(tr("lecture.computed_in"), lecture.plan.elapsed_ms);
    }
  }
  if (lecture.compute_pending || (lecture_planning(lecture) && lecture.plan.name == info.name && !planned_scenario(info.name))) {
    text_disabled_wrapped("%s", tr("lecture.computing"));
    return;
  }
  if (lecture.computed_name != info.name) return;
  if (!lecture.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.55f, 1.0f));
    ImGui::TextWrapped(tr("lecture.error"), lecture.error.c_str());
    ImGui::PopStyleColor();
    return;
  }
  if (question && !lecture.prediction_checked) {
    text_disabled_wrapped("%s", tr("lecture.after_prediction"));
    return;
  }
  ImGui::Spacing();
  for (const auto& f : lecture.findings) wrapped_bullet(breakable_text(f.in(page_language())));
  for (const ScenarioChart& c : scenario_charts(info.name, lecture.results)) draw_chart(c);
  // Where the numbers differ from the lecture notes', and why.
  const std::vector<Bilingual> versus = versus_lecture(info.name, lecture.results);
  if (!versus.empty()) {
    section_header(tr("lecture.versus_notes"));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.55f, 1.0f));
    for (const Bilingual& v : versus) wrapped_bullet(breakable_text(v.in(page_language())));
    ImGui::PopStyleColor();
  }
}

void draw_scenario_details(AppState& state) {
  const ScenarioInfo* info = find_scenario(state.settings.scenario);
  if (!info) {
    ImGui::TextWrapped("%s", tr(narrow_page() ? "lecture.choose_above" : "lecture.choose"));
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
  ImGui::TextWrapped(tr("lecture.heading"), info->section.c_str(), breakable_text(info->title.in(page_language())).c_str());
  note_place(state, "lecture_heading");
  ImGui::PopStyleColor();
  ImGui::Separator();
  ImGui::Spacing();
  ImGui::TextWrapped("%s", breakable_text(info->explanation.in(page_language())).c_str());
  section_header(tr("lecture.setup"));
  ImGui::TextWrapped("%s", setup_line(state).c_str());
  const std::string demo = scenario_demo_panel(info->name);
  const std::string go = tr_fill("lecture.show_it", {tab_title(panel_tab(demo))}) + "###show_it";
  // The tab that demonstrates it would tell the answer: with a question open, it waits for the prediction.
  const bool wait = lecture_awaits_prediction(state.lecture, info->name);
  if (wait) ImGui::BeginDisabled();
  if (ImGui::Button(go.c_str())) show_scenario_demo(state);
  if (wait) ImGui::EndDisabled();
  if (wait && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tr("lecture.predict_note"));
  draw_findings(state, *info);
}

}  // namespace

void open_scenario(AppState& state, const std::string& name) {
  Settings next = state.settings;
  if (auto st = apply_scenario_setup(name, next); !st.ok()) {
    notify_error(state, st.error());
    return;
  }
  const ScenarioInfo* info = find_scenario(name);
  apply_from_ui(state, next, tr_fill("notice.lecture", {info->section, info->title.in(page_language())}));
}

void draw_lecture_menu(AppState& state) {
  if (!ImGui::BeginMenu(tr_id("menu.lecture").c_str())) return;
  std::string last_section;
  for (const auto& s : scenario_list()) {
    const std::string major = s.section.substr(0, s.section.find('.'));
    if (major != last_section && !last_section.empty()) ImGui::Separator();
    last_section = major;
    const std::string label = s.section + "  " + s.title.in(page_language());
    if (ImGui::MenuItem(label.c_str(), nullptr, state.settings.scenario == s.name)) open_scenario(state, s.name);
  }
  ImGui::Separator();
  if (ImGui::MenuItem(tr("menu.exercises"))) {
    state.settings.panel = "exercises";
    state.focus_panel_pending = true;
  }
  if (ImGui::MenuItem(tr("menu.compare"))) {
    state.settings.panel = "compare";
    state.focus_panel_pending = true;
  }
  ImGui::EndMenu();
}

// On a phone the list becomes one combo above the details, which take the whole width and
// scroll with the page (side by side, the details had 200 pixels and cut their buttons).
void draw_scenario_combo(AppState& state) {
  const ScenarioInfo* current = state.settings.scenario.empty() ? nullptr : find_scenario(state.settings.scenario);
  const std::string preview = current ? current->section + "  " + current->name : std::string(tr("lecture.pick"));
  ImGui::SetNextItemWidth(-1);
  const bool open = ImGui::BeginCombo("##scenario_combo", preview.c_str());
  note_place(state, "lecture_combo");
  if (!open) return;
  for (const auto& s : scenario_list()) {
    const std::string label = s.section + "  " + s.name;
    if (ImGui::Selectable(label.c_str(), current && current->name == s.name)) open_scenario(state, s.name);
  }
  ImGui::EndCombo();
}

void draw_lecture_panel(AppState& state, const PanelRect& rect) {
  if (begin_panel(state, kLectureWindow, "lecture", rect)) {
    if (narrow_page()) {
      draw_scenario_combo(state);
      ImGui::Spacing();
      draw_scenario_details(state);
      ImGui::End();
      return;
    }
    const float list_w = ImGui::GetFontSize() * 14.0f;
    ImGui::BeginChild("##scenario_list", ImVec2(list_w, 0), true);
    draw_scenario_list(state);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##scenario_details", ImVec2(0, 0), false);
    draw_scenario_details(state);
    ImGui::EndChild();
  }
  ImGui::End();
}

}  // namespace autopar::web
