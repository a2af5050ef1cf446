// The playground's theme and font. See ui_style.h.
#include "ui_style.h"

#include <cstdio>

#include "imgui.h"
#include "imgui_impl_opengl3.h"

namespace autopar::web {
namespace {

// Basic Latin + Latin-1 (x, middle dot, micro) + general punctuation (dashes, ellipsis) + arrows.
const ImWchar kGlyphRanges[] = {0x0020, 0x00FF, 0x2010, 0x2027, 0x2190, 0x2193, 0};

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
  if (!font) {
    // Dear ImGui's built-in bitmap font is drawn for 13 px; scale it as a whole.
    ImFontConfig config;
    config.SizePixels = 13.0f * scale;
    io.Fonts->AddFontDefault(&config);
  }
}

}  // namespace

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
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
}

}  // namespace autopar::web
