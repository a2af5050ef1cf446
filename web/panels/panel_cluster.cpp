// The Cluster panel: preset, nodes x GPUs, the logical device mesh, the GPU and link numbers
// (editable: an edited cluster stops being a preset), and a drawing of the devices grouped by
// node and coloured by their row in the mesh (Alpa: mesh position (r, c) is device r*C + c), or
// by pipeline stage when the inter-op plan is shown. Hovering a device highlights its tensor-,
// data- and pipeline-parallel groups (web/views/device_groups.h); cluster_drawing_json reports them.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "device_groups.h"
#include "imgui.h"
#include "imgui_stdlib.h"
#include "input_bounds.h"
#include "json_io.h"
#include "panel_common.h"
#include "panels.h"
#include "ui_style.h"

namespace autopar::web {
namespace {

// Mesh rows get these fill colours, cycling.
const ImU32 kRowColors[] = {IM_COL32(54, 104, 170, 255), IM_COL32(46, 140, 96, 255),  IM_COL32(170, 110, 40, 255),
                            IM_COL32(140, 70, 160, 255), IM_COL32(160, 60, 70, 255),  IM_COL32(40, 140, 150, 255),
                            IM_COL32(120, 130, 50, 255), IM_COL32(90, 90, 170, 255)};

// Which mesh axes stay inside one node (cheaper links) for this cluster.
struct MeshAxes {
  int rows = 1, cols = 1;
  bool axis0_inside_node = true;   // along a column: devices c, C+c, 2C+c, ...
  bool axis1_inside_node = true;   // along a row: devices rC .. rC+C-1
};

MeshAxes mesh_axes(const Cluster& c, const std::string& mesh) {
  MeshAxes m;
  auto shape = parse_mesh_shape(mesh, "mesh");
  if (!shape.ok() || shape.value().first * shape.value().second != c.num_devices()) return m;
  m.rows = shape.value().first;
  m.cols = shape.value().second;
  for (int r = 0; r < m.rows; ++r)
    for (int col = 0; col < m.cols; ++col) {
      const int d = r * m.cols + col;
      if (col > 0 && c.node_of(d) != c.node_of(d - 1)) m.axis1_inside_node = false;
      if (r > 0 && c.node_of(d) != c.node_of(d - m.cols)) m.axis0_inside_node = false;
    }
  return m;
}

// Applies a cluster whose numbers the user edited: it becomes a custom cluster.
void apply_custom(AppState& state, const Cluster& edited, const std::string& what) {
  Settings next = state.settings;
  next.custom_cluster = edited;
  apply_from_ui(state, next, "Cluster edited: " + what + ". It is no longer a preset (Reset to go back).");
}

// Applies a preset and a shape; keeps the mesh if it still fits, else nodes x GPUs.
void apply_preset(AppState& state, const std::string& preset, int nodes, int gpus) {
  Settings next = state.settings;
  next.cluster = preset_spec_string(preset, nodes, gpus);
  next.custom_cluster.reset();
  auto m = parse_mesh_shape(next.mesh, "mesh");
  if (!m.ok() || m.value().first * m.value().second != nodes * gpus) next.mesh = std::to_string(nodes) + "x" + std::to_string(gpus);
  apply_from_ui(state, next, tr_fill("notice.loaded_cluster", {next.cluster}));
}

// Applies a new shape to the current cluster (preset or custom).
void apply_shape(AppState& state, int nodes, int gpus) {
  if (!state.settings.custom_cluster) {
    apply_preset(state, state.cluster.name, nodes, gpus);
    return;
  }
  Settings next = state.settings;
  next.custom_cluster->nodes = nodes;
  next.custom_cluster->gpus_per_node = gpus;
  auto m = parse_mesh_shape(next.mesh, "mesh");
  if (!m.ok() || m.value().first * m.value().second != nodes * gpus) next.mesh = std::to_string(nodes) + "x" + std::to_string(gpus);
  apply_from_ui(state, next, "Cluster shape " + std::to_string(nodes) + "x" + std::to_string(gpus) + ".");
}

// An editable number with a unit; true when the user committed a new value into `value`.
bool number_input(const char* id, double& value, const char* unit) {
  double v = value;
  const float unit_w = ImGui::CalcTextSize(unit).x + ImGui::GetStyle().ItemSpacing.x;
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 3.0f,
                                   std::min(ImGui::GetFontSize() * 7.0f, ImGui::GetContentRegionAvail().x - unit_w)));
  const bool entered = ImGui::InputDouble(id, &v, 0.0, 0.0, "%.6g", ImGuiInputTextFlags_EnterReturnsTrue);
  const bool committed = (entered || ImGui::IsItemDeactivatedAfterEdit()) && v != value;
  ImGui::SameLine();
  ImGui::TextDisabled("%s", unit);
  if (committed) value = v;
  return committed;
}

