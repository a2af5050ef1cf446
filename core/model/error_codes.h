// The error codes, as one enum: every Error's `code` is one of these, the README's list ("Errors")
// is checked against it by a unit test, and scripts may rely on the names (the JSON and CLI print
// error_code_name).
#pragma once
#include <optional>
#include <string>
#include <vector>

// Every code once, in declaration order, as X(name): the enum and its names are both made from
// this list, so a code cannot be added to one and not the other.
#define AUTOPAR_ERROR_CODES(X)                                                                          \
  /* Reading JSON and model files. */                                                                   \
  X(bad_json) X(wrong_type) X(missing_field) X(unknown_field) X(unknown_kind) X(unknown_tensor)          \
  X(unknown_op) X(unknown_dim) X(bad_shape) X(bad_dtype) X(bad_arity) X(cycle) X(duplicate_name)         \
  /* Values and names. */                                                                               \
  X(out_of_range) X(too_large) X(bad_value) X(unknown_model) X(unknown_param) X(unknown_cluster)         \
  X(unknown_strategy) X(unknown_scenario) X(unknown_command) X(bad_argument) X(missing_argument)         \
  /* Strategies, meshes and sharding specs. */                                                          \
  X(bad_strategy) X(bad_degree) X(bad_device) X(bad_mesh) X(bad_spec) X(bad_link)                        \
  /* Planning. */                                                                                       \
  X(infeasible) X(gap) X(not_a_chain) X(solver_failed) X(time_limit)                                     \
  /* The page and long operations. */                                                                   \
  X(not_ready) X(no_search) X(cancelled) X(browser)                                                     \
  /* Files, and bugs. */                                                                                \
  X(io) X(internal)

namespace autopar {

// Why an input was refused (or, for internal, a bug). Names are the codes' spellings.
enum class ErrorCode {
#define AUTOPAR_ERROR_CODE_ENUMERATOR(c) c,
  AUTOPAR_ERROR_CODES(AUTOPAR_ERROR_CODE_ENUMERATOR)
#undef AUTOPAR_ERROR_CODE_ENUMERATOR
};

// The code's name ("bad_json"), as the JSON and the CLI print it.
const char* error_code_name(ErrorCode code);
// Every code, in declaration order.
const std::vector<ErrorCode>& all_error_codes();
// The code named `name` (error_code_name's inverse); nullopt for a name that is no code's, so
// text read from outside (a worker's reply, a test's table) is checked, never cast.
std::optional<ErrorCode> error_code_from_name(const std::string& name);

}  // namespace autopar
