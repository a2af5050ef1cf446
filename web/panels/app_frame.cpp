// One frame of the playground: the layout of the fixed windows, the main menu bar, the tab
// strip, the notice bar and the About window. The panels live in panel_*.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "cluster.h"
#include "imgui_internal.h"
#include "js_hook.h"
#include "keyboard_shortcuts.h"
#include "panel_common.h"
#include "panel_registry.h"
#include "panels.h"
#include "ui_style.h"

namespace autopar::web {

AppLayout compute_layout(ImVec2 display, float menu_height, float tabs_height, float notice_height, float ui_scale) {
  AppLayout l;
  const float top = menu_height + tabs_height;
  const float body_h = std::max(1.0f, display.y - top - notice_height);
  l.tabs = {ImVec2(0, menu_height), ImVec2(display.x, tabs_height)};
  l.notice = {ImVec2(0, display.y - notice_height), ImVec2(display.x, notice_height)};
  l.search = {ImVec2(0, top), ImVec2(display.x, body_h)};
  l.accuracy = l.search;
  l.lecture = l.exercises = l.compare = l.intra = l.inter = l.schedules = l.search;
  if (display.x < 960.0f * ui_scale) {
    // Narrow: each tab's windows stacked.
    const float model_h = std::floor(body_h * 0.55f);
    l.model = {ImVec2(0, top), ImVec2(display.x, model_h)};
    l.cluster = {ImVec2(0, top + model_h), ImVec2(display.x, body_h - model_h)};
    const float strategy_h = std::floor(body_h * 0.5f);
    l.strategy = {ImVec2(0, top), ImVec2(display.x, strategy_h)};
    l.timeline = {ImVec2(0, top + strategy_h), ImVec2(display.x, body_h - strategy_h)};
  } else {
    // Wide: Model (with the wide op table) on the left, Cluster on the right.
    const float cluster_w = std::clamp(std::floor(display.x * 0.40f), 380.0f * ui_scale, 620.0f * ui_scale);
    const float model_w = display.x - cluster_w;
    l.model = {ImVec2(0, top), ImVec2(model_w, body_h)};
    l.cluster = {ImVec2(model_w, top), ImVec2(cluster_w, body_h)};
    // The strategy editor on the left, the timeline (which needs width) on the right.
    const float strategy_w = std::clamp(std::floor(display.x * 0.38f), 430.0f * ui_scale, 600.0f * ui_scale);
    l.strategy = {ImVec2(0, top), ImVec2(strategy_w, body_h)};
    l.timeline = {ImVec2(strategy_w, top), ImVec2(display.x - strategy_w, body_h)};
  }
  return l;
}

namespace {

// The UI scale (device pixel ratio) of the frame being drawn: ImGui works in canvas pixels.
float ui_scale_of_frame = 1.0f;
// Lines the notice bar shows this frame: the notice wraps (a phone is too narrow for most
// notices on one line) and the bar grows to at most kNoticeMaxLines, then scrolls.
int notice_lines_of_frame = 1;
constexpr int kNoticeMaxLines = 3;

// The notice as the bar draws it: "Error [code] text (at path)" or the info text.
std::string notice_bar_text(const AppState& state) {
  if (state.notice.level != NoticeLevel::error) return state.notice.text.empty() ? tr("notice.ready") : state.notice.text;
  std::string text = std::string(tr("notice.error")) + " ";
  if (state.notice.code) text += "[" + std::string(error_code_name(*state.notice.code)) + "] ";
  text += state.notice.text;
  if (!state.notice.path.empty()) text += tr_fill("notice.at_path", {state.notice.path});
  return text;
}

// How many lines the notice needs at the display's width (1 .. kNoticeMaxLines).
int notice_lines(const AppState& state) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float width = std::max(1.0f, ImGui::GetIO().DisplaySize.x - 2 * style.WindowPadding.x - style.ScrollbarSize);
  const std::string text = notice_bar_text(state);
  const float h = ImGui::CalcTextSize(text.c_str(), nullptr, false, width).y;
  return std::clamp(int(std::ceil(h / std::max(1.0f, ImGui::GetTextLineHeight()) - 0.01f)), 1, kNoticeMaxLines);
}

}  // namespace

