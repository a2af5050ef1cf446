// Unit tests of what the page teaches (issue 11), on the page's ImGui-free logic: exercise grading
// (a wrong part is named, `correct` is true only when every part is right, the answer is revealed
// after the second wrong try and never before a real attempt, new inputs hide it again, the "why"
// questions are choices), setState's key order, scenario set-ups, the scenarios' questions, their
// notes against the lecture and their charts.
#include <doctest/doctest.h>

#include "error_code_printing.h"
#include "app_state.h"
#include "exercise_grading.h"
#include "lecture_state.h"
#include "scenario_charts.h"
#include "scenarios.h"

using namespace autopar;
using namespace autopar::web;

namespace {
AppState fresh() {
  AppState s;
  REQUIRE(init_app_state(s).ok());
  return s;
}
}  // namespace

TEST_CASE("exercise 1: each part graded, correct only when all three are right, answer after the second wrong try") {
  AppState s = fresh();
  // b = 64, n = 1024, m = 1024, s = 4, p = 2 (the defaults): input (64/4) x 1024 = 16384,
  // weights 1024 x (1024/2) = 524288, sync: the 4 copies of a shard all-reduce its 524288.
  auto parts = exercise_parts(s, 1);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].expected == 16384);
  CHECK(parts[1].expected == 524288);
  CHECK(parts[2].expected == 524288);
  for (const auto& p : parts) CHECK(p.placeholder.find("16384") == std::string::npos);

  REQUIRE(apply_settings_json(s, R"({"exercise":{"number":1,"answers":["16384","1","2"]}})").ok());
  Json r = exercise_result_json(s);
  CHECK(r["correct"] == false);
  CHECK(r["parts"][0]["correct"] == true);
  CHECK(r["parts"][1]["correct"] == false);
  CHECK(r["parts"][1]["expected"].is_null());   // not revealed after one wrong try
  CHECK(r["revealed"] == false);

  REQUIRE(apply_settings_json(s, R"({"exercise":{"number":1,"answers":["16384","524288","0"]}})").ok());
  r = exercise_result_json(s);
  CHECK(r["correct"] == false);
  CHECK(r["revealed"] == true);                 // second wrong try
  CHECK(r["parts"][2]["expected"] == 524288);

  REQUIRE(apply_settings_json(s, R"({"exercise":{"number":1,"answers":["16384","524,288","524288"]}})").ok());
  r = exercise_result_json(s);
  CHECK(r["correct"] == true);
}

TEST_CASE("exercise 2 with 'divide by the initial cost': the expected value and a hint naming it") {
  AppState s = fresh();
  s.exercises.shown = 2;
  s.exercises.ex2_normalize = true;
  s.exercises.ex2_initial_ms = 50;
  // exp(0.1 x (100 - 110) / 50) = exp(-0.02) = 0.980199
  auto parts = exercise_parts(s, 2);
  REQUIRE(parts.size() == 1);
  CHECK(parts[0].expected == doctest::Approx(0.980199).epsilon(1e-6));
  CHECK(parts[0].hint.find("initial cost") != std::string::npos);
  REQUIRE(apply_settings_json(s, R"({"exercise":{"number":2,"answer":"0.98"}})").ok());
  CHECK(exercise_result_json(s)["correct"] == true);
}

TEST_CASE("every exercise has parts, and a Check always gives correct true or false") {
  AppState s = fresh();
  for (int n = 1; n <= kExerciseCount; ++n) {
    CAPTURE(n);
    const std::string set = R"({"exercise":{"number":)" + std::to_string(n) + R"(,"answers":["-12345","-12345","-12345"]}})";
    REQUIRE(apply_settings_json(s, set).ok());
    CHECK(!exercise_parts(s, n).empty());
    Json r = exercise_result_json(s);
    CHECK(r["correct"] == false);
    CHECK(r["checked"] == true);
  }
}

