// The page's settings as JSON. See settings_json.h.
#include "settings_json.h"

#include <cmath>
#include <cstdint>

#include "cluster_spec.h"
#include "exercise_grading.h"
#include "request_fields.h"
#include "page_strings.h"
#include "strategy_text.h"

namespace autopar::web {
namespace {

Error wrong_type(const std::string& field, const std::string& expected) {
  return make_error(ErrorCode::wrong_type, field + " must be " + expected, field);
}

}  // namespace

namespace {

// A whole-number field narrowed to int: its bound is checked as it is read, before narrowing.
Result<int> read_small_whole(const Json& v, const std::string& field, WholeBound bound) {
  auto x = whole_from_json(v, field);
  if (!x.ok()) return x.error();
  if (auto st = check_bound(x.value(), bound, field); !st.ok()) return st.error();
  return int(x.value());
}

// The model, its file and the cluster. Returns false for a key of another role.
Result<bool> merge_input_field(const Json& j, const std::string& key, const Json& v, Settings& next) {
  if (key == "model") {
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
  } else {
    return false;
  }
  return true;
}

// The planners' numbers and switches, read with the requests' field readers (their bounds are
// checked with the whole settings, validate_settings_values). Returns false for another key.
Result<bool> merge_number_field(const std::string& key, const Json& v, Settings& next) {
  Status st = Ok{};
  if (key == "beta") {
    auto x = number_from_json(v, key);
    if (x.ok()) next.beta = x.value();
    else st = x.error();
  } else if (key == "seed" || key == "microbatches") {
    auto x = whole_from_json(v, key);
    if (x.ok()) (key == "seed" ? next.seed : next.microbatches) = x.value();
    else st = x.error();
  } else if (key == "zero") {
    auto x = read_small_whole(v, key, kZeroStageBound);
    if (x.ok()) next.zero = x.value();
    else st = x.error();
  } else if (key == "space") {
    if (!v.is_string()) return wrong_type("space", "a string: \"alpa\" (Alpa's 2021 space: t, p, d) or \"today\" (also recomputation, ZeRO, SP, the micro-batch size, cp and ep)");
    next.space = v.get<std::string>();
  } else if (key == "precision") {
    if (!v.is_string()) return wrong_type("precision", "a string: fp32, tf32, bf16, fp16, fp8, mixed or \"\" (the model's dtype)");
    next.precision = v.get<std::string>();
  } else if (key == "remat" || key == "ignore_boundaries") {
    auto x = bool_from_json(v, key);
    if (x.ok()) (key == "remat" ? next.remat : next.ignore_boundaries) = x.value();
    else st = x.error();
  } else {
    return false;
  }
  if (!st.ok()) return st.error();
  return true;
}

// {running, steps, budget_ms, init}: the search's own fields.
Status merge_search_object(const Json& v, SearchSettings& search) {
  if (!v.is_object()) return wrong_type("search", "an object {running, steps, budget_ms, init}");
  for (auto s = v.begin(); s != v.end(); ++s) {
    const std::string path = "search." + s.key();
    if (s.key() == "running") {
      auto x = bool_from_json(s.value(), path);
      if (!x.ok()) return x.error();
      search.running = x.value();
    } else if (s.key() == "steps") {
      auto x = whole_from_json(s.value(), path);
      if (!x.ok()) return x.error();
      search.steps = x.value();
    } else if (s.key() == "budget_ms") {
      auto x = number_from_json(s.value(), path);
      if (!x.ok()) return x.error();
      search.budget_ms = x.value();
    } else if (s.key() == "init") {
      auto x = string_from_json(s.value(), path, "a string: dp, expert, mp or random");
      if (!x.ok()) return x.error();
      search.init = x.value();
    } else {
      return make_error(ErrorCode::unknown_field, "search has no field \"" + s.key() + "\"; known: running, steps, budget_ms, init", path);
    }
  }
  return Ok{};
}

// {samples}: the accuracy study's.
Status merge_accuracy_object(const Json& v, AccuracySettings& accuracy) {
  if (!v.is_object()) return wrong_type("accuracy", "an object {samples}");
  for (auto a = v.begin(); a != v.end(); ++a) {
    if (a.key() != "samples")
      return make_error(ErrorCode::unknown_field, "accuracy has no field \"" + a.key() + "\"; known: samples", "accuracy." + a.key());
    auto x = read_small_whole(a.value(), "accuracy.samples", kAccuracySamplesBound);
    if (!x.ok()) return x.error();
    accuracy.samples = x.value();
  }
  return Ok{};
}

// A strategy object (as `autopar simulate --json` prints it) as edits relative to data
// parallel, for the model and cluster of `next`.
Status merge_strategy_object(const Json& body, Settings& next) {
  auto g = load_model_field(next);
  if (!g.ok()) return g.error();
  auto c = load_cluster_field(next);
  if (!c.ok()) return c.error();
  auto parsed_strategy = strategy_from_json(body, g.value(), c.value().num_devices());
  if (!parsed_strategy.ok()) {
    Error e = parsed_strategy.error();
    e.path = "strategy." + e.path;
    return e;
  }
  next.strategy = encode_strategy("dp", parsed_strategy.value(), g.value(), c.value());
  return Ok{};
}

}  // namespace

Status merge_settings_fields(const Json& j, Settings& next) {
  if (!j.is_object()) return wrong_type("(state)", "an object such as {\"model\":\"mlp:layers=6\"}");
  const Json* strategy_object = nullptr;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
    if (key == "scenario" || key == "exercise" || key == "intra" || key == "lecture_prediction") continue;   // the caller's
    auto input = merge_input_field(j, key, v, next);
    if (!input.ok()) return input.error();
    if (input.value()) continue;
    auto number = merge_number_field(key, v, next);
    if (!number.ok()) return number.error();
    if (number.value()) continue;
    Status st = Ok{};
    if (key == "strategy") {
      if (v.is_string()) next.strategy = v.get<std::string>();
      // A strategy object (or a whole simulate/search output holding one): read after the loop,
      // for the model and cluster of this same call whatever the key order.
      else if (v.is_object()) strategy_object = v.contains("strategy") && v["strategy"].is_object() ? &v["strategy"] : &v;
      else st = wrong_type("strategy", "a string (dp, mp, expert, random:SEED, plus ;OP=DEGREES@DEVICES edits) or a strategy object");
    } else if (key == "search") {
      st = merge_search_object(v, next.search);
    } else if (key == "accuracy") {
      st = merge_accuracy_object(v, next.accuracy);
    } else if (key == "schedules") {
      st = merge_schedule_settings(v, next.schedules);
    } else if (key == "plan") {
      st = merge_plan_settings(v, next.plan);
    } else if (key == "lang" || key == "panel") {
      if (!v.is_string())
        st = key == "lang" ? wrong_type("lang", "\"en\" (English) or \"zh\" (Chinese)") : wrong_type("panel", "a string: " + join(panel_names(), ", "));
      else (key == "lang" ? next.lang : next.panel) = v.get<std::string>();
    } else {
      st = make_error(ErrorCode::unknown_field,
                      "the state has no field \"" + key +
                          "\"; known: model, model_json, cluster, mesh, strategy, beta, seed, microbatches, ignore_boundaries, space, precision, zero, remat, plan, search, accuracy, schedules, panel, scenario, lang, exercise, lecture_prediction, intra",
                      key);
    }
    if (!st.ok()) return st;
  }
  return strategy_object ? merge_strategy_object(*strategy_object, next) : Status(Ok{});
}

