// The FlexFlow strategy panel (FlexFlow section 4, lecture 2): start from a named strategy
// (data parallel, model parallel, the expert strategy, a seeded random one), edit any op's SOAP
// configuration in place (a power-of-two degree per split dimension, the block of devices or an
// explicit device list), and read what it costs: the simulated makespan, the sums of compute,
// activation transfer and parameter synchronisation, and the memory each GPU needs against its
// capacity. Every edit goes through apply_settings and re-simulates at once.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "format_units.h"
#include "imgui.h"
#include "imgui_stdlib.h"
#include "input_bounds.h"
#include "panel_common.h"
#include "panels.h"
#include "ui_style.h"
#include "plot_canvas.h"
#include "strategy_argument.h"
#include "strategy_text.h"

namespace autopar::web {
namespace {

int parts_of(const std::vector<int>& degrees) {
  int p = 1;
  for (int d : degrees) p *= d;
  return p;
}

// Applies `strategy` as edits on the current base (or on `base` when given).
void apply_strategy(AppState& state, const Strategy& strategy, const std::string& what) {
  Settings next = state.settings;
  next.strategy = encode_strategy(strategy_base(state.settings.strategy), strategy, state.graph, state.cluster);
  apply_from_ui(state, next, what);
}

void apply_named(AppState& state, const std::string& name, const std::string& what) {
  Settings next = state.settings;
  next.strategy = name;
  apply_from_ui(state, next, what);
}

// The named-strategy buttons and the random seed.
void draw_strategy_buttons(AppState& state) {
  const std::string base = strategy_base(state.settings.strategy);
  const bool is_random = base.rfind("random:", 0) == 0;
  if (is_random) state.random_strategy_seed = std::strtoll(base.c_str() + 7, nullptr, 10);
  // A button is highlighted only when the strategy is exactly that named one: a base with edits
  // (the search's best, a table edit) is no longer "Data parallel".
  const bool edited = base != state.settings.strategy;
  auto named_button = [&](const char* label_key, const std::string& name, const char* tip_key) {
    const bool current = !edited && base == name;
    if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(tr_id(label_key).c_str())) apply_named(state, name, tr_fill("notice.strategy", {tr(label_key)}));
    if (current) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(tip_key));
    ImGui::SameLine();
  };
  named_button("strategy.dp", "dp", "strategy.dp_tip");
  named_button("strategy.mp", "mp", "strategy.mp_tip");
  named_button("strategy.expert", "expert", "strategy.expert_tip");
  const std::string random_name = "random:" + std::to_string(state.random_strategy_seed);
  if (is_random && !edited) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
  if (ImGui::Button(tr_id("strategy.random").c_str())) apply_named(state, random_name, tr_fill("notice.random_strategy", {std::to_string(state.random_strategy_seed)}));
  if (is_random && !edited) ImGui::PopStyleColor();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("strategy.random_tip"));
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("%s", tr("strategy.seed"));
  ImGui::SameLine();
  int64_t seed = state.random_strategy_seed;
  const int64_t one = 1, ten = 10;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
  if (ImGui::InputScalar("##random_seed", ImGuiDataType_S64, &seed, &one, &ten, "%lld")) {
    // The seed's bound is the core's (kSeedBound, as random:SEED on the CLI); a clamp says so.
    const ClampedWhole c = clamp_to_bound(seed, kSeedBound, "seed");
    state.random_strategy_seed = c.value;
    if (is_random) apply_named(state, "random:" + std::to_string(state.random_strategy_seed), tr_fill("notice.random_strategy", {std::to_string(state.random_strategy_seed)}));
    if (c.clamped) notify_info(state, c.notice);
  }

  // The strategy text (what getState().strategy and share links hold).
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("%s", tr("strategy.strategy"));
  ImGui::SameLine();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(state.settings.strategy.c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr("strategy.text_tip"));
  if (base == "expert") {
    // Which recipe the model got (soap.h expert_recipe): a transformer is not AlexNet.
    static const char* const kRecipeKeys[] = {"strategy.recipe_cnn", "strategy.recipe_transformer", "strategy.recipe_dlrm"};
    const ExpertRecipe recipe = expert_recipe(state.graph);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kAccentText, "%s", tr_fill("strategy.recipe", {tr(kRecipeKeys[int(recipe)])}).c_str());
    ImGui::PopTextWrapPos();
  }
  if (edited) {
    if (ImGui::SmallButton(tr_id("strategy.reset_edits").c_str())) apply_named(state, base, tr_fill("notice.edits_reset", {base}));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(tr("strategy.reset_tip"), base.c_str());
  }
}

