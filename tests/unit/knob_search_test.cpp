// Today's space (issue 41): the inter-op pass choosing per stage recomputation (none,
// selective, full), the ZeRO stage and sequence parallelism from each entry's memory options
// (StageMemoryOption) at each position's micro-batches in flight, and the micro-batch count
// outside. Witnesses: an exhaustive enumeration over slicings x sub-meshes x per-stage options
// x micro-batch counts on a small model, a memory-tight choice of selective over full, and
// every stage of a found plan held to the device's memory.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "inter_op.h"
#include "inter_operation.h"
#include "knob_search.h"
#include "memory_model.h"
#include "operation_requests.h"
#include "test_inputs.h"
#include "worker_session.h"

using namespace autopar;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

int submesh_index(const StageCostTable& t, const Submesh& s) {
  int m = 0;
  while (m + 1 < int(t.submeshes.size()) && !(t.submeshes[size_t(m)] == s)) ++m;
  return m;
}

// Every contiguous slicing of the table's layers, every sub-mesh per stage (devices summing to
// the cluster's, no boundaries) and every memory option per stage whose room holds the 1F1B
// micro-batches of its position (min(stages after it + 1, B)); the least closed form.
double exhaustive_with_options(const StageCostTable& t, int B) {
  const int L = t.layers, D = t.nodes * t.gpus_per_node;
  double best = kInfinity;
  struct Pick {
    size_t idx;
  };
  std::vector<Pick> stages;
  std::function<void(int, int)> slice = [&](int k, int d) {
    if (k == L) {
      if (d != 0) return;
      // Each stage's options at its position, every combination (the closed form's max couples them).
      const int p = int(stages.size());
      std::vector<std::vector<double>> lat(static_cast<size_t>(p));   // not lat(size_t(p)): that declares a function
      for (int s = 0; s < p; ++s) {
        const int need = std::min(p - s, B);
        for (const StageMemoryOption& o : t.memory_options[stages[size_t(s)].idx])
          if (o.capacity(t.capacity_bytes, 1) * (1 + 1e-12) >= need) lat[size_t(s)].push_back(o.latency);
        if (lat[size_t(s)].empty()) return;
      }
      std::function<void(int, double, double)> combine = [&](int s, double sum, double mx) {
        if (s == p) {
          best = std::min(best, sum + double(B - 1) * mx);
          return;
        }
        for (double x : lat[size_t(s)]) combine(s + 1, sum + x, std::max(mx, x));
      };
      combine(0, 0, 0);
      return;
    }
    for (int i = k; i < L; ++i)
      for (int m = 0; m < int(t.submeshes.size()); ++m) {
        const int z = t.submeshes[size_t(m)].devices();
        const size_t idx = t.index(k, i, m);
        if (z > d || !std::isfinite(t.latency[idx])) continue;
        stages.push_back({idx});
        slice(i + 1, d - z);
        stages.pop_back();
      }
  };
  slice(0, D);
  return best;
}

// The stage costs of `spec` on `cluster` at B micro-batches, sequence parallelism searched.
StageCostTable table_of(const Graph& g, const Cluster& cluster, int B, bool choose_sp = true) {
  auto micro = microbatch_graph(g, B);
  REQUIRE(micro.ok());
  InterOpOptions o;
  o.microbatches = B;
  o.choose_sequence_parallel = choose_sp;
  auto t = stage_costs_from_model(micro.value(), cluster, o);
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  return t.value();
}

}  // namespace

