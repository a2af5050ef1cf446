// Small drawing helpers and the colour palette shared by the panels (ImGui only, no core logic).
#pragma once
#include <string>

#include "app_state.h"
#include "task_kind.h"
#include "imgui.h"
#include "page_strings.h"
#include "panels.h"

namespace autopar::web {

// Palette (dark theme): accents for section headers, the notice bar, SOAP split kinds.
inline const ImVec4 kAccentText = ImVec4(0.55f, 0.78f, 1.00f, 1.0f);
inline const ImVec4 kErrorBg = ImVec4(0.55f, 0.09f, 0.09f, 1.0f);
inline const ImVec4 kErrorText = ImVec4(1.00f, 0.92f, 0.92f, 1.0f);
inline const ImVec4 kNoticeBg = ImVec4(0.11f, 0.12f, 0.14f, 1.0f);
inline const ImVec4 kSampleColor = ImVec4(0.45f, 0.72f, 1.00f, 1.0f);     // SOAP sample
inline const ImVec4 kAttributeColor = ImVec4(0.50f, 0.86f, 0.50f, 1.0f);  // SOAP attribute
inline const ImVec4 kParameterColor = ImVec4(1.00f, 0.70f, 0.35f, 1.0f);  // SOAP parameter

// The colour of a SOAP split kind (sample, attribute, parameter), as in the op table's legend.
inline const ImVec4& split_kind_color(SplitKind k) {
  switch (k) {
    case SplitKind::sample: return kSampleColor;
    case SplitKind::attribute: return kAttributeColor;
    case SplitKind::parameter: return kParameterColor;
  }
  return kSampleColor;
}

// A task kind's colour in the timeline, the breakdown and the legend (task_kind_style.h).
ImU32 task_kind_color(TaskKind kind);
// The colour of pipeline stage k, the same in the inter-op tab and the Model tab's devices.
ImU32 pipeline_stage_color(int k);
// Folded boxes whose spans are of several kinds.
inline const ImU32 kFoldedMixedColor = IM_COL32(132, 136, 150, 255);

// Begins a fixed panel window at `rect`; brings it to the front when `panel_key` is the pending
// settings.panel and records it as settings.panel when the user focuses it. Always pair with End.
bool begin_panel(AppState& state, const char* title_key, const char* panel_key, const PanelRect& rect);

// A coloured section title followed by a separator.
void section_header(const char* label);

// A "(?)" on the same line that shows `text` as a wrapped tooltip.
void help_marker(const char* text);

// Text pushed to the right edge of the current column or region.
void text_right_aligned(const std::string& text);

// Label column + widget column form row helper: draws `label` in the first column of the current
// two-column table and moves to the second, whose widget fills the width.
void form_label(const char* label, const char* help = nullptr);

}  // namespace autopar::web
