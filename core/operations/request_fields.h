// The inputs that several operations share (whole numbers, seed, beta, micro-batches, ZeRO
// stage, optimizer, precision): each one's bound and the messages of its violations, written
// once. A front end names a field its own way (the CLI "--budget-ms", the worker
// "request.budget_ms", the page "search.budget_ms"); the messages differ only by that name, so
// the same bad value is refused with the same code and words wherever it is typed.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "cluster.h"
#include "json_io.h"
#include "memory_model.h"
#include "result.h"

namespace autopar {

// How a front end names a request field in its errors, given the field's JSON name ("steps").
using FieldPath = std::function<std::string(const std::string& field)>;
// The worker's names: "PREFIX.field" ("request.steps"); "field" for an empty prefix.
FieldPath json_field_path(const std::string& prefix);
// The CLI's names: "--field" with '_' written '-' ("--budget-ms").
FieldPath cli_field_path();

// A whole-number bound [lo, hi].
struct WholeBound {
  int64_t lo, hi;
};
// A number bound [lo, hi] (finite numbers only).
struct NumberBound {
  double lo, hi;
};

// One bound per shared input.
inline constexpr WholeBound kSeedBound{0, int64_t(1) << 53};   // exact in a JavaScript number
inline constexpr WholeBound kMicrobatchesBound{1, int64_t(1) << 20};
inline constexpr WholeBound kSearchStepsBound{1, 100000000};
inline constexpr WholeBound kZeroStageBound{0, 3};
inline constexpr WholeBound kAccuracySamplesBound{2, 100000};
inline constexpr WholeBound kMemoryMovesBound{-1, 1};           // auto, off, on
// Beta 0 is allowed: the Metropolis rule then accepts every move, a random walk that still
// keeps the best strategy it met. It is the lecture's reference point for what beta buys
// (the CLI and the worker always took it), not a mistake to refuse.
inline constexpr NumberBound kBetaBound{0, 1e9};
inline constexpr NumberBound kBudgetMsBound{0, 1e9};

// Reads a whole number typed as text (CLI words); anything else is bad_value.
Result<int64_t> whole_from_text(const std::string& text, const std::string& path);
// Reads a finite number typed as text; anything else is bad_value.
Result<double> number_from_text(const std::string& text, const std::string& path);
// Reads a whole number from JSON (an integer, or a float with no fraction as JavaScript sends
// it); anything else is wrong_type.
Result<int64_t> whole_from_json(const Json& v, const std::string& path);
// Reads a number from JSON; anything else is wrong_type.
Result<double> number_from_json(const Json& v, const std::string& path);
// Reads true or false from JSON; anything else is wrong_type.
Result<bool> bool_from_json(const Json& v, const std::string& path);
// Reads a string from JSON; anything else is wrong_type saying it must be `what`.
Result<std::string> string_from_json(const Json& v, const std::string& path, const std::string& what);

// out_of_range "PATH is X; it must be between LO and HI" when x is outside `b`.
Status check_bound(int64_t x, WholeBound b, const std::string& path);
// The same for numbers (NaN and infinities are outside every bound).
Status check_bound(double x, NumberBound b, const std::string& path);

// A seed read as a signed whole number, checked against kSeedBound before it becomes unsigned
// (so -1 is refused as -1, not as a huge seed).
Result<uint64_t> seed_from_whole(int64_t x, const std::string& path);

// "adam" or "sgd"; anything else is bad_value.
Result<Optimizer> optimizer_from_text(const std::string& text, const std::string& path);
// The optimizer's word ("adam").
const char* optimizer_word(Optimizer o);
// "fp32", "tf32" or "mixed" (as --precision); anything else is bad_value.
Result<Precision> precision_from_text(const std::string& text, const std::string& path);

}  // namespace autopar
