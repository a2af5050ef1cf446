// The look of the playground: Dear ImGui's dark theme with roomier spacing, and the UI font
// (DejaVu Sans embedded by web/CMakeLists.txt when available), both scaled by the device pixel
// ratio so the canvas renders crisp text at its native resolution.
#pragma once
#include <string>
#include <vector>

#include "app_state.h"
#include "graph.h"

namespace autopar::web {

// Base font size in CSS pixels.
inline constexpr float kUiFontSize = 15.0f;

// Resets the style to the playground's theme scaled by `scale` and rebuilds the font atlas at
// kUiFontSize * scale. Call between frames, then upload the atlas (io.Fonts) to the renderer.
void apply_ui_style(float scale);

// Whether `text` (UTF-8) holds a character of a CJK script (Han, Hangul, kana, CJK punctuation,
// full-width forms), which the UI font has no glyph for.
bool has_cjk_text(const std::string& text);

// Whether the model's name or any op name needs the CJK font.
bool graph_needs_cjk(const Graph& g);

// Where the CJK font is: not asked for, being fetched, merged into the atlas, or unavailable.
enum class CjkFontStatus { not_needed, loading, loaded, failed };
// The status, and its name for result(): "not_needed", "loading", "loaded" or "failed".
CjkFontStatus cjk_font_status();
const char* cjk_font_status_name();
// Marks the font as being fetched (the page fetches it only once).
void set_cjk_font_loading();
// Keeps the fetched font (a TTF subset built by scripts/subset_cjk_font.py); the next
// apply_ui_style merges it into the atlas. Empty bytes mean the fetch failed.
void set_cjk_font(std::vector<unsigned char> ttf);
// How many times the font atlas was built: text measured with an older atlas must be measured again.
int font_generation();
// Glyphs the UI font's atlas holds (grows by the CJK subset once it is merged).
int font_glyph_count();
// True once when a font arrived since the last call: the atlas must be rebuilt before the next frame.
bool take_cjk_font_arrival();
// Characters of the page's string table in its current language (page_strings.h) that the atlas
// draws as the fallback '?' (0 once the fonts it needs are in; result().missing_glyphs).
int missing_glyph_count();

// The device pixel ratio the frame being drawn uses (Dear ImGui works in canvas pixels, the
// page and its tests in CSS pixels = canvas pixels / this). Set by draw_app_frame.
void set_frame_ui_scale(float scale);
// That ratio (1 until set).
float frame_ui_scale();

// True when the page is phone-narrow (under 700 CSS pixels): panels that put columns side by side
// stack them instead, and the page scrolls.
bool narrow_page();

// Dimmed text (as ImGui::TextDisabled) that wraps at the window's edge instead of running past
// it, as a remark beside a button does on a phone.
void text_disabled_wrapped(const char* fmt, ...);

// A radio button whose long label wraps: "a)" as the button, the text beside it wrapped (Dear
// ImGui 1.86's radio labels do not wrap). True when either was clicked.
bool wrapped_radio(const std::string& letter, const std::string& text, bool active, const std::string& id);

// Records the last item drawn as result().ui.places[name], in CSS pixels (where the input tests
// click next to a field or swipe to a table).
void note_place(AppState& state, const char* name);

}  // namespace autopar::web
