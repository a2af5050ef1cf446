// The Export menu and its window: each format of plan_export.h becomes text shown in a
// copyable read-only box, with a Download button (a Blob and a clicked <a download>) and Copy.
#include <string>

#include "imgui.h"
#include "js_hook.h"
#include "panel_common.h"
#include "panels.h"
#include "plan_export.h"

namespace autopar::web {

void draw_export_menu(AppState& state) {
  if (!ImGui::BeginMenu(tr_id("menu.export").c_str())) return;
  int i = 0;
  for (const ExportFormat& f : export_formats()) {
    if (i++ == 2) ImGui::Separator();
    if (ImGui::MenuItem(f.label.c_str())) {
      auto text = export_plan_text(state, f.id);
      if (!text.ok()) {
        notify_error(state, text.error());
      } else {
        state.export_view = ExportView{true, f.id, f.file_name, text.value()};
        notify_info(state, tr_fill("notice.exported", {f.label, std::to_string(text.value().size())}));
      }
    }
  }
  ImGui::EndMenu();
}

void draw_export_window(AppState& state) {
  ExportView& ev = state.export_view;
  if (!ev.open) return;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(display.x * 0.62f, display.y * 0.66f), ImGuiCond_Appearing);
  const std::string title = tr_fill("export.title", {ev.file_name}) + "###export";
  if (ImGui::Begin(title.c_str(), &ev.open, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    if (ImGui::Button(tr_id("export.download").c_str())) js_hook_download(ev.file_name, ev.text);
    ImGui::SameLine();
    if (ImGui::Button(tr_id("lecture.copy").c_str())) {
      ImGui::SetClipboardText(ev.text.c_str());
      notify_info(state, tr_fill("notice.copied_file", {ev.file_name}));
    }
    ImGui::SameLine();
    ImGui::TextDisabled(tr("export.note"), ev.text.size(), ev.format.c_str());
    // Read-only: ImGui never writes into the buffer, so the string's own storage is enough.
    ImGui::InputTextMultiline("##export_text", ev.text.data(), ev.text.size() + 1, ImVec2(-1, -1), ImGuiInputTextFlags_ReadOnly);
  }
  ImGui::End();
}

}  // namespace autopar::web
