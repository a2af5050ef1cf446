// The page's keyboard shortcuts, handled in one place, and the "Keyboard shortcuts" window that
// lists them (opened with ? or F1, or from the Help menu).
#pragma once
#include "app_state.h"

namespace autopar::web {

// Acts on this frame's shortcut keys; does nothing while a text field has keyboard focus, and
// holds single keys back (saying so in the notice) while the reader is typing: right after a
// click that hit no widget, while the pointer stays near it, and within 1.5 s of a key that
// went into a field. Esc ends the holding back. Call once per frame before the panels are drawn.
void handle_shortcuts(AppState& state);

// True while single keys are held back as typing (result().ui.keys_held_back, for the tests).
bool shortcut_keys_held_back();

// Draws the "Keyboard shortcuts" window, centred, when it is open.
void draw_shortcuts_window();

// Whether the "Keyboard shortcuts" window is open.
bool shortcuts_window_open();

// Opens the "Keyboard shortcuts" window when closed, closes it when open.
void toggle_shortcuts_window();

}  // namespace autopar::web
