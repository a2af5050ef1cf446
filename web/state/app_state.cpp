// The playground's state: loading the settings' model and cluster through the core, atomic
// commits, model import, and the notice. See app_state.h (the JSON form is settings_json.cpp,
// the per-frame work background_work.cpp, result() page_result.cpp).
#include "app_state.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cluster_spec.h"
#include "device_mesh.h"
#include "exercise_grading.h"
#include "page_strings.h"
#include "strategy_text.h"

namespace autopar::web {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Result<Graph> load_model_field(const Settings& s) {
  // --precision's model half: 16-bit floats in mixed precision, 32-bit otherwise (built-in
  // models and model files by name take dtype_bytes; an imported file keeps its own dtype).
  if (!s.precision.empty() && s.model_json.empty()) {
    Settings with = s;
    with.precision.clear();
    const auto p = parse_precision(s.precision);
    with.model += std::string(s.model.find(':') == std::string::npos ? ":" : ",") + "dtype_bytes=" + (p == Precision::mixed ? "2" : "4");
    return load_model_field(with);
  }
  if (!s.model_json.empty()) {
    if (s.model_json.size() > kMaxModelFileBytes)
      return make_error("too_large", "the model file " + s.model + " is " + std::to_string(s.model_json.size() >> 10) +
                                         " KiB; the page imports files up to " + std::to_string(kMaxModelFileBytes >> 20) + " MiB",
                        "model_json");
    // An autopar model file or a Hugging Face config.json, through the CLI's loader.
    auto g = load_model_json(s.model_json, s.model);
    if (!g.ok()) {
      Error e = g.error();
      e.path = e.path.empty() ? "model_json" : "model_json." + e.path;
      return e;
    }
    return g;
  }
  if (ends_with(s.model, ".json"))
    return make_error("bad_value",
                      "the page cannot open files by name (\"" + s.model +
                          "\"); import the file instead: the Model panel's Import button, the I key, or drop it on the page",
                      "model");
  auto spec = builtin_model_spec(s.model, "model");
  if (!spec.ok()) return spec.error();
  return build_graph(spec.value());
}

Result<Cluster> load_cluster_field(const Settings& s) {
  // --precision's cluster half: the GPU peak in use.
  if (!s.precision.empty()) {
    Settings without = s;
    without.precision.clear();
    auto c = load_cluster_field(without);
    if (c.ok()) c.value().gpu.precision = *parse_precision(s.precision);
    return c;
  }
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

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

SearchConfig search_config_of(const Settings& s) {
  SearchConfig c;
  c.beta = s.beta;
  c.steps = s.search.steps;
  c.budget_ms = s.search.budget_ms;
  c.seed = uint64_t(s.seed);
  c.init = s.search.init;
  return c;
}

namespace {

// apply_settings, with `load_all` forcing the model and cluster to be loaded (first load).
Status apply_settings_impl(AppState& state, const Settings& next, bool load_all);

}  // namespace

Status init_app_state(AppState& state) {
  state = AppState{};
  Status s = apply_settings_impl(state, Settings{}, true);
  if (s.ok()) notify_info(state, tr_fill("notice.loaded", {state.settings.model, state.settings.cluster}));
  return s;
}

Status apply_settings(AppState& state, const Settings& next) { return apply_settings_impl(state, next, false); }

namespace {
Status apply_settings_impl(AppState& state, const Settings& next_given, bool load_all) {
  const Settings prev = state.settings;   // a copy: state.settings is replaced on commit
  Settings next = next_given;
  // Choosing another model by name (menus, scenarios, the spec field) leaves the imported file.
  if (next.model != prev.model && next.model_json == prev.model_json) next.model_json.clear();
  auto fail = [&](const Error& e) -> Status {
    notify_error(state, e);
    return e;
  };

  // Model and cluster through the core (only when they changed: building is not free).
  std::optional<Graph> graph;
  if (!next.precision.empty() && !parse_precision(next.precision))
    return fail(make_error("bad_value", "precision \"" + next.precision + "\" is unknown; use fp32, tf32, mixed or \"\" (as loaded)", "precision"));
  if (load_all || next.model != prev.model || next.model_json != prev.model_json || next.precision != prev.precision) {
    auto g = load_model_field(next);
    if (!g.ok()) return fail(g.error());
    graph = std::move(g.value());
  }
  std::optional<Cluster> cluster;
  if (load_all || next.cluster != prev.cluster || !(next.custom_cluster == prev.custom_cluster) || next.precision != prev.precision) {
    auto c = load_cluster_field(next);
    if (!c.ok()) return fail(c.error());
    cluster = std::move(c.value());
  }
  const Cluster& new_cluster = cluster ? *cluster : state.cluster;

  auto mesh_shape = parse_mesh_shape(next.mesh, "mesh");
  if (!mesh_shape.ok()) return fail(mesh_shape.error());
  const std::pair<int, int>* mesh = &mesh_shape.value();
  if (mesh->first * mesh->second != new_cluster.num_devices())
    return fail(make_error("bad_value",
                           "mesh " + next.mesh + " has " + std::to_string(mesh->first * mesh->second) +
                               " devices but the cluster has " + std::to_string(new_cluster.num_devices()) +
                               "; use one of " + join(mesh_shapes(new_cluster.num_devices()), ", "),
                           "mesh"));
  // The strategy, resolved on the new graph and cluster. Edits that no longer fit a changed
  // model or cluster (and were not given anew) are dropped, keeping the named base.
  const Graph& new_graph = graph ? *graph : state.graph;
  std::string strategy_text = next.strategy;
  std::string dropped_edits;
  auto strategy = resolve_strategy(strategy_text, new_graph, new_cluster);
  if (!strategy.ok() && (graph || cluster) && next.strategy == prev.strategy && strategy_base(next.strategy) != next.strategy) {
    dropped_edits = strategy.error().message;
    strategy_text = strategy_base(next.strategy);
    strategy = resolve_strategy(strategy_text, new_graph, new_cluster);
  }
  if (!strategy.ok()) return fail(strategy.error());
  // The memory controls (ZeRO stage, recomputation) apply to every op of the FlexFlow strategy.
  if (next.zero < 0 || next.zero > 3) return fail(make_error("out_of_range", "zero is the ZeRO stage: 0, 1, 2 or 3", "zero"));
  for (OpConfig& oc : strategy.value().ops) oc.zero = next.zero;
  strategy.value().remat = next.remat;
  if (!(std::isfinite(next.beta) && next.beta > 0 && next.beta <= 1e9))
    return fail(make_error("out_of_range", "beta must be a positive number (at most 1e9)", "beta"));
  if (next.seed < 0) return fail(make_error("out_of_range", "seed must be a non-negative integer", "seed"));
  if (next.microbatches < 1) return fail(make_error("out_of_range", "microbatches must be at least 1", "microbatches"));
  if (next.search.steps < 1 || next.search.steps > kMaxSearchSteps)
    return fail(make_error("out_of_range", "search.steps must be between 1 and " + std::to_string(kMaxSearchSteps), "search.steps"));
  if (!(std::isfinite(next.search.budget_ms) && next.search.budget_ms >= 0 && next.search.budget_ms <= 1e9))
    return fail(make_error("out_of_range", "search.budget_ms must be a number of milliseconds >= 0 (0 = no time budget)",
                           "search.budget_ms"));
  auto language = parse_language(next.lang, "lang");
  if (!language.ok()) return fail(language.error());
  if (next.search.init != "dp" && next.search.init != "expert" && next.search.init != "mp" && next.search.init != "random")
    return fail(make_error("bad_value", "search.init \"" + next.search.init + "\" is unknown; use dp, expert, mp or random",
                           "search.init"));
  if (next.accuracy.samples < 2 || next.accuracy.samples > kMaxAccuracySamples)
    return fail(make_error("out_of_range", "accuracy.samples must be between 2 and " + std::to_string(kMaxAccuracySamples),
                           "accuracy.samples"));
  bool known_panel = false;
  for (const auto& p : panel_names()) known_panel = known_panel || p == next.panel;
  if (!known_panel)
    return fail(make_error("bad_value", "panel \"" + next.panel + "\" is unknown; use one of " + join(panel_names(), ", "),
                           "panel"));

  // Everything is valid: commit. The derived views refer to the graph and cluster: drop them
  // before those are replaced.
  const bool inputs_changed = graph || cluster;
  if (inputs_changed) {
    clear_flexflow(state.flexflow);
    search_reset(state.search);
  }
  const bool accuracy_was_started = state.accuracy.started;
  if (inputs_changed || next.seed != prev.seed || next.accuracy.samples != prev.accuracy.samples) accuracy_reset(state.accuracy);
  if (panel_tab(next.panel) != panel_tab(prev.panel) || next.panel != prev.panel) state.focus_panel_pending = true;
  if (next.scenario != prev.scenario) {
    state.lecture = LectureState{};
    state.lecture.compute_pending = scenario_is_light(next.scenario);
  }
  if (graph) state.graph = std::move(*graph);
  if (cluster) state.cluster = std::move(*cluster);
  if (inputs_changed) state.space = count_space(state.graph, state.cluster.num_devices());
  const bool strategy_changed = strategy_text != prev.strategy || next.zero != prev.zero || next.remat != prev.remat;
  state.settings = next;
  state.settings.strategy = strategy_text;
  set_page_language(language.value());   // the words follow at once; nothing computed depends on them
  // The simulation is rebuilt now only when the panel in front shows it: elsewhere (the Alpa
  // tabs, a script's setState) an edit of a large model costs its main thread no simulation, and
  // consecutive edits build once, when a panel or result() reads the view (ensure_flexflow).
  if (inputs_changed || strategy_changed || (!state.flexflow.task_graph && !state.flexflow.pending)) {
    clear_flexflow(state.flexflow);
    state.flexflow.pending = strategy.value();
  }
  if (load_all || tab_shows_flexflow(panel_tab(next.panel)) || tab_shows_flexflow(state.shown_tab)) ensure_flexflow(state);

  // The search follows its inputs: a changed input discards it; running starts one (or
  // resumes the paused one), not running pauses it in the worker.
  const SearchConfig config = search_config_of(state.settings);
  if (state.search.started && state.search.config != config) search_reset(state.search);
  if (state.settings.search.running && (!state.search.started || (search_finished(state.search) && !prev.search.running))) {
    if (auto st = search_start(state.search, state.alpa.inter.worker, operation_inputs(state.settings), config); !st.ok()) {
      state.settings.search.running = false;
      notify_error(state, st.error());
    }
  } else if (state.search.started && !search_finished(state.search)) {
    if (state.settings.search.running && state.search.paused) search_resume(state.search);
    if (!state.settings.search.running) search_pause(state.search);
  }
  if (accuracy_was_started && !state.accuracy.started) restart_accuracy(state);
  if (!dropped_edits.empty())
    notify_info(state, tr_fill("notice.edits_dropped", {dropped_edits, strategy_text}));
  return Ok{};
}
}  // namespace

void ensure_flexflow(AppState& state) {
  if (!state.flexflow.pending) return;
  const Strategy strategy = std::move(*state.flexflow.pending);   // rebuild_flexflow clears pending
  rebuild_flexflow(state.flexflow, state.graph, state.cluster, strategy);
}

bool tab_shows_flexflow(int tab) { return tab == panel_tab("strategy") || tab == panel_tab("exercises"); }

Status import_model_file(AppState& state, const std::string& file_name, const std::string& text) {
  // The name is the user's file name: shown as text only, kept short and printable.
  std::string name;
  for (unsigned char c : file_name.substr(0, 80)) name += (c < 0x20 || c == 0x7F) ? '_' : char(c);
  if (name.empty()) name = "imported.json";
  if (text.size() > kMaxModelFileBytes) {
    Error e = make_error("too_large", name + " is " + std::to_string(text.size() >> 10) + " KiB; the page imports model files up to " +
                                          std::to_string(kMaxModelFileBytes >> 20) + " MiB",
                         "model_json");
    notify_error(state, e);
    return e;
  }
  if (text == state.settings.model_json && !text.empty()) {   // the same file again, perhaps renamed
    state.settings.model = name;
    notify_info(state, tr_fill("notice.imported_again", {name}));
    return Ok{};
  }
  Settings next = state.settings;
  next.model = name;
  next.model_json = text;
  Status s = apply_settings(state, next);
  if (s.ok())
    notify_info(state, tr_fill("notice.imported", {name, std::to_string(state.graph.ops.size())}));
  return s;
}

void record_frame_time(FrameStats& stats, double total_ms, double work_ms, int vertices) {
  if (stats.total_ms.size() < kFrameStatsSize) {
    stats.total_ms.push_back(float(total_ms));
    stats.work_ms.push_back(float(work_ms));
    stats.vertices.push_back(vertices);
  } else {
    stats.total_ms[stats.next] = float(total_ms);
    stats.work_ms[stats.next] = float(work_ms);
    stats.vertices[stats.next] = vertices;
  }
  stats.next = (stats.next + 1) % kFrameStatsSize;
  ++stats.frames;
}

void notify_info(AppState& state, const std::string& text_with_marks) {
  const std::string text = without_break_marks(text_with_marks);   // message() reports plain text
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

std::vector<std::string> mesh_shapes(int devices) {
  std::vector<std::string> out;
  for (int r = 1; r <= devices; ++r)
    if (devices % r == 0) out.push_back(std::to_string(r) + "x" + std::to_string(devices / r));
  return out;
}

}  // namespace autopar::web
