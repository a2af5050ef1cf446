// ZeRO and recomputation in FlexFlow's task graph: hand-worked timelines of data parallelism on
// two GPUs with ZeRO stage 1 (a reduce-scatter and an all-gather: the all-reduce's volume), stage
// 3 (weights gathered before the forward and the backward pass: 1.5 times the volume) and with
// recomputation (every forward pass again before its backward pass), and the search choosing
// them when the memory asks for it.
#include <doctest/doctest.h>

#include "cluster_spec.h"
#include "device_memory.h"
#include "mcmc.h"
#include "models.h"
#include "simulator.h"
#include "simulator_fixtures.h"
#include "soap.h"

using namespace autopar;
using autopar::test::round_cluster;
using autopar::test::two_linear_ops;

namespace {

// Both ops of two_linear_ops split by samples over GPUs 0 and 1 at a ZeRO stage.
Strategy data_parallel_two(int zero, bool remat) {
  Strategy s{{OpConfig{{2, 1}, {0, 1}, zero}, OpConfig{{2, 1}, {0, 1}, zero}}};
  s.remat = remat;
  return s;
}

}  // namespace

TEST_CASE("ZeRO 3 on two GPUs: the hand-worked timeline") {
  Graph g = two_linear_ops(4);
  Cluster c = round_cluster(1, 2);
  TaskGraph tg(g, c, data_parallel_two(3, false));
  const double makespan = simulate_full(tg);
  // Each part does half the work: a fwd 0.010192, b fwd 0.010048, b bwd 0.010096, a bwd 0.010384.
  // Every ZeRO collective moves (2-1)/2 of the weights per ring edge (links 0->1 and 1->0 at
  // 1000 bytes/ms): a 96 bytes (0.096 ms), b 24 bytes (0.024 ms).
  //   gathers before forward, ready at once: a [0, 0.096], b [0.096, 0.120] on each link;
  //   a fwd [0.096, 0.106192]; b fwd waits for its weights: [0.120, 0.130048];
  //   gathers before backward once the forward passes ended: a ready 0.106192, the links free at
  //   0.120: [0.120, 0.216]; b [0.216, 0.240];
  //   b bwd [0.240, 0.250096]; a bwd [0.250096, 0.260480];
  //   reduce-scatters: b [0.250096, 0.274096]; a ready 0.260480, after b: [0.274096, 0.370096].
  CHECK(makespan == doctest::Approx(0.370096).epsilon(1e-12));
  const SimSummary sum = summarize(tg);
  CHECK(sum.param_sync_bytes == 3 * 2 * (96 + 24));   // 1.5 times the all-reduce's 480 bytes
  CHECK(sum.compute_ms == doctest::Approx(2 * (0.010192 + 0.010048 + 0.010096 + 0.010384)));
  // Delta simulation reaches the same timeline from plain data parallelism, op by op.
  DeltaSimulator delta(g, c, data_parallel_two(0, false));
  CHECK(delta.makespan() == doctest::Approx(0.270336).epsilon(1e-12));
  delta.set_config(0, OpConfig{{2, 1}, {0, 1}, 3});
  CHECK(delta.set_config(1, OpConfig{{2, 1}, {0, 1}, 3}) == makespan);
  // ZeRO 3 keeps a quarter of the 16 bytes per weight... of each weight's states: half of
  // each of them on each of the two GPUs (240 + 240 + 480 bytes of FP32 Adam state in all).
  const DeviceMemory m(g, c, data_parallel_two(3, false));
  CHECK(m.device(0).params_bytes == 120);
  CHECK(m.device(0).grads_bytes == 120);
  CHECK(m.device(0).optimizer_bytes == 240);
}

TEST_CASE("ZeRO 1 on two GPUs: a reduce-scatter then an all-gather, the all-reduce's volume and time") {
  Graph g = two_linear_ops(4);
  Cluster c = round_cluster(1, 2);
  TaskGraph tg(g, c, data_parallel_two(1, false));
  const double makespan = simulate_full(tg);
  // b's reduce-scatter [0.030336, 0.054336]; a's (ready 0.04072) [0.054336, 0.150336]; b's
  // all-gather (ready 0.054336) [0.150336, 0.174336]; a's [0.174336, 0.270336]: as the all-reduce.
  CHECK(makespan == doctest::Approx(0.270336).epsilon(1e-12));
  CHECK(summarize(tg).param_sync_bytes == 2 * 2 * (96 + 24));
  const DeviceMemory m(g, c, data_parallel_two(1, false));
  CHECK(m.device(0).params_bytes == 240);
  CHECK(m.device(0).optimizer_bytes == 240);
}

