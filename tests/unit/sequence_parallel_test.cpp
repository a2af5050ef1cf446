// Unit tests of the sequence dimension in both planners: Alpa's intra-op strategies that split a
// transformer's activations along the sequence (Megatron's sequence parallelism, Korthikanti et
// al. 2022, 4.2.2), checked by hand, by the three solvers against each other, and by the plan the
// ILP picks with and without a memory budget; FlexFlow's SOAP space with attention split along
// its query positions (context parallelism), its count, a hand-worked timeline, and delta
// simulation equal to full simulation over sequence-split moves.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "cluster_spec.h"
#include "intra_op.h"
#include "models.h"
#include "regions.h"
#include "rng.h"
#include "simulator.h"
#include "simulator_fixtures.h"
#include "mcmc.h"
#include "soap.h"
#include "spec_builder.h"
#include "strategy_argument.h"
#include "test_inputs.h"

using namespace autopar;
using autopar::test::model;
using autopar::test::round_cluster;

namespace {

const OpStrategy* strategy_named(const std::vector<OpStrategy>& all, const std::string& name) {
  for (const OpStrategy& s : all)
    if (s.name == name) return &s;
  return nullptr;
}

const OpStrategy& chosen_of(const IntraOpPlan& p, size_t v) { return p.strategies[v][size_t(p.solution.choice[v])]; }

// The intra-op options as `intra` runs it (sequence strategies on), with `solver`.
IntraOpOptions with_sequence(const std::string& solver = "auto") {
  IntraOpOptions o;
  o.solver = solver;
  o.sequence_strategies = true;
  return o;
}

// The ops of a plan whose output is split along the sequence (dimension 1 of [batch, seq, ...]).
int sequence_split_ops(const Graph& g, const IntraOpPlan& p) {
  int n = 0;
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const ShardingSpec& out = chosen_of(p, v).output;
    if (g.ops[v].output.shape.size() >= 2 && out.dims.size() >= 2 && out.dims[1] != 0) ++n;
  }
  return n;
}

// ln -> fc1 -> fc2 -> ln -> loss over [batch, seq, hidden]: a chain (each op feeds only the
// next), so the chain DP solves it too, with norms that can take the sequence split.
Graph norm_mlp_chain(int64_t batch, int64_t seq, int64_t hidden) {
  SpecBuilder b("norm-mlp", DType::f32);
  std::string x = b.input("x", {batch, seq, hidden});
  x = b.op(OpKind::layernorm, "ln_a", {x});
  x = b.op(OpKind::linear, "fc1", {x}, {{"out_features", 4 * hidden}});
  x = b.op(OpKind::linear, "fc2", {x}, {{"out_features", hidden}});
  x = b.op(OpKind::layernorm, "ln_b", {x});
  b.op(OpKind::loss, "loss", {x});
  auto g = build_graph(b.take());
  REQUIRE(g.ok());
  return g.value();
}

}  // namespace

