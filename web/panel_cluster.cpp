// The Cluster panel: preset, nodes x GPUs, the logical device mesh, the GPU and link numbers
// (editable: an edited cluster stops being a preset), and a drawing of the devices grouped by
// node and coloured by their row in the mesh (Alpa: mesh position (r, c) is device r*C + c).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "imgui.h"
#include "imgui_stdlib.h"
#include "panel_common.h"
#include "panels.h"

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
  auto shape = parse_mesh(mesh);
  if (!shape || shape->first * shape->second != c.num_devices()) return m;
  m.rows = shape->first;
  m.cols = shape->second;
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
  auto m = parse_mesh(next.mesh);
  if (!m || m->first * m->second != nodes * gpus) next.mesh = std::to_string(nodes) + "x" + std::to_string(gpus);
  apply_from_ui(state, next, "Loaded cluster " + next.cluster + ".");
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
  auto m = parse_mesh(next.mesh);
  if (!m || m->first * m->second != nodes * gpus) next.mesh = std::to_string(nodes) + "x" + std::to_string(gpus);
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

void draw_cluster_form(AppState& state) {
  const Cluster& c = state.cluster;
  if (!ImGui::BeginTable("##cluster_form", 2, ImGuiTableFlags_SizingStretchProp)) return;
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 7.5f);
  ImGui::TableSetupColumn("widget", ImGuiTableColumnFlags_WidthStretch);

  form_label("Preset", "Each preset documents where its numbers come from (see Sources below).");
  const std::string preview = state.settings.custom_cluster ? c.name + " (edited)" : c.name;
  if (ImGui::BeginCombo("##preset", preview.c_str())) {
    for (const auto& p : cluster_presets()) {
      const bool selected = !state.settings.custom_cluster && p.name == c.name;
      if (ImGui::Selectable(p.name.c_str(), selected)) apply_preset(state, p.name, c.nodes, c.gpus_per_node);
      if (ImGui::IsItemHovered() && !p.description.empty()) ImGui::SetTooltip("%s", p.description.c_str());
      if (selected) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }

  form_label("Nodes x GPUs", "Devices are numbered node by node: device = node * GPUs per node + GPU.");
  int nodes = c.nodes, gpus = c.gpus_per_node;
  const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x * 2 - ImGui::CalcTextSize("x").x) * 0.5f;
  ImGui::SetNextItemWidth(half);
  bool shape_changed = ImGui::InputInt("##nodes", &nodes, 1, 4, ImGuiInputTextFlags_EnterReturnsTrue);
  shape_changed |= ImGui::IsItemDeactivatedAfterEdit();
  ImGui::SameLine();
  ImGui::TextUnformatted("x");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(half);
  shape_changed |= ImGui::InputInt("##gpus", &gpus, 1, 4, ImGuiInputTextFlags_EnterReturnsTrue);
  shape_changed |= ImGui::IsItemDeactivatedAfterEdit();
  nodes = std::clamp(nodes, 1, kMaxDevices);
  gpus = std::clamp(gpus, 1, kMaxDevices);
  if (shape_changed && (nodes != c.nodes || gpus != c.gpus_per_node)) apply_shape(state, nodes, gpus);

  form_label("Mesh", "Alpa's logical 2-D device mesh RxC: position (r, c) is device r*C + c. An axis whose "
                     "devices share a node uses the fast intra-node links.");
  if (ImGui::BeginCombo("##mesh", state.settings.mesh.c_str())) {
    for (const auto& shape : mesh_shapes(state.cluster.num_devices())) {
      const bool selected = shape == state.settings.mesh;
      if (ImGui::Selectable(shape.c_str(), selected)) {
        Settings next = state.settings;
        next.mesh = shape;
        apply_from_ui(state, next, "Mesh " + shape + ".");
      }
      if (selected) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  ImGui::EndTable();

  const MeshAxes axes = mesh_axes(state.cluster, state.settings.mesh);
  auto where = [](int n, bool inside) { return n == 1 ? "a single device" : inside ? "inside a node" : "across nodes"; };
  ImGui::TextDisabled("mesh axis 0: %d device%s, %s", axes.rows, axes.rows == 1 ? "" : "s", where(axes.rows, axes.axis0_inside_node));
  ImGui::TextDisabled("mesh axis 1: %d device%s, %s", axes.cols, axes.cols == 1 ? "" : "s", where(axes.cols, axes.axis1_inside_node));
}

void draw_gpu_and_links(AppState& state) {
  Cluster edited = state.cluster;
  section_header("GPU");
  if (ImGui::BeginTable("##gpu", 2, ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 9.5f);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    form_label("Model");
    static std::string gpu_model;
    static bool gpu_model_editing = false;
    if (!gpu_model_editing) gpu_model = edited.gpu.model;
    if (ImGui::InputText("##gpu_model", &gpu_model, ImGuiInputTextFlags_EnterReturnsTrue) && gpu_model != edited.gpu.model) {
      edited.gpu.model = gpu_model;
      apply_custom(state, edited, "GPU model");
    }
    gpu_model_editing = ImGui::IsItemActive();
    form_label("Peak throughput", "Dense FP32 peak of one GPU.");
    if (number_input("##peak", edited.gpu.peak_tflops, "TFLOP/s")) apply_custom(state, edited, "peak throughput");
    form_label("Memory bandwidth");
    if (number_input("##membw", edited.gpu.memory_bandwidth_gb_per_s, "GB/s")) apply_custom(state, edited, "memory bandwidth");
    form_label("Memory");
    if (number_input("##mem", edited.gpu.memory_gib, "GiB")) apply_custom(state, edited, "memory capacity");
    form_label("Kernel overhead", "Fixed cost of launching one kernel.");
    if (number_input("##overhead", edited.gpu.kernel_overhead_us, "us")) apply_custom(state, edited, "kernel overhead");
    ImGui::EndTable();
  }

  section_header("Links");
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg;
  if (ImGui::BeginTable("##links", 3, flags)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 6.0f);
    ImGui::TableSetupColumn("Latency", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Bandwidth", ImGuiTableColumnFlags_WidthStretch);
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
  ImGui::TextDisabled("A transfer of s bytes takes latency + s / bandwidth.");

  if (state.settings.custom_cluster) {
    if (ImGui::Button("Reset to preset")) apply_preset(state, state.cluster.name, state.cluster.nodes, state.cluster.gpus_per_node);
    ImGui::SameLine();
    ImGui::TextDisabled("numbers edited; getState().cluster is an object");
  }
  if (!state.cluster.sources.empty() && ImGui::TreeNode("Sources")) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", state.cluster.sources.c_str());
    ImGui::PopTextWrapPos();
    ImGui::TreePop();
  }
}

// The devices, grouped by node; each GPU box shows its device number and mesh position.
void draw_devices(const AppState& state) {
  section_header("Devices");
  const Cluster& c = state.cluster;
  const MeshAxes axes = mesh_axes(c, state.settings.mesh);
  ImGui::TextDisabled("Colour = mesh row, (r,c) = mesh position.");
  const float em = ImGui::GetFontSize();
  const float gap = em * 0.35f;
  const float gpu_w = em * 3.6f, gpu_h = em * 2.7f;
  const int per_row = std::min(c.gpus_per_node, 8);
  const int gpu_rows = (c.gpus_per_node + per_row - 1) / per_row;
  const float pad = em * 0.5f, title_h = em * 1.4f;
  const float node_w = pad * 2 + per_row * gpu_w + (per_row - 1) * gap;
  const float node_h = title_h + pad + gpu_rows * gpu_h + (gpu_rows - 1) * gap;
  const float avail = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;
  const int nodes_per_line = std::max(1, int((avail + em) / (node_w + em)));
  const int max_nodes_drawn = 64;
  const int drawn = std::min(c.nodes, max_nodes_drawn);
  const int lines = (drawn + nodes_per_line - 1) / nodes_per_line;

  // The drawing scrolls inside the rest of the panel, but always shows at least one line of nodes.
  ImGui::BeginChild("##devices", ImVec2(0, std::max(ImGui::GetContentRegionAvail().y, node_h + em * 2.0f)), false,
                    ImGuiWindowFlags_HorizontalScrollbar);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 node_bg = IM_COL32(36, 40, 48, 255), node_border = IM_COL32(90, 98, 112, 255);
  const ImU32 text = IM_COL32(235, 238, 245, 255), dim = IM_COL32(170, 176, 190, 255);
  for (int n = 0; n < drawn; ++n) {
    const ImVec2 p0(origin.x + (n % nodes_per_line) * (node_w + em), origin.y + (n / nodes_per_line) * (node_h + em));
    const ImVec2 p1(p0.x + node_w, p0.y + node_h);
    if (!ImGui::IsRectVisible(p0, p1)) continue;
    dl->AddRectFilled(p0, p1, node_bg, em * 0.4f);
    dl->AddRect(p0, p1, node_border, em * 0.4f);
    char label[64];
    std::snprintf(label, sizeof label, "node %d", n);
    dl->AddText(ImVec2(p0.x + pad, p0.y + em * 0.2f), dim, label);
    for (int g = 0; g < c.gpus_per_node; ++g) {
      const int d = n * c.gpus_per_node + g;
      const ImVec2 g0(p0.x + pad + (g % per_row) * (gpu_w + gap), p0.y + title_h + (g / per_row) * (gpu_h + gap));
      const ImVec2 g1(g0.x + gpu_w, g0.y + gpu_h);
      const int r = d / axes.cols, col = d % axes.cols;
      dl->AddRectFilled(g0, g1, kRowColors[r % 8], em * 0.25f);
      std::snprintf(label, sizeof label, "GPU %d", d);
      dl->AddText(ImVec2(g0.x + (gpu_w - ImGui::CalcTextSize(label).x) * 0.5f, g0.y + em * 0.25f), text, label);
      std::snprintf(label, sizeof label, "(%d,%d)", r, col);
      dl->AddText(ImVec2(g0.x + (gpu_w - ImGui::CalcTextSize(label).x) * 0.5f, g0.y + em * 1.3f), dim, label);
      if (ImGui::IsMouseHoveringRect(g0, g1) && ImGui::IsWindowHovered())
        ImGui::SetTooltip("device %d: node %d, GPU %d\nmesh position (%d, %d) of %s\n%s", d, n, g, r, col,
                          state.settings.mesh.c_str(), c.gpu.model.c_str());
    }
  }
  ImGui::Dummy(ImVec2(nodes_per_line * (node_w + em), lines * (node_h + em)));
  if (c.nodes > drawn) ImGui::TextDisabled("... and %d more nodes", c.nodes - drawn);
  ImGui::EndChild();
}

}  // namespace

void draw_cluster_panel(AppState& state, const PanelRect& rect) {
  if (begin_panel(state, kClusterWindow, "cluster", rect)) {
    draw_cluster_form(state);
    draw_gpu_and_links(state);
    draw_devices(state);
  }
  ImGui::End();
}

}  // namespace autopar::web
