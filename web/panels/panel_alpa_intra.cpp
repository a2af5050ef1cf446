// The Alpa intra-op panel (Alpa section 4): the logical mesh and its per-axis costs, the solver
// and its time, per op the chosen parallel algorithm with its input and output sharding specs
// drawn on the device mesh, the plan's totals, and the resharding costs of a chosen tensor
// between every pair of specs (the paper's Table 2 priced on this mesh).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "format_units.h"
#include "imgui.h"
#include "mesh_position.h"
#include "panel_common.h"
#include "panels.h"

namespace autopar::web {
namespace {

const char* const kSolvers[] = {"auto", "ilp", "dp", "exhaustive"};

// Colour of shard `i` of `n` (one hue per shard; a replicated tensor is slate blue).
ImU32 shard_color(int i, int n) {
  if (n <= 1) return IM_COL32(96, 118, 150, 255);
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(std::fmod(0.58f + float(i) / float(n), 1.0f), 0.55f, 0.92f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1.0f));
}

}  // namespace

void draw_spec_grid(const std::string& label, const std::vector<uint8_t>& dims, int rows, int cols, float cell) {
  const int n = shard_count(dims, rows, cols);
  ImGui::BeginGroup();
  // The label sits left of the grid, centred on it, so a table row is one grid tall (more ops
  // fit on a short screen than with the label above).
  const float grid_h = float(rows) * cell, text_h = ImGui::GetTextLineHeight();
  const ImVec2 start = ImGui::GetCursorPos();
  ImGui::SetCursorPosY(start.y + std::max(0.0f, (grid_h - text_h) * 0.5f));
  ImGui::TextUnformatted(label.c_str());
  ImGui::SameLine(0, ImGui::GetFontSize() * 0.3f);
  ImGui::SetCursorPosY(start.y + std::max(0.0f, (text_h - grid_h) * 0.5f));
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const int shard = shard_of_device(dims, r, c, rows, cols);
      const ImVec2 a(p.x + float(c) * cell, p.y + float(r) * cell);
      // Square corners: a rounded rectangle is about six times the vertices, and a table in
      // view holds a thousand of these squares.
      dl->AddRectFilled(ImVec2(a.x + 1, a.y + 1), ImVec2(a.x + cell - 1, a.y + cell - 1), shard_color(shard, n));
    }
  ImGui::Dummy(ImVec2(float(cols) * cell, float(rows) * cell));
  ImGui::EndGroup();
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::Text(tr(n == 1 ? "intra.one_shard" : "intra.shards"), label.c_str(), n, rows, cols);
    for (int r = 0; r < rows; ++r) {
      std::string line;
      for (int c = 0; c < cols; ++c) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%sdev %d: shard %d", c ? ",  " : "", mesh_position_device(r, c, cols), shard_of_device(dims, r, c, rows, cols));
        line += buf;
      }
      ImGui::TextDisabled("%s", line.c_str());
    }
    ImGui::EndTooltip();
  }
}

