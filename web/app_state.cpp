// The playground's state: settings <-> JSON, validation through the core, atomic commits, and
// the notice. See app_state.h.
#include "app_state.h"

#include <cmath>
#include <cstdlib>

#include "cluster_spec.h"

namespace autopar::web {
namespace {

// Strategies the FlexFlow half names on the CLI; "random:SEED" takes a non-negative integer.
bool is_known_strategy(const std::string& s) {
  if (s == "dp" || s == "mp" || s == "expert") return true;
  const std::string prefix = "random:";
  if (s.rfind(prefix, 0) != 0 || s.size() == prefix.size()) return false;
  for (size_t i = prefix.size(); i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return s.size() - prefix.size() <= 18;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Loads a model spec string; errors name the state field "model".
Result<Graph> load_model_field(const std::string& text) {
  if (ends_with(text, ".json")) return load_model(text);
  auto spec = builtin_model_spec(text, "model");
  if (!spec.ok()) return spec.error();
  return build_graph(spec.value());
}

// Loads the cluster the settings describe; errors name the state field "cluster".
Result<Cluster> load_cluster_field(const Settings& s) {
  if (s.custom_cluster) {
    if (auto v = validate_cluster(*s.custom_cluster); !v.ok()) {
      Error e = v.error();
      e.path = e.path.empty() ? "cluster" : "cluster." + e.path;
      return e;
    }
    return *s.custom_cluster;
  }
  return load_cluster(s.cluster, "cluster");
}

Error wrong_type(const std::string& field, const std::string& expected) {
  return make_error("wrong_type", field + " must be " + expected, field);
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

// Reads an integer field in [lo, hi].
Result<int64_t> read_int(const Json& v, const std::string& field, int64_t lo, int64_t hi) {
  if (!v.is_number_integer()) return wrong_type(field, "an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
    return make_error("out_of_range", field + " is too large; it must be at most " + std::to_string(hi), field);
  int64_t x = v.get<int64_t>();
  if (x < lo || x > hi)
    return make_error("out_of_range", field + " is " + std::to_string(x) + "; it must be between " +
                                          std::to_string(lo) + " and " + std::to_string(hi), field);
  return x;
}

// apply_settings, with `load_all` forcing the model and cluster to be loaded (first load).
Status apply_settings_impl(AppState& state, const Settings& next, bool load_all);

}  // namespace

const std::vector<std::string>& panel_names() {
  static const std::vector<std::string> names = {"model", "cluster"};
  return names;
}

Status init_app_state(AppState& state) {
  state = AppState{};
  Status s = apply_settings_impl(state, Settings{}, true);
  if (s.ok()) notify_info(state, "Loaded " + state.settings.model + " on " + state.settings.cluster + ".");
  return s;
}

Status apply_settings(AppState& state, const Settings& next) { return apply_settings_impl(state, next, false); }

namespace {
Status apply_settings_impl(AppState& state, const Settings& next, bool load_all) {
  const Settings& prev = state.settings;
  auto fail = [&](const Error& e) -> Status {
    notify_error(state, e);
    return e;
  };

  // Model and cluster through the core (only when they changed: building is not free).
  std::optional<Graph> graph;
  if (load_all || next.model != prev.model) {
    auto g = load_model_field(next.model);
    if (!g.ok()) return fail(g.error());
    graph = std::move(g.value());
  }
  std::optional<Cluster> cluster;
  if (load_all || next.cluster != prev.cluster || !(next.custom_cluster == prev.custom_cluster)) {
    auto c = load_cluster_field(next);
    if (!c.ok()) return fail(c.error());
    cluster = std::move(c.value());
  }
  const Cluster& new_cluster = cluster ? *cluster : state.cluster;

  auto mesh = parse_mesh(next.mesh);
  if (!mesh)
    return fail(make_error("bad_value", "mesh \"" + next.mesh + "\" is not of the form RxC (e.g. \"2x4\")", "mesh"));
  if (mesh->first * mesh->second != new_cluster.num_devices())
    return fail(make_error("bad_value",
                           "mesh " + next.mesh + " has " + std::to_string(mesh->first * mesh->second) +
                               " devices but the cluster has " + std::to_string(new_cluster.num_devices()) +
                               "; use one of " + join(mesh_shapes(new_cluster.num_devices()), ", "),
                           "mesh"));
  if (!is_known_strategy(next.strategy))
    return fail(make_error("bad_value", "strategy \"" + next.strategy + "\" is unknown; use dp, mp, expert or random:SEED",
                           "strategy"));
  if (!(std::isfinite(next.beta) && next.beta > 0))
    return fail(make_error("out_of_range", "beta must be a positive number", "beta"));
  if (next.seed < 0) return fail(make_error("out_of_range", "seed must be a non-negative integer", "seed"));
  if (next.microbatches < 1) return fail(make_error("out_of_range", "microbatches must be at least 1", "microbatches"));
  if (next.search.steps < 0) return fail(make_error("out_of_range", "search.steps must be non-negative", "search.steps"));
  if (next.search.running)
    return fail(make_error("not_available",
                           "the MCMC search is not part of this build yet; search.running must stay false",
                           "search.running"));
  bool known_panel = false;
  for (const auto& p : panel_names()) known_panel = known_panel || p == next.panel;
  if (!known_panel)
    return fail(make_error("bad_value", "panel \"" + next.panel + "\" is unknown; use one of " + join(panel_names(), ", "),
                           "panel"));

  // Everything is valid: commit.
  if (next.panel != prev.panel) state.focus_panel_pending = true;
  if (graph) state.graph = std::move(*graph);
  if (cluster) state.cluster = std::move(*cluster);
  state.settings = next;
  return Ok{};
}
}  // namespace

Status apply_settings_json(AppState& state, const std::string& json_text) {
  auto fail = [&](const Error& e) -> Status {
    notify_error(state, e);
    return e;
  };
  auto parsed = parse_json_text(json_text, "the state object");
  if (!parsed.ok()) return fail(parsed.error());
  const Json& j = parsed.value();
  if (!j.is_object()) return fail(wrong_type("(state)", "an object such as {\"model\":\"mlp:layers=6\"}"));

  Settings next = state.settings;
  const bool mesh_given = j.contains("mesh");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
    if (key == "model") {
      if (!v.is_string()) return fail(wrong_type("model", "a spec string such as \"mlp:layers=6\""));
      next.model = v.get<std::string>();
    } else if (key == "cluster") {
      if (v.is_string()) {
        next.cluster = v.get<std::string>();
        next.custom_cluster.reset();
      } else if (v.is_object()) {
        auto c = cluster_from_json(v);
        if (!c.ok()) {
          Error e = c.error();
          e.path = e.path.empty() ? "cluster" : "cluster." + e.path;
          return fail(e);
        }
        next.custom_cluster = c.value();
        next.cluster = preset_spec_string(c.value().name, c.value().nodes, c.value().gpus_per_node);
      } else {
        return fail(wrong_type("cluster", "a spec string such as \"lecture:2x4\" or a cluster object"));
      }
    } else if (key == "mesh") {
      if (!v.is_string()) return fail(wrong_type("mesh", "a string such as \"2x4\""));
      next.mesh = v.get<std::string>();
    } else if (key == "strategy") {
      if (!v.is_string()) return fail(wrong_type("strategy", "a string: dp, mp, expert or random:SEED"));
      next.strategy = v.get<std::string>();
    } else if (key == "beta") {
      if (!v.is_number()) return fail(wrong_type("beta", "a number"));
      next.beta = v.get<double>();
    } else if (key == "seed") {
      auto x = read_int(v, "seed", 0, INT64_MAX);
      if (!x.ok()) return fail(x.error());
      next.seed = x.value();
    } else if (key == "microbatches") {
      auto x = read_int(v, "microbatches", 1, 1 << 20);
      if (!x.ok()) return fail(x.error());
      next.microbatches = x.value();
    } else if (key == "search") {
      if (!v.is_object()) return fail(wrong_type("search", "an object {running, steps}"));
      for (auto s = v.begin(); s != v.end(); ++s) {
        if (s.key() == "running") {
          if (!s.value().is_boolean()) return fail(wrong_type("search.running", "true or false"));
          next.search.running = s.value().get<bool>();
        } else if (s.key() == "steps") {
          auto x = read_int(s.value(), "search.steps", 0, INT64_C(1) << 40);
          if (!x.ok()) return fail(x.error());
          next.search.steps = x.value();
        } else {
          return fail(make_error("unknown_field", "search has no field \"" + s.key() + "\"; known: running, steps",
                                 "search." + s.key()));
        }
      }
    } else if (key == "panel") {
      if (!v.is_string()) return fail(wrong_type("panel", "a string: " + join(panel_names(), ", ")));
      next.panel = v.get<std::string>();
    } else {
      return fail(make_error("unknown_field",
                             "the state has no field \"" + key +
                                 "\"; known: model, cluster, mesh, strategy, beta, seed, microbatches, search, panel",
                             key));
    }
  }

  // A new cluster shape without an explicit mesh: keep the mesh if it still fits, else use
  // nodes x GPUs (axis 0 across nodes, axis 1 inside a node).
  if (!mesh_given && (next.cluster != state.settings.cluster || !(next.custom_cluster == state.settings.custom_cluster))) {
    auto c = load_cluster_field(next);
    if (!c.ok()) return fail(c.error());
    auto m = parse_mesh(next.mesh);
    if (!m || m->first * m->second != c.value().num_devices())
      next.mesh = std::to_string(c.value().nodes) + "x" + std::to_string(c.value().gpus_per_node);
  }
  Status applied = apply_settings(state, next);
  if (applied.ok()) {
    std::string what;
    for (auto it = j.begin(); it != j.end(); ++it)
      what += (what.empty() ? "" : ", ") + it.key() + "=" +
              (it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
    if (what.size() > 160) what = what.substr(0, 157) + "...";
    notify_info(state, what.empty() ? "Nothing to apply." : "Applied " + what + ".");
  }
  return applied;
}

Json settings_to_json(const Settings& s) {
  Json j;
  j["model"] = s.model;
  if (s.custom_cluster)
    j["cluster"] = cluster_to_json(*s.custom_cluster);
  else
    j["cluster"] = s.cluster;
  j["mesh"] = s.mesh;
  j["strategy"] = s.strategy;
  j["beta"] = s.beta;
  j["seed"] = s.seed;
  j["microbatches"] = s.microbatches;
  j["search"] = Json{{"running", s.search.running}, {"steps", s.search.steps}};
  j["panel"] = s.panel;
  return j;
}

Json result_to_json(const AppState& state) {
  Json j;
  j["model"] = state.settings.model;
  j["model_name"] = state.graph.name();
  j["cluster"] = state.settings.custom_cluster ? std::string("custom") : state.settings.cluster;
  j["mesh"] = state.settings.mesh;
  j["ops"] = int64_t(state.graph.ops.size());
  j["total_forward_flops"] = state.graph.total_forward_flops();
  j["total_param_bytes"] = state.graph.total_param_bytes();
  j["total_param_elements"] = state.graph.total_param_elements();
  j["num_devices"] = state.cluster.num_devices();
  j["makespan_ms"] = nullptr;
  j["objective"] = nullptr;
  j["total_latency"] = nullptr;
  j["search"] = Json{{"step", 0}, {"best_ms", nullptr}};
  return j;
}

void notify_info(AppState& state, const std::string& text) {
  state.notice = Notice{NoticeLevel::info, text, "", ""};
}

void notify_error(AppState& state, const Error& error) {
  state.notice = Notice{NoticeLevel::error, error.message, error.code, error.path};
}

std::string notice_line(const Notice& n) {
  if (n.level == NoticeLevel::info) return n.text;
  std::string line = "error: " + n.text;
  if (!n.path.empty()) line += " (at " + n.path + ")";
  return line;
}

BuiltinChoice parse_builtin_choice(const std::string& spec) {
  BuiltinChoice choice;
  const size_t colon = spec.find(':');
  choice.model = find_builtin_model(spec.substr(0, colon));
  if (!choice.model) return choice;
  for (const auto& p : choice.model->params) choice.values[p.key] = p.default_value;
  if (colon == std::string::npos) return choice;
  size_t pos = colon + 1;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string::npos) comma = spec.size();
    const std::string item = spec.substr(pos, comma - pos);
    const size_t eq = item.find('=');
    if (eq != std::string::npos) {
      const std::string key = item.substr(0, eq);
      if (choice.values.count(key)) choice.values[key] = std::strtoll(item.c_str() + eq + 1, nullptr, 10);
    }
    pos = comma + 1;
  }
  return choice;
}

std::string builtin_spec_string(const BuiltinModel& model, const ModelParams& values) {
  std::string out = model.name;
  bool first = true;
  for (const auto& p : model.params) {
    auto it = values.find(p.key);
    if (it == values.end() || it->second == p.default_value) continue;
    out += (first ? ":" : ",") + p.key + "=" + std::to_string(it->second);
    first = false;
  }
  return out;
}

std::string preset_spec_string(const std::string& preset, int nodes, int gpus_per_node) {
  return preset + ":" + std::to_string(nodes) + "x" + std::to_string(gpus_per_node);
}

std::optional<std::pair<int, int>> parse_mesh(const std::string& text) {
  const size_t x = text.find('x');
  if (x == std::string::npos || x == 0 || x + 1 >= text.size() || x > 6 || text.size() - x - 1 > 6) return std::nullopt;
  for (size_t i = 0; i < text.size(); ++i)
    if (i != x && (text[i] < '0' || text[i] > '9')) return std::nullopt;
  const int rows = std::atoi(text.substr(0, x).c_str());
  const int cols = std::atoi(text.substr(x + 1).c_str());
  if (rows < 1 || cols < 1) return std::nullopt;
  return std::make_pair(rows, cols);
}

std::vector<std::string> mesh_shapes(int devices) {
  std::vector<std::string> out;
  for (int r = 1; r <= devices; ++r)
    if (devices % r == 0) out.push_back(std::to_string(r) + "x" + std::to_string(devices / r));
  return out;
}

}  // namespace autopar::web
