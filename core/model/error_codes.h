// The error codes, as one enum: every Error's `code` is the name of one of these, the README's
// list ("Errors") is checked against it by a unit test, and scripts may rely on the names.
#pragma once
#include <string>
#include <vector>

namespace autopar {

// Why an input was refused (or, for internal, a bug). Names are the codes' spellings.
enum class ErrorCode {
  // Reading JSON and model files.
  bad_json, wrong_type, missing_field, unknown_field, unknown_kind, unknown_tensor, unknown_op, unknown_dim,
  bad_shape, bad_dtype, bad_arity, cycle, duplicate_name,
  // Values and names.
  out_of_range, too_large, bad_value, unknown_model, unknown_param, unknown_cluster, unknown_strategy,
  unknown_scenario, unknown_command, bad_argument, missing_argument,
  // Strategies, meshes and sharding specs.
  bad_strategy, bad_degree, bad_device, bad_mesh, bad_spec, bad_link,
  // Planning.
  infeasible, gap, not_a_chain, solver_failed, time_limit,
  // The page and long operations.
  not_ready, no_search, cancelled, browser,
  // Files, and bugs.
  io, internal,
};

// The code's name ("bad_json").
const char* error_code_name(ErrorCode code);
// Every code, in declaration order.
const std::vector<ErrorCode>& all_error_codes();
// True when `name` is the name of a code.
bool is_error_code(const std::string& name);

}  // namespace autopar
