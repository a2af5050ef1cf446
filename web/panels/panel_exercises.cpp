// The Exercises tab: the eight exercises of lecture 15, section 11, each with inputs the reader
// changes, answer boxes, a Check button and an explanation computed by the page (exercises.h):
// 1 a split Linear layer, 2 the Metropolis-Hastings acceptance probability, 3 delta simulation on
// a timeline, 4 S0S1 -> RR in both orders, 5 the chain DP, 6 the t_max enumeration, 7 DLRM, 8
// overlap vs an additive cost.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "exercise_grading.h"
#include "exercises.h"
#include "format_units.h"
#include "imgui.h"
#include "lecture_state.h"
#include "panel_common.h"
#include "panels.h"
#include "ui_style.h"

namespace autopar::web {
namespace {

const ImVec4 kRight = ImVec4(0.45f, 0.85f, 0.45f, 1.0f);
const ImVec4 kWrong = ImVec4(1.0f, 0.50f, 0.45f, 1.0f);

// The exercises' titles (keys of the string tables).
const char* kTitles[kExerciseCount] = {"ex.title1", "ex.title2", "ex.title3", "ex.title4",
                                       "ex.title5", "ex.title6", "ex.title7", "ex.title8"};


std::string count(double v) { return format_count(v); }


// The answer boxes of the shown exercise, its Check and Show the answer buttons, and the
// verdicts: before Check nothing; a wrong try names the wrong part with a hint; the answer only
// once revealed (on request or after a second wrong try). True when the explanation may show.
bool answers_and_verdicts(AppState& state) {
  // New inputs since the answers were typed are a new question: its answers are hidden again.
  sync_exercise_instance(state);
  ExercisesState& ex = state.exercises;
  const size_t i = size_t(ex.shown - 1);
  const auto parts = exercise_parts(state, ex.shown);
  if (parts.empty()) return false;
  for (size_t k = 0; k < parts.size(); ++k) {
    std::string& text = ex.answers[i][k];
    if (!parts[k].choices.empty()) {
      // A choice question: one radio button per choice; the answer box holds its letter.
      ImGui::TextWrapped("%s", parts[k].label.c_str());
      ImGui::Indent();
      for (size_t c = 0; c < parts[k].choices.size(); ++c) {
        const std::string letter = choice_letter(int(c));
        if (wrapped_radio(letter, parts[k].choices[c], text == letter, "choice" + std::to_string(k) + "_" + std::to_string(c))) {
          text = letter;
          ex.checked[i] = false;
        }
      }
      ImGui::Unindent();
      continue;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s", text.c_str());
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
    const std::string id = parts[k].label + "##ans" + std::to_string(k);
    if (ImGui::InputTextWithHint(id.c_str(), parts[k].placeholder.c_str(), buf, sizeof buf)) {
      text = buf;
      ex.checked[i] = false;
    }
  }
  if (ImGui::Button(tr_id("ex.check").c_str())) check_exercise(state);
  ImGui::SameLine();
  // The answer only after a real attempt (a Check with every box answered).
  const bool may_reveal = can_reveal_exercise(ex, ex.shown);
  if (!may_reveal) ImGui::BeginDisabled();
  if (ImGui::Button(tr_id("ex.show_answer").c_str())) (void)reveal_exercise(state);
  if (!may_reveal) ImGui::EndDisabled();
  if (!may_reveal && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tr("grade.answer_first"));
  ImGui::SameLine();
  if (ImGui::Button(tr_id("ex.new_instance").c_str()))
    if (auto st = new_exercise_instance(state); !st.ok()) notify_error(state, st.error());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("ex.new_instance_tip"));
  if (ex.unanswered[i]) ImGui::TextColored(kWrong, "%s", tr("ex.unanswered"));
  if (!ex.checked[i] && !ex.revealed[i]) return false;
  for (size_t k = 0; k < parts.size(); ++k) {
    const ExercisePart& p = parts[k];
    const int grade = ex.checked[i] ? ex.grades[i][k] : int(PartGrade::empty);
    const std::string& typed = ex.answers[i][k];
    if (ex.revealed[i]) {
      if (grade == int(PartGrade::right))
        ImGui::TextColored(kRight, tr("ex.right_is"), p.label.c_str(), p.answer_text.c_str());
      else if (typed.empty())
        ImGui::TextColored(kWrong, tr("ex.answer_is"), p.label.c_str(), p.answer_text.c_str());
      else
        ImGui::TextColored(kWrong, tr("ex.answer_is_typed"), p.label.c_str(), p.answer_text.c_str(), typed.c_str());
    } else if (grade == int(PartGrade::right)) {
      ImGui::TextColored(kRight, tr("ex.right"), p.label.c_str());
    } else {
      ImGui::TextColored(kWrong, tr(grade == int(PartGrade::empty) ? "ex.no_answer" : "ex.not_yet"), p.label.c_str());
      ImGui::Indent();
      ImGui::TextWrapped(tr("ex.hint"), p.hint.c_str());
      ImGui::Unindent();
    }
  }
  if (ex.checked[i] && ex.solved[i]) {
    ImGui::TextColored(kRight, "%s", tr("ex.all_right"));
  } else if (!ex.revealed[i]) {
    ImGui::TextDisabled("%s", tr("ex.try_again"));
  }
  return exercise_solved_or_revealed(ex, ex.shown);
}

void explanation(const char* text) {
  ImGui::Spacing();
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.80f, 0.82f, 0.88f, 1.0f));
  ImGui::TextWrapped("%s", text);
  ImGui::PopStyleColor();
}