void draw_tab_strip(AppState& state, const PanelRect& rect) {
  ImGui::SetNextWindowPos(rect.pos, ImGuiCond_Always);
  ImGui::SetNextWindowSize(rect.size, ImGuiCond_Always);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(ImGui::GetStyle().WindowPadding.x, ImGui::GetStyle().FramePadding.y));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.105f, 0.115f, 0.14f, 1.0f));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                 ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoScrollbar;
  const int wanted = panel_tab(state.settings.panel);
  int selected = -1;
  if (ImGui::Begin("##tabs", nullptr, flags)) {
    if (ImGui::BeginTabBar("##main_tabs", ImGuiTabBarFlags_NoTooltip | ImGuiTabBarFlags_FittingPolicyScroll)) {
      for (int i = 0; i < tab_count(); ++i) {
        const ImGuiTabItemFlags f = (wanted != state.shown_tab && i == wanted) ? ImGuiTabItemFlags_SetSelected : 0;
        const bool open = ImGui::BeginTabItem((std::string(tab_title(i)) + "###tab" + std::to_string(i)).c_str(), nullptr, f);
        // Where the tab is, in CSS pixels (result().ui.tabs: the input tests click there).
        const float css = 1.0f / std::max(1.0f, ui_scale_of_frame);
        const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
        if (state.ui.tabs.size() < size_t(tab_count())) state.ui.tabs.resize(size_t(tab_count()));
        state.ui.tabs[size_t(i)] = {a.x * css, a.y * css, (b.x - a.x) * css, (b.y - a.y) * css};
        if (open) {
          selected = i;
          ImGui::EndTabItem();
        }
      }
      ImGui::EndTabBar();
    }
  }
  ImGui::End();
  ImGui::PopStyleColor();
  ImGui::PopStyleVar(3);
  // A click on another tab (while the tab strip already showed the wanted one) switches panels.
  if (selected >= 0 && selected != wanted && state.shown_tab == wanted) {
    state.settings.panel = tab_first_panel(selected);
    state.focus_panel_pending = true;
  }
  state.shown_tab = selected;
}

void apply_from_ui(AppState& state, const Settings& next, const std::string& done) {
  if (apply_settings(state, next).ok() && !done.empty()) notify_info(state, done);
}

namespace {

// English / 中文 in the menu bar: the page's language, switched at once with nothing else
// changed. "中文" is drawn from a tiny font embedded in the page (ui_style.cpp), so it reads
// right before the CJK font has arrived.
// On a phone the bar has room for one of them only: the other language's name, which switches.
void draw_language_switch(AppState& state) {
  const float css = 1.0f / std::max(1.0f, ui_scale_of_frame);
  const bool narrow = narrow_page();
  for (const auto& [code, label] : {std::pair{"en", "English"}, std::pair{"zh", "中文"}}) {
    const bool current = state.settings.lang == code;
    if (narrow && current) continue;
    if (ImGui::MenuItem(label, nullptr, current) && !current) {
      Settings next = state.settings;
      next.lang = code;
      apply_from_ui(state, next, tr_in(code == std::string("zh") ? Language::zh : Language::en, "notice.language"));
    }
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    state.ui.languages[code] = {a.x * css, a.y * css, (b.x - a.x) * css, (b.y - a.y) * css};
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("menu.language_tip"));
  }
}

}  // namespace

