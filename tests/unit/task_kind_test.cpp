// The task kinds' trait table (task_kind.h): one row per kind, the names the CLI and traces print
// unchanged, and the breakdown buckets and task names read from it agreeing with the kinds'
// meaning, counted here kind by kind.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "simulator.h"
#include "simulator_fixtures.h"
#include "trace_export.h"

using namespace autopar;

TEST_CASE("every task kind has one row of traits, with the names the CLI and traces print") {
  const char* names[] = {"forward", "backward", "transfer", "sync", "recompute"};
  static_assert(sizeof names / sizeof names[0] == kTaskKindCount, "a name per kind");
  std::set<std::string> tags;
  for (int k = 0; k < kTaskKindCount; ++k) {
    CHECK(int(kTaskKindTable[size_t(k)].kind) == k);
    CHECK(std::string(task_kind_name(TaskKind(k))) == names[k]);
    tags.insert(task_kind_tag(TaskKind(k), true));
  }
  CHECK(tags.size() == size_t(kTaskKindCount));   // task names tell every kind apart
  CHECK(std::string(task_kind_tag(TaskKind::transfer, false)) == "grad");
  CHECK(std::string(task_kind_tag(TaskKind::backward, false)) == "bwd");
}

TEST_CASE("the breakdown sums durations by kind: compute is forward, backward and recompute") {
  Graph g = autopar::test::two_linear_ops(4);
  Cluster c = autopar::test::round_cluster(1, 2);
  Strategy s{{OpConfig{{2, 1}, {0, 1}, 1}, OpConfig{{1, 1}, {1}, 0}}};   // ZeRO 1 syncs, a transfer between the ops
  s.remat = true;
  TaskGraph tg(g, c, s);
  simulate_full(tg);
  double compute = 0, transfer = 0, sync = 0, transfer_bytes = 0, sync_bytes = 0;
  int seen[kTaskKindCount] = {};
  for (const Task& t : tg.tasks()) {
    if (!t.live) continue;
    ++seen[int(t.kind)];
    if (t.kind == TaskKind::forward || t.kind == TaskKind::backward || t.kind == TaskKind::recompute) compute += t.duration_ms;
    if (t.kind == TaskKind::transfer) transfer += t.duration_ms, transfer_bytes += t.bytes;
    if (t.kind == TaskKind::sync) sync += t.duration_ms, sync_bytes += t.bytes;
  }
  for (int k = 0; k < kTaskKindCount; ++k) CHECK_MESSAGE(seen[k] > 0, "no task of kind ", task_kind_name(TaskKind(k)));
  const SimSummary sum = summarize(tg);
  CHECK(sum.compute_ms == doctest::Approx(compute).epsilon(1e-12));
  CHECK(sum.activation_transfer_ms == doctest::Approx(transfer).epsilon(1e-12));
  CHECK(sum.param_sync_ms == doctest::Approx(sync).epsilon(1e-12));
  CHECK(sum.activation_bytes == transfer_bytes);
  CHECK(sum.param_sync_bytes == sync_bytes);
  // Task names: "a.fwd[0]", "a.recompute[1]", "b.act[0->0] 0->1", "a.sync[0] 1->0".
  for (const Task& t : tg.tasks()) {
    if (!t.live) continue;
    const std::string name = task_name(tg, t);
    const std::string op = g.ops[size_t(t.op)].name();
    if (t.kind == TaskKind::recompute) CHECK(name == op + ".recompute[" + std::to_string(t.part) + "]");
    if (t.kind == TaskKind::transfer)
      CHECK(name.rfind(op + (t.forward_pass ? ".act[" : ".grad[") + std::to_string(t.peer_part) + "->" + std::to_string(t.part) + "] ", 0) == 0);
    if (t.kind == TaskKind::sync) CHECK(name.rfind(op + ".sync[" + std::to_string(t.peer_part) + "] ", 0) == 0);
  }
}
