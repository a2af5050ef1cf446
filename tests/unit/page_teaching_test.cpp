// Unit tests of what the page teaches (issue 11), on the page's ImGui-free logic: exercise grading
// (a wrong part is named, `correct` is true only when every part is right, the answer is revealed
// after the second wrong try and never before), setState's key order, and scenario set-ups.
#include <doctest/doctest.h>

#include "app_state.h"
#include "exercise_grading.h"
#include "lecture_state.h"

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
    const std::string set = R"({"exercise":{"number":)" + std::to_string(n) + R"(,"answer":"-12345"}})";
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
