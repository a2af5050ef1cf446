// The page's settings as JSON. See settings_json.h.
#include "settings_json.h"

#include <cmath>
#include <cstdint>

#include "cluster_spec.h"
#include "exercise_grading.h"
#include "page_strings.h"
#include "strategy_text.h"

namespace autopar::web {
namespace {

Error wrong_type(const std::string& field, const std::string& expected) {
  return make_error("wrong_type", field + " must be " + expected, field);
}

}  // namespace

namespace {

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
    } else if (key == "precision") {
      if (!v.is_string()) return wrong_type("precision", "a string: fp32, tf32, mixed or \"\" (the model's dtype)");
      next.precision = v.get<std::string>();
    } else if (key == "zero") {
      auto x = read_int(v, "zero", 0, 3);
      if (!x.ok()) return x.error();
      next.zero = int(x.value());
    } else if (key == "remat") {
      if (!v.is_boolean()) return wrong_type("remat", "true or false");
      next.remat = v.get<bool>();
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
    } else if (key == "lang") {
      if (!v.is_string()) return wrong_type("lang", "\"en\" (English) or \"zh\" (Chinese)");
      next.lang = v.get<std::string>();
    } else if (key == "panel") {
      if (!v.is_string()) return wrong_type("panel", "a string: " + join(panel_names(), ", "));
      next.panel = v.get<std::string>();
    } else {
      return (make_error("unknown_field",
                             "the state has no field \"" + key +
                                 "\"; known: model, model_json, cluster, mesh, strategy, beta, seed, microbatches, ignore_boundaries, precision, zero, remat, search, accuracy, panel, scenario, lang, exercise, intra",
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
    auto m = parse_mesh_shape(next.mesh, "mesh");
    if (!m.ok() || m.value().first * m.value().second != c.value().num_devices())
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
    notify_info(state, what.empty() ? std::string(tr("notice.nothing")) : tr_fill("notice.applied", {what}));
  }
  return applied;
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
  j["precision"] = s.precision;
  j["zero"] = s.zero;
  j["remat"] = s.remat;
  j["search"] = Json{{"running", s.search.running}, {"steps", s.search.steps}, {"budget_ms", s.search.budget_ms},
                     {"init", s.search.init}};
  j["accuracy"] = Json{{"samples", s.accuracy.samples}};
  j["panel"] = s.panel;
  j["scenario"] = s.scenario;
  j["lang"] = s.lang;
  return j;
}

}  // namespace autopar::web
