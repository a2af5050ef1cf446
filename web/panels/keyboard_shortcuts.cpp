// The page's keyboard shortcuts and the window listing them. See keyboard_shortcuts.h.
//
// Dear ImGui 1.86 keeps keys as a "down" state per platform key code (GLFW's in the page:
// platform.h), so a key pressed and released between two frames (a quick tap, or a scripted
// press) never reads as pressed. Printable keys
// are therefore taken from the typed characters, which are queued and never lost; F1 and Esc
// (which type nothing) from the key state. Ctrl+L and Ctrl+O are the browser's own shortcuts:
// the page (index.html) takes them before the app sees them, to prevent the browser's action.
// Chromium grants browser shortcuts no user activation, so Ctrl+O cannot open a file picker
// there; the plain I key can (its press activates the page for a few seconds).
//
// Single keys (digits, Space, F, I, ?) are shortcuts only when the reader is not typing: never
// while a text field has the keyboard, and not either while a typed number is plainly meant for
// a field (KeyGuard): right after a click that hit no widget (a near miss of a field) for as long
// as the pointer stays near that click, and within 1.5 s of a key that went into a field or
// was itself held back (the rest of a number typed after Enter or a miss). A held-back key says
// so in the notice bar, once per burst, so the reader learns why nothing happened.
#include "keyboard_shortcuts.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "imgui.h"
#include "imgui_internal.h"
#include "js_hook.h"
#include "panel_common.h"
#include "panels.h"
#include "platform.h"

namespace autopar::web {
namespace {

bool g_window_open = false;
bool g_focus_window = false;   // bring the window to the front on the frame after it opens

// Keys typed within this long of a key that went into a text field (or was held back) are still
// typing: "256" after Enter, or the rest of a number after a miss. A person presses a shortcut
// after a pause; typing runs at 5-10 keys a second. Measured between the frames that take the
// keys, which a slow renderer spaces out (one key a frame at 2-4 frames a second).
constexpr double kTypingBurstSeconds = 1.5;
// A missed click stops holding keys back once the pointer moved this many font heights away
// from it (the reader turned to something else), or after this long without a held-back key
// (a touch screen's finger leaves no pointer to move).
constexpr float kMissRadiusFonts = 3.0f;
constexpr double kMissTimeoutSeconds = 8.0;

// What decides whether a single key is a shortcut or typing that missed its field.
struct KeyGuard {
  bool click_pending = false;      // a press last frame, judged this frame (what it hit is known then)
  ImVec2 click_pos;
  bool missed = false;             // the last press hit no widget and the pointer stayed near it
  ImVec2 miss_pos;
  double miss_time = -1e9;
  double last_typing_time = -1e9;  // a key that went into a text field, or was held back
  std::string held;                // the keys held back in this burst, for the notice
};
KeyGuard g_guard;

// One line of the list: keys ("A | B" for alternatives, "Ctrl+L" for a combination) and action
// (a key of the string tables in kGeneral, the text itself once looked up).
struct Shortcut {
  const char* keys;
  const char* action;
};
const Shortcut kGeneral[] = {{"? | F1", "keys.toggle_list"},
                             {"Esc", "keys.close_list"},
                             {"Space", "keys.search"},
                             {"F", "keys.fit"},
                             {"I", "keys.import"},
                             {"Ctrl+L", "keys.copy_link"}};

// True when `ch` was typed this frame by a fresh press of `key` (layouts that type `ch` with
// another key also count); a key held since an earlier frame is auto-repeating and ignored.
bool typed(ImWchar ch, int key) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.KeysDownDuration[key] > 0.0f) return false;
  for (ImWchar c : io.InputQueueCharacters)
    if (c == ch) return true;
  return false;
}

// Brings tab `tab` (panel_tab numbering) to the front, as a click on it would.
void show_tab(AppState& state, int tab) {
  if (tab < 0 || tab >= tab_count()) return;
  state.settings.panel = tab_first_panel(tab);
  state.focus_panel_pending = true;
}

// Runs or pauses the search, like the Search panel's Run / Resume / Pause button.
void toggle_search(AppState& state) {
  Settings next = state.settings;
  next.search.running = !next.search.running;
  const bool resumes = state.search.started && !search_finished(state.search);
  apply_from_ui(state, next, tr(!next.search.running ? "notice.search_paused" : resumes ? "notice.search_resumed" : "notice.search_started"));
}