TEST_CASE("setState: a strategy object is read for the model given in the same call, whatever the key order") {
  AppState s = fresh();
  REQUIRE(s.settings.model == "alexnet");
  // A DLRM strategy (emb0 is a DLRM op): key order strategy first, then model.
  auto dlrm = load_model("dlrm");
  REQUIRE(dlrm.ok());
  Json ops = Json::array();
  for (const auto& op : dlrm.value().ops) ops.push_back(Json{{"name", op.name()}, {"degrees", Json::object()}, {"devices", {0}}});
  Json strategy{{"ops", ops}};
  const std::string a = "{\"strategy\":" + strategy.dump() + ",\"model\":\"dlrm\"}";
  const std::string b = "{\"model\":\"dlrm\",\"strategy\":" + strategy.dump() + "}";
  for (const std::string& text : {a, b}) {
    AppState t = fresh();
    Status st = apply_settings_json(t, text);
    CHECK_MESSAGE(st.ok(), (st.ok() ? "" : st.error().message));
    CHECK(t.settings.model == "dlrm");
    ensure_flexflow(t);
    CHECK(t.flexflow.task_graph != nullptr);
  }
}

TEST_CASE("scenarios set the page up with their own inputs") {
  AppState s = fresh();
  REQUIRE(apply_settings_json(s, R"({"seed":7,"beta":3})").ok());
  REQUIRE(apply_settings_json(s, R"({"scenario":"megatron"})").ok());
  CHECK(s.settings.model == "transformer-chain");
  CHECK(s.settings.cluster == "lecture:1x8");
  CHECK(s.settings.mesh == "1x8");
  CHECK(s.settings.seed == 1);      // back to the default: the scenario's numbers use it
  CHECK(s.settings.beta == 500);
  REQUIRE(apply_settings_json(s, R"({"scenario":"gpt-pipeline"})").ok());
  CHECK(s.settings.model == "transformer:layers=24");
  CHECK(s.settings.cluster == "lecture:4x8");
  CHECK(scenario_demo_panel("gpt-pipeline") == "inter");
  for (const auto& info : scenario_list()) {
    CAPTURE(info.name);
    CHECK(info.page.is_object());
    CHECK(apply_settings_json(s, "{\"scenario\":\"" + info.name + "\"}").ok());
  }
}

TEST_CASE("an empty Check is not an attempt, and the answer is never shown before a real one") {
  AppState s = fresh();
  // Nothing typed: no try, nothing graded, no reveal on request.
  REQUIRE(apply_settings_json(s, R"({"exercise":{"number":1,"answers":[]}})").ok());
  Json r = exercise_result_json(s);
  CHECK(r["unanswered"] == true);
  CHECK(r["tries"] == 0);
  CHECK(r["checked"] == false);
  CHECK(r["can_reveal"] == false);
  // One box of three: still no attempt.
  REQUIRE(apply_settings_json(s, R"({"exercise":{"number":1,"answers":["16384"]}})").ok());
  r = exercise_result_json(s);
  CHECK(r["unanswered"] == true);
  CHECK(r["tries"] == 0);
  // Twice empty never reveals (the second-wrong-try rule counts real tries only).
  REQUIRE(apply_settings_json(s, R"({"exercise":{"number":1,"answers":[]}})").ok());
  CHECK(exercise_result_json(s)["revealed"] == false);
  Status early = apply_settings_json(s, R"({"exercise":{"number":1,"reveal":true}})");
  REQUIRE(!early.ok());
  CHECK(early.error().code == ErrorCode::not_ready);
  CHECK(exercise_result_json(s)["parts"][0]["expected"].is_null());
  // A real (wrong) try: now the answer may be shown on request.
  REQUIRE(apply_settings_json(s, R"({"exercise":{"number":1,"answers":["1","2","3"]}})").ok());
  r = exercise_result_json(s);
  CHECK(r["tries"] == 1);
  CHECK(r["can_reveal"] == true);
  REQUIRE(apply_settings_json(s, R"({"exercise":{"number":1,"reveal":true}})").ok());
  CHECK(exercise_result_json(s)["parts"][0]["expected"] == 16384);
}