// One op's degree combos; returns true (and fills `out`) when the user picked a new degree.
bool degree_editor(const Op& op, const OpConfig& config, int num_devices, OpConfig& out) {
  bool changed = false;
  const float combo_w = ImGui::CalcTextSize("16").x + ImGui::GetStyle().FramePadding.x * 2.0f + 2.0f;
  for (size_t j = 0; j < op.split_dims.size(); ++j) {
    const SplitDim& dim = op.split_dims[j];
    if (j > 0) ImGui::SameLine(0, ImGui::GetFontSize() * 0.45f);
    ImGui::PushID(int(j));
    const char letter[2] = {char(std::toupper(static_cast<unsigned char>(dim.name.empty() ? '?' : dim.name[0]))), 0};
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(split_kind_color(dim.kind), "%s", letter);
    const std::string tip = dim.name + " (" + split_kind_name(dim.kind) + "), size " + std::to_string(dim.size);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip.c_str());
    ImGui::SameLine(0, 2.0f);
    const int others = parts_of(config.degrees) / std::max(1, config.degrees[j]);
    ImGui::SetNextItemWidth(combo_w);
    const std::string preview = std::to_string(config.degrees[j]);
    if (ImGui::BeginCombo("##deg", preview.c_str(), ImGuiComboFlags_NoArrowButton)) {
      for (int64_t d = 1; d <= num_devices; d *= 2) {
        if (dim.size % d != 0 || num_devices % (others * d) != 0) continue;
        const bool selected = d == config.degrees[j];
        if (ImGui::Selectable(std::to_string(d).c_str(), selected) && !selected) {
          out = config;
          out.degrees[j] = int(d);
          changed = true;
        }
      }
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered() && !ImGui::IsPopupOpen("##deg")) ImGui::SetTooltip("%s: split into how many parts", tip.c_str());
    ImGui::PopID();
  }
  if (op.split_dims.empty()) ImGui::TextDisabled("%s", tr("strategy.not_splittable"));
  if (changed) {
    // Same first device where the new block fits, else the aligned block that holds it.
    const int parts = parts_of(out.degrees);
    int first = config.devices.empty() ? 0 : config.devices[0];
    if (first % parts != 0 || first + parts > num_devices) first = (first / parts) * parts;
    if (first + parts > num_devices) first = 0;
    out.devices.clear();
    for (int k = 0; k < parts; ++k) out.devices.push_back(first + k);
  }
  return changed;
}

