// The Model panel: pick a built-in model (or type a spec string), edit its parameters within the
// ranges the core declares, and read the op table the core derives (shapes, FLOPs, parameters,
// and the SOAP dimensions each op can be split along, FlexFlow section 4).
#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "format_units.h"
#include <cstdio>
#include <cstdlib>

#include "imgui.h"
#include "imgui_stdlib.h"
#include "input_bounds.h"
#include "js_hook.h"
#include "panel_common.h"
#include "ui_style.h"
#include "panels.h"

namespace autopar::web {
namespace {

// A parameter bound: plain below a million, "2^30" for large powers of two, else "1.5 M".
std::string format_bound(int64_t v) {
  if (v < 1000000) return std::to_string(v);
  if ((v & (v - 1)) == 0) {
    int k = 0;
    while ((int64_t(1) << k) < v) ++k;
    return "2^" + std::to_string(k);
  }
  return format_count(double(v));
}

// The built-in model shown, or none for an imported file (whatever its name says).
BuiltinChoice builtin_choice_of(const Settings& settings) {
  if (!settings.model_json.empty()) return BuiltinChoice{};
  auto choice = parse_builtin_model(settings.model, "model");
  return choice.ok() ? choice.value() : BuiltinChoice{};
}

// The form row of the built-in model picker.
void draw_builtin_combo(AppState& state, const BuiltinChoice& choice) {
  form_label(tr("model_panel.builtin"), tr("model_panel.builtin_tip"));
  const char* preview = !state.settings.model_json.empty() ? tr("model_panel.imported_file") : choice.model ? choice.model->name.c_str() : tr("model_panel.custom");
  if (ImGui::BeginCombo("##model", preview, ImGuiComboFlags_HeightLarge)) {
    for (const auto& m : builtin_models()) {
      const bool selected = choice.model == &m;
      if (ImGui::Selectable(m.name.c_str(), selected)) {
        Settings next = state.settings;
        next.model = m.name;
        apply_from_ui(state, next, tr_fill("notice.loaded_model", {m.name}));
      }
      if (ImGui::IsItemHovered() && !m.description.empty()) ImGui::SetTooltip("%s", m.description.c_str());
      if (selected) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
}

// The form row of the spec string input: the typed text while editing, and a refused spec
// kept, marked, with the reason.
void draw_spec_input(AppState& state) {
  form_label(tr("model_panel.spec"), tr("model_panel.spec_tip"));
  // Widget scratch (like ImGui's own): the text being typed, shown instead of the state while
  // the field is active.
  // A spec the core refused stays in the field, marked, until it is fixed or another model is chosen.
  static std::string spec_text;
  static bool spec_editing = false;
  static std::string rejected_for;   // the model shown when the typed spec was refused; empty: none refused
  static std::string rejected_why;
  const bool rejected = !rejected_for.empty() && rejected_for == state.settings.model;
  if (!spec_editing && !rejected) spec_text = state.settings.model;
  if (rejected) {
    ImGui::PushStyleColor(ImGuiCol_Border, ImVec4(1.0f, 0.45f, 0.45f, 1.0f));
    ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, 1.5f);
  }
  if (ImGui::InputTextWithHint("##spec", "mlp:layers=6", &spec_text, ImGuiInputTextFlags_EnterReturnsTrue)) {
    Settings next = state.settings;
    next.model = spec_text;
    if (apply_settings(state, next).ok()) {
      rejected_for.clear();
      notify_info(state, tr_fill("notice.loaded_model", {spec_text}));
    } else {
      rejected_for = state.settings.model;
      rejected_why = state.notice.text;
    }
  }
  if (rejected) {
    ImGui::PopStyleVar();
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr_fill("model_panel.not_applied_tip", {rejected_why}).c_str());
  }
  note_place(state, "spec");
  spec_editing = ImGui::IsItemActive();
  if (!rejected_for.empty() && rejected_for == state.settings.model) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(1);
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.55f, 1.0f));
    ImGui::TextWrapped("%s", tr_fill("model_panel.not_applied", {state.settings.model, rejected_why}).c_str());
    ImGui::PopStyleColor();
  }
}

// The Import button, and the imported file when one is loaded.
void draw_model_import(const AppState& state) {
  // Model files (`autopar model --json` writes one): picked (button or the I key) or dropped. The page reads
  // them into the state, so links and reloads keep them.
  if (ImGui::Button(tr_id("model_panel.import").c_str())) js_hook_pick_model_file();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr("model_panel.import_tip"));
  ImGui::SameLine();
  ImGui::TextDisabled("%s", tr("model_panel.drop"));
  if (!state.settings.model_json.empty()) {
    ImGui::TextColored(kAccentText, "%s", tr("model_panel.imported"));
    ImGui::SameLine();
    ImGui::TextUnformatted(state.settings.model.c_str());   // the user's file name, drawn as text
    ImGui::SameLine();
    ImGui::TextDisabled(tr("model_panel.file_size"), state.graph.ops.size(), format_bytes(double(state.settings.model_json.size())).c_str());
  }
}

