// Unit tests of the inter-op pass's layers (the model's own numbering, Alpa's automatic layer
// construction) and of the boundary costs between stages (lecture 6.4): hand-computed bytes and
// times inside a node and across nodes, the DP with boundaries equal to brute force, and Alpa's
// local all-gather never costing more than plain send/recv.
#include <doctest/doctest.h>

#include <string>
#include <tuple>

#include "test_inputs.h"
#include "pipeline_schedule.h"
#include "cluster_spec.h"
#include "inter_op.h"
#include "inter_operation.h"
#include "operation_requests.h"
#include "models.h"
#include "rng.h"
#include "sharding_spec.h"

using namespace autopar;
using autopar::test::model;

namespace {

// Two layers on `nodes` x `gpus`: [0,0] and [1,1] on the single-GPU sub-mesh (latencies 4 and 5),
// [0,1] on the whole cluster (latency `whole`); 1e6 bytes cross the cut.
StageCostTable two_layer_table(int nodes, int gpus, double whole, LinkSpec intra, LinkSpec inter) {
  StageCostTable t;
  std::vector<Submesh> subs{{1, 1}, {nodes, gpus}};
  t.reset(2, nodes, gpus, subs);
  t.latency[t.index(0, 0, 0)] = 4;
  t.latency[t.index(1, 1, 0)] = 5;
  t.latency[t.index(0, 1, 1)] = whole;
  t.has_boundaries = true;
  t.cut_bytes[0] = 1e6;
  t.intra_link = intra;
  t.inter_link = inter;
  return t;
}

}  // namespace

TEST_CASE("a two-stage boundary inside a node, by hand") {
  // One node of 2 GPUs; the link inside it: 10 us, 1 GB/s = 1e6 B/ms.
  StageCostTable t = two_layer_table(1, 2, 8, {10, 1}, {50, 0.2});
  REQUIRE(boundary_crosses_nodes(t, 1) == false);   // one node: never across nodes
  BoundaryCost b = boundary_cost(t, 0, 1, t.index(1, 1, 0), false);
  CHECK(b.bytes == 1e6);
  // One copy forward and the gradient back: 2 * (0.01 + 1e6 / 1e6) = 2.02 ms; no replicas.
  CHECK(b.send_ms == doctest::Approx(2.02));
  CHECK(b.recv_ms == 0);
  CHECK(b.ms() == doctest::Approx(2.02));
  // B = 4. Two stages: sum 4 + 5 + 2.02 = 11.02, largest lane max(4, 5, 2.02) = 5:
  // 11.02 + 3 * 5 = 26.02. One stage on both GPUs: 8 + 3 * 8 = 32. Without boundaries: 9 + 15 = 24.
  auto with = solve_inter_op(t, 4);
  REQUIRE(with.ok());
  CHECK(with.value().total_latency == doctest::Approx(26.02));
  CHECK(with.value().stages.size() == 2);
  CHECK(with.value().stages[0].send_ms == doctest::Approx(2.02));
  CHECK(with.value().stages[1].device_offset == 1);
  auto without = solve_inter_op(t, 4, false);
  REQUIRE(without.ok());
  CHECK(without.value().total_latency == doctest::Approx(24));
  CHECK(brute_force_inter_op(t, 4).value().total_latency == doctest::Approx(26.02));
}

TEST_CASE("a two-stage boundary across nodes, by hand: the boundary changes the plan") {
  // Two nodes of 1 GPU; the network: 50 us, 0.2 GB/s = 2e5 B/ms.
  StageCostTable t = two_layer_table(2, 1, 8.5, {10, 16}, {50, 0.2});
  REQUIRE(boundary_crosses_nodes(t, 1));
  BoundaryCost b = boundary_cost(t, 0, 1, t.index(1, 1, 0), true);
  // 2 * (0.05 + 1e6 / 2e5) = 10.1 ms.
  CHECK(b.send_ms == doctest::Approx(10.1));
  // Two stages: sum 4 + 5 + 10.1 = 19.1, largest lane 10.1 (the send): 19.1 + 3 * 10.1 = 49.4;
  // one stage on both nodes: 8.5 * 4 = 34, which wins. Ignoring boundaries, two stages: 9 + 15 = 24.
  auto with = solve_inter_op(t, 4);
  REQUIRE(with.ok());
  CHECK(with.value().total_latency == doctest::Approx(34));
  CHECK(with.value().stages.size() == 1);
  auto without = solve_inter_op(t, 4, false);
  CHECK(without.value().total_latency == doctest::Approx(24));
  CHECK(without.value().stages.size() == 2);
}