// One op's devices: a text field (list or range) and a menu of aligned blocks. True on change.
bool device_editor(AppState& state, int op_index, const OpConfig& config, int num_devices, OpConfig& out) {
  // Widget scratch: the text being typed in the one active field.
  static int editing_op = -1;
  static std::string editing_text;
  std::string text = format_devices(config.devices);
  std::string* buffer = &text;
  if (editing_op == op_index) buffer = &editing_text;
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 4.0f, ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight() - 4));
  const bool entered = ImGui::InputText("##devices", buffer, ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll);
  if (ImGui::IsItemActivated()) {
    editing_op = op_index;
    editing_text = text;
  }
  const bool committed = entered || ImGui::IsItemDeactivatedAfterEdit();
  if (ImGui::IsItemHovered() && !ImGui::IsItemActive())
    ImGui::SetTooltip(tr(config.parts() == 1 ? "strategy.devices_tip_one" : "strategy.devices_tip"), config.parts());
  bool changed = false;
  if (committed) {
    const std::string typed = editing_op == op_index ? editing_text : text;
    editing_op = -1;
    auto devices = parse_device_list(typed, "strategy");
    if (!devices.ok()) {
      notify_error(state, devices.error());
    } else if (devices.value() != config.devices) {
      out = config;
      out.devices = devices.value();
      if (out.devices.size() == 1 && config.parts() > 1)
        for (int k = 1; k < config.parts(); ++k) out.devices.push_back(out.devices[0] + k);
      if (auto v = validate_config(state.graph.ops[size_t(op_index)], out, num_devices, "strategy"); !v.ok())
        notify_error(state, v.error());
      else
        changed = true;
    }
  } else if (!ImGui::IsItemActive() && editing_op == op_index) {
    editing_op = -1;
  }
  ImGui::SameLine(0, 4);
  if (ImGui::BeginCombo("##blocks", "", ImGuiComboFlags_NoPreview | ImGuiComboFlags_PopupAlignLeft)) {
    const int parts = config.parts();
    for (int first = 0; first + parts <= num_devices; first += parts) {
      std::vector<int> block;
      for (int k = 0; k < parts; ++k) block.push_back(first + k);
      const bool selected = block == config.devices;
      const std::string label = (parts == 1 ? "GPU " : "GPUs ") + format_devices(block);
      if (ImGui::Selectable(label.c_str(), selected) && !selected) {
        out = config;
        out.devices = block;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("strategy.pick_block"));
  return changed;
}

void draw_op_table(AppState& state) {
  const FlexflowView& ff = state.flexflow;
  const Graph& g = state.graph;
  const int n = state.cluster.num_devices();
  auto base = load_strategy(strategy_base(state.settings.strategy), g, state.cluster, "strategy");
  const float font = ImGui::GetFontSize();
  int max_dims = 0;
  for (const Op& op : g.ops) max_dims = std::max(max_dims, int(op.split_dims.size()));
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_PadOuterX;
  const float rows_h = ImGui::GetFrameHeightWithSpacing() * float(std::min<size_t>(g.ops.size(), 14) + 1) + font * 0.5f;
  if (!ImGui::BeginTable("##ops", 4, flags, ImVec2(0, rows_h))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn(tr("ex3.col_op"), ImGuiTableColumnFlags_WidthFixed, font * 6.5f);
  ImGui::TableSetupColumn(tr("strategy.col_degree"), ImGuiTableColumnFlags_WidthFixed,
                          std::max(ImGui::CalcTextSize(tr("strategy.col_degree")).x, font * 3.0f * float(std::max(1, max_dims))));
  ImGui::TableSetupColumn(tr("strategy.col_parts"), ImGuiTableColumnFlags_WidthFixed, font * 2.6f);
  ImGui::TableSetupColumn(tr("strategy.col_gpus"), ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  std::optional<std::pair<int, OpConfig>> edit;
  for (size_t i = 0; i < g.ops.size() && i < ff.strategy.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const OpConfig& config = ff.strategy.ops[i];
    ImGui::PushID(int(i));
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::AlignTextToFramePadding();
    const bool edited = base.ok() && base.value().ops[i] != config;
    if (edited)
      ImGui::TextColored(kAccentText, "%s*", op.name().c_str());
    else
      ImGui::TextUnformatted(op.name().c_str());
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::Text("%s (%s)%s", op.name().c_str(), op_kind_name(op.spec.kind), edited ? ", edited" : "");
      std::string shape;
      for (size_t k = 0; k < op.output.shape.size(); ++k) shape += (k ? " x " : "") + std::to_string(op.output.shape[k]);
      ImGui::TextDisabled("output %s, %s forward, %s parameters", shape.c_str(), format_flops(op.forward_flops).c_str(),
                          format_bytes(double(op.param_bytes)).c_str());
      ImGui::TextDisabled("config %s", format_op_config(config).c_str());
      ImGui::EndTooltip();
    }
    ImGui::TableSetColumnIndex(1);
    OpConfig changed;
    if (degree_editor(op, config, n, changed)) edit = std::make_pair(int(i), changed);
    ImGui::TableSetColumnIndex(2);
    ImGui::AlignTextToFramePadding();
    ImGui::Text("%d", config.parts());
    ImGui::TableSetColumnIndex(3);
    if (device_editor(state, int(i), config, n, changed)) edit = std::make_pair(int(i), changed);
    ImGui::PopID();
  }
  ImGui::EndTable();
  if (edit) {
    Strategy s = ff.strategy;
    s.ops[size_t(edit->first)] = edit->second;
    apply_strategy(state, s, tr_fill("notice.edited_op", {g.ops[size_t(edit->first)].name(), format_op_config(edit->second)}));
  }
}

// A horizontal bar: `fraction` of the width filled with `color`, `text` on top.
void bar(float fraction, ImU32 color, const std::string& text, float height) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x;
  dl->AddRectFilled(p, ImVec2(p.x + w, p.y + height), IM_COL32(40, 44, 54, 255), 3.0f);
  const float f = std::clamp(fraction, 0.0f, 1.0f);
  if (f > 0) dl->AddRectFilled(p, ImVec2(p.x + std::max(2.0f, w * f), p.y + height), color, 3.0f);
  const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
  dl->AddText(ImVec2(p.x + 6, p.y + (height - ts.y) * 0.5f), IM_COL32(235, 238, 245, 255), text.c_str());
  ImGui::Dummy(ImVec2(w, height));
}

void draw_breakdown(const AppState& state) {
  const FlexflowView& ff = state.flexflow;
  if (ff.error) {   // nothing simulated: the reason, not a makespan of 0 ms
    ImGui::TextWrapped("%s", tr_fill("timeline.too_large", {ff.error->message}).c_str());
    return;
  }
  const SimSummary& s = ff.summary;
  const float font = ImGui::GetFontSize();
  ImGui::Text("%s", tr("strategy.makespan"));
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
  ImGui::Text("%s", format_ms(s.makespan_ms).c_str());
  ImGui::PopStyleColor();
  ImGui::SameLine(0, font);
  if (ff.data_parallel_ms == s.makespan_ms) {
    ImGui::TextDisabled("%s", tr("strategy.is_dp"));
  } else if (ff.data_parallel_ms > 0 && s.makespan_ms > 0) {
    const double speedup = ff.data_parallel_ms / s.makespan_ms;
    ImGui::TextDisabled(tr(speedup >= 1 ? "strategy.faster" : "strategy.slower"), speedup >= 1 ? speedup : 1 / speedup,
                        format_ms(ff.data_parallel_ms).c_str());
  }
  help_marker(tr("strategy.makespan_help"));

  const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg;
  if (ImGui::BeginTable("##breakdown", 4, flags)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, font * 0.9f);
    ImGui::TableSetupColumn(tr("strategy.col_sum"), ImGuiTableColumnFlags_WidthFixed, font * 9.5f);
    ImGui::TableSetupColumn(tr("ex4.col_time"), ImGuiTableColumnFlags_WidthFixed, font * 6.0f);
    ImGui::TableSetupColumn(tr("strategy.col_bytes"), ImGuiTableColumnFlags_WidthStretch);
    auto row = [&](ImU32 color, const char* label, double ms, const std::string& bytes) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float h = ImGui::GetTextLineHeight();
      ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + h * 0.15f), ImVec2(p.x + h * 0.8f, p.y + h * 0.85f), color, 2.0f);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(tr(label));
      ImGui::TableSetColumnIndex(2);
      text_right_aligned(format_ms(ms));
      ImGui::TableSetColumnIndex(3);
      if (!bytes.empty()) ImGui::TextDisabled(tr("strategy.moved"), bytes.c_str());
    };
    row(task_kind_color(TaskKind::forward), "strategy.compute", s.compute_ms, "");
    row(task_kind_color(TaskKind::transfer), "strategy.activation", s.activation_transfer_ms, format_bytes(s.activation_bytes));
    row(task_kind_color(TaskKind::sync), "strategy.sync", s.param_sync_ms, format_bytes(s.param_sync_bytes));
    ImGui::EndTable();
  }
  // The three sums as one stacked bar.
  const double total = s.compute_ms + s.activation_transfer_ms + s.param_sync_ms;
  if (total > 0) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x, h = font * 0.7f;
    float x = p.x;
    const std::pair<double, ImU32> parts[] = {{s.compute_ms, task_kind_color(TaskKind::forward)},
                                              {s.activation_transfer_ms, task_kind_color(TaskKind::transfer)},
                                              {s.param_sync_ms, task_kind_color(TaskKind::sync)}};
    for (const auto& [ms, color] : parts) {
      const float pw = float(ms / total) * w;
      if (pw > 0) dl->AddRectFilled(ImVec2(x, p.y), ImVec2(x + pw, p.y + h), color);
      x += pw;
    }
    ImGui::Dummy(ImVec2(w, h));
  }
  ImGui::TextDisabled("%s", tr_fill("strategy.tasks_simulated", {format_whole(s.tasks), format_ms(ff.build_ms)}).c_str());
}

