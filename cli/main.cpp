// autopar: the command-line face of the core. Dispatches to the commands, prints JSON or text,
// and turns an Error into `error: ...` on stderr with exit status 2 (never a crash).
#include <cstdio>
#include <iostream>

#include "commands.h"

using namespace autopar;
using namespace autopar::cli;

namespace {

std::vector<Command> all_commands() {
  std::vector<Command> all = input_commands();
  for (auto& c : flexflow_commands()) all.push_back(std::move(c));
  for (auto& c : alpa_commands()) all.push_back(std::move(c));
  for (auto& c : plan_commands()) all.push_back(std::move(c));
  for (auto& c : bench_commands()) all.push_back(std::move(c));
  return all;
}

void print_help(const std::vector<Command>& commands) {
  std::cout << "autopar: automated parallelization playground (FlexFlow and Alpa, CMU 15-779 lecture 15)\n\n"
               "usage: autopar COMMAND [options] [--json]\n\ncommands:\n";
  for (const auto& c : commands)
    std::cout << "  " << pad(c.name, 10) << " " << pad(c.usage, 22) << " " << c.summary << "\n";
  std::cout << "\nmodels: NAME[:key=value,...] or FILE.json; clusters: PRESET:NxG or FILE.json\n";
}

int fail(const Error& e, bool json) {
  std::cerr << "error: " << e.message << (e.path.empty() ? "" : " (at " + e.path + ")") << "\n";
  if (json) std::cout << Json{{"error", error_to_json(e)}}.dump(2) << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> words(argv + 1, argv + argc);
  const auto commands = all_commands();
  bool json = false;
  for (const auto& w : words) json |= w == "--json";
  if (words.empty() || words[0] == "help" || words[0] == "--help" || words[0] == "-h") {
    print_help(commands);
    return words.empty() ? 2 : 0;
  }
  const Command* cmd = nullptr;
  for (const auto& c : commands) if (c.name == words[0]) cmd = &c;
  if (!cmd) {
    std::string names;
    for (const auto& c : commands) names += (names.empty() ? "" : ", ") + c.name;
    return fail(make_error("unknown_command", "unknown command '" + words[0] + "'; commands: " + names, words[0]), json);
  }
  auto args = parse_args(cmd->name, std::vector<std::string>(words.begin() + 1, words.end()), cmd->syntax);
  if (!args.ok()) return fail(args.error(), json);
  auto out = cmd->run(args.value());
  if (!out.ok()) return fail(out.error(), json);
  if (json) std::cout << out.value().json.dump(2) << "\n";
  else std::cout << out.value().text;
  std::cout.flush();
  return std::cout.good() ? 0 : 1;
}