// The model picker and the spec string input.
void draw_model_picker(AppState& state, const BuiltinChoice& choice) {
  if (!ImGui::BeginTable("##model_form", 2, ImGuiTableFlags_SizingStretchProp)) return;
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 8.5f);
  ImGui::TableSetupColumn("widget", ImGuiTableColumnFlags_WidthStretch);
  draw_builtin_combo(state, choice);
  draw_spec_input(state);
  ImGui::EndTable();
  draw_model_import(state);

  if (choice.model && !choice.model->description.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", choice.model->description.c_str());
    ImGui::PopTextWrapPos();
  }
}

// One row per parameter: name, value input clamped to the declared range, range, meaning.
void draw_model_params(AppState& state, const BuiltinChoice& choice) {
  if (!choice.model || choice.model->params.empty()) return;
  section_header(tr("model_panel.parameters"));
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH;
  // On a phone the meaning column would be a letter wide (a word per letter, down the page): the
  // meaning goes into the parameter name's tooltip instead.
  const bool narrow = narrow_page();
  if (!ImGui::BeginTable("##params", narrow ? 3 : 4, flags)) return;
  ImGui::TableSetupColumn(tr("model_panel.col_parameter"), ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 8.5f);
  ImGui::TableSetupColumn(tr("model_panel.col_value"), ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 9.0f);
  ImGui::TableSetupColumn(tr("model_panel.col_range"), ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 6.5f);
  if (!narrow) ImGui::TableSetupColumn(tr("model_panel.col_meaning"), ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  for (const auto& p : choice.model->params) {
    ImGui::PushID(p.key.c_str());
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(p.key.c_str());
    if (narrow && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.doc.c_str());
    ImGui::TableSetColumnIndex(1);
    ImGui::SetNextItemWidth(-FLT_MIN);
    int64_t value = choice.values.at(p.key);
    const int64_t step = 1;
    const bool entered = ImGui::InputScalar("##v", ImGuiDataType_S64, &value, &step, nullptr, "%lld",
                                            ImGuiInputTextFlags_EnterReturnsTrue);
    note_place(state, ("param_" + p.key).c_str());
    if (entered || ImGui::IsItemDeactivatedAfterEdit()) {
      // A value outside the range the core declares is clamped into it, and the notice says so.
      const ClampedWhole c = clamp_to_bound(value, WholeBound{p.min_value, p.max_value}, p.key);
      if (c.value == choice.values.at(p.key)) {
        if (c.clamped) notify_info(state, c.notice);
      } else {
        ModelParams values = choice.values;
        values[p.key] = c.value;
        Settings next = state.settings;
        next.model = builtin_spec_string(*choice.model, values);
        apply_from_ui(state, next, tr_fill("notice.loaded_model", {next.model}) + (c.clamped ? " " + c.notice : std::string()));
      }
    }
    ImGui::TableSetColumnIndex(2);
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s .. %s", format_bound(p.min_value).c_str(), format_bound(p.max_value).c_str());
    if (!narrow) {
      ImGui::TableSetColumnIndex(3);
      ImGui::AlignTextToFramePadding();
      ImGui::TextWrapped("%s", p.doc.c_str());   // wraps on a narrow panel rather than being cut off
    }
    ImGui::PopID();
  }
  ImGui::EndTable();
}

// Totals over the graph, one line.
void draw_model_summary(const Graph& g, const SpaceSize& space, int devices) {
  section_header(tr("model_panel.operators"));
  ImGui::Text(tr("model_panel.n_ops"), g.ops.size());
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
  ImGui::Text(tr("model_panel.forward"), format_flops(g.total_forward_flops()).c_str());
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
  ImGui::Text(tr("model_panel.param_total"), format_count(double(g.total_param_elements())).c_str(),
              format_bytes(double(g.total_param_bytes())).c_str());
  // The SOAP space (lecture 2.3): exact while short, else as a power of ten.
  char count[96];
  if (space.strategies.size() <= 12)
    std::snprintf(count, sizeof count, "%s", format_whole(std::strtoll(space.strategies.c_str(), nullptr, 10)).c_str());
  else std::snprintf(count, sizeof count, "%s", format_power_of_ten(space.log10_strategies).c_str());
  ImGui::Text(tr("model_panel.strategies"), devices, count);
  help_marker(tr("model_panel.space_help"));
  // The legend goes on the same line when it fits.
  const float legend_w = ImGui::CalcTextSize((std::string(tr("model_panel.split_dims")) + " sample attribute parameter (?)").c_str()).x + ImGui::GetFontSize() * 3.0f;
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
  if (ImGui::GetContentRegionAvail().x < legend_w) ImGui::NewLine();
  ImGui::TextDisabled("%s", tr("model_panel.split_dims"));
  for (SplitKind k : {SplitKind::sample, SplitKind::attribute, SplitKind::parameter}) {
    ImGui::SameLine();
    ImGui::TextColored(split_kind_color(k), "%s", split_kind_name(k));
  }
  help_marker(tr("model_panel.dims_help"));
}

// The hover tooltip of one op: its inputs, parameters and backward cost.
void op_tooltip(const Op& op) {
  ImGui::BeginTooltip();
  ImGui::Text("%s (%s)", op.name().c_str(), op_kind_name(op.spec.kind));
  ImGui::Separator();
  for (const auto& t : op.inputs)
    ImGui::Text("input   %s %s", t.name.c_str(), shape_to_string(t.shape).c_str());
  ImGui::Text("output  %s %s", op.output.name.c_str(), shape_to_string(op.output.shape).c_str());
  for (const auto& t : op.params)
    ImGui::Text("param   %s %s", t.name.c_str(), shape_to_string(t.shape).c_str());
  std::string splits;
  for (const SplitDim& d : op.split_dims) splits += (splits.empty() ? "" : ", ") + d.name + " " + std::to_string(d.size);
  ImGui::Text("split   %s", splits.empty() ? "-" : splits.c_str());
  ImGui::Separator();
  ImGui::Text("forward %s, backward %s", format_flops(op.forward_flops).c_str(), format_flops(op.backward_flops).c_str());
  ImGui::Text("bytes: inputs %s, output %s, params %s", format_bytes(double(op.input_bytes)).c_str(),
              format_bytes(double(op.output_bytes)).c_str(), format_bytes(double(op.param_bytes)).c_str());
  ImGui::EndTooltip();
}

// The text of one op-table row, formatted once per model.
struct OpRowText {
  std::string name, kind, shape, forward, params, param_bytes;
  std::vector<std::pair<std::string, SplitKind>> splits;
  std::vector<std::string> short_splits;   // "s64" for "sample 64": the narrow panel's form
};

// The op table's rows and column widths for one model at one font size.
struct OpTableCache {
  std::string key;
  std::vector<OpRowText> rows;
  float widths[7] = {};
  float short_split_width = 0;   // column 6 in the short form
};

const OpTableCache& op_table_cache(const Graph& g, const std::string& model_key) {
  static OpTableCache cache;   // widget scratch: rebuilt when the model or the font changes
  const std::string key = model_key + "@" + std::to_string(ImGui::GetFontSize()) + "/" + std::to_string(font_generation()) + "/" +
                          language_name(page_language());   // the headers are measured in the page's language
  if (cache.key == key) return cache;
  cache = OpTableCache{};
  cache.key = key;
  const char* headers[7] = {tr("model_panel.col_name"), tr("model_panel.col_kind"), tr("model_panel.col_shape"), tr("model_panel.col_forward"),
                            tr("model_panel.col_params"), tr("model_panel.col_param_bytes"), tr("model_panel.col_split")};
  for (int c = 0; c < 7; ++c) cache.widths[c] = ImGui::CalcTextSize(headers[c]).x;
  const float split_gap = ImGui::GetFontSize() * 0.6f;
  for (const Op& op : g.ops) {
    OpRowText r;
    r.name = op.name();
    r.kind = op_kind_name(op.spec.kind);
    r.shape = shape_to_string(op.output.shape);
    r.forward = format_flops(op.forward_flops);
    int64_t param_elements = 0;
    for (const auto& t : op.params) param_elements += num_elements(t.shape);
    r.params = op.params.empty() ? "-" : format_count(double(param_elements));
    r.param_bytes = op.params.empty() ? "-" : format_bytes(double(op.param_bytes));
    float split_w = 0, short_w = 0;
    for (const SplitDim& d : op.split_dims) {
      r.splits.emplace_back(d.name + " " + std::to_string(d.size), d.kind);
      r.short_splits.push_back(d.name.substr(0, 1) + std::to_string(d.size));
      split_w += (split_w > 0 ? split_gap : 0) + ImGui::CalcTextSize(r.splits.back().first.c_str()).x;
      short_w += (short_w > 0 ? split_gap : 0) + ImGui::CalcTextSize(r.short_splits.back().c_str()).x;
    }
    cache.short_split_width = std::max(cache.short_split_width, short_w);
    const std::string* cells[6] = {&r.name, &r.kind, &r.shape, &r.forward, &r.params, &r.param_bytes};
    for (int c = 0; c < 6; ++c) cache.widths[c] = std::max(cache.widths[c], ImGui::CalcTextSize(cells[c]->c_str()).x);
    cache.widths[6] = std::max(cache.widths[6], split_w);
    cache.rows.push_back(std::move(r));
  }
  return cache;
}

// The op table: one row per op in topological order, virtualised for big models. Columns fit
// the widest cell of any row; the table scrolls sideways when the panel is narrower.
void draw_op_table(const Graph& g, const std::string& model_key) {
  const OpTableCache& cache = op_table_cache(g, model_key);
  const ImGuiStyle& style = ImGui::GetStyle();
  float content_w = 0;
  for (float w : cache.widths) content_w += w + style.CellPadding.x * 2.0f + 1.0f;
  const float avail_w = ImGui::GetContentRegionAvail().x;
  // Too wide for the panel: split dims in their short form first (s64), sideways scrolling last.
  const bool short_splits = content_w > avail_w;
  if (short_splits) content_w += std::max(ImGui::CalcTextSize(tr("model_panel.col_split")).x, cache.short_split_width) - cache.widths[6];
  ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                          ImGuiTableFlags_BordersV | ImGuiTableFlags_SizingFixedFit;
  if (content_w > avail_w) flags |= ImGuiTableFlags_ScrollX;
  // As tall as the rows need, at most the rest of the panel (then it scrolls), but always at
  // least ten rows tall (the panel scrolls instead) so a short window still shows the table.
  const float row_h = ImGui::GetTextLineHeight() + style.CellPadding.y * 2.0f;
  float want_h = row_h * float(g.ops.size() + 1) + style.CellPadding.y * 2.0f + 2.0f;
  if (content_w > avail_w) want_h += style.ScrollbarSize;
  const float table_h = std::min(want_h, std::max(ImGui::GetContentRegionAvail().y, row_h * 10.0f));
  if (!ImGui::BeginTable("##ops", 7, flags, ImVec2(0, table_h), content_w)) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn(tr("model_panel.col_name"), ImGuiTableColumnFlags_WidthFixed, cache.widths[0]);
  ImGui::TableSetupColumn(tr("model_panel.col_kind"), ImGuiTableColumnFlags_WidthFixed, cache.widths[1]);
  ImGui::TableSetupColumn(tr("model_panel.col_shape"), ImGuiTableColumnFlags_WidthFixed, cache.widths[2]);
  ImGui::TableSetupColumn(tr("model_panel.col_forward"), ImGuiTableColumnFlags_WidthFixed, cache.widths[3]);
  ImGui::TableSetupColumn(tr("model_panel.col_params"), ImGuiTableColumnFlags_WidthFixed, cache.widths[4]);
  ImGui::TableSetupColumn(tr("model_panel.col_param_bytes"), ImGuiTableColumnFlags_WidthFixed, cache.widths[5]);
  ImGui::TableSetupColumn(tr("model_panel.col_split"), ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();

  ImGuiListClipper clipper;
  clipper.Begin(int(cache.rows.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const OpRowText& r = cache.rows[size_t(i)];
      ImGui::PushID(i);
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::Selectable(r.name.c_str(), false, ImGuiSelectableFlags_SpanAllColumns);
      if (ImGui::IsItemHovered() && size_t(i) < g.ops.size()) op_tooltip(g.ops[size_t(i)]);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(r.kind.c_str());
      ImGui::TableSetColumnIndex(2);
      ImGui::TextUnformatted(r.shape.c_str());
      ImGui::TableSetColumnIndex(3);
      text_right_aligned(r.forward);
      ImGui::TableSetColumnIndex(4);
      text_right_aligned(r.params);
      ImGui::TableSetColumnIndex(5);
      text_right_aligned(r.param_bytes);
      ImGui::TableSetColumnIndex(6);
      for (size_t d = 0; d < r.splits.size(); ++d) {
        if (d) ImGui::SameLine(0, ImGui::GetFontSize() * 0.6f);
        ImGui::PushStyleColor(ImGuiCol_Text, split_kind_color(r.splits[d].second));
        ImGui::TextUnformatted(short_splits ? r.short_splits[d].c_str() : r.splits[d].first.c_str());
        ImGui::PopStyleColor();
      }
      if (r.splits.empty()) ImGui::TextDisabled("-");
      ImGui::PopID();
    }
  }
  ImGui::EndTable();
}

}  // namespace

void draw_model_panel(AppState& state, const PanelRect& rect) {
  if (begin_panel(state, kModelWindow, "model", rect)) {
    // Re-parsed after the picker: it may apply a new model half-way through the frame.
    draw_model_picker(state, builtin_choice_of(state.settings));
    draw_model_params(state, builtin_choice_of(state.settings));
    draw_model_summary(state.graph, state.space, state.cluster.num_devices());
    // An imported file is known by its content: the same name may hold another file.
    draw_op_table(state.graph, state.settings.model + "#" + std::to_string(std::hash<std::string>{}(state.settings.model_json)));
  }
  ImGui::End();
}

}  // namespace autopar::web
