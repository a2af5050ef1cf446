// The lecture exercises' numbers (core/operations/exercise_operations.h), each against a figure
// worked by hand in the comments, not read back from the function:
// - exercise 1's per-device elements of a split Linear layer;
// - exercise 2's Metropolis-Hastings acceptance probability (the one formula the search uses);
// - exercise 3's delta move against a full re-simulation written here;
// - exercise 4's two all-gather orders from the alpha-beta formula on a mesh given here;
// - exercise 5's chain DP on a three-op problem given here;
// - exercise 6's t_max walk on the lecture's 4-layer table (4, 1, 1, 2 ms; 8 micro-batches).
#include <doctest/doctest.h>

#include <cstdio>

#include <cmath>
#include <limits>
#include <string>

#include "error_code_printing.h"
#include "cluster_spec.h"
#include "exercise_operations.h"
#include "strategy_argument.h"
#include "mcmc.h"
#include "simulator.h"
#include "soap.h"
#include "task_graph.h"
#include "test_inputs.h"

using namespace autopar;
using autopar::test::model;

TEST_CASE("exercise 1: a 64 x 1024 by 1024 x 1024 Linear split 4 ways by sample and 2 by parameter") {
  auto n = linear_split_numbers(64, 1024, 1024, 4, 2);
  REQUIRE(n.ok());
  CHECK(n.value().input_elements == 16 * 1024);      // (64 / 4) x 1024
  CHECK(n.value().weight_elements == 1024 * 512);    // 1024 x (1024 / 2)
  CHECK(n.value().sync_elements == 1024 * 512);      // each shard's gradient, all-reduced over 4 copies
  CHECK(n.value().sync_group == 4);
  CHECK(n.value().sync_groups == 2);
  // Without a sample split there is one copy of each shard: nothing to synchronise.
  CHECK(linear_split_numbers(64, 1024, 1024, 1, 8).value().sync_elements == 0);
  // 3 does not divide 64: refused, not rounded.
  auto bad = linear_split_numbers(64, 1024, 1024, 3, 2);
  REQUIRE(!bad.ok());
  CHECK(bad.error().code == ErrorCode::bad_degree);
}

TEST_CASE("exercise 2: the acceptance probability for given costs and beta") {
  // 100 ms -> 110 ms with beta 0.1 per ms: exp(0.1 x (100 - 110)) = exp(-1) = 0.3678794412.
  CHECK(acceptance_probability(100, 110, 0.1) == doctest::Approx(0.3678794412).epsilon(1e-9));
  // The lecture's second case, beta 1 per ms: exp(-10) = 4.539992976e-5, almost never accepted.
  CHECK(acceptance_probability(100, 110, 1.0) == doctest::Approx(4.539992976e-5).epsilon(1e-9));
  // An improvement is always accepted (exp of a positive number, capped at 1).
  CHECK(acceptance_probability(110, 100, 0.1) == 1.0);
  // beta 0 is a random walk: every move accepted.
  CHECK(acceptance_probability(100, 1e9, 0.0) == 1.0);
  // A NaN rate (0 / 0) is never a probability the draw could pass.
  CHECK(std::isnan(acceptance_probability(100, 110, std::nan(""))));

  AcceptanceInputs in;   // 100 -> 110 ms, beta 0.1, raw difference
  const AcceptanceOdds raw = acceptance_odds(in, 0.1);
  CHECK(raw.scale_ms == 1.0);
  CHECK(raw.in_ms == doctest::Approx(0.3678794412).epsilon(1e-9));
  // The same costs in seconds differ by 0.01: exp(0.1 x -0.01) = exp(-0.001) = 0.9990004998.
  CHECK(raw.in_s == doctest::Approx(0.9990004998).epsilon(1e-9));
  // Divided by the initial cost (50 ms) the unit no longer matters: exp(0.1 x -10 / 50) =
  // exp(-0.02) = 0.9801986733, in ms and in s alike.
  in.normalize = true;
  in.initial_ms = 50;
  const AcceptanceOdds normalized = acceptance_odds(in, 0.1);
  CHECK(normalized.scale_ms == 50);
  CHECK(normalized.in_ms == doctest::Approx(0.9801986733).epsilon(1e-9));
  CHECK(normalized.in_s == doctest::Approx(0.9801986733).epsilon(1e-9));
  // beta 1: exp(-10 / 50) = exp(-0.2) = 0.8187307531.
  CHECK(acceptance_odds(in, 1.0).in_ms == doctest::Approx(0.8187307531).epsilon(1e-9));

  // The table: the lecture's 0.1 and 1, then the reader's beta only when it is neither.
  CHECK(acceptance_table(in).size() == 2);
  in.beta = 0.5;
  const auto rows = acceptance_table(in);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].beta == 0.1);
  CHECK(rows[1].beta == 1.0);
  CHECK(rows[2].beta == 0.5);
  CHECK(rows[2].in_ms == doctest::Approx(std::exp(-0.1)).epsilon(1e-12));   // 0.5 x -10 / 50
}

