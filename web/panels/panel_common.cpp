// Small drawing helpers shared by the panels. See panel_common.h.
#include "panel_common.h"

#include "task_kind_style.h"

namespace autopar::web {

ImU32 task_kind_color(TaskKind kind) { return task_kind_style(kind).color; }

bool begin_panel(AppState& state, const char* title_key, const char* panel_key, const PanelRect& rect) {
  ImGui::SetNextWindowPos(rect.pos, ImGuiCond_Always);
  ImGui::SetNextWindowSize(rect.size, ImGuiCond_Always);
  if (state.focus_panel_pending && state.settings.panel == panel_key) {
    ImGui::SetNextWindowFocus();
    state.focus_panel_pending = false;
  }
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                 ImGuiWindowFlags_NoFocusOnAppearing;
  const bool open = ImGui::Begin(tr_id(title_key).c_str(), nullptr, flags);   // the id stays when the language changes
  // The panel in front is UI-only state that is always valid: track it directly.
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !state.focus_panel_pending)
    state.settings.panel = panel_key;
  return open;
}

void section_header(const char* label) {
  ImGui::Spacing();
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
  ImGui::TextUnformatted(label);
  ImGui::PopStyleColor();
  ImGui::Separator();
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void text_right_aligned(const std::string& text) {
  const float w = ImGui::CalcTextSize(text.c_str()).x;
  const float avail = ImGui::GetContentRegionAvail().x;
  if (avail > w) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + avail - w);
  ImGui::TextUnformatted(text.c_str());
}

void form_label(const char* label, const char* help) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  if (help) help_marker(help);
  ImGui::TableSetColumnIndex(1);
  ImGui::SetNextItemWidth(-FLT_MIN);
}

ImU32 pipeline_stage_color(int k) {
  float r, g, b;
  // Hues away from the schedule's forward blue and backward orange: greens, purples, pinks, teals.
  static const float kHues[] = {0.36f, 0.78f, 0.92f, 0.47f, 0.70f, 0.22f, 0.85f, 0.52f};
  ImGui::ColorConvertHSVtoRGB(kHues[size_t(k) % 8], k < 8 ? 0.50f : 0.30f, 0.85f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1.0f));
}

}  // namespace autopar::web
