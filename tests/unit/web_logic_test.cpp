// Unit tests of the page's logic that has no ImGui in it (web/strategy_text, web/search_job,
// web/accuracy_job): the compact strategy text round-trips and rejects bad edits; the search
// advanced in small slices gives exactly run_search's result; the accuracy study computed a few
// strategies at a time gives exactly the core's accuracy_study.
// These sources are in autopar_page_logic, the page's ImGui-free code built natively too.
#include <doctest/doctest.h>

#include "accuracy_job.h"
#include "app_state.h"
#include "cluster_spec.h"
#include "models.h"
#include "search_job.h"
#include "strategy_text.h"

using namespace autopar;
using namespace autopar::web;

namespace {

struct Inputs {
  Graph graph;
  Cluster cluster;
};

Inputs alexnet_2x4() {
  auto g = load_model("alexnet");
  auto c = load_cluster("lecture:2x4");
  REQUIRE(g.ok());
  REQUIRE(c.ok());
  return {g.value(), c.value()};
}

}  // namespace

TEST_CASE("strategy text: named bases, edits, round trips") {
  Inputs in = alexnet_2x4();
  const Graph& g = in.graph;
  for (const char* name : {"dp", "mp", "expert", "random:7"}) {
    CAPTURE(name);
    CHECK(is_named_strategy(name));
    auto s = resolve_strategy(name, g, in.cluster);
    REQUIRE(s.ok());
    CHECK(s.value() == load_strategy(name, g, in.cluster).value());
    CHECK(encode_strategy(name, s.value(), g, in.cluster) == name);   // no edits
  }
  CHECK_FALSE(is_named_strategy("random:"));
  CHECK_FALSE(is_named_strategy("random:x"));
  CHECK(strategy_base("expert;fc6=1x8@0") == "expert");

  // fc6 (sample, channel) split 8 ways by channel from GPU 0; conv5 (sample, channel, height,
  // width) 2x2 on GPUs 4-7 by "@4", and fc7 on an explicit list.
  auto s = resolve_strategy("expert;fc6=1x8@0;conv5=2x2x1x1@4;fc7=1x2@1,6", g, in.cluster);
  REQUIRE(s.ok());
  const int fc6 = g.find_op("fc6"), conv5 = g.find_op("conv5"), fc7 = g.find_op("fc7");
  CHECK(s.value().ops[size_t(fc6)].degrees == std::vector<int>{1, 8});
  CHECK(s.value().ops[size_t(fc6)].devices == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(s.value().ops[size_t(conv5)].devices == std::vector<int>{4, 5, 6, 7});
  CHECK(s.value().ops[size_t(fc7)].devices == std::vector<int>{1, 6});
  // Encoding lists exactly the ops that differ from the base, in op order, and reads back equal.
  const std::string text = encode_strategy("expert", s.value(), g, in.cluster);
  CHECK(text == "expert;conv5=2x2x1x1@4;fc6=1x8@0;fc7=1x2@1,6");
  auto again = resolve_strategy(text, g, in.cluster);
  REQUIRE(again.ok());
  CHECK(again.value() == s.value());
  // Relative to another base, the same strategy has other edits but resolves the same.
  auto via_dp = resolve_strategy(encode_strategy("dp", s.value(), g, in.cluster), g, in.cluster);
  REQUIRE(via_dp.ok());
  CHECK(via_dp.value() == s.value());

  // Bad edits: every one an error on the path "strategy", never a crash.
  for (const char* bad : {"fast", "dp;fc6", "dp;fc6=1x8", "dp;nosuch=1@0", "dp;fc6=512x1@0", "dp;fc6=1x2@7", "dp;fc6=1x2@0,0",
                          "dp;fc6=1@0", "dp;fc6=1x1x1@0", "dp;fc6=1x8@0;fc6=1x8@0", "dp;fc6=axb@0", "dp;fc6=1x2@1-", "dp;#99=1x1@0",
                          "dp;fc6=0x1@0", "dp;fc6=1x16@0"}) {
    CAPTURE(bad);
    auto r = resolve_strategy(bad, g, in.cluster);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().path == "strategy");
    CHECK_FALSE(r.error().message.empty());
  }
  // "#INDEX" names an op by position.
  auto by_index = resolve_strategy("dp;#" + std::to_string(fc6) + "=1x8@0", g, in.cluster);
  REQUIRE(by_index.ok());
  CHECK(by_index.value().ops[size_t(fc6)].degrees == std::vector<int>{1, 8});
}

TEST_CASE("device lists and config text") {
  CHECK(parse_device_list("0-3", "p").value() == std::vector<int>{0, 1, 2, 3});
  CHECK(parse_device_list(" 0, 2 ,5-6 ", "p").value() == std::vector<int>{0, 2, 5, 6});
  CHECK_FALSE(parse_device_list("", "p").ok());
  CHECK_FALSE(parse_device_list("3-1", "p").ok());
  CHECK_FALSE(parse_device_list("a", "p").ok());
  CHECK(format_devices({4, 5, 6, 7}) == "4-7");
  CHECK(format_devices({0, 2}) == "0,2");
  CHECK(format_devices({3}) == "3");
  CHECK(format_op_config(OpConfig{{2, 2}, {4, 5, 6, 7}}) == "2x2@4");
  CHECK(format_op_config(OpConfig{{1, 2}, {1, 6}}) == "1x2@1,6");
  CHECK(format_op_config(OpConfig{{}, {3}}) == "@3");
}

