// The playground's state: loading the settings' model and cluster through the core, atomic
// commits, model import, and the notice. See app_state.h (the JSON form is settings_json.cpp,
// the per-frame work background_work.cpp, result() page_result.cpp).
#include "app_state.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "cluster_spec.h"
#include "exercise_grading.h"
#include "operation_requests.h"
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
    auto p = precision_from_text(s.precision, "precision");
    if (!p.ok()) return p.error();
    with.model += std::string(s.model.find(':') == std::string::npos ? ":" : ",") + "dtype_bytes=" + (is_mixed_precision(p.value()) ? "2" : "4");
    return load_model_field(with);
  }
  if (!s.model_json.empty()) {
    if (s.model_json.size() > kMaxModelFileBytes)
      return make_error(ErrorCode::too_large, "the model file " + s.model + " is " + std::to_string(s.model_json.size() >> 10) +
                                         " KiB; the page imports files up to " + std::to_string(kMaxModelFileBytes >> 20) + " MiB",
                        "model_json");
    // An autopar model file or a Hugging Face config.json, through the CLI's loader, with the
    // overrides typed after its name ("llama-3-8b.json:batch=16", as the CLI's FILE.json:...).
    const ModelFileSpec spec = split_model_file_spec(s.model);
    auto g = spec.is_file ? load_model_json(s.model_json, spec.file, spec.overrides, "model") : load_model_json(s.model_json, s.model);
    if (!g.ok()) {
      Error e = g.error();
      e.path = e.path.empty() ? "model_json" : "model_json." + e.path;
      return e;
    }
    return g;
  }
  if (ends_with(s.model, ".json"))
    return make_error(ErrorCode::bad_value,
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
    auto precision = precision_from_text(s.precision, "precision");
    if (!precision.ok()) return precision.error();
    auto c = load_cluster_field(without);
    if (c.ok()) c.value().gpu.precision = precision.value();
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

SearchRequest search_request_of(const Settings& s) {
  SearchRequest r;
  r.beta = s.beta;
  r.steps = s.search.steps;
  r.budget_ms = s.search.budget_ms;
  // A negative seed is refused by validate_settings_values before this is started; here it
  // must not become a huge unsigned one that passes.
  r.seed = s.seed < 0 ? UINT64_MAX : uint64_t(s.seed);
  r.init = s.search.init;
  return r;
}

Status validate_settings_values(const Settings& s) {
  if (auto st = check_bound(int64_t(s.zero), kZeroStageBound, "zero"); !st.ok()) return st;
  if (auto st = check_bound(s.microbatches, kMicrobatchesBound, "microbatches"); !st.ok()) return st;
  if (auto st = check_bound(s.seed, kSeedBound, "seed"); !st.ok()) return st;
  // The search's inputs, with the request's own bounds and messages (beta, steps, budget, init).
  if (auto st = validate(search_request_of(s), page_search_path()); !st.ok()) return st;
  // The inter-op pass's space, with the request's own check and message (path "space").
  InterRequest inter;
  inter.space = s.space;
  if (auto st = validate(inter, [](const std::string& f) { return f; }); !st.ok()) return st;
  if (!s.precision.empty())   // "": as loaded
    if (auto p = precision_from_text(s.precision, "precision"); !p.ok()) return p.error();
  AccuracyRequest accuracy;
  accuracy.samples = s.accuracy.samples;
  accuracy.seed = uint64_t(s.seed);
  // Its seed is the page's one seed, checked above.
  if (auto st = validate(accuracy, [](const std::string& f) { return f == "seed" ? f : "accuracy." + f; }); !st.ok()) return st;
  if (auto language = parse_language(s.lang, "lang"); !language.ok()) return language.error();
  if (auto st = validate_schedule_settings(s.schedules); !st.ok()) return st;
  if (auto st = validate_plan_settings(s.plan); !st.ok()) return st;
  for (const auto& p : panel_names())
    if (p == s.panel) return Ok{};
  return make_error(ErrorCode::bad_value, "panel \"" + s.panel + "\" is unknown; use one of " + join(panel_names(), ", "), "panel");
}

namespace {

// The model and cluster of `next` loaded through the core where they changed from `prev` (or
// all of them when `load_all`); unchanged ones stay empty.
struct LoadedInputs {
  std::optional<Graph> graph;
  std::optional<Cluster> cluster;
};

Result<LoadedInputs> load_changed_inputs(const Settings& prev, const Settings& next, bool load_all) {
  LoadedInputs in;   // a bad precision is refused by the loaders (load_model_field, load_cluster_field)
  if (load_all || next.model != prev.model || next.model_json != prev.model_json || next.precision != prev.precision) {
    auto g = load_model_field(next);
    if (!g.ok()) return g.error();
    in.graph = std::move(g.value());
  }
  if (load_all || next.cluster != prev.cluster || !(next.custom_cluster == prev.custom_cluster) || next.precision != prev.precision) {
    auto c = load_cluster_field(next);
    if (!c.ok()) return c.error();
    in.cluster = std::move(c.value());
  }
  return in;
}

// The mesh must use every GPU of the cluster.
Status check_mesh(const std::string& mesh_text, const Cluster& cluster) {
  auto mesh = parse_mesh_shape(mesh_text, "mesh");
  if (!mesh.ok()) return mesh.error();
  const int devices = mesh.value().first * mesh.value().second;
  if (devices == cluster.num_devices()) return Ok{};
  return make_error(ErrorCode::bad_value,
                    "mesh " + mesh_text + " has " + std::to_string(devices) + " devices but the cluster has " + std::to_string(cluster.num_devices()) +
                        "; use one of " + join(mesh_shapes(cluster.num_devices()), ", "),
                    "mesh");
}

// The settings' strategy resolved on the graph and cluster, with the ZeRO stage and
// recomputation of the memory controls; `text` becomes the strategy text kept. Edits that no
// longer fit a changed model or cluster (and were not given anew) are dropped, keeping the named
// base, and `dropped` says why.
struct ResolvedStrategy {
  Strategy strategy;
  std::string text, dropped;
};

Result<ResolvedStrategy> resolve_settings_strategy(const Settings& prev, const Settings& next, const Graph& graph, const Cluster& cluster,
                                                   bool inputs_changed) {
  ResolvedStrategy out{Strategy{}, next.strategy, ""};
  auto strategy = resolve_strategy(out.text, graph, cluster);
  if (!strategy.ok() && inputs_changed && next.strategy == prev.strategy && strategy_base(next.strategy) != next.strategy) {
    out.dropped = strategy.error().message;
    out.text = strategy_base(next.strategy);
    strategy = resolve_strategy(out.text, graph, cluster);
  }
  if (!strategy.ok()) return strategy.error();
  out.strategy = std::move(strategy.value());
  for (OpConfig& oc : out.strategy.ops) oc.zero = next.zero;
  out.strategy.remat = next.remat;
  return out;
}

// The search follows its inputs: a changed input discards it; running starts one (or resumes
// the paused one), not running pauses it in the worker.
void follow_search_settings(AppState& state, const Settings& prev) {
  const SearchRequest request = search_request_of(state.settings);
  if (state.search.started && request_to_json(state.search.config) != request_to_json(request)) search_reset(state.search);
  if (state.settings.search.running && (!state.search.started || (search_finished(state.search) && !prev.search.running))) {
    if (auto st = search_start(state.search, state.alpa.inter.worker, operation_inputs(state.settings), request); !st.ok()) {
      state.settings.search.running = false;
      notify_error(state, st.error());
    }
  } else if (state.search.started && !search_finished(state.search)) {
    if (state.settings.search.running && state.search.paused) search_resume(state.search);
    if (!state.settings.search.running) search_pause(state.search);
  }
}

// Commits checked settings with what was loaded for them. The derived views refer to the graph
// and cluster: they are dropped before those are replaced.
void commit_settings(AppState& state, const Settings& prev, const Settings& next, LoadedInputs in, ResolvedStrategy resolved, bool load_all) {
  const bool inputs_changed = in.graph || in.cluster;
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
  if (in.graph) state.graph = std::move(*in.graph);
  if (in.cluster) state.cluster = std::move(*in.cluster);
  if (inputs_changed) state.space = space_operation(state.graph, state.cluster).size;
  const bool strategy_changed = resolved.text != prev.strategy || next.zero != prev.zero || next.remat != prev.remat;
  state.settings = next;
  state.settings.strategy = resolved.text;
  set_page_language(parse_language(next.lang, "lang").value());   // the words follow at once; nothing computed depends on them
  // The simulation is rebuilt now only when the panel in front shows it: elsewhere (the Alpa
  // tabs, a script's setState) an edit of a large model costs its main thread no simulation, and
  // consecutive edits build once, when a panel or result() reads the view (ensure_flexflow).
  if (inputs_changed || strategy_changed || (!state.flexflow.task_graph && !state.flexflow.pending)) {
    clear_flexflow(state.flexflow);
    state.flexflow.pending = std::move(resolved.strategy);
  }
  if (load_all || tab_shows_flexflow(panel_tab(next.panel)) || tab_shows_flexflow(state.shown_tab)) ensure_flexflow(state);
  follow_search_settings(state, prev);
  follow_page_inter_plan(state);   // the pipeline plan of the new inputs, where it is shown
  if (accuracy_was_started && !state.accuracy.started) restart_accuracy(state);
  if (!resolved.dropped.empty()) notify_info(state, tr_fill("notice.edits_dropped", {resolved.dropped, resolved.text}));
}

// When `typed` names the imported file `imported` (its name, perhaps with a folder before it and
// overrides after it), that file's name with the typed overrides; else nothing.
std::optional<std::string> imported_file_spec(const std::string& typed, const std::string& imported) {
  const ModelFileSpec t = split_model_file_spec(typed), i = split_model_file_spec(imported);
  if (!t.is_file || !i.is_file) return std::nullopt;
  auto base = [](const std::string& path) {
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
  };
  if (base(t.file) != base(i.file)) return std::nullopt;
  return i.file + (t.overrides.empty() ? "" : ":" + t.overrides);
}

// apply_settings, with `load_all` forcing the model and cluster to be loaded (first load).
Status apply_settings_impl(AppState& state, const Settings& next_given, bool load_all) {
  const Settings prev = state.settings;   // a copy: state.settings is replaced on commit
  Settings next = next_given;
  auto fail = [&](const Error& e) -> Status {
    notify_error(state, e);
    return e;
  };
  // Choosing another model by name (menus, scenarios, the spec field) leaves the imported file;
  // the imported file's own name with overrides (even with the folder it came from, as the CLI
  // takes it: "examples/models/hf/llama-3-8b.json:batch=16") resizes it.
  if (next.model != prev.model && next.model_json == prev.model_json && !prev.model_json.empty()) {
    if (auto same = imported_file_spec(next.model, prev.model)) {
      next.model = *same;
    } else {
      next.model_json.clear();
      if (split_model_file_spec(next.model).is_file) {
        return fail(make_error(ErrorCode::bad_value,
                               tr_fill("notice.other_file_by_name", {next.model, split_model_file_spec(prev.model).file}), "model"));
      }
    }
  }
  // Model and cluster through the core (only when they changed: building is not free).
  auto in = load_changed_inputs(prev, next, load_all);
  if (!in.ok()) return fail(in.error());
  const Graph& graph = in.value().graph ? *in.value().graph : state.graph;
  const Cluster& cluster = in.value().cluster ? *in.value().cluster : state.cluster;
  if (auto st = check_mesh(next.mesh, cluster); !st.ok()) return fail(st.error());
  const bool inputs_changed = in.value().graph || in.value().cluster;
  auto resolved = resolve_settings_strategy(prev, next, graph, cluster, inputs_changed);
  if (!resolved.ok()) return fail(resolved.error());
  if (auto st = validate_settings_values(next); !st.ok()) return fail(st.error());
  commit_settings(state, prev, next, std::move(in.value()), std::move(resolved.value()), load_all);
  return Ok{};
}

}  // namespace

Status init_app_state(AppState& state) {
  state = AppState{};
  Status s = apply_settings_impl(state, Settings{}, true);
  if (s.ok()) notify_info(state, tr_fill("notice.loaded", {state.settings.model, state.settings.cluster}));
  return s;
}

Status apply_settings(AppState& state, const Settings& next) { return apply_settings_impl(state, next, false); }

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
    Error e = make_error(ErrorCode::too_large, name + " is " + std::to_string(text.size() >> 10) + " KiB; the page imports model files up to " +
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
  state.notice = Notice{NoticeLevel::info, text, std::nullopt, ""};
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

}  // namespace autopar::web