TEST_CASE("Alpa's local all-gather vs plain send/recv, by hand") {
  StageCostTable t = two_layer_table(2, 1, 8.5, {10, 16}, {50, 1});
  const size_t next = t.index(1, 1, 0);
  t.recv_replicas[next] = 4;
  t.recv_allgather_ms[next] = 0.3;
  // Across nodes (1e6 B/ms): plain sends 3 more copies, 3 * 1e6 / 1e6 = 3 ms; the all-gather 0.3 ms.
  BoundaryCost across = boundary_cost(t, 0, 1, next, true);
  CHECK(across.plain_recv_ms == doctest::Approx(3));
  CHECK(across.local_all_gather);
  CHECK(across.recv_ms == doctest::Approx(0.3));
  // Inside a node (16e6 B/ms): 3 / 16 = 0.1875 ms < 0.3, so plain send/recv is kept.
  BoundaryCost inside = boundary_cost(t, 0, 1, next, false);
  CHECK(inside.plain_recv_ms == doctest::Approx(0.1875));
  CHECK_FALSE(inside.local_all_gather);
  CHECK(inside.recv_ms == doctest::Approx(0.1875));
}

TEST_CASE("inter-op DP with boundaries == brute force, random tables and a model's table") {
  Rng rng(21);
  for (int round = 0; round < 60; ++round) {
    StageCostTable t;
    const int L = 2 + int(rng.below(4));
    const int nodes = 1 + int(rng.below(2)), gpus = round % 3 == 0 ? 4 : 2;
    t.reset(L, nodes, gpus, alpa_submeshes(nodes, gpus));
    const int M = int(t.submeshes.size());
    for (int f = 0; f < L; ++f)
      for (int l = f; l < L; ++l)
        for (int m = 0; m < M; ++m) {
          if (rng.below(5) == 0) continue;
          const size_t idx = t.index(f, l, m);
          t.latency[idx] = double(1 + rng.below(40)) * (l - f + 1) / t.submeshes[size_t(m)].devices();
          if (round % 2) t.max_succ_stages[idx] = int(rng.below(3));
          t.recv_replicas[idx] = 1 + int(rng.below(3));
          t.recv_allgather_ms[idx] = double(rng.below(100)) / 50;
        }
    t.has_boundaries = true;
    for (int i = 0; i < L; ++i) t.cut_bytes[size_t(i)] = double(rng.below(4)) * 1e6;
    t.intra_link = {10, 8};
    t.inter_link = {50, 1};
    const int B = 1 + int(rng.below(16));
    for (bool boundaries : {true, false}) {
      auto dp = solve_inter_op(t, B, boundaries);
      auto bf = brute_force_inter_op(t, B, boundaries);
      REQUIRE(dp.ok() == bf.ok());
      if (!dp.ok()) continue;
      CHECK(dp.value().total_latency == doctest::Approx(bf.value().total_latency));
      // The plan's own total, from its stages, is what the DP reports (the objective of the header).
      double sum = 0, lane = 0;
      int devices = 0;
      for (const auto& s : dp.value().stages) {
        sum += s.latency + (boundaries ? s.recv_ms + s.send_ms : 0);
        lane = std::max(lane, boundaries ? std::max(s.latency + s.recv_ms, s.send_ms) : s.latency);
        if (boundaries) CHECK(s.device_offset == devices);
        if (boundaries) CHECK(submesh_fits_at(t, s.submesh, s.device_offset));
        devices += s.submesh.devices();
      }
      CHECK(devices == nodes * gpus);
      CHECK(sum + (B - 1) * lane == doctest::Approx(dp.value().total_latency));
    }
  }
  Graph micro = microbatch_graph(model("transformer:layers=3,batch=8,seq=64,hidden=256,heads=4"), 4).value();
  InterOpOptions o;
  o.microbatches = 4;
  auto table = stage_costs_from_model(micro, load_cluster("lecture:2x2").value(), o);
  REQUIRE(table.ok());
  REQUIRE(table.value().has_boundaries);
  auto dp = solve_inter_op(table.value(), 4);
  auto bf = brute_force_inter_op(table.value(), 4);
  REQUIRE(dp.ok());
  REQUIRE(bf.ok());
  CHECK(dp.value().total_latency == doctest::Approx(bf.value().total_latency));
  CHECK(dp.value().total_latency >= solve_inter_op(table.value(), 4, false).value().total_latency);
}

