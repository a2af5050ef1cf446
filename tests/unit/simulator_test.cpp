// Unit tests of the task graph and the simulator: hand-worked timelines, invariants of every
// simulated timeline, and delta simulation equal to full simulation over thousands of moves.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "cluster_spec.h"
#include "models.h"
#include "rng.h"
#include "simulator.h"
#include "mcmc.h"
#include "simulator_fixtures.h"
#include "soap.h"
#include "strategy_argument.h"

using namespace autopar;
using autopar::test::round_cluster;
using autopar::test::two_linear_ops;

namespace {

OpConfig on(int device, int sample = 1, int channel = 1) {
  OpConfig c{{sample, channel}, {}};
  for (int k = 0; k < sample * channel; ++k) c.devices.push_back(device + k);
  return c;
}

// Invariants every simulated timeline must satisfy.
void check_timeline(const TaskGraph& tg, double makespan) {
  std::map<int, std::vector<const Task*>> by_device;
  double critical = 0;
  std::vector<double> longest(tg.tasks().size(), 0);
  // Tasks sorted by start give a topological order (positive durations).
  std::vector<const Task*> live;
  for (const Task& t : tg.tasks()) if (t.live) live.push_back(&t);
  std::sort(live.begin(), live.end(), [](const Task* a, const Task* b) { return a->start_ms < b->start_ms; });
  for (const Task* t : live) {
    REQUIRE(t->duration_ms > 0);
    CHECK(t->end_ms == doctest::Approx(t->start_ms + t->duration_ms));
    double ready = 0;
    for (int d : t->deps) {
      const Task& dep = tg.tasks()[size_t(d)];
      CHECK(dep.end_ms <= t->start_ms);                 // dependencies respected
      ready = std::max(ready, longest[size_t(d)]);
    }
    size_t slot = size_t(t - tg.tasks().data());
    longest[slot] = ready + t->duration_ms;              // critical path through deps only
    critical = std::max(critical, longest[slot]);
    by_device[t->device].push_back(t);
  }
  for (auto& [dev, list] : by_device)
    for (size_t i = 1; i < list.size(); ++i) CHECK(list[i - 1]->end_ms <= list[i]->start_ms);   // no overlap on a lane
  CHECK(makespan >= critical * (1 - 1e-12));
}

}  // namespace

TEST_CASE("two ops on two GPUs: the hand-worked timeline") {
  Graph g = two_linear_ops(4);
  Cluster c = round_cluster(1, 2);
  Strategy s{{on(0), on(1)}};
  TaskGraph tg(g, c, s);
  double makespan = simulate_full(tg);
  // a fwd: 10 us + 2*4*8*6 = 384 FLOP / 1e6 = 0.010384 ms; b fwd: 0.01 + 96e-6 = 0.010096 ms.
  // Backward is twice the FLOPs: b 0.010192, a 0.010768. Transfer of a's 4x6 floats = 96 bytes
  // at 1000 bytes/ms = 0.096 ms, forward (link 0->1) and its gradient back (link 1->0).
  double expected = 0.010384 + 0.096 + 0.010096 + 0.010192 + 0.096 + 0.010768;
  CHECK(makespan == doctest::Approx(expected).epsilon(1e-12));
  CHECK(tg.live_count() == 6);
  SimSummary sum = summarize(tg);
  CHECK(sum.activation_bytes == 192);
  CHECK(sum.activation_transfer_ms == doctest::Approx(0.192));
  CHECK(sum.compute_ms == doctest::Approx(0.010384 + 0.010096 + 0.010192 + 0.010768));
  CHECK(sum.param_sync_bytes == 0);
  check_timeline(tg, makespan);
}

TEST_CASE("data parallel on two GPUs: parameter sync contends on the links") {
  Graph g = two_linear_ops(4);
  Cluster c = round_cluster(1, 2);
  Strategy s{{on(0, 2), on(0, 2)}};
  TaskGraph tg(g, c, s);
  double makespan = simulate_full(tg);
  // Each part does half the work: a fwd 0.010192, b fwd 0.010048, b bwd 0.010096, a bwd 0.010384.
  // b's weight (6x2 floats = 48 bytes) syncs first: ring of 2 moves 2*(2-1)/2*48 = 48 bytes each
  // way: [0.030336, 0.078336] on links 0->1 and 1->0. a's weight (192 bytes) is ready at
  // 0.04072 but the links are busy until 0.078336; it takes 0.192 ms: ends at 0.270336.
  CHECK(makespan == doctest::Approx(0.270336).epsilon(1e-12));
  SimSummary sum = summarize(tg);
  CHECK(sum.activation_bytes == 0);
  CHECK(sum.param_sync_bytes == 2 * 48 + 2 * 192);
  check_timeline(tg, makespan);
}

