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

// The state object encoded in the page URL ("#state=<URI-encoded JSON>"): its JSON text, empty
// when the URL has none, or an Error when it is not valid URI encoding.
Result<std::string> js_hook_link_state();

}  // namespace autopar::web
