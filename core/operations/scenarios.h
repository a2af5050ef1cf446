// The lecture's demos as data (`autopar scenario`, the page's Lecture tab): each scenario names
// its lecture section, says what it shows, computes its numbers through the operations (the
// same ones a reader runs as CLI commands) and says how the page demonstrates it.
// examples/scenarios/ lists the same scenarios as files (scripts/make-examples.sh).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "json_io.h"
#include "language.h"
#include "result.h"

namespace autopar {

// A scenario: what it shows and how to compute it. `run` fills the results and findings; the
// title, explanation and findings are in both languages with the same numbers.
struct Scenario {
  std::string name, section;
  Bilingual title, explanation;
  std::function<Status(Json& results, std::vector<Bilingual>& findings)> run;
  // {"setup": getState fields, "panel": the tab that shows it}; the page applies the set-up over
  // its defaults, so a scenario is demonstrated with exactly the inputs its commands use.
  Json page = Json();
  // What that tab then shows, derived from the results: [{"result": dotted path in
  // window.autopar.result(), "value": the number or text it must equal}]; the browser test
  // checks every entry of every scenario.
  std::function<Json(const Json& results, const std::vector<std::string>& findings)> shows = nullptr;
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
  // The findings in `language`.
  std::vector<std::string> findings_in(Language language) const;
  Json to_json() const;
  std::string to_text() const;
};
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

// Runs scenario `name`; an unknown name is the error "unknown_scenario" at `path`.
Result<ScenarioReport> scenario_operation(const std::string& name, const std::string& path, Language language = Language::en);

}  // namespace autopar
