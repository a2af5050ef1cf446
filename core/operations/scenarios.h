// The lecture's demos as data (`autopar scenario`, the page's Lecture tab): each scenario names
// its lecture section, says what it shows, computes its numbers through the operations (the
// same ones a reader runs as CLI commands) and says how the page demonstrates it.
// examples/scenarios/ lists the same scenarios as files (scripts/make-examples.sh).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "json_io.h"
#include "language.h"
#include "result.h"

namespace autopar {

// A prediction a scenario asks before it tells (the page hides its findings until the reader has
// answered): the question, its choices, the right one and why.
struct ScenarioQuestion {
  Bilingual prompt;
  std::vector<Bilingual> choices;
  int answer = 0;    // index into choices
  Bilingual why;     // the telling, shown with the answer
};

// A scenario: what it shows (its runner, which fills the results and findings, is in
// scenario_runs.cpp: scenario_operation); the title, explanation and findings are in both
// languages with the same numbers.
struct Scenario {
  std::string name, section;
  Bilingual title, explanation;
  // {"setup": getState fields, "panel": the tab that shows it}; the page applies the set-up over
  // its defaults, so a scenario is demonstrated with exactly the inputs its commands use.
  Json page = Json();
  // What that tab then shows, derived from the results: [{"result": dotted path in
  // window.autopar.result(), "value": the number or text it must equal}]; the browser test
  // checks every entry of every scenario.
  std::function<Json(const Json& results, const std::vector<std::string>& findings)> shows = nullptr;
  // The prediction asked before the findings (none: the scenario tells at once).
  std::optional<ScenarioQuestion> question = std::nullopt;
};

// Every scenario, in lecture order (built once).
const std::vector<Scenario>& scenario_catalogue();
// The scenario called `name`, or nullptr.
const Scenario* find_scenario(const std::string& name);

// `scenario --list [--lang L]`: name, section, title, explanation and page set-up of each.
struct ScenarioListReport {
  Language language = Language::en;
  Json to_json() const;
  std::string to_text() const;
};
ScenarioListReport scenario_list_operation(Language language = Language::en);

// `scenario NAME [--lang L]`: one scenario computed.
struct ScenarioReport {
  const Scenario* scenario = nullptr;
  std::vector<Bilingual> findings;
  Json results;
  Language language = Language::en;   // what to_json and to_text print
  // versus_lecture(name, results): where the numbers differ from the lecture notes'.
  std::vector<Bilingual> versus_lecture() const;
  // The findings in `language`.
  std::vector<std::string> findings_in(Language language) const;
  Json to_json() const;
  std::string to_text() const;
};
// A scenario's numbers as the page's worker sends them (the "scenario" operation): its results
// and findings in both languages, read back exactly.
struct ScenarioNumbers {
  Json results;
  std::vector<Bilingual> findings;
};
// {"results": ..., "findings": [{"en": ..., "zh": ...}, ...]}.
Json scenario_numbers_to_json(const ScenarioReport& report);
// Reads scenario_numbers_to_json's JSON; a missing or mistyped field is an error at its path.
Result<ScenarioNumbers> scenario_numbers_from_json(const Json& j);

// A scenario whose numbers are one pipeline plan (gpt3-1024): `autopar inter` on these inputs,
// then its findings made from that plan's report. The page plans it in its worker (the same
// report) and makes the findings with the same function, so they equal the CLI's.
struct PlannedScenario {
  std::string model, cluster;
  int microbatches = 1;
  // Fills the scenario's results and findings from `inter --json`'s report of the plan.
  Status (*findings)(const Json& report, Json& results, std::vector<Bilingual>& findings) = nullptr;
};
// The planned scenario called `name`, or nullptr when `name` computes otherwise.
const PlannedScenario* planned_scenario(const std::string& name);

// Where scenario `name`'s computed `results` differ from the numbers lecture 15's notes print:
// one "the lecture says X; here Y, because Z" per difference, in both languages (empty when they
// agree or the results lack the numbers). Pure: the CLI's report and the page (from the worker's
// results) word them the same.
std::vector<Bilingual> versus_lecture(const std::string& name, const Json& results);

// question's JSON: {"prompt", "choices": [...], "answer": index, "why"} in `language`.
Json scenario_question_to_json(const ScenarioQuestion& q, Language language);

// The names of the scenarios that have a runner (scenario_runs.cpp), which are those of scenario_catalogue().
std::vector<std::string> scenario_runner_names();
// Runs scenario `name` (scenario_runs.cpp); an unknown name is the error "unknown_scenario" at `path`.
Result<ScenarioReport> scenario_operation(const std::string& name, const std::string& path, Language language = Language::en);

}  // namespace autopar