TEST_CASE("new inputs after a reveal are a new question: its answer is hidden until a new attempt") {
  AppState s = fresh();
  REQUIRE(apply_settings_json(s, R"({"exercise":{"number":1,"answers":["1","2","3"]}})").ok());
  REQUIRE(apply_settings_json(s, R"({"exercise":{"number":1,"reveal":true}})").ok());
  REQUIRE(exercise_result_json(s)["revealed"] == true);
  const std::string before = exercise_result_json(s)["instance"];
  // The reader edits b: the revealed answer (for the old b) must not turn into the new one.
  s.exercises.ex1_batch = 128;
  refresh_exercise_data(s);
  Json r = exercise_result_json(s);
  CHECK(r["instance"] != before);
  CHECK(r["revealed"] == false);
  CHECK(r["tries"] == 0);
  CHECK(r["parts"][0]["expected"].is_null());
  CHECK(exercise_parts(s, 1)[0].expected == 32 * 1024);   // (128 / 4) x 1024, once answered
}

TEST_CASE("New instance: fresh inputs from a seed, the same seed the same instance, answers hidden") {
  for (int n : {1, 2, 4, 6}) {
    CAPTURE(n);
    ExercisesState a, b;
    REQUIRE(new_own_instance(a, n, 7));
    REQUIRE(new_own_instance(b, n, 7));
    const ExercisesState d;
    switch (n) {
      case 1:
        CHECK(a.ex1_batch == b.ex1_batch);
        CHECK(a.ex1_out == b.ex1_out);
        CHECK(a.ex1_sample_degree * a.ex1_param_degree <= 8);
        CHECK(a.ex1_batch % a.ex1_sample_degree == 0);
        CHECK((a.ex1_batch != d.ex1_batch || a.ex1_in != d.ex1_in || a.ex1_out != d.ex1_out || a.ex1_sample_degree != d.ex1_sample_degree ||
               a.ex1_param_degree != d.ex1_param_degree));
        break;
      case 2: CHECK(a.ex2_proposed_ms == b.ex2_proposed_ms); break;
      case 4: CHECK(a.ex4_rows == b.ex4_rows); break;
      default: CHECK(a.ex6_layer_ms == b.ex6_layer_ms); break;
    }
  }
  ExercisesState e;
  CHECK(!new_own_instance(e, 3, 1));   // the page's inputs: new_exercise_instance changes those
  AppState s = fresh();
  for (int n = 1; n <= kExerciseCount; ++n) {
    CAPTURE(n);
    REQUIRE(apply_settings_json(s, "{\"exercise\":{\"number\":" + std::to_string(n) + ",\"answers\":[\"zz\",\"zz\",\"zz\"]}}").ok());
    REQUIRE(apply_settings_json(s, "{\"exercise\":{\"number\":" + std::to_string(n) + ",\"reveal\":true}}").ok());
    const std::string before = exercise_result_json(s)["instance"];
    Status st = apply_settings_json(s, "{\"exercise\":{\"number\":" + std::to_string(n) + ",\"new_instance\":true}}");
    REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().message));
    Json r = exercise_result_json(s);
    CHECK(r["instance"] != before);
    CHECK(r["revealed"] == false);
    CHECK(!exercise_parts(s, n).empty());
    for (const auto& p : r["parts"]) CHECK(p["expected"].is_null());
  }
}

