// The memory section of the Cluster panel: one GPU's training memory as `autopar memory` counts
// it (core/operations/memory_operation.h) for the current model and cluster, as a stacked bar (parameters,
// gradients, optimizer state, activations) against the GPU's capacity, with the data-parallel
// degree, ZeRO stage, optimizer, precision and recomputation as controls, and a clear mark when
// it does not fit. Precision, ZeRO stage and recomputation are settings (getState's precision,
// zero and remat, in the share link): they also set the model's float width and the GPU peak in
// use (as --precision) and the FlexFlow strategy's ZeRO stage and recomputation. The
// data-parallel degree and optimizer are the section's own.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "format_units.h"
#include "memory_operation.h"
#include "panel_common.h"

namespace autopar::web {
namespace {

struct MemoryControls {
  int dp_index = -1;         // index into the divisors of the device count; -1: all devices
  int optimizer = 0;         // adam, sgd
};

MemoryControls g_controls;

// The last estimate and what it was made for: the settings (model, cluster, precision) and the
// options. Recomputed only when they change, not every frame.
struct MemoryEstimate {
  Settings settings;
  MemoryOptions options;
  std::optional<Result<TrainingMemoryReport>> report;
};

MemoryEstimate g_estimate;

bool same_options(const MemoryOptions& a, const MemoryOptions& b) {
  return a.data_parallel == b.data_parallel && a.tensor_parallel == b.tensor_parallel && a.zero_stage == b.zero_stage &&
         a.optimizer == b.optimizer && a.precision == b.precision && a.remat == b.remat;
}

// The estimate for the current settings and options (memory_operation, as `autopar memory`).
const Result<TrainingMemoryReport>& memory_estimate(const AppState& state, const MemoryOptions& o) {
  MemoryEstimate& e = g_estimate;
  if (!e.report || !(e.settings == state.settings) || !same_options(e.options, o)) {
    e.settings = state.settings;
    e.options = o;
    e.report = memory_operation(state.graph, state.cluster, o);
  }
  return *e.report;
}

}  // namespace

namespace {

// The section's controls: the data x tensor split, ZeRO, the optimizer, the precision and
// recomputation. The settings among them go through apply_settings (undo, links).
void draw_memory_controls(AppState& state, const std::vector<int>& divisors, MemoryControls& c) {
  const int devices = state.cluster.num_devices();
  const std::string dp_label = std::to_string(divisors[size_t(c.dp_index)]) + " x " +
                               std::to_string(devices / divisors[size_t(c.dp_index)]) + tr("memory_panel.data_tensor");
  ImGui::SetNextItemWidth(180);
  ImGui::SliderInt("##dp", &c.dp_index, 0, int(divisors.size()) - 1, dp_label.c_str());
  ImGui::SameLine();
  Settings next = state.settings;
  ImGui::SetNextItemWidth(110);
  const char* zero_names[] = {tr("memory_panel.zero_off"), "ZeRO-1", "ZeRO-2", "ZeRO-3"};
  ImGui::Combo("##zero", &next.zero, zero_names, 4);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("memory_panel.zero_tip"));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(80);
  const char* opt_names[] = {"Adam", "SGD"};
  ImGui::Combo("##opt", &c.optimizer, opt_names, 2);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(130);
  // As --precision: the model's float width and the GPU peak the simulator and Alpa use.
  // The engines' names (bf16, fp16, fp8) beside mixed, which stays as --precision's synonym.
  const char* prec_values[] = {"", "fp32", "tf32", "bf16", "fp16", "fp8", "mixed"};
  const char* prec_names[] = {tr("memory_panel.model_dtype"), "fp32", "tf32", "bf16", "fp16", "fp8", "mixed"};
  int prec = 0;
  for (int k = 1; k < 7; ++k)
    if (next.precision == prec_values[k]) prec = k;
  if (ImGui::Combo("##prec", &prec, prec_names, 7)) next.precision = prec_values[prec];
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("memory_panel.precision_tip"));
  ImGui::SameLine();
  ImGui::Checkbox(tr_id("memory_panel.recompute").c_str(), &next.remat);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("memory_panel.remat_tip"));
  if (!(next == state.settings)) apply_settings(state, next);
}