namespace {

double full_makespan(const Graph& g, const Cluster& c, const Strategy& s) {
  TaskGraph tg(g, c, s);
  return simulate_full(tg);
}

}  // namespace

TEST_CASE("exercise 3: every op's delta move gives the makespan of a full re-simulation of the moved strategy") {
  const Graph g = model("alexnet");
  const Cluster c = load_cluster("lecture:2x4").value();
  const Strategy dp = load_strategy("dp", g, c).value();
  TaskGraph simulated(g, c, dp);
  const double before = simulate_full(simulated);
  const DeltaMovesExercise e = delta_moves_exercise(g, c, dp, simulated);
  REQUIRE(e.moves.size() == g.ops.size());
  int most = 0;
  for (const DeltaMove& m : e.moves) {
    CAPTURE(m.op);
    CHECK(m.old_ms == doctest::Approx(before).epsilon(1e-12));
    // Data parallel is not whole on GPU 0, so the move puts the op whole on GPU 0.
    CHECK(m.config.parts() == 1);
    CHECK(m.config.devices == std::vector<int>{0});
    Strategy moved = dp;
    moved.ops[size_t(m.op)] = m.config;
    CHECK(m.new_ms == doctest::Approx(full_makespan(g, c, moved)).epsilon(1e-12));
    CHECK(m.matches_full());
    CHECK(m.kept + int(m.changed_slots.size()) == m.tasks);
    CHECK(m.kept_before_earliest <= m.kept);
    CHECK(m.recomputed > 0);
    most = std::max(most, m.recomputed);
  }
  // The key is the largest share recomputed (the hint's "an early move saves the least"), which
  // need not be the largest count.
  double share = 0;
  for (const DeltaMove& m : e.moves) share = std::max(share, double(m.recomputed) / m.tasks);
  CHECK(e.most_recomputed_share == doctest::Approx(share));
  REQUIRE(!e.most_recomputing_ops.empty());
  for (int op : e.most_recomputing_ops) CHECK(e.moves[size_t(op)].recomputed_share() == doctest::Approx(share));
  CHECK(e.most_recomputed <= most);
  // Under data parallelism the first op's forward tasks start at once.
  CHECK(e.first_start_ms[0] == 0.0);

  // An op already whole on GPU 0 is split by its first dimension over all 8 GPUs instead.
  Strategy whole = dp;
  whole.ops[0].degrees.assign(whole.ops[0].degrees.size(), 1);
  whole.ops[0].devices = {0};
  const DeltaMove split = delta_move(g, c, whole, 0);
  CHECK(split.config.degrees[0] == 8);
  CHECK(split.config.parts() == 8);
  Strategy moved = whole;
  moved.ops[0] = split.config;
  CHECK(split.new_ms == doctest::Approx(full_makespan(g, c, moved)).epsilon(1e-12));
}