TEST_CASE("boundaries of a model: the bytes crossing, and the local all-gather never costs more") {
  // transformer:layers=4 (batch 64, seq 512, hidden 1024, 4-byte floats), 32 micro-batches of 2:
  // 2 x 512 x 1024 x 4 = 4 MiB cross each cut between layers.
  Graph micro = microbatch_graph(model("transformer:layers=4"), 32).value();
  InterOpOptions o;
  o.microbatches = 32;
  StageCostBuilder b(micro, load_cluster("lecture:2x4").value(), o);
  auto t = b.finish();
  REQUIRE(t.ok());
  REQUIRE(t.value().layers == 4);
  for (int i = 0; i < 3; ++i) CHECK(t.value().cut_bytes[size_t(i)] == 4194304.0);
  int cheaper = 0;
  const StageCostTable& tab = t.value();
  for (int f = 1; f < tab.layers; ++f)
    for (int l = f; l < tab.layers; ++l)
      for (int m = 0; m < int(tab.submeshes.size()); ++m)
        for (bool inter : {false, true}) {
          const size_t idx = tab.index(f, l, m);
          if (!std::isfinite(tab.latency[idx])) continue;
          BoundaryCost c = boundary_cost(tab, f - 1, 1, idx, inter);
          CHECK(c.recv_ms <= c.plain_recv_ms);
          CHECK(c.replicas >= 1);
          CHECK(c.replicas <= tab.submeshes[size_t(m)].devices());
          cheaper += c.local_all_gather;
        }
  CHECK(cheaper > 0);   // somewhere the all-gather is strictly cheaper than sending copies across
  // Across the 10 GbE of lecture:2x4 (50 us, 1.25 GB/s): 2 * (0.05 + 4194304 / 1.25e6) = 6.81087 ms.
  BoundaryCost across = boundary_cost(tab, 0, 1, tab.index(1, 3, 0), true);
  CHECK(across.send_ms == doctest::Approx(6.8108864));
  // Inside a node (10 us, 16 GB/s): 2 * (0.01 + 4194304 / 16e6) = 0.544288 ms.
  BoundaryCost inside = boundary_cost(tab, 0, 1, tab.index(1, 3, 0), false);
  CHECK(inside.send_ms == doctest::Approx(0.544288));
}

TEST_CASE("the inter-op pass slices the model's own layers, numbered as the model numbers them") {
  Graph g = model("transformer:layers=24");
  auto named = named_layers(g);
  REQUIRE(named.has_value());
  REQUIRE(named->ops.size() == 24);
  for (int k = 0; k < 24; ++k) {
    CHECK(named->numbers[size_t(k)].first == k + 1);
    CHECK(g.ops[size_t(named->ops[size_t(k)].first)].name() == "ln1_" + std::to_string(k + 1));
  }
  CHECK(g.ops[size_t(named->ops[6].second)].name() == "res2_7");
  CHECK(g.ops[size_t(named->ops.back().second)].name() == "loss");   // unnumbered ops join their neighbour
  // mlp: dense1 relu1 | dense2 loss.
  auto mlp = named_layers(model("mlp:layers=2"));
  REQUIRE(mlp.has_value());
  CHECK(mlp->ops == std::vector<std::pair<int, int>>{{0, 1}, {2, 3}});
  // DLRM's names (emb0..emb7, bot1..) do not number a chain of layers.
  CHECK_FALSE(named_layers(model("dlrm")).has_value());
  // More model layers than max_layers: merged evenly, still named in the model's numbering.
  InterOpOptions o;
  o.max_layers = 10;
  auto merged = plan_layers(g, o);
  REQUIRE(merged.ok());
  REQUIRE(merged.value().numbers.size() == 10);
  CHECK(merged.value().numbers.front() == std::pair<int, int>{1, 3});   // 24 = 4 x 3 + 6 x 2
  CHECK(merged.value().numbers.back() == std::pair<int, int>{23, 24});
}

