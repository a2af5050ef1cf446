// autopar: the command-line face of the core. Dispatches to the commands, prints JSON or text,
// and turns an Error into `error: ...` on stderr with exit status 2 (never a crash).
#include <cstdio>
#include <iostream>

#include "commands.h"

using namespace autopar;
using namespace autopar::cli;

namespace {

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
  const auto& commands = all_commands();
  bool json = false;
  for (const auto& w : words) json |= w == "--json";
  if (words.empty() || (words[0] == "help" && words.size() == 1) || words[0] == "--help" || words[0] == "-h") {
    print_help(commands);
    return words.empty() ? 2 : 0;
  }
  auto out = run_command(words);
  if (!out.ok()) return fail(out.error(), json);
  if (json) std::cout << out.value().json.dump(2) << "\n";
  else std::cout << out.value().text;
  std::cout.flush();
  return std::cout.good() ? 0 : 1;
}