// A key drawn as a key cap: its label in a rounded box.
void key_cap(const char* label) {
  const float font = ImGui::GetFontSize();
  const ImVec2 text = ImGui::CalcTextSize(label);
  const ImVec2 size(std::max(text.x + font * 0.8f, font * 1.6f), ImGui::GetFrameHeight());   // rows line up with framed text
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p, ImVec2(p.x + size.x, p.y + size.y), IM_COL32(56, 62, 76, 255), font * 0.25f);
  dl->AddRect(p, ImVec2(p.x + size.x, p.y + size.y), IM_COL32(112, 120, 138, 255), font * 0.25f);
  dl->AddText(ImVec2(p.x + (size.x - text.x) * 0.5f, p.y + (size.y - text.y) * 0.5f), IM_COL32(240, 242, 248, 255), label);
  ImGui::Dummy(size);
}

// The keys of one shortcut: alternatives separated by "or", combinations by "+".
void draw_keys(const std::string& keys) {
  const float spacing = ImGui::GetStyle().ItemInnerSpacing.x;
  size_t start = 0;
  bool first = true;
  while (start <= keys.size()) {
    const size_t bar = std::min(keys.find(" | ", start), keys.size());
    const std::string alternative = keys.substr(start, bar - start);
    if (!first) {
      ImGui::SameLine(0.0f, spacing);
      ImGui::AlignTextToFramePadding();
      ImGui::TextDisabled("%s", tr("keys.or"));
      ImGui::SameLine(0.0f, spacing);
    }
    first = false;
    size_t k = 0;
    while (k <= alternative.size()) {
      // A "+" right after a key joins two keys; a "+" key of its own would be its first character.
      const size_t plus = std::min(alternative.find('+', k + 1), alternative.size());
      if (k > 0) {
        ImGui::SameLine(0.0f, spacing);
        ImGui::AlignTextToFramePadding();
        ImGui::TextDisabled("+");
        ImGui::SameLine(0.0f, spacing);
      }
      key_cap(alternative.substr(k, plus - k).c_str());
      k = plus + 1;
    }
    start = bar + 3;
  }
}

// A two-column table of keys and actions under a heading, as one group (for SameLine).
void shortcut_table(const char* heading, const Shortcut* rows, int count, float keys_width) {
  ImGui::BeginGroup();
  ImGui::TextColored(kAccentText, "%s", heading);
  // NoHostExtendX: the table is as wide as its columns (the window sizes itself to its content).
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_NoHostExtendX | ImGuiTableFlags_PadOuterX;
  if (!ImGui::BeginTable(heading, 2, flags)) {
    ImGui::EndGroup();
    return;
  }
  ImGui::TableSetupColumn(tr("keys.key"), ImGuiTableColumnFlags_WidthFixed, keys_width);
  ImGui::TableSetupColumn(tr("keys.action"), ImGuiTableColumnFlags_WidthFixed);
  for (int i = 0; i < count; ++i) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    draw_keys(rows[i].keys);
    ImGui::TableSetColumnIndex(1);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(rows[i].action);
  }
  ImGui::EndTable();
  ImGui::EndGroup();
}

// Whether last frame's press hit a widget: one is active (a field, a button held, a scrollbar;
// not a window's background, which ImGui makes active to move the window) or was hovered (menu
// items and combos take a click without staying active). Text labels are no widget.
bool last_press_hit_widget() {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  const bool active = g.ActiveId != 0 && !(g.ActiveIdWindow && g.ActiveId == g.ActiveIdWindow->MoveId);
  return active || g.HoveredIdPreviousFrame != 0;
}

// Follows presses and typing; true while single keys must not act as shortcuts.
bool keys_are_typing() {
  const ImGuiIO& io = ImGui::GetIO();
  const double now = ImGui::GetTime();
  KeyGuard& k = g_guard;
  if (k.click_pending) {
    k.click_pending = false;
    k.missed = !last_press_hit_widget();
    k.held.clear();   // a new click starts a new burst
    k.miss_pos = k.click_pos;
    k.miss_time = now;
  }
  for (int b = 0; b < 3; ++b)
    if (io.MouseClicked[b]) {
      k.click_pending = true;
      k.click_pos = io.MouseClickedPos[b];
    }
  if (k.missed && ImGui::IsMousePosValid(&io.MousePos)) {
    const float dx = io.MousePos.x - k.miss_pos.x, dy = io.MousePos.y - k.miss_pos.y;
    const float r = kMissRadiusFonts * ImGui::GetFontSize();
    if (dx * dx + dy * dy > r * r) k.missed = false;
  }
  if (k.missed && now - std::max(k.miss_time, k.last_typing_time) > kMissTimeoutSeconds) k.missed = false;
  if (io.WantTextInput && !io.InputQueueCharacters.empty()) k.last_typing_time = now;
  const bool typing = io.WantTextInput || k.missed || now - k.last_typing_time <= kTypingBurstSeconds;
  if (!typing) k.held.clear();   // the burst is over: the next held-back key starts a new one
  return typing;
}

