// Result<T>: the value-or-error return used across the core instead of exceptions
// (Emscripten builds abort on `throw`). An Error names what is wrong, how to fix it, and where.
#pragma once
#include <string>
#include <utility>
#include <variant>

#include "error_codes.h"
#include "programmer_error.h"

namespace autopar {

// A user-facing error: a stable code, a message that says how to fix it, and the JSON path
// ("ops[2].shape") or CLI argument ("--cluster") of the culprit, empty when there is none.
struct Error {
  ErrorCode code = ErrorCode::internal;   // printed as error_code_name(code)
  std::string message;
  std::string path;
};

// Makes an Error.
inline Error make_error(ErrorCode code, std::string message, std::string path = "") {
  return Error{code, std::move(message), std::move(path)};
}

// Holds either a T or an Error. Check ok() before value(); reading the wrong side is a bug.
template <class T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}           // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}       // NOLINT: implicit by design
  // True when a value is held.
  bool ok() const { return data_.index() == 0; }
  // The value; only valid when ok() (else a programmer error, programmer_error.h).
  const T& value() const { AUTOPAR_ASSERT(ok(), "Result::value() read on an error"); return *std::get_if<0>(&data_); }
  T& value() { AUTOPAR_ASSERT(ok(), "Result::value() read on an error"); return *std::get_if<0>(&data_); }
  // The error; only valid when !ok() (else a programmer error).
  const Error& error() const { AUTOPAR_ASSERT(!ok(), "Result::error() read on a value"); return *std::get_if<1>(&data_); }

 private:
  std::variant<T, Error> data_;
};

// Result of an operation that yields nothing but may fail.
struct Ok {};
using Status = Result<Ok>;

}  // namespace autopar

// The one early return of the core: evaluates `expr` (a Result<T> or a Status); on an error returns
// that Error from the enclosing function (whose Result type it converts to), else binds `var` to the
// value (a reference valid to the end of the enclosing scope).
#define AUTOPAR_TRY(var, expr)                                 \
  auto var##_result_ = (expr);                                 \
  if (!var##_result_.ok()) return var##_result_.error();       \
  [[maybe_unused]] auto& var = var##_result_.value()
