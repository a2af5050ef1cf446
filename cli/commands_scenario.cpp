// `autopar scenario`: the lecture's demos (core/operations/scenarios.h), listed or run one by
// one, with a short explanation tied to their section and the numbers they produce, in English
// or (--lang zh) Chinese.
#include "commands.h"
#include "scenarios.h"

namespace autopar::cli {
namespace {

Result<Output> scenario_command(const Args& a) {
  auto language = parse_language(a.get("lang").value_or("en"), "--lang");
  if (!language.ok()) return language.error();
  if (a.has("list") && !a.positional.empty())
    return make_error(ErrorCode::bad_argument, "--list lists every scenario; give a scenario's NAME or --list, not both", "--list");
  if (a.has("list") || a.positional.empty()) return output_of(scenario_list_operation(language.value()));
  auto r = scenario_operation(a.positional[0], a.positional[0], language.value());
  if (!r.ok()) return r.error();
  return output_of(r.value());
}

}  // namespace

std::vector<Command> scenario_commands() {
  return {{"scenario", "run one of the lecture's demos (scenario --list shows them); --lang zh prints them in Chinese",
           "NAME | --list [--lang en|zh]", {{"lang"}, {"list"}, 1}, scenario_command}};
}

}  // namespace autopar::cli
