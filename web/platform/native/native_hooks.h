// The native stand-ins for the browser (native_platform.cpp): the JS hooks the panels call
// record what they were asked, for the panels test to check.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace autopar::web {

// The calls the panels made into the page since the last reset.
struct NativeHookCalls {
  std::vector<std::pair<std::string, std::string>> downloads;   // file name, text
  int copy_link = 0;
  int pick_model_file = 0;
};
// The calls recorded so far (reset by assigning {}).
NativeHookCalls& native_hook_calls();

}  // namespace autopar::web
