// The playground's state: settings <-> JSON, validation through the core, atomic commits, and
// the notice. See app_state.h.
#include "app_state.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cluster_spec.h"
#include "exercise_grading.h"
#include "strategy_text.h"

namespace autopar::web {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Loads the model the settings describe: the imported file's JSON, else a built-in spec
// string. Errors name the state field ("model", or "model_json.<path>" inside a file).
Result<Graph> load_model_field(const Settings& s) {
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

// The search configuration the settings describe.
SearchConfig search_config_of(const Settings& s) {
  SearchConfig c;
  c.beta = s.beta;
  c.steps = s.search.steps;
  c.budget_ms = s.search.budget_ms;
  c.seed = uint64_t(s.seed);
  c.init = s.search.init;
  return c;
}

// apply_settings, with `load_all` forcing the model and cluster to be loaded (first load).
Status apply_settings_impl(AppState& state, const Settings& next, bool load_all);

}  // namespace

const std::vector<std::string>& panel_names() {
  static const std::vector<std::string> names = {"model", "cluster", "strategy", "timeline", "search", "accuracy",
                                                  "lecture", "exercises", "compare", "intra", "inter"};
  return names;
}

int panel_tab(const std::string& panel) {
  if (panel == "strategy" || panel == "timeline") return 1;
  if (panel == "search") return 2;
  if (panel == "accuracy") return 3;
  if (panel == "lecture") return 4;
  if (panel == "exercises") return 5;
  if (panel == "compare") return 6;
  if (panel == "intra") return 7;
  if (panel == "inter") return 8;
  return 0;
}

Status init_app_state(AppState& state) {
  state = AppState{};
  Status s = apply_settings_impl(state, Settings{}, true);
  if (s.ok()) notify_info(state, "Loaded " + state.settings.model + " on " + state.settings.cluster + ".");
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
  if (load_all || next.model != prev.model || next.model_json != prev.model_json) {
    auto g = load_model_field(next);
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
  if (!(std::isfinite(next.beta) && next.beta > 0 && next.beta <= 1e9))
    return fail(make_error("out_of_range", "beta must be a positive number (at most 1e9)", "beta"));
  if (next.seed < 0) return fail(make_error("out_of_range", "seed must be a non-negative integer", "seed"));
  if (next.microbatches < 1) return fail(make_error("out_of_range", "microbatches must be at least 1", "microbatches"));
  if (next.search.steps < 1 || next.search.steps > kMaxSearchSteps)
    return fail(make_error("out_of_range", "search.steps must be between 1 and " + std::to_string(kMaxSearchSteps), "search.steps"));
  if (!(std::isfinite(next.search.budget_ms) && next.search.budget_ms >= 0 && next.search.budget_ms <= 1e9))
    return fail(make_error("out_of_range", "search.budget_ms must be a number of milliseconds >= 0 (0 = no time budget)",
                           "search.budget_ms"));
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
  const bool strategy_changed = strategy_text != prev.strategy;
  state.settings = next;
  state.settings.strategy = strategy_text;
  if (inputs_changed || strategy_changed || !state.flexflow.task_graph)
    rebuild_flexflow(state.flexflow, state.graph, state.cluster, strategy.value());

  // The search follows its inputs: a changed input discards it; running starts one.
  const SearchConfig config = search_config_of(state.settings);
  if (state.search.job && state.search.config != config) search_reset(state.search);
  if (state.settings.search.running && (!state.search.job || (search_finished(state.search) && !prev.search.running))) {
    if (auto st = search_start(state.search, state.graph, state.cluster, config); !st.ok()) {
      state.settings.search.running = false;
      notify_error(state, st.error());
    }
  }
  if (accuracy_was_started && !state.accuracy.started) accuracy_start(state.accuracy, state.settings.accuracy.samples, uint64_t(state.settings.seed));
  if (!dropped_edits.empty())
    notify_info(state, "The strategy's edits do not fit the new model or cluster (" + dropped_edits + "); back to " + strategy_text + ".");
  return Ok{};
}
}  // namespace

Status merge_settings_fields(const Json& j, Settings& next) {
  if (!j.is_object()) return wrong_type("(state)", "an object such as {\"model\":\"mlp:layers=6\"}");
  const Json* strategy_object = nullptr;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
    if (key == "scenario" || key == "exercise" || key == "intra") {
      continue;
    } else if (key == "model") {
      if (!v.is_string()) return wrong_type("model", "a spec string such as \"mlp:layers=6\"");
      next.model = v.get<std::string>();
    } else if (key == "model_json") {
      // An imported model file: its JSON text (or the object itself); "model" names the file.
      if (v.is_string()) next.model_json = v.get<std::string>();
      else if (v.is_object()) next.model_json = v.dump();
      else return wrong_type("model_json", "a model file's JSON text or object (see autopar model --json)");
      if (!j.contains("model")) next.model = "imported.json";
    } else if (key == "cluster") {
      if (v.is_string()) {
        next.cluster = v.get<std::string>();
        next.custom_cluster.reset();
      } else if (v.is_object()) {
        auto c = cluster_from_json(v);
        if (!c.ok()) {
          Error e = c.error();
          e.path = e.path.empty() ? "cluster" : "cluster." + e.path;
          return e;
        }
        next.custom_cluster = c.value();
        next.cluster = preset_spec_string(c.value().name, c.value().nodes, c.value().gpus_per_node);
      } else {
        return wrong_type("cluster", "a spec string such as \"lecture:2x4\" or a cluster object");
      }
    } else if (key == "mesh") {
      if (!v.is_string()) return wrong_type("mesh", "a string such as \"2x4\"");
      next.mesh = v.get<std::string>();
    } else if (key == "strategy") {
      if (v.is_string()) {
        next.strategy = v.get<std::string>();
      } else if (v.is_object()) {
        // A strategy object as `autopar simulate --json` prints it (or a whole simulate/search
        // output holding one): stored as edits relative to data parallel.
        const Json& body = v.contains("strategy") && v["strategy"].is_object() ? v["strategy"] : v;
        // Read after the loop, for the model and cluster of this same call whatever the key order.
        strategy_object = &body;
      } else {
        return wrong_type("strategy", "a string (dp, mp, expert, random:SEED, plus ;OP=DEGREES@DEVICES edits) or a strategy object");
      }
    } else if (key == "beta") {
      if (!v.is_number()) return wrong_type("beta", "a number");
      next.beta = v.get<double>();
    } else if (key == "seed") {
      auto x = read_int(v, "seed", 0, INT64_MAX);
      if (!x.ok()) return x.error();
      next.seed = x.value();
    } else if (key == "microbatches") {
      auto x = read_int(v, "microbatches", 1, 1 << 20);
      if (!x.ok()) return x.error();
      next.microbatches = x.value();
    } else if (key == "ignore_boundaries") {
      if (!v.is_boolean()) return wrong_type("ignore_boundaries", "true or false");
      next.ignore_boundaries = v.get<bool>();
    } else if (key == "search") {
      if (!v.is_object()) return wrong_type("search", "an object {running, steps, budget_ms, init}");
      for (auto s = v.begin(); s != v.end(); ++s) {
        if (s.key() == "running") {
          if (!s.value().is_boolean()) return wrong_type("search.running", "true or false");
          next.search.running = s.value().get<bool>();
        } else if (s.key() == "steps") {
          auto x = read_int(s.value(), "search.steps", 1, kMaxSearchSteps);
          if (!x.ok()) return x.error();
          next.search.steps = x.value();
        } else if (s.key() == "budget_ms") {
          if (!s.value().is_number()) return wrong_type("search.budget_ms", "a number of milliseconds (0 = none)");
          next.search.budget_ms = s.value().get<double>();
        } else if (s.key() == "init") {
          if (!s.value().is_string()) return wrong_type("search.init", "a string: dp, expert, mp or random");
          next.search.init = s.value().get<std::string>();
        } else {
          return (make_error("unknown_field",
                                 "search has no field \"" + s.key() + "\"; known: running, steps, budget_ms, init",
                                 "search." + s.key()));
        }
      }
    } else if (key == "accuracy") {
      if (!v.is_object()) return wrong_type("accuracy", "an object {samples}");
      for (auto a = v.begin(); a != v.end(); ++a) {
        if (a.key() == "samples") {
          auto x = read_int(a.value(), "accuracy.samples", 2, kMaxAccuracySamples);
          if (!x.ok()) return x.error();
          next.accuracy.samples = int(x.value());
        } else {
          return (make_error("unknown_field", "accuracy has no field \"" + a.key() + "\"; known: samples",
                                 "accuracy." + a.key()));
        }
      }
    } else if (key == "panel") {
      if (!v.is_string()) return wrong_type("panel", "a string: " + join(panel_names(), ", "));
      next.panel = v.get<std::string>();
    } else {
      return (make_error("unknown_field",
                             "the state has no field \"" + key +
                                 "\"; known: model, model_json, cluster, mesh, strategy, beta, seed, microbatches, ignore_boundaries, search, accuracy, panel, scenario, exercise, intra",
                             key));
    }
  }