TEST_CASE("joint choice: recomputation x ZeRO x SP per stage and the micro-batch count equal an exhaustive enumeration") {
  // 4 transformer layers (+ embedding and head: 6 layers) on 4 GPUs with memory tight enough
  // that the options differ by position: the DP per B, the least over B, against every
  // slicing x sub-mesh x per-stage option x B.
  const Graph g = test::model("transformer:layers=4,hidden=512,heads=8,seq=512,batch=16,vocab=8000");
  for (double gib : {0.35, 0.6, 4.0}) {
    const Cluster c = test::small_cluster(gib);
    double dp_best = kInfinity, brute_best = kInfinity;
    int with_options = 0;
    for (int B : {2, 4, 8}) {
      const StageCostTable t = table_of(g, c, B);
      REQUIRE(t.memory_options.size() == t.latency.size());
      for (const auto& opts : t.memory_options) with_options += opts.size() > 1;
      auto dp = solve_inter_op(t, B, false);
      const double brute = exhaustive_with_options(t, B);
      if (dp.ok()) {
        CHECK(dp.value().total_latency == doctest::Approx(brute).epsilon(1e-9));
        dp_best = std::min(dp_best, dp.value().total_latency);
      } else {
        CHECK(std::isinf(brute));
      }
      brute_best = std::min(brute_best, brute);
    }
    CHECK(dp_best == doctest::Approx(brute_best).epsilon(1e-9));
    CHECK(with_options > 0);   // the enumeration had choices to make
  }
}

TEST_CASE("sequence parallelism is an option where the logical mesh has a tensor-parallel axis, from the same solves") {
  const Graph g = test::model("transformer:layers=4,hidden=512,heads=8,seq=512,batch=16,vocab=8000");
  const Cluster c = test::small_cluster(16);
  const StageCostTable with = table_of(g, c, 4, true), without = table_of(g, c, 4, false);
  int sp_options = 0;
  for (size_t i = 0; i < with.latency.size(); ++i) {
    if (!std::isfinite(without.latency[i])) continue;
    // Never slower with the choice: the entry keeps the better reading of each solve.
    CHECK(with.latency[i] <= without.latency[i] * (1 + 1e-12));
    for (const StageMemoryOption& o : with.memory_options[i]) sp_options += o.sequence_parallel;
    for (const StageMemoryOption& o : without.memory_options[i]) CHECK_FALSE(o.sequence_parallel);
  }
  CHECK(sp_options > 0);
}

TEST_CASE("memory-tight: selective recomputation is chosen over full when it fits") {
  // One stage: 10 GB of states, 30 GB of activations per micro-batch kept whole, 12 GB under
  // selective (the scores dropped), 2 GB of layer inputs under full; 4 micro-batches in flight
  // on 80 GB: none needs 130 GB, selective 58 GB, full 18 GB (+ one layer rerun).
  StageMemorySums s;
  s.latency = 100;
  for (int z = 0; z < 4; ++z) s.states[z] = 10e9 / (1 + z);
  s.zero_ms[1] = 1;
  s.zero_ms[2] = 2;
  s.zero_ms[3] = 8;
  s.activation = 30e9;
  s.selective = 12e9;
  s.kept = 2e9;
  s.largest = 8e9;
  s.recompute_ms = 33;
  s.selective_ms = 4;
  InterOpOptions o;
  const double capacity = 80e9;
  const StageMemoryChoice c = choose_stage_memory(s, capacity, 4, o, false);
  REQUIRE(c.found);
  CHECK(c.fits);
  CHECK(c.mode == 1);                    // selective, not full
  CHECK(c.latency == doctest::Approx(104));
  // The options: the DP's pick at 4 in flight is the same, and at 1 in flight no recomputation.
  std::vector<StageMemoryOption> all;
  append_memory_options(s, capacity, o, false, all);
  const std::vector<StageMemoryOption> front = prune_memory_options(all);
  auto fastest_holding = [&](double need) {
    for (const StageMemoryOption& x : front)
      if (x.capacity(capacity, 1) >= need) return x;
    return StageMemoryOption{-1};
  };
  CHECK(fastest_holding(4).mode == 1);
  CHECK(fastest_holding(2).mode == 0);   // 10 + 60 GB
  CHECK(fastest_holding(6).mode == 1);   // 10 + 72 > 80 with ZeRO 0; ZeRO 1 (5 GB of states) holds 6
  CHECK(fastest_holding(6).zero_stage >= 1);
  CHECK(fastest_holding(30).mode == 2);
  // Pruned options: fastest first, none beaten on latency and every kind of memory by another.
  for (size_t k = 0; k < front.size(); ++k)
    for (size_t j = 0; j < front.size(); ++j) {
      if (j == k) continue;
      if (j > k) CHECK(front[j].latency >= front[k].latency);
      CHECK_FALSE((front[j].latency <= front[k].latency && front[j].state_bytes <= front[k].state_bytes && front[j].fixed_bytes <= front[k].fixed_bytes &&
                   front[j].activation_bytes <= front[k].activation_bytes));
    }
}