// Whether a published run calibrates this cluster's efficiencies, said where its numbers are
// set (issue 39: an uncalibrated preset says so wherever its numbers are shown); the full
// efficiency note, written from the constants, on hover.
void draw_calibration(const Cluster& c) {
  const bool roofline = c.gpu.matmul_efficiency == 1.0;
  ImGui::PushStyleColor(ImGuiCol_Text, c.calibrated() ? ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled) : ImVec4(1.0f, 0.78f, 0.45f, 1.0f));
  if (c.calibrated()) ImGui::TextWrapped(tr("cluster_panel.calibrated"), c.calibrated_by.c_str());
  else ImGui::TextWrapped("%s", tr(roofline ? "cluster_panel.roofline" : "cluster_panel.not_calibrated"));
  ImGui::PopStyleColor();
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextUnformatted(efficiency_note(c).c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void draw_cluster_form(AppState& state) {
  const Cluster& c = state.cluster;
  if (!ImGui::BeginTable("##cluster_form", 2, ImGuiTableFlags_SizingStretchProp)) return;
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 7.5f);
  ImGui::TableSetupColumn("widget", ImGuiTableColumnFlags_WidthStretch);

  form_label(tr("cluster_panel.preset"), tr("cluster_panel.preset_tip"));
  const std::string preview = state.settings.custom_cluster ? c.name + tr("cluster_panel.edited") : c.name;
  if (ImGui::BeginCombo("##preset", preview.c_str())) {
    for (const auto& p : cluster_presets()) {
      const bool selected = !state.settings.custom_cluster && p.name == c.name;
      if (ImGui::Selectable(p.name.c_str(), selected)) apply_preset(state, p.name, c.nodes, c.gpus_per_node);
      if (ImGui::IsItemHovered() && !p.description.empty()) ImGui::SetTooltip("%s", p.description.c_str());
      if (selected) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }

  form_label(tr("cluster_panel.shape"), tr("cluster_panel.shape_tip"));
  int nodes = c.nodes, gpus = c.gpus_per_node;
  const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x * 2 - ImGui::CalcTextSize("x").x) * 0.5f;
  ImGui::SetNextItemWidth(half);
  bool shape_changed = ImGui::InputInt("##nodes", &nodes, 1, 4, ImGuiInputTextFlags_EnterReturnsTrue);
  shape_changed |= ImGui::IsItemDeactivatedAfterEdit();
  note_place(state, "nodes");
  ImGui::SameLine();
  ImGui::TextUnformatted("x");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(half);
  shape_changed |= ImGui::InputInt("##gpus", &gpus, 1, 4, ImGuiInputTextFlags_EnterReturnsTrue);
  shape_changed |= ImGui::IsItemDeactivatedAfterEdit();
  note_place(state, "gpus");
  // Values outside the core's bounds (validate_cluster: GPUs per node up to kMaxGpusPerNode,
  // nodes x GPUs up to kMaxDevices) are clamped into them, and the notice says so with the
  // cluster that results; a shape the core still refuses shows its error instead.
  if (shape_changed) {
    const ClampedShape shape = clamp_cluster_shape(nodes, gpus);
    if (shape.nodes != c.nodes || shape.gpus_per_node != c.gpus_per_node) {
      apply_shape(state, shape.nodes, shape.gpus_per_node);
      if (shape.clamped && state.cluster.nodes == shape.nodes && state.cluster.gpus_per_node == shape.gpus_per_node)
        notify_info(state, shape.notice);
    } else if (shape.clamped) {
      notify_info(state, shape.notice);
    }
  }

  form_label(tr("cluster_panel.mesh"), tr("cluster_panel.mesh_tip"));
  if (ImGui::BeginCombo("##mesh", state.settings.mesh.c_str())) {
    for (const auto& shape : mesh_shapes(state.cluster.num_devices())) {
      const bool selected = shape == state.settings.mesh;
      if (ImGui::Selectable(shape.c_str(), selected)) {
        Settings next = state.settings;
        next.mesh = shape;
        apply_from_ui(state, next, tr_fill("notice.mesh", {shape}));
      }
      if (selected) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  ImGui::EndTable();

  const MeshAxes axes = mesh_axes(state.cluster, state.settings.mesh);
  auto where = [](int n, bool inside) { return tr(n == 1 ? "cluster_panel.single_device" : inside ? "ex4.inside" : "ex4.across"); };
  ImGui::TextDisabled(tr(axes.rows == 1 ? "cluster_panel.axis0_one" : "cluster_panel.axis0"), axes.rows, where(axes.rows, axes.axis0_inside_node));
  ImGui::TextDisabled(tr(axes.cols == 1 ? "cluster_panel.axis1_one" : "cluster_panel.axis1"), axes.cols, where(axes.cols, axes.axis1_inside_node));
  draw_calibration(state.cluster);
}

void draw_gpu_and_links(AppState& state) {
  Cluster edited = state.cluster;
  section_header(tr("cluster_panel.gpu"));
  if (ImGui::BeginTable("##gpu", 2, ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 9.5f);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    form_label(tr("cluster_panel.gpu_model"));
    static std::string gpu_model;
    static bool gpu_model_editing = false;
    if (!gpu_model_editing) gpu_model = edited.gpu.model;
    if (ImGui::InputText("##gpu_model", &gpu_model, ImGuiInputTextFlags_EnterReturnsTrue) && gpu_model != edited.gpu.model) {
      edited.gpu.model = gpu_model;
      apply_custom(state, edited, "GPU model");
    }
    gpu_model_editing = ImGui::IsItemActive();
    form_label(tr("cluster_panel.peak"), tr("cluster_panel.peak_tip"));
    if (number_input("##peak", edited.gpu.peak_tflops, "TFLOP/s")) apply_custom(state, edited, "peak throughput");
    form_label(tr("cluster_panel.mem_bw"));
    if (number_input("##membw", edited.gpu.memory_bandwidth_gb_per_s, "GB/s")) apply_custom(state, edited, "memory bandwidth");
    form_label(tr("cluster_panel.memory"));
    if (number_input("##mem", edited.gpu.memory_gib, "GiB")) apply_custom(state, edited, "memory capacity");
    form_label(tr("cluster_panel.overhead"), tr("cluster_panel.overhead_tip"));
    if (number_input("##overhead", edited.gpu.kernel_overhead_us, "us")) apply_custom(state, edited, "kernel overhead");
    ImGui::EndTable();
  }

  section_header(tr("cluster_panel.links"));
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg;
  if (ImGui::BeginTable("##links", 3, flags)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 6.0f);
    ImGui::TableSetupColumn(tr("cluster_panel.latency"), ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn(tr("cluster_panel.bandwidth"), ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (auto [label, link] : {std::pair{"intra-node", &edited.intra_node}, std::pair{"inter-node", &edited.inter_node}}) {
      ImGui::PushID(label);
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::AlignTextToFramePadding();
      ImGui::TextUnformatted(label);
      ImGui::TableSetColumnIndex(1);
      if (number_input("##lat", link->latency_us, "us")) apply_custom(state, edited, std::string(label) + " latency");
      ImGui::TableSetColumnIndex(2);
      if (number_input("##bw", link->bandwidth_gb_per_s, "GB/s")) apply_custom(state, edited, std::string(label) + " bandwidth");
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("%s", tr("cluster_panel.transfer"));

  if (state.settings.custom_cluster) {
    if (ImGui::Button(tr_id("cluster_panel.reset").c_str())) apply_preset(state, state.cluster.name, state.cluster.nodes, state.cluster.gpus_per_node);
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr("cluster_panel.numbers_edited"));
  }
  if (!state.cluster.sources.empty() && ImGui::TreeNode(tr_id("cluster_panel.sources").c_str())) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", state.cluster.sources.c_str());
    ImGui::PopTextWrapPos();
    ImGui::TreePop();
  }
}

// The three group colours of the drawing and its legend (apart in hue from each other and from
// the grey of the devices outside every group).
const ImU32 kTensorColor = IM_COL32(226, 150, 48, 255);     // amber
const ImU32 kDataColor = IM_COL32(48, 168, 206, 255);       // cyan
const ImU32 kPipelineColor = IM_COL32(196, 84, 196, 255);   // magenta
const ImU32 kOutsideColor = IM_COL32(58, 62, 72, 255);

// How the drawing splits the cluster into stages, and where that split comes from.
struct DrawingStages {
  std::vector<PlacedStage> stages;
  const InterOpPlan* plan = nullptr;   // set when the stages are the inter-op plan's
  int mesh_rows = 1, mesh_cols = 1;    // the intra-op mesh (settings.mesh) when plan is null
};

// The user's choice between the inter-op plan's groups and the intra-op mesh's, when a plan exists.
bool g_groups_of_plan = true;

// What the drawing showed in its latest frame, for autopar_hover_groups (the browser tests).
struct DrawingRecord {
  int frame = -1;                                 // ImGui frame count when last drawn
  std::vector<std::pair<int, ImVec4>> rects;      // device and its box (x0, y0, x1, y1), framebuffer pixels
  std::optional<DeviceGroups> hovered;
  bool from_plan = false;
  int stage_count = 1;
  std::string mesh;
};
DrawingRecord g_record;

// The stages the drawing shows: the inter-op plan's, placed as the inter-op tab draws them, when
// a plan for the current inputs exists and the user wants it; else the whole cluster on the mesh.
DrawingStages drawing_stages(const AppState& state) {
  const Cluster& c = state.cluster;
  DrawingStages out;
  const InterOpPlan* plan = current_inter_plan(state.alpa.inter, alpa_inputs(state));
  if (plan && g_groups_of_plan && !plan->stages.empty()) {
    out.stages = plan_stages(plan->stages, stage_places(*plan, c.nodes, c.gpus_per_node));
    out.plan = plan;
    return out;
  }
  const MeshAxes axes = mesh_axes(c, state.settings.mesh);
  out.mesh_rows = axes.rows;
  out.mesh_cols = axes.cols;
  out.stages = whole_cluster_stage(c.nodes, c.gpus_per_node, axes.rows, axes.cols);
  return out;
}

// A filled square of `color` on the current line, the height of the text.
void color_swatch(ImU32 color) {
  const float s = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + s * 0.15f), ImVec2(p.x + s * 0.7f, p.y + s * 0.85f), color, s * 0.12f);
  ImGui::Dummy(ImVec2(s * 0.7f, s));
  ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
}

// Where the groups come from, and what each colour means.
void draw_groups_legend(const DrawingStages& ds, bool plan_exists) {
  if (plan_exists) {
    ImGui::Checkbox(tr_id("cluster_panel.groups_of_plan").c_str(), &g_groups_of_plan);
    help_marker(tr("cluster_panel.groups_help"));
  }
  if (ds.plan)
    ImGui::TextDisabled(tr("cluster_panel.stages_legend"), ds.plan->stages.size());
  else
    ImGui::TextDisabled(tr("cluster_panel.one_stage_legend"), ds.mesh_rows, ds.mesh_cols);
  ImGui::TextDisabled("%s", tr("cluster_panel.hover"));
  ImGui::SameLine();
  color_swatch(kTensorColor);
  ImGui::TextUnformatted(tr("cluster_panel.tensor_parallel"));
  ImGui::SameLine(0.0f, ImGui::GetFontSize());
  color_swatch(kDataColor);
  ImGui::TextUnformatted(tr("ex7.col_dp"));
  ImGui::SameLine(0.0f, ImGui::GetFontSize());
  color_swatch(kPipelineColor);
  ImGui::TextUnformatted(tr("cluster_panel.pipeline"));
  help_marker(tr("cluster_panel.groups_hover_help"));
  if (!plan_exists) ImGui::TextDisabled("%s", tr("cluster_panel.no_pipeline"));
}

// The tooltip of the hovered device: where it is and its groups. It goes above the line of nodes
// holding the device (below when there is no room above), so it never hides the highlighted groups;
// `box_center_x` and `line_top`/`line_bottom` are that device's and that line's.
void draw_device_tooltip(const AppState& state, const DrawingStages& ds, const DeviceGroups& g, float box_center_x,
                         float line_top, float line_bottom) {
  const DevicePlace& p = g.place;
  const float margin = ImGui::GetFontSize() * 0.4f;
  const float height_guess = ImGui::GetTextLineHeightWithSpacing() * 6.0f + ImGui::GetStyle().WindowPadding.y * 2.0f;
  const bool above = line_top - margin - height_guess >= 0.0f;
  // The horizontal pivot follows the device across the window, keeping the tooltip inside it.
  const ImVec2 win = ImGui::GetWindowPos();
  const float across = std::clamp((box_center_x - win.x) / std::max(1.0f, ImGui::GetWindowWidth()), 0.0f, 1.0f);
  ImGui::SetNextWindowPos(ImVec2(box_center_x, above ? line_top - margin : line_bottom + margin), ImGuiCond_Always,
                          ImVec2(across, above ? 1.0f : 0.0f));
  ImGui::BeginTooltip();
  ImGui::Text(tr("cluster_panel.device_tip"), p.device, p.node, p.gpu, state.cluster.gpu.model.c_str());
  if (ds.plan && p.stage >= 0) {
    const PipelineStage& st = ds.plan->stages[size_t(p.stage)];
    const PlacedStage& ps = ds.stages[size_t(p.stage)];
    const auto [first, last] = stage_layer_numbers(state.alpa.inter, st);
    ImGui::Text(tr("cluster_panel.stage_tip"), p.stage, first,
                last, ps.nodes, ps.gpus, ps.mesh_rows, ps.mesh_cols, p.mesh_row, p.mesh_col);
  } else if (ds.plan) {
    ImGui::TextUnformatted(tr("cluster_panel.idle"));
  } else {
    ImGui::Text(tr("cluster_panel.position_tip"), p.mesh_row, p.mesh_col, ds.mesh_rows, ds.mesh_cols);
  }
  ImGui::Separator();
  auto line = [](ImU32 color, const std::string& what, const std::vector<int>& devices) {
    color_swatch(color);
    ImGui::Text("%s: device%s %s", what.c_str(), devices.size() == 1 ? "" : "s", device_list_text(devices).c_str());
  };
  line(kTensorColor, "tensor parallel (mesh row " + std::to_string(p.mesh_row) + ")", g.tensor_parallel);
  line(kDataColor, "data parallel (mesh column " + std::to_string(p.mesh_col) + ")", g.data_parallel);
  if (g.pipeline.size() > 1) {
    line(kPipelineColor, "pipeline (one per stage)", g.pipeline);
  } else {
    color_swatch(kPipelineColor);
    ImGui::TextDisabled(ds.plan ? "pipeline: none (the plan has one stage)" : "pipeline: none yet (plan it in the Alpa inter-op tab)");
  }
  ImGui::EndTooltip();
}

// Where the device drawing puts nodes and GPU boxes: nodes side by side in lines, GPUs in rows
// of at most 8 inside them.
struct DevicesGeometry {
  float em = 0, gap = 0, gpu_w = 0, gpu_h = 0, pad = 0, title_h = 0, node_w = 0, node_h = 0;
  int per_row = 1, nodes_per_line = 1, drawn = 0, lines = 0;
  ImVec2 origin;   // top left of the first node, set inside the child window
  ImVec2 node_origin(int n) const {
    return ImVec2(origin.x + (n % nodes_per_line) * (node_w + em), origin.y + (n / nodes_per_line) * (node_h + em));
  }
  ImVec2 gpu_origin(int n, int g) const {
    const ImVec2 p0 = node_origin(n);
    return ImVec2(p0.x + pad + (g % per_row) * (gpu_w + gap), p0.y + title_h + (g / per_row) * (gpu_h + gap));
  }
};

DevicesGeometry measure_devices(const Cluster& c) {
  DevicesGeometry m;
  const float em = m.em = ImGui::GetFontSize();
  m.gap = em * 0.35f;
  m.gpu_w = em * 3.6f;
  m.gpu_h = em * 2.7f;
  m.per_row = std::min(c.gpus_per_node, 8);
  const int gpu_rows = (c.gpus_per_node + m.per_row - 1) / m.per_row;
  m.pad = em * 0.5f;
  m.title_h = em * 1.4f;
  m.node_w = m.pad * 2 + m.per_row * m.gpu_w + (m.per_row - 1) * m.gap;
  m.node_h = m.title_h + m.pad + gpu_rows * m.gpu_h + (gpu_rows - 1) * m.gap;
  const float avail = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;
  m.nodes_per_line = std::max(1, int((avail + em) / (m.node_w + em)));
  const int max_nodes_drawn = 64;
  m.drawn = std::min(c.nodes, max_nodes_drawn);
  m.lines = (m.drawn + m.nodes_per_line - 1) / m.nodes_per_line;
  return m;
}

// Records the visible GPU boxes (g_record.rects); returns the device under the mouse, or -1.
int lay_out_devices(const Cluster& c, const DevicesGeometry& m) {
  g_record.rects.clear();
  int hovered = -1;
  for (int n = 0; n < m.drawn; ++n)
    for (int g = 0; g < c.gpus_per_node; ++g) {
      const ImVec2 g0 = m.gpu_origin(n, g), g1(g0.x + m.gpu_w, g0.y + m.gpu_h);
      if (!ImGui::IsRectVisible(g0, g1)) continue;
      const int d = n * c.gpus_per_node + g;
      g_record.rects.push_back({d, ImVec4(g0.x, g0.y, g1.x, g1.y)});
      if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(g0, g1)) hovered = d;
    }
  return hovered;
}