// The printable keys typed this frame that would have been shortcuts, held back: the burst's
// keys go to the notice (once per burst, then updated as it grows).
void hold_back_typed_keys(AppState& state) {
  const ImGuiIO& io = ImGui::GetIO();
  std::string typed_now;
  for (ImWchar c : io.InputQueueCharacters)
    if (c >= 0x20 && c < 0x7F) typed_now += char(c);
  if (typed_now.empty()) return;
  g_guard.last_typing_time = ImGui::GetTime();
  g_guard.held += typed_now;
  if (g_guard.held.size() > 24) g_guard.held.erase(0, g_guard.held.size() - 24);
  notify_info(state, tr_fill(g_guard.missed ? "notice.keys_held_after_miss" : "notice.keys_held_typing", {g_guard.held}));
}

}  // namespace

bool shortcut_keys_held_back() { return g_guard.missed || ImGui::GetTime() - g_guard.last_typing_time <= kTypingBurstSeconds; }

void handle_shortcuts(AppState& state) {
  const ImGuiIO& io = ImGui::GetIO();
  const PlatformKeys& keys = platform_keys();
  const bool typing = keys_are_typing();
  if (io.WantTextInput) return;   // the keys are typing into a text field
  if (io.KeyCtrl || io.KeySuper || io.KeyAlt) return;   // the browser's and the page's combinations
  if (ImGui::IsKeyPressed(keys.f1, false)) toggle_shortcuts_window();
  if (ImGui::IsKeyPressed(keys.escape, false)) {
    g_window_open = false;
    g_guard.missed = false;   // Esc: "I meant no field", the shortcuts work again
    g_guard.last_typing_time = -1e9;
    g_guard.held.clear();
    return;
  }
  if (typing) {
    hold_back_typed_keys(state);
    return;
  }
  if (typed('?', keys.slash)) toggle_shortcuts_window();
  for (int digit = 1; digit <= 9; ++digit)
    if (typed(ImWchar('0' + digit), keys.digit0 + digit)) show_tab(state, digit - 1);
  if (typed(' ', keys.space)) toggle_search(state);
  // A plain key: Chromium grants no user activation to browser shortcuts such as Ctrl+O, and a
  // file picker opens only with one (a key press counts for a few seconds).
  if (typed('i', keys.letter_i) || typed('I', keys.letter_i)) js_hook_pick_model_file();
  if (typed('f', keys.letter_f) || typed('F', keys.letter_f)) {
    // Fitted, and marked as fitted to no timeline so the panel refits the range when it next draws.
    state.timeline.fit = true;
    state.timeline.revision = UINT64_MAX;
    notify_info(state, tr("notice.timeline_fitted"));
  }
}

void draw_shortcuts_window() {
  if (!g_window_open) return;
  ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  if (g_focus_window) ImGui::SetNextWindowFocus();
  g_focus_window = false;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(ImGui::GetFontSize() * 1.2f, ImGui::GetFontSize() * 0.9f));
  ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(ImGui::GetFontSize() * 0.5f, ImGui::GetFontSize() * 0.25f));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove;
  if (ImGui::Begin(tr_id("menu.shortcuts").c_str(), &g_window_open, flags)) {
    const float font = ImGui::GetFontSize();
    constexpr int kGeneralCount = int(sizeof kGeneral / sizeof kGeneral[0]);
    Shortcut general[kGeneralCount];
    for (int i = 0; i < kGeneralCount; ++i) general[i] = {kGeneral[i].keys, tr(kGeneral[i].action)};
    shortcut_table(tr("keys.general"), general, kGeneralCount, font * 6.5f);
    ImGui::SameLine(0.0f, font * 2.0f);
    Shortcut tabs[9];
    char digits[9][2];
    std::string titles[9];
    for (int i = 0; i < 9; ++i) {
      digits[i][0] = char('1' + i);
      digits[i][1] = '\0';
      titles[i] = tr_fill("keys.tab", {tab_title(i)});
      tabs[i] = {digits[i], titles[i].c_str()};
    }
    shortcut_table(tr("keys.tabs"), tabs, 9, font * 2.0f);
    ImGui::Spacing();
    ImGui::TextDisabled("%s", tr("keys.note"));
  }
  ImGui::End();
  ImGui::PopStyleVar(2);
}

bool shortcuts_window_open() { return g_window_open; }

void toggle_shortcuts_window() {
  g_window_open = !g_window_open;
  g_focus_window = g_window_open;
}

}  // namespace autopar::web