TEST_CASE("Alpa's automatic layer construction: N contiguous layers of balanced FLOPs") {
  Graph g = model("transformer:layers=6");
  for (int n : {1, 2, 3, 6}) {
    auto l = auto_layers(g, n);
    REQUIRE(l.ok());
    REQUIRE(int(l.value().ops.size()) == n);
    CHECK(l.value().ops.front().first == 0);
    CHECK(l.value().ops.back().second == int(g.ops.size()) - 1);
    double total = 0;
    for (const auto& op : g.ops) total += op.spec.kind == OpKind::linear || op.spec.kind == OpKind::attention ? op.forward_flops : 0;
    for (size_t k = 0; k < l.value().ops.size(); ++k) {
      if (k > 0) CHECK(l.value().ops[k].first == l.value().ops[k - 1].second + 1);
      double f = 0;
      int heavy = 0;
      for (int v = l.value().ops[k].first; v <= l.value().ops[k].second; ++v)
        if (g.ops[size_t(v)].spec.kind == OpKind::linear || g.ops[size_t(v)].spec.kind == OpKind::attention) {
          f += g.ops[size_t(v)].forward_flops;
          ++heavy;
        }
      // Within (1 + eps) of the average, allowing the heavy op that crossed the bound.
      CHECK(heavy >= 3);
      CHECK(f <= total / n * 1.5 + 276.1e9);
    }
  }
  // Six identical layers into 3 and 6: the cuts fall where one tensor crosses (least bytes entering).
  auto six = auto_layers(g, 6);
  for (size_t k = 1; k < six.value().ops.size(); ++k)
    CHECK(g.ops[size_t(six.value().ops[k].first - 1)].name().rfind("res", 0) == 0);
  auto too_many = auto_layers(g, 10000);
  REQUIRE_FALSE(too_many.ok());
  CHECK(too_many.error().path == "--layers");
}

TEST_CASE("pipeline schedule with send/recv boxes on the links' lanes, by hand") {
  // Two stages of 3 ms (forward 1, backward 2), one micro-batch, a boundary of 2 ms (1 each way):
  // fwd s0 [0,1], send [1,2], fwd s1 [2,3], bwd s1 [3,5], send back [5,6], bwd s0 [6,8].
  auto sched = pipeline_schedule({3, 3}, 1, PipelineKind::gpipe, {2, 0});
  CHECK(sched.makespan_ms == doctest::Approx(8));
  int transfers = 0;
  for (const auto& b : sched.boxes) {
    if (!b.transfer) continue;
    ++transfers;
    CHECK(b.stage == 0);
    CHECK(b.end_ms - b.start_ms == doctest::Approx(1));
    CHECK(b.start_ms == doctest::Approx(b.forward ? 1 : 5));
  }
  CHECK(transfers == 2);
  // Without sends, the schedule of before: 1 + 1 + 2 + 2 = 6.
  CHECK(pipeline_schedule({3, 3}, 1, PipelineKind::gpipe).makespan_ms == doctest::Approx(6));
  // 1F1B with 4 micro-batches: each link carries one transfer at a time.
  auto f1b = pipeline_schedule({3, 3, 3}, 4, PipelineKind::one_f_one_b, {2.5, 2.5, 0});
  for (const auto& a : f1b.boxes)
    for (const auto& b : f1b.boxes)
      if (&a != &b && a.transfer && b.transfer && a.stage == b.stage) CHECK((a.end_ms <= b.start_ms + 1e-9 || b.end_ms <= a.start_ms + 1e-9));
}