TEST_CASE("a transfer between nodes pays the network latency and bandwidth") {
  Graph g = two_linear_ops(4);
  Cluster c = round_cluster(2, 1);
  Strategy s{{on(0), on(1)}};
  TaskGraph tg(g, c, s);
  double makespan = simulate_full(tg);
  // As in the first case, but each transfer also waits 0.5 ms of network latency.
  double expected = 0.010384 + 0.596 + 0.010096 + 0.010192 + 0.596 + 0.010768;
  CHECK(makespan == doctest::Approx(expected).epsilon(1e-12));
  bool network = false;
  for (const Task& t : tg.tasks())
    if (t.live && t.kind == TaskKind::transfer) network |= tg.topology().name(t.device).rfind("network", 0) == 0;
  CHECK(network);
}

TEST_CASE("device topology: one link per ordered GPU pair in a node, one per ordered node pair") {
  DeviceTopology t{8, 2, 4};
  CHECK(t.num_devices() == 8 + 2 * 12 + 2);
  std::vector<int> seen;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      if (a != b && a / 4 == b / 4) seen.push_back(t.link(a, b));
  std::sort(seen.begin(), seen.end());
  CHECK(std::unique(seen.begin(), seen.end()) == seen.end());
  CHECK(seen.front() == 8);
  CHECK(seen.back() == 8 + 24 - 1);
  CHECK(t.link(0, 5) == t.link(3, 4));   // one network link per direction between two nodes
  CHECK(t.link(0, 5) != t.link(5, 0));
  CHECK(t.name(t.link(1, 2)) == "link 1->2");
  CHECK(t.name(t.link(6, 1)) == "network node 1->node 0");
}

TEST_CASE("network lanes: one per NIC of the sending node (issue 39: one NIC per GPU on DGX presets)") {
  // 3 nodes x 8 GPUs, 8 NICs each: 24 GPUs + 3 * 56 in-node links + 6 node pairs x 8 NICs.
  DeviceTopology t{24, 3, 8, 8};
  CHECK(t.num_devices() == 24 + 3 * 56 + 6 * 8);
  std::vector<int> seen;
  for (int a = 0; a < 24; ++a)
    for (int b = 0; b < 24; ++b)
      if (a != b && a / 8 != b / 8) seen.push_back(t.link(a, b));
  std::sort(seen.begin(), seen.end());
  seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
  CHECK(seen.size() == 6 * 8);                       // every lane used, none shared by two (pair, NIC)
  CHECK(seen.front() == 24 + 3 * 56);
  CHECK(seen.back() == t.num_devices() - 1);
  CHECK(t.link(0, 8) != t.link(1, 9));               // GPUs 0 and 1 send through their own NICs
  CHECK(t.link(1, 9) == t.link(1, 15));              // one NIC whatever the GPU it sends to
  CHECK(t.name(t.link(9, 3)) == "network node 1->node 0 NIC 1");
  // Two NICs for four GPUs: GPUs 0, 1 share NIC 0, GPUs 2, 3 NIC 1.
  DeviceTopology h{8, 2, 4, 2};
  CHECK(h.link(0, 4) == h.link(1, 7));
  CHECK(h.link(2, 4) != h.link(1, 4));
  // Presets: DGX A100 / H100 have a NIC per GPU, the lecture's cluster one network per node.
  CHECK(flexflow_nics_per_node(load_cluster("a100:2x8").value()) == 8);
  CHECK(flexflow_nics_per_node(load_cluster("h100:4x8").value()) == 8);
  CHECK(flexflow_nics_per_node(load_cluster("lecture:2x4").value()) == 1);
  CHECK(flexflow_nics_per_node(load_cluster("v100:2x8").value()) == 1);
}