void question(const char* text) {
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
  ImGui::TextWrapped("%s", text);
  ImGui::PopStyleColor();
  ImGui::Spacing();
}

// Power-of-two degree picker.
void degree_combo(const char* label, int& value, int max_value) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
  if (ImGui::BeginCombo(label, std::to_string(value).c_str())) {
    for (int d = 1; d <= max_value; d *= 2)
      if (ImGui::Selectable(std::to_string(d).c_str(), d == value)) value = d;
    ImGui::EndCombo();
  }
}

void exercise1(AppState& state) {
  ExercisesState& ex = state.exercises;
  question(tr("ex1.question"));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
  ImGui::InputInt(tr_id("ex1.b").c_str(), &ex.ex1_batch, 0);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
  ImGui::InputInt(tr_id("ex1.n").c_str(), &ex.ex1_in, 0);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
  ImGui::InputInt(tr_id("ex1.m").c_str(), &ex.ex1_out, 0);
  ex.ex1_batch = std::clamp(ex.ex1_batch, 1, 1 << 20);
  ex.ex1_in = std::clamp(ex.ex1_in, 1, 1 << 20);
  ex.ex1_out = std::clamp(ex.ex1_out, 1, 1 << 20);
  degree_combo(tr_id("ex1.s").c_str(), ex.ex1_sample_degree, 8);
  ImGui::SameLine();
  degree_combo(tr_id("ex1.p").c_str(), ex.ex1_param_degree, 8);
  const auto split = linear_split_numbers(ex.ex1_batch, ex.ex1_in, ex.ex1_out, ex.ex1_sample_degree, ex.ex1_param_degree);
  if (!split.ok()) {
    ImGui::TextColored(kWrong, "%s", tr("ex1.must_divide"));
    return;
  }
  const LinearSplitNumbers& n = split.value();
  ImGui::TextDisabled(tr("ex1.total_gpus"), ex.ex1_sample_degree * ex.ex1_param_degree);
  ImGui::Spacing();
  if (!answers_and_verdicts(state)) return;
  char text[512];
  std::snprintf(text, sizeof text, tr("ex1.explanation"),
                ex.ex1_sample_degree, ex.ex1_param_degree, ex.ex1_sample_degree, count(double(n.input_elements)).c_str(),
                ex.ex1_param_degree, count(double(n.weight_elements)).c_str(), n.sync_group, n.sync_group,
                count(double(n.sync_elements)).c_str(), n.sync_groups,
                n.sync_group == 1 ? tr("ex1.s_is_1") : "");
  explanation(text);
}

