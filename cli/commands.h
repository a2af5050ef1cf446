// The CLI's commands: each parses its words into an operation's inputs, calls the operation
// (core/operations) and returns the report's JSON and text; main() prints one of them and
// turns an Error into exit status 2.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "args.h"
#include "json_io.h"
#include "report_text.h"
#include "result.h"

namespace autopar::cli {

// What a command produced: the --json object and the text shown without --json.
struct Output {
  Json json;
  std::string text;
};

// An operation's report (anything with to_json() and to_text()) as a command's output.
template <class Report>
Output output_of(const Report& r) {
  return Output{r.to_json(), r.to_text()};
}

// One command of the CLI.
struct Command {
  std::string name;
  std::string summary;               // one line for `autopar help`
  std::string usage;                 // arguments, e.g. "--model M [--json]"
  CommandSyntax syntax;
  std::function<Result<Output>(const Args&)> run;
  std::string help = {};             // longer text for `autopar COMMAND --help` (optional)
};

// Commands about inputs: models, clusters, model, ops, cluster.
std::vector<Command> input_commands();
// Commands of the FlexFlow half: space, simulate, search, exhaustive, accuracy, conv1d.
std::vector<Command> flexflow_commands();
// Commands of the Alpa half: reshard, intra.
std::vector<Command> alpa_commands();
// Alpa's inter-op command: inter (commands_inter.cpp).
std::vector<Command> inter_commands();
// Commands using both planners: export, compare.
std::vector<Command> plan_commands();
// `bench`: throughput measurements.
std::vector<Command> bench_commands();
// `memory`: training memory per GPU.
std::vector<Command> memory_commands();
// `schedule`: a pipeline schedule on uniform stages (commands_schedule.cpp).
std::vector<Command> schedule_commands();
// `scenario`: the lecture's demos.
std::vector<Command> scenario_commands();

// Every command, in the order `autopar help` lists them.
const std::vector<Command>& all_commands();
// Runs a command from its words ("simulate", "--model", "alexnet", ...); the Output holds both
// the JSON and the text rendering.
Result<Output> run_command(const std::vector<std::string>& words);

// The text renderings' formatting helpers (core/operations/report_text.h).
using autopar::fmt;
using autopar::group_digits;
using autopar::pad;
using autopar::si;

}  // namespace autopar::cli
