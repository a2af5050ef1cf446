// The page's pipeline plan (getState().plan) as knobs, and its memory per pipeline stage: the
// Model & Cluster tab's per-stage view and the inter-op tab's given plan share the knobs. The
// numbers are `autopar memory --plan`'s, computed by the page's worker and cached by their inputs
// (plan_memory_view.h): drawing reads the cache, so a plan seen before redraws in the same frame.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "format_units.h"
#include "memory_model.h"
#include "page_result.h"
#include "panel_common.h"
#include "ui_style.h"

namespace autopar::web {
namespace {

// A slider over the allowed values of a degree (the divisors of the GPU count): the slider
// cannot go past them (the clamp), and its tooltip says which values the core accepts. Moved,
// it sets the plan as the knob's rule says (with_plan_degree: tp, pp and cp refill dp).
bool degree_slider(const char* id, PlanKnob knob, PlanSettings& p, int devices, const std::vector<int>& allowed, const char* tip) {
  const int value = plan_knob_value(p, knob);
  int index = 0;
  while (index + 1 < int(allowed.size()) && allowed[size_t(index)] < value) ++index;
  char text[48];
  std::snprintf(text, sizeof text, "%s %d", plan_knob_name(knob), value);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.5f);
  const bool moved = ImGui::SliderInt(id, &index, 0, int(allowed.size()) - 1, text);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  if (moved) p = with_plan_degree(p, knob, allowed[size_t(std::clamp(index, 0, int(allowed.size()) - 1))], devices);
  return moved;
}

// Puts the next item of `width` pixels on the line of the last one when it fits there, else on
// a new line: the knobs wrap in a narrow panel (a phone, the Cluster panel beside the Model one).
void flow(float width) {
  const float right = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width;
  if (right <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
}

}  // namespace

void draw_plan_knobs(AppState& state, const char* id) {
  const int devices = state.cluster.num_devices();
  const std::vector<int> allowed = plan_degree_values(devices);
  PlanSettings p = state.settings.plan;
  const std::string tip_degree = tr_fill("plan_knobs.degree_tip", {std::to_string(devices), std::to_string(kMaxDevices)});
  ImGui::PushID(id);
  // tp, pp and cp move dp so that tp x pp x dp x cp stays the GPU count; dp moves pp.
  degree_slider("##tp", PlanKnob::tp, p, devices, allowed, tip_degree.c_str());
  note_place(state, (std::string(id) + "_tp").c_str());   // where the browser tests drag it
  flow(ImGui::GetFontSize() * 7.5f);
  degree_slider("##pp", PlanKnob::pp, p, devices, allowed, tip_degree.c_str());
  flow(ImGui::GetFontSize() * 7.5f);
  degree_slider("##dp", PlanKnob::dp, p, devices, allowed, tip_degree.c_str());
  flow(ImGui::GetFontSize() * 7.5f);
  degree_slider("##cp", PlanKnob::cp, p, devices, allowed, tip_degree.c_str());
  flow(ImGui::GetFontSize() * 7.5f);
  degree_slider("##ep", PlanKnob::ep, p, devices, allowed, tr("plan_knobs.ep_tip"));
  flow(ImGui::GetFontSize() * 5.5f);
  // v, mbs: small counts (the core takes up to kMaxDevices; a plan whose stages v does not divide says so).
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.5f);
  ImGui::SliderInt("##v", &p.v, 1, kPlanKnobMaxInterleave, "v %d", ImGuiSliderFlags_AlwaysClamp);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("plan_knobs.v_tip"));
  flow(ImGui::GetFontSize() * 6.5f);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
  ImGui::SliderInt("##mbs", &p.mbs, 0, kPlanKnobMaxMicroBatchSize, p.mbs == 0 ? tr("plan_knobs.mbs_auto") : "mbs %d", ImGuiSliderFlags_AlwaysClamp);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("plan_knobs.mbs_tip"));
  flow(ImGui::GetFontSize() * 6.5f);
  // first= and last=: the end stages' layers (Llama 3 405B's 126 layers on 16 stages); 0: an equal share.
  const int layers = plan_layer_count(state.graph);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
  ImGui::SliderInt("##first", &p.first, 0, layers, p.first == 0 ? tr("plan_knobs.first_equal") : tr("plan_knobs.first"), ImGuiSliderFlags_AlwaysClamp);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("plan_knobs.first_last_tip"));
  flow(ImGui::GetFontSize() * 6.5f);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
  ImGui::SliderInt("##last", &p.last, 0, layers, p.last == 0 ? tr("plan_knobs.last_equal") : tr("plan_knobs.last"), ImGuiSliderFlags_AlwaysClamp);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("plan_knobs.first_last_tip"));
  flow(ImGui::GetFontSize() * 3.5f);
  if (p.tp < 2) ImGui::BeginDisabled();
  ImGui::Checkbox("SP", &p.sp);
  if (p.tp < 2) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tr("plan_knobs.sp_tip"));
  flow(ImGui::GetFontSize() * 8.5f);
  const char* recompute_values[] = {"none", "selective", "full"};
  const char* recompute_names[] = {tr("plan_knobs.recompute_none"), tr("plan_knobs.recompute_selective"), tr("plan_knobs.recompute_full")};
  int r = p.recompute == "none" ? 0 : p.recompute == "selective" ? 1 : 2;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.5f);
  if (ImGui::Combo("##recompute", &r, recompute_names, 3)) p.recompute = recompute_values[r];
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("plan_knobs.recompute_tip"));
  flow(ImGui::GetFontSize() * 8.5f);
  const char* zero_names[] = {tr("memory_panel.zero_off"), "ZeRO-1", "ZeRO-2", "ZeRO-3 / FSDP"};
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.5f);
  if (int zero = p.zero; ImGui::Combo("##zero", &zero, zero_names, 4)) p = with_plan_zero(p, zero);   // reshard=0 is ZeRO 3's only
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("plan_knobs.zero_tip"));
  flow(ImGui::GetFontSize() * 6.0f);
  if (p.zero != 3) ImGui::BeginDisabled();
  ImGui::Checkbox(tr_id("plan_knobs.reshard").c_str(), &p.reshard);
  if (p.zero != 3) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tr("plan_knobs.reshard_tip"));
  flow(ImGui::GetFontSize() * 5.0f);
  const char* opt_names[] = {"Adam", "SGD"};
  int o = p.optimizer == "sgd" ? 1 : 0;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
  if (ImGui::Combo("##opt", &o, opt_names, 2)) p.optimizer = o == 1 ? "sgd" : "adam";
  ImGui::PopID();
  if (!(p == state.settings.plan)) {
    Settings next = state.settings;
    next.plan = p;
    apply_settings(state, next);
  }
  if (plan_settings_devices(state.settings.plan) != devices) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.7f, 0.3f, 1.0f));
    ImGui::TextWrapped("%s", tr_fill("plan_knobs.devices_mismatch", {std::to_string(plan_settings_devices(state.settings.plan)), std::to_string(devices)}).c_str());
    ImGui::PopStyleColor();
    ImGui::SameLine();
    if (ImGui::SmallButton(tr_id("plan_knobs.fit").c_str())) {
      Settings next = state.settings;
      next.plan.dp = plan_fill_dp(devices, next.plan);
      if (plan_settings_devices(next.plan) != devices) next.plan.tp = next.plan.pp = next.plan.cp = 1, next.plan.dp = devices, next.plan.sp = false;
      apply_settings(state, next);
    }
  }
}

