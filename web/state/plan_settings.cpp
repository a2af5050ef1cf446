// The page's pipeline plan. See plan_settings.h.
#include "plan_settings.h"

#include "cluster.h"
#include "inter_operation.h"
#include "request_fields.h"

namespace autopar::web {
namespace {

// The degrees' bound: parse_given_plan's (1 .. kMaxDevices, the largest cluster).
constexpr WholeBound kPlanDegreeBound{1, kMaxDevices};
// mbs, first, last: 0 (the page's micro-batches decide; an equal share) or a count up to
// kMaxDevices, as parse_given_plan takes mbs=, first= and last=.
constexpr WholeBound kPlanMicroBatchSizeBound{0, kMaxDevices};

// The whole-number fields, by name, with their bounds.
struct WholeField {
  const char* name;
  int PlanSettings::*field;
  WholeBound bound;
};
const WholeField kWholeFields[] = {{"tp", &PlanSettings::tp, kPlanDegreeBound}, {"pp", &PlanSettings::pp, kPlanDegreeBound},
                                   {"dp", &PlanSettings::dp, kPlanDegreeBound}, {"cp", &PlanSettings::cp, kPlanDegreeBound},
                                   {"ep", &PlanSettings::ep, kPlanDegreeBound}, {"v", &PlanSettings::v, kPlanDegreeBound},
                                   {"mbs", &PlanSettings::mbs, kPlanMicroBatchSizeBound}, {"first", &PlanSettings::first, kPlanMicroBatchSizeBound},
                                   {"last", &PlanSettings::last, kPlanMicroBatchSizeBound}, {"zero", &PlanSettings::zero, kZeroStageBound}};

// The state's path of a plan field: plan.NAME.
std::string field_path(const char* name) { return std::string("plan.") + name; }

}  // namespace

std::string plan_settings_text(const PlanSettings& p) {
  std::string t = "t=" + std::to_string(p.tp) + ",p=" + std::to_string(p.pp) + ",d=" + std::to_string(p.dp);
  if (p.cp > 1) t += ",cp=" + std::to_string(p.cp);
  if (p.ep > 1) t += ",ep=" + std::to_string(p.ep);
  if (p.v > 1) t += ",v=" + std::to_string(p.v);
  if (p.mbs > 0) t += ",mbs=" + std::to_string(p.mbs);
  if (p.first > 0) t += ",first=" + std::to_string(p.first);
  if (p.last > 0) t += ",last=" + std::to_string(p.last);
  if (p.sp) t += ",sp=1";
  t += ",recompute=" + p.recompute + ",zero=" + std::to_string(p.zero);
  if (!p.reshard) t += ",reshard=0";
  return t;
}

int64_t plan_settings_devices(const PlanSettings& p) { return int64_t(p.tp) * p.pp * p.dp * p.cp; }

Status validate_plan_settings(const PlanSettings& p) {
  for (const WholeField& f : kWholeFields)
    if (auto st = check_bound(int64_t(p.*(f.field)), f.bound, field_path(f.name)); !st.ok()) return st;
  if (p.recompute != "none" && p.recompute != "selective" && p.recompute != "full")
    return make_error(ErrorCode::bad_value, field_path("recompute") + " is \"" + p.recompute + "\"; it must be none, selective or full", field_path("recompute"));
  if (auto o = optimizer_from_text(p.optimizer, field_path("optimizer")); !o.ok()) return o.error();
  // The cross-field rules are the core's own (sp needs t >= 2, reshard=0 needs zero=3).
  if (auto g = parse_given_plan(plan_settings_text(p), "plan"); !g.ok()) return g.error();
  return Ok{};
}

Status merge_plan_settings(const Json& j, PlanSettings& p) {
  if (!j.is_object())
    return make_error(ErrorCode::wrong_type, "plan must be an object such as {\"tp\": 8, \"pp\": 16, \"dp\": 1, \"recompute\": \"selective\"}", "plan");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const std::string path = field_path(key.c_str());
    bool done = false;
    for (const WholeField& f : kWholeFields) {
      if (key != f.name) continue;
      auto x = whole_from_json(it.value(), path);
      if (!x.ok()) return x.error();
      if (auto st = check_bound(x.value(), f.bound, path); !st.ok()) return st;
      p.*(f.field) = int(x.value());
      done = true;
    }
    if (done) continue;
    if (key == "sp" || key == "reshard") {
      auto x = bool_from_json(it.value(), path);
      if (!x.ok()) return x.error();
      (key == "sp" ? p.sp : p.reshard) = x.value();
    } else if (key == "recompute" || key == "optimizer") {
      auto x = string_from_json(it.value(), path, key == "recompute" ? "none, selective or full" : "adam or sgd");
      if (!x.ok()) return x.error();
      (key == "recompute" ? p.recompute : p.optimizer) = x.value();
    } else {
      return make_error(ErrorCode::unknown_field, "plan has no field \"" + key + "\"; known: tp, pp, dp, cp, ep, v, mbs, first, last, sp, recompute, zero, reshard, optimizer", path);
    }
  }
  return Ok{};
}

Json plan_settings_to_json(const PlanSettings& p) {
  return Json{{"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp}, {"cp", p.cp}, {"ep", p.ep}, {"v", p.v}, {"mbs", p.mbs}, {"first", p.first}, {"last", p.last}, {"sp", p.sp},
              {"recompute", p.recompute}, {"zero", p.zero}, {"reshard", p.reshard}, {"optimizer", p.optimizer}};
}

}  // namespace autopar::web
