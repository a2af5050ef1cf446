// The Search panel (FlexFlow section 6, lecture 4): Metropolis-Hastings over the SOAP space.
// Settings (beta on a log slider, step and time budget, initial strategy, seed), Run / Pause /
// Step / Reset, a live plot of the best and the current cost against the proposals made, the
// acceptance counts and the evaluation rate, and the best strategy found, which "Use best"
// applies to the Strategy panel. The search itself advances in advance_background_work, a
// bounded slice per frame, so the page stays responsive.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "format_units.h"
#include "imgui.h"
#include "input_bounds.h"
#include "panel_common.h"
#include "panels.h"
#include "plot_canvas.h"
#include "step_inspector.h"
#include "strategy_argument.h"
#include "strategy_text.h"
#include "ui_style.h"

namespace autopar::web {
namespace {

const ImU32 kBestColor = IM_COL32(96, 178, 255, 255);
const ImU32 kCurrentColor = IM_COL32(190, 192, 204, 170);
const ImU32 kInitColor = IM_COL32(255, 150, 90, 200);

void apply_search(AppState& state, const Settings& next, const std::string& what) { apply_from_ui(state, next, what); }

void draw_settings(AppState& state) {
  const float font = ImGui::GetFontSize();
  if (!ImGui::BeginTable("##search_form", 2, ImGuiTableFlags_SizingStretchProp)) return;
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, font * 7.5f);
  ImGui::TableSetupColumn("widget", ImGuiTableColumnFlags_WidthStretch);

  form_label(tr("search_panel.beta"), tr("search_panel.beta_tip"));
  // The slider spans setState's and the CLI's whole bound (kBetaBound, 0 .. 1e9: logarithmic, so
  // the lecture's 1 .. 100,000 still take most of it). A value typed past either end (Ctrl+click
  // types one) is clamped there, and the notice says so.
  double beta = state.settings.beta;
  const double beta_lo = kBetaBound.lo, beta_hi = kBetaBound.hi;
  // Plain digits, never "1e+09" (%g's way past a million).
  const char* beta_format = beta == std::floor(beta) ? "%.0f" : "%.2f";
  if (ImGui::SliderScalar("##beta", ImGuiDataType_Double, &beta, &beta_lo, &beta_hi, beta_format, ImGuiSliderFlags_Logarithmic)) {
    const ClampedNumber c = clamp_to_bound(beta, kBetaBound, "beta");
    Settings next = state.settings;
    next.beta = c.value;
    apply_search(state, next, c.notice);
  }
  note_place(state, "beta");

  form_label(tr("search_panel.steps"), tr("search_panel.steps_tip"));
  int64_t steps = state.settings.search.steps;
  const int64_t step_small = 100, step_big = 1000;
  if (ImGui::InputScalar("##steps", ImGuiDataType_S64, &steps, &step_small, &step_big, "%lld")) {
    const ClampedWhole c = clamp_to_bound(steps, kSearchStepsBound, "search.steps");
    Settings next = state.settings;
    next.search.steps = c.value;
    apply_search(state, next, c.notice);
  }
  note_place(state, "steps");

  form_label(tr("search_panel.budget"), tr("search_panel.budget_tip"));
  double budget = state.settings.search.budget_ms;
  ImGui::SetNextItemWidth(-font * 2.0f);
  if (ImGui::InputDouble("##budget", &budget, 0, 0, "%.0f", ImGuiInputTextFlags_EnterReturnsTrue) || ImGui::IsItemDeactivatedAfterEdit()) {
    if (budget != state.settings.search.budget_ms) {
      const ClampedNumber c = clamp_to_bound(budget, kBudgetMsBound, "search.budget_ms");
      Settings next = state.settings;
      next.search.budget_ms = c.value;
      apply_search(state, next, c.notice);
    }
  }
  ImGui::SameLine();
  ImGui::TextDisabled("ms");

