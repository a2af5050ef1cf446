// The error codes' names. See error_codes.h.
#include "error_codes.h"

namespace autopar {

const char* error_code_name(ErrorCode code) {
  switch (code) {
#define AUTOPAR_CODE(c) \
  case ErrorCode::c:    \
    return #c;
    AUTOPAR_CODE(bad_json) AUTOPAR_CODE(wrong_type) AUTOPAR_CODE(missing_field) AUTOPAR_CODE(unknown_field)
    AUTOPAR_CODE(unknown_kind) AUTOPAR_CODE(unknown_tensor) AUTOPAR_CODE(unknown_op) AUTOPAR_CODE(unknown_dim)
    AUTOPAR_CODE(bad_shape) AUTOPAR_CODE(bad_dtype) AUTOPAR_CODE(bad_arity) AUTOPAR_CODE(cycle) AUTOPAR_CODE(duplicate_name)
    AUTOPAR_CODE(out_of_range) AUTOPAR_CODE(too_large) AUTOPAR_CODE(bad_value) AUTOPAR_CODE(unknown_model)
    AUTOPAR_CODE(unknown_param) AUTOPAR_CODE(unknown_cluster) AUTOPAR_CODE(unknown_strategy) AUTOPAR_CODE(unknown_scenario)
    AUTOPAR_CODE(unknown_command) AUTOPAR_CODE(bad_argument) AUTOPAR_CODE(missing_argument)
    AUTOPAR_CODE(bad_strategy) AUTOPAR_CODE(bad_degree) AUTOPAR_CODE(bad_device) AUTOPAR_CODE(bad_mesh) AUTOPAR_CODE(bad_spec)
    AUTOPAR_CODE(bad_link)
    AUTOPAR_CODE(infeasible) AUTOPAR_CODE(gap) AUTOPAR_CODE(not_a_chain) AUTOPAR_CODE(solver_failed) AUTOPAR_CODE(time_limit)
    AUTOPAR_CODE(not_ready) AUTOPAR_CODE(no_search) AUTOPAR_CODE(cancelled) AUTOPAR_CODE(browser)
    AUTOPAR_CODE(io) AUTOPAR_CODE(internal)
#undef AUTOPAR_CODE
  }
  return "internal";
}

const std::vector<ErrorCode>& all_error_codes() {
  static const std::vector<ErrorCode> all = [] {
    std::vector<ErrorCode> v;
    for (int c = 0; c <= int(ErrorCode::internal); ++c) v.push_back(ErrorCode(c));
    return v;
  }();
  return all;
}

bool is_error_code(const std::string& name) {
  for (ErrorCode c : all_error_codes())
    if (name == error_code_name(c)) return true;
  return false;
}

}  // namespace autopar
