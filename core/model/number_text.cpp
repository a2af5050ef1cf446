// Numbers as a reader reads them. See number_text.h.
#include "number_text.h"

#include <cmath>
#include <cstdio>

namespace autopar {
namespace {

// Superscript digits and minus (UTF-8) for exponents: 10¹¹, 10⁻⁷.
const char* const kSuperscript[] = {"\xe2\x81\xb0", "\xc2\xb9", "\xc2\xb2", "\xc2\xb3", "\xe2\x81\xb4",
                                    "\xe2\x81\xb5", "\xe2\x81\xb6", "\xe2\x81\xb7", "\xe2\x81\xb8", "\xe2\x81\xb9"};
const char* const kSuperscriptMinus = "\xe2\x81\xbb";

std::string superscript(long long e) {
  std::string out = e < 0 ? kSuperscriptMinus : "";
  const std::string digits = std::to_string(e < 0 ? -e : e);
  for (char c : digits) out += kSuperscript[c - '0'];
  return out;
}

// Commas between thousands of the integer part of a plain decimal text ("-1234567.5").
std::string group_thousands(const std::string& text) {
  const size_t start = (!text.empty() && text[0] == '-') ? 1 : 0;
  size_t end = text.find('.');
  if (end == std::string::npos) end = text.size();
  if (end - start < 4) return text;
  std::string out = text.substr(0, start);
  for (size_t i = start; i < end; ++i) {
    out += text[i];
    const size_t left = end - i - 1;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out + text.substr(end);
}

// A plain decimal with `decimals` places, trailing zeros (and a bare point) removed.
std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals < 0 ? 0 : decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

// `mantissa` × 10^`exponent` as "4.17 × 10¹¹" with `digits` significant digits.
std::string scientific(double value, int digits) {
  const long long e = (long long)std::floor(std::log10(std::fabs(value)));
  double m = value / std::pow(10.0, double(e));
  long long exp = e;
  if (std::fabs(std::round(m * std::pow(10.0, digits - 1))) >= std::pow(10.0, digits)) {   // 9.999 rounds to 10.00
    m /= 10;
    ++exp;
  }
  return fixed(m, digits - 1) + " \xc3\x97 10" + superscript(exp);
}

// Three significant digits without an exponent ("1.5", "12.5", "999", "1000").
std::string three_digits(double v) {
  const double a = std::fabs(v);
  return fixed(v, a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2);
}

// value / base^k with the largest k whose prefix exists, three significant digits.
std::string scaled(double value, double base, const char* const* prefixes, int count, const char* unit) {
  if (!std::isfinite(value)) return format_number(value);
  int k = 0;
  double v = value;
  while (k + 1 < count && std::fabs(v) >= base * 0.9995) {
    v /= base;
    ++k;
  }
  std::string number = (k == 0 && v == std::floor(v)) ? fixed(v, 0) : three_digits(v);
  if (k + 1 == count && std::fabs(v) >= 1e4) number = format_number(v, 3);   // beyond the last prefix
  const std::string prefix = prefixes[k];
  const std::string suffix = prefix + unit;
  return suffix.empty() ? number : number + " " + suffix;
}

}  // namespace

std::string format_flops(double flops) {
  static const char* const p[] = {"", "k", "M", "G", "T", "P", "E"};
  return scaled(flops, 1000.0, p, 7, "FLOP");
}

std::string format_bytes(double bytes) {
  static const char* const p[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  return scaled(bytes, 1024.0, p, 6, "B");
}

std::string format_count(double count) {
  static const char* const p[] = {"", "k", "M", "G", "T"};
  return scaled(count, 1000.0, p, 5, "");
}

std::string format_ms(double ms) {
  const double a = std::fabs(ms);
  if (!std::isfinite(ms)) return format_number(ms) + " ms";
  if (a == 0) return "0 ms";
  if (a < 1e-3) return three_digits(ms * 1e6) + " ns";
  if (a < 1.0) return three_digits(ms * 1e3) + " \xc2\xb5s";
  char buf[64];
  if (a < 1000.0) {
    std::snprintf(buf, sizeof buf, a < 10 ? "%.3f ms" : a < 100 ? "%.2f ms" : "%.1f ms", ms);
    return buf;
  }
  if (a < 60e3) return three_digits(ms / 1e3) + " s";
  if (a < 3600e3) return three_digits(ms / 60e3) + " min";
  return format_number(ms / 3600e3, 3) + " h";
}

std::string format_percent(double fraction) {
  const double p = fraction * 100.0;
  const double a = std::fabs(p);
  if (a >= 10) return fixed(p, 1) + "%";
  if (a >= 0.1 || a == 0) return fixed(p, 2) + "%";
  return format_number(p, 2) + "%";
}

std::string format_number(double value, int digits) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "\xe2\x88\x9e" : "-\xe2\x88\x9e";   // ∞
  if (value == 0) return "0";
  digits = digits < 1 ? 1 : digits > 15 ? 15 : digits;
  const double a = std::fabs(value);
  const int e = int(std::floor(std::log10(a)));
  if (e >= 15 || e < -6) return scientific(value, digits);
  return group_thousands(fixed(value, digits - 1 - e));
}

std::string format_whole(int64_t value) { return group_thousands(std::to_string(value)); }

std::string format_power_of_ten(double log10_value) {
  if (!std::isfinite(log10_value)) return format_number(log10_value);
  if (log10_value < 6) return format_whole(int64_t(std::llround(std::pow(10.0, log10_value))));
  const double e = std::floor(log10_value);
  double m = std::pow(10.0, log10_value - e);
  long long exp = (long long)e;
  if (m >= 9.95) {
    m /= 10;
    ++exp;
  }
  return fixed(m, 1) + " \xc3\x97 10" + superscript(exp);
}

}  // namespace autopar
