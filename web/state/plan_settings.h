// The pipeline plan the page prices (getState().plan), its text in `inter --plan` syntax, its
// checks with the core's bounds, and its JSON (settings_json.cpp reads and writes it). No ImGui.
#pragma once
#include <cstdint>
#include <string>

#include "json_io.h"
#include "result.h"

namespace autopar::web {

// The Megatron-style plan the page prices (getState().plan): `inter --plan` and `memory --plan`'s
// keys t, p, d, cp, ep, v, mbs, sp, recompute, zero and reshard under the names a reader of the
// Ultra-Scale Playbook knows (tp, pp, dp, ...), and the optimizer whose state it counts. The
// Model & Cluster tab shows its memory per pipeline stage; the inter-op tab prices it beside the
// planner's plan. Its bounds are the core's (parse_given_plan): checked by validate_settings_values.
struct PlanSettings {
  int tp = 1, pp = 2, dp = 4, cp = 1, ep = 1;   // tensor, pipeline, data, context, expert degrees (1 .. kMaxDevices)
  int v = 1;                                    // interleaved virtual stages per GPU
  int mbs = 0;                                  // sequences per micro-batch per replica; 0: the page's micro-batches decide
  int first = 0, last = 0;                      // layers of the first and last stage (0: an equal share), as first= and last=
  bool sp = false;                              // sequence parallelism (needs tp >= 2)
  std::string recompute = "full";               // none, selective or full
  int zero = 0;                                 // ZeRO stage 0..3 (3 = FSDP)
  bool reshard = true;                          // under zero 3: free gathered weights after the forward pass
  std::string optimizer = "adam";               // adam or sgd
  bool operator==(const PlanSettings& o) const {
    return tp == o.tp && pp == o.pp && dp == o.dp && cp == o.cp && ep == o.ep && v == o.v && mbs == o.mbs && first == o.first && last == o.last && sp == o.sp &&
           recompute == o.recompute && zero == o.zero && reshard == o.reshard && optimizer == o.optimizer;
  }
};
// The plan in `inter --plan` syntax ("t=8,p=16,d=1,sp=1,recompute=selective,zero=1").
std::string plan_settings_text(const PlanSettings& p);
// The GPUs the plan uses: tp x pp x dp x cp.
int64_t plan_settings_devices(const PlanSettings& p);

// Checks every field with the core's bounds (degrees 1 .. kMaxDevices, zero 0..3, recompute,
// optimizer) and the plan as parse_given_plan reads it (sp needs tp >= 2, reshard=0 needs zero 3);
// errors name the field (plan.zero) or the plan.
Status validate_plan_settings(const PlanSettings& p);
// Merges a (partial) plan object {tp, pp, dp, cp, ep, v, mbs, first, last, sp, recompute, zero, reshard,
// optimizer} into `p`; an unknown field or a wrong type is an error naming it (plan.FIELD).
Status merge_plan_settings(const Json& j, PlanSettings& p);
// The plan as that object.
Json plan_settings_to_json(const PlanSettings& p);

}  // namespace autopar::web