// The strategy's memory verdict: a clear DOES NOT FIT mark with the fullest GPU's need by kind.
void draw_fit_mark(const SimSummary& s, double cap) {
  const DeviceMemoryUse& m = s.peak_memory;
  const std::string kinds = tr_fill("strategy.memory_kinds", {format_bytes(m.params_bytes), format_bytes(m.grads_bytes),
                                                               format_bytes(m.optimizer_bytes), format_bytes(m.activation_bytes)});
  if (s.fits) {
    ImGui::TextDisabled(tr("strategy.gpu_fits"), s.peak_device, format_bytes(m.total_bytes).c_str(), format_bytes(cap).c_str(),
                        kinds.c_str());
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.35f, 0.35f, 1.0f));
  ImGui::TextWrapped(tr("strategy.gpu_does_not_fit"), s.peak_device, format_bytes(m.total_bytes).c_str(), format_bytes(cap).c_str(),
                     kinds.c_str());
  ImGui::PopStyleColor();
}

// A strategy that does not fit, said first, where the reader looks: at the top of the panel, in a
// red box, with what to try (the same mark stays by the memory bars further down).
void draw_does_not_fit_banner(AppState& state) {
  const FlexflowView& ff = state.flexflow;
  if (!ff.task_graph || ff.summary.fits) return;
  const DeviceMemoryUse& m = ff.summary.peak_memory;
  const std::string text = tr_fill("strategy.banner_does_not_fit", {std::to_string(ff.summary.peak_device), format_bytes(m.total_bytes),
                                                                   format_bytes(ff.memory_capacity_bytes)});
  const float font = ImGui::GetFontSize();
  const float pad = font * 0.4f;
  const float wrap_w = ImGui::GetContentRegionAvail().x - 2 * pad;
  const ImVec2 size = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap_w);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p, ImVec2(p.x + wrap_w + 2 * pad, p.y + size.y + 2 * pad), IM_COL32(120, 24, 24, 255), font * 0.2f);
  dl->AddRect(p, ImVec2(p.x + wrap_w + 2 * pad, p.y + size.y + 2 * pad), IM_COL32(230, 90, 90, 255), font * 0.2f);
  ImGui::SetCursorScreenPos(ImVec2(p.x + pad, p.y + pad));
  ImGui::PushTextWrapPos(ImGui::GetCursorPos().x + wrap_w);
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.92f, 0.92f, 1.0f));
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopStyleColor();
  ImGui::PopTextWrapPos();
  ImGui::SetCursorScreenPos(p);   // the box as one item: the layout moves past it, note_place sees it
  ImGui::Dummy(ImVec2(wrap_w + 2 * pad, size.y + 2 * pad));
  note_place(state, "does_not_fit");
}