void exercise2(AppState& state) {
  ExercisesState& ex = state.exercises;
  question(tr("ex2.question"));
  const float w = ImGui::GetFontSize() * 7.0f;
  ImGui::SetNextItemWidth(w);
  ImGui::InputDouble(tr_id("ex2.current").c_str(), &ex.ex2_current_ms, 0, 0, "%.4g");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  ImGui::InputDouble(tr_id("ex2.proposed").c_str(), &ex.ex2_proposed_ms, 0, 0, "%.4g");
  ImGui::SetNextItemWidth(w);
  ImGui::InputDouble(tr_id("ex2.beta").c_str(), &ex.ex2_beta, 0, 0, "%.4g");
  ImGui::SameLine();
  ImGui::Checkbox(tr_id("ex2.normalize").c_str(), &ex.ex2_normalize);
  if (ex.ex2_normalize) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(w);
    ImGui::InputDouble(tr_id("ex2.initial").c_str(), &ex.ex2_initial_ms, 0, 0, "%.4g");
    if (!(ex.ex2_initial_ms > 0)) ex.ex2_initial_ms = 1;
  }
  ImGui::Spacing();
  if (!answers_and_verdicts(state)) return;
  const AcceptanceInputs inputs = acceptance_inputs(ex);
  const AcceptanceOdds odds = acceptance_odds(inputs, ex.ex2_beta);
  char text[900];
  std::snprintf(text, sizeof text, tr("ex2.explanation"),
                format_number(ex.ex2_beta, 4).c_str(), format_number(ex.ex2_current_ms, 6).c_str(), format_number(ex.ex2_proposed_ms, 6).c_str(),
                ex.ex2_normalize ? (" / " + format_number(odds.scale_ms, 6)).c_str() : "",
                format_number(odds.in_ms, 4).c_str(),
                tr(ex.ex2_proposed_ms <= ex.ex2_current_ms ? "ex2.improvement" : "ex2.worse"),
                format_number(odds.in_s, 4).c_str(),
                tr(ex.ex2_normalize ? "ex2.same_probability" : "ex2.raw_difference"),
                tr(ex.ex2_normalize ? "ex2.unitless" : "ex2.tick"));
  explanation(text);
  // The lecture's two cases side by side, for the costs above.
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("##ex2", 3, flags)) {
    for (const char* h : {"ex2.col_beta", "ex2.col_ms", "ex2.col_s"}) ImGui::TableSetupColumn(tr(h));
    ImGui::TableHeadersRow();
    for (const AcceptanceOdds& row : acceptance_table(inputs)) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::Text("%g%s", row.beta, row.beta == ex.ex2_beta ? tr("ex2.yours") : "");
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(format_number(row.in_ms, 4).c_str());
      ImGui::TableSetColumnIndex(2);
      ImGui::TextUnformatted(format_number(row.in_s, 4).c_str());
    }
    ImGui::EndTable();
  }
}

void draw_delta_timeline(const DeltaMove& m) {
  const float font = ImGui::GetFontSize();
  const float lane_h = font * 1.15f;
  const float label_w = font * 7.0f;
  const float width = std::max(100.0f, ImGui::GetContentRegionAvail().x);
  const float height = lane_h * float(m.lane_names.size()) + font * 0.5f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const double span = std::max(1e-9, m.new_ms);
  const float x0 = p0.x + label_w, x1 = p0.x + width - font * 0.5f;
  for (size_t l = 0; l < m.lane_names.size(); ++l) {
    const float y = p0.y + lane_h * float(l);
    dl->AddText(ImVec2(p0.x, y), IM_COL32(200, 200, 210, 255), m.lane_names[l].c_str());
    dl->AddLine(ImVec2(x0, y + lane_h - 1), ImVec2(x1, y + lane_h - 1), IM_COL32(60, 64, 72, 255));
  }
  const float kx = float((x1 - x0) / span);
  const float cut = x0 + float(m.earliest_changed_ms) * kx;
  for (const auto& b : m.boxes) {
    const float y = p0.y + lane_h * float(b.lane) + 2;
    const float a = x0 + float(b.start_ms) * kx, e = std::max(a + 1.0f, x0 + float(b.end_ms) * kx);
    dl->AddRectFilled(ImVec2(a, y), ImVec2(e, y + lane_h - 4), b.changed ? IM_COL32(255, 150, 60, 235) : IM_COL32(90, 120, 170, 200));
  }
  dl->AddLine(ImVec2(cut, p0.y), ImVec2(cut, p0.y + height), IM_COL32(255, 230, 120, 255), 2.0f);
  dl->AddText(ImVec2(cut + 3, p0.y + height - font), IM_COL32(255, 230, 120, 255), tr("ex3.earliest"));
  ImGui::Dummy(ImVec2(width, height + font * 0.3f));
  ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.25f, 1.0f), "%s", tr("ex3.orange"));
  ImGui::SameLine();
  ImGui::TextColored(ImVec4(0.45f, 0.6f, 0.85f, 1.0f), "%s", tr("ex3.blue"));
}