TEST_CASE("on a DGX preset two GPUs send across nodes at once, each through its own NIC") {
  // x split by sample over GPUs 0, 1 (node 0) for op a, and over GPUs 2, 3 (node 1) for op b:
  // the activations go 0 -> 2 and 1 -> 3 at the same time. With a NIC per GPU (nics_per_node
  // 0, as the DGX presets) the two transfers take two lanes and overlap; with one NIC per node
  // one lane serialises them.
  Graph g = two_linear_ops(4);
  Strategy s{{on(0, 2), on(2, 2)}};
  Cluster dgx = round_cluster(2, 2);
  dgx.nics_per_node = 0;
  Cluster one_nic = round_cluster(2, 2);
  one_nic.nics_per_node = 1;
  TaskGraph two_lanes(g, dgx, s), one_lane(g, one_nic, s);
  const double with_nics = simulate_full(two_lanes), with_one = simulate_full(one_lane);
  CHECK(two_lanes.topology().nics_per_node == 2);
  CHECK(one_lane.topology().nics_per_node == 1);
  CHECK(with_nics < with_one);
  std::vector<const Task*> forward_transfers;
  for (const Task& t : two_lanes.tasks())
    if (t.live && t.kind == TaskKind::transfer && t.forward_pass) forward_transfers.push_back(&t);
  REQUIRE(forward_transfers.size() == 2);
  CHECK(forward_transfers[0]->device != forward_transfers[1]->device);
  CHECK(forward_transfers[0]->start_ms == forward_transfers[1]->start_ms);   // side by side
  check_timeline(two_lanes, with_nics);
  check_timeline(one_lane, with_one);
}

TEST_CASE("every named strategy of the lecture models gives a valid timeline") {
  for (const char* model : {"alexnet", "dlrm", "elm", "mlp3", "transformer:layers=2", "conv1d", "wide-resnet", "moe:layers=1"}) {
    auto g = load_model(model);
    REQUIRE(g.ok());
    auto c = load_cluster("lecture:2x4");
    REQUIRE(c.ok());
    for (const char* strat : {"dp", "mp", "expert", "random:1", "random:2"}) {
      std::string what = std::string(model) + " " + strat;
      CAPTURE(what);
      auto s = load_strategy(strat, g.value(), c.value());
      REQUIRE(s.ok());
      for (size_t i = 0; i < g.value().ops.size(); ++i)
        CHECK(validate_config(g.value().ops[i], s.value().ops[i], 8, "x").ok());
      TaskGraph tg(g.value(), c.value(), s.value());
      double makespan = simulate_full(tg);
      CHECK(makespan > 0);
      check_timeline(tg, makespan);
    }
  }
}

namespace {

// A task graph as a map from each live task's canonical order to what it is, its links (as
// the orders of their ends, sorted) and its simulated times: equal for equal graphs however
// their slots were handed out.
using TaskView = std::tuple<int, int, double, double, int, int, int, bool, std::vector<uint64_t>, std::vector<uint64_t>, double, double>;
std::map<uint64_t, TaskView> view(const TaskGraph& tg) {
  std::map<uint64_t, TaskView> v;
  const auto& tasks = tg.tasks();
  auto orders = [&](const SmallVector<int, 4>& list) {
    std::vector<uint64_t> o;
    for (int s : list) o.push_back(tasks[size_t(s)].order);
    std::sort(o.begin(), o.end());
    return o;
  };
  for (const Task& t : tasks)
    if (t.live)
      v[t.order] = {int(t.kind), t.device, t.duration_ms, t.bytes, t.op, t.part, t.peer_part, t.forward_pass, orders(t.deps), orders(t.succs),
                    t.start_ms, t.end_ms};
  return v;
}

// A model and a cluster by name, with every op's configurations in the search space.
struct Setup {
  Graph graph;
  Cluster cluster;
  int devices = 0;
  std::vector<std::vector<OpConfig>> space;
};
Setup load_setup(const char* model, const char* cluster) {
  auto g = load_model(model);
  REQUIRE(g.ok());
  auto c = load_cluster(cluster);
  REQUIRE(c.ok());
  Setup s{g.value(), c.value(), c.value().num_devices(), {}};
  for (const Op& op : s.graph.ops) s.space.push_back(enumerate_configs(op, s.devices));
  return s;
}

}  // namespace

