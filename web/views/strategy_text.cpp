// The compact strategy text of the page: parsing, validation through the core, encoding.
// See strategy_text.h.
#include "strategy_text.h"

#include <cstdlib>
#include <set>

#include "strategy_argument.h"

namespace autopar::web {
namespace {

const char* const kPath = "strategy";

bool all_digits(const std::string& s) {
  if (s.empty() || s.size() > 18) return false;
  for (char ch : s)
    if (ch < '0' || ch > '9') return false;
  return true;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t')) --b;
  return s.substr(a, b - a);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t next = s.find(sep, pos);
    out.push_back(s.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
    if (next == std::string::npos) break;
    pos = next + 1;
  }
  return out;
}

bool has_reserved_char(const std::string& name) { return name.empty() || name.find_first_of(";=@#") != std::string::npos; }

Error bad(const std::string& message) { return make_error(ErrorCode::bad_value, message, kPath); }

}  // namespace

std::string strategy_base(const std::string& text) { return text.substr(0, text.find(';')); }

bool is_named_strategy(const std::string& text) {
  if (text == "dp" || text == "mp" || text == "expert") return true;
  const std::string prefix = "random:";
  return text.rfind(prefix, 0) == 0 && all_digits(text.substr(prefix.size()));
}

std::string format_devices(const std::vector<int>& devices) {
  if (devices.empty()) return "";
  bool consecutive = true;
  for (size_t k = 1; k < devices.size(); ++k) consecutive = consecutive && devices[k] == devices[k - 1] + 1;
  if (devices.size() == 1) return std::to_string(devices[0]);
  if (consecutive) return std::to_string(devices.front()) + "-" + std::to_string(devices.back());
  std::string out;
  for (size_t k = 0; k < devices.size(); ++k) out += (k ? "," : "") + std::to_string(devices[k]);
  return out;
}

Result<std::vector<int>> parse_device_list(const std::string& text, const std::string& path) {
  std::vector<int> out;
  const std::string body = trim(text);
  if (body.empty()) return make_error(ErrorCode::bad_value, "give the devices as a list such as 0,1,2,3 or a range such as 0-3", path);
  for (const std::string& raw : split(body, ',')) {
    const std::string item = trim(raw);
    const size_t dash = item.find('-');
    if (dash == std::string::npos) {
      if (!all_digits(item)) return make_error(ErrorCode::bad_value, "'" + item + "' is not a device number; use e.g. 0,1,2,3 or 0-3", path);
      out.push_back(std::atoi(item.c_str()));
      continue;
    }
    const std::string a = trim(item.substr(0, dash)), b = trim(item.substr(dash + 1));
    if (!all_digits(a) || !all_digits(b) || a.size() > 6 || b.size() > 6)
      return make_error(ErrorCode::bad_value, "'" + item + "' is not a device range; use e.g. 0-3", path);
    const int lo = std::atoi(a.c_str()), hi = std::atoi(b.c_str());
    if (hi < lo || hi - lo > kMaxDevices) return make_error(ErrorCode::bad_value, "the range '" + item + "' is empty or too long", path);
    for (int d = lo; d <= hi; ++d) out.push_back(d);
  }
  if (out.size() > size_t(kMaxDevices)) return make_error(ErrorCode::bad_value, "too many devices listed", path);
  return out;
}

std::string format_op_config(const OpConfig& c) {
  std::string out;
  for (size_t j = 0; j < c.degrees.size(); ++j) out += (j ? "x" : "") + std::to_string(c.degrees[j]);
  out += "@";
  bool consecutive = true;
  for (size_t k = 1; k < c.devices.size(); ++k) consecutive = consecutive && c.devices[k] == c.devices[k - 1] + 1;
  if (consecutive && !c.devices.empty()) return out + std::to_string(c.devices.front());
  for (size_t k = 0; k < c.devices.size(); ++k) out += (k ? "," : "") + std::to_string(c.devices[k]);
  return out;
}

Result<Strategy> resolve_strategy(const std::string& text, const Graph& graph, const Cluster& cluster) {
  const std::vector<std::string> items = split(text, ';');
  const std::string& base = items[0];
  if (!is_named_strategy(base) && base.rfind("random:", 0) == 0)
    return bad("strategy \"" + base + "\": the seed after random: must be a whole number of 1 to 18 digits, e.g. random:7");
  if (!is_named_strategy(base))
    return make_error(ErrorCode::unknown_strategy,   // the CLI's code for an unknown --strategy
                      "strategy \"" + text + "\" must start with dp, mp, expert or random:SEED (then optional edits ;OP=DEGREES@DEVICES)",
                      kPath);
  auto loaded = load_strategy(base, graph, cluster, kPath);
  if (!loaded.ok()) return loaded.error();
  Strategy s = loaded.value();
  const int n = cluster.num_devices();
  std::set<int> edited;
  for (size_t k = 1; k < items.size(); ++k) {
    const std::string& item = items[k];
    const size_t eq = item.find('=');
    if (eq == std::string::npos)
      return bad("strategy edit \"" + item + "\" is not of the form OP=DEGREES@DEVICES (e.g. fc6=1x4@4)");
    const std::string name = item.substr(0, eq);
    int op = -1;
    if (!name.empty() && name[0] == '#') {
      const std::string digits = name.substr(1);
      if (all_digits(digits) && std::strtoll(digits.c_str(), nullptr, 10) < int64_t(graph.ops.size())) op = std::atoi(digits.c_str());
    } else {
      op = graph.find_op(name);
    }
    if (op < 0)
      return make_error(ErrorCode::unknown_op, "strategy edit \"" + item + "\": the model has no op \"" + name + "\"", kPath);
    if (!edited.insert(op).second) return bad("strategy edits op \"" + name + "\" twice; keep one edit per op");
    const std::string spec = item.substr(eq + 1);
    const size_t at = spec.find('@');
    if (at == std::string::npos)
      return bad("strategy edit \"" + item + "\" needs its devices after '@' (e.g. " + name + "=1x4@4)");
    const Op& o = graph.ops[size_t(op)];
    OpConfig c;
    const std::string degrees = spec.substr(0, at);
    if (!degrees.empty()) {
      for (const std::string& d : split(degrees, 'x')) {
        if (!all_digits(d) || d.size() > 6) return bad("strategy edit \"" + item + "\": degree \"" + d + "\" is not a whole number");
        c.degrees.push_back(std::atoi(d.c_str()));
      }
    }
    if (c.degrees.size() != o.split_dims.size()) {
      std::string dims;
      for (const auto& sd : o.split_dims) dims += (dims.empty() ? "" : "x") + sd.name;
      return bad("strategy edit \"" + item + "\": op \"" + o.name() + "\" takes " + std::to_string(o.split_dims.size()) +
                 " degrees (" + (dims.empty() ? "none" : dims) + "), " + std::to_string(c.degrees.size()) + " given");
    }
    int64_t parts = 1;
    for (int d : c.degrees) parts *= std::max(1, d);
    auto devices = parse_device_list(spec.substr(at + 1), kPath);
    if (!devices.ok()) return devices.error();
    c.devices = devices.value();
    if (c.devices.size() == 1 && parts > 1 && parts <= kMaxDevices) {
      const int first = c.devices[0];
      for (int p = 1; p < parts; ++p) c.devices.push_back(first + p);
    }
    if (auto v = validate_config(o, c, n, "strategy." + o.name()); !v.ok()) {
      Error e = v.error();
      e.message = "strategy edit \"" + item + "\": " + e.message;
      e.path = kPath;
      return e;
    }
    s.ops[size_t(op)] = c;
  }
  return s;
}

std::string encode_strategy(const std::string& base, const Strategy& strategy, const Graph& graph, const Cluster& cluster) {
  auto loaded = load_strategy(base, graph, cluster, kPath);
  std::string out = base;
  for (size_t i = 0; i < graph.ops.size() && i < strategy.ops.size(); ++i) {
    if (loaded.ok() && loaded.value().ops[i] == strategy.ops[i]) continue;
    const std::string& name = graph.ops[i].name();
    out += ";" + (has_reserved_char(name) ? "#" + std::to_string(i) : name) + "=" + format_op_config(strategy.ops[i]);
  }
  return out;
}

}  // namespace autopar::web