namespace {

void draw_mesh_section(AppState& state, const IntraOpPlan* plan) {
  section_header(tr("intra.mesh_section"));
  const std::vector<std::string> shapes = mesh_shapes(state.cluster.num_devices());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  if (ImGui::BeginCombo(tr_id("intra.mesh_shape").c_str(), state.settings.mesh.c_str())) {
    for (const auto& m : shapes)
      if (ImGui::Selectable(m.c_str(), m == state.settings.mesh)) {
        Settings next = state.settings;
        next.mesh = m;
        apply_from_ui(state, next, tr_fill("notice.mesh", {m}));
      }
    ImGui::EndCombo();
  }
  help_marker(tr("intra.mesh_help"));
  IntraOpView& view = state.alpa.intra;
  int costs = view.alpa_costs ? 1 : 0;
  ImGui::RadioButton(tr_id("intra.cluster_links").c_str(), &costs, 0);
  ImGui::SameLine();
  ImGui::RadioButton(tr_id("intra.alpha_beta").c_str(), &costs, 1);
  view.alpa_costs = costs == 1;
  help_marker(tr("intra.costs_help"));
  if (view.alpa_costs) {
    const float w = ImGui::GetFontSize() * 9;
    const double lo = 0;
    ImGui::SetNextItemWidth(w);
    if (ImGui::InputScalarN(tr_id("intra.alpha").c_str(), ImGuiDataType_Double, view.alpha, 2, nullptr, nullptr, "%g"))
      for (double& a : view.alpha) a = std::clamp(a, lo, 1e12);
    ImGui::SetNextItemWidth(w);
    if (ImGui::InputScalarN(tr_id("intra.beta").c_str(), ImGuiDataType_Double, view.beta, 2, nullptr, nullptr, "%g"))
      for (double& b : view.beta) b = std::clamp(b, lo, 1e12);
  }
  if (!plan) return;
  const DeviceMesh& mesh = plan->mesh;
  if (ImGui::BeginTable("##axes", 5, ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn(tr("intra.col_axis"));
    ImGui::TableSetupColumn(tr("intra.col_devices"));
    ImGui::TableSetupColumn(tr("intra.col_alpha"));
    ImGui::TableSetupColumn(tr("intra.col_beta"));
    ImGui::TableSetupColumn(tr("intra.col_link"));
    ImGui::TableHeadersRow();
    for (int a = 0; a < 2; ++a) {
      const MeshAxis& ax = mesh.axis[a];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d (%s)", a, tr(a == 0 ? "intra.rows" : "intra.cols"));
      ImGui::TableNextColumn();
      ImGui::Text("%d", ax.size);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(mesh.unitless ? format_number(ax.alpha).c_str() : format_ms(ax.alpha).c_str());
      ImGui::TableNextColumn();
      if (mesh.unitless || ax.beta <= 0) ImGui::TextUnformatted(format_number(ax.beta).c_str());
      else ImGui::Text("%s GB/s", format_number(1e-6 / ax.beta, 3).c_str());
      ImGui::TableNextColumn();
      if (ax.size <= 1) ImGui::TextDisabled("%s", tr("intra.single_device"));
      else if (mesh.alpa_conventions()) ImGui::TextDisabled("%s", tr("intra.given"));
      else ImGui::TextUnformatted(tr(ax.crosses_nodes ? "ex4.across" : "ex4.inside"));
    }
    ImGui::EndTable();
  }
}

void draw_solver_section(AppState& state, const IntraOpPlan* plan) {
  section_header(tr("intra.solver_section"));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  if (ImGui::BeginCombo(tr_id("intra.solver").c_str(), state.alpa.intra.solver.c_str())) {
    for (const char* s : kSolvers)
      if (ImGui::Selectable(s, state.alpa.intra.solver == s)) state.alpa.intra.solver = s;
    ImGui::EndCombo();
  }
  help_marker(tr("intra.solver_help"));
  ImGui::Checkbox(tr_id("intra.reduce_scatter").c_str(), &state.alpa.intra.reduce_scatter);
  help_marker(tr("intra.reduce_scatter_help"));
  ImGui::SameLine();
  ImGui::Checkbox(tr_id("intra.remat").c_str(), &state.alpa.intra.remat);
  help_marker(tr("intra.remat_help"));
  if (!plan) return;
  ImGui::SameLine();
  ImGui::TextDisabled(tr("intra.solved_in"), plan->solution.solver.c_str(), plan->solution.status.c_str(),
                      format_ms(plan->solve_ms).c_str());
  if (!plan->memory.fits) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.35f, 0.35f, 1.0f));
    ImGui::TextWrapped(tr("intra.does_not_fit"),
                       format_bytes(plan->memory.total_bytes).c_str(), format_bytes(plan->memory.capacity_bytes).c_str());
    ImGui::PopStyleColor();
  } else if (plan->memory.capacity_bytes > 0) {
    ImGui::TextDisabled(tr("intra.fits"), format_bytes(plan->memory.total_bytes).c_str(), format_bytes(plan->memory.capacity_bytes).c_str(),
                        plan->memory.zero_stage, plan->memory.remat ? tr("intra.with_remat") : "");
  }
  auto cost = [&](double v) { return plan->mesh.unitless ? format_number(v) : format_ms(v); };
  if (ImGui::BeginTable("##totals", 4, ImGuiTableFlags_SizingStretchSame)) {
    const std::pair<const char*, std::string> cells[] = {{tr("intra.objective"), cost(plan->objective)},
                                                         {tr("intra.communication"), cost(plan->communication_cost)},
                                                         {tr("intra.resharding"), cost(plan->resharding_cost)},
                                                         {tr("intra.memory"), format_bytes(plan->memory_per_device)}};
    for (const auto& [label, value] : cells) {
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", label);
      ImGui::PushStyleColor(ImGuiCol_Text, kAccentText);
      ImGui::TextUnformatted(value.c_str());
      ImGui::PopStyleColor();
    }
    ImGui::EndTable();
  }
  const CollectiveCounts& c = plan->collectives;
  ImGui::TextWrapped(tr("intra.collectives"), c.all_reduce,
                     c.all_gather, c.reduce_scatter, c.all_to_all);
  help_marker(tr("intra.collectives_help"));
  const bool alpa = plan->mesh.alpa_conventions();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped(tr("intra.adam"), format_bytes(plan->optimizer_memory_per_device).c_str(),
                     tr(alpa ? "intra.alpa_conventions" : "intra.cluster_costs"),
                     alpa && plan->penalty_cost > 0 ? tr("intra.penalty") : "",
                     alpa && plan->penalty_cost > 0 ? format_number(plan->penalty_cost).c_str() : "");
  ImGui::PopStyleColor();
  help_marker(tr("intra.conventions_help"));
}

