// One schedule model everywhere (issue 42, issue 40 item 4): the same pipeline plan has the same
// GPipe and 1F1B makespans in `autopar inter --schedule gpipe|1f1b`, on the inter-op tab's
// charts (result().inter_schedules), on the Schedules tab's "plan" source (result().schedules)
// and in the lecture's gpt-pipeline scenario; and each chart's makespan is redone by hand from
// what the tab shows (micro-batches x (F + B) + idle, on every stage).
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "alpa_view.h"
#include "app_state.h"
#include "cluster_spec.h"
#include "compare.h"
#include "compare_summary.h"
#include "inter_operation.h"
#include "models.h"
#include "pipeline_schedule.h"
#include "scenarios.h"
#include "schedules_state.h"

using namespace autopar;
using namespace autopar::web;

namespace {

// `autopar inter --model M --cluster C --microbatches B [--schedule S] --json`.
Json cli_inter_json(const std::string& model, const std::string& cluster, int microbatches, const std::string& schedule) {
  const Graph g = load_model(model).value();
  const Cluster c = load_cluster(cluster).value();
  InterRequest r;
  r.microbatches = microbatches;
  r.schedule = schedule;
  InterJob job(g, c, r);
  const auto& report = run_to_end(job);
  REQUIRE(report.ok());
  return report.value().to_json();
}

}  // namespace

TEST_CASE("gpt-pipeline: inter --schedule, the inter-op tab, the Schedules tab and the scenario agree on GPipe and 1F1B") {
  const std::string model = "transformer:layers=24", cluster = "lecture:4x8";
  const Json plain = cli_inter_json(model, cluster, 32, "");
  const double f1b_cli = cli_inter_json(model, cluster, 32, "1f1b")["total_latency"].get<double>();
  const double gpipe_cli = cli_inter_json(model, cluster, 32, "gpipe")["total_latency"].get<double>();
  // The closed form (sum + (B-1) t_max) is not a schedule's makespan: the cross-node sends of
  // this plan make both simulated schedules longer.
  CHECK(gpipe_cli > plain["total_latency"].get<double>());
  CHECK(f1b_cli > plain["total_latency"].get<double>());

  // The page: plan in-process, then read the inter-op tab's and the Schedules tab's figures.
  AppState state;
  REQUIRE(init_app_state(state).ok());
  REQUIRE(apply_settings_json(state, R"({"model":"transformer:layers=24","cluster":"lecture:4x8","mesh":"4x8","microbatches":32,
                                          "panel":"inter","schedules":{"source":"plan","first":"gpipe","second":"1f1b"}})")
              .ok());
  start_inter_plan(state.alpa.inter, alpa_inputs(state), state.graph, state.cluster);
  for (int k = 0; k < 200000 && state.alpa.inter.job; ++k) {
    ++state.frame_stats.frames;
    advance_background_work(state, 5);
  }
  REQUIRE(current_inter_plan(state.alpa.inter, alpa_inputs(state)));
  const Json page = alpa_result_json(state.alpa, alpa_inputs(state));
  CHECK(page["total_latency"].get<double>() == plain["total_latency"].get<double>());
  const Json& tab = page["inter_schedules"];
  CHECK(tab["1f1b"]["makespan_ms"].get<double>() == doctest::Approx(f1b_cli).epsilon(1e-12));
  CHECK(tab["gpipe"]["makespan_ms"].get<double>() == doctest::Approx(gpipe_cli).epsilon(1e-12));
  // By hand from the tab: on every stage, B x (F + B) + its idle time is the makespan.
  for (const char* name : {"gpipe", "1f1b"}) {
    const Json& s = tab[name];
    REQUIRE(s["forward_ms"].size() == page["stages"].size());
    for (size_t k = 0; k < s["forward_ms"].size(); ++k)
      CHECK(32 * (s["forward_ms"][k].get<double>() + s["backward_ms"][k].get<double>()) + s["stage_idle_ms"][k].get<double>() ==
            doctest::Approx(s["makespan_ms"].get<double>()).epsilon(1e-9));
    // The forward's share is the report's (the model's FLOPs), not a fixed third.
    CHECK(s["forward_ms"][0].get<double>() / (s["forward_ms"][0].get<double>() + s["backward_ms"][0].get<double>()) ==
          doctest::Approx(plain["forward_share"].get<double>()));
  }

  refresh_schedules(state);
  REQUIRE(state.schedules.report);
  const Json sched = schedules_result_json(state.schedules, state.settings.schedules);
  REQUIRE(sched["schedules"].size() == 2);
  CHECK(sched["microbatches"] == 32);
  CHECK(sched["schedules"][0]["makespan"].get<double>() == doctest::Approx(gpipe_cli).epsilon(1e-12));
  CHECK(sched["schedules"][1]["makespan"].get<double>() == doctest::Approx(f1b_cli).epsilon(1e-12));
  // The tab's own micro-batches field does not change the plan source's count (the plan's).
  REQUIRE(apply_settings_json(state, R"({"schedules":{"microbatches":8}})").ok());
  refresh_schedules(state);
  CHECK(schedules_result_json(state.schedules, state.settings.schedules)["schedules"][1]["makespan"].get<double>() ==
        doctest::Approx(f1b_cli).epsilon(1e-12));

  // The lecture's scenario.
  auto sc = scenario_operation("gpt-pipeline", "scenario", Language::en);
  REQUIRE(sc.ok());
  const Json& r = sc.value().results;
  CHECK(r["plan"]["total_latency"].get<double>() == plain["total_latency"].get<double>());
  CHECK(r["schedules"]["1f1b"]["makespan_ms"].get<double>() == doctest::Approx(f1b_cli).epsilon(1e-12));
  CHECK(r["schedules"]["gpipe"]["makespan_ms"].get<double>() == doctest::Approx(gpipe_cli).epsilon(1e-12));
}