// Paints node `n` and its GPUs; with `groups`, the hovered device's groups in their colours
// (`highlight` per device, 0 outside them) and every other device dimmed.
void paint_node(const Cluster& c, const DrawingStages& ds, const DevicesGeometry& m, int n, int hovered,
                const std::optional<DeviceGroups>& groups, const std::vector<ImU32>& highlight) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float em = m.em;
  const ImU32 node_bg = IM_COL32(36, 40, 48, 255), node_border = IM_COL32(90, 98, 112, 255);
  const ImU32 text = IM_COL32(235, 238, 245, 255), dim = IM_COL32(170, 176, 190, 255), dark_text = IM_COL32(20, 22, 28, 255);
  const ImVec2 p0 = m.node_origin(n), p1(p0.x + m.node_w, p0.y + m.node_h);
  if (!ImGui::IsRectVisible(p0, p1)) return;
  dl->AddRectFilled(p0, p1, node_bg, em * 0.4f);
  dl->AddRect(p0, p1, node_border, em * 0.4f);
  char label[64];
  std::snprintf(label, sizeof label, "node %d", n);
  dl->AddText(ImVec2(p0.x + m.pad, p0.y + em * 0.2f), dim, label);
  for (int g = 0; g < c.gpus_per_node; ++g) {
    const int d = n * c.gpus_per_node + g;
    const ImVec2 g0 = m.gpu_origin(n, g), g1(g0.x + m.gpu_w, g0.y + m.gpu_h);
    const DevicePlace place = device_place(d, c.gpus_per_node, ds.stages);
    const ImU32 normal = place.stage < 0 ? kOutsideColor : ds.plan ? pipeline_stage_color(place.stage) : kRowColors[place.mesh_row % 8];
    const bool member = groups && highlight[size_t(d)] != 0;
    const ImU32 fill = !groups ? normal : d == hovered ? IM_COL32(245, 246, 250, 255) : member ? highlight[size_t(d)] : kOutsideColor;
    dl->AddRectFilled(g0, g1, fill, em * 0.25f);
    if (d == hovered) dl->AddRect(ImVec2(g0.x - 2, g0.y - 2), ImVec2(g1.x + 2, g1.y + 2), IM_COL32(255, 255, 255, 255), em * 0.3f, 0, 2.5f);
    const bool light = groups && (d == hovered || member);
    std::snprintf(label, sizeof label, "GPU %d", d);
    dl->AddText(ImVec2(g0.x + (m.gpu_w - ImGui::CalcTextSize(label).x) * 0.5f, g0.y + em * 0.25f), light ? dark_text : text, label);
    if (place.stage < 0)
      std::snprintf(label, sizeof label, "idle");
    else if (ds.plan)
      std::snprintf(label, sizeof label, "S%d(%d,%d)", place.stage, place.mesh_row, place.mesh_col);
    else
      std::snprintf(label, sizeof label, "(%d,%d)", place.mesh_row, place.mesh_col);
    dl->AddText(ImVec2(g0.x + (m.gpu_w - ImGui::CalcTextSize(label).x) * 0.5f, g0.y + em * 1.3f), light ? dark_text : dim, label);
  }
}

