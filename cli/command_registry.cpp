// The table of all CLI commands and running one of them from a word list, shared by main(),
// the lecture scenarios and the page's flat JSON API.
#include <algorithm>

#include "commands.h"

namespace autopar::cli {

const std::vector<Command>& all_commands() {
  static const std::vector<Command> all = [] {
    std::vector<Command> v = input_commands();
    for (auto* group : {&flexflow_commands, &alpa_commands, &inter_commands, &schedule_commands, &plan_commands, &memory_commands, &scenario_commands, &bench_commands})
      for (auto& c : (*group)()) v.push_back(std::move(c));
    return v;
  }();
  return all;
}

Result<Output> run_command(const std::vector<std::string>& given) {
  if (given.empty()) return make_error(ErrorCode::missing_argument, "no command given; `autopar help` lists them", "");
  // `autopar help CMD` is `autopar CMD --help`.
  const std::vector<std::string> words =
      given.size() >= 2 && given[0] == "help" ? std::vector<std::string>{given[1], "--help"} : given;
  const Command* cmd = nullptr;
  for (const auto& c : all_commands()) if (c.name == words[0]) cmd = &c;
  if (!cmd) {
    std::string names;
    for (const auto& c : all_commands()) names += (names.empty() ? "" : ", ") + c.name;
    return make_error(ErrorCode::unknown_command, "unknown command '" + words[0] + "'; commands: " + names, words[0]);
  }
  // `autopar COMMAND --help`: its usage, options and (where written) conventions.
  // --help anywhere after the command: a half-typed command line asks for help too.
  if (std::find_if(words.begin() + 1, words.end(), [](const std::string& w) { return w == "--help" || w == "-h"; }) != words.end()) {
    std::string flags;
    for (const auto& o : cmd->syntax.options) flags += " --" + o;
    for (const auto& f : cmd->syntax.flags) flags += " --" + f;
    // Every command that loads a model takes --precision (args.cpp), so its help says so.
    const bool shared_precision = cmd->syntax.options.count("model") && !cmd->syntax.options.count("precision");
    if (shared_precision) flags += " --precision";
    std::string help = cmd->help;
    if (!help.empty() && cmd->syntax.options.count("model") && help.find("--precision") == std::string::npos)
      help += "  --precision fp32|tf32|bf16|fp16|fp8|mixed  the arithmetic: the model's float width and the GPU peak used (bf16, fp16, mixed: 16-bit mixed precision; fp8: linear GEMMs at the FP8 peak; default: the model's dtype)\n";
    Output out;
    out.text = "autopar " + cmd->name + " " + cmd->usage + "\n" + cmd->summary + "\n\n" + (help.empty() ? "options:" + flags + " --json\n" : help);
    out.json = Json{{"command", cmd->name}, {"usage", cmd->usage}, {"summary", cmd->summary}, {"help", out.text}};
    return out;
  }
  auto args = parse_args(cmd->name, std::vector<std::string>(words.begin() + 1, words.end()), cmd->syntax);
  if (!args.ok()) return args.error();
  return cmd->run(args.value());
}

}  // namespace autopar::cli