TEST_CASE("exercises 7 and 8 ask the lecture's why as choices, graded by letter") {
  AppState s = fresh();
  s.exercises.shown = 7;
  refresh_exercise_data(s);
  auto parts = exercise_parts(s, 7);
  REQUIRE(parts.size() == 3);
  for (const auto& p : parts) CHECK(p.choices.size() >= 3);
  CHECK(parts[0].accepted == std::vector<std::string>{"b"});
  CHECK(parts[1].accepted == std::vector<std::string>{"c"});
  // The speed-up's bucket: DLRM data parallel over the expert placement on lecture:2x4.
  const double speedup = s.exercises.ex7->speedup();
  const std::vector<double> bounds = {2, 10, 100, 1000};
  CHECK(parts[2].accepted == std::vector<std::string>{choice_letter(ratio_bucket(bounds, speedup))});
  CHECK(grade_part(parts[0], "B") == PartGrade::right);
  CHECK(grade_part(parts[0], "b)") == PartGrade::right);
  CHECK(grade_part(parts[0], "bb") == PartGrade::wrong);
  CHECK(grade_part(parts[0], "a") == PartGrade::wrong);
  CHECK(grade_part(parts[0], " ") == PartGrade::empty);
  s.exercises.shown = 8;
  refresh_exercise_data(s);
  parts = exercise_parts(s, 8);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].accepted == std::vector<std::string>{"a"});   // the additive cost is never below the makespan
  CHECK(parts[1].accepted == std::vector<std::string>{"b"});
  CHECK(ratio_bucket(bounds, 1.5) == 0);
  CHECK(ratio_bucket(bounds, 2) == 1);
  CHECK(ratio_bucket(bounds, 5000) == 4);
}

TEST_CASE("the Megatron scenario asks before it tells") {
  const Scenario* m = autopar::find_scenario("megatron");
  REQUIRE(m != nullptr);
  REQUIRE(m->question.has_value());
  // The explanation sets the problem without the answer; the answer is a choice and its why.
  CHECK(m->explanation.en.find("by row") == std::string::npos);
  CHECK(m->explanation.en.find("column") == std::string::npos);
  const ScenarioQuestion& q = *m->question;
  CHECK(q.choices[size_t(q.answer)].en.find("QKV by column") != std::string::npos);
  CHECK(q.why.en.find("Megatron") != std::string::npos);
  CHECK(q.choices.size() == q.choices.size());
  for (const auto& c : q.choices) CHECK(!c.zh.empty());
  AppState s = fresh();
  REQUIRE(apply_settings_json(s, R"({"scenario":"megatron"})").ok());
  CHECK(lecture_awaits_prediction(s.lecture, "megatron"));
  CHECK(!apply_settings_json(s, R"({"lecture_prediction":"z"})").ok());
  REQUIRE(apply_settings_json(s, R"({"lecture_prediction":"c"})").ok());
  CHECK(!lecture_awaits_prediction(s.lecture, "megatron"));
  CHECK(s.lecture.prediction == q.answer);
  // A scenario without a question refuses a prediction.
  REQUIRE(apply_settings_json(s, R"({"scenario":"alexnet-strategies"})").ok());
  CHECK(!apply_settings_json(s, R"({"lecture_prediction":"a"})").ok());
}

TEST_CASE("every scenario but gpt3-1024 computes as it opens; none sends the reader to the CLI") {
  for (const auto& info : scenario_list()) {
    CAPTURE(info.name);
    CHECK(scenario_is_light(info.name) == (info.name != "gpt3-1024"));
  }
}