  form_label(tr("search_panel.init"), tr("search_panel.init_tip"));
  static const char* const kInits[] = {"dp", "expert", "mp", "random"};
  const char* const kInitNames[] = {tr("search_panel.init_dp"), tr("strategy.expert"), tr("search_panel.init_mp"), tr("strategy.random")};
  int current = 0;
  for (int i = 0; i < 4; ++i)
    if (state.settings.search.init == kInits[i]) current = i;
  if (ImGui::Combo("##init", &current, kInitNames, 4)) {
    Settings next = state.settings;
    next.search.init = kInits[current];
    apply_search(state, next, "");
  }

  form_label(tr("acc.seed"), tr("search_panel.seed_tip"));
  int64_t seed = state.settings.seed;
  const int64_t one = 1, ten = 10;
  if (ImGui::InputScalar("##seed", ImGuiDataType_S64, &seed, &one, &ten, "%lld")) {
    const ClampedWhole c = clamp_to_bound(seed, kSeedBound, "seed");
    Settings next = state.settings;
    next.seed = c.value;
    apply_search(state, next, c.notice);
  }
  ImGui::EndTable();
}

void draw_controls(AppState& state) {
  const bool running = state.settings.search.running;
  const bool has = state.search.started;
  const bool finished = search_finished(state.search);
  const float font = ImGui::GetFontSize();
  const ImVec2 button(font * 5.2f, 0);
  if (!running) {
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.16f, 0.42f, 0.26f, 1.0f));
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.20f, 0.52f, 0.32f, 1.0f));
    if (ImGui::Button((std::string(tr(has && !finished ? "search_panel.resume" : "search_panel.run")) + "###run").c_str(), button)) {
      Settings next = state.settings;
      next.search.running = true;
      apply_search(state, next, tr(has && !finished ? "notice.search_resumed" : "notice.search_started"));
    }
    ImGui::PopStyleColor(2);
  } else if (ImGui::Button((std::string(tr("search_panel.pause")) + "###run").c_str(), button)) {
    Settings next = state.settings;
    next.search.running = false;
    apply_search(state, next, tr("notice.search_paused"));
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(running);
  if (ImGui::Button(tr_id("search_panel.step").c_str(), button)) search_single_step(state);
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tr("search_panel.step_tip"));
  ImGui::SameLine();
  ImGui::EndDisabled();
  ImGui::BeginDisabled(!has);
  if (ImGui::Button(tr_id("search_panel.reset").c_str(), button)) {
    reset_search(state);
    notify_info(state, tr("notice.search_discarded"));
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!has);
  if (ImGui::Button(tr_id("search_panel.use_best").c_str(), button) && use_best_strategy(state)) {
    state.settings.panel = "strategy";
    state.focus_panel_pending = true;
  }
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", tr("search_panel.use_best_tip"));
  ImGui::EndDisabled();

  const SearchResult* chain = search_state(state.search);
  const int64_t step = chain ? chain->steps : 0;
  const float fraction = float(double(step) / double(std::max<int64_t>(1, state.settings.search.steps)));
  char overlay[96];
  std::snprintf(overlay, sizeof overlay, "%lld / %lld proposals%s", static_cast<long long>(step),
                static_cast<long long>(state.settings.search.steps),
                finished ? (chain && chain->stopped_by_budget ? " (time budget)" : (fraction < 1 ? " (stalled: stopped)" : " (done)"))
                         : running ? "  running" : "");
  ImGui::ProgressBar(finished ? 1.0f : fraction, ImVec2(-FLT_MIN, 0), overlay);
}