Status apply_settings_json(AppState& state, const std::string& json_text) {
  auto parsed = parse_json_text(json_text, "the state object");
  if (!parsed.ok()) {
    notify_error(state, parsed.error());
    return parsed.error();
  }
  return apply_settings_object(state, parsed.value());
}

namespace {

// {exercise: {number, new_instance, answer | answers, check, reveal}}: shows exercise `number`,
// presses New instance, types the answer(s) into its boxes and presses Check (unless check is
// false) and Show the answer (reveal, refused before a real attempt).
struct ExerciseInput {
  int number = 0;                      // 0: none given
  std::vector<std::string> answers;
  bool has_answer = false, check = false, reveal = false, new_instance = false;
};

Result<ExerciseInput> read_exercise_input(const Json& e) {
  ExerciseInput in;
  if (!e.is_object() || !e.contains("number") || !e["number"].is_number_integer())
    return wrong_type("exercise", "an object {number: 1..8, answer: \"text\" or answers: [\"text\", ...], check, reveal}");
  in.number = e["number"].get<int>();
  if (in.number < 1 || in.number > kExerciseCount) return make_error(ErrorCode::out_of_range, "exercise.number must be between 1 and 8", "exercise.number");
  for (auto it = e.begin(); it != e.end(); ++it) {
    const std::string& k = it.key();
    if (k == "number") continue;
    if (k == "answer") {
      if (!it.value().is_string()) return wrong_type("exercise.answer", "a string such as \"0.37\"");
      in.answers = {it.value().get<std::string>()};
      in.has_answer = true;
    } else if (k == "answers") {
      if (!it.value().is_array() || it.value().size() > 3) return wrong_type("exercise.answers", "an array of at most 3 strings");
      in.answers.clear();
      for (const auto& a : it.value()) {
        if (!a.is_string()) return wrong_type("exercise.answers", "an array of at most 3 strings");
        in.answers.push_back(a.get<std::string>());
      }
      in.has_answer = true;
    } else if (k == "check" || k == "reveal" || k == "new_instance") {
      if (!it.value().is_boolean()) return wrong_type("exercise." + k, "true or false");
      (k == "check" ? in.check : k == "reveal" ? in.reveal : in.new_instance) = it.value().get<bool>();
    } else {
      return make_error(ErrorCode::unknown_field, "exercise has no field \"" + k + "\"; known: number, new_instance, answer, answers, check, reveal",
                        "exercise." + k);
    }
  }
  if (in.has_answer && !e.contains("check")) in.check = true;
  return in;
}

Status apply_exercise_input(AppState& state, const ExerciseInput& in) {
  state.exercises.shown = in.number;
  refresh_exercise_data(state);
  if (in.new_instance)
    if (auto st = new_exercise_instance(state); !st.ok()) return st;
  if (in.has_answer) {
    auto& boxes = state.exercises.answers[size_t(in.number - 1)];
    for (size_t k = 0; k < boxes.size(); ++k) boxes[k] = k < in.answers.size() ? in.answers[k] : std::string();
    state.exercises.checked[size_t(in.number - 1)] = false;
  }
  if (in.check) check_exercise(state);
  if (in.reveal) return reveal_exercise(state);
  return Ok{};
}

// A new cluster shape without an explicit mesh: keep the mesh if it still fits, else use
// nodes x GPUs (axis 0 across nodes, axis 1 inside a node).
Status follow_cluster_mesh(const Settings& prev, Settings& next) {
  if (next.cluster == prev.cluster && next.custom_cluster == prev.custom_cluster) return Ok{};
  auto c = load_cluster_field(next);
  if (!c.ok()) return c.error();
  auto m = parse_mesh_shape(next.mesh, "mesh");
  if (!m.ok() || m.value().first * m.value().second != c.value().num_devices())
    next.mesh = std::to_string(c.value().nodes) + "x" + std::to_string(c.value().gpus_per_node);
  return Ok{};
}

// The notice after a setState: what was applied, "key=value, ...", kept short.
std::string applied_notice(const Json& j) {
  std::string what;
  for (auto it = j.begin(); it != j.end(); ++it)
    what += (what.empty() ? "" : ", ") + it.key() + "=" + (it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
  if (what.size() > 160) what = what.substr(0, 157) + "...";
  return what.empty() ? std::string(tr("notice.nothing")) : tr_fill("notice.applied", {what});
}

}  // namespace

Status apply_settings_object(AppState& state, const Json& j) {
  auto fail = [&](const Error& e) -> Status {
    notify_error(state, e);
    return e;
  };
  if (!j.is_object()) return fail(wrong_type("(state)", "an object such as {\"model\":\"mlp:layers=6\"}"));
  Settings next = state.settings;
  Json intra_options;   // {solver, reduce_scatter, remat}, applied with the settings
  if (j.contains("intra")) {   // the intra-op tab's options (alpa_view.h), not kept in links
    IntraOpView check = state.alpa.intra;
    if (Status st = apply_intra_options(check, j["intra"]); !st.ok()) return fail(st.error());
    intra_options = j["intra"];
  }
  ExerciseInput exercise;
  if (j.contains("exercise")) {
    auto e = read_exercise_input(j["exercise"]);
    if (!e.ok()) return fail(e.error());
    exercise = e.value();
  }
  // A scenario sets the page up first; the other fields given with it override its set-up.
  if (j.contains("scenario")) {
    if (!j["scenario"].is_string()) return fail(wrong_type("scenario", "a scenario name such as \"alexnet-strategies\""));
    if (auto st = apply_scenario_setup(j["scenario"].get<std::string>(), next); !st.ok()) return fail(st.error());
  }
  if (auto st = merge_settings_fields(j, next); !st.ok()) return fail(st.error());
  if (!j.contains("mesh"))
    if (auto st = follow_cluster_mesh(state.settings, next); !st.ok()) return fail(st.error());
  Status applied = apply_settings(state, next);
  if (!applied.ok()) return applied;
  if (!intra_options.is_null()) (void)apply_intra_options(state.alpa.intra, intra_options);   // checked above
  if (exercise.number > 0)
    if (auto st = apply_exercise_input(state, exercise); !st.ok()) return fail(st.error());
  // {lecture_prediction: "b"}: the shown scenario's question answered (Check my prediction).
  if (j.contains("lecture_prediction")) {
    const Json& p = j["lecture_prediction"];
    if (!p.is_string() || p.get<std::string>().size() != 1)
      return fail(wrong_type("lecture_prediction", "one letter such as \"b\" (the shown scenario's choice)"));
    if (auto st = lecture_predict(state.lecture, state.settings.scenario, p.get<std::string>()[0] - 'a'); !st.ok()) return fail(st.error());
  }
  notify_info(state, applied_notice(j));
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
  j["space"] = s.space;
  j["precision"] = s.precision;
  j["zero"] = s.zero;
  j["remat"] = s.remat;
  j["plan"] = plan_settings_to_json(s.plan);
  j["search"] = Json{{"running", s.search.running}, {"steps", s.search.steps}, {"budget_ms", s.search.budget_ms},
                     {"init", s.search.init}};
  j["accuracy"] = Json{{"samples", s.accuracy.samples}};
  j["schedules"] = schedule_settings_to_json(s.schedules);
  j["panel"] = s.panel;
  j["scenario"] = s.scenario;
  j["lang"] = s.lang;
  return j;
}

}  // namespace autopar::web