void exercise3(AppState& state) {
  ExercisesState& ex = state.exercises;
  refresh_exercise_data(state);
  question(tr("ex3.question"));
  if (!state.flexflow.task_graph || ex.ex3.moves.size() != state.graph.ops.size()) return;
  ImGui::TextDisabled(tr("ex3.inputs"), state.settings.model.c_str(),
                      state.settings.cluster.c_str(), state.settings.strategy.c_str());
  const bool show = answers_and_verdicts(state);
  if (show) {
    explanation(tr("ex3.explanation"));
  }
  // Before the answer: what the reader reasons from (the move, and when each op starts now); the
  // recomputed counts and the timeline after the move are the answer, shown once solved or revealed.
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("##ex3", show ? 8 : 4, flags)) {
    for (const char* h : {"ex3.col_op", "ex3.col_move", "ex3.col_first", "ex3.col_tasks", "ex3.col_recomputed", "ex3.col_kept",
                          "ex3.col_before_after", "ex3.col_full"}) {
      if (!show && std::string(h) == "ex3.col_recomputed") break;
      ImGui::TableSetupColumn(tr(h));
    }
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < ex.ex3.moves.size(); ++i) {
      const DeltaMove& m = ex.ex3.moves[i];
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      if (ImGui::Selectable((state.graph.ops[i].name() + "##ex3op").c_str(), ex.ex3_op == int(i), ImGuiSelectableFlags_SpanAllColumns))
        ex.ex3_op = int(i);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(move_text(m).c_str());
      ImGui::TableSetColumnIndex(2);
      ImGui::TextUnformatted(i < ex.ex3.first_start_ms.size() ? format_ms(ex.ex3.first_start_ms[i]).c_str() : "");
      ImGui::TableSetColumnIndex(3);
      ImGui::Text("%d", m.tasks);
      if (!show) continue;
      ImGui::TableSetColumnIndex(4);
      ImGui::Text("%d (%.0f%%)", m.recomputed, m.tasks ? 100.0 * m.recomputed / m.tasks : 0.0);
      ImGui::TableSetColumnIndex(5);
      ImGui::Text("%d", m.kept);
      ImGui::TableSetColumnIndex(6);
      ImGui::Text("%s -> %s", format_ms(m.old_ms).c_str(), format_ms(m.new_ms).c_str());
      ImGui::TableSetColumnIndex(7);
      ImGui::Text("%s%s", format_ms(m.full_ms).c_str(), tr(m.matches_full() ? "ex3.same" : "ex3.differs"));
    }
    ImGui::EndTable();
  }
  if (show && ex.ex3_op >= 0 && ex.ex3_op < int(ex.ex3.moves.size())) {
    const DeltaMove& m = ex.ex3.moves[size_t(ex.ex3_op)];
    ImGui::Spacing();
    ImGui::TextWrapped(tr("ex3.timeline_after"),
                state.graph.ops[size_t(m.op)].name().c_str(), move_text(m).c_str(), m.kept_before_earliest, m.tasks,
                format_ms(m.earliest_changed_ms).c_str());
    draw_delta_timeline(m);
  }
}