void draw_stats(const AppState& state) {
  const SearchRun& run = state.search;
  const float font = ImGui::GetFontSize();
  if (!search_state(run)) {   // none yet, or the worker has not answered yet
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", tr("search_panel.none_yet"));
    ImGui::PopTextWrapPos();
    return;
  }
  const SearchResult& r = *search_state(run);
  if (!ImGui::BeginTable("##stats", 2, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) return;
  ImGui::TableSetupColumn("k", ImGuiTableColumnFlags_WidthFixed, font * 8.5f);
  ImGui::TableSetupColumn("v", ImGuiTableColumnFlags_WidthStretch);
  auto row = [](const char* k, const std::string& v, const ImVec4* color = nullptr) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextDisabled("%s", tr(k));
    ImGui::TableSetColumnIndex(1);
    if (color)
      ImGui::TextColored(*color, "%s", v.c_str());
    else
      ImGui::TextUnformatted(v.c_str());
  };
  const ImVec4 best_color = ImGui::ColorConvertU32ToFloat4(kBestColor);
  char buf[128];
  row("search_panel.best", format_ms(r.best_ms) + tr_fill("search_panel.at_step", {std::to_string(r.best_step)}), &best_color);
  // Memory: the clear mark when the best strategy does not fit (the chain met none that does).
  const ImVec4 red(1.0f, 0.35f, 0.35f, 1.0f);
  row("search_panel.memory",
      tr_fill(r.best_fits ? "search_panel.memory_fits" : "search_panel.memory_does_not_fit", {format_bytes(r.best_peak_bytes)}) +
          (r.memory_moves ? std::string(tr(r.best.remat ? "search_panel.memory_moves_remat" : "search_panel.memory_moves")) : ""),
      r.best_fits ? nullptr : &red);
  row("search_panel.current", format_ms(r.current_ms));
  row("search_panel.initial", format_ms(r.init_ms) + "  (" + run.view.init + ")" + (r.init_fits ? "" : tr("search_panel.init_does_not_fit")));
  std::snprintf(buf, sizeof buf, "%.2fx", r.best_ms > 0 ? r.init_ms / r.best_ms : 0.0);
  row("search_panel.speedup", buf);
  row("search_panel.proposals", std::to_string(r.steps));
  std::snprintf(buf, sizeof buf, "%lld  (%s)", static_cast<long long>(r.accepted),
                format_percent(r.steps ? double(r.accepted) / double(r.steps) : 0).c_str());
  row("search_panel.accepted", buf);
  row("search_panel.rejected", std::to_string(r.steps - r.accepted));
  row("search_panel.evals", format_count(search_evals_per_s(run)));
  row("search_panel.compute_time", format_ms(run.view.compute_ms));
  ImGui::EndTable();
}

void draw_plot(const AppState& state, ImVec2 size, bool log_y) {
  const SearchTrace* trace = search_state(state.search) ? &state.search.view.trace : nullptr;
  const int n = trace ? int(trace->step.size()) : 0;
  if (n == 0) {
    // No search yet: an empty frame with a hint, no made-up axes.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::Dummy(size);
    dl->AddRectFilled(p, ImVec2(p.x + size.x, p.y + size.y), IM_COL32(22, 24, 29, 255));
    dl->AddRect(p, ImVec2(p.x + size.x, p.y + size.y), IM_COL32(70, 76, 90, 255));
    const char* hint = tr("search_panel.hint");
    const ImVec2 ts = ImGui::CalcTextSize(hint);
    dl->AddText(ImVec2(p.x + (size.x - ts.x) * 0.5f, p.y + (size.y - ts.y) * 0.5f), IM_COL32(150, 155, 170, 255), hint);
    return;
  }
  const SearchTrace& t = *trace;
  const double init_ms = search_state(state.search)->init_ms;
  double x1 = std::max<double>(10, t.step.back());
  double y0 = *std::min_element(t.best.begin(), t.best.end());
  double y1 = std::max<double>(*std::max_element(t.current.begin(), t.current.end()), init_ms);
  pad_range(y0, y1, log_y);
  if (!log_y) y0 = std::max(0.0, y0);
  const PlotFrame f = begin_plot("##trace", size, 0, x1, y0, y1, false, log_y, "proposals", "cost (simulated makespan, ms)", "%g", "%g");
  // The initial cost as a reference line.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float yi = f.to_screen(0, init_ms).y;
  dl->AddLine(ImVec2(f.min.x, yi), ImVec2(f.max.x, yi), kInitColor, 1.0f);
  plot_line(f, t.step.data(), t.current.data(), n, kCurrentColor, 1.5f);
  plot_line(f, t.step.data(), t.best.data(), n, kBestColor, 2.5f);
  // Hover: read the trace at the cursor.
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (ImGui::IsItemHovered() && f.contains(m)) {
    const double step = f.x_at(m.x);
    auto it = std::lower_bound(t.step.begin(), t.step.end(), float(step));
    const size_t k = std::min(size_t(it - t.step.begin()), size_t(n - 1));
    dl->AddLine(ImVec2(m.x, f.min.y), ImVec2(m.x, f.max.y), IM_COL32(255, 255, 255, 60));
    ImGui::SetTooltip("step %.0f\nbest %s\ncurrent %s", double(t.step[k]), format_ms(t.best[k]).c_str(),
                      format_ms(t.current[k]).c_str());
  }
  end_plot();
}