// The estimate's inputs as the controls and the settings set them.
MemoryOptions memory_options(const AppState& state, const std::vector<int>& divisors, const MemoryControls& c) {
  MemoryOptions o;
  o.data_parallel = divisors[size_t(c.dp_index)];
  o.tensor_parallel = state.cluster.num_devices() / o.data_parallel;
  o.zero_stage = state.settings.zero;
  o.optimizer = c.optimizer == 0 ? Optimizer::adam : Optimizer::sgd;
  o.precision = training_precision(state.graph);
  o.remat = state.settings.remat;
  return o;
}

// One stacked bar of a device's memory with its legend; the scale is the larger of the capacity
// and the total, so an overflow shows past the capacity line.
void draw_memory_bar(const MemoryReport& m) {
  const double scale = std::max(m.capacity_bytes, m.total_bytes);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(200.0f, ImGui::GetContentRegionAvail().x - 10), height = 26;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  struct Part { const char* name; double bytes; ImU32 color; };
  const Part parts[] = {{tr("memory_panel.parameters"), m.params_bytes, IM_COL32(90, 150, 230, 255)},
                        {tr("memory_panel.gradients"), m.grads_bytes, IM_COL32(110, 200, 120, 255)},
                        {tr("memory_panel.optimizer"), m.optimizer_bytes, IM_COL32(240, 170, 70, 255)},
                        {tr("memory_panel.activations"), m.activation_bytes, IM_COL32(200, 110, 200, 255)}};
  dl->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), IM_COL32(40, 42, 48, 255));
  float x = origin.x;
  for (const Part& p : parts) {
    const float w = float(p.bytes / scale) * width;
    dl->AddRectFilled(ImVec2(x, origin.y), ImVec2(x + w, origin.y + height), p.color);
    x += w;
  }
  const float cap_x = origin.x + float(m.capacity_bytes / scale) * width;
  dl->AddLine(ImVec2(cap_x, origin.y - 4), ImVec2(cap_x, origin.y + height + 4), IM_COL32(255, 255, 255, 255), 2.0f);
  ImGui::Dummy(ImVec2(width, height + 6));
  for (const Part& p : parts) {
    ImGui::ColorButton(p.name, ImGui::ColorConvertU32ToFloat4(p.color), ImGuiColorEditFlags_NoTooltip, ImVec2(10, 10));
    ImGui::SameLine();
    ImGui::Text("%s %s", p.name, format_bytes(p.bytes).c_str());
    ImGui::SameLine();
  }
  ImGui::NewLine();
}

}  // namespace

void draw_memory_section(AppState& state) {
  // Data-parallel degrees: divisors of the GPU count up to the batch (a replica needs a sample).
  const std::vector<int> divisors = data_parallel_degrees(state.cluster.num_devices(), model_batch(state.graph));
  MemoryControls& c = g_controls;
  if (c.dp_index < 0 || c.dp_index >= int(divisors.size())) c.dp_index = int(divisors.size()) - 1;
  section_header(tr("memory_panel.section"));
  ImGui::SameLine();
  help_marker(tr("memory_panel.help"));
  draw_memory_controls(state, divisors, c);

  const MemoryOptions o = memory_options(state, divisors, c);
  const Result<TrainingMemoryReport>& r = memory_estimate(state, o);
  if (!r.ok()) {
    ImGui::TextWrapped("%s", r.error().message.c_str());
    return;
  }
  const MemoryReport& m = r.value().memory;
  draw_memory_bar(m);
  if (m.fits) {
    ImGui::Text(tr("memory_panel.fits"), format_bytes(m.total_bytes).c_str(), format_bytes(m.capacity_bytes).c_str());
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.35f, 0.35f, 1.0f));
    ImGui::Text(tr("memory_panel.does_not_fit"), format_bytes(m.total_bytes).c_str(), format_bytes(m.capacity_bytes).c_str());
    ImGui::PopStyleColor();
  }
  ImGui::Text(tr("memory_panel.precision"), precision_name(o.precision), m.layers,
              state.cluster.gpu.active_peak_tflops(), precision_name(state.cluster.gpu.precision));
}

}  // namespace autopar::web