// Side of one device square in the spec grids: smaller for bigger meshes, within readable bounds.
float spec_cell_size(const IntraOpPlan& plan) {
  return std::clamp(ImGui::GetFontSize() * 0.8f * 8.0f / float(std::max(plan.mesh.rows(), plan.mesh.cols())),
                    ImGui::GetFontSize() * 0.45f, ImGui::GetFontSize() * 0.8f);
}

// Height the per-op table needs to show `visible_rows` ops: the header, then rows as tall as a
// spec grid (its label beside the mesh squares; see draw_spec_grid).
float ops_table_height(const IntraOpPlan& plan, int visible_rows) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float row = std::max(ImGui::GetTextLineHeight(), float(plan.mesh.rows()) * spec_cell_size(plan)) + st.CellPadding.y * 2 + 1;
  return ImGui::GetFrameHeight() + st.CellPadding.y * 2 + row * float(visible_rows);
}

// One row of the per-op table: op `v`'s name, chosen algorithm, input and output specs on the
// mesh, and cost.
void draw_op_row(AppState& state, const IntraOpPlan& plan, size_t v, float cell) {
  const Graph& g = state.graph;
  const int rows = plan.mesh.rows(), cols = plan.mesh.cols();
  const OpStrategy& s = plan.strategies[v][size_t(plan.solution.choice[v])];
  const IntraOpChoice& choice = state.alpa.intra.ops[v];   // its specs as text
  ImGui::PushID(int(v));
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  const bool selected = state.alpa.intra.reshard_op == int(v);
  if (ImGui::Selectable(g.ops[v].name().c_str(), selected, ImGuiSelectableFlags_None)) state.alpa.intra.reshard_op = int(v);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s, %zu candidate algorithms. Click: show the resharding table of its output.",
                                                op_kind_name(g.ops[v].spec.kind), plan.strategies[v].size());
  ImGui::TableNextColumn();
  const bool follows = s.name.rfind("follow", 0) == 0;
  if (follows) ImGui::TextDisabled("%s", s.name.c_str());
  else ImGui::TextUnformatted(s.name.c_str());
  ImGui::TableNextColumn();
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    if (i) ImGui::SameLine(0, ImGui::GetFontSize() * 0.9f);
    draw_spec_grid(choice.input_specs[i], s.inputs[i].dims, rows, cols, cell);
    if (i + 1 == g.ops[v].inputs.size() && i + 1 < s.inputs.size()) {
      // Between the data inputs and the parameters.
      ImGui::SameLine(0, ImGui::GetFontSize() * 0.9f);
      ImGui::TextDisabled("|");
    }
  }
  ImGui::TableNextColumn();
  draw_spec_grid(choice.output_spec, s.output.dims, rows, cols, cell);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(plan.mesh.unitless ? format_number(s.cost()).c_str() : format_ms(s.cost()).c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(tr("intra.cost_tip"), format_number(s.forward_comm).c_str(),
                      format_number(s.backward_comm).c_str(), format_number(s.grad_sync).c_str(), format_number(s.input_reshard).c_str());
  ImGui::PopID();
}

