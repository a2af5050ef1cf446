// Grading the exercises (see exercise_grading.h).
#include "exercise_grading.h"

#include <cmath>
#include <utility>

#include "exercise_operations.h"
#include "format_units.h"
#include "page_strings.h"
#include "strategy_argument.h"

namespace autopar::web {
namespace {

std::string number_text(double v) { return format_number(v, 6); }

ExercisePart numeric(std::string label, double expected, double rel, double abs_tol, std::string hint, std::string placeholder = tr("grade.a_number")) {
  ExercisePart p;
  p.label = std::move(label);
  p.expected = expected;
  p.rel = rel;
  p.abs_tol = abs_tol;
  p.hint = std::move(hint);
  p.placeholder = std::move(placeholder);
  p.answer_text = number_text(expected);
  return p;
}

// The key the DLRM simulations of exercise 7 were computed for.
std::string ex7_key_of(const AppState& state) { return state.settings.custom_cluster ? std::string() : state.settings.cluster; }

}  // namespace

void refresh_exercise_data(AppState& state) {
  ExercisesState& ex = state.exercises;
  if (ex.shown == 3 || ex.shown == 8) ensure_flexflow(state);   // they read the simulated strategy
  if (ex.shown == 3 && state.flexflow.task_graph &&
      (ex.ex3_revision != state.flexflow.revision || ex.ex3.moves.size() != state.graph.ops.size())) {
    ex.ex3 = delta_moves_exercise(state.graph, state.cluster, state.flexflow.strategy, *state.flexflow.task_graph);
    ex.ex3_revision = state.flexflow.revision;
    ex.ex3_op = int(ex.ex3.moves.size()) - 1;   // the last op: the move that keeps the most tasks
    reset_exercise_answers(ex, 3);
  }
  if (ex.shown == 5) {
    const std::string key = state.settings.cluster + "|" + state.settings.mesh + "|" + std::to_string(state.cluster.num_devices());
    if (ex.ex5_key != key) {
      ex.ex5_key = key;
      ex.ex5_error.clear();
      ex.ex5 = ChainDpExercise{};
      ex.ex5_rows_shown = 1;
      reset_exercise_answers(ex, 5);
      auto dp = chain_dp_exercise(state.cluster, state.settings.mesh);
      if (dp.ok())
        ex.ex5 = std::move(dp.value());
      else
        ex.ex5_error = dp.error().message;
    }
    if (ex.ex5_rows_graded != ex.ex5_rows_shown) {
      ex.ex5_rows_graded = ex.ex5_rows_shown;
      reset_exercise_answers(ex, 5);
    }
  }
  if (ex.shown == 7 && ex.ex7_key != ex7_key_of(state)) {
    ex.ex7_key = ex7_key_of(state);
    ex.ex7_error.clear();
    ex.ex7.reset();
    reset_exercise_answers(ex, 7);
    if (ex.ex7_key.empty()) {
      ex.ex7_error = tr("grade.needs_preset");
    } else {
      auto dlrm = dlrm_exercise(ex.ex7_key);
      if (dlrm.ok())
        ex.ex7 = dlrm.value();
      else
        ex.ex7_error = dlrm.error().message;
    }
  }
}

std::vector<ExercisePart> exercise_parts(const AppState& state, int number) {
  const ExercisesState& ex = state.exercises;
  std::vector<ExercisePart> parts;
  switch (number) {
    case 1: {
      const auto split = linear_split_numbers(ex.ex1_batch, ex.ex1_in, ex.ex1_out, ex.ex1_sample_degree, ex.ex1_param_degree);
      if (!split.ok()) break;
      const LinearSplitNumbers& n = split.value();
      parts.push_back(numeric(tr("grade.ex1_input"), double(n.input_elements), 1e-9, 0.5, tr("grade.ex1_input_hint")));
      parts.push_back(numeric(tr("grade.ex1_weight"), double(n.weight_elements), 1e-9, 0.5, tr("grade.ex1_weight_hint")));
      parts.push_back(numeric(tr("grade.ex1_sync"), double(n.sync_elements), 1e-9, 0.5, tr("grade.ex1_sync_hint"), tr("grade.ex1_sync_placeholder")));
      break;
    }
    case 2:
      parts.push_back(numeric(tr("grade.ex2_probability"), exercise2_expected(ex), 0.02, 5e-4,
                              tr(ex.ex2_normalize ? "grade.ex2_hint_normalized" : "grade.ex2_hint"), tr("grade.ex2_placeholder")));
      break;
    case 3: {
      if (ex.ex3.moves.size() != state.graph.ops.size() || ex.ex3.moves.empty()) break;
      ExercisePart p;
      p.label = tr("grade.ex3_label");
      p.placeholder = tr("grade.ex3_placeholder");
      p.numeric = false;
      for (int op : ex.ex3.most_recomputing_ops) p.accepted.push_back(state.graph.ops[size_t(op)].name());
      p.answer_text = tr_fill("grade.ex3_answer", {p.accepted.front(), std::to_string(ex.ex3.most_recomputed)});
      p.hint = tr("grade.ex3_hint");
      parts.push_back(p);
      break;
    }
    case 4: {
      const auto mesh = exercise4_mesh(state.cluster);
      if (!mesh.ok()) break;
      const ReshardExercise r = reshard_exercise(mesh.value(), ex.ex4_rows, ex.ex4_cols, ex.ex4_dtype_bytes);
      parts.push_back(numeric(tr("grade.ex4_order"), r.cheaper_first(), 0, 0.1, tr("grade.ex4_order_hint"), tr("grade.ex4_order_placeholder")));
      parts.push_back(numeric(tr("grade.ex4_first"), r.axis0_first.slow_axis_bytes, 0.01, 0.5, tr("grade.ex4_first_hint"), tr("grade.bytes")));
      parts.push_back(numeric(tr("grade.ex4_second"), r.axis1_first.slow_axis_bytes, 0.01, 0.5, tr("grade.ex4_second_hint"), tr("grade.bytes")));
      break;
    }
    case 5: {
      if (!ex.ex5_error.empty() || ex.ex5_rows_shown >= int(ex.ex5.dp.best.size())) break;
      parts.push_back(numeric(tr_fill("grade.ex5_min", {ex.ex5.ops[size_t(ex.ex5_rows_shown)]}), ex.ex5.row_min(ex.ex5_rows_shown), 0.01,
                              1e-6, tr("grade.ex5_hint"), "ms"));
      break;
    }
    case 6: {
      const double best = tmax_exercise(ex.ex6_layer_ms, ex.ex6_microbatches).best_total_ms;
      if (std::isfinite(best))
        parts.push_back(numeric(tr("grade.ex6_best"), best, 0.005, 1e-3, tr("grade.ex6_hint"), "ms"));
      break;
    }
    case 7: {
      const double speedup = ex.ex7 ? ex.ex7->speedup() : 0.0;
      if (speedup > 0)
        parts.push_back(numeric(tr("grade.ex7_ratio"), speedup, 0.05, 0.05, tr("grade.ex7_hint"), tr("grade.ex7_placeholder")));
      break;
    }
    case 8: {
      if (!state.flexflow.task_graph) break;
      parts.push_back(numeric(tr("grade.ex8_additive"), additive_cost_ms(state.flexflow.summary), 0.01, 1e-3,
                              tr("grade.ex8_hint"), "ms"));
      break;
    }
    default: break;
  }
  return parts;
}

PartGrade grade_part(const ExercisePart& part, const std::string& typed) {
  std::string t;
  for (char c : typed)
    if (c != ' ') t += c;
  if (t.empty()) return PartGrade::empty;
  if (!part.numeric) {
    for (const auto& a : part.accepted)
      if (a == t) return PartGrade::right;
    return PartGrade::wrong;
  }
  double v = 0;
  if (!parse_answer(typed, v)) return PartGrade::wrong;
  return answer_matches(v, part.expected, part.rel, part.abs_tol) ? PartGrade::right : PartGrade::wrong;
}

void reset_exercise_answers(ExercisesState& ex, int number) {
  const size_t i = size_t(number - 1);
  for (auto& a : ex.answers[i]) a.clear();
  ex.checked[i] = false;
  ex.tries[i] = 0;
  ex.revealed[i] = false;
  ex.solved[i] = false;
  ex.grades[i] = {0, 0, 0};
}

void check_exercise(AppState& state) {
  refresh_exercise_data(state);
  ExercisesState& ex = state.exercises;
  const size_t i = size_t(ex.shown - 1);
  const auto parts = exercise_parts(state, ex.shown);
  bool all_right = !parts.empty();
  for (size_t k = 0; k < 3; ++k) {
    const PartGrade g = k < parts.size() ? grade_part(parts[k], ex.answers[i][k]) : PartGrade::empty;
    ex.grades[i][k] = int(g);
    if (k < parts.size() && g != PartGrade::right) all_right = false;
  }
  ex.checked[i] = true;
  ex.solved[i] = all_right;
  if (!all_right && ++ex.tries[i] >= 2) ex.revealed[i] = true;
}

void reveal_exercise(AppState& state) {
  ExercisesState& ex = state.exercises;
  ex.revealed[size_t(ex.shown - 1)] = true;
}

bool exercise_solved_or_revealed(const ExercisesState& ex, int number) {
  const size_t i = size_t(number - 1);
  return ex.revealed[i] || (ex.checked[i] && ex.solved[i]);
}

Json exercise_result_json(const AppState& state) {
  const ExercisesState& ex = state.exercises;
  const size_t i = size_t(ex.shown - 1);
  const auto parts = exercise_parts(state, ex.shown);
  Json answers = Json::array();
  for (size_t k = 0; k < parts.size(); ++k) answers.push_back(ex.answers[i][k]);
  Json jparts = Json::array();
  for (size_t k = 0; k < parts.size(); ++k) {
    const bool right = ex.checked[i] && ex.grades[i][k] == int(PartGrade::right);
    const bool show = ex.revealed[i] || right;
    Json expected = nullptr;
    if (show) expected = parts[k].numeric ? Json(parts[k].expected) : Json(parts[k].accepted);
    const bool wrong = ex.checked[i] && !right && !ex.revealed[i];
    jparts.push_back(Json{{"label", without_break_marks(parts[k].label)},
                          {"correct", ex.checked[i] ? Json(right) : Json(nullptr)},
                          {"expected", expected},
                          {"hint", wrong ? Json(without_break_marks(parts[k].hint)) : Json(nullptr)}});
  }
  return Json{{"number", ex.shown},
              {"answer", ex.answers[i][0]},
              {"answers", answers},
              {"checked", ex.checked[i]},
              {"tries", ex.tries[i]},
              {"revealed", ex.revealed[i]},
              {"correct", ex.checked[i] ? Json(ex.solved[i]) : Json(nullptr)},
              {"parts", jparts},
              {"expected", jparts.empty() ? Json(nullptr) : jparts[0]["expected"]}};
}

}  // namespace autopar::web
