// Grading the exercises (see exercise_grading.h).
#include "exercise_grading.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "cluster_spec.h"
#include "alpa_operations.h"
#include "flexflow_operations.h"
#include "format_units.h"
#include "models.h"
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
      (ex.ex3_revision != state.flexflow.revision || ex.ex3_moves.size() != state.graph.ops.size())) {
    ex.ex3_moves.clear();
    for (int op = 0; op < int(state.graph.ops.size()); ++op)
      ex.ex3_moves.push_back(delta_move(state.graph, state.cluster, state.flexflow.strategy, op));
    ex.ex3_first_start_ms.assign(state.graph.ops.size(), std::numeric_limits<double>::infinity());
    for (const Task& t : state.flexflow.task_graph->tasks())
      if (t.live && t.kind == TaskKind::forward && t.op >= 0 && size_t(t.op) < ex.ex3_first_start_ms.size())
        ex.ex3_first_start_ms[size_t(t.op)] = std::min(ex.ex3_first_start_ms[size_t(t.op)], t.start_ms);
    ex.ex3_revision = state.flexflow.revision;
    ex.ex3_op = int(ex.ex3_moves.size()) - 1;   // the last op: the move that keeps the most tasks
    reset_exercise_answers(ex, 3);
  }
  if (ex.shown == 5) {
    const std::string key = state.settings.cluster + "|" + state.settings.mesh + "|" + std::to_string(state.cluster.num_devices());
    if (ex.ex5_key != key) {
      ex.ex5_key = key;
      ex.ex5_error.clear();
      ex.ex5_ops.clear();
      ex.ex5_strategy_names.clear();
      ex.ex5_dp = ChainDp{};
      ex.ex5_problem = IntraProblem{};
      ex.ex5_rows_shown = 1;
      reset_exercise_answers(ex, 5);
      auto g = load_model("transformer-chain");
      auto shape = parse_mesh_shape(state.settings.mesh, "mesh");
      if (!g.ok() || !shape.ok()) {
        ex.ex5_error = g.ok() ? shape.error().message : g.error().message;
      } else {
        auto mesh = mesh_from_cluster(shape.value().first, shape.value().second, state.cluster);
        // The problem plan_intra_op would solve, solved by the core's chain DP: a 5-op chain,
        // quick on this thread, and no ILP (the page does not link GLPK).
        IntraOpOptions o;
        o.solver = "dp";
        auto problem = mesh.ok() ? Result<IntraOpPlan>(intra_op_problem(g.value(), mesh.value(), o, 0, 0)) : Result<IntraOpPlan>(mesh.error());
        auto core = problem.ok() && is_chain(problem.value().problem) ? solve_chain_dp(problem.value().problem) : Result<IntraSolution>(IntraSolution{});
        if (!problem.ok()) {
          ex.ex5_error = problem.error().message;
        } else if (!is_chain(problem.value().problem)) {
          ex.ex5_error = "the problem is not a chain";
        } else if (!core.ok()) {
          ex.ex5_error = core.error().message;
        } else {
          ex.ex5_problem = problem.value().problem;
          ex.ex5_dp = chain_dp(ex.ex5_problem);
          for (size_t v = 0; v < g.value().ops.size(); ++v) {
            ex.ex5_ops.push_back(g.value().ops[v].name());
            std::vector<std::string> names;
            for (const auto& s : problem.value().strategies[v]) names.push_back(s.name);
            ex.ex5_strategy_names.push_back(names);
          }
          const double objective = core.value().objective;
          if (std::fabs(ex.ex5_dp.objective - objective) > 1e-9 * std::max(1.0, objective))
            ex.ex5_error = "the page's DP (" + format_ms(ex.ex5_dp.objective) + ") differs from the core's chain DP (" + format_ms(objective) + ")";
        }
      }
    }
    if (ex.ex5_rows_graded != ex.ex5_rows_shown) {
      ex.ex5_rows_graded = ex.ex5_rows_shown;
      reset_exercise_answers(ex, 5);
    }
  }
  if (ex.shown == 7 && ex.ex7_key != ex7_key_of(state)) {
    ex.ex7_key = ex7_key_of(state);
    ex.ex7_error.clear();
    ex.ex7_dp = Json();
    ex.ex7_expert = Json();
    reset_exercise_answers(ex, 7);
    if (ex.ex7_key.empty()) {
      ex.ex7_error = tr("grade.needs_preset");
    } else {
      // What `autopar simulate --model dlrm --cluster KEY --strategy dp|expert --json` prints.
      auto simulate = [&](const std::string& name) -> Result<Json> {
        auto g = load_model("dlrm");
        if (!g.ok()) return g.error();
        auto c = load_cluster(ex.ex7_key);
        if (!c.ok()) return c.error();
        auto s = load_strategy(name, g.value(), c.value());
        if (!s.ok()) return s.error();
        SimulateRequest request;
        request.strategy = s.value();
        return simulate_operation(g.value(), c.value(), request).to_json();
      };
      auto dp = simulate("dp");
      auto expert = simulate("expert");
      if (!dp.ok() || !expert.ok()) {
        ex.ex7_error = !dp.ok() ? dp.error().message : expert.error().message;
      } else {
        ex.ex7_dp = dp.value();
        ex.ex7_expert = expert.value();
      }
    }
  }
}