TEST_CASE("a task graph rebuilt in place equals a new one, strategy after strategy") {
  // What bench's build+simulate and a recomputation flip do: rebuild() reuses the slots, the
  // link lists' storage, the per-configuration templates and each edge's last geometry.
  struct Case { const char* model; const char* cluster; };
  const Case cases[] = {{"alexnet", "lecture:2x4"}, {"dlrm", "lecture:4x8"}, {"transformer:layers=2,seq=63,batch=7", "lecture:2x2"},
                        {"moe:layers=1", "lecture:2x4"}, {"wide-resnet", "lecture:1x4"}};
  int rebuilt = 0;
  for (const Case& k : cases) {
    std::string model = k.model;
    CAPTURE(model);
    const Setup setup = load_setup(k.model, k.cluster);
    const Graph& graph = setup.graph;
    const Cluster& cluster = setup.cluster;
    const int n = setup.devices;
    const auto& space = setup.space;
    Strategy s = load_strategy("dp", graph, cluster).value();
    TaskGraph tg(graph, cluster, s);
    Rng rng(17);
    for (int step = 0; step < 60; ++step) {
      // Mostly one op at a time (as a search), sometimes a whole new strategy, a ZeRO stage or
      // recomputation, sometimes the same strategy again.
      const uint64_t what = rng.below(10);
      if (what == 0) {
        s = random_strategy(graph, n, 100 + uint64_t(step));
      } else if (what == 1) {
        s.remat = !s.remat;
      } else if (what < 9) {
        const size_t op = size_t(rng.below(graph.ops.size()));
        s.ops[op] = space[op][size_t(rng.below(space[op].size()))];
        s.ops[op].zero = int(rng.below(4));
      }
      tg.rebuild(s);
      TaskGraph fresh(graph, cluster, s);
      REQUIRE(tg.strategy() == s);
      REQUIRE(tg.live_count() == fresh.live_count());
      REQUIRE(simulate_full(tg) == simulate_full(fresh));
      REQUIRE(view(tg) == view(fresh));
      std::vector<int> live = tg.live_slots(), expected;
      std::sort(live.begin(), live.end());
      for (size_t slot = 0; slot < tg.tasks().size(); ++slot)
        if (tg.tasks()[slot].live) expected.push_back(int(slot));
      REQUIRE(live == expected);
      ++rebuilt;
    }
  }
  CHECK(rebuilt == 300);
}

