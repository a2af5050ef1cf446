// The shared request fields. See request_fields.h.
#include "request_fields.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace autopar {
namespace {

std::string number_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

FieldPath json_field_path(const std::string& prefix) {
  return [prefix](const std::string& field) { return prefix.empty() ? field : prefix + "." + field; };
}

FieldPath cli_field_path() {
  return [](const std::string& field) {
    std::string word = "--" + field;
    for (char& c : word)
      if (c == '_') c = '-';
    return word;
  };
}

Result<int64_t> whole_from_text(const std::string& text, const std::string& path) {
  // A sign is read (a negative value is then refused by its bound, as it would be in JSON);
  // 18 digits always fit in int64_t, and longer text is no whole number an input takes.
  const std::string digits = !text.empty() && text[0] == '-' ? text.substr(1) : text;
  if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
    return make_error(ErrorCode::bad_value, path + " needs a whole number, not '" + text + "'", path);
  return int64_t(std::strtoll(text.c_str(), nullptr, 10));
}

Result<double> number_from_text(const std::string& text, const std::string& path) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(x))
    return make_error(ErrorCode::bad_value, path + " needs a number, not '" + text + "'", path);
  return x;
}

Result<int64_t> whole_from_json(const Json& v, const std::string& path) {
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
    return make_error(ErrorCode::out_of_range, path + " is too large for a whole number", path);
  if (v.is_number_integer()) return v.get<int64_t>();
  // JavaScript has one number type: 2000 may arrive as 2000.0.
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 9.2e18) return int64_t(x);
  }
  return make_error(ErrorCode::wrong_type, path + " must be a whole number", path);
}

Result<double> number_from_json(const Json& v, const std::string& path) {
  if (!v.is_number()) return make_error(ErrorCode::wrong_type, path + " must be a number", path);
  return v.get<double>();
}

Result<bool> bool_from_json(const Json& v, const std::string& path) {
  if (!v.is_boolean()) return make_error(ErrorCode::wrong_type, path + " must be true or false", path);
  return v.get<bool>();
}

Result<std::string> string_from_json(const Json& v, const std::string& path, const std::string& what) {
  if (!v.is_string()) return make_error(ErrorCode::wrong_type, path + " must be " + what, path);
  return v.get<std::string>();
}

Status check_bound(int64_t x, WholeBound b, const std::string& path) {
  if (x >= b.lo && x <= b.hi) return Ok{};
  return make_error(ErrorCode::out_of_range,
                    path + " is " + std::to_string(x) + "; it must be between " + std::to_string(b.lo) + " and " + std::to_string(b.hi), path);
}

Status check_bound(double x, NumberBound b, const std::string& path) {
  if (x >= b.lo && x <= b.hi) return Ok{};
  return make_error(ErrorCode::out_of_range, path + " is " + number_text(x) + "; it must be between " + number_text(b.lo) + " and " + number_text(b.hi),
                    path);
}

Result<uint64_t> seed_from_whole(int64_t x, const std::string& path) {
  if (auto st = check_bound(x, kSeedBound, path); !st.ok()) return st.error();
  return uint64_t(x);
}

Result<Optimizer> optimizer_from_text(const std::string& text, const std::string& path) {
  if (text == "adam") return Optimizer::adam;
  if (text == "sgd") return Optimizer::sgd;
  return make_error(ErrorCode::bad_value, path + " is '" + text + "'; use adam or sgd", path);
}

const char* optimizer_word(Optimizer o) { return o == Optimizer::adam ? "adam" : "sgd"; }

Result<Precision> precision_from_text(const std::string& text, const std::string& path) {
  if (auto p = parse_precision(text)) return *p;
  return make_error(ErrorCode::bad_value, path + " is '" + text + "'; use fp32, tf32, bf16, fp16, fp8 or mixed (bf16, fp16 and mixed: the same 16-bit mixed training)", path);
}

}  // namespace autopar
