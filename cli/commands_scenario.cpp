// `autopar scenario`: the lecture's demos (core/operations/scenarios.h), listed or run one by
// one, with a short explanation tied to their section and the numbers they produce.
#include "commands.h"
#include "scenarios.h"

namespace autopar::cli {
namespace {

Result<Output> scenario_command(const Args& a) {
  if (a.has("list") || a.positional.empty()) return output_of(scenario_list_operation());
  auto r = scenario_operation(a.positional[0], a.positional[0]);
  if (!r.ok()) return r.error();
  return output_of(r.value());
}

}  // namespace

std::vector<Command> scenario_commands() {
  return {{"scenario", "run one of the lecture's demos (scenario --list shows them)", "NAME | --list", {{}, {"list"}, 1}, scenario_command}};
}

}  // namespace autopar::cli
