// The page's platform: GLFW's key codes (platform.h), and the exported C functions through which
// the browser tests read what the panels drew.
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <string>

#include "keyboard_shortcuts.h"
#include "panels.h"
#include "platform.h"

namespace autopar::web {

const PlatformKeys& platform_keys() {
  static const PlatformKeys keys{GLFW_KEY_F1, GLFW_KEY_ESCAPE, GLFW_KEY_SLASH, GLFW_KEY_SPACE, GLFW_KEY_F, GLFW_KEY_I, GLFW_KEY_0};
  return keys;
}

}  // namespace autopar::web

// The Cluster drawing as the browser tests see it (panels.h: cluster_drawing_json), in CSS
// pixels relative to the canvas. The string stays valid until the next call.
extern "C" EMSCRIPTEN_KEEPALIVE const char* autopar_hover_groups() {
  static std::string out;
  out = autopar::web::cluster_drawing_json(1.0f / float(std::max(1.0, emscripten_get_device_pixel_ratio())));
  return out.c_str();
}

// Whether the "Keyboard shortcuts" window is open, as {"open": true|false} (for the browser tests).
extern "C" EMSCRIPTEN_KEEPALIVE const char* autopar_shortcuts_window() {
  return autopar::web::shortcuts_window_open() ? R"({"open":true})" : R"({"open":false})";
}
