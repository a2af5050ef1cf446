// The Export menu and its window: each format of plan_export.h becomes text shown in a
// copyable read-only box, with a Download button (a Blob and a clicked <a download>) and Copy;
// an engine format shows "planning in a worker" until the worker's reply brings its text.
#include <string>

#include "imgui.h"
#include "js_hook.h"
#include "panel_common.h"
#include "panels.h"
#include "plan_export.h"

namespace autopar::web {

namespace {

// Shows the export's outcome once it is there: its text in the window, or its error as a notice.
void finish_export(AppState& state, ExportView& ev) {
  if (!take_export(state, ev.job) || !ev.text.empty()) return;
  const Result<std::string>& text = *ev.job.outcome;
  if (!text.ok()) {
    notify_error(state, text.error());
    ev.open = false;
    return;
  }
  ev.text = text.value();
  std::string label = ev.format;
  for (const ExportFormat& f : export_formats())
    if (f.id == ev.format) label = tr(f.label_key.c_str());
  notify_info(state, tr_fill("notice.exported", {label, std::to_string(ev.text.size())}));
}

}  // namespace

void draw_export_menu(AppState& state) {
  if (!ImGui::BeginMenu(tr_id("menu.export").c_str())) return;
  int i = 0;
  for (const ExportFormat& f : export_formats()) {
    if (i++ == 2) ImGui::Separator();
    if (ImGui::MenuItem(tr(f.label_key.c_str()))) {
      // The engine formats are planned by a worker: the window shows them pending until it replies.
      cancel_export(state, state.export_view.job);
      state.export_view = ExportView{true, f.id, f.file_name, "", start_export(state, f.id)};
      finish_export(state, state.export_view);
    }
  }
  ImGui::EndMenu();
}

void draw_export_window(AppState& state) {
  ExportView& ev = state.export_view;
  if (!ev.open) {
    cancel_export(state, ev.job);   // closed while a worker planned it
    return;
  }
  finish_export(state, ev);
  if (!ev.open) return;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(display.x * 0.62f, display.y * 0.66f), ImGuiCond_Appearing);
  const std::string title = tr_fill("export.title", {ev.file_name}) + "###export";
  if (ImGui::Begin(title.c_str(), &ev.open, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    if (export_pending(ev.job)) {
      // Planned by a worker: nothing to download yet; its reply wakes the page.
      ImGui::BeginDisabled();
      ImGui::Button(tr_id("export.download").c_str());
      ImGui::EndDisabled();
      ImGui::SameLine();
      ImGui::TextDisabled("%s", tr("export.planning"));
      ImGui::End();
      return;
    }
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