TEST_CASE("sequence-parallel strategies: reduce-scatter to the sequence split, all-gather from it, priced by hand") {
  Graph g = model("transformer:layers=1,batch=2,seq=2048,hidden=8192,heads=64");
  const Cluster c = load_cluster("a100:1x8").value();
  const DeviceMesh mesh = mesh_from_cluster(1, 8, c).value();
  const auto all = enumerate_strategies(g, mesh, with_sequence());
  const int proj = g.find_op("proj_1"), qkv = g.find_op("qkv_1"), ln2 = g.find_op("ln2_1");
  REQUIRE(proj >= 0);
  const OpStrategy* row = strategy_named(all[size_t(proj)], "row@1");
  const OpStrategy* row_sp = strategy_named(all[size_t(proj)], "row@1 seq-out@1");
  REQUIRE(row);
  REQUIRE(row_sp);
  // The output [2, 2048, 8192] floats: 128 MiB per device before the reduction.
  const double bytes = 2.0 * 2048 * 8192 * 4;
  const MeshAxis& a = mesh.axis[1];
  const double per_byte = a.beta * 7.0 / 8.0;
  CHECK(spec_to_string(row->output) == "RRR");
  CHECK(spec_to_string(row_sp->output) == "RS1R");
  CHECK(row->forward_comm == doctest::Approx(a.alpha + 2 * per_byte * bytes));
  CHECK(row_sp->forward_comm == doctest::Approx(a.alpha + per_byte * bytes));    // reduce-scatter
  CHECK(row_sp->backward_comm == doctest::Approx(a.alpha + per_byte * bytes));   // the output gradient all-gathered back
  // Together an all-reduce's bytes and one more latency.
  CHECK(row_sp->forward_comm + row_sp->backward_comm == doctest::Approx(row->forward_comm + a.alpha));
  CHECK(row_sp->forward_collectives.reduce_scatter == 1);
  CHECK(row_sp->forward_collectives.all_reduce == 0);
  CHECK(row_sp->backward_collectives.all_gather == 1);
  CHECK(row_sp->memory_bytes < row->memory_bytes);   // the output kept is 1/8
  // The column split reading the sequence split: all-gather before, reduce-scatter of the input
  // gradient and the input gathered again (only its shard was kept) after.
  const OpStrategy* col = strategy_named(all[size_t(qkv)], "column@1");
  const OpStrategy* col_sp = strategy_named(all[size_t(qkv)], "column@1 seq-in@1");
  REQUIRE(col);
  REQUIRE(col_sp);
  CHECK(spec_to_string(col_sp->inputs[0]) == "RS1R");
  CHECK(col_sp->forward_comm == doctest::Approx(a.alpha + per_byte * bytes));
  CHECK(col_sp->backward_comm == doctest::Approx(2 * (a.alpha + per_byte * bytes)));
  CHECK(col->backward_comm == doctest::Approx(a.alpha + 2 * per_byte * bytes));
  CHECK(col_sp->forward_collectives.all_gather == 1);
  CHECK(col_sp->backward_collectives.reduce_scatter == 1);
  CHECK(col_sp->backward_collectives.all_gather == 1);
  // A norm may run on its share of the positions: RS1R among its layouts.
  bool norm_split = false;
  for (const OpStrategy& s : all[size_t(ln2)]) norm_split = norm_split || spec_to_string(s.output) == "RS1R";
  CHECK(norm_split);
  // Attention keeps its own strategies (a ring over K/V is not one of them).
  for (const OpStrategy& s : all[size_t(g.find_op("attn_1"))]) CHECK(s.inputs[0].dims[1] == 0);
  // Off (the default, as the inter-op pass solves its stages): 2022's strategy set.
  IntraOpOptions off;
  for (const auto& op_strategies : enumerate_strategies(g, mesh, off))
    for (const OpStrategy& s : op_strategies) CHECK(s.name.find("seq-") == std::string::npos);
}

TEST_CASE("sequence strategies stay out of Alpa's conventions and of data parallelism alone") {
  // Alpa's conventions already let a model input arrive split along any dimension (its 1-D
  // partitions), so only the strategy set is compared: the same with the option on or off.
  Graph g = model("transformer:layers=1,batch=8,seq=64,hidden=256,heads=4");
  auto alpa = mesh_from_costs(4, 1, "1,1", "1,1");
  REQUIRE(alpa.ok());
  IntraOpOptions off;
  off.sequence_strategies = false;
  const auto on_alpa = enumerate_strategies(g, alpa.value(), with_sequence()), off_alpa = enumerate_strategies(g, alpa.value(), off);
  for (size_t v = 0; v < g.ops.size(); ++v) {
    REQUIRE(on_alpa[v].size() == off_alpa[v].size());
    for (size_t k = 0; k < on_alpa[v].size(); ++k) {
      CHECK(on_alpa[v][k].name == off_alpa[v][k].name);
      CHECK(on_alpa[v][k].output == off_alpa[v][k].output);
    }
  }
  const DeviceMesh mesh = mesh_from_cluster(1, 8, load_cluster("a100:1x8").value()).value();
  IntraOpOptions dp = with_sequence();
  dp.data_parallel_only = true;
  for (const auto& op_strategies : enumerate_strategies(g, mesh, dp))
    for (const OpStrategy& s : op_strategies) CHECK((s.output.dims.size() < 3 || s.output.dims[1] == 0));
}

