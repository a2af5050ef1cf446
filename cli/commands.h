// The CLI's commands. Each returns its result as JSON plus a readable text rendering; main()
// prints one of them and turns an Error into exit status 2.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "args.h"
#include "json_io.h"
#include "result.h"

namespace autopar::cli {

// What a command produced: the --json object and the text shown without --json.
struct Output {
  Json json;
  std::string text;
};

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
// `scenario`: the lecture's demos.
std::vector<Command> scenario_commands();

// Every command, in the order `autopar help` lists them.
const std::vector<Command>& all_commands();
// Runs a command from its words ("simulate", "--model", "alexnet", ...); the Output holds both
// the JSON and the text rendering.
Result<Output> run_command(const std::vector<std::string>& words);

// Formats a count with thousands separators ("17,576").
std::string group_digits(int64_t n);
// Formats FLOPs or bytes with a unit prefix ("1.23 G").
std::string si(double v);
// Formats one number with a printf format ("%.2f ms").
std::string fmt(const char* format, double v);
// Pads or truncates to a column width.
std::string pad(const std::string& s, size_t width, bool right = false);

}  // namespace autopar::cli