TEST_CASE("delta simulation equals full simulation over thousands of random moves and undos") {
  struct Case { const char* model; const char* cluster; int moves; };
  // Every model and cluster size `bench` measures delta simulation on is here (DLRM 2x4, 4x8,
  // 16x8). The last three have dimensions the degrees do not divide (uneven, balanced parts), and
  // their moves also try non-power-of-two degrees outside the search space.
  const Case cases[] = {{"alexnet", "lecture:2x4", 1500}, {"dlrm", "lecture:2x4", 1500}, {"elm", "lecture:1x4", 800},
                        {"transformer:layers=2,seq=64", "lecture:2x2", 600}, {"dlrm", "lecture:4x8", 300}, {"dlrm", "lecture:16x8", 300},
                        {"alexnet:batch=257", "lecture:2x4", 600}, {"dlrm:batch=1001,hidden=500", "lecture:2x4", 600},
                        {"transformer:layers=2,seq=63,batch=7,heads=12,hidden=768", "lecture:2x2", 300},
                        // The transformer (18,496 tasks under data parallel) and the page's
                        // default size on the lecture's 4x8, and a DGX cluster's eight NICs per node.
                        {"transformer:layers=24", "lecture:4x8", 40}, {"transformer:layers=4", "lecture:4x8", 200},
                        {"dlrm", "a100:2x8", 300}};
  int total = 0;
  for (const Case& k : cases) {
    std::string model = k.model;
    CAPTURE(model);
    Setup setup = load_setup(k.model, k.cluster);
    const int n = setup.devices;
    auto& space = setup.space;
    for (size_t i = 0; i < setup.graph.ops.size(); ++i) {
      const Op& op = setup.graph.ops[i];
      // Degrees 3 and 6 of the first dimension (rarely dividing it) on the last devices.
      for (int degree : {3, 6}) {
        if (op.split_dims.empty() || degree > n || degree > op.split_dims[0].size) continue;
        OpConfig c{std::vector<int>(op.split_dims.size(), 1), {}};
        c.degrees[0] = degree;
        for (int k = 0; k < degree; ++k) c.devices.push_back(n - degree + k);
        REQUIRE(validate_config(op, c, n, "x").ok());
        space[i].push_back(c);
      }
    }
    Strategy s = random_strategy(setup.graph, n, 11);
    DeltaSimulator delta(setup.graph, setup.cluster, s);
    Rng rng(5), compact_rng(9);
    for (int m = 0; m < k.moves; ++m) {
      int op = int(rng.below(setup.graph.ops.size()));
      // The search's other moves too: a ZeRO stage per op, and recomputation on or off.
      OpConfig cfg = space[size_t(op)][size_t(rng.below(space[size_t(op)].size()))];
      cfg.zero = int(rng.below(4));
      const bool flip_remat = rng.below(40) == 0;
      const OpConfig old = s.ops[size_t(op)];
      const double before = delta.makespan();
      // Every few moves, each slot's links before the move: an undo must give them back exactly
      // (a recomputation flip rebuilds the task graph: its undo gives the same timeline, not slots).
      std::vector<std::tuple<bool, std::vector<int>, std::vector<int>>> links_before;
      if (m % 10 == 0 && !flip_remat)
        for (const Task& t : delta.task_graph().tasks())
          links_before.emplace_back(t.live, std::vector<int>(t.deps.begin(), t.deps.end()), std::vector<int>(t.succs.begin(), t.succs.end()));
      double d;
      if (flip_remat) {
        s.remat = !s.remat;
        d = delta.set_remat(s.remat);
      } else {
        s.ops[size_t(op)] = cfg;
        d = delta.set_config(op, cfg);
      }
      TaskGraph fresh(setup.graph, setup.cluster, s);
      double f = simulate_full(fresh);
      REQUIRE(d == f);   // exactly, not approximately
      REQUIRE(delta.last_recomputed() <= delta.task_graph().live_count());
      // Half the moves are undone, as MCMC does with a rejected proposal.
      const bool undo = rng.below(2) == 0;
      if (undo) {
        delta.undo();
        if (flip_remat) s.remat = !s.remat;
        s.ops[size_t(op)] = old;
        REQUIRE(delta.makespan() == before);
        REQUIRE(delta.task_graph().strategy() == s);
        for (size_t k = 0; k < links_before.size(); ++k) {
          const Task& t = delta.task_graph().tasks()[k];
          REQUIRE(std::get<0>(links_before[k]) == t.live);
          if (!t.live) continue;
          REQUIRE(std::get<1>(links_before[k]) == std::vector<int>(t.deps.begin(), t.deps.end()));
          REQUIRE(std::get<2>(links_before[k]) == std::vector<int>(t.succs.begin(), t.succs.end()));
        }
      }
      // As MCMC does after some accepted moves: renumber the tasks in processing order. The
      // timeline stays, and the moves after it stay exact (checked by the next moves).
      if (!undo && compact_rng.below(6) == 0) {
        delta.compact();
        REQUIRE(delta.makespan() == d);
        REQUIRE(delta.task_graph().tasks().size() == size_t(delta.task_graph().live_count()));
        for (const Task& t : delta.task_graph().tasks()) {
          REQUIRE(t.live);
          for (int u : t.succs) REQUIRE(std::count(delta.task_graph().tasks()[size_t(u)].deps.begin(), delta.task_graph().tasks()[size_t(u)].deps.end(), &t - delta.task_graph().tasks().data()) == 1);
        }
      }
      // The same timeline, task by task (after an undo: the one before the move).
      if (m % 5 == 0) {
        TaskGraph check(setup.graph, setup.cluster, s);
        simulate_full(check);
        std::map<uint64_t, std::tuple<double, double, double>> a, b;
        for (const Task& t : delta.task_graph().tasks()) if (t.live) a[t.order] = {t.ready_ms, t.start_ms, t.end_ms};
        for (const Task& t : check.tasks()) if (t.live) b[t.order] = {t.ready_ms, t.start_ms, t.end_ms};
        REQUIRE(a == b);
        REQUIRE(delta.task_graph().live_count() == check.live_count());
      }
      ++total;
    }
  }
  CHECK(total == 7040);
}