namespace {

struct StagePart {
  const char* name;
  ImU32 color;
};
const ImU32 kPartColors[] = {IM_COL32(90, 150, 230, 255), IM_COL32(110, 200, 120, 255), IM_COL32(240, 170, 70, 255),
                             IM_COL32(200, 110, 200, 255), IM_COL32(150, 90, 160, 255)};

// One stage's bar: parameters, gradients, optimizer state, the in-flight micro-batches'
// activations and the working buffers (full recomputation's one layer, ZeRO 3's gathered
// weights), against the capacity line, on the common `scale`.
void draw_stage_bar(const PlanStageMemory& s, double capacity, double scale, float width, float height) {
  const double inflight = s.inflight_microbatches * s.activation_bytes_per_microbatch;
  const double parts[] = {s.params_bytes, s.grads_bytes, s.optimizer_bytes, inflight, std::max(0.0, s.activation_bytes - inflight)};
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(o, ImVec2(o.x + width, o.y + height), IM_COL32(40, 42, 48, 255));
  float x = o.x;
  for (size_t k = 0; k < 5; ++k) {
    const float w = float(parts[k] / scale) * width;
    dl->AddRectFilled(ImVec2(x, o.y), ImVec2(x + w, o.y + height), kPartColors[k]);
    x += w;
  }
  const float cap_x = o.x + float(capacity / scale) * width;
  dl->AddLine(ImVec2(cap_x, o.y - 2), ImVec2(cap_x, o.y + height + 2), IM_COL32(255, 255, 255, 255), 2.0f);
  if (!s.fits) dl->AddRect(o, ImVec2(o.x + width, o.y + height), IM_COL32(255, 90, 90, 255));
  ImGui::Dummy(ImVec2(width, height));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr_fill("plan_memory.stage_tip", {format_bytes(s.params_bytes), format_bytes(s.grads_bytes), format_bytes(s.optimizer_bytes),
                                                               format_bytes(s.activation_bytes_per_microbatch), format_number(s.inflight_microbatches),
                                                               format_bytes(inflight), format_bytes(std::max(0.0, s.activation_bytes - inflight)),
                                                               format_bytes(s.total_bytes), s.recompute, std::to_string(s.zero_stage)})
                                .c_str());
}

}  // namespace