void exercise4(AppState& state) {
  ExercisesState& ex = state.exercises;
  question(tr("ex4.question"));
  const auto mesh = exercise4_mesh(state.cluster);
  if (!mesh.ok()) {
    ImGui::TextWrapped(tr("ex4.needs_8"), mesh.error().message.c_str());
    return;
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
  ImGui::InputInt(tr_id("ex4.rows").c_str(), &ex.ex4_rows, 0);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
  ImGui::InputInt(tr_id("ex4.cols").c_str(), &ex.ex4_cols, 0);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.0f);
  ImGui::InputInt(tr_id("ex4.dtype").c_str(), &ex.ex4_dtype_bytes, 0);
  ex.ex4_rows = std::clamp(ex.ex4_rows, 2, 1 << 20);
  ex.ex4_cols = std::clamp(ex.ex4_cols, 4, 1 << 20);
  ex.ex4_dtype_bytes = std::clamp(ex.ex4_dtype_bytes, 1, 8);
  const ReshardExercise r4 = reshard_exercise(mesh.value(), ex.ex4_rows, ex.ex4_cols, ex.ex4_dtype_bytes);
  const auto& a0 = r4.axis[0];
  const auto& a1 = r4.axis[1];
  ImGui::TextDisabled(tr("ex4.axes"), a0.size,
                      tr(a0.crosses_nodes ? "ex4.across" : "ex4.inside"), format_ms(a0.beta).c_str(), a1.size,
                      tr(a1.crosses_nodes ? "ex4.across" : "ex4.inside"), format_ms(a1.beta).c_str(), format_bytes(r4.tensor_bytes).c_str());
  if (!answers_and_verdicts(state)) return;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("##ex4", 5, flags)) {
    for (const char* h : {"ex4.col_order", "ex4.col_step1", "ex4.col_step2", "ex4.col_bytes", "ex4.col_time"}) ImGui::TableSetupColumn(tr(h));
    ImGui::TableHeadersRow();
    for (const ReshardOrder* r : {&r4.axis0_first, &r4.axis1_first}) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(tr(r->first_axis == 0 ? "ex4.axis0_first" : "ex4.axis1_first"));
      ImGui::TableSetColumnIndex(1);
      ImGui::Text(tr("ex4.gather_on"), axis_name(r->first_axis, r4.axis[r->first_axis].crosses_nodes).c_str(), format_bytes(r->first_bytes).c_str(),
                  format_ms(r->first_ms).c_str());
      ImGui::TableSetColumnIndex(2);
      ImGui::Text(tr("ex4.gather_on"), axis_name(r->second_axis, r4.axis[r->second_axis].crosses_nodes).c_str(), format_bytes(r->second_bytes).c_str(),
                  format_ms(r->second_ms).c_str());
      ImGui::TableSetColumnIndex(3);
      ImGui::Text("%s / %s", format_bytes(r->slow_axis_bytes).c_str(), format_bytes(r->fast_axis_bytes).c_str());
      ImGui::TableSetColumnIndex(4);
      ImGui::Text("%s", format_ms(r->total_ms()).c_str());
    }
    ImGui::EndTable();
  }
  explanation(tr("ex4.explanation"));
}

// The inputs of DP row v: cost[v][j] of each strategy j of op v, and the resharding cost R[i][j]
// from each strategy i of op v-1 (with its best[v-1][i]): all a reader needs to fill the row.
void draw_dp_row_inputs(const ExercisesState& ex, int v) {
  const ChainDpExercise& p = ex.ex5;
  const int kp = int(p.cost[size_t(v - 1)].size()), k = int(p.cost[size_t(v)].size());
  ImGui::TextWrapped(tr("ex5.row_inputs"), ex.ex5.ops[size_t(v)].c_str());
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
  const float h = ImGui::GetTextLineHeightWithSpacing() * float(kp + 3) + ImGui::GetStyle().ScrollbarSize;
  if (ImGui::BeginTable("##ex5_inputs", k + 2, flags, ImVec2(0, h))) {
    ImGui::TableSetupScrollFreeze(2, 0);
    ImGui::TableSetupColumn((ex.ex5.ops[size_t(v - 1)] + " i").c_str());
    ImGui::TableSetupColumn("best[i]");
    for (int j = 0; j < k; ++j) ImGui::TableSetupColumn(ex.ex5.strategy_names[size_t(v)][size_t(j)].c_str());
    ImGui::TableHeadersRow();
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextColored(kAccentText, "cost[j]");
    for (int j = 0; j < k; ++j) {
      ImGui::TableSetColumnIndex(j + 2);
      ImGui::TextColored(kAccentText, "%.3f", p.cost[size_t(v)][size_t(j)]);
    }
    for (int i = 0; i < kp; ++i) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(ex.ex5.strategy_names[size_t(v - 1)][size_t(i)].c_str());
      ImGui::TableSetColumnIndex(1);
      ImGui::Text("%.3f", ex.ex5.dp.best[size_t(v - 1)][size_t(i)]);
      for (int j = 0; j < k; ++j) {
        ImGui::TableSetColumnIndex(j + 2);
        ImGui::Text("%.3f", p.reshard[size_t(v)][size_t(i * k + j)]);
      }
    }
    ImGui::EndTable();
  }
}

