// The error codes' names. See error_codes.h.
#include "error_codes.h"

namespace autopar {

const char* error_code_name(ErrorCode code) {
  switch (code) {
#define AUTOPAR_ERROR_CODE_CASE(c) \
  case ErrorCode::c:               \
    return #c;
    AUTOPAR_ERROR_CODES(AUTOPAR_ERROR_CODE_CASE)
#undef AUTOPAR_ERROR_CODE_CASE
  }
  return "internal";   // only for a value cast from outside the enum, which no code does
}

const std::vector<ErrorCode>& all_error_codes() {
  static const std::vector<ErrorCode> all = {
#define AUTOPAR_ERROR_CODE_ITEM(c) ErrorCode::c,
      AUTOPAR_ERROR_CODES(AUTOPAR_ERROR_CODE_ITEM)
#undef AUTOPAR_ERROR_CODE_ITEM
  };
  return all;
}

std::optional<ErrorCode> error_code_from_name(const std::string& name) {
  for (ErrorCode c : all_error_codes())
    if (name == error_code_name(c)) return c;
  return std::nullopt;
}

}  // namespace autopar
