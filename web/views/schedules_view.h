// The Schedules tab (issue 42) as state: its inputs (getState().schedules, kept in links), the
// schedules simulated for them (core/operations/schedule_view.h, on the page's thread: 8 devices
// x 64 micro-batches take at most 3.2 ms of CPU natively, ZB-V's search), the step-through cursor and
// its playback, and what result().schedules reports. No ImGui in here.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "json_io.h"
#include "result.h"
#include "pipeline_schedule.h"
#include "schedule_view.h"

namespace autopar {
struct InterOpPlan;
}

namespace autopar::web {

// The tab's inputs, as setState/getState's "schedules" object and the link's schedules.* keys.
struct ScheduleSettings {
  std::string first = "1f1b";           // a schedule name as `autopar schedule --schedule` spells it
  std::string second = "zb-h1";         // the schedule beside it; "" or "none": only the first
  std::string source = "uniform";       // "uniform": f, b, w, comm per device; "plan": the inter-op plan's stages
  int devices = 4;                      // pipeline devices (uniform source)
  int microbatches = 8;
  int interleave = 2;                   // v, chunks per device of interleaved 1F1B
  double f = 1, b = 2, w = 1, comm = 0; // each device's share: forward, whole backward, its weight part; one send
  double time = 0;                      // the cursor, in the units of f, b, w (ms with the plan source)
  bool playing = false;                 // the cursor advances by itself
  double speed = 1;                     // 1: one makespan in kSecondsPerMakespan seconds
  bool operator==(const ScheduleSettings& o) const {
    return first == o.first && second == o.second && source == o.source && devices == o.devices && microbatches == o.microbatches &&
           interleave == o.interleave && f == o.f && b == o.b && w == o.w && comm == o.comm && time == o.time &&
           playing == o.playing && speed == o.speed;
  }
};

// Bounds the tab accepts (the core accepts more; these keep a Gantt readable and a frame short).
constexpr int kMaxScheduleDevices = 32;
constexpr int kMaxScheduleMicrobatches = 512;
constexpr double kMinScheduleSpeed = 0.05, kMaxScheduleSpeed = 20;
// Playback at speed 1 takes this long for one makespan.
constexpr double kSecondsPerMakespan = 12;

// The schedule names the tab offers (core's, in its order).
const std::vector<std::string>& schedule_names();

// Reads setState's "schedules" object into `s`: unknown fields and wrong types are errors
// naming "schedules.FIELD"; nothing is checked beyond types here (validate_schedule_settings).
Status merge_schedule_settings(const Json& v, ScheduleSettings& s);
// The getState object.
Json schedule_settings_to_json(const ScheduleSettings& s);
// Checks names, bounds and each schedule's own rules (DualPipe's even devices, interleaved's
// micro-batch multiple, w <= b ...) through the core; errors name "schedules.FIELD".
Status validate_schedule_settings(const ScheduleSettings& s);

// The simulated schedules of the current inputs, cached by their key.
struct SchedulesView {
  std::string key;                      // inputs the report (or error) is for
  std::optional<ScheduleReport> report; // one run per schedule shown
  std::optional<Error> error;
  std::vector<double> step_times;       // the union of the runs' step times (schedule_step_times)
  double makespan = 0;                  // the longest of the runs
  double simulate_ms = 0;               // wall time the last simulation took (elapsed, not a result)
  uint64_t revision = 0;                // bumped on every new report
  uint64_t drawn_revision = 0;          // the revision the panel last drew (a frame shows the change)
  double draw_ms = 0;                   // wall time the panel's last frame took (elapsed, not a result)
  // Where the panel drew its playback buttons in the last frame ("play", "step", ...): x, y,
  // width, height in framebuffer pixels (result().schedules.controls; the browser test clicks there).
  std::map<std::string, std::array<float, 4>> controls_px;
  std::vector<double> plan_latency_ms;  // the plan source's per-device latencies in use (with receiving)
  double plan_send_ms = 0;              // its slowest boundary's send, one way
  std::vector<double> plan_boundary_ms; // per stage its boundary's send/recv, both ways (0 for the last)
  double plan_forward_share = 0, plan_weight_share = 0;   // how its stages split (the report's shares)
  int plan_microbatches = 0;            // the plan's micro-batches (the page's)
};

// The plan source: the inter-op plan shown, how its stages split (`inter --json`'s
// forward_share and weight_share) and its micro-batches (the page's).
struct SchedulePlanSource {
  const InterOpPlan* plan = nullptr;    // nullptr: none yet
  PlanShares shares;
  int microbatches = 1;
};

// The request of the settings; with source "plan", `source` gives the stages as plan_pipeline
// makes them (the input `autopar inter --schedule` simulates; the tab's micro-batches field is
// then the plan's).
ScheduleCompareRequest schedule_compare_request(const ScheduleSettings& s, const SchedulePlanSource& source);
// Re-simulates when the inputs changed (a no-op otherwise); returns true when it did.
bool refresh_schedules_view(SchedulesView& view, const ScheduleSettings& s, const SchedulePlanSource& source);

// Advances a playing cursor by `dt_s` seconds of wall time; stops at the makespan.
void advance_schedule_playback(ScheduleSettings& s, const SchedulesView& view, double dt_s);
// The cursor moved to the next (+1) or previous (-1) step time.
double schedule_step_time(const SchedulesView& view, double time, int direction);

// result().schedules: {source, time, step, steps, playing, speed, makespan, simulate_ms, revision,
// drawn_revision, draw_ms, controls {name: {x, y, w, h}},
// schedules: [schedule_figures_json + in_flight_now (per device at the cursor), passes_done]}
// or {error} when the inputs are wrong; null before the tab has computed anything.
Json schedules_result_json(const SchedulesView& view, const ScheduleSettings& s);

}  // namespace autopar::web