float draw_menu_bar(AppState& state) {
  float height = ImGui::GetFrameHeight();
  if (!ImGui::BeginMainMenuBar()) return height;
  height = ImGui::GetWindowHeight();
  if (ImGui::BeginMenu(tr_id("menu.examples").c_str())) {
    if (ImGui::BeginMenu(tr_id("menu.models").c_str())) {
      for (const auto& m : builtin_models()) {
        auto choice = parse_builtin_model(state.settings.model, "model");
        const bool current = choice.ok() && choice.value().model == &m;
        if (ImGui::MenuItem(m.name.c_str(), nullptr, current)) {
          Settings next = state.settings;
          next.model = m.name;
          apply_from_ui(state, next, tr_fill("notice.loaded_model", {m.name}));
        }
        if (ImGui::IsItemHovered() && !m.description.empty()) ImGui::SetTooltip("%s", m.description.c_str());
      }
      ImGui::EndMenu();
    }
    if (ImGui::BeginMenu(tr_id("menu.clusters").c_str())) {
      for (const auto& p : cluster_presets()) {
        const std::string spec = preset_spec_string(p.name, p.default_nodes, p.default_gpus_per_node);
        const bool current = !state.settings.custom_cluster && state.settings.cluster == spec;
        if (ImGui::MenuItem(spec.c_str(), nullptr, current)) {
          Settings next = state.settings;
          next.cluster = spec;
          next.custom_cluster.reset();
          next.mesh = std::to_string(p.default_nodes) + "x" + std::to_string(p.default_gpus_per_node);
          apply_from_ui(state, next, tr_fill("notice.loaded_cluster", {spec}));
        }
        if (ImGui::IsItemHovered() && !p.description.empty()) ImGui::SetTooltip("%s", p.description.c_str());
      }
      ImGui::EndMenu();
    }
    ImGui::Separator();
    if (ImGui::MenuItem(tr("menu.reset"))) {
      Settings defaults;
      defaults.lang = state.settings.lang;   // the reader's language is not an example's
      apply_from_ui(state, defaults, tr_fill("notice.reset", {defaults.model, defaults.cluster}));
    }
    ImGui::EndMenu();
  }
  draw_lecture_menu(state);
  draw_export_menu(state);
  if (ImGui::BeginMenu(tr_id("menu.view").c_str())) {
    for (const PanelEntry& entry : panel_table()) {
      if (ImGui::MenuItem(tr_fill("menu.panel", {tr(entry.window_title)}).c_str(), nullptr, state.settings.panel == entry.panel)) {
        state.settings.panel = entry.panel;
        state.focus_panel_pending = true;
      }
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr_id("menu.help").c_str())) {
    if (ImGui::MenuItem(tr("menu.shortcuts"), "?", shortcuts_window_open())) toggle_shortcuts_window();
    if (ImGui::MenuItem(tr("menu.welcome"), nullptr, state.show_welcome)) state.show_welcome = !state.show_welcome;
    ImGui::MenuItem(tr("menu.about"), nullptr, &state.show_about);
    if (narrow_page() && ImGui::MenuItem(tr("menu.copy_link"))) js_hook_copy_link();
    ImGui::EndMenu();
  }
  // The share link of the current state, copied to the clipboard by the page (index.html). A
  // phone's bar is too narrow for it next to the menus and the language: it is in Help there.
  if (!narrow_page()) {
    if (ImGui::Button(tr_id("menu.copy_link").c_str())) js_hook_copy_link();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("menu.copy_link_tip"));
  }
  draw_language_switch(state);

  // Summary on the right: what is loaded.
  char summary[256];
  std::snprintf(summary, sizeof summary, tr(state.cluster.num_devices() == 1 ? "menu.summary_one_gpu" : "menu.summary"), state.settings.model.c_str(),
                state.graph.ops.size(),
                state.settings.custom_cluster ? tr("menu.custom_cluster") : state.settings.cluster.c_str(),
                state.cluster.num_devices(), state.settings.mesh.c_str());
  const float w = ImGui::CalcTextSize(summary).x + ImGui::GetStyle().ItemSpacing.x * 2;
  if (ImGui::GetContentRegionAvail().x > w + ImGui::GetFontSize() * 2) {
    ImGui::SetCursorPosX(ImGui::GetWindowWidth() - w);
    ImGui::TextDisabled("%s", summary);
  }
  ImGui::EndMainMenuBar();
  return height;
}

void draw_notice_bar(AppState& state, const PanelRect& rect) {
  const bool is_error = state.notice.level == NoticeLevel::error;
  ImGui::SetNextWindowPos(rect.pos, ImGuiCond_Always);
  ImGui::SetNextWindowSize(rect.size, ImGuiCond_Always);
  ImGui::PushStyleColor(ImGuiCol_WindowBg, is_error ? kErrorBg : kNoticeBg);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoNav;
  if (ImGui::Begin("##notice", nullptr, flags)) {
    // Wrapped, so a long notice reads whole on a phone (the bar grows to kNoticeMaxLines lines).
    const std::string text = notice_bar_text(state);
    ImGui::PushTextWrapPos(0.0f);
    if (is_error) {
      ImGui::PushStyleColor(ImGuiCol_Text, kErrorText);
      ImGui::TextUnformatted(text.c_str());
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", notice_line(state.notice).c_str());
    } else {
      ImGui::TextDisabled("%s", text.c_str());
    }
    ImGui::PopTextWrapPos();
  }
  ImGui::End();
  ImGui::PopStyleVar(2);
  ImGui::PopStyleColor();
}

