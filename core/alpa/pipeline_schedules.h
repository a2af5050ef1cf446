// Pipeline schedules as the field runs them (lecture 6.3): GPipe (Huang et al. 2019), 1F1B
// (PipeDream-Flush, Narayanan et al. 2021), interleaved 1F1B (Megatron-LM, Narayanan et al.
// SC'21), ZB-H1, ZB-H2 and ZB-V (zero bubble, Qi et al. ICLR 2024, arXiv 2401.10241), DualPipe and
// DualPipeV (DeepSeek-V3 technical report 2024, Table 2; deepseek-ai/DualPipe).
//
// One model for all of them: each schedule is a per-device order of passes -- F (forward),
// B (backward: the whole backward, or only its input-gradient half when the schedule splits
// off W), W (the weight-gradient half) -- over the model's pipeline stages, and one simulator
// runs every order on the project's timeline rules: a device runs its passes in its order, one
// at a time, each as soon as its inputs have arrived; a result crossing devices is a send on
// that directed link's own lane (one transfer at a time per lane). From the timeline: the
// makespan, each device's idle time (the bubble), its micro-batches in flight over time and
// their peak, and the point-to-point traffic.
#pragma once
#include <string>
#include <vector>

#include "result.h"

namespace autopar {

struct Graph;

// The schedules. Names as `--schedule` spells them: gpipe, 1f1b, interleaved, zb-h1, zb-h2,
// zb-v, dualpipe, dualpipev.
enum class ScheduleKind { gpipe, one_f_one_b, interleaved, zb_h1, zb_h2, zb_v, dualpipe, dualpipe_v };

// Every schedule, in the order above.
const std::vector<ScheduleKind>& all_schedule_kinds();
// The name `--schedule` takes ("zb-h1").
const char* schedule_name(ScheduleKind kind);
// Reads a name as schedule_name spells it (any case); the error lists the names and names `path`.
Result<ScheduleKind> parse_schedule_kind(const std::string& name, const std::string& path = "--schedule");
// Stages of the model per device: 1, v (interleaved), 2 (the V shapes); DualPipe holds two
// copies of one stage (one per direction) and counts 1.
int schedule_chunks_per_device(ScheduleKind kind, int interleave);
// Copies of the parameters a device keeps: 2 for DualPipe (both directions), else 1.
int schedule_parameter_copies(ScheduleKind kind);
// True when the schedule computes W apart from B (zero bubble, DualPipe).
bool schedule_splits_weight_gradient(ScheduleKind kind);

// The bounds of a schedule's input, written once: validate_schedule_input checks them and the
// CLI's --stages, --microbatches and --v take the same (1 to each).
constexpr int kScheduleMaxDevices = 4096;
constexpr int kScheduleMaxMicrobatches = 65536;
constexpr int kScheduleMaxInterleave = 64;

// What to schedule: `devices` pipeline ranks, `microbatches` micro-batches, and per pipeline
// stage of the model (in pipeline order; devices x chunks of them, see stage_count) the time of
// one micro-batch's F, whole B (input and weight gradients) and W (the weight part of B).
struct ScheduleInput {
  ScheduleKind kind = ScheduleKind::one_f_one_b;
  int devices = 4;
  int microbatches = 8;
  int interleave = 2;                   // v, the chunks per device of interleaved 1F1B (other schedules ignore it)
  std::vector<double> forward_ms, backward_ms, weight_ms;   // per stage; weight_ms[s] <= backward_ms[s]
  double send_ms = 0;                   // one point-to-point transfer between devices, either way
  double send_bytes = 0;                // its size (the p2p volume counts it)
  // Per stage: its hand-over to the next stage (and the gradient's back), one way, in place of
  // send_ms (empty: send_ms everywhere).
  std::vector<double> boundary_send_ms;
};

// Stages of the model the schedule runs on `devices` ranks: devices x chunks per device.
int stage_count(ScheduleKind kind, int devices, int interleave);
// The device that runs stage `stage` (direction 1 is DualPipe's reverse pipeline).
int stage_device(ScheduleKind kind, int devices, int interleave, int stage, int direction = 0);

// An input whose every device's share of the model (its stages together) takes f, b and w per
// micro-batch: each of its c chunks takes f/c, b/c, w/c (DualPipe's two copies take f each).
ScheduleInput uniform_schedule_input(ScheduleKind kind, int devices, int microbatches, int interleave, double f_ms, double b_ms,
                                     double w_ms, double send_ms = 0);

// Checks an input: devices >= 1, micro-batches >= 1, times finite and >= 0 with w <= b, one
// time per stage, and each schedule's own rule (interleaved: micro-batches a multiple of the
// devices; DualPipe: devices even, micro-batches even and >= 2 x devices; DualPipeV:
// micro-batches >= 2 x devices). Errors name the field.
Status validate_schedule_input(const ScheduleInput& in);

// One pass on the timeline.
enum class PassKind { forward, backward, weight, send };
// "F", "B", "W", "send".
const char* pass_kind_letter(PassKind kind);

// A pass: on `device` (for a send: from `device` to `to_device`), of micro-batch `microbatch`
// at model stage `stage`, from start_ms to end_ms. A backward that includes its weight
// gradient has whole_backward set; a send carries a gradient when `gradient`.
struct SchedulePass {
  PassKind kind = PassKind::forward;
  int device = 0, to_device = -1;
  int stage = 0, microbatch = 0;
  int direction = 0;                    // DualPipe: 1 for the reverse pipeline's micro-batches
  bool whole_backward = false, gradient = false;
  double start_ms = 0, end_ms = 0;
};

// A point of a device's in-flight curve: from time_ms on, `inflight` micro-batches' activations
// are held (in units of the device's whole share: a chunk of an interleaved or V-shaped device
// counts 1/chunks).
struct InflightPoint {
  double time_ms = 0, inflight = 0;
};

// A simulated schedule.
struct ScheduleResult {
  ScheduleKind kind = ScheduleKind::one_f_one_b;
  int devices = 0, microbatches = 0, stages = 0, interleave = 1;
  std::vector<SchedulePass> passes;     // compute passes in start order per device, then the sends
  std::vector<std::vector<int>> order;  // per device: indices into passes, its compute passes in its order
  double makespan_ms = 0;
  std::vector<double> busy_ms, bubble_ms;   // per device: computing, and idle until the makespan
  double bubble_fraction = 0;           // idle share of devices x makespan
  std::vector<double> peak_inflight;    // per device, micro-batches (see InflightPoint)
  std::vector<std::vector<InflightPoint>> inflight;   // per device, its curve (steps, time ascending)
  int sends = 0;                        // point-to-point transfers
  double p2p_bytes = 0;                 // their volume (sends x send_bytes)
};

// Builds the schedule's order and simulates it; errors are validate_schedule_input's.
Result<ScheduleResult> simulate_schedule(const ScheduleInput& in);

// Per device, its idle time within its own span (from its first pass's start to its last
// pass's end) rather than from 0 to the makespan: Qi et al.'s bubble ("cost" = the longest
// stage's execution time), the iteration time when iterations overlap (their optimizer post
// validation), and the quantity of ZB-H2's closed form.
std::vector<double> schedule_span_bubble(const ScheduleResult& r);
// The longest device span (first pass start to last pass end): Qi et al.'s per-iteration cost.
double schedule_longest_span(const ScheduleResult& r);

// A pipeline plan (Alpa's inter-op plan, a given Megatron-style plan) run under a schedule.
// Per plan stage, in pipeline order: its time per micro-batch (forward and backward, the cost
// model's stage latency with its receiving) and its boundary to the next (a send forward and
// the gradient back). The forward takes `forward_share` of a stage's time (the model's forward
// FLOPs' share, about a third) and the backward the rest; W is `weight_share` of the backward
// (the weight-gradient FLOPs' share of the backward FLOPs). Devices keep their plan stage's time:
// a device holding c chunks runs each in 1/c of it; DualPipe's device d runs stage d forward
// and stage p-1-d in reverse, each in that stage's time.
struct PlanPipeline {
  std::vector<double> stage_ms, boundary_ms;
  double forward_share = 1.0 / 3;       // of a stage's time (plan_forward_share)
  double weight_share = 0.5;            // of its backward (plan_weight_share)
  int microbatches = 1;
};
// The forward FLOPs' share of a model's forward and backward FLOPs (1/3 without FLOPs).
double plan_forward_share(const Graph& g);
// The weight-gradient FLOPs' share of the backward FLOPs of a model: each op with parameters
// computes dW in its forward's multiply-adds; 0.5 for a model without backward FLOPs.
double plan_weight_share(const Graph& g);
// The schedule's input for a plan; errors are validate_schedule_input's.
Result<ScheduleInput> plan_schedule_input(const PlanPipeline& plan, ScheduleKind kind, int interleave);

// The published bubble (idle time per device) of a schedule on uniform stages with no sends, in
// the units of f, b and w (each device's share: DeepSeek-V3 Table 2's B is the whole backward,
// W its weight part): GPipe and 1F1B (p-1)(f+b); interleaved (p-1)(f+b)/v; ZB-H1 (p-1)(f+b-2w);
// ZB-H2 (p-1)(f+b-3w) (Qi et al. Table 2, (p-1)(T_F+T_B-2T_W) with their B the input half; like
// theirs it is each device's idle time within its own span, first pass to last, which
// schedule_span_bubble measures: the parallelogram's fill offset is not counted);
// DualPipe (p/2-1)(f&b+b-3w) with f&b = f+b (no overlap); DualPipeV, whose chunks are half a
// share, (p-1)(f&b+b-3w)/2. ZB-V has no closed form (a negative value says so).
double published_bubble(ScheduleKind kind, int devices, int interleave, double f, double b, double w);
// The published peak of activations held per device, in micro-batches of a device's share:
// GPipe m; 1F1B, ZB-H1 and ZB-V p; ZB-H2 2p-1 (Qi et al. Table 2, (2p-1)M_B); interleaved p + (p-1)/v (Korthikanti et al. 2022, 4.2.3);
// DualPipe p+1 and DualPipeV (2p+1)/2 (DeepSeek-V3 Table 2: PP+1 stages' activations).
double published_peak_inflight(ScheduleKind kind, int devices, int interleave, int microbatches);

}  // namespace autopar
