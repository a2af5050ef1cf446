// The plan's knobs as rules. See plan_knobs.h.
#include "plan_knobs.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "memory_model.h"

namespace autopar::web {
namespace {

const std::array<const char*, 3> kRecomputeValues = {"none", "selective", "full"};
constexpr int kZeroStages = 4;   // ZeRO 0 (off) .. 3 (FSDP)

int* degree_field(PlanSettings& p, PlanKnob k) {
  switch (k) {
    case PlanKnob::tp: return &p.tp;
    case PlanKnob::pp: return &p.pp;
    case PlanKnob::dp: return &p.dp;
    case PlanKnob::cp: return &p.cp;
    case PlanKnob::ep: return &p.ep;
    default: return nullptr;
  }
}

int sign(int x) { return (x > 0) - (x < 0); }

}  // namespace

const char* plan_knob_name(PlanKnob k) {
  static const char* const names[] = {"tp", "pp", "dp", "cp", "ep", "v", "mbs", "first", "last", "sp", "recompute", "zero", "reshard", "optimizer"};
  return names[int(k)];
}

int plan_layer_count(const Graph& g) {
  static std::pair<std::string, size_t> seen{"", 0};
  static int count = 1;
  if (seen.first != g.name() || seen.second != g.ops.size()) {
    seen = {g.name(), g.ops.size()};
    count = std::max(1, int(find_layers(g).layers.size()));
  }
  return count;
}

std::vector<int> plan_degree_values(int devices) {
  std::vector<int> d;
  for (int k = 1; k <= devices; ++k)
    if (devices % k == 0) d.push_back(k);
  return d;
}

int plan_fill_dp(int devices, const PlanSettings& p) {
  const int64_t rest = int64_t(p.tp) * p.pp * p.cp;
  return rest > 0 && devices % rest == 0 ? int(devices / rest) : 1;
}

PlanSettings with_plan_degree(PlanSettings p, PlanKnob knob, int value, int devices) {
  int* field = degree_field(p, knob);
  if (!field) return p;
  *field = value;
  if (knob == PlanKnob::tp || knob == PlanKnob::pp || knob == PlanKnob::cp) p.dp = plan_fill_dp(devices, p);
  if (knob == PlanKnob::tp && p.tp == 1) p.sp = false;
  if (knob == PlanKnob::dp) {
    const int64_t rest = int64_t(p.tp) * p.dp * p.cp;
    if (rest > 0 && devices % rest == 0) p.pp = int(devices / rest);
  }
  return p;
}

PlanSettings with_plan_zero(PlanSettings p, int zero) {
  p.zero = zero;
  if (zero != 3) p.reshard = true;
  return p;
}

int plan_knob_value(const PlanSettings& p, PlanKnob k) {
  switch (k) {
    case PlanKnob::tp: return p.tp;
    case PlanKnob::pp: return p.pp;
    case PlanKnob::dp: return p.dp;
    case PlanKnob::cp: return p.cp;
    case PlanKnob::ep: return p.ep;
    case PlanKnob::v: return p.v;
    case PlanKnob::mbs: return p.mbs;
    case PlanKnob::first: return p.first;
    case PlanKnob::last: return p.last;
    case PlanKnob::sp: return p.sp ? 1 : 0;
    case PlanKnob::recompute: return int(std::find(kRecomputeValues.begin(), kRecomputeValues.end(), p.recompute) - kRecomputeValues.begin());
    case PlanKnob::zero: return p.zero;
    case PlanKnob::reshard: return p.reshard ? 1 : 0;
    case PlanKnob::optimizer: return p.optimizer == "sgd" ? 1 : 0;
  }
  return 0;
}

std::vector<PlanKnobStep> plan_knob_steps(const PlanSettings& p, int devices, int layers, const PlanSettings& before) {
  std::vector<PlanKnobStep> steps;
  auto add = [&](PlanKnob k, const PlanSettings& next) {
    if (next == p || !validate_plan_settings(next).ok()) return;
    steps.push_back(PlanKnobStep{k, sign(plan_knob_value(next, k) - plan_knob_value(p, k)), next});
  };
  // The degree sliders move over the divisors, from where the value sits among them (the next
  // divisor up when it is none), as draw_plan_knobs' slider does.
  const std::vector<int> degrees = plan_degree_values(devices);
  for (PlanKnob k : {PlanKnob::tp, PlanKnob::pp, PlanKnob::dp, PlanKnob::cp, PlanKnob::ep}) {
    if (degrees.empty()) break;
    const int value = plan_knob_value(p, k);
    size_t at = 0;
    while (at + 1 < degrees.size() && degrees[at] < value) ++at;
    if (at > 0) add(k, with_plan_degree(p, k, degrees[at - 1], devices));
    if (at + 1 < degrees.size()) add(k, with_plan_degree(p, k, degrees[at + 1], devices));
  }
  // The count sliders, clamped to their ranges.
  struct Count {
    PlanKnob knob;
    int PlanSettings::*field;
    int low, high;
  };
  for (const Count& c : {Count{PlanKnob::v, &PlanSettings::v, 1, kPlanKnobMaxInterleave}, Count{PlanKnob::mbs, &PlanSettings::mbs, 0, kPlanKnobMaxMicroBatchSize},
                         Count{PlanKnob::first, &PlanSettings::first, 0, layers}, Count{PlanKnob::last, &PlanSettings::last, 0, layers}}) {
    for (int d : {-1, 1}) {
      PlanSettings next = p;
      next.*c.field = std::clamp(p.*c.field + d, c.low, std::max(c.low, c.high));
      add(c.knob, next);
    }
  }
  if (p.tp >= 2) {   // the SP box is disabled below tp 2
    PlanSettings next = p;
    next.sp = !p.sp;
    add(PlanKnob::sp, next);
  }
  for (const char* r : kRecomputeValues) {
    PlanSettings next = p;
    next.recompute = r;
    add(PlanKnob::recompute, next);
  }
  for (int z = 0; z < kZeroStages; ++z) add(PlanKnob::zero, with_plan_zero(p, z));
  if (p.zero == 3) {   // the reshard box is disabled below ZeRO 3
    PlanSettings next = p;
    next.reshard = !p.reshard;
    add(PlanKnob::reshard, next);
  }
  PlanSettings other = p;
  other.optimizer = p.optimizer == "sgd" ? "adam" : "sgd";
  add(PlanKnob::optimizer, other);
  // What moved last goes first: its step the same way, then the other way.
  auto rank = [&](const PlanKnobStep& s) {
    const int moved = sign(plan_knob_value(p, s.knob) - plan_knob_value(before, s.knob));
    if (moved == 0) return 2;
    return s.direction == moved ? 0 : 1;
  };
  std::stable_sort(steps.begin(), steps.end(), [&](const PlanKnobStep& a, const PlanKnobStep& b) { return rank(a) < rank(b); });
  return steps;
}

}  // namespace autopar::web
