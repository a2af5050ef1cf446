// The page's panels compiled natively and drawn over a real AppState (Dear ImGui without a
// window: the frames end in ImDrawData, which the test reads instead of a GPU). ./test.sh runs it
// under AddressSanitizer and UndefinedBehaviorSanitizer, which the WebAssembly page never is.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app_state.h"
#include "background_work.h"
#include "exercise_grading.h"
#include "imgui.h"
#include "imgui_internal.h"
#include "native_hooks.h"
#include "page_strings.h"
#include "panel_registry.h"
#include "panel_table.h"
#include "schedules_state.h"
#include "panels.h"
#include "task_kind_style.h"
#include "trace_export.h"
#include "ui_style.h"

namespace {

using namespace autopar;
using namespace autopar::web;

const ImVec2 kDisplay(1600, 1000);
const ImVec2 kNoMouse(-FLT_MAX, -FLT_MAX);

// One Dear ImGui context for the whole run, as the page has: the style and font atlas of
// ui_style.cpp (Dear ImGui's built-in font natively), built as the renderer would.
void ensure_context() {
  if (ImGui::GetCurrentContext()) return;
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = kDisplay;
  apply_ui_style(1.0f);
  unsigned char* pixels = nullptr;
  int width = 0, height = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
  REQUIRE(pixels != nullptr);
  REQUIRE(width > 0);
}

// The text a window drew, read back from its draw list as the screen shows it: a glyph is a quad
// whose first vertex has the glyph's top-left atlas coordinates and whose third its bottom-right
// (ImDrawList::PrimRectUV). Spaces draw nothing, so they are dropped; lines end in '\n'.
// (ImGui's own log cannot be used: ImGui::End of any root window ends it, tooltips included.)
std::string drawn_text(const ImGuiWindow& w) {
  const ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
  std::map<std::pair<float, float>, const ImFontGlyph*> by_uv;
  for (const ImFontGlyph& g : font->Glyphs)
    if (g.Visible) by_uv[{g.U0, g.V0}] = &g;
  std::string out;
  const ImVector<ImDrawVert>& v = w.DrawList->VtxBuffer;
  float line_y = -FLT_MAX;
  for (int i = 0; i + 3 < v.Size;) {
    const auto it = by_uv.find({v[i].uv.x, v[i].uv.y});
    if (it == by_uv.end() || v[i + 2].uv.x != it->second->U1 || v[i + 2].uv.y != it->second->V1) {
      ++i;
      continue;
    }
    if (v[i].pos.y > line_y + font->FontSize * 0.5f && !out.empty()) out += '\n';
    line_y = v[i].pos.y;
    const unsigned c = it->second->Codepoint;
    if (c < 0x80) out += char(c);
    else out += '?';   // the test's texts are English, ASCII
    i += 4;
  }
  return out;
}

// The text of the tooltip shown in the last frame, spaces dropped; empty when none was shown.
std::string tooltip_text() {
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
    if (w->Active && (w->Flags & ImGuiWindowFlags_Tooltip)) return drawn_text(*w);
  return "";
}

// `s` without its spaces, as drawn_text reads text back.
std::string unspaced(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

// One frame as the page's main loop draws it (a slice of background work, the app, Render)
// with the mouse at `mouse`; with `log`, the text of the tooltip the frame showed (empty: none).
const ImDrawData& draw_frame(AppState& state, ImVec2 mouse = kNoMouse, std::string* log = nullptr) {
  ensure_context();
  ImGuiIO& io = ImGui::GetIO();
  io.DeltaTime = 1.0f / 60.0f;
  io.MousePos = mouse;
  advance_background_work(state, 8.0);
  ImGui::NewFrame();
  draw_app_frame(state, 1.0f);
  ImGui::Render();
  if (log) *log = tooltip_text();
  return *ImGui::GetDrawData();
}

// Puts `panel` in front and draws a few frames.
void show_panel(AppState& state, const char* panel, int frames = 3) {
  state.settings.panel = panel;
  state.focus_panel_pending = true;
  for (int i = 0; i < frames; ++i) draw_frame(state);
}

// A fresh page state with `model` loaded and recomputation set to `remat`.
void load(AppState& state, const std::string& model, bool remat) {
  REQUIRE(init_app_state(state).ok());
  Settings next = state.settings;
  next.model = model;
  next.remat = remat;
  const Status s = apply_settings(state, next);
  INFO(state.notice.text);
  REQUIRE(s.ok());
}

ImGuiWindow* window_of(const char* title_key) { return ImGui::FindWindowByName((std::string("###") + title_key).c_str()); }

// The window layout the last frame used, from the menu bar, tab strip and notice bar it drew.
AppLayout last_layout() {
  ImGuiWindow* menu = ImGui::FindWindowByName("##MainMenuBar");
  REQUIRE(menu);
  return frame_layout(menu->Size.y, 1.0f);
}

// What a draw command puts on screen: the bounding box of its vertices cut by its clip
// rectangle (x0, y0, x1, y1); empty (x1 <= x0) when nothing of it shows.
ImVec4 visible_area(const ImDrawList& dl, const ImDrawCmd& cmd) {
  ImVec4 box(FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX);
  for (unsigned e = cmd.IdxOffset; e < cmd.IdxOffset + cmd.ElemCount; ++e) {
    const ImDrawVert& v = dl.VtxBuffer[int(cmd.VtxOffset + dl.IdxBuffer[int(e)])];
    box = ImVec4(std::min(box.x, v.pos.x), std::min(box.y, v.pos.y), std::max(box.z, v.pos.x), std::max(box.w, v.pos.y));
  }
  return ImVec4(std::max(box.x, cmd.ClipRect.x), std::max(box.y, cmd.ClipRect.y), std::min(box.z, cmd.ClipRect.z),
                std::min(box.w, cmd.ClipRect.w));
}

bool inside(const ImVec4& area, ImVec2 min, ImVec2 max) {
  const float slack = 1.5f;   // a border drawn on the rectangle's edge, with its anti-aliasing fringe
  return area.x >= min.x - slack && area.y >= min.y - slack && area.z <= max.x + slack && area.w <= max.y + slack;
}

// Checks that the panel drawn in window `title_key` drew something, at `rect`, and nothing
// outside it: what every draw command of it and of its child windows shows lies in the rectangle.
void check_panel_window(const char* title_key, const PanelRect& rect) {
  INFO("window ", std::string(title_key));
  ImGuiWindow* w = window_of(title_key);
  REQUIRE(w != nullptr);
  CHECK(w->Active);
  CHECK(w->Pos.x == doctest::Approx(rect.pos.x));
  CHECK(w->Pos.y == doctest::Approx(rect.pos.y));
  CHECK(w->Size.x == doctest::Approx(rect.size.x));
  CHECK(w->Size.y == doctest::Approx(rect.size.y));
  CHECK(w->DrawList->VtxBuffer.Size > 0);
  const ImVec2 max(rect.pos.x + rect.size.x, rect.pos.y + rect.size.y);
  int commands = 0;
  for (ImGuiWindow* c : ImGui::GetCurrentContext()->Windows) {
    if (c->RootWindow != w || !c->Active) continue;   // tooltips and popups are windows of their own
    for (const ImDrawCmd& cmd : c->DrawList->CmdBuffer) {
      if (cmd.ElemCount == 0) continue;
      ++commands;
      const ImVec4 area = visible_area(*c->DrawList, cmd);
      if (area.z <= area.x || area.w <= area.y) continue;   // clipped away
      INFO("draw list of ", std::string(c->Name), " shows ", area.x, ",", area.y, " .. ", area.z, ",", area.w);
      CHECK(inside(area, rect.pos, max));
    }
  }
  CHECK(commands > 0);
}

// The counts by kind of the spans a folded box stands for, read from the lanes themselves.
std::array<int, kTaskKindCount> kinds_in(const TimelineLanes& lanes, const TimelineBox& box) {
  std::array<int, kTaskKindCount> n{};
  for (int k = 0; k < box.count; ++k) ++n[size_t(lanes.spans[size_t(box.lane)][size_t(box.first_span + k)].kind)];
  return n;
}

}  // namespace

TEST_CASE("every panel-table entry owns a draw function and a rectangle of its own") {
  const std::vector<PanelEntry>& table = panel_table();
  const std::vector<PanelDraw>& draws = panel_draws();
  REQUIRE(draws.size() == table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    INFO("entry ", i, ": ", table[i].panel);
    CHECK(std::string(draws[i].panel) == table[i].panel);
    CHECK(bool(draws[i].draw));
    CHECK(bool(draws[i].rect));
    // No two panels share a rectangle (the Alpa tabs once drew into the Search tab's).
    for (size_t j = 0; j < i; ++j) CHECK_MESSAGE(bool(draws[j].rect != draws[i].rect), table[j].panel, " and ", table[i].panel);
  }
}

TEST_CASE("every task kind has a style row, a label in both languages and its own colour") {
  std::set<ImU32> colors;
  for (int k = 0; k < kTaskKindCount; ++k) {
    const TaskKindStyle& s = task_kind_style(TaskKind(k));
    INFO("kind ", task_kind_name(TaskKind(k)));
    CHECK(int(s.kind) == k);
    for (Language lang : {Language::en, Language::zh}) CHECK(std::string(tr_in(lang, s.label)) != s.label);
    colors.insert(s.color);
  }
  CHECK(colors.size() == size_t(kTaskKindCount));
  CHECK(std::string(tr_in(Language::en, task_kind_pass_label(TaskKind::transfer, false))) == "transfer (gradient)");
}

TEST_CASE("every panel draws inside its own window, for alexnet and a transformer with recomputation") {
  for (const auto& choice : {std::pair{std::string("alexnet"), false}, std::pair{std::string("transformer:layers=2"), true}}) {
    const std::string model = choice.first;
    const bool remat = choice.second;
    INFO("model ", std::string(model), remat ? " with recomputation" : "");
    AppState state;
    load(state, model, remat);
    native_hook_calls() = {};
    for (size_t i = 0; i < panel_table().size(); ++i) {
      const PanelEntry& entry = panel_table()[i];
      show_panel(state, entry.panel);
      CHECK(state.shown_tab == entry.tab);
      const AppLayout layout = last_layout();
      // Every panel of the tab in front is drawn, each at its own rectangle.
      for (size_t j = 0; j < panel_table().size(); ++j)
        if (panel_table()[j].tab == entry.tab) check_panel_window(panel_table()[j].window_title, layout.*panel_draws()[j].rect);
      INFO("notice: ", state.notice.text);
      CHECK(state.notice.level == NoticeLevel::info);
    }
    // Drawing is all the panels did: no download, link or file picker was asked for.
    CHECK(native_hook_calls().downloads.empty());
    CHECK(native_hook_calls().copy_link == 0);
    CHECK(native_hook_calls().pick_model_file == 0);
  }
}

TEST_CASE("the Exercises panel draws every exercise with its answer, tables and timeline shown") {
  AppState state;
  load(state, "alexnet", false);
  for (int n = 1; n <= kExerciseCount; ++n) {
    INFO("exercise ", n);
    state.exercises.shown = n;
    refresh_exercise_data(state);
    const size_t parts = exercise_parts(state, n).size();
    CHECK(parts > 0);
    // The answer is revealed only after a real attempt: a wrong answer in every box first.
    CHECK(!reveal_exercise(state).ok());
    for (size_t k = 0; k < parts; ++k) state.exercises.answers[size_t(n - 1)][k] = "zz";
    check_exercise(state);
    CHECK(reveal_exercise(state).ok());
    show_panel(state, "exercises");
    // Exercise 5's last row and exercise 6's whole walk are drawn too.
    state.exercises.ex5_rows_shown = int(state.exercises.ex5.dp.best.size());
    state.exercises.ex6_steps_shown = 1 << 20;
    show_panel(state, "exercises");
    check_panel_window(kExercisesWindow, last_layout().exercises);
    INFO("notice: ", state.notice.text);
    CHECK(state.notice.level == NoticeLevel::info);
  }
}

TEST_CASE("hovering a folded timeline box lists its tasks by kind, recompute tasks included") {
  AppState state;
  // 16 layers: about 480 compute tasks per GPU lane on a chart under 1,000 pixels, so runs of
  // them fold.
  load(state, "transformer:layers=16", true);
  show_panel(state, "timeline");
  const TimelineLanes& lanes = state.flexflow.lanes;
  // A folded box that stands for recompute tasks (recompute is the last kind: an array of the
  // first four kinds' counts was once written past its end here).
  const DrawnTimelineBox* target = nullptr;
  for (const DrawnTimelineBox& d : timeline_drawn_boxes())
    if (d.box.count > 1 && kinds_in(lanes, d.box)[size_t(TaskKind::recompute)] > 0 && d.max.x - d.min.x >= 2) {
      target = &d;
      break;
    }
  REQUIRE_MESSAGE(target != nullptr, "no folded box holds a recompute task: ", timeline_drawn_boxes().size(), " boxes");
  const TimelineBox box = target->box;
  const ImVec2 centre((target->min.x + target->max.x) * 0.5f, (target->min.y + target->max.y) * 0.5f);
  const std::array<int, kTaskKindCount> expected = kinds_in(lanes, box);

  draw_frame(state, centre);   // the mouse arrives over the box
  std::string text;
  draw_frame(state, centre, &text);
  INFO("tooltip text:\n", text);
  char folded[96];
  std::snprintf(folded, sizeof folded, tr("timeline.folded"), box.count);
  CHECK(text.find(unspaced(folded)) != std::string::npos);
  int listed = 0;
  for (int k = 0; k < kTaskKindCount; ++k) {
    const std::string line = std::to_string(expected[size_t(k)]) + " " + tr(task_kind_style(TaskKind(k)).label);
    if (expected[size_t(k)] > 0) {
      CHECK_MESSAGE(text.find(unspaced(line)) != std::string::npos, "missing: ", line);
      listed += expected[size_t(k)];
    }
  }
  CHECK(listed == box.count);
}

TEST_CASE("hovering a single timeline box shows the task's name and kind") {
  AppState state;
  load(state, "transformer:layers=2", true);
  state.settings.panel = "timeline";
  // Zoomed in on the first tenth of the iteration, so that boxes are wide enough to stand alone.
  show_panel(state, "timeline");
  state.timeline.t0_ms = 0;
  state.timeline.t1_ms = state.flexflow.summary.makespan_ms * 0.1;
  state.timeline.fit = false;
  draw_frame(state);
  const DrawnTimelineBox* target = nullptr;
  for (const DrawnTimelineBox& d : timeline_drawn_boxes())
    if (d.box.count == 1 && d.max.x - d.min.x > 6) {
      target = &d;
      break;
    }
  REQUIRE(target != nullptr);
  const ImVec2 centre((target->min.x + target->max.x) * 0.5f, (target->min.y + target->max.y) * 0.5f);
  const Task& task = state.flexflow.task_graph->tasks()[size_t(state.flexflow.lanes.spans[size_t(target->box.lane)][size_t(target->box.first_span)].task)];
  draw_frame(state, centre);
  std::string text;
  draw_frame(state, centre, &text);
  INFO("tooltip text:\n", text);
  CHECK(text.find(unspaced(task_name(*state.flexflow.task_graph, task))) != std::string::npos);
  CHECK(text.find(unspaced(tr(task_kind_pass_label(task.kind, task.forward_pass)))) != std::string::npos);
}

TEST_CASE("the inter-op panel plans by itself and shows the terms of the total, the bubble and why 1F1B is slower") {
  AppState state;
  REQUIRE(init_app_state(state).ok());
  Settings next = state.settings;
  next.model = "transformer:layers=24";
  next.cluster = "lecture:4x8";
  next.mesh = "4x8";
  next.microbatches = 32;
  REQUIRE(apply_settings(state, next).ok());
  // No Plan pressed: the tab in front plans its inputs.
  show_panel(state, "inter");
  CHECK(inter_planning(state.alpa.inter));
  // main.cpp counts the frames; advance_inter_plan works once per counted frame.
  for (int k = 0; k < 20000 && inter_planning(state.alpa.inter); ++k) {
    ++state.frame_stats.frames;
    draw_frame(state);
  }
  INFO("plan error: ", state.alpa.inter.error ? state.alpa.inter.error->message : std::string("none"), "; key ", state.alpa.inter.key,
       "; inputs ", inter_key(alpa_inputs(state)), "; notice ", state.notice.text);
  REQUIRE(current_inter_plan(state.alpa.inter, alpa_inputs(state)) != nullptr);
  draw_frame(state);
  check_panel_window(kInterWindow, last_layout().inter);
  const std::string drawn = drawn_text(*window_of(kInterWindow));
  INFO("inter-op panel text:\n", drawn);
  std::string text;   // wrapped lines joined
  for (char c : drawn)
    if (c != '\n') text += c;
  // The terms a reader adds up, t_max marked, the sum redone, and the sentence under the charts.
  CHECK(text.find("=t_max") != std::string::npos);
  CHECK(text.find("Byhand:") != std::string::npos);
  CHECK(text.find("Why1F1Btakeslongerhere") != std::string::npos);
  CHECK(text.find(unspaced(tr("inter.idle_legend"))) != std::string::npos);
}

TEST_CASE("the Schedules panel draws two 8 x 64 schedules with the CLI's figures, plays, and plans the pipeline it shows") {
  AppState state;
  REQUIRE(init_app_state(state).ok());
  REQUIRE(apply_settings_json(state, R"({"schedules":{"first":"1f1b","second":"zb-h1","devices":8,"microbatches":64,"time":0}})").ok());
  show_panel(state, "schedules");
  check_panel_window("window.schedules", last_layout().schedules);
  REQUIRE(state.schedules.report);
  CHECK(state.schedules.drawn_revision == state.schedules.revision);
  // The figures table shows each makespan as the CLI prints it (%.4g): 1F1B 8 x 64 with F 1, B 2
  // is 64 x 3 + 7 x 3 = 213.
  const std::string text = drawn_text(*window_of("window.schedules"));
  CHECK(text.find("1f1b") != std::string::npos);
  CHECK(text.find("zb-h1") != std::string::npos);
  CHECK(state.schedules.report->runs[0].result.makespan_ms == 213);
  CHECK(text.find("213") != std::string::npos);
  // Play moves the cursor by the frames' time; Pause (playing false) holds it.
  state.settings.schedules.playing = true;
  for (int i = 0; i < 6; ++i) draw_frame(state);
  const double t = state.settings.schedules.time;
  CHECK(t > 0);
  CHECK(t == doctest::Approx(6 * (1.0 / 60.0) * state.schedules.makespan / kSecondsPerMakespan).epsilon(0.05));
  state.settings.schedules.playing = false;
  draw_frame(state);
  CHECK(state.settings.schedules.time == t);
  // The playback buttons were drawn where result().schedules.controls reports them (the browser test clicks there).
  bool found = false;
  for (const auto& c : state.schedules.controls_px) found |= c.first == "step";
  CHECK(found);
  // The plan source without a plan: the tab plans the pipeline itself (no button to press),
  // then shows the plan's stages under both schedules, one device per stage.
  REQUIRE(apply_settings_json(state, R"({"model":"transformer:layers=4","cluster":"lecture:1x4","mesh":"1x4","schedules":{"source":"plan","devices":4,"microbatches":8}})").ok());
  // The planning advances once per frame number (advance_inter_plan), which main.cpp counts.
  for (int i = 0; i < 20000 && !(schedules_plan(state) && state.schedules.report && !state.schedules.plan_latency_ms.empty()); ++i) {
    ++state.frame_stats.frames;
    draw_frame(state);
  }
  INFO("tab: ", state.schedules.error ? state.schedules.error->message : std::string("-"), "; plan: ",
       state.alpa.inter.error ? state.alpa.inter.error->message : std::string("-"), "; planning ", inter_planning(state.alpa.inter));
  REQUIRE(state.schedules.report);
  REQUIRE(schedules_plan(state) != nullptr);
  CHECK(state.schedules.report->runs[0].result.devices == int(schedules_plan(state)->stages.size()));
  CHECK(state.schedules.plan_latency_ms.size() == schedules_plan(state)->stages.size());
}