  if (strategy_object) {
    auto g = load_model_field(next);
    if (!g.ok()) return g.error();
    auto c = load_cluster_field(next);
    if (!c.ok()) return c.error();
    auto parsed_strategy = strategy_from_json(*strategy_object, g.value(), c.value().num_devices());
    if (!parsed_strategy.ok()) {
      Error e = parsed_strategy.error();
      e.path = "strategy." + e.path;
      return e;
    }
    next.strategy = encode_strategy("dp", parsed_strategy.value(), g.value(), c.value());
  }
  return Ok{};
}

Status apply_settings_json(AppState& state, const std::string& json_text) {
  auto parsed = parse_json_text(json_text, "the state object");
  if (!parsed.ok()) {
    notify_error(state, parsed.error());
    return parsed.error();
  }
  return apply_settings_object(state, parsed.value());
}

Status apply_settings_object(AppState& state, const Json& j) {
  auto fail = [&](const Error& e) -> Status {
    notify_error(state, e);
    return e;
  };
  if (!j.is_object()) return fail(wrong_type("(state)", "an object such as {\"model\":\"mlp:layers=6\"}"));

  Settings next = state.settings;
  const bool mesh_given = j.contains("mesh");
  Json intra_options;   // {solver, reduce_scatter, remat}, applied with the settings
  if (j.contains("intra")) {   // the intra-op tab's options (alpa_view.h), not kept in links
    IntraOpView check = state.alpa.intra;
    if (Status st = apply_intra_options(check, j["intra"]); !st.ok()) return fail(st.error());
    intra_options = j["intra"];
  }
  // {exercise: {number, answer | answers, check, reveal}}: shows exercise `number`, types the
  // answer(s) into its boxes and presses Check (unless check is false) and Show the answer (reveal).
  int exercise_number = 0;
  std::vector<std::string> exercise_answers;
  bool exercise_has_answer = false, exercise_check = false, exercise_reveal = false;
  if (j.contains("exercise")) {
    const Json& e = j["exercise"];
    if (!e.is_object() || !e.contains("number") || !e["number"].is_number_integer())
      return fail(wrong_type("exercise", "an object {number: 1..8, answer: \"text\" or answers: [\"text\", ...], check, reveal}"));
    exercise_number = e["number"].get<int>();
    if (exercise_number < 1 || exercise_number > kExerciseCount)
      return fail(make_error("out_of_range", "exercise.number must be between 1 and 8", "exercise.number"));
    for (auto it = e.begin(); it != e.end(); ++it) {
      const std::string& k = it.key();
      if (k == "number") continue;
      if (k == "answer") {
        if (!it.value().is_string()) return fail(wrong_type("exercise.answer", "a string such as \"0.37\""));
        exercise_answers = {it.value().get<std::string>()};
        exercise_has_answer = true;
      } else if (k == "answers") {
        if (!it.value().is_array() || it.value().size() > 3) return fail(wrong_type("exercise.answers", "an array of at most 3 strings"));
        exercise_answers.clear();
        for (const auto& a : it.value()) {
          if (!a.is_string()) return fail(wrong_type("exercise.answers", "an array of at most 3 strings"));
          exercise_answers.push_back(a.get<std::string>());
        }
        exercise_has_answer = true;
      } else if (k == "check" || k == "reveal") {
        if (!it.value().is_boolean()) return fail(wrong_type("exercise." + k, "true or false"));
        (k == "check" ? exercise_check : exercise_reveal) = it.value().get<bool>();
      } else {
        return fail(make_error("unknown_field", "exercise has no field \"" + k + "\"; known: number, answer, answers, check, reveal",
                               "exercise." + k));
      }
    }
    if (exercise_has_answer && !e.contains("check")) exercise_check = true;
  }
  // A scenario sets the page up first; the other fields given with it override its set-up.
  if (j.contains("scenario")) {
    if (!j["scenario"].is_string()) return fail(wrong_type("scenario", "a scenario name such as \"alexnet-strategies\""));
    if (auto st = apply_scenario_setup(j["scenario"].get<std::string>(), next); !st.ok()) return fail(st.error());
  }
  if (auto st = merge_settings_fields(j, next); !st.ok()) return fail(st.error());

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
  if (applied.ok() && !intra_options.is_null()) (void)apply_intra_options(state.alpa.intra, intra_options);   // checked above
  if (applied.ok() && exercise_number > 0) {
    state.exercises.shown = exercise_number;
    refresh_exercise_data(state);
    if (exercise_has_answer) {
      auto& boxes = state.exercises.answers[size_t(exercise_number - 1)];
      for (size_t k = 0; k < boxes.size(); ++k) boxes[k] = k < exercise_answers.size() ? exercise_answers[k] : std::string();
      state.exercises.checked[size_t(exercise_number - 1)] = false;
    }
    if (exercise_check) check_exercise(state);
    if (exercise_reveal) reveal_exercise(state);
  }
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
    notify_info(state, "Imported " + name + " again: it is the model already shown.");
    return Ok{};
  }
  Settings next = state.settings;
  next.model = name;
  next.model_json = text;
  Status s = apply_settings(state, next);
  if (s.ok())
    notify_info(state, "Imported " + name + ": " + std::to_string(state.graph.ops.size()) + " ops. Copy link shares it with the file inside.");
  return s;
}