namespace {

void draw_about_window(AppState& state) {
  if (!state.show_about) return;
  const ImVec2 center = ImGui::GetMainViewport()->GetCenter();
  ImGui::SetNextWindowPos(center, ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (ImGui::Begin(tr_id("menu.about").c_str(), &state.show_about,
                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    ImGui::TextUnformatted(tr("about.line1"));
    ImGui::TextDisabled("%s", tr("about.line2"));
    ImGui::TextDisabled("%s", tr("about.line3"));
    ImGui::Separator();
    ImGui::Text("Dear ImGui %s (MIT)", ImGui::GetVersion());
    // The intra-op ILP is solved in the workers, which report their GLPK; the page links none.
    const std::string& glpk = state.alpa.inter.worker->glpk_version();
    if (glpk.empty()) ImGui::TextDisabled("%s", tr("about.glpk_pending"));
    else ImGui::Text(tr("about.glpk"), glpk.c_str());
    ImGui::Text("nlohmann/json (MIT)");
    ImGui::Separator();
    ImGui::TextUnformatted(tr("about.license"));
    ImGui::TextDisabled("%s", tr("about.scripting"));
  }
  ImGui::End();
}

// The first visit's welcome (no link, no saved state): what the playground is, three things to
// try first and where the lecture's demos are. It closes with its buttons, Escape, or as soon as
// the reader changes anything (it must not stand in the way of someone already exploring).
void draw_welcome_window(AppState& state) {
  static std::optional<Settings> opened_with;
  if (!state.show_welcome) {
    opened_with.reset();
    return;
  }
  const bool appearing = !opened_with;
  if (!opened_with) opened_with = state.settings;
  // Typing or clicking elsewhere means the reader went their own way.
  static bool hovered = false;
  const ImGuiIO& io = ImGui::GetIO();
  const bool elsewhere = io.InputQueueCharacters.Size > 0 || (ImGui::IsMouseClicked(0) && !hovered) ||
                         ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape));
  Settings now = state.settings;
  now.lang = opened_with->lang;   // switching the language is not going one's own way
  if (!(now == *opened_with) || (!appearing && elsewhere)) {
    state.show_welcome = false;
    return;
  }
  const float font = ImGui::GetFontSize();
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float w = std::min(display.x - font * 2, font * 38);
  ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(w, 0), ImGuiCond_Always);
  if (appearing) ImGui::SetNextWindowFocus();
  bool open = true;
  if (ImGui::Begin(tr_id("welcome.title").c_str(), &open, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove |
                                                    ImGuiWindowFlags_NoResize)) {
    ImGui::TextWrapped("%s", tr("welcome.intro"));
    ImGui::Spacing();
    ImGui::TextColored(kAccentText, "%s", tr("welcome.three"));
    const float bw = font * 13;
    if (ImGui::Button(tr_id("welcome.open_scenario").c_str(), ImVec2(bw, 0))) {
      open = false;
      open_scenario(state, "megatron");
    }
    ImGui::SameLine();
    ImGui::TextWrapped("%s", tr("welcome.open_scenario_text"));
    if (ImGui::Button(tr_id("welcome.run_search").c_str(), ImVec2(bw, 0))) {
      open = false;
      Settings next = state.settings;
      next.panel = "search";
      next.search.running = true;
      apply_from_ui(state, next, tr_fill("notice.search_started_on", {next.model}));
    }
    ImGui::SameLine();
    ImGui::TextWrapped("%s", tr("welcome.run_search_text"));
    if (ImGui::Button(tr_id("welcome.alpa").c_str(), ImVec2(bw, 0))) {
      open = false;
      Settings next = state.settings;
      next.panel = "intra";
      apply_from_ui(state, next, "");
    }
    ImGui::SameLine();
    ImGui::TextWrapped("%s", tr("welcome.alpa_text"));
    ImGui::Spacing();
    ImGui::TextWrapped("%s", tr("welcome.where"));
    ImGui::Spacing();
    if (ImGui::Button(tr_id("welcome.close").c_str())) open = false;
  }
  hovered = ImGui::IsWindowHovered(ImGuiHoveredFlags_RootAndChildWindows);
  ImGui::End();
  if (!open) state.show_welcome = false;
}

}  // namespace

AppLayout frame_layout(float menu_height, float ui_scale) {
  const float notice_h = ImGui::GetFrameHeight() + float(notice_lines_of_frame - 1) * ImGui::GetTextLineHeight() +
                         ImGui::GetStyle().WindowPadding.y * 2.0f;
  const float tabs_h = ImGui::GetFrameHeight() + ImGui::GetStyle().FramePadding.y * 2.0f;
  return compute_layout(ImGui::GetIO().DisplaySize, menu_height, tabs_h, notice_h, ui_scale);
}

void draw_app_frame(AppState& state, float ui_scale) {
  ui_scale_of_frame = ui_scale;
  set_frame_ui_scale(ui_scale);
  state.ui.places.clear();   // what this frame draws (a hidden tab's fields have no place)
  handle_shortcuts(state);   // first: a tab switched by a key shows in this frame
  notice_lines_of_frame = notice_lines(state);
  const AppLayout layout = frame_layout(draw_menu_bar(state), ui_scale);
  draw_tab_strip(state, layout.tabs);
  const int tab = state.shown_tab < 0 ? panel_tab(state.settings.panel) : state.shown_tab;
  if (tab_shows_flexflow(tab)) ensure_flexflow(state);   // an edit made on another tab left it pending
  draw_tab_panels(state, tab, layout);
  draw_notice_bar(state, layout.notice);
  draw_export_window(state);
  draw_about_window(state);
  draw_shortcuts_window();
  draw_welcome_window(state);
  // Scroll positions for result().ui (a touch drag must move one of them).
  float scroll = 0;
  for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) scroll += w->Scroll.y;
  state.ui.scroll_y_sum = scroll;
  state.ui.keys_held_back = shortcut_keys_held_back();
  const float css = 1.0f / std::max(1.0f, ui_scale);
  state.ui.display_w = ImGui::GetIO().DisplaySize.x * css;
  state.ui.display_h = ImGui::GetIO().DisplaySize.y * css;
}

}  // namespace autopar::web