TEST_CASE("solvers agree with the sequence strategies: ILP == chain DP == exhaustive, with and without a memory budget") {
  const DeviceMesh m12 = mesh_from_cluster(1, 2, load_cluster("lecture:1x2").value()).value();
  const DeviceMesh m14 = mesh_from_cluster(1, 4, load_cluster("lecture:1x4").value()).value();
  for (const DeviceMesh* mesh : {&m12, &m14}) {
    CAPTURE(mesh->shape_string());
    Graph chain = norm_mlp_chain(2, 16, 32);
    const auto strategies = enumerate_strategies(chain, *mesh, with_sequence());
    int sequence = 0;
    for (const auto& op_strategies : strategies)
      for (const OpStrategy& s : op_strategies) sequence += s.output.dims.size() == 3 && s.output.dims[1] != 0;
    CHECK(sequence > 0);   // the new strategies are in the problem the solvers see
    auto dp = plan_intra_op(chain, *mesh, with_sequence("dp"));
    auto ilp = plan_intra_op(chain, *mesh, with_sequence("ilp"));
    auto ex = plan_intra_op(chain, *mesh, with_sequence("exhaustive"));
    REQUIRE(dp.ok());
    REQUIRE(ilp.ok());
    REQUIRE(ex.ok());
    CHECK(dp.value().objective == doctest::Approx(ex.value().objective));
    CHECK(ilp.value().objective == doctest::Approx(ex.value().objective));
    CHECK(evaluate_assignment(ilp.value().problem, ilp.value().solution.choice) == doctest::Approx(ilp.value().solution.objective));
    // Under a budget between the lightest and the heaviest plan, ILP == exhaustive (the DP takes none).
    for (const char* m : {"transformer:layers=1,batch=2,seq=16,hidden=32,heads=2"}) {
      Graph g = model(m);
      IntraProblem p = intra_op_problem(g, *mesh, with_sequence(), 0, 1).problem;
      double lo = 0, hi = 0;
      for (const auto& mem : p.node_memory) {
        lo += *std::min_element(mem.begin(), mem.end());
        hi += *std::max_element(mem.begin(), mem.end());
      }
      for (double budget : {0.0, (lo + hi) / 2, lo + (hi - lo) / 8}) {
        CAPTURE(budget);
        p.memory_budget = budget;
        auto exb = solve_exhaustive(p, 5e6);
        auto ilpb = solve_ilp(p, 20000);
        REQUIRE(exb.ok());
        REQUIRE(ilpb.ok());
        CHECK(ilpb.value().objective == doctest::Approx(exb.value().objective));
        if (budget > 0) CHECK(assignment_memory(p, ilpb.value().choice) <= budget * (1 + 1e-12));
      }
    }
  }
}

TEST_CASE("the ILP rediscovers Megatron's sequence parallelism where memory makes it pay, and not where it does not") {
  // Megatron-sized layers on one node of 8 A100s: the tensor-parallel plan is the cheapest in
  // communication and keeps every norm and residual add whole on each GPU.
  Graph g = model("transformer:layers=2,batch=2,seq=2048,hidden=8192,heads=64");
  const Cluster c = load_cluster("a100:1x8").value();
  const DeviceMesh mesh = mesh_from_cluster(1, 8, c).value();
  IntraOpOptions free = with_sequence("ilp");
  auto tp = plan_intra_op(g, mesh, free);
  REQUIRE(tp.ok());
  CHECK(sequence_split_ops(g, tp.value()) == 0);
  CHECK(tp.value().collectives.reduce_scatter == 0);
  CHECK(chosen_of(tp.value(), size_t(g.find_op("proj_1"))).name == "row@1");
  CHECK(chosen_of(tp.value(), size_t(g.find_op("ffn1_2"))).name == "column@1");
  // The same layers under a budget below that plan: every row-parallel linear reduce-scatters
  // to the sequence split, norms and adds run on 1/8 of the positions, every column-parallel
  // linear all-gathers before its product (Korthikanti et al. 2022, figure 5).
  IntraOpOptions tight = free;
  tight.memory_budget_bytes = 0.82 * tp.value().memory.total_bytes;
  tight.zero_stage = 0;
  tight.choose_remat = false;
  auto sp = plan_intra_op(g, mesh, tight);
  REQUIRE(sp.ok());
  CHECK(sp.value().memory.fits);
  CHECK(sp.value().memory.total_bytes <= tight.memory_budget_bytes);
  for (const char* op : {"proj_1", "ffn2_1", "proj_2", "ffn2_2"}) {
    CAPTURE(op);
    CHECK(chosen_of(sp.value(), size_t(g.find_op(op))).name == "row@1 seq-out@1");
  }
  for (const char* op : {"qkv_1", "ffn1_1", "qkv_2", "ffn1_2"}) {
    CAPTURE(op);
    CHECK(chosen_of(sp.value(), size_t(g.find_op(op))).name == "column@1 seq-in@1");
  }
  for (const char* op : {"ln1_1", "res1_1", "ln2_1", "res2_1", "ln1_2", "res1_2", "ln2_2", "res2_2"}) {
    CAPTURE(op);
    CHECK(spec_to_string(chosen_of(sp.value(), size_t(g.find_op(op))).output) == "RS1R");
  }
  // Each all-reduce of the tensor-parallel plan's linears becomes a reduce-scatter and an
  // all-gather. Two all-reduces remain: the norms' weight gradients, now computed from each
  // GPU's own positions (one bucket, as Megatron all-reduces them over the tensor-parallel
  // group), and the loss's partial sums.
  CHECK(tp.value().collectives.all_reduce == 8);
  CHECK(sp.value().collectives.reduce_scatter == 8);
  CHECK(sp.value().collectives.all_reduce == 2);
  CHECK(sp.value().memory.activation_bytes < tp.value().memory.activation_bytes);
  CHECK(sp.value().memory.params_bytes == tp.value().memory.params_bytes);
  // It costs more communication (one latency more per pair, and the column-parallel input
  // gathered again in the backward pass): chosen only because it fits.
  CHECK(sp.value().objective > tp.value().objective);
}

