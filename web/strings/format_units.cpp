// Human-readable numbers for the panels. See format_units.h.
#include "format_units.h"

#include <cmath>
#include <cstdio>

namespace autopar::web {
namespace {

// value / base^k with the largest k whose prefix exists, three significant digits.
std::string scaled(double value, double base, const char* const* prefixes, int count, const char* unit) {
  int k = 0;
  double v = value;
  while (k + 1 < count && std::fabs(v) >= base * 0.9995) {
    v /= base;
    ++k;
  }
  char buf[64];
  if (k == 0 && v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f%s%s", v, *unit ? " " : "", unit);
  else
    std::snprintf(buf, sizeof buf, "%.3g %s%s", v, prefixes[k], unit);
  return buf;
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
  std::string s = scaled(count, 1000.0, p, 5, "");
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string format_ms(double ms) {
  char buf[64];
  const double a = std::fabs(ms);
  if (a == 0)
    std::snprintf(buf, sizeof buf, "0 ms");
  else if (a < 1e-3)
    std::snprintf(buf, sizeof buf, "%.3g ns", ms * 1e6);
  else if (a < 1.0)
    std::snprintf(buf, sizeof buf, "%.3g \xc2\xb5s", ms * 1e3);
  else if (a < 1000.0)
    std::snprintf(buf, sizeof buf, a < 10 ? "%.3f ms" : a < 100 ? "%.2f ms" : "%.1f ms", ms);
  else
    std::snprintf(buf, sizeof buf, "%.3g s", ms / 1000.0);
  return buf;
}

std::string format_percent(double fraction) {
  char buf[64];
  const double p = fraction * 100.0;
  std::snprintf(buf, sizeof buf, std::fabs(p) >= 10 ? "%.1f%%" : std::fabs(p) >= 0.1 ? "%.2f%%" : "%.2g%%", p);
  return buf;
}

std::string format_number(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, value);
  return buf;
}

}  // namespace autopar::web