void draw_memory(const AppState& state) {
  const FlexflowView& ff = state.flexflow;
  if (!ff.task_graph) return;
  const auto& memory = ff.gpu_memory_bytes;
  const double cap = ff.memory_capacity_bytes;
  const float font = ImGui::GetFontSize();
  draw_fit_mark(ff.summary, cap);
  // GPUs in a grid of bars, as many per row as fit (at most 4), each labelled inside.
  const float cell_min = font * 8.0f;
  const int columns = std::clamp(int(ImGui::GetContentRegionAvail().x / cell_min), 1, std::min<int>(4, int(memory.size())));
  if (!ImGui::BeginTable("##memory", columns, ImGuiTableFlags_SizingStretchSame)) return;
  for (size_t d = 0; d < memory.size(); ++d) {
    if (d % size_t(columns) == 0) ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(int(d % size_t(columns)));
    const double f = cap > 0 ? double(memory[d]) / cap : 0;
    const ImU32 color = f > 1.0 ? IM_COL32(200, 60, 60, 255) : f > 0.8 ? IM_COL32(214, 150, 50, 255) : IM_COL32(70, 150, 110, 255);
    bar(float(f), color, "GPU " + std::to_string(d) + "  " + format_bytes(double(memory[d])) + (f > 1 ? tr("strategy.over") : ""),
        ImGui::GetFrameHeight());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", tr_fill(f > 1 ? "strategy.gpu_bar_over_tip" : "strategy.gpu_bar_tip",
                                      {std::to_string(d), format_bytes(double(memory[d])), format_bytes(cap), format_percent(f)}).c_str());
  }
  ImGui::EndTable();
}

}  // namespace

void draw_strategy_panel(AppState& state, const PanelRect& rect) {
  if (!begin_panel(state, kStrategyWindow, "strategy", rect)) {
    ImGui::End();
    return;
  }
  draw_does_not_fit_banner(state);
  section_header(tr("strategy.section"));
  draw_strategy_buttons(state);
  // Section title with the colour key of the split dimensions on the same line.
  ImGui::Spacing();
  ImGui::TextColored(kAccentText, "%s", tr("strategy.per_op"));
  ImGui::SameLine(0, ImGui::GetFontSize());
  ImGui::TextColored(kSampleColor, "sample");
  ImGui::SameLine();
  ImGui::TextColored(kAttributeColor, "attribute");
  ImGui::SameLine();
  ImGui::TextColored(kParameterColor, "parameter");
  help_marker(tr("strategy.soap_help"));
  ImGui::Separator();
  draw_op_table(state);
  section_header(tr("strategy.cost_section"));
  draw_breakdown(state);
  section_header(tr_fill("strategy.memory_section", {format_bytes(state.flexflow.memory_capacity_bytes)}).c_str());
  draw_memory(state);
  ImGui::End();
}

}  // namespace autopar::web