TEST_CASE("SOAP's attention takes a split of its query positions (context parallelism): the space grows by it") {
  Graph g = model("transformer:layers=1");
  const Op& attn = g.ops[size_t(g.find_op("attn_1"))];
  REQUIRE(attn.split_dims.size() == 3);
  CHECK(attn.split_dims[1].name == "length");
  CHECK(attn.split_dims[1].kind == SplitKind::attribute);
  CHECK(attn.split_dims[1].output_dim == 1);
  CHECK(attn.split_dims[2].name == "heads");
  // On 8 devices: (sample, length, heads) degrees of powers of two with product dividing 8, each
  // on its aligned blocks. sample 64, length 512 and heads 16 take every degree up to 8, so the
  // count is that of any three free dimensions: sum over products p in {1,2,4,8} of
  // (ways to write p as three degrees) x (8 / p blocks) = 1x8 + 3x4 + 6x2 + 10x1 = 42 (26 before,
  // with two dimensions: 8 + 2x4 + 3x2 + 4x1).
  CHECK(enumerate_configs(attn, 8).size() == 42);
  const SpaceSize s = count_space(g, 8);
  CHECK(s.configs_per_op[size_t(g.find_op("attn_1"))] == 42);
  // The expert (Megatron) recipe still splits attention by heads.
  const Cluster c = load_cluster("lecture:2x4").value();
  const Strategy expert = expert_strategy(g, c);
  const OpConfig& a = expert.ops[size_t(g.find_op("attn_1"))];
  CHECK(a.degrees == std::vector<int>{2, 1, 4});
}

TEST_CASE("attention split along the sequence: a part reads its queries and every key and value, by hand") {
  // x [2, 4, 4] -> qkv (linear 4 -> 12, no bias) -> attention (2 heads of 2): both split along
  // the sequence over 2 GPUs of the round cluster (1e6 FLOP/ms, 10 us per kernel, 1000 bytes/ms).
  SpecBuilder b("cp", DType::f32);
  std::string x = b.input("x", {2, 4, 4});
  x = b.op(OpKind::linear, "qkv", {x}, {{"out_features", 12}, {"bias", 0}});
  b.op(OpKind::attention, "attn", {x}, {{"heads", 2}});
  auto built = build_graph(b.take());
  REQUIRE(built.ok());
  const Graph g = built.value();
  const Op& attn = g.ops[1];
  // Part 0 of the attention (positions 0, 1): Q of its positions, K and V of all four.
  const OpConfig split{{1, 2, 1}, {0, 1}};
  REQUIRE(validate_config(attn, split, 2, "attn").ok());
  const Box out = output_box(attn, split, 0);
  CHECK(out.lo[1] == 0);
  CHECK(out.hi[1] == 2);
  const BoxList reads = input_boxes(attn, 0, out);
  REQUIRE(reads.count == 3);
  CHECK(box_volume(reads.boxes[0]) == 2 * 2 * 4);   // Q: 2 samples x 2 positions x 4
  CHECK(box_volume(reads.boxes[1]) == 2 * 4 * 4);   // K: every position
  CHECK(box_volume(reads.boxes[2]) == 2 * 4 * 4);   // V
  const Strategy s{{OpConfig{{1, 2, 1}, {0, 1}}, split}};
  REQUIRE(validate_config(g.ops[0], s.ops[0], 2, "qkv").ok());
  const Cluster c = round_cluster(1, 2);
  TaskGraph tg(g, c, s);
  const double makespan = simulate_full(tg);
  // Each attention part needs the other GPU's K and V rows: 2 samples x 2 positions x (4 + 4)
  // floats = 128 bytes, at 1000 bytes/ms 0.128 ms, in each direction, forward and (their
  // gradients) backward: an all-gather of K and V and its reduce-scatter back.
  int transfers = 0;
  for (const Task& t : tg.tasks())
    if (t.live && t.kind == TaskKind::transfer) {
      ++transfers;
      CHECK(t.bytes == 128);
      CHECK(t.duration_ms == doctest::Approx(0.128));
    }
  CHECK(transfers == 4);
  // qkv per part: 2 x 8 rows x 4 x 12 / 2 = 384 FLOPs forward, 768 backward. Attention: 4 b s^2 h
  // + 5 b heads s^2 = 4x2x16x4 + 5x2x2x16 = 832, half per part: 416 forward, and as many
  // backward (an op without weights computes only its input gradient, op_kinds.cpp). The
  // weights (4 x 12 floats = 192 bytes) are replicated: a ring of two, each edge carrying
  // 2 x 1/2 x 192 = 192 bytes in 2 messages, 0.192 ms, after both backward passes.
  const double qkv_f = 0.01 + 384e-6, qkv_b = 0.01 + 768e-6, attn_f = 0.01 + 416e-6, attn_b = 0.01 + 416e-6;
  const double expected = qkv_f + 0.128 + attn_f + attn_b + 0.128 + qkv_b + 0.192;
  CHECK(makespan == doctest::Approx(expected).epsilon(1e-12));
}

