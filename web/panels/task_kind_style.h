// How the page shows each task kind: its label (a key of the string tables, page_strings.h) and
// its colour in the timeline, the breakdown and the legends. One row per kind, beside core's
// traits (core/model/task_kind.h: names, tags, breakdown buckets), which know nothing of the page.
#pragma once
#include <array>

#include "imgui.h"
#include "task_kind.h"

namespace autopar::web {

// The page's look of one task kind.
struct TaskKindStyle {
  TaskKind kind;
  const char* label;            // string key: the kind in legends and folded boxes ("forward")
  const char* pass_label;       // string key: the kind of one task in its tooltip, nullptr: `label`
  const char* gradient_label;   // the same for a backward-pass task ("gradient transfer"), nullptr: `pass_label`
  ImU32 color;                  // distinct in hue and brightness on the dark theme
};

// One row per kind, in declaration order (row i describes TaskKind(i)).
inline constexpr std::array<TaskKindStyle, kTaskKindCount> kTaskKindStyles = {{
    {TaskKind::forward, "inter.forward", nullptr, nullptr, IM_COL32(78, 142, 222, 255)},      // blue
    {TaskKind::backward, "inter.backward", nullptr, nullptr, IM_COL32(64, 176, 128, 255)},    // green
    {TaskKind::transfer, "timeline.transfer", "timeline.transfer_activation", "timeline.transfer_gradient",
     IM_COL32(232, 160, 58, 255)},                                                           // amber
    {TaskKind::sync, "timeline.sync", nullptr, nullptr, IM_COL32(206, 84, 112, 255)},         // rose
    {TaskKind::recompute, "memory_panel.recompute", nullptr, nullptr, IM_COL32(150, 120, 220, 255)},   // violet
}};

namespace task_kind_style_detail {
constexpr bool rows_in_order() {
  for (int i = 0; i < kTaskKindCount; ++i)
    if (int(kTaskKindStyles[size_t(i)].kind) != i || !kTaskKindStyles[size_t(i)].label) return false;
  return true;
}
}  // namespace task_kind_style_detail
static_assert(task_kind_style_detail::rows_in_order(), "kTaskKindStyles: row i must describe TaskKind(i), with a label");

// The page's look of `kind`.
constexpr const TaskKindStyle& task_kind_style(TaskKind kind) { return kTaskKindStyles[size_t(kind)]; }

// The string key naming one task of `kind` in its pass, for its tooltip.
constexpr const char* task_kind_pass_label(TaskKind kind, bool forward_pass) {
  const TaskKindStyle& s = task_kind_style(kind);
  const char* pass = s.pass_label ? s.pass_label : s.label;
  return !forward_pass && s.gradient_label ? s.gradient_label : pass;
}

}  // namespace autopar::web
