// The exercises as the page words them (see exercises.h); the numbers are core/operations'.
#include "exercises.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "page_strings.h"
#include "rng.h"
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

std::string choice_letter(int index) { return std::string(1, char('a' + index)); }

int ratio_bucket(const std::vector<double>& upper_bounds, double ratio) {
  int k = 0;
  while (k < int(upper_bounds.size()) && ratio >= upper_bounds[size_t(k)]) ++k;
  return k;
}

namespace {
// One of `options`, drawn from `rng` without std::*_distribution (native and WASM agree).
template <typename T, size_t N>
T pick(Rng& rng, const T (&options)[N]) {
  return options[size_t(rng.below(N))];
}
}  // namespace

bool new_own_instance(ExercisesState& ex, int number, uint64_t seed) {
  Rng rng(seed * 1000 + uint64_t(number));
  // Redraw until something differs from the current question (a few tries always suffice).
  for (int attempt = 0; attempt < 64; ++attempt) {
    switch (number) {
      case 1: {
        static const int sizes[] = {32, 64, 128, 256, 512, 1024, 2048, 4096};
        static const int degrees[] = {1, 2, 4, 8};
        const int b = pick(rng, sizes), n = pick(rng, sizes), m = pick(rng, sizes);
        const int s = pick(rng, degrees), p = pick(rng, degrees);
        if (s * p > 8 || b % s != 0 || m % p != 0) continue;   // at most 8 GPUs, parts of equal size
        if (b == ex.ex1_batch && n == ex.ex1_in && m == ex.ex1_out && s == ex.ex1_sample_degree && p == ex.ex1_param_degree) continue;
        ex.ex1_batch = b, ex.ex1_in = n, ex.ex1_out = m, ex.ex1_sample_degree = s, ex.ex1_param_degree = p;
        return true;
      }
      case 2: {
        static const double currents[] = {20, 50, 80, 100, 120, 150, 200, 400};
        static const double slowdowns[] = {1.02, 1.05, 1.1, 1.2, 1.5, 0.9};   // 0.9: an improvement
        static const double betas[] = {0.01, 0.05, 0.1, 0.2, 0.5, 1, 5};
        const double current = pick(rng, currents), proposed = current * pick(rng, slowdowns), beta = pick(rng, betas);
        if (current == ex.ex2_current_ms && proposed == ex.ex2_proposed_ms && beta == ex.ex2_beta) continue;
        ex.ex2_current_ms = current, ex.ex2_proposed_ms = proposed, ex.ex2_beta = beta;
        return true;
      }
      case 4: {
        static const int sides[] = {1024, 2048, 4096, 8192, 16384};
        static const int widths[] = {2, 4};
        const int rows = pick(rng, sides), cols = pick(rng, sides), dtype = pick(rng, widths);
        if (rows == ex.ex4_rows && cols == ex.ex4_cols && dtype == ex.ex4_dtype_bytes) continue;
        ex.ex4_rows = rows, ex.ex4_cols = cols, ex.ex4_dtype_bytes = dtype;
        return true;
      }
      case 6: {
        static const float costs[] = {0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
        static const int microbatches[] = {2, 4, 8, 16, 32};
        std::array<float, 4> layers{};
        for (float& l : layers) l = pick(rng, costs);
        const int b = pick(rng, microbatches);
        if (layers == ex.ex6_layer_ms && b == ex.ex6_microbatches) continue;
        ex.ex6_layer_ms = layers, ex.ex6_microbatches = b, ex.ex6_steps_shown = 1;
        return true;
      }
      default: return false;
    }
  }
  return false;
}

}  // namespace autopar::web