TEST_CASE("delta simulation equals full simulation over sequence-split moves") {
  // Moves drawn from the configurations that split the sequence (attention's query positions
  // included), on a transformer whose every op has that dimension, most undone as MCMC rejects
  // them; the makespan compared exactly after each and every task's times every 25th move.
  const Graph g = model("transformer:layers=3,batch=4,seq=256,hidden=256,heads=8");
  const Cluster c = load_cluster("lecture:2x4").value();
  const int n = c.num_devices();
  std::vector<std::vector<OpConfig>> seq_moves(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    size_t length = g.ops[i].split_dims.size();
    for (size_t j = 0; j < g.ops[i].split_dims.size(); ++j)
      if (g.ops[i].split_dims[j].name == "length") length = j;
    REQUIRE(length < g.ops[i].split_dims.size());
    for (const OpConfig& cfg : enumerate_configs(g.ops[i], n))
      if (cfg.degrees[length] > 1) seq_moves[i].push_back(cfg);
    REQUIRE(!seq_moves[i].empty());
  }
  Strategy s = data_parallel(g, n);
  DeltaSimulator delta(g, c, s);
  Rng rng(23);
  int attention_moves = 0;
  for (int m = 0; m < 300; ++m) {
    const int op = int(rng.below(g.ops.size()));
    const OpConfig cfg = seq_moves[size_t(op)][size_t(rng.below(seq_moves[size_t(op)].size()))];
    attention_moves += g.ops[size_t(op)].spec.kind == OpKind::attention;
    const OpConfig old = s.ops[size_t(op)];
    const double before = delta.makespan();
    s.ops[size_t(op)] = cfg;
    const double d = delta.set_config(op, cfg);
    TaskGraph fresh(g, c, s);
    REQUIRE(d == simulate_full(fresh));   // exactly
    if (m % 25 == 0) {
      std::map<uint64_t, std::tuple<double, double, double>> a, b2;
      for (const Task& t : delta.task_graph().tasks()) if (t.live) a[t.order] = {t.ready_ms, t.start_ms, t.end_ms};
      for (const Task& t : fresh.tasks()) if (t.live) b2[t.order] = {t.ready_ms, t.start_ms, t.end_ms};
      REQUIRE(a == b2);
    }
    if (rng.below(4) != 0) {
      delta.undo();
      s.ops[size_t(op)] = old;
      REQUIRE(delta.makespan() == before);
    } else {
      delta.compact_if_scattered();
    }
  }
  CHECK(attention_moves > 10);
  TaskGraph check(g, c, s);
  CHECK(simulate_full(check) == delta.makespan());
}

TEST_CASE("MCMC proposals reach attention's sequence splits") {
  // The proposal draws from enumerate_configs, which now holds the length splits: a search on a
  // long sequence of batch 1 (no sample split beyond one GPU) moves attention along it.
  const Graph g = model("transformer:layers=1,batch=1,seq=4096,hidden=512,heads=8");
  const Cluster c = load_cluster("lecture:1x8").value();
  SearchOptions o;
  o.steps = 400;
  o.seed = 3;
  o.beta = 500;
  o.record_steps = 400;
  McmcSearch search(g, c, data_parallel(g, c.num_devices()), o);
  search.step(400);
  const int attn = g.find_op("attn_1");
  bool proposed = false;
  for (const McmcStep& st : search.step_records())
    if (st.move == McmcStep::Move::config && st.op == attn && st.to.degrees[1] > 1) proposed = true;
  CHECK(proposed);
}