TEST_CASE("exercise 4: S0S1 -> RR in both orders, from the alpha-beta formula") {
  // A 2 x 4 mesh: axis 0 crosses nodes (alpha 0.01 ms, beta 1e-6 ms/byte), axis 1 is inside a
  // node (alpha 0.005 ms, beta 1e-7 ms/byte). An all-gather over n devices whose output is B
  // bytes costs alpha + beta (n - 1) / n B, each device receiving (n - 1) / n B.
  DeviceMesh mesh;
  mesh.axis[0] = MeshAxis{2, 0.01, 1e-6, true};
  mesh.axis[1] = MeshAxis{4, 0.005, 1e-7, false};
  const double t = 4096.0 * 4096 * 4;   // 64 MiB = 67,108,864 bytes; S0S1: 1/8 per device
  const ReshardExercise e = reshard_exercise(mesh, 4096, 4096, 4);
  CHECK(e.tensor_bytes == t);
  // Axis 0 first: gather to t / 4 (16,777,216 B) over 2 devices, receiving 8,388,608 B in
  // 0.01 + 1e-6 x 8,388,608 = 8.398608 ms; then to t over 4 devices, receiving 50,331,648 B in
  // 0.005 + 1e-7 x 50,331,648 = 5.0381648 ms: 13.4367728 ms.
  CHECK(e.axis0_first.first_bytes == 8388608);
  CHECK(e.axis0_first.second_bytes == 50331648);
  CHECK(e.axis0_first.first_ms == doctest::Approx(8.398608).epsilon(1e-12));
  CHECK(e.axis0_first.second_ms == doctest::Approx(5.0381648).epsilon(1e-12));
  CHECK(e.axis0_first.total_ms() == doctest::Approx(13.4367728).epsilon(1e-12));
  CHECK(e.axis0_first.slow_axis_bytes == 8388608);
  CHECK(e.axis0_first.fast_axis_bytes == 50331648);
  // Axis 1 first: gather to t / 2 (33,554,432 B) over 4 devices, receiving 25,165,824 B in
  // 0.005 + 1e-7 x 25,165,824 = 2.5215824 ms; then to t over 2 devices, receiving 33,554,432 B
  // in 0.01 + 1e-6 x 33,554,432 = 33.564432 ms: 36.0860144 ms, four times the slow bytes.
  CHECK(e.axis1_first.first_bytes == 25165824);
  CHECK(e.axis1_first.second_bytes == 33554432);
  CHECK(e.axis1_first.first_ms == doctest::Approx(2.5215824).epsilon(1e-12));
  CHECK(e.axis1_first.second_ms == doctest::Approx(33.564432).epsilon(1e-12));
  CHECK(e.axis1_first.total_ms() == doctest::Approx(36.0860144).epsilon(1e-12));
  CHECK(e.axis1_first.slow_axis_bytes == 33554432);
  CHECK(e.axis1_first.fast_axis_bytes == 25165824);
  CHECK(e.cheaper_first() == 0);

  // On the lecture's 2 nodes x 4 GPUs, axis 0 is the one across nodes; 4 GPUs are refused.
  auto m = exercise4_mesh(load_cluster("lecture:2x4").value());
  REQUIRE(m.ok());
  CHECK(m.value().axis[0].crosses_nodes);
  CHECK(!m.value().axis[1].crosses_nodes);
  auto four = exercise4_mesh(load_cluster("lecture:1x4").value());
  REQUIRE(!four.ok());
  CHECK(four.error().code == ErrorCode::bad_mesh);
}

TEST_CASE("exercise 5: the chain DP of a three-op problem, row by row") {
  IntraProblem p;
  p.node_cost = {{1, 5}, {2, 1}, {3, 1}};
  p.edges = {{0, 1, {0, 4, 4, 0}}, {1, 2, {0, 10, 10, 0}}};   // [i * 2 + j]: same strategy free
  const ChainDp dp = chain_dp(p);
  // best[0] = (1, 5). best[1][0] = min(1 + 0, 5 + 4) + 2 = 3 from 0; best[1][1] = min(1 + 4, 5 + 0)
  // + 1 = 6 from 0 (a tie keeps the first). best[2][0] = min(3 + 0, 6 + 10) + 3 = 6 from 0;
  // best[2][1] = min(3 + 10, 6 + 0) + 1 = 7 from 1. Objective 6: strategies 0, 0, 0.
  CHECK(dp.best[0] == std::vector<double>{1, 5});
  CHECK(dp.best[1] == std::vector<double>{3, 6});
  CHECK(dp.best[2] == std::vector<double>{6, 7});
  CHECK(dp.from[1] == std::vector<int>{0, 0});
  CHECK(dp.from[2] == std::vector<int>{0, 1});
  CHECK(dp.objective == 6);
  CHECK(dp.choice == std::vector<int>{0, 0, 0});
  CHECK(evaluate_assignment(p, dp.choice) == 6);

  // The exercise's own problem (transformer-chain on the lecture's 2 x 4 GPUs): its rows and the
  // core's chain DP agree, and a mesh that does not cover the cluster is refused.
  const Cluster c = load_cluster("lecture:2x4").value();
  auto e = chain_dp_exercise(c, "2x4");
  REQUIRE(e.ok());
  const ChainDpExercise& x = e.value();
  REQUIRE(x.ops.size() == x.dp.best.size());
  REQUIRE(x.reshard.size() == x.cost.size());
  CHECK(x.reshard[0].empty());
  for (size_t v = 1; v < x.cost.size(); ++v) CHECK(x.reshard[v].size() == x.cost[v - 1].size() * x.cost[v].size());
  CHECK(x.row_min(int(x.ops.size()) - 1) == x.dp.objective);
  CHECK(!chain_dp_exercise(c, "3x3").ok());
  CHECK(!chain_dp_exercise(c, "two").ok());
}

