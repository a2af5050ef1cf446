// core/operations/compare_summary.h: `compare --json` read back into typed rows equals the
// report it was written from (the structs, not the JSON), and a missing field is an error
// naming its path rather than a 0 on the page.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "cluster_spec.h"
#include "compare.h"
#include "compare_summary.h"
#include "models.h"

using namespace autopar;

namespace {
// The request `compare --model M --cluster C` runs, with `steps` proposals.
CompareRequest compare_request(const std::string& model, const std::string& cluster, int64_t steps) {
  CompareRequest r;
  r.graph = load_model(model).value();
  r.cluster = load_cluster(cluster).value();
  r.title = model + " on " + cluster;
  r.steps = steps;
  return r;
}
}  // namespace

TEST_CASE("compare summary read from compare --json equals the report's own numbers") {
  const CompareRequest r = compare_request("transformer:layers=2", "lecture:2x4", 200);
  auto rep = run_compare(r);
  REQUIRE(rep.ok());
  const CompareReport& c = rep.value();
  auto s = compare_summary_from_json(c.to_json(r.graph));
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  const CompareSummary& out = s.value();
  CHECK(out.flexflow.makespan_ms == c.flexflow_sim.summary.makespan_ms);
  CHECK(out.alpa.makespan_ms == c.alpa_sim.summary.makespan_ms);
  CHECK(out.alpa.compute_ms == c.alpa_sim.summary.compute_ms);
  CHECK(out.flexflow.param_sync_bytes == c.flexflow_sim.summary.param_sync_bytes);
  CHECK(out.alpa.peak_memory_bytes == double(c.alpa_sim.summary.peak_memory_bytes));
  CHECK(out.search_steps == c.flexflow.steps);
  CHECK(out.microbatches == c.alpa.microbatches);
  CHECK(out.pipeline_objective_ms == c.alpa.inter.total_latency);
  CHECK(out.mesh == "2x4");
  REQUIRE(out.stages.size() == c.alpa.stages.size());
  for (size_t k = 0; k < out.stages.size(); ++k) {
    CHECK(out.stages[k].latency == c.alpa.stages[k].stage.latency);
    CHECK(out.stages[k].first_device == c.alpa.stages[k].devices.front());
    CHECK(out.stages[k].has_boundary == (k + 1 < out.stages.size()));
  }
  REQUIRE(out.ops.size() == r.graph.ops.size());
  for (size_t v = 0; v < out.ops.size(); ++v) {
    CHECK(out.ops[v].name == r.graph.ops[v].name());
    CHECK(out.ops[v].flexflow.devices == c.flexflow.best.ops[v].devices);
    CHECK(out.ops[v].has_alpa);
    CHECK(out.ops[v].alpa_stage == c.alpa.stage_of_op[v]);
  }
  const double fast = std::min(out.flexflow.makespan_ms, out.alpa.makespan_ms);
  CHECK(out.speedup() * fast == doctest::Approx(std::max(out.flexflow.makespan_ms, out.alpa.makespan_ms)));
}

TEST_CASE("compare summary: a missing or mistyped field is an error with its path") {
  const CompareRequest r = compare_request("mlp3", "lecture:1x4", 50);
  auto rep = run_compare(r);
  REQUIRE(rep.ok());
  Json j = rep.value().to_json(r.graph);
  REQUIRE(compare_summary_from_json(j).ok());
  Json missing = j;
  missing["alpa"]["breakdown"].erase("compute_ms");
  auto e = compare_summary_from_json(missing);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().path == "alpa.breakdown.compute_ms");
  Json mistyped = j;
  mistyped["flexflow"]["strategy"]["ops"][0]["devices"] = "0-3";
  e = compare_summary_from_json(mistyped);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().path == "flexflow.strategy.ops[0].devices");
  CHECK_FALSE(compare_summary_from_json(Json()).ok());
}

TEST_CASE("placement text: non-trivial degrees, then one GPU, a range or a list") {
  CHECK(placement_text(OpPlacement{{{"channel", 4}, {"sample", 2}}, {0, 1, 2, 3, 4, 5, 6, 7}}) == "channel 4 x sample 2 @ 0-7");
  CHECK(placement_text(OpPlacement{{{"sample", 1}}, {3}}) == "whole @ GPU 3");
  CHECK(placement_text(OpPlacement{{{"sample", 2}}, {0, 4}}) == "sample 2 @ 0,4");
}