TEST_CASE("the planner never returns a stage whose memory exceeds the device") {
  const Graph g = test::model("transformer:layers=4,hidden=512,heads=8,seq=512,batch=16,vocab=8000");
  for (double gib : {0.35, 0.6, 2.0}) {
    const Cluster c = test::small_cluster(gib);
    InterRequest r;
    r.microbatches = 4;
    r.boundaries = true;
    std::vector<KnobTry> tries;
    auto rep = plan_inter_searching_knobs(g, c, r, 4, &tries);
    CHECK(!tries.empty());
    if (!rep.ok()) continue;
    const InterReport& report = rep.value();
    const StageCostTable& t = report.table;
    const int p = int(report.plan.stages.size());
    for (int k = 0; k < p; ++k) {
      const PipelineStage& st = report.plan.stages[size_t(k)];
      const size_t idx = t.index(st.first, st.last, submesh_index(t, st.submesh));
      const double inflight = inflight_microbatches(k, p, report.microbatches, 1);
      // Model states, working buffers and the micro-batches in flight, all within the GPU,
      // counted from the option the DP chose (or the entry's own setting).
      CHECK(inflight * t.activation_bytes[idx] <= t.activation_room_bytes[idx] * (1 + 1e-12));
      if (st.memory_option >= 0) {
        const StageMemoryOption& o = t.memory_options[idx][size_t(st.memory_option)];
        CHECK(o.state_bytes + o.fixed_bytes + inflight * o.activation_bytes <= c.gpu.memory_capacity_bytes() * (1 + 1e-12));
        CHECK(st.latency == o.latency);
      }
    }
  }
}

// Today's space as a job (the page's worker steps it a slice at a time): sliced to one unit a
// step it ends with the report the CLI's run-to-end call gives, shows which plan it is on, and a
// cancel ends it at once.
TEST_CASE("today's space stepped in slices equals the one-call search; progress names its plan; cancel ends it") {
  const Graph g = test::model("transformer:layers=4,hidden=512,heads=8,seq=512,batch=16,vocab=8000");
  const Cluster c = test::small_cluster(0.6);
  InterRequest r;
  r.microbatches = 4;
  std::vector<KnobTry> tries;
  auto whole = plan_inter_searching_knobs(g, c, r, 4, &tries);
  REQUIRE(whole.ok());
  KnobSearchJob job(g, c, r, 4);
  int64_t last_plans = 0;
  bool knobs_named = false;
  int steps = 0;
  while (!job.step(StepBudget::work(1))) {
    const JobProgress p = job.progress();
    CHECK(p.plans_done >= last_plans);   // whole plans only end
    last_plans = p.plans_done;
    knobs_named = knobs_named || p.knobs.rfind("cp=", 0) == 0;
    ++steps;
  }
  CHECK(steps > 3);
  CHECK(knobs_named);
  REQUIRE(job.result().ok());
  const InterReport& a = whole.value();
  const InterReport& b = job.result().value();
  CHECK(b.space == "today");
  CHECK(b.plan.total_latency == a.plan.total_latency);
  CHECK(b.microbatches == a.microbatches);
  REQUIRE(b.plan.stages.size() == a.plan.stages.size());
  for (size_t k = 0; k < a.plan.stages.size(); ++k) {
    CHECK(b.plan.stages[k].first == a.plan.stages[k].first);
    CHECK(b.plan.stages[k].last == a.plan.stages[k].last);
    CHECK(b.plan.stages[k].latency == a.plan.stages[k].latency);
    CHECK(b.plan.stages[k].memory_option == a.plan.stages[k].memory_option);
  }
  CHECK(b.knob_search == a.knob_search);
  REQUIRE(job.tries().size() == tries.size());
  for (size_t k = 0; k < tries.size(); ++k) CHECK(job.tries()[k].microbatches == tries[k].microbatches);

  KnobSearchJob stopped(g, c, r, 4);
  stopped.step(StepBudget::work(2));
  stopped.cancel();
  REQUIRE(stopped.done());
  CHECK(stopped.result().error().code == ErrorCode::cancelled);
}