void exercise5(AppState& state) {
  ExercisesState& ex = state.exercises;
  question(tr("ex5.question"));
  refresh_exercise_data(state);
  if (!ex.ex5_error.empty()) {
    ImGui::TextColored(kWrong, "%s", ex.ex5_error.c_str());
    return;
  }
  const int rows = int(ex.ex5.dp.best.size());
  if (rows == 0) return;
  ImGui::TextDisabled(tr("ex5.inputs"), state.settings.mesh.c_str(), state.settings.cluster.c_str());
  const bool row_done = ex.ex5_rows_shown >= rows || exercise_solved_or_revealed(ex, 5);
  if (!row_done) ImGui::BeginDisabled();
  if (ImGui::Button(tr_id("ex5.next_row").c_str()) && ex.ex5_rows_shown < rows) ++ex.ex5_rows_shown;
  if (!row_done) ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button(tr_id("ex5.all_rows").c_str())) ex.ex5_rows_shown = rows;
  ImGui::SameLine();
  if (ImGui::Button(tr_id("ex.restart").c_str())) ex.ex5_rows_shown = 1;
  refresh_exercise_data(state);   // a new row is a new question
  size_t width = 0;
  for (const auto& r : ex.ex5.dp.best) width = std::max(width, r.size());
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("##ex5", int(width) + 1, flags)) {
    ImGui::TableSetupColumn(tr("ex5.col_op"));
    for (size_t j = 0; j < width; ++j) ImGui::TableSetupColumn(("j=" + std::to_string(j)).c_str());
    ImGui::TableHeadersRow();
    for (int v = 0; v < rows; ++v) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(ex.ex5.ops[size_t(v)].c_str());
      for (size_t j = 0; j < ex.ex5.dp.best[size_t(v)].size(); ++j) {
        ImGui::TableSetColumnIndex(int(j) + 1);
        const bool chosen = v < int(ex.ex5.dp.choice.size()) && ex.ex5.dp.choice[size_t(v)] == int(j) && ex.ex5_rows_shown == rows;
        if (v < ex.ex5_rows_shown) {
          if (chosen) ImGui::PushStyleColor(ImGuiCol_Text, kRight);
          ImGui::Text("%.3f", ex.ex5.dp.best[size_t(v)][j]);
          if (chosen) ImGui::PopStyleColor();
          ImGui::TextDisabled("%s", ex.ex5.strategy_names[size_t(v)][j].c_str());
          if (ImGui::IsItemHovered() && v > 0)
            ImGui::SetTooltip(tr("ex5.from"), ex.ex5.ops[size_t(v - 1)].c_str(), ex.ex5.dp.from[size_t(v)][j],
                              ex.ex5.strategy_names[size_t(v - 1)][size_t(ex.ex5.dp.from[size_t(v)][j])].c_str());
        } else {
          ImGui::TextDisabled("?");
          ImGui::TextDisabled("%s", ex.ex5.strategy_names[size_t(v)][j].c_str());
        }
      }
    }
    ImGui::EndTable();
  }
  if (ex.ex5_rows_shown < rows) {
    ImGui::Spacing();
    draw_dp_row_inputs(ex, ex.ex5_rows_shown);
    ImGui::Spacing();
    if (!answers_and_verdicts(state)) return;
  } else {
    ImGui::TextColored(kRight, tr("ex5.objective"), format_ms(ex.ex5.dp.objective).c_str());
  }
  explanation(tr("ex5.explanation"));
}