// A number with `digits` significant digits, never in exponent form for the ranges shown here.
std::string number_text(double v, int digits = 4) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  if (std::strchr(buf, 'e')) std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string signed_ms(double v) { return (v > 0 ? "+" : v < 0 ? "-" : "") + format_ms(std::fabs(v)); }

// The step inspector (step_inspector.h): Play / Pause / Step / Restart and the speed, the
// proposal shown with its arithmetic, and the proposals before it.
void draw_inspector(AppState& state) {
  StepInspector& in = state.inspector;
  const std::vector<McmcStep>& records = state.search.view.steps;
  const float font = ImGui::GetFontSize();
  const ImVec2 button(font * 4.6f, 0);
  ImGui::BeginDisabled(records.empty());
  if (ImGui::Button((std::string(tr(in.playing ? "inspector.pause" : "inspector.play")) + "###inspector_play").c_str(), button)) {
    if (!in.playing && in.shown >= records.size() && search_finished(state.search)) in.shown = 0;   // played to the end: again
    in.playing = !in.playing;
    in.carry = 0;
  }
  note_place(state, "inspector_play");
  ImGui::SameLine();
  if (ImGui::Button(tr_id("inspector.step").c_str(), button)) inspector_step(in, records.size());
  note_place(state, "inspector_step");
  ImGui::SameLine();
  if (ImGui::Button(tr_id("inspector.restart").c_str(), button)) {
    in.shown = 0;
    in.carry = 0;
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("%s", tr("inspector.speed"));
  ImGui::SameLine();
  int speed_index = 0;
  for (int k = 0; k < kInspectorSpeedCount; ++k)
    if (in.speed >= kInspectorSpeeds[k]) speed_index = k;
  // A slider over the offered speeds (slow enough to explain each step, fast enough to see the
  // chain drift), labelled with the speed itself.
  ImGui::SetNextItemWidth(font * 10.5f);
  const std::string speed_label = tr_fill("inspector.speed_value", {number_text(kInspectorSpeeds[speed_index])});
  if (ImGui::SliderInt("##inspector_speed", &speed_index, 0, kInspectorSpeedCount - 1, speed_label.c_str(), ImGuiSliderFlags_AlwaysClamp))
    in.speed = kInspectorSpeeds[std::clamp(speed_index, 0, kInspectorSpeedCount - 1)];
  note_place(state, "inspector_speed");
  ImGui::PushTextWrapPos(0.0f);
  if (records.empty()) {
    ImGui::TextDisabled("%s", tr("inspector.none"));
    ImGui::PopTextWrapPos();
    return;
  }
  const size_t shown = std::min(in.shown, records.size());
  ImGui::TextDisabled("%s", tr_fill("inspector.position", {std::to_string(shown), std::to_string(records.size()), std::to_string(kInspectorRecordSteps)}).c_str());
  if (shown == 0) {
    ImGui::TextDisabled("%s", tr("inspector.waiting"));
    ImGui::PopTextWrapPos();
    return;
  }
  const McmcStep& r = records[shown - 1];
  ImGui::TextColored(kAccentText, "%s", tr_fill("inspector.proposal", {std::to_string(r.step), inspector_move_text(state.graph, r)}).c_str());
  ImGui::TextUnformatted(tr_fill("inspector.cost", {format_ms(r.current_cost), format_ms(r.proposed_cost), signed_ms(r.delta_cost())}).c_str());
  const double beta = state.search.config.beta;
  const double cost0 = r.rate > 0 ? beta / r.rate : 0;
  if (r.delta_cost() > 0)
    ImGui::TextUnformatted(tr_fill("inspector.formula", {number_text(beta), number_text(r.delta_cost()), number_text(cost0), number_text(r.probability, 3)}).c_str());
  else
    ImGui::TextUnformatted(tr("inspector.improvement"));
  const ImVec4 green(0.45f, 0.85f, 0.50f, 1.0f), red(1.0f, 0.45f, 0.40f, 1.0f);
  if (r.draw >= 0) {
    ImGui::TextUnformatted(tr_fill("inspector.drew", {number_text(r.draw, 3), r.accepted ? "<" : ">="}).c_str());
    ImGui::SameLine();
  }
  ImGui::TextColored(r.accepted ? green : red, "%s", tr(r.accepted ? "inspector.accepted" : "inspector.rejected"));
  ImGui::PopTextWrapPos();
  // The proposals before it, newest first.
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
  if (shown > 1 && ImGui::BeginTable("##inspector_recent", 5, flags)) {
    ImGui::TableSetupColumn(tr("inspector.col_step"), ImGuiTableColumnFlags_WidthFixed, font * 3.5f);
    ImGui::TableSetupColumn(tr("inspector.col_move"), ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn(tr("inspector.col_delta"), ImGuiTableColumnFlags_WidthFixed, font * 6.0f);
    ImGui::TableSetupColumn(tr("inspector.col_p"), ImGuiTableColumnFlags_WidthFixed, font * 4.5f);
    ImGui::TableSetupColumn(tr("inspector.col_taken"), ImGuiTableColumnFlags_WidthFixed, font * 3.5f);
    ImGui::TableHeadersRow();
    for (size_t k = shown - 1, rows = 0; k-- > 0 && rows < 5; ++rows) {
      const McmcStep& e = records[k];
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::Text("%lld", static_cast<long long>(e.step));
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(inspector_move_text(state.graph, e).c_str());
      ImGui::TableSetColumnIndex(2);
      ImGui::TextUnformatted(signed_ms(e.delta_cost()).c_str());
      ImGui::TableSetColumnIndex(3);
      ImGui::TextUnformatted(number_text(e.probability, 3).c_str());
      ImGui::TableSetColumnIndex(4);
      ImGui::TextColored(e.accepted ? green : red, "%s", tr(e.accepted ? "inspector.yes" : "inspector.no"));
    }
    ImGui::EndTable();
  }
}

// "sample=2 channel=4 @ 0-7": the split degrees above 1 and the GPUs.
std::string describe_config(const Op& op, const OpConfig& c) {
  std::string dims;
  for (size_t j = 0; j < op.split_dims.size() && j < c.degrees.size(); ++j)
    if (c.degrees[j] > 1) dims += (dims.empty() ? "" : " ") + op.split_dims[j].name + "=" + std::to_string(c.degrees[j]);
  return (dims.empty() ? "whole" : dims) + " @ " + format_devices(c.devices);
}

// The best strategy's table: its own scroll region filling the rest of the panel, or, when the
// panel is stacked on a phone (`in_page`), every row in the page's own scroll, so a swipe
// anywhere moves the one scroll the reader sees (a nested scroll region catches the swipe and
// stops at its end).
void draw_best_strategy(AppState& state, bool in_page) {
  const SearchRun& run = state.search;
  const Graph& g = state.graph;
  if (!search_state(run)) {
    ImGui::TextDisabled("%s", tr("search_panel.none"));
    return;
  }
  const SearchResult& r = *search_state(run);
  auto init = load_strategy(run.view.init, g, state.cluster, "search.init");
  const float font = ImGui::GetFontSize();
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit |
                                (in_page ? ImGuiTableFlags_None : ImGuiTableFlags_ScrollY);
  if (!ImGui::BeginTable("##best", 3, flags, ImVec2(0, in_page ? 0.0f : ImGui::GetContentRegionAvail().y))) return;
  if (!in_page) ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn(tr("ex3.col_op"), ImGuiTableColumnFlags_WidthFixed, font * 7.0f);
  // On a phone the columns share its width, the strategy texts wrapping within them.
  ImGui::TableSetupColumn(tr("search_panel.col_best"), ImGuiTableColumnFlags_WidthFixed, in_page ? font * 9.0f : font * 19.0f);
  ImGui::TableSetupColumn(tr("search_panel.col_initial"), ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < g.ops.size() && i < r.best.ops.size(); ++i) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(g.ops[i].name().c_str());
    ImGui::TableSetColumnIndex(1);
    const std::string text = describe_config(g.ops[i], r.best.ops[i]);
    const bool changed = init.ok() && init.value().ops[i] != r.best.ops[i];
    ImGui::PushTextWrapPos(0.0f);
    if (changed)
      ImGui::TextColored(kAccentText, "%s", text.c_str());
    else
      ImGui::TextUnformatted(text.c_str());
    ImGui::TableSetColumnIndex(2);
    if (init.ok()) ImGui::TextDisabled("%s", changed ? describe_config(g.ops[i], init.value().ops[i]).c_str() : tr("search_panel.unchanged"));
    ImGui::PopTextWrapPos();
  }
  ImGui::EndTable();
  note_place(state, "search_table");
}

}  // namespace

