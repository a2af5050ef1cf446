// The exercises as the page words them (see exercises.h); the numbers are core/operations'.
#include "exercises.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "page_strings.h"
#include "strategy_text.h"

namespace autopar::web {

AcceptanceInputs acceptance_inputs(const ExercisesState& ex) {
  AcceptanceInputs in;
  in.current_ms = ex.ex2_current_ms;
  in.proposed_ms = ex.ex2_proposed_ms;
  in.beta = ex.ex2_beta;
  in.initial_ms = ex.ex2_initial_ms;
  in.normalize = ex.ex2_normalize;
  return in;
}

std::string move_text(const DeltaMove& move) { return format_op_config(move.config); }

std::string axis_name(int axis, bool crosses_nodes) {
  return tr_fill(crosses_nodes ? "ex.slow_axis" : "ex.fast_axis", {std::to_string(axis)});
}

std::string stages_text(const TmaxStep& step) {
  std::string text;
  for (const TmaxStage& s : step.stages) {
    char buf[64];
    std::snprintf(buf, sizeof buf, tr(s.devices == 1 ? "ex.stage_one_gpu" : "ex.stage_gpus"), text.empty() ? "" : tr("ex.list_sep"),
                  s.first + 1, s.last + 1, s.devices);
    text += buf;
  }
  return text;
}

bool parse_answer(const std::string& text, double& value) {
  std::string t;
  for (char c : text)
    if (c != ' ' && c != ',') t += c;
  bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  if (t.empty()) return false;
  char* end = nullptr;
  value = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(value)) return false;
  if (percent) value /= 100.0;
  return true;
}

bool answer_matches(double value, double expected, double rel, double abs_tol) {
  return std::fabs(value - expected) <= std::max(abs_tol, rel * std::fabs(expected));
}

double exercise2_expected(const ExercisesState& ex) {
  const AcceptanceInputs in = acceptance_inputs(ex);
  return acceptance_odds(in, in.beta).in_ms;
}

}  // namespace autopar::web