void draw_plan_memory_section(AppState& state) {
  section_header(tr("plan_memory.section"));
  ImGui::SameLine();
  help_marker(tr("plan_memory.help"));
  draw_plan_knobs(state, "memory_plan");
  const PlanMemoryInputs in = plan_memory_inputs(state.settings);
  follow_plan_memory(state.plan_memory, *state.alpa.inter.worker, in);
  // The plans one knob step away, computed while the worker is idle: the next slider step is a look-up.
  prefetch_plan_memory_around(state);
  // Until the new plan's numbers arrive, the last ones drawn stay (dimmed) rather than a blank.
  const auto [r, stale] = plan_memory_to_show(state.plan_memory, in, state.frame_stats.frames);
  text_disabled_wrapped("%s", tr_fill("plan_memory.plan_line", {plan_settings_text(state.settings.plan)}).c_str());
  if (plan_memory_pending(state.plan_memory)) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr("plan_memory.computing"));
  }
  if (!r) return;
  if (!r->ok()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.45f, 1.0f));
    ImGui::TextWrapped("%s", r->error().message.c_str());
    ImGui::PopStyleColor();
    return;
  }
  const PlanMemoryReport& m = r->value();
  if (stale) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
  double scale = m.capacity_bytes;
  for (const PlanStageMemory& s : m.stages) scale = std::max(scale, s.total_bytes);
  // The verdict first: the stage short by the most, and by how much.
  int worst = -1;
  for (size_t k = 0; k < m.stages.size(); ++k)
    if (!m.stages[k].fits && (worst < 0 || m.stages[k].total_bytes > m.stages[size_t(worst)].total_bytes)) worst = int(k);
  if (worst >= 0) {
    int short_stages = 0;
    for (const PlanStageMemory& s : m.stages) short_stages += !s.fits;
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.35f, 0.35f, 1.0f));
    ImGui::TextWrapped("%s", tr_fill("plan_memory.does_not_fit", {std::to_string(worst + 1), format_bytes(m.stages[size_t(worst)].total_bytes - m.capacity_bytes),
                                                                  format_bytes(m.stages[size_t(worst)].total_bytes), format_bytes(m.capacity_bytes),
                                                                  std::to_string(short_stages), std::to_string(m.stages.size())})
                                 .c_str());
    ImGui::PopStyleColor();
  } else if (const int f = fullest_stage(m); f >= 0) {
    ImGui::TextWrapped("%s", tr_fill("plan_memory.fits", {std::to_string(m.stages.size()), std::to_string(f + 1), format_bytes(m.stages[size_t(f)].total_bytes),
                                                          format_bytes(m.capacity_bytes)})
                                 .c_str());
  }
  // Legend.
  const char* names[] = {tr("memory_panel.parameters"), tr("memory_panel.gradients"), tr("memory_panel.optimizer"), tr("plan_memory.inflight"),
                         tr("plan_memory.buffers")};
  for (size_t k = 0; k < 5; ++k) {
    if (k > 0) flow(ImGui::CalcTextSize(names[k]).x + 18);
    const float swatch = ImGui::GetFontSize() * 0.7f;   // scales with the page (a phone's 3x pixels)
    ImGui::ColorButton(names[k], ImGui::ColorConvertU32ToFloat4(kPartColors[k]), ImGuiColorEditFlags_NoTooltip, ImVec2(swatch, swatch));
    ImGui::SameLine();
    ImGui::TextUnformatted(names[k]);
  }
  flow(ImGui::CalcTextSize(tr("plan_memory.inflight_mark")).x);
  ImGui::TextDisabled("%s", tr("plan_memory.inflight_mark"));
  // One row per stage: its label, its bar, its total. Many stages (pp up to the GPU count)
  // scroll in a box of at most 16 rows.
  const float row = ImGui::GetTextLineHeightWithSpacing();
  std::vector<std::string> labels;
  float label_w = 0;
  for (size_t k = 0; k < m.stages.size(); ++k) {
    const PlanStageMemory& s = m.stages[k];
    labels.push_back(tr_fill("plan_memory.stage_label", {std::to_string(k + 1), std::to_string(s.first_layer), std::to_string(s.last_layer),
                                                         format_number(s.inflight_microbatches)}));
    label_w = std::max(label_w, ImGui::CalcTextSize(labels.back().c_str()).x);
  }
  label_w += ImGui::GetStyle().ItemSpacing.x * 2;
  const float total_w = ImGui::GetFontSize() * 5.5f;
  const float box_h = row * float(std::min<size_t>(m.stages.size(), 16)) + ImGui::GetStyle().WindowPadding.y;
  if (ImGui::BeginChild("##stages", ImVec2(0, box_h), false)) {
    ImGuiListClipper clip;
    clip.Begin(int(m.stages.size()), row);
    while (clip.Step()) {
      for (int k = clip.DisplayStart; k < clip.DisplayEnd; ++k) {
        const PlanStageMemory& s = m.stages[size_t(k)];
        ImGui::PushStyleColor(ImGuiCol_Text, s.fits ? ImGui::GetStyle().Colors[ImGuiCol_Text] : ImVec4(1.0f, 0.45f, 0.45f, 1.0f));
        ImGui::TextUnformatted(labels[size_t(k)].c_str());
        ImGui::SameLine(label_w);
        const float bar_w = std::max(60.0f, ImGui::GetContentRegionAvail().x - total_w);
        draw_stage_bar(s, m.capacity_bytes, scale, bar_w, ImGui::GetTextLineHeight());
        ImGui::SameLine();
        ImGui::TextUnformatted(format_bytes(s.total_bytes).c_str());
        ImGui::PopStyleColor();
      }
    }
  }
  ImGui::EndChild();
  note_place(state, "plan_memory_stages");
  for (const std::string& line : m.sharding) text_disabled_wrapped("%s", line.c_str());
  if (stale) ImGui::PopStyleVar();
}

}  // namespace autopar::web