TEST_CASE("cross-mesh resharding of lecture 6.4 by hand: send/recv messages and the local all-gather") {
  // A [2, 512, 1024] float tensor (4 MiB) split along the sequence on a 1x2 mesh (devices 0-1,
  // spec RS1R: halves of 2 MiB) goes to a 1x4 mesh on the next node (devices 4-7) that needs it
  // replicated (RRR), over 10 GbE (50 us, 1.25 GB/s).
  Cluster c = load_cluster("lecture:2x4").value();
  Cluster one = c;
  one.nodes = 1;
  one.gpus_per_node = 2;
  const DeviceMesh src_mesh = mesh_from_cluster(1, 2, one).value();
  one.gpus_per_node = 4;
  const DeviceMesh dst_mesh = mesh_from_cluster(1, 4, one).value();
  const ShardingSpec src = parse_spec("RS1R").value(), dst = parse_spec("RRR").value();
  const Shape shape{2, 512, 1024};
  // Plain: each of 4 receivers gets both halves: 8 messages of 2 MiB, 16 MiB across.
  CrossMeshPlan plain = cross_mesh_reshard(shape, 4, src_mesh, src, 0, dst_mesh, dst, 4, c.inter_node, false);
  CHECK(plain.messages.size() == 8);
  CHECK(plain.bytes_across == 16777216.0);
  CHECK(plain.send_ms == doctest::Approx(0.05 + 16777216.0 / 1.25e6));   // 13.47 ms
  CHECK(plain.local.empty());
  // Local all-gather: receiver j gets sequence rows [128 j, 128 j + 128) (1 MiB) from the device
  // holding them (0 for j < 2, else 1): 4 messages, 4 MiB across, then one all-gather along the
  // 4 GPUs of node 1 ending with 4 MiB per device.
  CrossMeshPlan local = cross_mesh_reshard(shape, 4, src_mesh, src, 0, dst_mesh, dst, 4, c.inter_node, true);
  REQUIRE(local.messages.size() == 4);
  for (int j = 0; j < 4; ++j) {
    CHECK(local.messages[size_t(j)].to == 4 + j);
    CHECK(local.messages[size_t(j)].from == (j < 2 ? 0 : 1));
    CHECK(local.messages[size_t(j)].bytes == 1048576.0);
  }
  CHECK(local.send_ms == doctest::Approx(0.05 + 4194304.0 / 1.25e6));   // 3.40 ms
  REQUIRE(local.local.size() == 1);
  CHECK(local.local[0].axes[0] == 1);
  // 16 GB/s inside the node, 10 us: 0.01 + 3/4 x 4194304 / 16e6 = 0.2066 ms.
  CHECK(local.local_ms == doctest::Approx(0.01 + 0.75 * 4194304.0 / 16e6));
  CHECK(local.total_ms() < plain.total_ms());
}

// Lecture 6.3's Wide-ResNet: its down-sampling layers, planned alone, take their input
// replicated (the input arrives for free and the intra-op objective prices no compute) and the
// stage then pays an all-gather from the batch-split layers around them. A stage chooses per
// layer between its own plan and its batch-split plan, so a stage of many layers on the whole
// node costs about the sum of its layers' best single-layer stages, not several times it (9.4 ms
// for layers 1-5 against 3.9 ms summed, before).
TEST_CASE("inter-op stage costs: Wide-ResNet's layers chain on the batch-split layout") {
  Graph micro = microbatch_graph(load_model("wide-resnet:batch=64").value(), 8).value();
  InterOpOptions o;
  o.microbatches = 8;
  auto table = stage_costs_from_model(micro, load_cluster("lecture:1x8").value(), o);
  REQUIRE(table.ok());
  const StageCostTable& t = table.value();
  int node = -1;   // the whole node, (1, 8)
  for (size_t m = 0; m < t.submeshes.size(); ++m)
    if (t.submeshes[m].devices() == 8) node = int(m);
  REQUIRE(node >= 0);
  REQUIRE(t.layers >= 8);
  for (int last : {4, 7, t.layers - 1}) {
    double singles = 0;
    for (int l = 0; l <= last; ++l) singles += t.latency[t.index(l, l, node)];
    const double stage = t.latency[t.index(0, last, node)];
    CAPTURE(last);
    CHECK(stage <= 1.15 * singles);   // the last layers reshard once to their own plans
    CHECK(stage >= 0.95 * singles);   // no layer's plan vanishes from the sum
  }
}