std::vector<ExercisePart> exercise_parts(const AppState& state, int number) {
  const ExercisesState& ex = state.exercises;
  std::vector<ExercisePart> parts;
  switch (number) {
    case 1: {
      if (ex.ex1_batch % ex.ex1_sample_degree || ex.ex1_out % ex.ex1_param_degree) break;
      const LinearSplitNumbers n = linear_split_numbers(ex.ex1_batch, ex.ex1_in, ex.ex1_out, ex.ex1_sample_degree, ex.ex1_param_degree);
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
      if (ex.ex3_moves.size() != state.graph.ops.size() || ex.ex3_moves.empty()) break;
      int most = 0;
      for (const auto& m : ex.ex3_moves) most = std::max(most, m.recomputed);
      ExercisePart p;
      p.label = tr("grade.ex3_label");
      p.placeholder = tr("grade.ex3_placeholder");
      p.numeric = false;
      for (const auto& m : ex.ex3_moves)
        if (m.recomputed == most) p.accepted.push_back(state.graph.ops[size_t(m.op)].name());
      p.answer_text = tr_fill("grade.ex3_answer", {p.accepted.front(), std::to_string(most)});
      p.hint = tr("grade.ex3_hint");
      parts.push_back(p);
      break;
    }
    case 4: {
      auto mesh = mesh_from_cluster(2, 4, state.cluster);
      if (!mesh.ok()) break;
      const double bytes = double(ex.ex4_rows) * ex.ex4_cols * ex.ex4_dtype_bytes;
      const ReshardOrder slow_first = reshard_order(mesh.value(), 0, bytes);
      const ReshardOrder fast_first = reshard_order(mesh.value(), 1, bytes);
      parts.push_back(numeric(tr("grade.ex4_order"), slow_first.total_ms() <= fast_first.total_ms() ? 0 : 1, 0,
                              0.1, tr("grade.ex4_order_hint"), tr("grade.ex4_order_placeholder")));
      parts.push_back(numeric(tr("grade.ex4_first"), slow_first.slow_axis_bytes, 0.01, 0.5, tr("grade.ex4_first_hint"), tr("grade.bytes")));
      parts.push_back(numeric(tr("grade.ex4_second"), fast_first.slow_axis_bytes, 0.01, 0.5, tr("grade.ex4_second_hint"), tr("grade.bytes")));
      break;
    }
    case 5: {
      if (!ex.ex5_error.empty() || ex.ex5_rows_shown >= int(ex.ex5_dp.best.size())) break;
      const auto& row = ex.ex5_dp.best[size_t(ex.ex5_rows_shown)];
      parts.push_back(numeric(tr_fill("grade.ex5_min", {ex.ex5_ops[size_t(ex.ex5_rows_shown)]}), *std::min_element(row.begin(), row.end()), 0.01,
                              1e-6, tr("grade.ex5_hint"), "ms"));
      break;
    }
    case 6: {
      const auto steps = tmax_walk(small_stage_table(ex.ex6_layer_ms), ex.ex6_microbatches);
      double best = std::numeric_limits<double>::infinity();
      for (const auto& s : steps) best = std::min(best, s.total_ms);
      if (std::isfinite(best))
        parts.push_back(numeric(tr("grade.ex6_best"), best, 0.005, 1e-3, tr("grade.ex6_hint"), "ms"));
      break;
    }
    case 7: {
      const double dp_ms = ex.ex7_dp.is_object() ? ex.ex7_dp.value("makespan_ms", 0.0) : 0.0;
      const double ex_ms = ex.ex7_expert.is_object() ? ex.ex7_expert.value("makespan_ms", 0.0) : 0.0;
      if (dp_ms > 0 && ex_ms > 0)
        parts.push_back(numeric(tr("grade.ex7_ratio"), dp_ms / ex_ms, 0.05, 0.05, tr("grade.ex7_hint"), tr("grade.ex7_placeholder")));
      break;
    }
    case 8: {
      if (!state.flexflow.task_graph) break;
      const SimSummary& s = state.flexflow.summary;
      parts.push_back(numeric(tr("grade.ex8_additive"), s.compute_ms + s.activation_transfer_ms + s.param_sync_ms, 0.01, 1e-3,
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
