// The look of the playground: Dear ImGui's dark theme with roomier spacing, and the UI font
// (DejaVu Sans embedded by web/CMakeLists.txt when available), both scaled by the device pixel
// ratio so the canvas renders crisp text at its native resolution.
#pragma once

namespace autopar::web {

// Base font size in CSS pixels.
inline constexpr float kUiFontSize = 15.0f;

// Resets the style to the playground's theme scaled by `scale` and rebuilds the font atlas at
// kUiFontSize * scale. Call between frames; the GL backend must be initialised.
void apply_ui_style(float scale);

}  // namespace autopar::web