namespace {
// Two layers, each a stage on a 1x4 sub-mesh (t = 2 x d = 2 inside it), 8 GPUs in all: one node
// of 8 (the boundary stays on NVLink) or two nodes of 4 (it crosses the network, over `nics`
// NICs per node). 8e6 bytes cross the cut; the receiver's spec replicates its input twice
// (t = 2 without sequence parallelism), its local all-gather 0.05 ms.
StageCostTable dp_tp_table(int nodes, int nics) {
  StageCostTable t;
  t.reset(2, nodes, 8 / nodes, {{1, 4}});
  t.latency[t.index(0, 0, 0)] = 3;
  t.latency[t.index(1, 1, 0)] = 4;
  t.has_boundaries = true;
  t.cut_bytes[0] = 8e6;
  t.intra_link = {2, 100};   // 2 us, 100 GB/s = 1e8 B/ms per GPU
  t.inter_link = {5, 25};    // 5 us, 25 GB/s = 2.5e7 B/ms per NIC
  t.nics = nics;
  t.recv_replicas[t.index(1, 1, 0)] = 2;
  t.recv_allgather_ms[t.index(1, 1, 0)] = 0.05;
  return t;
}
}  // namespace

TEST_CASE("a boundary sends a slice from each GPU of the sending mesh at once, by hand (not one stream)") {
  const size_t next = dp_tp_table(2, 4).index(1, 1, 0);
  // Across two nodes with a NIC per GPU: 4 GPUs each send 8e6 / 4 = 2e6 B at once:
  // 2 * (0.005 + 2e6 / 2.5e7) = 0.17 ms. One stream of 8e6 B would take 2 * (0.005 + 0.32) = 0.65 ms.
  const StageCostTable across = dp_tp_table(2, 4);
  BoundaryCost b = boundary_cost(across, 0, 4, next, true);
  CHECK(b.senders == 4);
  CHECK(b.stream_bytes == 2e6);
  CHECK(b.send_ms == doctest::Approx(0.17));
  // Plain send/recv would send each of the 4 receivers its other copy, 2e6 B at 2.5e7 B/ms:
  // 0.08 ms; the local all-gather (0.05 ms) is cheaper.
  CHECK(b.plain_recv_ms == doctest::Approx(0.08));
  CHECK(b.local_all_gather);
  CHECK(b.recv_ms == doctest::Approx(0.05));
  // One NIC per node: the 4 streams share it (6.25e6 B/ms each), 2 * (0.005 + 2e6 / 6.25e6) =
  // 0.65 ms, what one stream over one NIC costs (Alpa's AWS p3.16xlarge nodes).
  const StageCostTable one_nic = dp_tp_table(2, 1);
  CHECK(boundary_cost(one_nic, 0, 4, next, true).send_ms == doctest::Approx(0.65));
  CHECK(boundary_cost(one_nic, 0, 4, next, true).plain_recv_ms == doctest::Approx(0.32));
  // Two NICs: two GPUs per NIC, 2 * (0.005 + 2e6 / 1.25e7) = 0.33 ms.
  CHECK(boundary_cost(dp_tp_table(2, 2), 0, 4, next, true).send_ms == doctest::Approx(0.33));
  // Inside one node of 8: each GPU over its own NVLink, 2 * (0.002 + 2e6 / 1e8) = 0.044 ms; plain
  // send/recv's extra copy 2e6 / 1e8 = 0.02 ms beats the all-gather.
  const StageCostTable inside = dp_tp_table(1, 8);
  BoundaryCost c = boundary_cost(inside, 0, 4, next, false);
  CHECK(c.send_ms == doctest::Approx(0.044));
  CHECK_FALSE(c.local_all_gather);
  CHECK(c.recv_ms == doctest::Approx(0.02));

  // The DP, the given-plan evaluator and the schedule simulation price the same plan alike.
  // B = 4 across nodes (NIC per GPU): sum 3 + 0.17 + (4 + 0.05) = 7.22, largest lane 4.05:
  // 7.22 + 3 * 4.05 = 19.37 ms. Under the old one-stream rule it was 7.70 + 12.15 = 19.85 ms
  // (and inside the node 7.064 + 12.06 = 19.124 ms, where one stream gave 7.184 + 12.06).
  // Plain copies of the row's numbers: clang (C++17) refuses structured bindings in CAPTURE's lambda.
  for (const auto& row : {std::tuple{across, 19.37, 0.17, 0.05}, std::tuple{inside, 7.064 + 3 * 4.02, 0.044, 0.02}}) {
    const StageCostTable& table = std::get<0>(row);
    const double total = std::get<1>(row), send = std::get<2>(row), recv = std::get<3>(row);
    CAPTURE(total);
    auto dp = solve_inter_op(table, 4);
    auto bf = brute_force_inter_op(table, 4);
    auto given = evaluate_inter_op_plan(table, 4, {{0, 0}, {1, 1}}, 0, true);
    REQUIRE(dp.ok());
    REQUIRE(bf.ok());
    REQUIRE(given.ok());
    CHECK(dp.value().total_latency == doctest::Approx(total));
    CHECK(bf.value().total_latency == doctest::Approx(total));
    CHECK(given.value().total_latency == doctest::Approx(total));
    REQUIRE(dp.value().stages.size() == 2);
    CHECK(dp.value().stages[0].send_ms == doctest::Approx(send));
    CHECK(given.value().stages[0].send_ms == doctest::Approx(send));
    CHECK(dp.value().stages[1].recv_ms == doctest::Approx(recv));
    // GPipe, simulated: f1 + b1 + B (f2 + b2) + the send each way once (stage 2 is the slower,
    // so nothing else waits on the link) = 3 + 4 (4 + recv) + send: the closed form here.
    const PlanPipeline pp = plan_pipeline(given.value(), 4, PlanShares{});
    auto in = plan_schedule_input(pp, ScheduleKind::gpipe, 1);
    REQUIRE(in.ok());
    CHECK(in.value().boundary_send_ms[0] == doctest::Approx(send / 2));
    auto sim = simulate_schedule(in.value());
    REQUIRE(sim.ok());
    CHECK(sim.value().makespan_ms == doctest::Approx(3 + 4 * (4 + recv) + send));
    CHECK(sim.value().makespan_ms == doctest::Approx(total));
  }
}

