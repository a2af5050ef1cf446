// The pipeline (inter-op) tab as the page runs it, without ImGui (issue 40, problems 2, 4, 6):
// the plan follows every change of its inputs where it is shown (debounced, a superseded planning
// cancelled, a link restores it); the terms the tab shows redo the total by hand; the schedules'
// bubble and memory read off their boxes; Compare simulates the very plan the tab shows, with
// the page's micro-batches. The worker is in-process here (WorkerClient without a pool).
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "alpa_view.h"
#include "app_state.h"
#include "cluster_spec.h"
#include "compare.h"
#include "format_units.h"
#include "inter_operation.h"
#include "models.h"
#include "page_strings.h"
#include "pipeline_schedule.h"
#include "share_link.h"

using namespace autopar;
using namespace autopar::web;

namespace {

// `autopar inter --model M --cluster C --microbatches B [--ignore-boundaries]`'s plan.
InterOpPlan cli_inter(const std::string& model, const std::string& cluster, int microbatches, bool boundaries = true) {
  const Graph g = load_model(model).value();
  const Cluster c = load_cluster(cluster).value();
  InterRequest r;
  r.microbatches = microbatches;
  r.boundaries = boundaries;
  InterJob job(g, c, r);
  const auto& report = run_to_end(job);
  REQUIRE(report.ok());
  return report.value().plan;
}

// Frames of the page (the background work of each) until no pipeline planning is due or runs;
// a debounced start waits for real time to pass, so the loop sleeps a little between frames.
void run_frames(AppState& state, int max_frames = 20000) {
  for (int k = 0; k < max_frames && (state.alpa.inter.job || state.alpa.inter.start_waiting); ++k) {
    ++state.frame_stats.frames;
    advance_background_work(state, 5);
    if (state.alpa.inter.start_waiting) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

Json result(AppState& state) {
  refresh_inter_plan(state);
  return result_to_json(state);
}

}  // namespace

TEST_CASE("the pipeline plan follows micro-batches and cluster where it is shown, superseded plannings cancelled") {
  AppState state;
  REQUIRE(init_app_state(state).ok());
  // Elsewhere (the Model tab) a change plans nothing by itself: the frames follow the plan where
  // it is shown. A script reading result() asks for it, as for the intra-op plan.
  REQUIRE(apply_settings_json(state, R"({"model":"transformer:layers=4","cluster":"lecture:2x4","microbatches":8})").ok());
  CHECK(!inter_planning(state.alpa.inter));
  for (int k = 0; k < 5; ++k) {
    ++state.frame_stats.frames;
    advance_background_work(state, 1);
  }
  CHECK(!inter_planning(state.alpa.inter));
  CHECK(result(state)["total_latency"].is_null());
  CHECK(inter_planning(state.alpa.inter));
  // The inter-op tab in front: planning starts with the change itself, no Plan pressed.
  REQUIRE(apply_settings_json(state, R"({"panel":"inter"})").ok());
  CHECK(inter_planning(state.alpa.inter));
  run_frames(state);
  Json r = result(state);
  REQUIRE(r["total_latency"].is_number());
  CHECK(r["total_latency"].get<double>() == cli_inter("transformer:layers=4", "lecture:2x4", 8).total_latency);
  // Micro-batches "+": re-planned for 9... 16 (a change within the debounce time waits, then plans once).
  REQUIRE(apply_settings_json(state, R"({"microbatches":16})").ok());
  CHECK((inter_planning(state.alpa.inter) || state.alpa.inter.start_waiting));
  CHECK(result(state)["total_latency"].is_null());   // the stale plan is never reported for new inputs
  run_frames(state);
  r = result(state);
  REQUIRE(r["total_latency"].is_number());
  CHECK(r["total_latency"].get<double>() == cli_inter("transformer:layers=4", "lecture:2x4", 16).total_latency);
  // A cluster change likewise.
  REQUIRE(apply_settings_json(state, R"({"cluster":"lecture:1x8"})").ok());
  run_frames(state);
  r = result(state);
  REQUIRE(r["total_latency"].is_number());
  CHECK(r["total_latency"].get<double>() == cli_inter("transformer:layers=4", "lecture:1x8", 16).total_latency);
  CHECK(r["stages"].size() == cli_inter("transformer:layers=4", "lecture:1x8", 16).stages.size());

  // A burst of changes: each supersedes the planning before it, which is cancelled in the worker
  // (one job at most), and the last inputs are planned.
  std::this_thread::sleep_for(std::chrono::milliseconds(int(kInterFollowDebounceMs) + 10));
  for (int b : {2, 4, 8}) {
    REQUIRE(apply_settings_json(state, Json{{"microbatches", b}}.dump()).ok());
    CHECK(state.alpa.inter.worker->pending() <= 1);
  }
  CHECK(state.alpa.inter.start_waiting);   // the first started at once, the later ones wait for the debounce
  run_frames(state);
  CHECK(state.alpa.inter.worker->pending() == 0);
  CHECK(result(state)["total_latency"].get<double>() == cli_inter("transformer:layers=4", "lecture:1x8", 8).total_latency);

  // Cancel: these inputs are not planned again by themselves; a change plans the new ones.
  std::this_thread::sleep_for(std::chrono::milliseconds(int(kInterFollowDebounceMs) + 10));
  REQUIRE(apply_settings_json(state, R"({"microbatches":32})").ok());
  REQUIRE(inter_planning(state.alpa.inter));
  cancel_inter_plan(state.alpa.inter);
  run_frames(state);
  CHECK(!inter_planning(state.alpa.inter));
  CHECK(result(state)["total_latency"].is_null());
  CHECK(!has_background_work(state));
  REQUIRE(apply_settings_json(state, R"({"microbatches":4})").ok());
  run_frames(state);
  CHECK(result(state)["total_latency"].get<double>() == cli_inter("transformer:layers=4", "lecture:1x8", 4).total_latency);
  // A planner's error is shown for its inputs and not retried frame after frame.
  REQUIRE(apply_settings_json(state, R"({"microbatches":3})").ok());   // a batch of 64 does not split into 3
  run_frames(state);
  r = result(state);
  CHECK(r["total_latency"].is_null());
  CHECK(r["inter_error"].is_object());
  CHECK(!inter_planning(state.alpa.inter));
  CHECK(!state.alpa.inter.start_waiting);
}

TEST_CASE("a share link to the pipeline tab opens with its plan") {
  AppState state;
  REQUIRE(init_app_state(state).ok());
  REQUIRE(apply_settings_json(state, R"({"model":"transformer:layers=4","cluster":"lecture:2x4","microbatches":8,"panel":"inter"})").ok());
  const std::string link = share_fragment(state.settings);
  AppState opened;
  REQUIRE(init_app_state(opened).ok());
  REQUIRE(apply_share_fragment(opened, link, "the link").ok());
  CHECK(inter_planning(opened.alpa.inter));
  run_frames(opened);
  const Json r = result(opened);
  REQUIRE(r["total_latency"].is_number());
  CHECK(r["total_latency"].get<double>() == cli_inter("transformer:layers=4", "lecture:2x4", 8).total_latency);
}

TEST_CASE("the terms the inter-op tab shows redo the plan's total and t_max by hand") {
  // The lecture's 24-layer transformer on 4x8 with 32 micro-batches (issue 40: t_max 8.267 ms
  // against a largest stage latency of 8.192 ms: the receiving is part of the lane).
  for (bool boundaries : {true, false}) {
    CAPTURE(boundaries);
    const InterOpPlan plan = cli_inter("transformer:layers=24", "lecture:4x8", 32, boundaries);
    const InterOpTerms t = inter_op_terms(plan, 32);
    CHECK(t.t_max == plan.t_max);
    CHECK(std::fabs(t.total_ms - plan.total_latency) <= 1e-9 * plan.total_latency);
    double sum = 0, largest_latency = 0;
    for (size_t k = 0; k < plan.stages.size(); ++k) {
      sum += t.lane_ms[k] + t.send_ms[k];
      largest_latency = std::max(largest_latency, plan.stages[k].latency);
      CHECK(t.lane_ms[k] == plan.stages[k].latency + (boundaries ? plan.stages[k].recv_ms : 0.0));
    }
    CHECK(sum == doctest::Approx(t.sum_ms));
    const double marked = t.t_max_is_send ? t.send_ms[size_t(t.t_max_stage)] : t.lane_ms[size_t(t.t_max_stage)];
    CHECK(marked == t.t_max);
    // With boundaries the largest stage latency alone is not t_max: a reader needs the receive term.
    if (boundaries) CHECK(t.t_max > largest_latency);
    else CHECK(t.t_max == largest_latency);
  }
}

TEST_CASE("the schedules' bubble and activations in flight read off their boxes; the sentence says why 1F1B is slower") {
  const InterOpPlan plan = cli_inter("transformer:layers=24", "lecture:4x8", 32);
  const int stages = int(plan.stages.size());
  const PipelineSchedule gpipe = plan_pipeline_schedule(plan, 32, PipelineKind::gpipe);
  const PipelineSchedule f1b = plan_pipeline_schedule(plan, 32, PipelineKind::one_f_one_b);
  for (const PipelineSchedule* s : {&gpipe, &f1b}) {
    const ScheduleReading r = read_schedule(*s, stages);
    double busy = 0;
    for (const PipelineBox& b : s->boxes)
      if (!b.transfer) busy += b.end_ms - b.start_ms;
    // The idle time drawn is the bubble fraction's: stages x makespan - busy.
    CHECK(r.idle_ms == doctest::Approx(double(stages) * s->makespan_ms - busy).epsilon(1e-9));
    CHECK(r.idle_ms == doctest::Approx(s->bubble_fraction * double(stages) * s->makespan_ms).epsilon(1e-9));
    for (const auto& gaps : r.idle)
      for (const auto& [a, b] : gaps) CHECK((a >= 0 && b > a && b <= s->makespan_ms + 1e-9));
  }
  // GPipe holds every micro-batch's activations; 1F1B fewer.
  CHECK(read_schedule(gpipe, stages).peak_in_flight == 32);
  CHECK(read_schedule(f1b, stages).peak_in_flight < 32);
  CHECK(read_schedule(f1b, stages).peak_in_flight >= stages);
  // Here 1F1B is slower (cross-node send/recv against the stage time), and the sentence says why, with the charts' numbers.
  REQUIRE(f1b.makespan_ms > gpipe.makespan_ms);
  set_page_language(Language::en);
  const std::string why = schedule_explanation(plan, gpipe, f1b, 32);
  CHECK(why.find("Why 1F1B takes longer here") != std::string::npos);
  CHECK(why.find(format_ms(f1b.makespan_ms)) != std::string::npos);
  CHECK(why.find(format_ms(gpipe.makespan_ms)) != std::string::npos);
  set_page_language(Language::zh);
  CHECK(schedule_explanation(plan, gpipe, f1b, 32).find("1F1B 更慢") != std::string::npos);
  set_page_language(Language::en);
  // Without boundaries both run the same stages with no transfer: 1F1B is not slower, and the sentence says memory.
  const InterOpPlan free = cli_inter("transformer:layers=24", "lecture:4x8", 32, false);
  const PipelineSchedule g2 = plan_pipeline_schedule(free, 32, PipelineKind::gpipe), f2 = plan_pipeline_schedule(free, 32, PipelineKind::one_f_one_b);
  if (f2.makespan_ms <= g2.makespan_ms * (1 + 1e-9)) CHECK(schedule_explanation(free, g2, f2, 32).find("gain is memory, not time") != std::string::npos);
}

TEST_CASE("Compare simulates the inter-op tab's own plan with the page's micro-batches") {
  AppState state;
  REQUIRE(init_app_state(state).ok());
  REQUIRE(apply_settings_json(state, R"({"model":"transformer:layers=4","cluster":"lecture:2x4","microbatches":4,"panel":"compare"})").ok());
  start_page_compare(state);
  CHECK(compare_running(state.compare));
  for (int k = 0; k < 200000 && compare_running(state.compare); ++k) {
    ++state.frame_stats.frames;
    advance_background_work(state, 5);
    compare_advance(state.compare, 5);
  }
  REQUIRE(state.compare.error.empty());
  const InterOpPlan* plan = current_inter_plan(state.alpa.inter, alpa_inputs(state));
  REQUIRE(plan);
  const Json& alpa = state.compare.output["alpa"];
  CHECK(alpa["microbatches"] == 4);
  CHECK(alpa["objective"].get<double>() == plan->total_latency);
  REQUIRE(alpa["stages"].size() == plan->stages.size());
  for (size_t k = 0; k < plan->stages.size(); ++k) {
    CHECK(alpa["stages"][k]["submesh"] == Json::array({plan->stages[k].submesh.nodes, plan->stages[k].submesh.gpus}));
    CHECK(alpa["stages"][k]["latency"].get<double>() == plan->stages[k].latency);
    CHECK(alpa["stages"][k]["devices"][0] == plan->stages[k].device_offset);
  }
  // The same as the core's compare given that plan and those micro-batches.
  CompareRequest r;
  r.graph = state.graph;
  r.cluster = state.cluster;
  r.title = state.compare.title;
  r.seed = 1;
  r.microbatches = 4;
  r.inter_plan = *plan;
  auto ref = run_compare(r);
  REQUIRE(ref.ok());
  CHECK(alpa["makespan_ms"].get<double>() == ref.value().alpa_sim.summary.makespan_ms);
  CHECK(state.compare.inputs == compare_inputs_label(state));
  CHECK(state.compare.inputs.find("B = 4") != std::string::npos);
}

TEST_CASE("a given pipeline plan that does not fit the model or cluster is refused, naming the stage") {
  const Graph g = load_model("transformer:layers=4").value();
  const Cluster c = load_cluster("lecture:2x4").value();
  InterOpPlan plan = cli_inter("transformer:layers=4", "lecture:2x4", 4);
  REQUIRE(plan.stages.size() >= 1);
  const int layers = plan.stages.back().last + 1;
  CHECK(check_given_inter_plan(plan, layers, c, "request.inter_plan").ok());
  InterOpPlan gap = plan;
  gap.stages.front().first = 1;
  auto e = check_given_inter_plan(gap, layers, c, "request.inter_plan");
  REQUIRE(!e.ok());
  CHECK(e.error().path == "request.inter_plan.stages[0].first");
  InterOpPlan wide = plan;
  wide.stages.front().submesh = Submesh{1, 16};
  e = check_given_inter_plan(wide, layers, c, "request.inter_plan");
  REQUIRE(!e.ok());
  CHECK(e.error().path == "request.inter_plan.stages[0].submesh");
  InterOpPlan mesh = plan;
  mesh.stages.front().logical_mesh = "3x3";
  CHECK(!check_given_inter_plan(mesh, layers, c, "request.inter_plan").ok());
  CHECK(!check_given_inter_plan(plan, layers + 1, c, "request.inter_plan").ok());
  // Through the compare job: the error ends it, no crash.
  CompareRequest r;
  r.graph = g;
  r.cluster = c;
  r.microbatches = 4;
  r.steps = 1;
  r.inter_plan = gap;
  auto out = run_compare(r);
  REQUIRE(!out.ok());
  CHECK(out.error().path == "inter_plan.stages[0].first");
}