TEST_CASE("the micro-batch search stepped in slices equals the one-call search") {
  const Graph g = test::model("transformer:layers=4,hidden=512,heads=8,seq=512,batch=16,vocab=8000");
  const Cluster c = test::small_cluster(2.0);
  InterRequest r;
  auto whole = plan_inter_searching_microbatches(g, c, r, 4);
  REQUIRE(whole.ok());
  MicrobatchSearchJob job(g, c, r, 4);
  while (!job.step(StepBudget::work(3))) CHECK(job.progress().knobs.rfind("B=", 0) == 0);
  REQUIRE(job.result().ok());
  CHECK(job.result().value().plan.total_latency == whole.value().plan.total_latency);
  CHECK(job.result().value().microbatch_search == whole.value().microbatch_search);
  CHECK(job.plans_done() == int(whole.value().microbatch_search.size()));
}

// The worker's "inter" with request.space "today" (the page's request) plans what the CLI's
// `inter --space today` plans; today's space in shares is refused, naming the field.
TEST_CASE("the worker plans today's space from request.space and refuses it in shares") {
  const Json inputs{{"model", "transformer:layers=4,hidden=512,heads=8,seq=512,batch=16,vocab=8000"}, {"cluster", "lecture:2x4"}};
  InterRequest r;
  r.microbatches = 4;
  r.space = "today";
  const Json request = request_to_json(r);
  CHECK(request.at("space") == "today");
  auto read = inter_request_from_json(request, json_field_path("request"));
  REQUIRE(read.ok());
  CHECK(read.value().space == "today");
  CHECK(!request_to_json(InterRequest{}).contains("space"));   // older requests read the same

  auto op = start_operation("inter", inputs, request);
  REQUIRE(op.ok());
  while (!op.value()->step(StepBudget::time(5))) {}
  REQUIRE(op.value()->result().ok());
  auto message = inter_plan_message_from_json(op.value()->result().value());
  REQUIRE(message.ok());
  auto graph = graph_from_inputs(inputs);
  auto cluster = cluster_from_inputs(inputs);
  REQUIRE(graph.ok());
  REQUIRE(cluster.ok());
  InterRequest cli_request;
  cli_request.microbatches = 4;
  auto cli = plan_inter_searching_knobs(graph.value(), cluster.value(), cli_request, 4);
  REQUIRE(cli.ok());
  CHECK(message.value().plan.total_latency == cli.value().plan.total_latency);
  CHECK(message.value().report.at("space") == "today");
  CHECK(message.value().report.at("microbatches") == cli.value().microbatches);

  auto shares = start_operation("stage_costs", inputs, request);
  REQUIRE(!shares.ok());
  CHECK(shares.error().path == "operation");
  auto bad = inter_request_from_json(Json{{"space", "2024"}}, json_field_path("request"));
  REQUIRE(!bad.ok());
  CHECK(bad.error().path == "request.space");
  auto with_plan = inter_request_from_json(Json{{"space", "today"}, {"plan", "t=2,p=2,d=2"}}, json_field_path("request"));
  REQUIRE(!with_plan.ok());
  CHECK(with_plan.error().code == ErrorCode::bad_argument);
}
