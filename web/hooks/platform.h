// What the panels need from the platform beyond the JS hooks (js_hook.h): the key codes Dear
// ImGui's io.KeysDown is indexed by. The page's are GLFW's (platform_glfw.cpp); the native
// panels test has its own (native/native_platform.cpp).
#pragma once

namespace autopar::web {

// The key codes of the keys the shortcuts read (keyboard_shortcuts.cpp).
struct PlatformKeys {
  int f1, escape, slash, space, letter_f, letter_i;
  int digit0;   // '0'; the codes of '1'..'9' follow it
};
// This platform's key codes.
const PlatformKeys& platform_keys();

}  // namespace autopar::web
