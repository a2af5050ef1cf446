// The playground's theme and font. See ui_style.h.
#include "ui_style.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "imgui.h"
#include "imgui_internal.h"
#include "page_strings.h"

namespace autopar::web {
namespace {

// What DejaVu Sans draws for the UI and for names from files: Latin (with its extensions),
// Greek, Cyrillic, Armenian, Hebrew and Arabic letters, general punctuation, superscript digits
// (the exponents of "3.7 × 10²²", number_text.h), arrows, math signs.
// The atlas packs only the glyphs the font has.
const ImWchar kGlyphRanges[] = {0x0020, 0x024F, 0x0370, 0x03FF, 0x0400, 0x052F, 0x0530, 0x058F, 0x0590, 0x05FF, 0x0600, 0x06FF,
                                0x1E00, 0x1FFF, 0x2010, 0x2027, 0x2030, 0x205E, 0x2070, 0x209F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0};
// The CJK font (a subset, see scripts/subset_cjk_font.py) merged for these blocks: CJK
// radicals, punctuation, kana, Han, Hangul syllables, compatibility ideographs, full-width forms.
const ImWchar kCjkGlyphRanges[] = {0x2E80, 0x2FDF, 0x3000, 0x30FF, 0x3100, 0x33FF, 0x3400, 0x4DBF, 0x4E00, 0x9FFF,
                                   0xAC00, 0xD7AF, 0xF900, 0xFAFF, 0xFF00, 0xFFEF, 0};

CjkFontStatus g_cjk_status = CjkFontStatus::not_needed;
std::vector<unsigned char> g_cjk_font;   // the fetched TTF; the atlas reads it without owning it
bool g_cjk_arrived = false;
int g_font_generation = 0;

bool is_cjk_codepoint(unsigned cp) {
  return (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFF00 && cp <= 0xFFEF);
}

void load_font(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  ImFont* font = nullptr;
#ifdef AUTOPAR_UI_FONT_PATH
  if (std::FILE* f = std::fopen(AUTOPAR_UI_FONT_PATH, "rb")) {
    std::fclose(f);
    ImFontConfig config;
    config.OversampleH = 2;
    config.OversampleV = 1;
    font = io.Fonts->AddFontFromFileTTF(AUTOPAR_UI_FONT_PATH, kUiFontSize * scale, &config, kGlyphRanges);
  }
#endif
  if (font && !g_cjk_font.empty()) {
    // Merged into the UI font: a CJK character in any label draws from it. Han glyphs are
    // square and dense, so they are rasterised without horizontal oversampling.
    ImFontConfig config;
    config.MergeMode = true;
    config.FontDataOwnedByAtlas = false;
    config.OversampleH = 1;
    config.OversampleV = 1;
    io.Fonts->AddFontFromMemoryTTF(g_cjk_font.data(), int(g_cjk_font.size()), kUiFontSize * scale, &config, kCjkGlyphRanges);
  }
#ifdef AUTOPAR_LANG_FONT_PATH
  if (font && g_cjk_font.empty()) {
    // The two characters of the language switch ("中文", from a tiny subset embedded in the
    // page), so it reads right before the CJK font is fetched.
    static const ImWchar kSwitchRanges[] = {0x4E2D, 0x4E2D, 0x6587, 0x6587, 0};
    ImFontConfig config;
    config.MergeMode = true;
    config.OversampleH = 1;
    config.OversampleV = 1;
    if (std::FILE* f = std::fopen(AUTOPAR_LANG_FONT_PATH, "rb")) {
      std::fclose(f);
      io.Fonts->AddFontFromFileTTF(AUTOPAR_LANG_FONT_PATH, kUiFontSize * scale, &config, kSwitchRanges);
    }
  }
#endif
  if (!font) {
    // Dear ImGui's built-in bitmap font is drawn for 13 px; scale it as a whole.
    ImFontConfig config;
    config.SizePixels = 13.0f * scale;
    io.Fonts->AddFontDefault(&config);
  }
}

}  // namespace

bool has_cjk_text(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    unsigned cp = c;
    size_t n = 1;
    if (c >= 0xF0) { cp = c & 0x07; n = 4; }
    else if (c >= 0xE0) { cp = c & 0x0F; n = 3; }
    else if (c >= 0xC0) { cp = c & 0x1F; n = 2; }
    for (size_t k = 1; k < n && i + k < text.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    if (n > 1 && is_cjk_codepoint(cp)) return true;
    i += n;
  }
  return false;
}

bool graph_needs_cjk(const Graph& g) {
  if (has_cjk_text(g.name())) return true;
  for (const Op& op : g.ops)
    if (has_cjk_text(op.name())) return true;
  return false;
}

CjkFontStatus cjk_font_status() { return g_cjk_status; }

const char* cjk_font_status_name() {
  switch (g_cjk_status) {
    case CjkFontStatus::not_needed: return "not_needed";
    case CjkFontStatus::loading: return "loading";
    case CjkFontStatus::loaded: return "loaded";
    case CjkFontStatus::failed: return "failed";
  }
  return "failed";
}

int font_generation() { return g_font_generation; }

int font_glyph_count() {
  const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  return atlas->Fonts.empty() ? 0 : atlas->Fonts[0]->Glyphs.Size;
}

int missing_glyph_count() {
  const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  if (atlas->Fonts.empty()) return 0;
  const ImFont* font = atlas->Fonts[0];
  int missing = 0;
  for (const StringEntry& e : string_table(page_language())) {
    for (const char* p = e.text; *p;) {
      unsigned int c = 0;
      p += ImTextCharFromUtf8(&c, p, nullptr);
      if (c >= 0x20 && c != '?' && !font->FindGlyphNoFallback(ImWchar(c))) ++missing;
    }
  }
  return missing;
}

void set_cjk_font_loading() { g_cjk_status = CjkFontStatus::loading; }

void set_cjk_font(std::vector<unsigned char> ttf) {
  g_cjk_status = ttf.empty() ? CjkFontStatus::failed : CjkFontStatus::loaded;
  g_cjk_font = std::move(ttf);
  g_cjk_arrived = !g_cjk_font.empty();
}

bool take_cjk_font_arrival() {
  const bool arrived = g_cjk_arrived;
  g_cjk_arrived = false;
  return arrived;
}

void apply_ui_style(float scale) {
  ImGuiStyle style;
  ImGui::StyleColorsDark(&style);
  style.WindowPadding = ImVec2(10, 10);
  style.FramePadding = ImVec2(6, 4);
  style.CellPadding = ImVec2(6, 3);
  style.ItemSpacing = ImVec2(8, 6);
  style.ItemInnerSpacing = ImVec2(6, 4);
  style.ScrollbarSize = 14;
  style.WindowRounding = 0;
  style.FrameRounding = 3;
  style.GrabRounding = 3;
  style.TabRounding = 3;
  style.WindowBorderSize = 1;
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.085f, 0.09f, 0.105f, 1.0f);
  c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
  c[ImGuiCol_MenuBarBg] = ImVec4(0.13f, 0.14f, 0.17f, 1.0f);
  c[ImGuiCol_TitleBg] = ImVec4(0.12f, 0.13f, 0.16f, 1.0f);
  c[ImGuiCol_TitleBgActive] = ImVec4(0.16f, 0.25f, 0.40f, 1.0f);
  c[ImGuiCol_TableHeaderBg] = ImVec4(0.15f, 0.17f, 0.21f, 1.0f);
  c[ImGuiCol_TableRowBgAlt] = ImVec4(1.0f, 1.0f, 1.0f, 0.035f);
  c[ImGuiCol_PlotHistogram] = ImVec4(0.23f, 0.47f, 0.75f, 1.0f);   // progress bars: calm blue, not yellow
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;

