// run_inter_job: the stage costs computed in shares on several threads and merged give the
// report of the one job, bit for bit (the plan, its total, every stage's settings), in Alpa's
// space and in today's (sequence parallelism, recomputation and ZeRO chosen per stage), and a
// searched micro-batch count walks the same counts to the same totals.
#include <doctest/doctest.h>

#include <string>

#include "cluster_spec.h"
#include "inter_operation.h"
#include "test_inputs.h"

using namespace autopar;
using autopar::test::model;

namespace {

// The report as JSON without its clocks (the one figure the two paths may differ in).
Json without_clocks(Json j) {
  if (j.is_object()) {
    for (const char* k : {"elapsed_ms", "phases", "solve_ms"}) j.erase(k);
    for (auto& [k, v] : j.items()) v = without_clocks(v);
  } else if (j.is_array()) {
    for (auto& v : j) v = without_clocks(v);
  }
  return j;
}

}  // namespace

TEST_CASE("the stage costs in threaded shares give the one job's report, in Alpa's space and today's") {
  const Graph g = model("transformer:layers=6,batch=32,seq=256,hidden=1024,heads=16,dtype_bytes=2");
  for (const char* cluster : {"a100:2x8", "lecture:2x4"})
    for (bool today : {false, true}) {
      CAPTURE(cluster);
      CAPTURE(today);
      const Cluster c = load_cluster(cluster).value();
      InterRequest r;
      r.microbatches = 8;
      r.options.microbatches = 8;
      r.options.choose_sequence_parallel = today;
      InterJob one(g, c, r);
      const Result<InterReport>& alone = run_to_end(one);
      const Result<InterReport> shared = run_inter_job(g, c, r);
      REQUIRE(alone.ok());
      REQUIRE(shared.ok());
      CHECK(shared.value().plan.total_latency == alone.value().plan.total_latency);
      CHECK(without_clocks(shared.value().to_json()) == without_clocks(alone.value().to_json()));
    }
}

TEST_CASE("a micro-batch search through the threaded shares tries the counts and totals of the one job") {
  const Graph g = model("transformer:layers=4,batch=64,seq=256,hidden=1024,heads=16,dtype_bytes=2");
  const Cluster c = load_cluster("a100:1x8").value();
  InterRequest r;
  r.options.choose_sequence_parallel = true;
  auto searched = plan_inter_searching_microbatches(g, c, r, 8);
  REQUIRE(searched.ok());
  REQUIRE(searched.value().microbatch_search.size() >= 2);
  for (const std::pair<int, double>& tried : searched.value().microbatch_search) {
    // Copied out of the pair: clang refuses a structured binding inside CAPTURE's lambda.
    const int b = tried.first;
    const double total = tried.second;
    CAPTURE(b);
    InterRequest one = r;
    one.microbatches = b;
    InterJob job(g, c, one);
    const Result<InterReport>& alone = run_to_end(job);
    CHECK(total == (alone.ok() ? alone.value().plan.total_latency : -1));
  }
}
