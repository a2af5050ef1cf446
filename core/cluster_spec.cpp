// Parses cluster arguments ("lecture:2x4", "a100", "FILE.json") into a validated Cluster.
#include "cluster_spec.h"

#include "json_io.h"

namespace autopar {
namespace {

bool parse_count(const std::string& s, int& out) {
  if (s.empty() || s.size() > 7) return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

}  // namespace

std::string cluster_spec_string(const Cluster& c) {
  return c.name + ":" + std::to_string(c.nodes) + "x" + std::to_string(c.gpus_per_node);
}

Result<Cluster> load_cluster(const std::string& text, const std::string& arg_path) {
  if (text.size() >= 5 && text.compare(text.size() - 5, 5, ".json") == 0) {
    auto body = read_text_file(text);
    if (!body.ok()) return body.error();
    auto j = parse_json_text(body.value(), "cluster file '" + text + "'");
    if (!j.ok()) return j.error();
    auto c = cluster_from_json(j.value());
    if (!c.ok()) {
      Error e = c.error();
      e.message = "cluster file '" + text + "': " + e.message;
      return e;
    }
    return c;
  }
  size_t colon = text.find(':');
  std::string name = text.substr(0, colon);
  const ClusterPreset* preset = nullptr;
  for (const auto& p : cluster_presets()) if (p.name == name) preset = &p;
  if (!preset) {
    std::string names;
    for (const auto& p : cluster_presets()) names += (names.empty() ? "" : ", ") + p.name;
    return make_error("unknown_cluster", "unknown cluster preset '" + name + "'; presets: " + names +
                                             " (as PRESET:NxG, e.g. lecture:2x4, or a .json file)", arg_path);
  }
  Cluster c = preset->cluster;
  if (colon != std::string::npos) {
    std::string shape = text.substr(colon + 1);
    size_t x = shape.find('x');
    int n = 0, g = 0;
    if (x == std::string::npos || !parse_count(shape.substr(0, x), n) || !parse_count(shape.substr(x + 1), g))
      return make_error("bad_value", "cluster shape '" + shape + "' must be NxG (nodes x GPUs per node), e.g. " + name + ":2x4", arg_path);
    c.nodes = n;
    c.gpus_per_node = g;
  }
  if (auto s = validate_cluster(c); !s.ok()) {
    Error e = s.error();
    e.path = arg_path;
    return e;
  }
  return c;
}

}  // namespace autopar