bool has_background_work(const AppState& state) {
  // The lecture's and the comparison's jobs advance only while their tab is drawn (panel_lecture,
  // panel_compare): elsewhere they wait, and so may the frames.
  const bool lecture_shown = state.shown_tab == panel_tab("lecture");
  const bool compare_shown = state.shown_tab == panel_tab("compare");
  return (state.settings.search.running && state.search.job) || (state.accuracy.started && !state.accuracy.complete) ||
         (lecture_shown && (state.lecture.compute_pending || (state.lecture.sweep && state.lecture.sweep->running))) ||
         (compare_shown && (state.compare.compute_pending || state.compare.job)) || state.alpa.inter.job.has_value();
}

Json settings_to_json(const Settings& s) {
  Json j;
  j["model"] = s.model;
  if (!s.model_json.empty()) j["model_json"] = s.model_json;
  if (s.custom_cluster)
    j["cluster"] = cluster_to_json(*s.custom_cluster);
  else
    j["cluster"] = s.cluster;
  j["mesh"] = s.mesh;
  j["strategy"] = s.strategy;
  j["beta"] = s.beta;
  j["seed"] = s.seed;
  j["microbatches"] = s.microbatches;
  j["ignore_boundaries"] = s.ignore_boundaries;
  j["search"] = Json{{"running", s.search.running}, {"steps", s.search.steps}, {"budget_ms", s.search.budget_ms},
                     {"init", s.search.init}};
  j["accuracy"] = Json{{"samples", s.accuracy.samples}};
  j["panel"] = s.panel;
  j["scenario"] = s.scenario;
  return j;
}

