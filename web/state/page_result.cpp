// result(): the numbers the page shows. See page_result.h.
#include "page_result.h"

#include <algorithm>
#include <functional>

#include "cluster_spec.h"
#include "exercise_grading.h"
#include "plan_knobs.h"

namespace autopar::web {

namespace {
// result().frame_ms: median and max over the recent frames of the whole frame and of the app's
// own work, in ms.
Json frame_stats_json(const FrameStats& stats) {
  if (stats.total_ms.empty()) return nullptr;
  std::vector<float> total = stats.total_ms, work = stats.work_ms;
  std::sort(total.begin(), total.end());
  std::sort(work.begin(), work.end());
  // Per frame, oldest first (a test takes the frames of one phase from the end): the app's own
  // work, the whole frame, the vertices drawn.
  Json work_last = Json::array(), total_last = Json::array(), vertices_last = Json::array();
  const size_t n = stats.work_ms.size();
  for (size_t k = 0; k < n; ++k) {
    work_last.push_back(stats.work_ms[(stats.next + k) % n]);
    total_last.push_back(stats.total_ms[(stats.next + k) % n]);
    vertices_last.push_back(stats.vertices[(stats.next + k) % n]);
  }
  return Json{{"median", total[total.size() / 2]}, {"max", total.back()},
              {"work_median", work[work.size() / 2]}, {"work_max", work.back()},
              {"samples", total.size()}, {"frames", stats.frames}, {"work_last", work_last},
              {"total_last", total_last}, {"vertices_last", vertices_last}};
}
}  // namespace

Json operation_inputs(const Settings& s) {
  Json j{{"model", s.model}};
  if (!s.model_json.empty()) j["model_json"] = s.model_json;
  j["cluster"] = s.custom_cluster ? cluster_to_json(*s.custom_cluster) : Json(s.cluster);
  if (!s.precision.empty()) j["precision"] = s.precision;   // as the page loads them (load_model_field, load_cluster_field)
  return j;
}

PlanMemoryInputs plan_memory_inputs(const Settings& s) {
  PlanMemoryInputs in;
  in.worker_inputs = operation_inputs(s);
  in.plan = plan_settings_text(s.plan);
  in.microbatches = int(s.microbatches);
  in.optimizer = s.plan.optimizer;
  return in;
}

void refresh_plan_memory(AppState& state) { follow_plan_memory(state.plan_memory, *state.alpa.inter.worker, plan_memory_inputs(state.settings)); }

std::vector<PlanMemoryInputs> plan_memory_around(const AppState& state) {
  const int layers = plan_layer_count(state.graph);
  std::vector<PlanMemoryInputs> around;
  Settings s = state.settings;
  for (const PlanKnobStep& step : plan_knob_steps(state.settings.plan, state.cluster.num_devices(), layers, state.plan_moves.before)) {
    // Two knobs can make one plan (pp up refills dp as dp down refills pp): it is computed once.
    const bool seen = std::any_of(around.begin(), around.end(), [&](const PlanMemoryInputs& in) { return in.plan == plan_settings_text(step.plan) && in.optimizer == step.plan.optimizer; });
    if (seen) continue;
    s.plan = step.plan;
    around.push_back(plan_memory_inputs(s));
  }
  return around;
}

bool prefetch_plan_memory_around(AppState& state) {
  state.plan_moves.follow(state.settings.plan);
  return prefetch_plan_memory(state.plan_memory, *state.alpa.inter.worker, plan_memory_inputs(state.settings), [&state] { return plan_memory_around(state); });
}

AlpaInputs alpa_inputs(const AppState& state) {
  AlpaInputs in;
  in.model = state.settings.model;
  // An imported model is identified by its content: the same name may hold another file.
  if (!state.settings.model_json.empty()) in.model += "#" + std::to_string(std::hash<std::string>{}(state.settings.model_json));
  if (!state.settings.precision.empty()) in.model += "@" + state.settings.precision;   // the worker loads the model and cluster with it
  in.cluster = state.settings.custom_cluster ? cluster_to_json(*state.settings.custom_cluster).dump() : state.settings.cluster;
  in.mesh = state.settings.mesh;
  in.solver = state.alpa.intra.solver;
  in.reduce_scatter = state.alpa.intra.reduce_scatter;
  in.remat = state.alpa.intra.remat;
  in.alpa_costs = alpa_costs_key(state.alpa.intra);
  in.microbatches = int(state.settings.microbatches);
  in.ignore_boundaries = state.settings.ignore_boundaries;
  in.space = state.settings.space;
  in.worker_inputs = operation_inputs(state.settings);
  return in;
}

void refresh_intra_plan(AppState& state) {
  const AlpaInputs in = alpa_inputs(state);
  request_intra_plan(state.alpa.intra, in, state.alpa.inter.worker);
  take_intra_plan(state.alpa.intra, in, state.graph, state.cluster);
}

void refresh_inter_plan(AppState& state) {
  // A script reading result() asks for the plan in any tab, as it does for the intra-op plan
  // (INTERFACES.md: total_latency follows the state without planInter()); the frames plan it
  // by themselves only where it is shown.
  follow_inter_plan(state.alpa.inter, alpa_inputs(state), state.graph, state.cluster);
  take_inter_plan(state.alpa.inter, alpa_inputs(state), state.graph, state.cluster);
}

Json result_to_json(const AppState& state) {
  Json j;
  j["model"] = state.settings.model;
  j["model_name"] = state.graph.name();
  j["cluster"] = state.settings.custom_cluster ? std::string("custom") : state.settings.cluster;
  j["mesh"] = state.settings.mesh;
  j["ops"] = int64_t(state.graph.ops.size());
  j["total_forward_flops"] = state.graph.total_forward_flops();
  j["total_param_bytes"] = state.graph.total_param_bytes();
  j["total_param_elements"] = state.graph.total_param_elements();
  j["num_devices"] = state.cluster.num_devices();
  j["space"] = Json{{"strategies", state.space.strategies}, {"log10_strategies", state.space.log10_strategies}};
  j.update(flexflow_result_json(state.flexflow));
  j["strategy"] = state.settings.strategy;
  j["strategy_json"] = state.flexflow.task_graph ? strategy_to_json(state.graph, state.flexflow.strategy) : Json(nullptr);
  j["timeline"] = Json{{"t0_ms", state.timeline.t0_ms},
                       {"t1_ms", state.timeline.t1_ms},
                       {"fit", state.timeline.fit},
                       {"lanes", state.flexflow.lanes.devices.size()}};
  j.update(alpa_result_json(state.alpa, alpa_inputs(state)));
  // The recipe the expert strategy follows for this model (soap.h: cnn, transformer or dlrm).
  j["expert_recipe"] = expert_recipe_name(expert_recipe(state.graph));
  j["search"] = search_result_json(state.search, state.settings.search.running);
  j["search"]["inspector"] = inspector_json(state.inspector, state.search.view.steps, state.graph);
  j["accuracy"] = accuracy_result_json(state.accuracy);
  j["scenario"] = lecture_result_json(state.lecture);
  j["compare"] = compare_result_json(state.compare);
  j["schedules"] = schedules_result_json(state.schedules, state.settings.schedules);
  j["plan_memory"] = plan_memory_result_json(state.plan_memory, plan_memory_inputs(state.settings));
  j["exercise"] = exercise_result_json(state);
  j["frame_ms"] = frame_stats_json(state.frame_stats);
  // The About box's GLPK version, as the workers reported it (null before: the page links none).
  const std::string& glpk = state.alpa.inter.worker->glpk_version();
  j["glpk"] = glpk.empty() ? Json(nullptr) : Json(glpk);
  Json tabs = Json::array();
  for (size_t t = 0; t < state.ui.tabs.size(); ++t)
    tabs.push_back(Json{{"x", state.ui.tabs[t][0]}, {"y", state.ui.tabs[t][1]}, {"w", state.ui.tabs[t][2]}, {"h", state.ui.tabs[t][3]}});
  Json languages = Json::object();   // where the menu bar's language switch draws each language
  for (const auto& [code, r] : state.ui.languages) languages[code] = Json{{"x", r[0]}, {"y", r[1]}, {"w", r[2]}, {"h", r[3]}};
  Json places = Json::object();   // fields and panels the input tests click next to or swipe to
  for (const auto& [name, r] : state.ui.places) places[name] = Json{{"x", r[0]}, {"y", r[1]}, {"w", r[2]}, {"h", r[3]}};
  j["ui"] = Json{{"tabs", tabs},
                 {"scroll_y_sum", state.ui.scroll_y_sum},
                 {"welcome", state.show_welcome},
                 {"languages", languages},
                 {"places", places},
                 {"keys_held_back", state.ui.keys_held_back},
                 {"display", Json{{"w", state.ui.display_w}, {"h", state.ui.display_h}}}};
  j["notice"] = Json{{"level", state.notice.level == NoticeLevel::error ? "error" : "info"}, {"text", state.notice.text},
                     {"code", state.notice.code ? error_code_name(*state.notice.code) : ""}, {"path", state.notice.path}};
  return j;
}

}  // namespace autopar::web