TEST_CASE("delta simulation equals full simulation on the issue's transformer from data parallel, move after move") {
  // bench --large's setting (transformer:layers=24 on lecture:4x8, every move from data
  // parallel), where a move shifts nearly every task after the changed op and nearly all of
  // them go through the ready queue: 300 moves, most undone as MCMC rejects them, some kept, the
  // makespan compared exactly after each and every task's times every 20th move.
  Setup setup = load_setup("transformer:layers=24", "lecture:4x8");
  auto dp = load_strategy("dp", setup.graph, setup.cluster);
  REQUIRE(dp.ok());
  Strategy s = dp.value();
  DeltaSimulator delta(setup.graph, setup.cluster, s);
  REQUIRE(delta.task_graph().live_count() == 18496);
  Rng rng(17);
  int moved = 0, changed_most = 0;
  for (int m = 0; m < 300; ++m) {
    const int op = int(rng.below(setup.graph.ops.size()));
    const OpConfig cfg = setup.space[size_t(op)][size_t(rng.below(setup.space[size_t(op)].size()))];
    const OpConfig old = s.ops[size_t(op)];
    const double before = delta.makespan();
    s.ops[size_t(op)] = cfg;
    const double d = delta.set_config(op, cfg);
    TaskGraph fresh(setup.graph, setup.cluster, s);
    REQUIRE(d == simulate_full(fresh));   // exactly
    if (delta.last_recomputed() * 2 > delta.task_graph().live_count()) ++changed_most;
    if (m % 20 == 0) {
      std::map<uint64_t, std::tuple<double, double, double>> a, b;
      for (const Task& t : delta.task_graph().tasks()) if (t.live) a[t.order] = {t.ready_ms, t.start_ms, t.end_ms};
      for (const Task& t : fresh.tasks()) if (t.live) b[t.order] = {t.ready_ms, t.start_ms, t.end_ms};
      REQUIRE(a == b);
    }
    if (rng.below(8) != 0) {   // rejected: back to the timeline before the move
      delta.undo();
      s.ops[size_t(op)] = old;
      REQUIRE(delta.makespan() == before);
    } else {
      delta.compact_if_scattered();   // as MCMC does after an accepted move
    }
    ++moved;
  }
  CHECK(moved == 300);
  // The case the walk's eager deferral is for: most moves recompute most of the graph.
  CHECK(changed_most > 150);
  // The timeline after all of it, task by task.
  TaskGraph check(setup.graph, setup.cluster, s);
  CHECK(simulate_full(check) == delta.makespan());
  std::map<uint64_t, std::tuple<double, double, double>> a, b;
  for (const Task& t : delta.task_graph().tasks()) if (t.live) a[t.order] = {t.ready_ms, t.start_ms, t.end_ms};
  for (const Task& t : check.tasks()) if (t.live) b[t.order] = {t.ready_ms, t.start_ms, t.end_ms};
  CHECK(a == b);
}

TEST_CASE("an MCMC chain on the issue's transformer: every proposal's delta makespan is a fresh full simulation's") {
  // The search itself, not moves drawn by the test: 260 steps of Metropolis-Hastings from
  // data parallel (configurations, ZeRO stages and recomputation flips, beta 500), once with
  // delta simulation (each proposal an edit of the kept task graph, undone when rejected, the
  // graph renumbered after accepted ones) and once with a new task graph built and simulated
  // per proposal (a step that finds nothing to propose, a ZeRO stage for an op without
  // replicated weights, simulates nothing: over 200 proposals are simulated). Same seed: the
  // two chains must make the same proposals with the same makespans, bit for bit, and so take
  // the same decisions.
  Setup setup = load_setup("transformer:layers=24", "lecture:4x8");
  const Strategy dp = load_strategy("dp", setup.graph, setup.cluster).value();
  SearchOptions o;
  o.beta = 500;
  o.steps = 260;
  o.seed = 4;
  o.stop_when_stalled = false;
  o.memory_moves = 1;
  o.record_steps = 260;
  SearchOptions full = o;
  full.full_sim = true;
  McmcSearch with_delta(setup.graph, setup.cluster, dp, o), with_full(setup.graph, setup.cluster, dp, full);
  CHECK(with_delta.step(260) == 260);
  CHECK(with_full.step(260) == 260);
  const auto& a = with_delta.step_records();
  const auto& b = with_full.step_records();
  REQUIRE(a.size() == b.size());
  REQUIRE(a.size() >= 200);
  int accepted = 0, kinds[3] = {0, 0, 0};   // per McmcStep::Move
  for (size_t k = 0; k < a.size(); ++k) {
    CAPTURE(k);
    REQUIRE(a[k].step == b[k].step);
    REQUIRE(a[k].op == b[k].op);
    REQUIRE(a[k].move == b[k].move);
    REQUIRE(a[k].proposed_ms == b[k].proposed_ms);   // exactly
    REQUIRE(a[k].accepted == b[k].accepted);
    accepted += a[k].accepted;
    ++kinds[int(a[k].move)];
  }
  // A chain that moves (some proposals kept, so later ones edit a graph other than dp's) and
  // proposes configurations and ZeRO stages (a recomputation flip comes once in 2n + 1
  // proposals, n the ops; the random moves above flip it).
  CHECK(accepted >= 10);
  CHECK(kinds[0] > 0);
  CHECK(kinds[1] > 0);
  CHECK(with_delta.result().best_ms == with_full.result().best_ms);
  TaskGraph check(setup.graph, setup.cluster, with_delta.current());
  CHECK(simulate_full(check) == with_delta.result().current_ms);
}

