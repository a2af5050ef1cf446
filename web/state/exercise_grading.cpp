// Grading the exercises (see exercise_grading.h).
#include "exercise_grading.h"

#include <cctype>
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

// A question answered by choosing one of `choices` (by letter); `right` is the right one's index.
ExercisePart choice(std::string label, std::vector<std::string> choices, int right, std::string hint) {
  ExercisePart p;
  p.label = std::move(label);
  p.numeric = false;
  p.placeholder = tr("grade.a_letter");
  p.accepted = {choice_letter(right)};
  p.answer_text = choice_letter(right) + ") " + choices[size_t(right)];
  p.hint = std::move(hint);
  p.choices = std::move(choices);
  return p;
}

// The choices of a predicted ratio: one per bucket between `bounds` ("under 2x", "2x to 10x", ...).
std::vector<std::string> bucket_choices(const std::vector<double>& bounds) {
  // "1,000x", "1.25x": whole bounds with thousands separators, never "1e+03x".
  auto x = [](double v) {
    if (v != std::floor(v)) return format_number(v, 3) + "x";
    std::string digits = std::to_string(int64_t(v)), out;
    for (size_t k = 0; k < digits.size(); ++k) {
      if (k && (digits.size() - k) % 3 == 0) out += ',';
      out += digits[k];
    }
    return out + "x";
  };
  std::vector<std::string> c;
  for (size_t k = 0; k <= bounds.size(); ++k) {
    if (k == 0) c.push_back(tr_fill("grade.bucket_under", {x(bounds[0])}));
    else if (k == bounds.size()) c.push_back(tr_fill("grade.bucket_over", {x(bounds[k - 1])}));
    else c.push_back(tr_fill("grade.bucket_between", {x(bounds[k - 1]), x(bounds[k])}));
  }
  return c;
}

// The buckets of exercise 7's speed-up and exercise 8's additive cost over the makespan.
const std::vector<double> kDlrmSpeedupBounds = {2, 10, 100, 1000};
const std::vector<double> kAdditiveBounds = {1.25, 1.5, 2, 3};

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
  sync_exercise_instance(state);   // new inputs: a new question, its answers hidden again
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
      const DeltaMove& key = ex.ex3.moves[size_t(ex.ex3.most_recomputing_ops.front())];
      p.answer_text = tr_fill("grade.ex3_answer", {p.accepted.front(), std::to_string(key.recomputed), std::to_string(key.tasks),
                                                   format_percent(key.recomputed_share())});
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
      // The lecture's two "why" questions as choices, then the size of the gap as a prediction;
      // the simulated numbers appear only once these are answered.
      const double speedup = ex.ex7 ? ex.ex7->speedup() : 0.0;
      if (!(speedup > 0)) break;
      parts.push_back(choice(tr("grade.ex7_why"), {tr("grade.ex7_why_a"), tr("grade.ex7_why_b"), tr("grade.ex7_why_c"), tr("grade.ex7_why_d")}, 1,
                             tr("grade.ex7_why_hint")));
      parts.push_back(choice(tr("grade.ex7_config"), {tr("grade.ex7_config_a"), tr("grade.ex7_config_b"), tr("grade.ex7_config_c")}, 2,
                             tr("grade.ex7_config_hint")));
      parts.push_back(choice(tr("grade.ex7_ratio"), bucket_choices(kDlrmSpeedupBounds), ratio_bucket(kDlrmSpeedupBounds, speedup),
                             tr("grade.ex7_hint")));
      break;
    }
    case 8: {
      if (!state.flexflow.task_graph || !(state.flexflow.summary.makespan_ms > 0)) break;
      const double ratio = additive_cost_ms(state.flexflow.summary) / state.flexflow.summary.makespan_ms;
      parts.push_back(choice(tr("grade.ex8_which"), {tr("grade.ex8_which_a"), tr("grade.ex8_which_b"), tr("grade.ex8_which_c")}, 0,
                             tr("grade.ex8_which_hint")));
      parts.push_back(choice(tr("grade.ex8_ilp"), {tr("grade.ex8_ilp_a"), tr("grade.ex8_ilp_b"), tr("grade.ex8_ilp_c")}, 1,
                             tr("grade.ex8_ilp_hint")));
      parts.push_back(choice(tr("grade.ex8_ratio"), bucket_choices(kAdditiveBounds), ratio_bucket(kAdditiveBounds, ratio), tr("grade.ex8_hint")));
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
  if (!part.choices.empty()) {   // "b", "B" or "b)" all name choice b
    const char letter = char(std::tolower(static_cast<unsigned char>(t[0])));
    const bool one_letter = t.size() == 1 || (t.size() == 2 && t[1] == ')');
    return one_letter && std::string(1, letter) == part.accepted.front() ? PartGrade::right : PartGrade::wrong;
  }
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
  ex.unanswered[i] = false;
}