void exercise6(AppState& state) {
  ExercisesState& ex = state.exercises;
  question(tr("ex6.question"));
  for (int l = 0; l < 4; ++l) {
    if (l) ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.5f);
    ImGui::InputFloat(("L" + std::to_string(l + 1) + " ms").c_str(), &ex.ex6_layer_ms[size_t(l)], 0, 0, "%.2f");
    ex.ex6_layer_ms[size_t(l)] = std::clamp(ex.ex6_layer_ms[size_t(l)], 0.01f, 1000.0f);
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
  ImGui::InputInt(tr_id("ex6.microbatches").c_str(), &ex.ex6_microbatches, 0);
  ex.ex6_microbatches = std::clamp(ex.ex6_microbatches, 1, 1024);
  const TmaxExercise walk = tmax_exercise(ex.ex6_layer_ms, ex.ex6_microbatches);
  const auto& steps = walk.steps;
  const int n = int(steps.size());
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  // The inputs: every possible stage (a run of layers) on 1 GPU and on 2 GPUs.
  ImGui::TextWrapped("%s", tr("ex6.latencies"));
  if (ImGui::BeginTable("##ex6_costs", 3, flags | ImGuiTableFlags_SizingFixedFit)) {
    for (const char* h : {"ex6.col_stage", "ex6.col_1gpu", "ex6.col_2gpu"}) ImGui::TableSetupColumn(tr(h));
    ImGui::TableHeadersRow();
    for (const auto& l : walk.latencies) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::Text(l.first == l.last ? "L%d" : "L%d-L%d", l.first + 1, l.last + 1);
      ImGui::TableSetColumnIndex(1);
      ImGui::Text("%.3f", l.one_gpu_ms);
      ImGui::TableSetColumnIndex(2);
      ImGui::Text("%.3f", l.two_gpus_ms);
    }
    ImGui::EndTable();
  }
  const bool show = answers_and_verdicts(state);
  if (!show) return;
  ImGui::Spacing();
  if (ImGui::Button(tr_id("ex6.next").c_str()) && ex.ex6_steps_shown < n) ++ex.ex6_steps_shown;
  ImGui::SameLine();
  if (ImGui::Button(tr_id("ex6.all").c_str())) ex.ex6_steps_shown = n;
  ImGui::SameLine();
  if (ImGui::Button((std::string(tr("ex.restart")) + "###ex6_restart").c_str())) ex.ex6_steps_shown = 1;
  ex.ex6_steps_shown = std::clamp(ex.ex6_steps_shown, 1, std::max(1, n));
  if (ImGui::BeginTable("##ex6", 5, flags)) {
    for (const char* h : {"ex6.col_tmax", "ex6.col_sum", "ex6.col_total", "ex6.col_stages", "ex6.col_note"}) ImGui::TableSetupColumn(tr(h));
    ImGui::TableHeadersRow();
    double running = std::numeric_limits<double>::infinity();
    for (int i = 0; i < std::min(n, ex.ex6_steps_shown); ++i) {
      const TmaxStep& s = steps[size_t(i)];
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::Text("%.3f", s.t_max);
      ImGui::TableSetColumnIndex(1);
      if (s.stopped) ImGui::TextDisabled("-");
      else if (std::isfinite(s.sum_ms)) ImGui::Text("%.3f", s.sum_ms);
      else ImGui::TextDisabled("%s", tr("ex6.infeasible"));
      ImGui::TableSetColumnIndex(2);
      if (std::isfinite(s.total_ms)) ImGui::Text("%.3f", s.total_ms);
      ImGui::TableSetColumnIndex(3);
      ImGui::TextUnformatted(stages_text(s).c_str());
      ImGui::TableSetColumnIndex(4);
      if (s.stopped) {
        ImGui::TextColored(kWrong, tr("ex6.stop"), (ex.ex6_microbatches - 1) * s.t_max, running);
      } else if (std::isfinite(s.total_ms) && s.total_ms < running) {
        ImGui::TextColored(kRight, "%s", tr("ex6.new_best"));
      }
      running = std::min(running, s.total_ms);
    }
    ImGui::EndTable();
  }
  if (walk.core_solved) {
    // The core gives the walk's plan but skips runs of candidates with a bound (core/inter_op.h).
    ImGui::TextWrapped(tr("ex6.core"), walk.core.total_latency, walk.core.t_max, walk.core.t_max_candidates, walk.core.t_max_tried);
  }
  explanation(tr("ex6.explanation"));
}

