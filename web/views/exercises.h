// The interactive exercises of lecture 15, section 11, as the page holds and words them: the
// reader's inputs and answers, and the core's typed results (core/operations/
// exercise_operations.h computes every number) turned into the page's text. No ImGui in here.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster.h"
#include "exercise_operations.h"
#include "graph.h"
#include "json_io.h"
#include "strategy.h"

namespace autopar::web {

// Number of exercises (lecture section 11).
constexpr int kExerciseCount = 8;

// The reader's inputs and typed answers of every exercise (the Exercises tab).
struct ExercisesState {
  int shown = 1;                                          // exercise in front, 1 .. kExerciseCount
  std::array<std::array<std::string, 3>, kExerciseCount> answers;   // typed answers, up to 3 per exercise
  std::array<bool, kExerciseCount> checked{};             // "Check" was pressed (or an answer set by script)
  std::array<int, kExerciseCount> tries{};                // Checks that were not all right
  std::array<bool, kExerciseCount> solved{};              // the last Check had every part right
  std::array<bool, kExerciseCount> revealed{};            // the answer is shown ("Show the answer" or a second wrong try)
  std::array<std::array<int, 3>, kExerciseCount> grades{};   // per part at the last Check: 0 empty, 1 right, 2 wrong
  // The last Check left a box empty: nothing was graded and no try counted (an empty box is not an attempt).
  std::array<bool, kExerciseCount> unanswered{};
  // The inputs the answers above belong to (exercise_instance_key); new inputs are a new question.
  std::array<std::string, kExerciseCount> instance_keys;
  std::array<uint64_t, kExerciseCount> instances{};        // "New instance" presses, the seed of the next one
  // Exercise 1: Y = X W with X: batch x in, W: in x out, split by sample and by parameter.
  int ex1_batch = 64, ex1_in = 1024, ex1_out = 1024, ex1_sample_degree = 4, ex1_param_degree = 2;
  // Exercise 2: costs in ms and beta per ms; with `normalize` the difference is divided by the initial cost.
  double ex2_current_ms = 100, ex2_proposed_ms = 110, ex2_beta = 0.1, ex2_initial_ms = 100;
  bool ex2_normalize = false;
  // Exercise 3: the op whose move is shown on the timeline (-1: the one recomputing the most).
  int ex3_op = 0;
  DeltaMovesExercise ex3;               // one move per op of the current strategy
  uint64_t ex3_revision = 0;            // FlexflowView::revision the moves were computed for (0: none)
  // Exercise 4: the tensor's shape and element size.
  int ex4_rows = 4096, ex4_cols = 4096, ex4_dtype_bytes = 4;
  // Exercise 5: DP rows revealed so far (1 .. ops).
  int ex5_rows_shown = 1;
  std::string ex5_key;                  // cluster/mesh the table below was computed for
  std::string ex5_error;
  ChainDpExercise ex5;                  // transformer-chain's costs, resharding matrices and DP table
  // Exercise 6: per-layer compute of the 4-layer model (ms) and the micro-batches.
  std::array<float, 4> ex6_layer_ms{4.0f, 1.0f, 1.0f, 2.0f};
  int ex6_microbatches = 8;
  int ex6_steps_shown = 1;
  // Exercise 7: DLRM simulated under data parallel and the expert placement.
  std::optional<DlrmExercise> ex7;
  int ex5_rows_graded = 0;              // the row the answers of exercise 5 belong to
  std::string ex7_key;                  // cluster the results are for
  std::string ex7_error;
};

// Exercise 2's inputs as the reader set them.
AcceptanceInputs acceptance_inputs(const ExercisesState& ex);

// Exercise 3: a move's new configuration, readable (as the strategy editor writes it).
std::string move_text(const DeltaMove& move);

// Exercise 4: a mesh axis named for the reader ("axis 0 (slow, across nodes)" ...).
std::string axis_name(int axis, bool crosses_nodes);

// Exercise 6: a step's stages, readable ("L1-2 on 1 GPU, L3-4 on 1 GPU").
std::string stages_text(const TmaxStep& step);

// Parses a number typed by the reader ("0.37", "4.5e-5", "37%"); false when it is not one.
bool parse_answer(const std::string& text, double& value);

// True when `value` is within `rel` (relative) or `abs_tol` (absolute) of `expected`.
bool answer_matches(double value, double expected, double rel, double abs_tol);

// Exercise 2's expected answer for the inputs in `ex`.
double exercise2_expected(const ExercisesState& ex);

// Fresh inputs for exercise `number` where they are the exercise's own (1, 2, 4 and 6), drawn
// from `seed` (the same seed gives the same instance natively and in WebAssembly) and always
// different from the current ones; returns false for the exercises whose inputs are the page's
// (3, 5, 7 and 8: exercise_grading.h's new_exercise_instance changes those).
bool new_own_instance(ExercisesState& ex, int number, uint64_t seed);

// A choice-question's answer as typed in the answer box: "a" for choice 0, "b" for 1, ...
std::string choice_letter(int index);

// A ratio the reader predicts as a choice of buckets ("under 2x", "2x to 10x", ...): the bucket
// of `ratio` given the buckets' ascending upper bounds (the last bucket has none).
int ratio_bucket(const std::vector<double>& upper_bounds, double ratio);

}  // namespace autopar::web
