// Grading the exercises of lecture 15, section 11 (the Exercises tab): each exercise's answer
// parts, what makes each right, a hint for a wrong try, and the answer. Check grades every part
// and counts the try when every box has an answer (an empty box is not an attempt); the answer
// is revealed on request or after the second wrong try, never before a real attempt, and new
// inputs (or "New instance") make a new question with its answers hidden again. The data an exercise is graded on (delta moves, the chain DP, DLRM simulations) comes
// from core/operations (exercise_operations.h), fetched here once per input change. No ImGui.
#pragma once
#include <string>
#include <vector>

#include "app_state.h"

namespace autopar::web {

// One answer box of an exercise.
struct ExercisePart {
  std::string label;                  // what the box asks
  std::string placeholder;            // grey text in the empty box: the expected form, never the answer
  bool numeric = true;                // false: a name, right when it is one of `accepted`
  double expected = 0;                // numeric parts: the right value
  double rel = 1e-9, abs_tol = 0.5;   // tolerance of a numeric answer
  std::vector<std::string> accepted;  // text parts: every right answer (ties)
  std::string answer_text;            // the answer as the page shows it once revealed
  std::string hint;                   // shown when this part is wrong: where to look, not the value
  std::vector<std::string> choices;   // a choice question: its choices, answered by letter ("a", "b", ...)
};

// How one typed answer fares.
enum class PartGrade { empty, right, wrong };

// Computes what the shown exercise needs from the current model, cluster and strategy (the delta
// moves of exercise 3, the chain DP of 5, the DLRM simulations of 7) when its inputs changed.
void refresh_exercise_data(AppState& state);

// The parts of exercise `number` (1 .. kExerciseCount) for the current inputs; call
// refresh_exercise_data first. Empty when the exercise cannot be set (e.g. exercise 4 without 8 GPUs).
std::vector<ExercisePart> exercise_parts(const AppState& state, int number);

// Grades one typed answer against a part.
PartGrade grade_part(const ExercisePart& part, const std::string& typed);

// "Check" on the shown exercise: with a box empty, grades nothing and counts no try (marks the
// exercise unanswered); otherwise grades every part, counts the try, and reveals the answer after
// the second try that is not all right.
void check_exercise(AppState& state);

// True when the shown exercise's answer may be revealed on request: after a real attempt.
bool can_reveal_exercise(const ExercisesState& ex, int number);

// "Show the answer" on the shown exercise; an error (answer_first) before a real attempt.
Status reveal_exercise(AppState& state);

// The inputs exercise `number`'s question is made of, as text (its own inputs, or the page's
// model, cluster, mesh and strategy it reads): when they change the answers are forgotten.
std::string exercise_instance_key(const AppState& state, int number);

// Forgets the shown exercise's answers when its inputs changed since they were typed (called
// before answers are drawn, graded or reported, so a revealed answer never shows for new inputs).
void sync_exercise_instance(AppState& state);

// "New instance": fresh inputs for the shown exercise (its own inputs drawn from a seed, or for
// 3, 5, 7 and 8 another strategy, mesh or cluster of the page), answers forgotten.
Status new_exercise_instance(AppState& state);

// Forgets the shown exercise's answers, grades and tries (its question changed, e.g. a new DP row).
void reset_exercise_answers(ExercisesState& ex, int number);

// True when the shown exercise's explanation may be shown: all right, or the answer revealed.
bool exercise_solved_or_revealed(const ExercisesState& ex, int number);

// result().exercise: {number, answer, answers, checked, unanswered, tries, revealed, can_reveal,
// instance, correct (null before a Check, else true only when every part is right), parts [{label,
// correct, expected, hint, choices}], expected}.
// Expected values are null until the answer is right or revealed, as on the page. Call
// refresh_exercise_data first.
Json exercise_result_json(const AppState& state);

}  // namespace autopar::web