TEST_CASE("delta simulation from data parallel: every leaf taken in its device's order, and exactly the changed tasks counted") {
  // From data parallel every parameter sync is a leaf (a task nothing waits for), which a move
  // takes per device, outside the ready queue. Random moves (ZeRO stages too, half undone) on
  // several models: the makespan and every task's times equal a new full simulation's, and
  // last_recomputed() is, counted by brute force slot by slot, the tasks that are new (their
  // slot was not live before) or whose ready or start time moved.
  struct Case { const char* model; const char* cluster; int moves; };
  const Case cases[] = {{"alexnet", "lecture:2x4", 300}, {"dlrm", "lecture:2x4", 300}, {"transformer:layers=2", "lecture:2x2", 300},
                        {"mlp3", "lecture:1x4", 300}, {"mlp", "lecture:2x4", 200}, {"transformer:layers=4", "lecture:4x8", 60}};
  int total = 0;
  for (const Case& k : cases) {
    std::string model = k.model;
    CAPTURE(model);
    Setup setup = load_setup(k.model, k.cluster);
    auto dp = load_strategy("dp", setup.graph, setup.cluster);
    REQUIRE(dp.ok());
    Strategy s = dp.value();
    DeltaSimulator delta(setup.graph, setup.cluster, s);
    int leaves = 0;
    for (const Task& t : delta.task_graph().tasks()) leaves += t.live && t.succs.empty();
    CHECK(leaves > 0);
    Rng rng(23);
    for (int m = 0; m < k.moves; ++m) {
      const int op = int(rng.below(setup.graph.ops.size()));
      OpConfig cfg = setup.space[size_t(op)][size_t(rng.below(setup.space[size_t(op)].size()))];
      cfg.zero = int(rng.below(4));
      const OpConfig old = s.ops[size_t(op)];
      struct Times { bool live; double ready, start; };
      std::vector<Times> before;
      for (const Task& t : delta.task_graph().tasks()) before.push_back({t.live, t.ready_ms, t.start_ms});
      const double makespan_before = delta.makespan();
      s.ops[size_t(op)] = cfg;
      const double d = delta.set_config(op, cfg);
      TaskGraph fresh(setup.graph, setup.cluster, s);
      REQUIRE(d == simulate_full(fresh));   // exactly
      int changed = 0;
      const auto& tasks = delta.task_graph().tasks();
      for (size_t i = 0; i < tasks.size(); ++i) {
        if (!tasks[i].live) continue;
        changed += i >= before.size() || !before[i].live || before[i].ready != tasks[i].ready_ms || before[i].start != tasks[i].start_ms;
      }
      REQUIRE(delta.last_recomputed() == changed);
      if (m % 10 == 0) {
        std::map<uint64_t, std::tuple<double, double, double>> a, b;
        for (const Task& t : tasks) if (t.live) a[t.order] = {t.ready_ms, t.start_ms, t.end_ms};
        for (const Task& t : fresh.tasks()) if (t.live) b[t.order] = {t.ready_ms, t.start_ms, t.end_ms};
        REQUIRE(a == b);
      }
      if (rng.below(2) == 0) {
        delta.undo();
        s.ops[size_t(op)] = old;
        REQUIRE(delta.makespan() == makespan_before);
        // Every slot's times back as they were (the leaves' included).
        const auto& back = delta.task_graph().tasks();
        for (size_t i = 0; i < before.size(); ++i) {
          if (!before[i].live) continue;
          REQUIRE(back[i].live);
          REQUIRE(back[i].ready_ms == before[i].ready);
          REQUIRE(back[i].start_ms == before[i].start);
        }
      } else if (rng.below(4) == 0) {
        delta.compact();   // as MCMC does now and then after accepted moves
        REQUIRE(delta.makespan() == d);
      }
      ++total;
    }
  }
  CHECK(total == 1460);
}