namespace {
// result().frame_ms: median and max over the recent frames of the whole frame and of the app's
// own work, in ms.
Json frame_stats_json(const FrameStats& stats) {
  if (stats.total_ms.empty()) return nullptr;
  std::vector<float> total = stats.total_ms, work = stats.work_ms;
  std::sort(total.begin(), total.end());
  std::sort(work.begin(), work.end());
  return Json{{"median", total[total.size() / 2]}, {"max", total.back()},
              {"work_median", work[work.size() / 2]}, {"work_max", work.back()},
              {"samples", total.size()}, {"frames", stats.frames}};
}
}  // namespace

AlpaInputs alpa_inputs(const AppState& state) {
  AlpaInputs in;
  in.model = state.settings.model;
  // An imported model is identified by its content: the same name may hold another file.
  if (!state.settings.model_json.empty()) in.model += "#" + std::to_string(std::hash<std::string>{}(state.settings.model_json));
  in.cluster = state.settings.custom_cluster ? cluster_to_json(*state.settings.custom_cluster).dump() : state.settings.cluster;
  in.mesh = state.settings.mesh;
  in.solver = state.alpa.intra.solver;
  in.reduce_scatter = state.alpa.intra.reduce_scatter;
  in.remat = state.alpa.intra.remat;
  in.alpa_costs = alpa_costs_key(state.alpa.intra);
  in.microbatches = int(state.settings.microbatches);
  in.ignore_boundaries = state.settings.ignore_boundaries;
  return in;
}