void check_exercise(AppState& state) {
  refresh_exercise_data(state);
  ExercisesState& ex = state.exercises;
  const size_t i = size_t(ex.shown - 1);
  const auto parts = exercise_parts(state, ex.shown);
  // An empty box is not an attempt: nothing is graded and no try counts.
  bool any_empty = parts.empty();
  for (size_t k = 0; k < parts.size(); ++k) any_empty = any_empty || grade_part(parts[k], ex.answers[i][k]) == PartGrade::empty;
  ex.unanswered[i] = any_empty;
  if (any_empty) {
    ex.checked[i] = false;
    ex.solved[i] = false;
    ex.grades[i] = {0, 0, 0};
    return;
  }
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

bool can_reveal_exercise(const ExercisesState& ex, int number) {
  const size_t i = size_t(number - 1);
  return ex.revealed[i] || ex.tries[i] > 0 || (ex.checked[i] && ex.solved[i]);
}

Status reveal_exercise(AppState& state) {
  ExercisesState& ex = state.exercises;
  if (!can_reveal_exercise(ex, ex.shown))
    return make_error(ErrorCode::not_ready, tr("grade.answer_first"), "exercise.reveal");
  ex.revealed[size_t(ex.shown - 1)] = true;
  return Ok{};
}

std::string exercise_instance_key(const AppState& state, int number) {
  const ExercisesState& ex = state.exercises;
  auto n = [](double v) { return format_number(v, 17); };
  const std::string page = state.settings.model + "|" + state.settings.cluster + "|" + state.settings.strategy;
  switch (number) {
    case 1: return std::to_string(ex.ex1_batch) + "|" + std::to_string(ex.ex1_in) + "|" + std::to_string(ex.ex1_out) + "|" +
                   std::to_string(ex.ex1_sample_degree) + "|" + std::to_string(ex.ex1_param_degree);
    case 2: return n(ex.ex2_current_ms) + "|" + n(ex.ex2_proposed_ms) + "|" + n(ex.ex2_beta) + "|" + (ex.ex2_normalize ? n(ex.ex2_initial_ms) : "raw");
    case 3: return page;
    case 4: return std::to_string(ex.ex4_rows) + "|" + std::to_string(ex.ex4_cols) + "|" + std::to_string(ex.ex4_dtype_bytes) + "|" + state.settings.cluster;
    case 5: return state.settings.cluster + "|" + state.settings.mesh + "|" + std::to_string(ex.ex5_rows_shown);
    case 6: {
      std::string k = std::to_string(ex.ex6_microbatches);
      for (float l : ex.ex6_layer_ms) k += "|" + n(l);
      return k;
    }
    case 7: return ex7_key_of(state);
    default: return page;
  }
}

void sync_exercise_instance(AppState& state) {
  ExercisesState& ex = state.exercises;
  const size_t i = size_t(ex.shown - 1);
  const std::string key = exercise_instance_key(state, ex.shown);
  if (ex.instance_keys[i] == key) return;
  // The first key seen is the question the reader starts on; a later one is a new question.
  if (!ex.instance_keys[i].empty()) reset_exercise_answers(ex, ex.shown);
  ex.instance_keys[i] = key;
}

Status new_exercise_instance(AppState& state) {
  ExercisesState& ex = state.exercises;
  const int number = ex.shown;
  const uint64_t seed = ++ex.instances[size_t(number - 1)];
  if (!new_own_instance(ex, number, seed)) {
    // The page's inputs: another strategy (3, 8), mesh (5) or cluster (7), in a fixed cycle.
    Settings next = state.settings;
    if (number == 3 || number == 8) {
      // The next random strategy that is not the current one (the other exercise may have drawn it).
      uint64_t k = seed;
      while ("random:" + std::to_string(k) == state.settings.strategy) ++k;
      ex.instances[size_t(number - 1)] = k;
      next.strategy = "random:" + std::to_string(k);
    } else if (number == 5) {
      static const char* meshes[] = {"1x8", "2x4", "4x2", "8x1"};
      next.cluster = "lecture:2x4";
      next.custom_cluster.reset();
      next.mesh = meshes[seed % 4];
      if (next.mesh == state.settings.mesh && next.cluster == state.settings.cluster) next.mesh = meshes[(seed + 1) % 4];
    } else if (number == 7) {
      static const char* clusters[] = {"lecture:2x4", "p100:2x4", "k80:2x4", "v100:1x8", "a100:1x8", "lecture:1x8"};
      next.cluster = clusters[seed % 6];
      next.custom_cluster.reset();
      if (next.cluster == state.settings.cluster) next.cluster = clusters[(seed + 1) % 6];
      next.mesh = next.cluster.substr(next.cluster.find(':') + 1);
    }
    if (auto st = apply_settings(state, next); !st.ok()) return st;
    ex.shown = number;
    refresh_exercise_data(state);
  }
  reset_exercise_answers(ex, number);
  ex.instance_keys[size_t(number - 1)] = exercise_instance_key(state, number);
  return Ok{};
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
    Json choices = Json::array();
    for (const auto& c : parts[k].choices) choices.push_back(without_break_marks(c));
    jparts.push_back(Json{{"label", without_break_marks(parts[k].label)},
                          {"correct", ex.checked[i] ? Json(right) : Json(nullptr)},
                          {"expected", expected},
                          {"hint", wrong ? Json(without_break_marks(parts[k].hint)) : Json(nullptr)},
                          {"choices", choices}});
  }
  return Json{{"number", ex.shown},
              {"answer", ex.answers[i][0]},
              {"answers", answers},
              {"checked", ex.checked[i]},
              {"unanswered", ex.unanswered[i]},
              {"tries", ex.tries[i]},
              {"revealed", ex.revealed[i]},
              {"can_reveal", can_reveal_exercise(ex, ex.shown)},
              {"instance", ex.instance_keys[i]},
              {"correct", ex.checked[i] ? Json(ex.solved[i]) : Json(nullptr)},
              {"parts", jparts},
              {"expected", jparts.empty() ? Json(nullptr) : jparts[0]["expected"]}};
}

}  // namespace autopar::web