TEST_CASE("a given plan's boundary from a model: a slice per GPU over the cluster's NICs, nothing gathered under sequence parallelism") {
  const Graph g = model("transformer:layers=4,hidden=512,heads=8,seq=256,batch=32");
  const Cluster c = load_cluster("h100:2x8").value();   // one NIC per GPU
  for (bool sp : {false, true}) {
    CAPTURE(sp);
    InterRequest r;
    r.plan = parse_given_plan(std::string("t=4,p=2,d=2,mbs=1") + (sp ? ",sp=1" : "")).value();
    r.microbatches = given_plan_microbatches(*r.plan, model_batch(g)).value();
    InterJob job(g, c, r);
    auto out = run_to_end(job);
    REQUIRE(out.ok());
    const InterReport& rep = out.value();
    CHECK(rep.table.nics == 8);
    REQUIRE(rep.plan.stages.size() == 2);
    const PipelineStage& first = rep.plan.stages[0];
    CHECK(first.send_inter_node);
    // The node's 8 GPUs each send an eighth over their own NIC, forward and back.
    CHECK(first.send_ms == doctest::Approx(2 * c.inter_node.transfer_ms(first.send_bytes / 8)));
    const Json j = rep.to_json();
    const Json& coll = j["stages"][0]["boundary"]["collectives"];
    CHECK(coll[0]["senders"].get<int>() == 8);
    CHECK(coll[0]["bytes_per_sender"].get<double>() == doctest::Approx(first.send_bytes / 8));
    if (sp) {
      // The input arrives split along the sequence over the tensor axis, as the stage keeps it.
      CHECK(coll.size() == 1);
      CHECK(rep.plan.stages[1].recv_ms == 0);
    } else {
      // Replicated over the 4 tensor-parallel GPUs: gathered (or sent) 4 times over.
      REQUIRE(coll.size() == 2);
      CHECK(coll[1]["replicas"].get<int>() == 4);
      CHECK(rep.plan.stages[1].recv_ms > 0);
    }
  }
}