void draw_search_panel(AppState& state, const PanelRect& rect) {
  if (!begin_panel(state, kSearchWindow, "search", rect)) {
    ImGui::End();
    return;
  }
  const float font = ImGui::GetFontSize();
  // Wide: settings and progress on the left, chart and table on the right. On a phone the two
  // columns stack in one scroll (a 24-font left column left the right one off screen).
  const bool stacked = narrow_page();
  if (!stacked) {
    const float left_w = std::clamp(ImGui::GetContentRegionAvail().x * 0.34f, font * 24.0f, font * 30.0f);
    ImGui::BeginChild("##search_left", ImVec2(left_w, 0), false);
  }
  section_header(tr("search_panel.settings"));
  draw_settings(state);
  ImGui::Spacing();
  draw_controls(state);
  section_header(tr("search_panel.progress"));
  draw_stats(state);
  ImGui::Spacing();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s", tr("search_panel.explain"));
  ImGui::PopTextWrapPos();
  if (!stacked) {
    ImGui::EndChild();
    ImGui::SameLine(0, font);
    ImGui::BeginChild("##search_right", ImVec2(0, 0), false);
  } else {
    ImGui::Spacing();
  }
  static bool log_y = false;   // widget scratch: a view option only
  legend_item(kBestColor, tr("search_panel.best"), true);
  ImGui::SameLine(0, font);
  legend_item(kCurrentColor, tr("search_panel.current_chain"), true);
  ImGui::SameLine(0, font);
  legend_item(kInitColor, tr("search_panel.initial"), true);
  if (!stacked) ImGui::SameLine(0, font * 2);
  ImGui::Checkbox(tr_id("search_panel.log_scale").c_str(), &log_y);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float plot_h = stacked ? font * 16 : std::max(font * 11, avail.y * 0.36f);
  draw_plot(state, ImVec2(avail.x, plot_h), log_y);
  note_place(state, "search_plot");
  // The replay advances with the page's clock and starts again for each new search.
  inspector_follow(state.inspector, state.search.generation);
  inspector_tick(state.inspector, state.search.view.steps.size(), ImGui::GetIO().DeltaTime);
  section_header(tr("inspector.title"));
  draw_inspector(state);
  section_header(tr("search_panel.best_found"));
  draw_best_strategy(state, stacked);
  if (!stacked) ImGui::EndChild();
  ImGui::End();
}

}  // namespace autopar::web
