// The page's side of the JS boundary (window.autopar in index.html): which state the exported
// C functions in js_hook.cpp read and write, and the calls from C++ into the page.
#pragma once
#include <string>

#include "app_state.h"

namespace autopar::web {

// Binds the state the exported functions use; call once before the main loop starts.
void js_hook_bind(AppState* state);

// Offers `text` as a file download named `file_name` (a Blob and a clicked <a download>).
void js_hook_download(const std::string& file_name, const std::string& text);

// Tells the page the first frame with the default example is drawn (window.autopar.ready).
void js_hook_signal_ready();

// Copies the share link of the current state to the clipboard (Copy link button, Ctrl+L); the
// outcome becomes a notice once the browser answers.
void js_hook_copy_link();

// Opens the browser's file picker for a model JSON file (Import button, Ctrl+O); the chosen file
// is imported like a dropped one (autopar_import_model).
void js_hook_pick_model_file();

// Where the page starts from: the link's fragment (without '#') and "the link", else the last
// session's from localStorage and "your last session"; an empty fragment when there is neither.
struct InitialState {
  std::string source;
  std::string fragment;
};
// Reads the initial state from the page.
InitialState js_hook_initial_state();

// Puts `fragment` into the address bar (history.replaceState) and into localStorage.
void js_hook_publish_state(const std::string& fragment);

// Publishes the share fragment of `state.settings` (address bar and localStorage) when the
// settings changed since the last publication: called at the end of every frame and right after
// every exported function that changes the state, so a reload right after a change keeps it.
void js_hook_publish_if_changed(const AppState& state);

// Treats the current settings as published without writing them (a link that could not be
// restored stays in the address bar until the user changes something).
void js_hook_hold_publication(const AppState& state);

// Asks the page to fetch the CJK font (build-wasm/web/cjk-font.ttf); it answers with
// autopar_cjk_font_loaded (the bytes, or none when the fetch failed).
void js_hook_request_cjk_font();

// How many input events (pointer, wheel, keys, resize, focus, drops) the page has seen.
int js_hook_input_serial();

// True (once) when an exported function changed the state since the last call: the main loop
// must draw even without input.
bool js_hook_take_redraw_request();

// True (once) when a worker reported progress since the last call: one frame should show it,
// without the second of frames an input earns.
bool js_hook_take_progress_frame_request();

}  // namespace autopar::web
