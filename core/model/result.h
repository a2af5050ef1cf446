// Result<T>: the value-or-error return used across the core instead of exceptions
// (Emscripten builds abort on `throw`). An Error names what is wrong, how to fix it, and where.
#pragma once
#include <string>
#include <utility>
#include <variant>

#include "error_codes.h"

namespace autopar {

// A user-facing error: a stable code, a message that says how to fix it, and the JSON path
// ("ops[2].shape") or CLI argument ("--cluster") of the culprit, empty when there is none.
struct Error {
  std::string code;
  std::string message;
  std::string path;
};

// Makes an Error; `code` is the name of an ErrorCode (error_codes.h; a unit test checks every
// code written in the sources).
inline Error make_error(std::string code, std::string message, std::string path = "") {
  return Error{std::move(code), std::move(message), std::move(path)};
}
// Makes an Error from the enum.
inline Error make_error(ErrorCode code, std::string message, std::string path = "") {
  return Error{error_code_name(code), std::move(message), std::move(path)};
}

// Holds either a T or an Error. Check ok() before value(); reading the wrong side is a bug.
template <class T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}           // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}       // NOLINT: implicit by design
  // True when a value is held.
  bool ok() const { return data_.index() == 0; }
  // The value; only valid when ok().
  const T& value() const { return std::get<0>(data_); }
  T& value() { return std::get<0>(data_); }
  // The error; only valid when !ok().
  const Error& error() const { return std::get<1>(data_); }

 private:
  std::variant<T, Error> data_;
};

// Result of an operation that yields nothing but may fail.
struct Ok {};
using Status = Result<Ok>;

}  // namespace autopar