TEST_CASE("the inter-op tab's chart is the schedule model's: a plan's boxes are its passes") {
  // Two stages of 3 ms, one micro-batch, a 2 ms boundary (1 each way), F a third:
  // F s0 [0,1], send [1,2], F s1 [2,3], B s1 [3,5], send back [5,6], B s0 [6,8].
  InterOpPlan plan;
  plan.boundaries = true;
  plan.stages.resize(2);
  plan.stages[0].latency = 3;
  plan.stages[0].send_ms = 2;
  plan.stages[1].latency = 2;
  plan.stages[1].recv_ms = 1;
  const PipelineSchedule s = plan_pipeline_schedule(plan, 1, PipelineKind::one_f_one_b);
  CHECK(s.makespan_ms == doctest::Approx(8));
  auto in = plan_schedule_input(plan_pipeline(plan, 1, PlanShares{}), ScheduleKind::one_f_one_b, 1);
  REQUIRE(in.ok());
  CHECK(simulate_schedule(in.value()).value().makespan_ms == s.makespan_ms);
  REQUIRE(s.forward_ms.size() == 2);
  CHECK(s.forward_ms[1] == doctest::Approx(1));
  CHECK(s.backward_ms[1] == doctest::Approx(2));
  CHECK(s.send_ms[0] == doctest::Approx(1));
  CHECK(s.send_ms[1] == 0);
  // Other shares move the split (F half of each 3 ms stage), not the one-micro-batch makespan.
  const PipelineSchedule half = plan_pipeline_schedule(plan, 1, PipelineKind::gpipe, PlanShares{0.5, 0.5});
  CHECK(half.forward_ms[0] == doctest::Approx(1.5));
  CHECK(half.makespan_ms == doctest::Approx(8));
  // The report's shares are read back; absent ones are the defaults.
  CHECK(plan_shares_from_report(Json{{"forward_share", 0.3}, {"weight_share", 0.4}}).forward == 0.3);
  CHECK(plan_shares_from_report(Json{{"forward_share", 0.3}, {"weight_share", 0.4}}).weight == 0.4);
  CHECK(plan_shares_from_report(Json()).forward == doctest::Approx(1.0 / 3));
}

TEST_CASE("Compare reports its Alpa plan under the schedule model: inter --schedule's makespans") {
  // transformer:layers=4 on lecture:2x4, 4 micro-batches: the plan `inter` finds, given to compare.
  const std::string model = "transformer:layers=4", cluster = "lecture:2x4";
  const Graph g = load_model(model).value();
  const Cluster c = load_cluster(cluster).value();
  InterRequest ir;
  ir.microbatches = 4;
  InterJob job(g, c, ir);
  const auto& plan = run_to_end(job);
  REQUIRE(plan.ok());
  CompareRequest r;
  r.graph = g;
  r.cluster = c;
  r.title = model + " on " + cluster;
  r.steps = 50;
  r.microbatches = 4;
  r.inter_plan = plan.value().plan;
  auto report = run_compare(r);
  REQUIRE(report.ok());
  const Json j = report.value().to_json(g);
  REQUIRE(j["alpa"].contains("schedules"));
  CHECK(j["alpa"]["schedules"]["1f1b"]["makespan_ms"].get<double>() ==
        doctest::Approx(cli_inter_json(model, cluster, 4, "1f1b")["total_latency"].get<double>()).epsilon(1e-12));
  CHECK(j["alpa"]["schedules"]["gpipe"]["makespan_ms"].get<double>() ==
        doctest::Approx(cli_inter_json(model, cluster, 4, "gpipe")["total_latency"].get<double>()).epsilon(1e-12));
  // The Compare tab reads them back.
  auto summary = compare_summary_from_json(j);
  REQUIRE(summary.ok());
  CHECK(summary.value().pipeline_1f1b_ms == j["alpa"]["schedules"]["1f1b"]["makespan_ms"].get<double>());
}
