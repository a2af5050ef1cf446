// How doctest prints an ErrorCode in a failed CHECK: by its name ("bad_json"), where doctest
// itself would print an enum's number. Found by argument-dependent lookup, so it must be seen by
// every test that compares codes (errcode_convert.sh adds the include).
#pragma once
#include <doctest/doctest.h>

#include "error_codes.h"

namespace autopar {

// The code's name, for doctest's messages.
inline doctest::String toString(ErrorCode code) { return error_code_name(code); }

}  // namespace autopar