void exercise7(AppState& state) {
  ExercisesState& ex = state.exercises;
  question(tr("ex7.question"));
  refresh_exercise_data(state);
  if (!ex.ex7_error.empty()) {
    ImGui::TextColored(kWrong, "%s", ex.ex7_error.c_str());
    return;
  }
  if (!ex.ex7) return;
  const DlrmExercise& dlrm = *ex.ex7;
  ImGui::TextDisabled(tr("ex7.inputs"), state.settings.cluster.c_str());
  ImGui::Spacing();
  // The simulated numbers only once the questions are answered: the reader reasons first.
  if (!answers_and_verdicts(state)) return;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("##ex7", 3, flags)) {
    for (const char* h : {"", "ex7.col_dp", "ex7.col_expert"}) ImGui::TableSetupColumn(*h ? tr(h) : "");
    ImGui::TableHeadersRow();
    auto row = [&](const char* label, double SimSummary::*field, bool bytes) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(tr(label));
      const double a = dlrm.data_parallel.*field, b = dlrm.expert.*field;
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted((bytes ? format_bytes(a) : format_ms(a)).c_str());
      ImGui::TableSetColumnIndex(2);
      ImGui::TextUnformatted((bytes ? format_bytes(b) : format_ms(b)).c_str());
    };
    row("ex7.row_iteration", &SimSummary::makespan_ms, false);
    row("ex7.row_compute", &SimSummary::compute_ms, false);
    row("ex7.row_activations", &SimSummary::activation_transfer_ms, false);
    row("ex7.row_sync", &SimSummary::param_sync_ms, false);
    row("ex7.row_sync_bytes", &SimSummary::param_sync_bytes, true);
    row("ex7.row_activation_bytes", &SimSummary::activation_bytes, true);
    ImGui::EndTable();
  }
  ImGui::TextWrapped(tr("ex7.speedup"), format_number(dlrm.speedup(), 4).c_str());
  // The lecture's "2 GB" is the tables; the sync bytes above are what every GPU's ring all-reduce moves.
  ImGui::TextWrapped(tr("ex7.sync_bytes_note"), format_bytes(dlrm.data_parallel.param_sync_bytes).c_str(), state.cluster.num_devices());
  explanation(tr("ex7.explanation"));
}

void exercise8(AppState& state) {
  question(tr("ex8.question"));
  if (!state.flexflow.task_graph) return;
  const SimSummary& s = state.flexflow.summary;
  const double additive = additive_cost_ms(s);
  ImGui::TextDisabled(tr("ex8.inputs"), state.settings.model.c_str(), state.settings.cluster.c_str(), state.settings.strategy.c_str());
  // The sums and the makespan only once the reader has predicted: they are the answer.
  if (!answers_and_verdicts(state)) return;
  ImGui::TextWrapped(tr("ex8.sum"), format_ms(s.compute_ms).c_str(),
              format_ms(s.activation_transfer_ms).c_str(), format_ms(s.param_sync_ms).c_str());
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("##ex8", 2, flags)) {
    ImGui::TableSetupColumn(tr("ex8.col_sim"));
    ImGui::TableSetupColumn(tr("ex8.col_additive"));
    ImGui::TableHeadersRow();
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::Text(tr("ex8.makespan"), format_ms(s.makespan_ms).c_str());
    ImGui::TableSetColumnIndex(1);
    ImGui::Text(tr("ex8.times_makespan"), format_ms(additive).c_str(), s.makespan_ms > 0 ? additive / s.makespan_ms : 0.0);
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextWrapped("%s", tr("ex8.sim_note"));
    ImGui::TableSetColumnIndex(1);
    ImGui::TextWrapped("%s", tr("ex8.additive_note"));
    ImGui::EndTable();
  }
  explanation(tr("ex8.explanation"));
}

}  // namespace

void draw_exercises_panel(AppState& state, const PanelRect& rect) {
  ExercisesState& ex = state.exercises;
  if (begin_panel(state, kExercisesWindow, "exercises", rect)) {
    const float list_w = ImGui::GetFontSize() * 17.5f;
    ImGui::BeginChild("##exercise_list", ImVec2(list_w, 0), true);
    for (int i = 0; i < kExerciseCount; ++i)
      if (ImGui::Selectable(tr_id(kTitles[i]).c_str(), ex.shown == i + 1)) ex.shown = i + 1;
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##exercise_body", ImVec2(0, 0), false);
    ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
    ImGui::Text(tr("ex.heading"), tr(kTitles[ex.shown - 1]));
    ImGui::PopStyleColor();
    ImGui::Separator();
    ImGui::Spacing();
    switch (ex.shown) {
      case 1: exercise1(state); break;
      case 2: exercise2(state); break;
      case 3: exercise3(state); break;
      case 4: exercise4(state); break;
      case 5: exercise5(state); break;
      case 6: exercise6(state); break;
      case 7: exercise7(state); break;
      default: exercise8(state); break;
    }
    ImGui::EndChild();
  }
  ImGui::End();
}

}  // namespace autopar::web
