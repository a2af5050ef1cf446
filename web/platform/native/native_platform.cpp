// Native stand-ins for the page's platform, for the panels test (tests/panels): key codes of
// its own, and the JS hooks the panels call (js_hook.h) recording their calls instead of
// reaching a browser. Only these three hooks: the rest of js_hook.h serves the main loop.
#include "js_hook.h"
#include "native_hooks.h"
#include "platform.h"

namespace autopar::web {

const PlatformKeys& platform_keys() {
  // GLFW's numbers, so that a reader recognises them: printable keys are their ASCII codes.
  static const PlatformKeys keys{290, 256, '/', ' ', 'F', 'I', '0'};
  return keys;
}

NativeHookCalls& native_hook_calls() {
  static NativeHookCalls calls;
  return calls;
}

void js_hook_download(const std::string& file_name, const std::string& text) {
  native_hook_calls().downloads.emplace_back(file_name, text);
}

void js_hook_copy_link() { ++native_hook_calls().copy_link; }

void js_hook_pick_model_file() { ++native_hook_calls().pick_model_file; }

}  // namespace autopar::web
