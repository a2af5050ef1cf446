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

namespace {

// Applies ",precision=P" (presets) or ":precision=P" (files) options to a loaded cluster.
Status apply_cluster_options(const std::string& options, Cluster& c, const std::string& arg_path) {
  const std::vector<OptionItem> items = split_options(options);
  if (std::string c = conflicting_option(items); !c.empty()) return make_error(ErrorCode::bad_value, "cluster options: " + c, arg_path);
  for (const OptionItem& item : items) {
    if (!item.has_value || item.key != "precision")
      return make_error(ErrorCode::bad_value, "cluster option '" + item.key + (item.has_value ? "=" + item.value : "") +
                                         "' is unknown; the one option is precision=fp32|tf32|bf16|fp16|fp8|mixed", arg_path);
    auto p = parse_precision(item.value);
    if (!p) return make_error(ErrorCode::bad_value, "precision '" + item.value + "' is unknown; use " + std::string(precision_names()), arg_path);
    c.gpu.precision = *p;
  }
  return Ok{};
}

}  // namespace

Result<Cluster> load_cluster(const std::string& full_text, const std::string& arg_path) {
  // Options after the cluster: "a100:4x8,precision=mixed" or "FILE.json:precision=mixed".
  std::string text = full_text, options;
  if (size_t j = full_text.find(".json:"); j != std::string::npos) {
    text = full_text.substr(0, j + 5);
    options = full_text.substr(j + 6);
  } else if (size_t comma = full_text.find(','); comma != std::string::npos && full_text.find(".json") == std::string::npos) {
    text = full_text.substr(0, comma);
    options = full_text.substr(comma + 1);
  }
  auto c = load_cluster_plain(text, arg_path);
  if (!c.ok() || options.empty()) return c;
  Cluster out = c.value();
  if (auto s = apply_cluster_options(options, out, arg_path); !s.ok()) return s.error();
  return out;
}

Result<Cluster> load_cluster_plain(const std::string& text, const std::string& arg_path) {
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
    return make_error(ErrorCode::unknown_cluster, "unknown cluster preset '" + name + "'; presets: " + names +
                                             " (as PRESET:NxG, e.g. lecture:2x4, or a .json file)", arg_path);
  }
  Cluster c = preset->cluster;
  if (colon != std::string::npos) {
    std::string shape = text.substr(colon + 1);
    size_t x = shape.find('x');
    int n = 0, g = 0;
    if (x == std::string::npos || !parse_count(shape.substr(0, x), n) || !parse_count(shape.substr(x + 1), g))
      return make_error(ErrorCode::bad_value, "cluster shape '" + shape + "' must be NxG (nodes x GPUs per node), e.g. " + name + ":2x4", arg_path);
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