void draw_ops_table(AppState& state, const IntraOpPlan& plan, float height) {
  const int cols = plan.mesh.cols();
  const float cell = spec_cell_size(plan);
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
  // A new table per plan, so that the fixed column widths follow the new names.
  ImGui::PushID(state.alpa.intra.key.c_str());
  const bool open = ImGui::BeginTable("##intra_ops", 5, flags, ImVec2(0, height));
  ImGui::PopID();
  if (!open) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  const Graph& g = state.graph;
  const size_t ops = std::min(g.ops.size(), state.alpa.intra.ops.size());
  float name_w = ImGui::CalcTextSize(tr("ex3.col_op")).x, algo_w = ImGui::CalcTextSize(tr("intra.col_algorithm")).x;
  for (size_t v = 0; v < ops; ++v) {
    name_w = std::max(name_w, ImGui::CalcTextSize(g.ops[v].name().c_str()).x);
    algo_w = std::max(algo_w, ImGui::CalcTextSize(plan.strategies[v][size_t(plan.solution.choice[v])].name.c_str()).x);
  }
  const float pad = ImGui::GetStyle().CellPadding.x * 2 + 2;
  const float grid_w = ImGui::CalcTextSize("S01S01R").x + ImGui::GetFontSize() * 0.3f + float(cols) * cell;
  ImGui::TableSetupColumn(tr("ex3.col_op"), ImGuiTableColumnFlags_WidthFixed, name_w + pad);
  ImGui::TableSetupColumn(tr("intra.col_algorithm"), ImGuiTableColumnFlags_WidthFixed, algo_w + pad);
  ImGui::TableSetupColumn(tr("intra.col_inputs"), ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn(tr("intra.col_output"), ImGuiTableColumnFlags_WidthFixed, grid_w + pad);
  ImGui::TableSetupColumn(tr("intra.col_cost"), ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("000.000 ms").x + pad);
  ImGui::TableHeadersRow();
  // Only the rows in view are drawn: a row's spec grids are rectangles added straight to the
  // draw list, which ImGui does not clip, and a 48-layer transformer's 700 rows made 1.2 million
  // vertices a frame (a second per frame with a software WebGL). The rows are equally tall.
  ImGuiListClipper clipper;
  clipper.Begin(int(ops));
  while (clipper.Step())
    for (int v = clipper.DisplayStart; v < clipper.DisplayEnd; ++v) draw_op_row(state, plan, size_t(v), cell);
  ImGui::EndTable();
}

int default_reshard_op(const Graph& g) {
  for (size_t v = 0; v < g.ops.size(); ++v)
    if (g.ops[v].output.shape.size() == 2) return int(v);
  return g.ops.empty() ? -1 : 0;
}

void draw_reshard_table(AppState& state, const IntraOpPlan& plan, float height) {
  const Graph& g = state.graph;
  int& op = state.alpa.intra.reshard_op;
  if (op < 0 || op >= int(g.ops.size())) op = default_reshard_op(g);
  if (op < 0) return;
  const Tensor& t = g.ops[size_t(op)].output;
  section_header(tr("intra.reshard_section"));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
  if (ImGui::BeginCombo(tr_id("intra.tensor").c_str(), g.ops[size_t(op)].name().c_str())) {
    for (size_t v = 0; v < g.ops.size(); ++v)
      if (ImGui::Selectable(g.ops[v].name().c_str(), int(v) == op)) op = int(v);
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  // The table of every pair (`autopar reshard --table`), computed once per plan and tensor.
  IntraOpView& view = state.alpa.intra;
  const std::string table_key = view.key + "|" + std::to_string(op);
  if (view.reshard_table_key != table_key) {
    view.reshard_table = reshard_table_operation(t.shape, dtype_bytes(t.dtype), plan.mesh);
    view.reshard_table_key = table_key;
  }
  const std::vector<std::string>& specs = view.reshard_table->specs;
  const std::string& chosen = view.ops[size_t(op)].output_spec;
  ImGui::TextDisabled(tr("intra.reshard_note"), shape_to_string(t.shape).c_str(),
                      format_bytes(double(num_elements(t.shape)) * dtype_bytes(t.dtype)).c_str(), specs.size(), chosen.c_str());
  const int n = int(specs.size());
  if (n == 0 || n > 48) return;
  std::vector<double> cost(size_t(n) * size_t(n));
  std::vector<std::string> how(size_t(n) * size_t(n));
  double max_cost = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const ReshardPlan& p = view.reshard_table->plans[size_t(i * n + j)];
      cost[size_t(i * n + j)] = p.cost;
      std::string& h = how[size_t(i * n + j)];
      for (const ReshardStep& st : p.steps) {
        if (!h.empty()) h += " + ";
        h += st.collective;
        if (!st.axes.empty()) h += " (axis " + std::to_string(st.axes[0]) + ")";
      }
      max_cost = std::max(max_cost, p.cost);
    }
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingFixedFit;
  // Fill what is left of the panel, but never less than a few rows: the panel scrolls instead.
  if (height <= 0) height = std::max(ImGui::GetFrameHeightWithSpacing() * 7, ImGui::GetContentRegionAvail().y);
  if (!ImGui::BeginTable("##reshard", n + 1, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn(tr("intra.from_to"));
  for (const auto& s : specs) ImGui::TableSetupColumn(s.c_str());
  ImGui::TableHeadersRow();
  for (int i = 0; i < n; ++i) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const bool is_chosen = specs[size_t(i)] == chosen;
    if (is_chosen) ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, IM_COL32(60, 90, 140, 255));
    ImGui::TextUnformatted(specs[size_t(i)].c_str());
    for (int j = 0; j < n; ++j) {
      ImGui::TableNextColumn();
      const double c = cost[size_t(i * n + j)];
      if (max_cost > 0 && c > 0) {
        const float heat = float(std::sqrt(c / max_cost));
        ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, IM_COL32(int(40 + 150 * heat), int(52 + 40 * (1 - heat)), 60, 255));
      } else if (is_chosen) {
        ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, IM_COL32(40, 60, 90, 255));
      }
      if (i == j) ImGui::TextDisabled("-");
      else if (c == 0) ImGui::TextDisabled("0");
      else ImGui::TextUnformatted(plan.mesh.unitless ? format_number(c, 3).c_str() : format_ms(c).c_str());
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s -> %s: %s", specs[size_t(i)].c_str(), specs[size_t(j)].c_str(),
                          how[size_t(i * n + j)].c_str());
    }
  }
  ImGui::EndTable();
}

}  // namespace

