// The plan's knobs (the Model & Cluster and inter-op tabs' sliders, boxes and menus over
// getState().plan) as rules without ImGui: what moving one does to the plan (tp, pp and cp refill
// dp so the plan keeps the cluster's GPUs), and every plan one step of one knob away, which the
// per-stage memory view computes ahead so that a slider moved one step finds its numbers cached.
#pragma once
#include <vector>

#include "graph.h"
#include "plan_settings.h"

namespace autopar::web {

// The knobs, in the order the controls are drawn.
enum class PlanKnob { tp, pp, dp, cp, ep, v, mbs, first, last, sp, recompute, zero, reshard, optimizer };
// Its name, as getState().plan names the field ("tp", "recompute").
const char* plan_knob_name(PlanKnob k);

// The v and mbs sliders' upper ends (the core takes more; the sliders stop at what a reader tries).
constexpr int kPlanKnobMaxInterleave = 8;
constexpr int kPlanKnobMaxMicroBatchSize = 16;

// The first and last sliders' upper end: the model's repeating layers (find_layers; at least 1),
// counted once per loaded graph (its name and op count).
int plan_layer_count(const Graph& g);

// The values a degree slider offers on `devices` GPUs: its divisors, ascending.
std::vector<int> plan_degree_values(int devices);
// The data-parallel degree that fills `devices` with tp x pp x cp (1 when it does not divide).
int plan_fill_dp(int devices, const PlanSettings& p);
// `p` after a degree slider (tp, pp, dp, cp or ep) set it to `value`: tp, pp and cp refill dp,
// dp refills pp (when the rest divides the GPUs), tp 1 drops sp (it splits along the tensor
// group); ep moves alone. Other knobs: `p` unchanged.
PlanSettings with_plan_degree(PlanSettings p, PlanKnob knob, int value, int devices);
// `p` after the ZeRO menu chose `zero`: a stage other than 3 frees gathered weights (reshard=0 is
// ZeRO 3's only).
PlanSettings with_plan_zero(PlanSettings p, int zero);

// A knob's value as a whole number (a menu's index, a box's 0 or 1), for directions.
int plan_knob_value(const PlanSettings& p, PlanKnob k);

// The page's plan before its last change and now: which knob moved last, and which way, for
// plan_knob_steps' order.
struct PlanMoves {
  PlanSettings before, now;
  // Records `plan` as now (the old now becomes before) when it changed.
  void follow(const PlanSettings& plan) {
    if (plan == now) return;
    before = now;
    now = plan;
  }
};

// One step of one knob and the plan it gives.
struct PlanKnobStep {
  PlanKnob knob;
  int direction;      // +1: the slider's next value (a box ticked, a later menu entry); -1: the previous
  PlanSettings plan;
};
// Every valid plan (validate_plan_settings) one step of one knob away from `p` on `devices` GPUs
// and a model of `layers` layers, as the controls make them: each degree slider to the
// neighbouring divisor either way; v, mbs, first and last one either way within their sliders;
// SP and reshard toggled where their box is enabled; the other recomputations, ZeRO stages and
// optimizer. The knobs that changed from `before` to `p` come first, their step the same way
// first (a slider being dragged goes on), then the rest in the controls' order.
std::vector<PlanKnobStep> plan_knob_steps(const PlanSettings& p, int devices, int layers, const PlanSettings& before);

}  // namespace autopar::web