TEST_CASE("the notes against the lecture: the lecture's number, this one, and why") {
  // AlexNet's strategies (lecture 2.3): 595.6 / 315.6 / 72.0 ms there.
  Json r{{"dp", {{"makespan_ms", 352.2}}}, {"mp", {{"makespan_ms", 195.5}}}, {"expert", {{"makespan_ms", 56.8}}},
         {"random:1", {{"makespan_ms", 250.0}}}, {"random:2", {{"makespan_ms", 400.0}}}, {"random:3", {{"makespan_ms", 300.0}}}};
  auto notes = versus_lecture("alexnet-strategies", r);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].en.find("595.6 ms") != std::string::npos);
  CHECK(notes[0].en.find("352.2 ms") != std::string::npos);
  CHECK(notes[0].en.find("2 of 3 random") != std::string::npos);   // 250 and 300 beat 352.2
  CHECK(notes[0].en.find("6.2x") != std::string::npos);            // 352.2 / 56.8
  CHECK(notes[0].zh.find("352.2 ms") != std::string::npos);
  // The task graph: only when it is not the lecture's 15.
  Json tasks = Json::array();
  for (int k = 0; k < 14; ++k) tasks.push_back(Json{{"kind", k < 6 ? "forward" : "backward"}});
  auto tg = versus_lecture("task-graph", Json{{"tasks", tasks}});
  REQUIRE(tg.size() == 1);
  CHECK(tg[0].en.find("15 tasks; here 14 (8 backward, 6 forward)") != std::string::npos);
  tasks.push_back(Json{{"kind", "forward"}});
  CHECK(versus_lecture("task-graph", Json{{"tasks", tasks}}).empty());
  // The beta sweep names its best beta against the lecture's 500, and is silent when it is 500.
  Json sweep = Json::array({Json{{"beta", 50}, {"mean_best_ms", 60.0}}, Json{{"beta", 500}, {"mean_best_ms", 58.0}}, Json{{"beta", 2000}, {"mean_best_ms", 57.0}}});
  auto b = versus_lecture("beta-sweep", Json{{"sweep", sweep}});
  REQUIRE(b.size() == 1);
  CHECK(b[0].en.find("beta = 2000 is") != std::string::npos);
  sweep[2]["mean_best_ms"] = 59.0;
  CHECK(versus_lecture("beta-sweep", Json{{"sweep", sweep}}).empty());
  // Missing numbers: no note rather than a wrong one.
  CHECK(versus_lecture("alexnet-strategies", Json::object()).empty());
  CHECK(versus_lecture("no-such-scenario", r).empty());
}

TEST_CASE("the Lecture tab's charts plot the scenario's own numbers") {
  Json sweep = Json::array({Json{{"beta", 1}, {"mean_best_ms", 80.0}}, Json{{"beta", 500}, {"mean_best_ms", 58.0}}});
  auto charts = scenario_charts("beta-sweep", Json{{"sweep", sweep}});
  REQUIRE(charts.size() == 1);
  CHECK(charts[0].id == "beta_sweep");
  CHECK(charts[0].log_x);
  REQUIRE(charts[0].series.size() == 1);
  CHECK(charts[0].series[0].x == std::vector<double>{1, 500});
  CHECK(charts[0].series[0].y == std::vector<double>{80, 58});
  CHECK(charts[0].points() == 2);
  // AlexNet's strategies beside the lecture's (no lecture bar for the random ones).
  Json r{{"dp", {{"makespan_ms", 352.2}}}, {"mp", {{"makespan_ms", 195.5}}}, {"expert", {{"makespan_ms", 56.8}}},
         {"random:1", {{"makespan_ms", 250.0}}}, {"random:2", {{"makespan_ms", 400.0}}}, {"random:3", {{"makespan_ms", 300.0}}}};
  charts = scenario_charts("alexnet-strategies", r);
  REQUIRE(charts.size() == 1);
  REQUIRE(charts[0].categories.size() == 6);
  CHECK(charts[0].series[0].y[0] == 352.2);
  CHECK(charts[0].series[1].y[0] == 595.6);
  CHECK(charts[0].points() == 9);   // 6 here + 3 printed by the lecture
  // An MCMC trace is carried to the last step; data parallel and expert are levels across it.
  Json mcmc{{"dp", {{"makespan_ms", 352.2}}}, {"expert", {{"makespan_ms", 56.8}}},
            {"search", {{"steps", 3000}, {"history", Json::array({Json::array({0, 352.2}), Json::array({120, 60.0})})}}}};
  charts = scenario_charts("mcmc-alexnet", mcmc);
  REQUIRE(charts.size() == 1);
  CHECK(charts[0].series[0].x.back() == 3000);
  CHECK(charts[0].series[0].y.back() == 60.0);
  CHECK(charts[0].series[1].y[0] == 352.2);
  CHECK(scenario_charts("linear-nine", Json::object()).empty());
  CHECK(scenario_charts("alexnet-strategies", Json::object()).empty());
}