void draw_intra_panel(AppState& state, const PanelRect& rect) {
  if (!begin_panel(state, kIntraWindow, "intra", rect)) {
    ImGui::End();
    return;
  }
  // The plan is computed in the page's worker; the frames never wait for the solve.
  const AlpaInputs inputs = alpa_inputs(state);
  request_intra_plan(state.alpa.intra, inputs, state.alpa.inter.worker);
  take_intra_plan(state.alpa.intra, inputs, state.graph, state.cluster);
  const IntraOpView& view = state.alpa.intra;
  const bool current = view.key == intra_key(inputs);
  const IntraOpPlan* plan = view.plan && current ? &*view.plan : nullptr;
  // On a short window (1024x640) the explanations fold into (?) markers so that 8 ops of the
  // per-op table stay on screen without scrolling the panel.
  const bool short_window = ImGui::GetWindowHeight() < ImGui::GetFontSize() * 38;
  const char* intro = tr("intra.intro");
  if (!short_window) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", intro);
    ImGui::PopStyleColor();
  }
  if (ImGui::BeginTable("##intra_top", 2, ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableNextColumn();
    draw_mesh_section(state, plan);
    ImGui::TableNextColumn();
    draw_solver_section(state, plan);
    ImGui::EndTable();
  }
  if (intra_planning(view) && !current) ImGui::TextDisabled("%s", tr("intra.planning"));
  if (view.error && current) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.55f, 1.0f));
    ImGui::TextWrapped(tr("intra.failed"), view.error->message.c_str());
    ImGui::PopStyleColor();
  }
  if (plan) {
    const char* per_op_title = tr("intra.per_op_short");
    if (!short_window) section_header(tr("intra.per_op"));
    const std::string legend = tr_fill("intra.legend", {plan->mesh.shape_string()});
    if (short_window) {
      // section_header with the explanations behind a (?) on the same line.
      ImGui::Spacing();
      ImGui::TextColored(kAccentText, "%s", per_op_title);
      help_marker((std::string(intro) + "\n\n" + legend).c_str());
      ImGui::Separator();
    } else {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("%s", legend.c_str());
      ImGui::PopStyleColor();
    }
    const float avail = ImGui::GetContentRegionAvail().y;
    const float reshard_h = std::max(ImGui::GetFrameHeightWithSpacing() * 6, avail * 0.36f);
    // At least 8 ops stay visible (all of them when fewer) at any window size; a short window
    // scrolls the panel rather than squeezing the table (issue 11: 2 rows at 1280x720).
    const int ops = int(state.graph.ops.size());
    const float min_ops_h = ops_table_height(*plan, std::min(8, std::max(1, ops)));
    const float want_ops_h = std::min(ops_table_height(*plan, std::max(1, ops)), avail - reshard_h - ImGui::GetFrameHeightWithSpacing() * 2.5f);
    draw_ops_table(state, *plan, std::max(min_ops_h, want_ops_h));
    draw_reshard_table(state, *plan, 0);
  }
  ImGui::End();
}

}  // namespace autopar::web
