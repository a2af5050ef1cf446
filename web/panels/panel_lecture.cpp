// The Lecture tab and the Lecture menu (issue 6): every demo of lecture 15 as a scenario of
// `autopar scenario`, listed by section. Choosing one sets the page up to demonstrate it (model,
// cluster, strategy, beta, samples) and shows its title, section and explanation; "Compute the
// numbers" runs it through the CLI's own scenario command (light ones in the page, the heavy
// ones, which take seconds, are shown with the exact CLI command instead).
#include <chrono>
#include <algorithm>
#include <cstdio>
#include <string>

#include "imgui.h"
#include "lecture_state.h"
#include "panel_common.h"
#include "panels.h"
#include "plot_canvas.h"
#include "scenarios.h"

namespace autopar::web {
namespace {

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

// The beta sweep in the page: Run (the 35 searches in the page's worker), progress, CLI command.
void draw_beta_sweep_controls(AppState& state) {
  LectureState& lecture = state.lecture;
  // 25 ms of a frame: the reader is watching this progress bar, and the page still draws at 30+ fps.
  beta_sweep_advance(lecture, 25.0);
  const bool running = lecture.sweep && lecture.sweep->running;
  if (!running && ImGui::Button(tr_id("lecture.compute").c_str())) beta_sweep_start(lecture, state.alpa.inter.worker);
  if (running) {
    const int total = int(beta_sweep_betas().size()) * kBetaSweepSeeds;
    const int done = beta_sweep_done(*lecture.sweep);
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, tr("lecture.sweep_progress"), done + 1, total,
                  beta_sweep_betas()[size_t(lecture.sweep->beta_index)].c_str(), lecture.sweep->seed);
    ImGui::ProgressBar(float(done) / float(total), ImVec2(ImGui::GetFontSize() * 22.0f, 0), overlay);
  }
  ImGui::SameLine();
  ImGui::TextDisabled("%s", tr("lecture.sweep_note"));
}

// Mean best time against beta (log x).
void draw_beta_sweep_plot(const Json& sweep) {
  std::vector<float> xs, ys;
  double lo = 1e300, hi = -1e300;
  for (const auto& p : sweep) {
    xs.push_back(float(p["beta"].get<double>()));
    ys.push_back(float(p["mean_best_ms"].get<double>()));
    lo = std::min(lo, double(ys.back()));
    hi = std::max(hi, double(ys.back()));
  }
  if (xs.size() < 2) return;
  double x0 = xs.front(), x1 = xs.back();
  pad_range(x0, x1, true);
  pad_range(lo, hi, false);
  ImGui::Spacing();
  const float font = ImGui::GetFontSize();
  const PlotFrame f = begin_plot("##beta_sweep", ImVec2(std::min(ImGui::GetContentRegionAvail().x, font * 40.0f), font * 16.0f), x0, x1,
                                 lo, hi, true, false, "beta", tr("lecture.mean_best_axis"), "%g", "%.1f");
  plot_line(f, xs.data(), ys.data(), int(xs.size()), IM_COL32(96, 170, 255, 255), 2.0f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (size_t i = 0; i < xs.size(); ++i) dl->AddCircleFilled(f.to_screen(xs[i], ys[i]), 3.5f, IM_COL32(255, 200, 90, 255));
  end_plot();
}

// Predicted against measured iteration time of the published runs (log-log): the diagonal is
// a perfect prediction, the band around it the +-25% target.
void draw_published_runs_plot(const Json& rows) {
  std::vector<float> xs, ys;
  double lo = 1e300, hi = -1e300;
  for (const auto& r : rows) {
    xs.push_back(float(r["measured_s"].get<double>()));
    ys.push_back(float(r["predicted_s"].get<double>()));
    lo = std::min({lo, double(xs.back()), double(ys.back())});
    hi = std::max({hi, double(xs.back()), double(ys.back())});
  }
  if (xs.empty()) return;
  lo /= 1.5;
  hi *= 1.5;
  pad_range(lo, hi, true);
  ImGui::Spacing();
  const float font = ImGui::GetFontSize();
  const float side = std::min(ImGui::GetContentRegionAvail().x, font * 24.0f);
  const PlotFrame f = begin_plot("##published_runs", ImVec2(side, side * 0.8f), lo, hi, lo, hi, true, true, tr("lecture.measured_axis"),
                                 tr("lecture.predicted_axis"), "%g", "%g");
  const float diag_x[2] = {float(lo), float(hi)}, diag_y[2] = {float(lo), float(hi)};
  const float up_y[2] = {float(lo * 1.25), float(hi * 1.25)}, down_y[2] = {float(lo * 0.75), float(hi * 0.75)};
  plot_line(f, diag_x, diag_y, 2, IM_COL32(160, 160, 160, 255), 1.5f);
  plot_line(f, diag_x, up_y, 2, IM_COL32(110, 110, 110, 200), 1.0f);
  plot_line(f, diag_x, down_y, 2, IM_COL32(110, 110, 110, 200), 1.0f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (size_t i = 0; i < xs.size(); ++i) dl->AddCircleFilled(f.to_screen(xs[i], ys[i]), 4.0f, IM_COL32(255, 200, 90, 255));
  end_plot();
  legend_item(IM_COL32(160, 160, 160, 255), tr("lecture.perfect_prediction"), true);
  ImGui::SameLine();
  legend_item(IM_COL32(110, 110, 110, 200), tr("lecture.within_25"), true);
}

void draw_findings(AppState& state, const ScenarioInfo& info) {
  LectureState& lecture = state.lecture;
  const bool light = scenario_is_light(info.name);
  // The numbers are computed in the worker; "Computing..." shows until they arrive.
  if (lecture.compute_pending) {
    compute_scenario(lecture, info.name, state.alpa.inter.worker);
    lecture.compute_pending = false;
  }
  if (lecture_planning(lecture) && lecture.plan.name == info.name && !planned_scenario(info.name))
    lecture_plan_advance(lecture, 25.0);   // in-process only; in a worker, takes the result
  section_header(tr("lecture.numbers"));
  if (light) {
    if (ImGui::Button(tr_id("lecture.compute").c_str())) lecture.compute_pending = true;
    ImGui::SameLine();
    ImGui::TextDisabled(tr("lecture.runs_in_page"), (scenario_cli_command(info.name) + (page_language() == Language::zh ? " --lang zh" : "")).c_str());
  } else if (info.name == "beta-sweep") {
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
      ImGui::TextDisabled("%s", lecture_plan_status(lecture).c_str());
    } else if (ImGui::Button(tr(lecture.computed_name == info.name ? "lecture.plan_again" : "lecture.plan_in_page"))) {
      lecture_plan_start(lecture, info.name, state.alpa.inter.worker);
    }
    ImGui::TextDisabled(tr("lecture.plan_command"), p.model.c_str(), p.cluster.c_str(), p.microbatches,
                        lecture.plan.worker && lecture.plan.worker->connected() ? "" : tr("lecture.no_worker"));
    if (lecture.computed_name == info.name && lecture.plan.elapsed_ms > 0)
      ImGui::TextDisabled(tr("lecture.planned_in"), lecture.plan.elapsed_ms / 1000);
  } else {
    ImGui::TextWrapped("%s", tr("lecture.heavy"));
    const std::string cmd = "build/autopar scenario " + info.name + (page_language() == Language::zh ? " --lang zh" : "");
    ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
    ImGui::TextUnformatted(cmd.c_str());
    ImGui::PopStyleColor();
    ImGui::SameLine();
    if (ImGui::SmallButton(tr_id("lecture.copy").c_str())) {
      ImGui::SetClipboardText(cmd.c_str());
      notify_info(state, tr_fill("notice.copied", {cmd}));
    }
    const std::string demo = scenario_demo_panel(info.name);
    ImGui::TextWrapped(tr("lecture.tab_works"), tab_title(panel_tab(demo)));
  }
  if (lecture.compute_pending || (lecture_planning(lecture) && lecture.plan.name == info.name && !planned_scenario(info.name))) {
    ImGui::TextDisabled("%s", tr("lecture.computing"));
    return;
  }
  if (lecture.computed_name != info.name) return;
  if (!lecture.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.55f, 1.0f));
    ImGui::TextWrapped(tr("lecture.error"), lecture.error.c_str());
    ImGui::PopStyleColor();
    return;
  }
  ImGui::Spacing();
  for (const auto& f : lecture.findings) ImGui::BulletText("%s", breakable_text(f.in(page_language())).c_str());
  if (info.name == "beta-sweep" && lecture.results.contains("sweep")) draw_beta_sweep_plot(lecture.results["sweep"]);
  if (info.name == "published-runs" && lecture.results.contains("rows")) draw_published_runs_plot(lecture.results["rows"]);
}

void draw_scenario_details(AppState& state) {
  const ScenarioInfo* info = find_scenario(state.settings.scenario);
  if (!info) {
    ImGui::TextWrapped("%s", tr("lecture.choose"));
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
  ImGui::TextWrapped(tr("lecture.heading"), info->section.c_str(), breakable_text(info->title.in(page_language())).c_str());
  ImGui::PopStyleColor();
  ImGui::Separator();
  ImGui::Spacing();
  ImGui::TextWrapped("%s", breakable_text(info->explanation.in(page_language())).c_str());
  section_header(tr("lecture.setup"));
  ImGui::TextWrapped("%s", setup_line(state).c_str());
  const std::string demo = scenario_demo_panel(info->name);
  const std::string go = tr_fill("lecture.show_it", {tab_title(panel_tab(demo))}) + "###show_it";
  if (ImGui::Button(go.c_str())) show_scenario_demo(state);
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

void draw_lecture_panel(AppState& state, const PanelRect& rect) {
  if (begin_panel(state, kLectureWindow, "lecture", rect)) {
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