void refresh_intra_plan(AppState& state) { refresh_intra_plan(state.alpa.intra, alpa_inputs(state), state.graph, state.cluster); }

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
  j["space"] = Json{{"strategies", state.space.strategies}, {"log10_strategies", state.space.log10_strategies}};
  j.update(flexflow_result_json(state.flexflow));
  j["strategy"] = state.settings.strategy;
  j["strategy_json"] = state.flexflow.task_graph ? strategy_to_json(state.graph, state.flexflow.strategy) : Json(nullptr);
  j["timeline"] = Json{{"t0_ms", state.timeline.t0_ms},
                       {"t1_ms", state.timeline.t1_ms},
                       {"fit", state.timeline.fit},
                       {"lanes", state.flexflow.lanes.devices.size()}};
  j.update(alpa_result_json(state.alpa, alpa_inputs(state), state.graph));
  j["search"] = search_result_json(state.search, state.settings.search.running);
  j["accuracy"] = accuracy_result_json(state.accuracy);
  j["scenario"] = lecture_result_json(state.lecture);
  j["compare"] = compare_result_json(state.compare);
  j["exercise"] = exercise_result_json(state);
  j["frame_ms"] = frame_stats_json(state.frame_stats);
  Json tabs = Json::array();
  for (size_t t = 0; t < state.ui.tabs.size(); ++t)
    tabs.push_back(Json{{"x", state.ui.tabs[t][0]}, {"y", state.ui.tabs[t][1]}, {"w", state.ui.tabs[t][2]}, {"h", state.ui.tabs[t][3]}});
  j["ui"] = Json{{"tabs", tabs}, {"scroll_y_sum", state.ui.scroll_y_sum}, {"welcome", state.show_welcome}};
  j["notice"] = Json{{"level", state.notice.level == NoticeLevel::error ? "error" : "info"}, {"text", state.notice.text},
                     {"code", state.notice.code}, {"path", state.notice.path}};
  return j;
}

void record_frame_time(FrameStats& stats, double total_ms, double work_ms) {
  if (stats.total_ms.size() < kFrameStatsSize) {
    stats.total_ms.push_back(float(total_ms));
    stats.work_ms.push_back(float(work_ms));
  } else {
    stats.total_ms[stats.next] = float(total_ms);
    stats.work_ms[stats.next] = float(work_ms);
  }
  stats.next = (stats.next + 1) % kFrameStatsSize;
  ++stats.frames;
}

void advance_background_work(AppState& state, double budget_ms) {
  const bool searching = state.settings.search.running && state.search.job;
  const bool studying = state.accuracy.started && !state.accuracy.complete;
  const double share = searching && studying ? budget_ms / 2 : budget_ms;
  if (searching) {
    search_advance(state.search, kMaxSearchSteps, share);
    if (search_finished(state.search)) {
      state.settings.search.running = false;
      const SearchResult& r = *search_state(state.search);
      char text[256];
      std::snprintf(text, sizeof text, "Search finished: best %.3f ms after %lld proposals (from %.3f ms, %.2fx)%s.", r.best_ms,
                    static_cast<long long>(r.steps), r.init_ms, r.init_ms / r.best_ms,
                    r.stopped_by_budget ? ", stopped by the time budget" : "");
      notify_info(state, text);
    }
  }
  if (studying) accuracy_advance(state.accuracy, state.graph, state.cluster, share);
  // A pipeline plan keeps going in any tab (at most one slice per frame; the panel's call then does nothing).
  if (state.alpa.inter.job)
    advance_inter_plan(state.alpa.inter, alpa_inputs(state), state.graph, state.cluster, budget_ms, state.frame_stats.frames);
}

void ensure_accuracy_started(AppState& state) {
  if (!state.accuracy.started) accuracy_start(state.accuracy, state.settings.accuracy.samples, uint64_t(state.settings.seed));
}

void restart_accuracy(AppState& state) {
  accuracy_start(state.accuracy, state.settings.accuracy.samples, uint64_t(state.settings.seed));
}

void search_single_step(AppState& state) {
  if (!state.search.job || search_finished(state.search)) {
    if (auto st = search_start(state.search, state.graph, state.cluster, search_config_of(state.settings)); !st.ok()) {
      notify_error(state, st.error());
      return;
    }
  }
  search_advance(state.search, 1, 1e9);
}

void reset_search(AppState& state) {
  search_reset(state.search);
  state.settings.search.running = false;
}

bool use_best_strategy(AppState& state) {
  if (!state.search.job) {
    notify_error(state, make_error("no_search", "run the search first: there is no best strategy yet", "search"));
    return false;
  }
  const SearchResult& r = *search_state(state.search);
  Settings next = state.settings;
  next.strategy = encode_strategy(state.search.job->init_name(), r.best, state.graph, state.cluster);
  if (!apply_settings(state, next).ok()) return false;
  char text[200];
  std::snprintf(text, sizeof text, "Applied the best strategy found (%.3f ms, step %lld) to the Strategy panel.", r.best_ms,
                static_cast<long long>(r.best_step));
  notify_info(state, text);
  return true;
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