TEST_CASE("recomputation on two GPUs: the hand-worked timeline") {
  Graph g = two_linear_ops(4);
  Cluster c = round_cluster(1, 2);
  TaskGraph tg(g, c, data_parallel_two(0, true));
  const double makespan = simulate_full(tg);
  // Both ops are layers of their own (nothing repeats), so both are recomputed. On each GPU:
  // a fwd [0, 0.010192]; a's recompute and b fwd are ready together, a's first (op order):
  // [0.010192, 0.020384]; b fwd [0.020384, 0.030432]; b recompute [0.030432, 0.040480];
  // b bwd [0.040480, 0.050576]; a bwd [0.050576, 0.060960]. Syncs: b (48 bytes each way)
  // [0.050576, 0.098576]; a (192 bytes) after it: [0.098576, 0.290576].
  CHECK(makespan == doctest::Approx(0.290576).epsilon(1e-12));
  const SimSummary sum = summarize(tg);
  CHECK(sum.compute_ms == doctest::Approx(2 * (2 * 0.010192 + 2 * 0.010048 + 0.010096 + 0.010384)));
  int recomputes = 0;
  for (const Task& t : tg.tasks()) recomputes += t.live && t.kind == TaskKind::recompute;
  CHECK(recomputes == 4);
  // Delta simulation turns it on and off exactly.
  DeltaSimulator delta(g, c, data_parallel_two(0, false));
  CHECK(delta.set_remat(true) == makespan);
  delta.undo();
  CHECK(delta.makespan() == doctest::Approx(0.270336).epsilon(1e-12));
  CHECK_FALSE(delta.task_graph().strategy().remat);
}

TEST_CASE("a strategy file carries ZeRO stages and recomputation") {
  Graph g = two_linear_ops(4);
  const Strategy s = data_parallel_two(2, true);
  const Json j = strategy_to_json(g, s);
  CHECK(j["remat"] == true);
  CHECK(j["ops"][0]["zero"] == 2);
  auto back = strategy_from_json(j, g, 2);
  REQUIRE(back.ok());
  CHECK(back.value() == s);
  // Without them the JSON is as before.
  const Json plain = strategy_to_json(g, data_parallel_two(0, false));
  CHECK_FALSE(plain.contains("remat"));
  CHECK_FALSE(plain["ops"][0].contains("zero"));
  Json bad = j;
  bad["ops"][1]["zero"] = 4;
  CHECK_FALSE(strategy_from_json(bad, g, 2).ok());
}

TEST_CASE("the search chooses ZeRO or recomputation when data parallelism needs them to fit") {
  // A transformer whose Adam state does not fit a small GPU four times over, but fits sharded.
  auto loaded = load_model("transformer:layers=2,batch=32,seq=256,hidden=1024,heads=16");
  REQUIRE(loaded.ok());
  const Graph& g = loaded.value();
  Cluster c = load_cluster("lecture:1x4").value();
  const Strategy dp = data_parallel(g, 4);
  c.gpu.memory_gib = 1000;
  const double need = DeviceMemory(g, c, dp).peak_bytes();
  Strategy zero3 = dp;
  for (OpConfig& oc : zero3.ops) oc.zero = 3;
  zero3.remat = true;
  const double least = DeviceMemory(g, c, zero3).peak_bytes();
  REQUIRE(least < need * 0.6);
  c.gpu.memory_gib = (need + least) / 2 / 1073741824.0;
  SearchOptions o;
  o.steps = 3000;
  o.seed = 2;
  o.stop_when_stalled = false;
  const SearchResult r = run_search(g, c, dp, o, nullptr);
  CHECK_FALSE(r.init_fits);
  CHECK(r.memory_moves);
  CHECK(r.best_fits);
  int zero = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) zero += weight_replicas(g.ops[i], r.best.ops[i]) >= 2 && r.best.ops[i].zero > 0;
  CHECK((zero > 0 || r.best.remat || !DeviceMemory(g, c, [&] {
           Strategy plain = r.best;
           plain.remat = false;
           for (OpConfig& oc : plain.ops) oc.zero = 0;
           return plain;
         }()).fits()));
  // Memory moves off: the same search can still leave data parallelism, but proposes no ZeRO.
  o.memory_moves = 0;
  const SearchResult off = run_search(g, c, dp, o, nullptr);
  CHECK_FALSE(off.memory_moves);
  CHECK_FALSE(off.best.remat);
  for (const OpConfig& oc : off.best.ops) CHECK(oc.zero == 0);
}
