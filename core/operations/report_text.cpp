// Formatting helpers of the text renderings. See report_text.h.
#include "report_text.h"

#include "language.h"

#include <cstdio>

namespace autopar {

std::string group_digits(int64_t n) {
  std::string s = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string si(double v) {
  const char* units[] = {"", "k", "M", "G", "T", "P", "E"};
  int u = 0;
  while (v >= 1000 && u < 6) { v /= 1000; ++u; }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
  return buf;
}

std::string fmt(const char* format, double v) {
  char buf[96];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string pad(const std::string& s, size_t width, bool right) {
  // By display width, not bytes: a Chinese op name takes two columns per character.
  const size_t w = display_width(s);
  if (w >= width) return s;
  return right ? std::string(width - w, ' ') + s : s + std::string(width - w, ' ');
}

}  // namespace autopar