TEST_CASE("the sliced search equals run_search") {
  Inputs in = alexnet_2x4();
  for (const char* init : {"dp", "expert", "random"}) {
    CAPTURE(init);
    SearchConfig config;
    config.steps = 400;
    config.seed = 3;
    config.beta = 200;
    config.init = init;
    SearchRun job;
    REQUIRE(search_start(job, in.graph, in.cluster, config).ok());
    // Odd slices: 7 proposals at a time, as frames would.
    while (!search_finished(job)) search_advance(job, 7, 1e9);
    SearchOptions o;
    o.steps = 400;
    o.seed = 3;
    o.beta = 200;
    const std::string name = std::string(init) == "random" ? "random:3" : init;
    const SearchResult ref = run_search(in.graph, in.cluster, load_strategy(name, in.graph, in.cluster).value(), o, nullptr);
    const SearchResult& r = *search_state(job);
    CHECK(r.best_ms == ref.best_ms);
    CHECK(r.steps == ref.steps);
    CHECK(r.accepted == ref.accepted);
    CHECK(r.best == ref.best);
    CHECK(job.job->init_name() == name);
    // The plot trace: steps increase, the best curve never rises and ends at the best.
    const SearchTrace& t = job.job->trace();
    REQUIRE(!t.step.empty());
    for (size_t k = 1; k < t.step.size(); ++k) {
      CHECK(t.step[k] > t.step[k - 1]);
      CHECK(t.best[k] <= t.best[k - 1]);
    }
    CHECK(t.best.back() == float(ref.best_ms));
  }
  SearchConfig bad;
  bad.init = "greedy";
  SearchRun job;
  auto refused = search_start(job, in.graph, in.cluster, bad);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().path == "search.init");
  CHECK(job.job == nullptr);
}

TEST_CASE("the search trace keeps at most kSearchTraceMaxPoints points") {
  Inputs in = alexnet_2x4();
  SearchConfig config;
  config.steps = 6000;
  config.beta = 1;   // wanders: no early stop for lack of improvement is likely to cut it short
  SearchRun job;
  REQUIRE(search_start(job, in.graph, in.cluster, config).ok());
  while (!search_finished(job)) search_advance(job, 500, 1e9);
  const SearchTrace& t = job.job->trace();
  CHECK(t.step.size() <= kSearchTraceMaxPoints);
  CHECK(t.step.size() == t.best.size());
  CHECK(t.step.size() == t.current.size());
  CHECK(t.step.front() == 0.0f);
  CHECK(t.stride > 1);   // it was thinned at least once
}

TEST_CASE("the sliced accuracy study equals the core's accuracy_study") {
  Inputs in = alexnet_2x4();
  AccuracyJob job;
  accuracy_start(job, 60, 5);
  int slices = 0;
  // A zero budget simulates one strategy per call.
  while (!accuracy_advance(job, in.graph, in.cluster, 0.0)) ++slices;
  CHECK(slices == 59);
  for (CostMode mode : {CostMode::ideal, CostMode::calibrated}) {
    const AccuracyResult ref = accuracy_study(in.graph, in.cluster, 60, 5, mode);
    const AccuracySummary& got = mode == CostMode::ideal ? job.ideal : job.calibrated;
    const std::vector<double>& sim = mode == CostMode::ideal ? job.ideal_ms : job.calibrated_ms;
    REQUIRE(ref.points.size() == sim.size());
    for (size_t i = 0; i < sim.size(); ++i) {
      CHECK(sim[i] == ref.points[i].simulated_ms);
      CHECK(job.real_ms[i] == ref.points[i].real_ms);
    }
    CHECK(got.mean_rel_error == ref.mean_rel_error);
    CHECK(got.max_rel_error == ref.max_rel_error);
    CHECK(got.kendall_tau == ref.kendall_tau);
    CHECK(got.top_kendall_tau == ref.top_kendall_tau);
    CHECK(got.top_count == ref.top_count);
    CHECK(got.sim_best_true_rank == ref.sim_best_true_rank);
  }
}

TEST_CASE("the page keeps drawing only while work advances without input") {
  AppState state;
  REQUIRE(init_app_state(state).ok());
  CHECK(!has_background_work(state));
  REQUIRE(apply_settings_json(state, R"({"search":{"running":true,"steps":1000000}})").ok());
  CHECK(has_background_work(state));
  REQUIRE(apply_settings_json(state, R"({"search":{"running":false}})").ok());
  CHECK(!has_background_work(state));
  // A lecture scenario waits for its tab: pending work elsewhere does not keep frames coming.
  state.lecture.compute_pending = true;
  state.shown_tab = panel_tab("model");
  CHECK(!has_background_work(state));
  state.shown_tab = panel_tab("lecture");
  CHECK(has_background_work(state));
  state.lecture.compute_pending = false;
  ensure_accuracy_started(state);
  CHECK(has_background_work(state));
}

TEST_CASE("the panels table: every tab brings its first panel to the front, every panel lives in one tab") {
  CHECK(tab_count() == 9);
  CHECK(panel_names().size() == panel_table().size());
  for (int t = 0; t < tab_count(); ++t) {
    CAPTURE(t);
    CHECK(panel_tab(tab_first_panel(t)) == t);
    CHECK(std::string(tab_title(t)).size() > 0);
  }
  CHECK(panel_tab("timeline") == panel_tab("strategy"));
  CHECK(std::string(tab_title(panel_tab("inter"))) == "Alpa inter-op");
  CHECK(panel_tab("nope") == 0);
}

TEST_CASE("the page reads built-in model specs with core's parser") {
  auto c = parse_builtin_model("mlp:layers=6", "model");
  REQUIRE(c.ok());
  CHECK(c.value().model == find_builtin_model("mlp"));
  CHECK(c.value().values.at("layers") == 6);
  CHECK(builtin_spec_string(*c.value().model, c.value().values) == "mlp:layers=6");
  auto bad = parse_builtin_model("mlp:layers=x", "model");
  REQUIRE(!bad.ok());
  CHECK(bad.error().path == "model");
}
