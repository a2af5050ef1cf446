// The page's entry point: a GLFW window on the page's canvas, Dear ImGui with its GLFW and
// OpenGL ES 3 (WebGL 2) backends, and the per-frame loop driven by emscripten_set_main_loop.
// The canvas backing store follows its CSS size times the device pixel ratio; the UI is scaled
// by that ratio so text stays crisp.
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "app_state.h"
#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"
#include "js_hook.h"
#include "page_strings.h"
#include "panels.h"
#include "share_link.h"
#include "ui_style.h"

namespace {

using namespace autopar::web;

// Frames drawn with the default example before the page is told it is ready (ImGui needs a
// couple of frames to size its windows and tables).
constexpr int kFramesBeforeReady = 3;

// Wall time per frame given to the search and the accuracy study (a 60 Hz frame is 16.7 ms).
constexpr double kBackgroundWorkMsPerFrame = 8.0;

// How long the page keeps drawing after the last input before it goes idle: ImGui settles hover
// states, window sizes and the notice within a few frames (kFramesAfterInput, however slow they
// come), and nothing in it animates by the clock. A second of frames took the main thread for
// the whole of a short plan started by a click (or within a second of the page's load events):
// 30-40 ms a frame with a software renderer, on the core next to the worker, which delayed the
// plan's reply by up to a frame and slowed the worker itself (24 layers on 4x8: 110-160 ms
// against 50-70 ms without those frames).
constexpr double kDrawAfterInputMs = 300;
// Frames drawn at least after an input, however slow they come.
constexpr int kFramesAfterInput = 6;
// Frames drawn after a change from a script or a worker's result, without input: no pointer
// moved, so there are no hover states to settle, and ImGui lays out a changed window within
// two frames. Drawing a second of frames instead took the main thread for the whole of a short
// plan (a frame costs 30-100 ms with a software renderer) and delayed the worker's result.
constexpr int kFramesAfterStateChange = 3;
// Least time between two frames drawn only to show a worker's progress. With a software
// renderer a frame costs 30-100 ms of a core, and drawing every progress reply took a core the
// workers plan on (this machine has two).
constexpr double kProgressFrameMs = 250;
// And from a progress (or a plan's start) to its frame: a job that ends sooner is drawn only
// done, so a short plan has no frame taking the cores meanwhile (measured: 24 layers on 4x8
// planned in 110 ms with frames meanwhile, 70 ms without).
constexpr double kProgressWaitMs = 150;

// Everything the main loop owns.
struct MainLoop {
  GLFWwindow* window = nullptr;
  AppState state;
  float ui_scale = 0;       // device pixel ratio the style and font were built for
  int frames = 0;
  int input_serial = -1;    // js_hook_input_serial() when last seen
  int frames_to_draw = kFramesAfterInput;
  double draw_until_ms = 0;  // emscripten_get_now() time until which frames are drawn
  double last_draw_ms = 0;   // when the last frame was drawn
  bool progress_pending = false;   // a worker's progress waits for a frame
  double progress_since_ms = 0;    // since when (kProgressWaitMs)
  int canvas_width = 0, canvas_height = 0;
  std::string cjk_checked_model;   // the model whose names were last checked for CJK characters
};

// Keyboard input, held in order and given to Dear ImGui only once every pointer event that came
// before it has been seen by a frame of its own: pointer input is queued a step per frame
// (index.html), keys arrived at once, so keys typed right after a click on a field reached the
// field focused before the click. Dear ImGui 1.86 also reads key state once per frame, so a key
// pressed and released between two frames (a quick tap, any scripted press) would never read as
// pressed: a key's release waits for the frame after its press.
struct KeyEvent {
  bool is_char = false;
  int key = 0, scancode = 0, action = 0, mods = 0;   // a key's change (GLFW's)
  unsigned codepoint = 0;                            // a typed character
  double pointer_events_before = 0;                  // the page's pointer events queued when it came
};
std::deque<KeyEvent> g_keys;
// Pointer events taken by the frames drawn so far (index.html numbers them as it queues them).
double g_pointer_events_seen = 0;

// The theme and font at `scale` (ui_style.h), the font atlas uploaded to WebGL.
void apply_style_and_font(float scale) {
  apply_ui_style(scale);
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
}

// Fetches the CJK font the first time Chinese is chosen or a model's names need it (it is never
// part of the first download), and rebuilds the atlas once it has arrived. Until then the page
// works as before, with '?' for the characters still missing.
void update_cjk_font(MainLoop& m) {
  if (cjk_font_status() == CjkFontStatus::not_needed) {
    const std::string key = m.state.settings.model + "#" + std::to_string(m.state.settings.model_json.size()) + "#" + m.state.settings.lang;
    if (key != m.cjk_checked_model) {
      m.cjk_checked_model = key;
      if (m.state.settings.lang == "zh" || has_cjk_text(m.state.settings.model) || graph_needs_cjk(m.state.graph)) {
        set_cjk_font_loading();
        js_hook_request_cjk_font();
      }
    }
  }
  if (take_cjk_font_arrival()) apply_style_and_font(m.ui_scale);
}

// True when the browser's preferred language is Chinese (navigator.language "zh", "zh-CN", ...).
EM_JS(int, browser_prefers_chinese, (), {
  var l = (navigator.language || '').toLowerCase();
  return l === 'zh' || l.indexOf('zh-') === 0 ? 1 : 0;
});

// The pointer input of one frame from the page's queue (index.html takePointerStep): position in
// canvas pixels, buttons (bit 0 left, 1 right, 2 middle), wheel in pixels, and how many queued
// events have been taken so far (keys wait for the events before them). 0 when the page has no
// queue (then GLFW's own mouse input stays in effect).
EM_JS(int, take_pointer_step, (double* out), {
  if (typeof Module['autoparTakePointerStep'] !== 'function') return 0;
  var s = Module['autoparTakePointerStep']();
  HEAPF64[(out >> 3) + 0] = s.x;
  HEAPF64[(out >> 3) + 1] = s.y;
  HEAPF64[(out >> 3) + 2] = s.buttons;
  HEAPF64[(out >> 3) + 3] = s.wheelX;
  HEAPF64[(out >> 3) + 4] = s.wheelY;
  HEAPF64[(out >> 3) + 5] = typeof s.taken === 'number' ? s.taken : Infinity;
  return 1;
});

// True while the page holds pointer input no frame has seen yet.
EM_JS(int, pointer_input_pending, (), {
  return typeof Module['autoparPointerPending'] === 'function' && Module['autoparPointerPending']() ? 1 : 0;
});

// Records that this frame is drawn; true.
bool drawn(MainLoop& m) {
  m.last_draw_ms = emscripten_get_now();
  return true;
}

// True when this frame must be drawn: new input, a state change from JS, a resized canvas,
// or work in the background. Otherwise the frame is skipped: an idle page draws nothing.
bool frame_needed(MainLoop& m) {
  const int serial = js_hook_input_serial();
  int width = 0, height = 0;
  glfwGetFramebufferSize(m.window, &width, &height);
  const bool woken = js_hook_take_redraw_request();   // always taken, so it cannot linger
  if (serial != m.input_serial || width != m.canvas_width || height != m.canvas_height) {
    m.input_serial = serial;
    m.canvas_width = width;
    m.canvas_height = height;
    m.frames_to_draw = kFramesAfterInput;
    m.draw_until_ms = emscripten_get_now() + kDrawAfterInputMs;
  } else if (woken) {
    m.frames_to_draw = std::max(m.frames_to_draw, kFramesAfterStateChange);
  }
  if (has_background_work(m.state) || pointer_input_pending() || !g_keys.empty()) return drawn(m);
  const double now = emscripten_get_now();
  if (m.frames_to_draw <= 0 && now > m.draw_until_ms) {
    if (!m.progress_pending && js_hook_take_progress_frame_request()) {
      m.progress_pending = true;
      m.progress_since_ms = now;
    }
    if (!m.progress_pending || now - m.last_draw_ms < kProgressFrameMs || now - m.progress_since_ms < kProgressWaitMs) return false;
    m.progress_pending = false;
    return drawn(m);
  }
  --m.frames_to_draw;
  return drawn(m);
}

// Sizes the canvas backing store to its CSS size times the device pixel ratio (capped at 3);
// Module.setCanvasSize also tells Emscripten's GLFW the new window size.
EM_JS(void, fit_canvas_to_css_size, (), {
  var canvas = Module['canvas'];
  if (!canvas) return;
  var dpr = Math.min(Math.max(window.devicePixelRatio || 1, 1), 3);
  var w = Math.max(1, Math.round(canvas.clientWidth * dpr));
  var h = Math.max(1, Math.round(canvas.clientHeight * dpr));
  if (canvas.width !== w || canvas.height !== h) Module['setCanvasSize'](w, h);
});

// Emscripten 3.1.6's GLFW passes the browser's raw wheel deltas to the scroll callback: pixels
// (about 100 per notch) with the browser's sign (positive = down), where native GLFW and Dear
// ImGui expect notches with positive = up. Converts before handing them to ImGui's backend.
void scroll_callback(GLFWwindow* window, double dx, double dy) {
  auto notches = [](double pixels) {
    if (pixels == 0) return 0.0;
    const double n = -pixels / (std::fabs(pixels) >= 10 ? 100.0 : 1.0);
    return std::clamp(n, -5.0, 5.0);
  };
  ImGui_ImplGlfw_ScrollCallback(window, notches(dx), notches(dy));
}

// The pointer events the page has queued so far (index.html), or 0 without a queue.
EM_JS(double, pointer_events_queued, (), {
  return typeof Module['autoparPointerQueued'] === 'function' ? Module['autoparPointerQueued']() : 0;
});

void key_callback(GLFWwindow*, int key, int scancode, int action, int mods) {
  KeyEvent e;
  e.key = key;
  e.scancode = scancode;
  e.action = action;
  e.mods = mods;
  e.pointer_events_before = pointer_events_queued();
  g_keys.push_back(e);
}

void char_callback(GLFWwindow*, unsigned int codepoint) {
  KeyEvent e;
  e.is_char = true;
  e.codepoint = codepoint;
  e.pointer_events_before = pointer_events_queued();
  g_keys.push_back(e);
}

// Before a frame: gives Dear ImGui the held keys whose earlier pointer events frames have seen,
// in order, up to the release of a key pressed in this same batch (it waits for the next frame).
void deliver_keys(GLFWwindow* window) {
  std::vector<int> pressed;
  while (!g_keys.empty()) {
    const KeyEvent e = g_keys.front();
    if (e.pointer_events_before > g_pointer_events_seen) break;
    if (!e.is_char && e.action == GLFW_RELEASE && std::find(pressed.begin(), pressed.end(), e.key) != pressed.end()) break;
    g_keys.pop_front();
    if (e.is_char) {
      ImGui_ImplGlfw_CharCallback(window, e.codepoint);
      continue;
    }
    if (e.action == GLFW_PRESS) pressed.push_back(e.key);
    ImGui_ImplGlfw_KeyCallback(window, e.key, e.scancode, e.action, e.mods);
  }
}

// Gives ImGui this frame's step of queued pointer input (after the GLFW backend's NewFrame, which
// would otherwise set the mouse from GLFW). A drag of a finger arrives as wheel pixels: turned
// into the notches ImGui scrolls by (5 font heights each in Dear ImGui 1.86).
void apply_pointer_step() {
  double s[6] = {0, 0, 0, 0, 0, 0};
  if (!take_pointer_step(s)) {
    g_pointer_events_seen = HUGE_VAL;   // no queue: keys wait for nothing
    return;
  }
  g_pointer_events_seen = s[5];
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = s[0] < -1e29 ? ImVec2(-FLT_MAX, -FLT_MAX) : ImVec2(float(s[0]), float(s[1]));
  const int buttons = int(s[2]);
  for (int b = 0; b < 3; ++b) io.MouseDown[b] = (buttons >> b) & 1;
  const float step = std::max(1.0f, 5.0f * ImGui::GetFontSize());
  io.MouseWheelH += float(s[3]) / step;
  io.MouseWheel += float(s[4]) / step;
}

float device_pixel_ratio() {
  return float(std::clamp(emscripten_get_device_pixel_ratio(), 1.0, 3.0));
}

void frame(void* arg) {
  MainLoop& m = *static_cast<MainLoop*>(arg);
  const double frame_start = emscripten_get_now();
  fit_canvas_to_css_size();
  if (const float dpr = device_pixel_ratio(); dpr != m.ui_scale) {
    m.ui_scale = dpr;
    apply_style_and_font(dpr);
  }

  glfwPollEvents();
  update_cjk_font(m);
  if (!frame_needed(m)) return;
  // Long work (the MCMC search, the accuracy study) gets a bounded slice of every frame.
  advance_background_work(m.state, kBackgroundWorkMsPerFrame);
  deliver_keys(m.window);   // before the pointer step of this frame: keys follow the clicks before them
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  apply_pointer_step();
  ImGui::NewFrame();
  draw_app_frame(m.state, m.ui_scale);
  ImGui::Render();
  const double work_end = emscripten_get_now();   // the app's own work ends here; GL submission follows

  int width = 0, height = 0;
  glfwGetFramebufferSize(m.window, &width, &height);
  glViewport(0, 0, width, height);
  glClearColor(0.06f, 0.065f, 0.075f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

  record_frame_time(m.state.frame_stats, emscripten_get_now() - frame_start, work_end - frame_start, ImGui::GetDrawData()->TotalVtxCount);
  if (++m.frames == kFramesBeforeReady) js_hook_signal_ready();
  // The address bar and localStorage follow the state (nothing is lost on reload).
  js_hook_publish_if_changed(m.state);
}

}  // namespace

int main() {
  static MainLoop m;   // lives as long as the page: the main loop never returns
  if (!glfwInit()) {
    std::fprintf(stderr, "autopar: glfwInit failed\n");
    return 1;
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  m.window = glfwCreateWindow(1280, 800, "autopar", nullptr, nullptr);
  if (!m.window) {
    std::fprintf(stderr, "autopar: could not create a WebGL 2 context\n");
    return 1;
  }
  glfwMakeContextCurrent(m.window);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;   // fixed layout: nothing to remember
  ImGui_ImplGlfw_InitForOpenGL(m.window, true);
  ImGui_ImplOpenGL3_Init("#version 300 es");
  glfwSetScrollCallback(m.window, scroll_callback);
  glfwSetKeyCallback(m.window, key_callback);
  glfwSetCharCallback(m.window, char_callback);

  // The default example, then the state of the link, else of the last session. When that
  // cannot be restored, the notice says why and the address bar keeps the link until the user
  // changes something, so what they pasted is not overwritten behind their back.
  if (auto s = init_app_state(m.state); !s.ok())
    std::fprintf(stderr, "autopar: the default example failed to load: %s\n", s.error().message.c_str());
  // Bound before the link's state is applied: a link with a running search starts it in the
  // page's workers, not in an in-process session that would then never be stepped.
  js_hook_bind(&m.state);
  const InitialState initial = js_hook_initial_state();
  m.state.show_welcome = initial.fragment.empty();   // a first visit: no link, no saved state
  if (initial.fragment.empty() && browser_prefers_chinese()) {
    // The first visit speaks the browser's language; the link and localStorage keep the choice.
    Settings zh = m.state.settings;
    zh.lang = "zh";
    if (apply_settings(m.state, zh).ok()) notify_info(m.state, tr_fill("notice.loaded", {m.state.settings.model, m.state.settings.cluster}));
  }
  if (!initial.fragment.empty() && !apply_share_fragment(m.state, initial.fragment, initial.source).ok())
    js_hook_hold_publication(m.state);

  emscripten_set_main_loop_arg(frame, &m, 0, false);
  return 0;
}