// The devices, grouped by node; each GPU box shows its device number and mesh position. The
// boxes are laid out first, so the hovered device (and so its groups) is known before painting.
void draw_devices(const AppState& state) {
  section_header(tr("cluster_panel.devices"));
  const Cluster& c = state.cluster;
  const bool plan_exists = current_inter_plan(state.alpa.inter, alpa_inputs(state)) != nullptr;
  const DrawingStages ds = drawing_stages(state);
  draw_groups_legend(ds, plan_exists);
  DevicesGeometry m = measure_devices(c);
  const float em = m.em;

  // The drawing scrolls inside the rest of the panel, but always shows at least one line of nodes.
  ImGui::BeginChild("##devices", ImVec2(0, std::max(ImGui::GetContentRegionAvail().y, m.node_h + em * 2.0f)), false,
                    ImGuiWindowFlags_HorizontalScrollbar);
  m.origin = ImGui::GetCursorScreenPos();
  const int hovered = lay_out_devices(c, m);
  std::optional<DeviceGroups> groups;
  std::vector<ImU32> highlight(size_t(c.num_devices()), 0);   // 0: no group shown
  if (hovered >= 0) {
    groups = device_groups(hovered, c.gpus_per_node, ds.stages);
    for (int d : groups->pipeline) highlight[size_t(d)] = kPipelineColor;
    for (int d : groups->data_parallel) highlight[size_t(d)] = kDataColor;
    for (int d : groups->tensor_parallel) highlight[size_t(d)] = kTensorColor;
  }
  for (int n = 0; n < m.drawn; ++n) paint_node(c, ds, m, n, hovered, groups, highlight);
  if (groups) {
    const int n = hovered / c.gpus_per_node;
    const float line_top = m.node_origin(n).y;
    draw_device_tooltip(state, ds, *groups, m.gpu_origin(n, hovered % c.gpus_per_node).x + m.gpu_w * 0.5f, line_top, line_top + m.node_h);
  }
  ImGui::Dummy(ImVec2(m.nodes_per_line * (m.node_w + em), m.lines * (m.node_h + em)));
  if (c.nodes > m.drawn) ImGui::TextDisabled("... and %d more nodes", c.nodes - m.drawn);
  ImGui::EndChild();

  g_record.frame = ImGui::GetFrameCount();
  g_record.hovered = groups;
  g_record.from_plan = ds.plan != nullptr;
  g_record.stage_count = int(ds.stages.size());
  g_record.mesh = state.settings.mesh;
}

}  // namespace