TEST_CASE("exercise 6: the t_max walk on layers of 4, 1, 1, 2 ms with 8 micro-batches") {
  // Two GPUs: either one stage of all four layers on both (0.6 x 8 = 4.8 ms) or two stages of one
  // GPU each, split after L1 (4 | 4 ms), L2 (5 | 3) or L3 (6 | 2). Every split sums to 8 ms.
  // With B = 8 the total is sum + 7 t_max: below t_max 4 nothing fits (L1 alone is 4 ms); at 4
  // the split after L1 gives 8 + 28 = 36 ms; at 4.8 the single stage gives 4.8 + 33.6 = 38.4; at
  // 5, 4.8 + 35 = 39.8; at 6, 7 x 6 = 42 >= 36 stops the walk. The best is 36 ms.
  const TmaxExercise e = tmax_exercise({4.0f, 1.0f, 1.0f, 2.0f}, 8);
  REQUIRE(e.latencies.size() == 10);   // 4 + 3 + 2 + 1 runs of layers
  CHECK(e.latencies[0].one_gpu_ms == 4);               // L1
  CHECK(e.latencies[3].one_gpu_ms == 8);               // L1-L4
  CHECK(e.latencies[3].two_gpus_ms == doctest::Approx(4.8));
  CHECK(e.best_total_ms == doctest::Approx(36));
  REQUIRE(e.steps.size() >= 4);
  const TmaxStep& last = e.steps.back();
  CHECK(last.stopped);
  CHECK(last.t_max == 6);
  const TmaxStep* at4 = nullptr;
  for (const TmaxStep& s : e.steps) {
    if (s.t_max < 4) CHECK(!std::isfinite(s.sum_ms));
    if (s.t_max == 4) at4 = &s;
  }
  REQUIRE(at4 != nullptr);
  CHECK(at4->sum_ms == 8);
  CHECK(at4->total_ms == 36);
  REQUIRE(at4->stages.size() == 2);
  CHECK(at4->stages[0].first == 0);
  CHECK(at4->stages[0].last == 0);
  CHECK(at4->stages[0].devices == 1);
  CHECK(at4->stages[1].first == 1);
  CHECK(at4->stages[1].last == 3);
  const TmaxStep& before_last = e.steps[e.steps.size() - 2];
  CHECK(before_last.t_max == 5);
  CHECK(before_last.total_ms == doctest::Approx(39.8));
  // The core's inter-op DP finds the same plan.
  REQUIRE(e.core_solved);
  CHECK(e.core.total_latency == doctest::Approx(36));
  CHECK(e.core.t_max == doctest::Approx(4));
  // One micro-batch: no pipeline bubble, so the single 4.8 ms stage wins.
  CHECK(tmax_exercise({4.0f, 1.0f, 1.0f, 2.0f}, 1).best_total_ms == doctest::Approx(4.8));
}

TEST_CASE("exercises 7 and 8: DLRM's speedup and the additive cost") {
  auto e = dlrm_exercise("lecture:2x4");
  REQUIRE(e.ok());
  const DlrmExercise& d = e.value();
  CHECK(d.speedup() == doctest::Approx(d.data_parallel.makespan_ms / d.expert.makespan_ms));
  CHECK(d.data_parallel.makespan_ms > 0);
  CHECK(!dlrm_exercise("no-such-cluster").ok());
  DlrmExercise unknown;
  CHECK(unknown.speedup() == 0);
  SimSummary s;
  s.compute_ms = 3;
  s.activation_transfer_ms = 2;
  s.param_sync_ms = 1.5;
  s.makespan_ms = 4;
  CHECK(additive_cost_ms(s) == 6.5);
}

TEST_CASE("exercise 3's key is the largest share recomputed, not the largest count (issue 40)") {
  // AlexNet on lecture:2x4, the page's default: under data parallel conv1's move recomputes all 184
  // of its tasks, conv2's 190 of 198 (more tasks, a smaller share); under the expert strategy conv1
  // 240 of 240 against conv2's 246 of 254. The hint ("when each op's first task starts") and the
  // explanation ("an early move saves the least") point to conv1 in both.
  const Graph g = model("alexnet");
  const Cluster c = load_cluster("lecture:2x4").value();
  for (const char* name : {"dp", "expert"}) {
    CAPTURE(name);
    const Strategy st = load_strategy(name, g, c).value();
    TaskGraph simulated(g, c, st);
    simulate_full(simulated);
    const DeltaMovesExercise e = delta_moves_exercise(g, c, st, simulated);
    REQUIRE(e.moves.size() == 8);
    const DeltaMove& conv1 = e.moves[0];
    const DeltaMove& conv2 = e.moves[1];
    CHECK(conv1.recomputed == conv1.tasks);
    CHECK(conv2.recomputed > conv1.recomputed);
    CHECK(conv2.recomputed < conv2.tasks);
    CHECK(e.most_recomputing_ops == std::vector<int>{0});
    CHECK(e.most_recomputed_share == 1.0);
    CHECK(e.most_recomputed == conv1.recomputed);
  }
  // Under data parallel exactly the numbers.
  const Strategy dp = load_strategy("dp", g, c).value();
  TaskGraph simulated(g, c, dp);
  simulate_full(simulated);
  const DeltaMovesExercise e = delta_moves_exercise(g, c, dp, simulated);
  CHECK(e.moves[0].tasks == 184);
  CHECK(e.moves[1].recomputed == 190);
  CHECK(e.moves[1].tasks == 198);
}