  load_font(scale);
  ++g_font_generation;
  // Built here, not by the renderer's upload, so that the glyphs below exist to be edited.
  ImGuiIO& io = ImGui::GetIO();
  unsigned char* pixels = nullptr;
  int width = 0, height = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
  // With the CJK font in, U+3000 marks where Chinese lines may break (page_strings.h): Dear ImGui
  // counts it as a blank, and it is drawn as nothing with zero width.
  if (!g_cjk_font.empty() && !io.Fonts->Fonts.empty()) {
    ImFont* font = io.Fonts->Fonts[0];
    if (auto* g = const_cast<ImFontGlyph*>(font->FindGlyphNoFallback(0x3000))) {
      g->AdvanceX = 0;
      g->Visible = 0;
    }
    if (0x3000 < font->IndexAdvanceX.Size) font->IndexAdvanceX[0x3000] = 0;
    set_line_break_marks(true);
  }
}

namespace {
float g_frame_ui_scale = 1.0f;
// Below this width (CSS pixels) columns stack: a phone held upright is 360-430 wide, the
// narrowest tablet 600-768; the side-by-side panels need about 900.
constexpr float kNarrowPageCssPx = 700.0f;
}  // namespace

void set_frame_ui_scale(float scale) { g_frame_ui_scale = std::max(1.0f, scale); }

float frame_ui_scale() { return g_frame_ui_scale; }

bool narrow_page() { return ImGui::GetIO().DisplaySize.x / g_frame_ui_scale < kNarrowPageCssPx; }

void note_place(AppState& state, const char* name) {
  const float css = 1.0f / g_frame_ui_scale;
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  state.ui.places[name] = {a.x * css, a.y * css, (b.x - a.x) * css, (b.y - a.y) * css};
}

void text_disabled_wrapped(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrappedV(fmt, args);
  ImGui::PopStyleColor();
  va_end(args);
}

bool wrapped_radio(const std::string& letter, const std::string& text, bool active, const std::string& id) {
  bool chosen = ImGui::RadioButton((letter + ")##" + id).c_str(), active);
  ImGui::SameLine();
  ImGui::TextWrapped("%s", text.c_str());
  if (ImGui::IsItemClicked()) chosen = true;  // the label is text beside the button: a click on it chooses too
  return chosen;
}

}  // namespace autopar::web