void draw_cluster_panel(AppState& state, const PanelRect& rect) {
  if (begin_panel(state, kClusterWindow, "cluster", rect)) {
    draw_cluster_form(state);
    draw_gpu_and_links(state);
    draw_devices(state);
    draw_memory_section(state);
    draw_plan_memory_section(state);
  }
  ImGui::End();
}

std::string cluster_drawing_json(float css_per_pixel) {
  Json j;
  j["drawn"] = ImGui::GetCurrentContext() != nullptr && g_record.frame == ImGui::GetFrameCount();
  j["groups_from"] = g_record.from_plan ? "plan" : "mesh";
  j["mesh"] = g_record.mesh;
  j["stages"] = g_record.stage_count;
  Json boxes = Json::array();
  for (const auto& [device, r] : g_record.rects)
    boxes.push_back(Json{{"device", device}, {"x", r.x * css_per_pixel}, {"y", r.y * css_per_pixel},
                         {"w", (r.z - r.x) * css_per_pixel}, {"h", (r.w - r.y) * css_per_pixel}});
  j["devices"] = boxes;
  j["hovered"] = nullptr;
  if (g_record.hovered) {
    const DeviceGroups& g = *g_record.hovered;
    j["hovered"] = Json{{"device", g.place.device},       {"node", g.place.node},
                        {"gpu", g.place.gpu},             {"stage", g.place.stage},
                        {"mesh_row", g.place.mesh_row},   {"mesh_col", g.place.mesh_col},
                        {"tensor_parallel", g.tensor_parallel}, {"data_parallel", g.data_parallel},
                        {"pipeline", g.pipeline}};
  }
  return j.dump();
}

}  // namespace autopar::web
