// Alpa's own shard-parallel tests, reproduced: tests/shard_parallel/test_mlp.py and
// test_bert.py of alpa-projects/alpa run the auto-sharding pass under pure alpha-beta mesh
// costs and assert its objective (within 1%, their assert_close) and the collectives of the
// compiled step. `autopar intra --alpha --beta` follows Alpa's conventions (device_mesh.h,
// intra_op.cpp), so the same models give the same numbers here.
//
// Alpa's test helper prices collectives as LogicalDeviceMesh does (Python, no rounding):
//   AR(B, d) = alpha_d + 2 beta_d (n-1)/n B + 0.01       (all-reduce over mesh axis d of n devices)
// and adds, for data parallelism, int(AR(1,0) + AR(1,1)) per replicated parameter and optimizer
// state leaf (Adam: mu and nu per parameter, plus the step count). The expected values below are
// that arithmetic; our objective is what our solver computed, checked against the evaluator.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_inputs.h"
#include "cluster_spec.h"
#include "intra_op.h"
#include "memory_model.h"
#include "alpa_operations.h"
#include "commands.h"
#include "json_io.h"
#include "models.h"
#include "request_fields.h"

using namespace autopar;
using autopar::test::model;

namespace {

DeviceMesh alpa_mesh(int r, int c, const char* alpha, const char* beta) {
  auto m = mesh_from_costs(r, c, alpha, beta);
  REQUIRE(m.ok());
  return m.value();
}

// Alpa's test-side all-reduce cost (LogicalDeviceMesh.all_reduce_cost).
double AR(double bytes, int n, double alpha, double beta) { return alpha + beta * 2 * (n - 1) / n * bytes + 0.01; }

// Alpa's FlaxBertLayerCollection: the built-in model `bert` (core/model/models.cpp), loaded as
// `autopar intra --model` loads it.
Graph bert_layers(int64_t layers, int64_t batch, int64_t seq, int64_t hidden, int64_t heads) {
  return model("bert:layers=" + std::to_string(layers) + ",batch=" + std::to_string(batch) + ",seq=" + std::to_string(seq) +
               ",hidden=" + std::to_string(hidden) + ",heads=" + std::to_string(heads));
}

IntraOpPlan plan(const Graph& g, const DeviceMesh& mesh, bool reduce_scatter = false, bool remat = false) {
  IntraOpOptions o;
  o.reduce_scatter = reduce_scatter;
  o.remat = remat;
  auto p = plan_intra_op(g, mesh, o);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.error().message));
  // The solver's own objective equals the independent evaluation of its choice.
  CHECK(p.value().solver_objective == doctest::Approx(evaluate_assignment(p.value().problem, p.value().solution.choice)));
  CHECK(p.value().objective == doctest::Approx(p.value().communication_cost + p.value().resharding_cost + p.value().penalty_cost));
  return p.value();
}

// Alpa's assert_close: |x / y - 1| <= 1%.
void check_close(double ours, double alpa) {
  CAPTURE(ours);
  CAPTURE(alpa);
  CHECK(std::fabs(ours / alpa - 1) <= 0.01);
}

const OpStrategy& chosen(const IntraOpPlan& p, const Graph& g, const std::string& op) {
  const int v = g.find_op(op);
  REQUIRE(v >= 0);
  return p.strategies[size_t(v)][size_t(p.solution.choice[size_t(v)])];
}

// The kernel's spec ([in, out]) of a Dense op in the plan.
std::string kernel_spec(const IntraOpPlan& p, const Graph& g, const std::string& op) {
  const OpStrategy& s = chosen(p, g, op);
  return spec_to_string(s.inputs[1]);
}

}  // namespace

TEST_CASE("Alpa test_mlp: n_layer_mlp_data_parallel (and its reduce-scatter variant, Zero2Parallel)") {
  // 6 Dense layers 32 -> 32 with bias, batch 256, meshes (4,1) and (1,4), alpha = beta = 1.
  Graph g = model("mlp:layers=6,batch=256,in=32,hidden=32,out=32");
  for (int i = 0; i < 2; ++i) {
    CAPTURE(i);
    const DeviceMesh mesh = i == 0 ? alpa_mesh(4, 1, "1,1", "1,1") : alpa_mesh(1, 4, "1,1", "1,1");
    // expected = 6 * (AR(32*32*4) + AR(32*4)) + int(AR(1,i) + AR(1,1-i)) * (12 params + 25 Adam leaves)
    //          = 6 * ((1 + 1.5*4096 + .01) + (1 + 1.5*128 + .01)) + int(2.51 + 1.01) * 37
    //          = 6 * (6145.01 + 193.01) + 3 * 37 = 38028.12 + 111 = 38139.12
    const double expected = 6 * (AR(4096, 4, 1, 1) + AR(128, 4, 1, 1)) + 3 * 37;
    CHECK(expected == doctest::Approx(38139.12));
    IntraOpPlan p = plan(g, mesh);
    check_close(p.objective, expected);
    // One all-reduce: every gradient combined (XLA's all-reduce combiner); nothing else.
    CHECK(p.collectives.all_reduce == 1);
    CHECK(p.collectives.total() == 1);
    for (int k = 1; k <= 6; ++k) CHECK(kernel_spec(p, g, "dense" + std::to_string(k)) == "RR");   // replicated weights

    // prefer_reduce_scatter: the same objective within 1%, one reduce-scatter and one all-gather.
    IntraOpPlan rs = plan(g, mesh, true);
    check_close(rs.objective, expected);
    CHECK(rs.collectives.reduce_scatter == 1);
    CHECK(rs.collectives.all_gather == 1);
    CHECK(rs.collectives.all_reduce == 0);
    CHECK(rs.collectives.total() == 2);
    // ZeRO-2: gradients and Adam state are sharded 4 ways, the weights are not.
    CHECK(rs.optimizer_memory_per_device == doctest::Approx(p.optimizer_memory_per_device / 4));
    const double weights = 6 * (32 * 32 + 32) * 4.0;
    CHECK(p.param_memory_per_device == doctest::Approx(2 * weights));            // weights + gradients
    CHECK(rs.param_memory_per_device == doctest::Approx(weights + weights / 4));  // + a quarter of the gradients
  }
}

TEST_CASE("Alpa test_mlp: n_layer_mlp_model_parallel (and reduce-scatter)") {
  // 6 Dense layers 256 -> 256, batch 32: too few samples to pay for data parallelism.
  Graph g = model("mlp:layers=6,batch=32,in=256,hidden=256,out=256");
  for (int i = 0; i < 2; ++i) {
    CAPTURE(i);
    const DeviceMesh mesh = i == 0 ? alpa_mesh(4, 1, "1,1", "1,1") : alpa_mesh(1, 4, "1,1", "1,1");
    // expected = (6 - 1) * AR(32 * 256 * 4) = 5 * (1 + 1.5 * 32768 + .01) = 5 * 49153.01 = 245765.05:
    // forward all-reduces after Dense 2, 4, 6 (row parallel), backward ones before Dense 3, 5
    // (column parallel; Dense 1 reads the input, which needs no gradient).
    const double expected = 5 * AR(32768, 4, 1, 1);
    CHECK(expected == doctest::Approx(245765.05));
    for (bool reduce_scatter : {false, true}) {
      IntraOpPlan p = plan(g, mesh, reduce_scatter);
      check_close(p.objective, expected);
      CHECK(p.collectives.all_reduce + p.collectives.reduce_scatter == 5);
      CHECK(p.collectives.reduce_scatter == p.collectives.all_gather);
      CHECK(p.collectives.total() == p.collectives.all_reduce + p.collectives.reduce_scatter + p.collectives.all_gather);
      const std::string s = i == 0 ? "S0" : "S1";
      for (int k = 1; k <= 6; ++k)   // Dense_0, 2, 4 by column; Dense_1, 3, 5 by row
        CHECK(kernel_spec(p, g, "dense" + std::to_string(k)) == (k % 2 == 1 ? "R" + s : s + "R"));
    }
  }
}

TEST_CASE("Alpa test_mlp: n_layer_mlp_2d_mesh (and reduce-scatter)") {
  // mesh (2,2), alpha (1,1), beta (1, 0.1): data parallel on the slow axis 0, tensor parallel on
  // the fast axis 1 (Alpa also pins the batch to axis 0 on 2-D meshes).
  Graph g = model("mlp:layers=6,batch=256,in=32,hidden=32,out=32");
  const DeviceMesh mesh = alpa_mesh(2, 2, "1,1", "1,0.1");
  // expected = 6 * (AR(32*32*4/2, 0) + AR(32*4, 0)) + 5 * AR(256*32*4/2, 1)
  //          = 6 * ((1 + 2048 + .01) + (1 + 128 + .01)) + 5 * (1 + 0.1 * 16384 + .01)
  //          = 6 * 2178.02 + 5 * 1639.41 = 13068.12 + 8197.05 = 21265.17
  // (Alpa's test prices every bias at 128 bytes; the column layers' biases are split in two, 64
  // bytes, so ours is 3 * 64 lower, and Alpa rounds 1639.4 to 1639: 0.8% below, within 1%.)
  const double expected = 6 * (AR(2048, 2, 1, 1) + AR(128, 2, 1, 1)) + 5 * AR(16384, 2, 1, 0.1);
  CHECK(expected == doctest::Approx(21265.17));
  IntraOpPlan p = plan(g, mesh);
  check_close(p.objective, expected);
  CHECK(p.collectives.all_reduce == 6);   // 5 activation all-reduces + 1 combined gradient all-reduce
  CHECK(p.collectives.total() == 6);
  for (int k = 1; k <= 6; ++k)   // replicated on axis 0, column / row split on axis 1
    CHECK(kernel_spec(p, g, "dense" + std::to_string(k)) == (k % 2 == 1 ? "RS1" : "S1R"));

  IntraOpPlan rs = plan(g, mesh, true);
  check_close(rs.objective, expected);
  CHECK(rs.collectives.all_reduce == 5);
  CHECK(rs.collectives.reduce_scatter == 2);   // two tensor dimensions: column kernels by rows, row kernels by columns
  CHECK(rs.collectives.all_gather <= 2);
  CHECK(rs.collectives.total() == rs.collectives.all_reduce + rs.collectives.all_gather + rs.collectives.reduce_scatter);
}

TEST_CASE("Alpa test_bert: bert_layer_data_parallel (and reduce-scatter)") {
  // 2 BERT layers, batch 64, seq 64, hidden 32, 8 heads, meshes (4,1) and (1,4).
  Graph g = bert_layers(2, 64, 64, 32, 8);
  // Parameter bytes per layer: QKV 32*96*4 + 96*4, out 32*32*4 + 32*4, FFN1 32*128*4 + 128*4,
  // FFN2 128*32*4 + 32*4, two LayerNorms 4 * 32*4 = 12288+384 + 4096+128 + 16384+512 + 16384+128
  // + 512 = 50736, in 12 tensors.
  // expected = 2 * (12 * 1.01 + 1.5 * 50736) + int(2.51 + 1.01) * (24 params + 49 Adam leaves)
  //          = 2 * 76116.12 + 3 * 73 = 152232.24 + 219 = 152451.24
  const double expected = 2 * (12 * 1.01 + 1.5 * 50736) + 3 * 73;
  CHECK(expected == doctest::Approx(152451.24));
  for (int i = 0; i < 2; ++i) {
    CAPTURE(i);
    const DeviceMesh mesh = i == 0 ? alpa_mesh(4, 1, "1,1", "1,1") : alpa_mesh(1, 4, "1,1", "1,1");
    IntraOpPlan p = plan(g, mesh);
    check_close(p.objective, expected);
    CHECK(p.collectives.all_reduce == 1);
    CHECK(p.collectives.total() == 1);
    IntraOpPlan rs = plan(g, mesh, true);
    check_close(rs.objective, expected);
    CHECK(rs.collectives.reduce_scatter == 1);
    CHECK(rs.collectives.all_gather == 1);
    CHECK(rs.collectives.all_reduce == 0);
  }
}

TEST_CASE("Alpa test_bert: bert_layer_model_parallel is Megatron's column/row pairs, one all-reduce each") {
  // 2 BERT layers, batch 8, seq 8, hidden 128, 8 heads.
  Graph g = bert_layers(2, 8, 8, 128, 8);
  // expected = (2 * 4 - 1) * AR(8*8*128*4) = 7 * (1 + 1.5 * 32768 + .01) = 7 * 49153.01 = 344071.07:
  // per layer the output Dense and FFN2 all-reduce forward, QKV and FFN1 their input gradient
  // backward, except the first QKV, which reads the input (no gradient).
  const double expected = 7 * AR(32768, 4, 1, 1);
  CHECK(expected == doctest::Approx(344071.07));
  for (int i = 0; i < 2; ++i) {
    CAPTURE(i);
    const DeviceMesh mesh = i == 0 ? alpa_mesh(4, 1, "1,1", "1,1") : alpa_mesh(1, 4, "1,1", "1,1");
    for (bool reduce_scatter : {false, true}) {
      IntraOpPlan p = plan(g, mesh, reduce_scatter);
      check_close(p.objective, expected);
      CHECK(p.collectives.all_reduce == 7);
      CHECK(p.collectives.total() == 7);
      CHECK(p.resharding_cost == 0);
      const std::string s = i == 0 ? "S0" : "S1";
      for (int l = 1; l <= 2; ++l) {
        const std::string n = std::to_string(l);
        CHECK(kernel_spec(p, g, "qkv_" + n) == "R" + s);    // column
        CHECK(kernel_spec(p, g, "out_" + n) == s + "R");    // row
        CHECK(kernel_spec(p, g, "ffn1_" + n) == "R" + s);   // column
        CHECK(kernel_spec(p, g, "ffn2_" + n) == s + "R");   // row
        CHECK(chosen(p, g, "attn_" + n).name == (i == 0 ? "heads@0" : "heads@1"));
        // Layer norms and residuals stay replicated: no resharding around the Dense layers.
        CHECK(spec_to_string(chosen(p, g, "ln1_" + n).output) == "RRR");
        CHECK(spec_to_string(chosen(p, g, "res2_" + n).output) == "RRR");
      }
    }
  }
}

TEST_CASE("Alpa test_bert: bert_layer_2d_mesh (and reduce-scatter)") {
  // mesh (2,2), alpha (2,2), beta (1, 0.1); batch 8, seq 8, hidden 128, 8 heads, 2 layers.
  Graph g = bert_layers(2, 8, 8, 128, 8);
  const DeviceMesh mesh = alpa_mesh(2, 2, "2,2", "1,0.1");
  // expected = sum over the 24 parameters of AR(bytes / 2, axis 0) + 7 * AR(8*8*128*4 / 2, axis 1).
  // Parameter bytes per layer: QKV 128*384*4 + 384*4, out 128*128*4 + 128*4, FFN1 128*512*4 +
  // 512*4, FFN2 512*128*4 + 128*4, LayerNorms 4 * 128*4 = 793088 in 12 tensors; AR(x, 0) = 2 +
  // x + .01; AR(16384, 1) = 2 + 1638.4 + .01 = 1640.41.
  // expected = 2 * (12 * 2.01 + 793088 / 2) + 7 * 1640.41 = 793136.24 + 11482.87 = 804619.11
  // (ours prices the replicated biases and LayerNorm parameters whole, Alpa's test at half: +0.4%).
  const double expected = 2 * (12 * 2.01 + 793088 / 2.0) + 7 * AR(16384, 2, 2, 0.1);
  CHECK(expected == doctest::Approx(804619.11));
  IntraOpPlan p = plan(g, mesh);
  check_close(p.objective, expected);
  CHECK(p.collectives.all_reduce == 8);   // 7 activation all-reduces + 1 combined gradient all-reduce
  CHECK(p.collectives.total() == 8);
  for (int l = 1; l <= 2; ++l) {
    const std::string n = std::to_string(l);
    CHECK(kernel_spec(p, g, "qkv_" + n) == "RS1");
    CHECK(kernel_spec(p, g, "out_" + n) == "S1R");
    CHECK(kernel_spec(p, g, "ffn1_" + n) == "RS1");
    CHECK(kernel_spec(p, g, "ffn2_" + n) == "S1R");
  }
  IntraOpPlan rs = plan(g, mesh, true);
  check_close(rs.objective, expected);
  CHECK(rs.collectives.all_reduce == 7);
  CHECK(rs.collectives.reduce_scatter == 2);
  CHECK(rs.collectives.all_gather <= 2);
  CHECK(rs.collectives.total() == rs.collectives.all_reduce + rs.collectives.reduce_scatter + rs.collectives.all_gather);
}

TEST_CASE("Alpa test_bert: bert_layer_force_batch_dim_mapping, model parallel case 2 (batch 1)") {
  // batch 1, seq 64, hidden 32, 8 heads, mesh (1,4): one sample cannot be split, so model parallel.
  // expected = 7 * AR(1*64*32*4, axis 1) = 7 * (1 + 1.5 * 8192 + .01) = 7 * 12289.01 = 86023.07
  Graph g = bert_layers(2, 1, 64, 32, 8);
  const double expected = 7 * AR(8192, 4, 1, 1);
  CHECK(expected == doctest::Approx(86023.07));
  IntraOpPlan p = plan(g, alpa_mesh(1, 4, "1,1", "1,1"));
  check_close(p.objective, expected);
  CHECK(p.collectives.all_reduce == 7);
}

TEST_CASE("Alpa test_bert: bert_layer_model_parallel_remat recomputes the forward all-reduces") {
  Graph g = bert_layers(2, 8, 8, 128, 8);
  // expected = (2 * 6 - 1) * AR(8*8*128*4) = 11 * 49153.01 = 540683.11: the 7 all-reduces, plus
  // the 4 forward ones again when each layer is recomputed in the backward pass.
  const double expected = 11 * AR(32768, 4, 1, 1);
  CHECK(expected == doctest::Approx(540683.11));
  for (int i = 0; i < 2; ++i) {
    CAPTURE(i);
    const DeviceMesh mesh = i == 0 ? alpa_mesh(4, 1, "1,1", "1,1") : alpa_mesh(1, 4, "1,1", "1,1");
    IntraOpPlan p = plan(g, mesh, false, true);
    check_close(p.objective, expected);
    CHECK(p.collectives.all_reduce == 11);
    CHECK(p.collectives.total() == 11);
    // Activation memory: the plan is Megatron's tensor parallelism over the 4 devices, and the
    // intra-op pass counts it as `autopar memory` counts Megatron's layout (one accounting):
    // each layer's input kept, the largest layer while it is recomputed.
    MemoryOptions mo;
    mo.tensor_parallel = 4;
    mo.remat = true;
    auto m = estimate_memory(g, load_cluster("lecture:1x4").value(), mo);
    REQUIRE(m.ok());
    CHECK(p.activation_memory_per_device == doctest::Approx(m.value().activation_bytes));
    CHECK(p.optimizer_memory_per_device == doctest::Approx(m.value().optimizer_bytes));
    CHECK(p.param_memory_per_device == doctest::Approx(m.value().params_bytes + m.value().grads_bytes));
    IntraOpPlan kept = plan(g, mesh);
    CHECK(p.activation_memory_per_device < kept.activation_memory_per_device);
  }
}

TEST_CASE("Alpa's collective formulas: rounding and constant terms") {
  MeshAxis a{4, 1.0, 1.0, false, true};
  CHECK(all_reduce_cost(a, 32768) == doctest::Approx(49153.01));    // round(1 + 1.5 * 32768) + 0.01
  CHECK(all_gather_cost(a, 100) == doctest::Approx(76.1));          // round(1 + 0.75 * 100) + 0.1
  CHECK(reduce_scatter_cost(a, 100) == doctest::Approx(76.001));    // round(1 + 0.75 * 100) + 0.001
  CHECK(all_to_all_cost(a, 100) == doctest::Approx(151.001));       // round(1 + 3/16 * 400 * 2) + 0.001
  MeshAxis half{2, 1.0, 0.1, false, true};
  CHECK(all_reduce_cost(half, 16384) == doctest::Approx(1639.01));  // round(1 + 1638.4) + 0.01
  MeshAxis one{1, 1.0, 1.0, false, true};
  CHECK(all_reduce_cost(one, 1e6) == 0);                            // no collective over one device
  // The replicated penalty: round(AR(1, 0) + AR(1, 1)) with Alpa's formula even on an axis of one
  // device: round((round(1 + 1.5) + .01) + (round(1) + .01)) = round(3.01 + 1.01) = 4.
  CHECK(replicated_penalty(alpa_mesh(4, 1, "1,1", "1,1")) == 4);
  CHECK(replicated_penalty(alpa_mesh(2, 2, "1,1", "1,0.1")) == 3);   // round(2.01 + 1.01)
}

namespace {

// One of Alpa's cases as a reader runs it: the `autopar intra` words, Alpa's expected objective
// (the arithmetic is in the TEST_CASEs above) and the collectives its test asserts.
struct CliCase {
  std::string model, mesh, alpha, beta;
  bool reduce_scatter, remat;
  double alpa_objective;
  int all_reduce, reduce_scatter_count;
  std::vector<std::string> force = {};   // --force-batch-axis A or --force-data-parallel (CLI only: the page has no such option)
};

const std::vector<CliCase>& cli_cases() {
  static const std::vector<CliCase> cases = {
      // test_mlp.py
      {"mlp:layers=6,batch=256,in=32,hidden=32,out=32", "4x1", "1,1", "1,1", false, false, 38139.12, 1, 0},
      {"mlp:layers=6,batch=256,in=32,hidden=32,out=32", "1x4", "1,1", "1,1", false, false, 38139.12, 1, 0},
      {"mlp:layers=6,batch=256,in=32,hidden=32,out=32", "4x1", "1,1", "1,1", true, false, 38139.12, 0, 1},
      {"mlp:layers=6,batch=256,in=32,hidden=32,out=32", "1x4", "1,1", "1,1", true, false, 38139.12, 0, 1},
      {"mlp:layers=6,batch=32,in=256,hidden=256,out=256", "4x1", "1,1", "1,1", false, false, 245765.05, 5, 0},
      {"mlp:layers=6,batch=32,in=256,hidden=256,out=256", "1x4", "1,1", "1,1", false, false, 245765.05, 5, 0},
      {"mlp:layers=6,batch=256,in=32,hidden=32,out=32", "2x2", "1,1", "1,0.1", false, false, 21265.17, 6, 0},
      {"mlp:layers=6,batch=256,in=32,hidden=32,out=32", "2x2", "1,1", "1,0.1", true, false, 21265.17, 5, 2},
      // test_bert.py, the built-in `bert` (defaults: 2 layers, batch 8, seq 8, hidden 128, 8 heads)
      {"bert:batch=64,seq=64,hidden=32", "4x1", "1,1", "1,1", false, false, 152451.24, 1, 0},
      {"bert:batch=64,seq=64,hidden=32", "1x4", "1,1", "1,1", false, false, 152451.24, 1, 0},
      {"bert:batch=64,seq=64,hidden=32", "4x1", "1,1", "1,1", true, false, 152451.24, 0, 1},
      {"bert:batch=64,seq=64,hidden=32", "1x4", "1,1", "1,1", true, false, 152451.24, 0, 1},
      {"bert", "4x1", "1,1", "1,1", false, false, 344071.07, 7, 0},
      {"bert", "1x4", "1,1", "1,1", false, false, 344071.07, 7, 0},
      {"bert", "4x1", "1,1", "1,1", true, false, 344071.07, 7, 0},
      {"bert", "1x4", "1,1", "1,1", true, false, 344071.07, 7, 0},
      {"bert", "2x2", "2,2", "1,0.1", false, false, 804619.11, 8, 0},
      {"bert", "2x2", "2,2", "1,0.1", true, false, 804619.11, 7, 2},
      {"bert:batch=1,seq=64,hidden=32", "1x4", "1,1", "1,1", false, false, 86023.07, 7, 0},
      {"bert", "4x1", "1,1", "1,1", false, true, 540683.11, 11, 0},
      {"bert", "1x4", "1,1", "1,1", false, true, 540683.11, 11, 0},
      // test_bert.py bert_mlm_data_parallel (and _reduce_scatter): bert:vocab=128 is
      // FlaxBertForMaskedLMModule, batch 32, seq 32, hidden 16, 4 heads. Its 34 parameter tensors
      // hold 38464 bytes (word 128x16, position 32x16, token type 2x16, 2 LayerNorms of the
      // embeddings and the head, 2 layers of 13120 bytes, the head's 16x16 Dense and its 128 decoder
      // biases; the decoder's kernel is the word table): assert_data_parallel_cost =
      // 34 * 1.01 + 1.5 * 38464 + 3 * (34 + 69 Adam leaves) = 57730.34 + 309 = 58039.34. With
      // reduce-scatter one tensor stays whole (allow_not_sharded_params=1: the 2-row token-type
      // table over 4 devices) and keeps its all-reduce.
      {"bert:vocab=128,batch=32,seq=32,hidden=16,heads=4", "4x1", "1,1", "1,1", false, false, 58039.34, 1, 0},
      {"bert:vocab=128,batch=32,seq=32,hidden=16,heads=4", "1x4", "1,1", "1,1", false, false, 58039.34, 1, 0},
      {"bert:vocab=128,batch=32,seq=32,hidden=16,heads=4", "4x1", "1,1", "1,1", true, false, 58039.34, 1, 1},
      {"bert:vocab=128,batch=32,seq=32,hidden=16,heads=4", "1x4", "1,1", "1,1", true, false, 58039.34, 1, 1},
      // test_mlp.py n_layer_mlp_force_batch_dim_mapping: batch 32, hidden 256 (which alone plans model
      // parallel) with the batch pinned to axis 0: on (4,1) data parallel, assert_data_parallel_cost =
      // 6 * (AR(256*256*4) + AR(256*4)) + 3 * 37 = 6 * (393217.01 + 1537.01) + 111 = 2368635.12;
      // on (1,4) (axis 0 has one device) model parallel, 5 * AR(32*256*4) = 245765.05.
      {"mlp:layers=6,batch=32,in=256,hidden=256,out=256", "4x1", "1,1", "1,1", false, false, 2368635.12, 1, 0, {"--force-batch-axis", "0"}},
      {"mlp:layers=6,batch=32,in=256,hidden=256,out=256", "1x4", "1,1", "1,1", false, false, 245765.05, 5, 0, {"--force-batch-axis", "0"}},
      // n_layer_mlp_force_data_parallel on (4,1) and (2,2): the flattened mesh, the same cost.
      {"mlp:layers=6,batch=32,in=256,hidden=256,out=256", "4x1", "1,1", "1,1", false, false, 2368635.12, 1, 0, {"--force-data-parallel"}},
      {"mlp:layers=6,batch=32,in=256,hidden=256,out=256", "2x2", "1,1", "1,1", false, false, 2368635.12, 1, 0, {"--force-data-parallel"}},
      // test_bert.py bert_layer_force_batch_dim_mapping: data parallel on (4,1), as above; model
      // parallel case 1 on (1,4) at batch 64: 7 * AR(64*64*32*4) = 7 * 786433.01 = 5505031.07;
      // case 2 (batch 1) as above.
      {"bert:batch=64,seq=64,hidden=32", "4x1", "1,1", "1,1", false, false, 152451.24, 1, 0, {"--force-batch-axis", "0"}},
      {"bert:batch=64,seq=64,hidden=32", "1x4", "1,1", "1,1", false, false, 5505031.07, 7, 0, {"--force-batch-axis", "0"}},
      {"bert:batch=1,seq=64,hidden=32", "1x4", "1,1", "1,1", false, false, 86023.07, 7, 0, {"--force-batch-axis", "0"}},
  };
  return cases;
}

}  // namespace

TEST_CASE("Alpa's test_mlp and test_bert cases through `autopar intra` and the page's intra setup") {
  // The issue: `intra --model transformer:...` (pre-LN GPT layers) gave 393,376 for BERT's model
  // parallel case against Alpa's 344,071 (+14%); the built-in `bert` is Alpa's post-LN layer.
  for (const CliCase& k : cli_cases()) {
    std::vector<std::string> words = {"intra", "--model", k.model, "--mesh", k.mesh, "--alpha", k.alpha, "--beta", k.beta, "--json"};
    if (k.reduce_scatter) words.push_back("--reduce-scatter");
    if (k.remat) words.push_back("--remat");
    words.insert(words.end(), k.force.begin(), k.force.end());
    std::string line;
    for (const auto& w : words) line += w + " ";
    CAPTURE(line);
    auto out = cli::run_command(words);
    REQUIRE_MESSAGE(out.ok(), (out.ok() ? "" : out.error().message));
    const Json& j = out.value().json;
    const double objective = j.at("objective").get<double>();
    check_close(objective, k.alpa_objective);
    CHECK(j.at("collectives").at("all-reduce").get<int>() == k.all_reduce);
    CHECK(j.at("collectives").at("reduce-scatter").get<int>() == k.reduce_scatter_count);
    if (!k.reduce_scatter) CHECK(j.at("collectives").at("all-gather").get<int>() == 0);
    else CHECK((j.at("collectives").at("all-gather").get<int>() >= k.reduce_scatter_count && j.at("collectives").at("all-gather").get<int>() <= 2));
    if (!k.force.empty()) continue;
    // The page (and its worker) set the same problem up with intra_setup: the same objective.
    const std::string devices = std::to_string(std::stoi(k.mesh) * std::stoi(k.mesh.substr(k.mesh.find('x') + 1)));
    IntraRequest request;
    request.mesh = k.mesh;
    request.alpa_costs = k.alpha + "|" + k.beta;
    request.reduce_scatter = k.reduce_scatter;
    request.remat = k.remat;
    auto setup = intra_setup(load_cluster("lecture:1x" + devices).value(), request, json_field_path(""));
    REQUIRE(setup.ok());
    auto page = plan_intra_op(model(k.model), setup.value().mesh, setup.value().options);
    REQUIRE(page.ok());
    CHECK(page.value().objective == objective);
  }
}

TEST_CASE("--force-batch-axis and --force-data-parallel: checked, and the batch pinned on a cluster's mesh too") {
  auto bad = cli::run_command({"intra", "--model", "bert", "--mesh", "1x4", "--alpha", "1,1", "--beta", "1,1", "--force-batch-axis", "2"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().path == "--force-batch-axis");
  auto both = cli::run_command({"intra", "--model", "bert", "--mesh", "1x4", "--alpha", "1,1", "--beta", "1,1", "--force-batch-axis", "0",
                                "--force-data-parallel"});
  REQUIRE_FALSE(both.ok());
  CHECK(both.error().path == "--force-batch-axis");
  // On lecture:2x4 with the batch pinned to axis 1 (inside a node), every op's output splits its
  // batch along axis 1 only: its first spec token is S1.
  auto pinned = cli::run_command({"intra", "--model", "transformer:layers=1", "--cluster", "lecture:2x4", "--mesh", "2x4", "--force-batch-axis", "1", "--json"});
  REQUIRE_MESSAGE(pinned.ok(), (pinned.ok() ? "" : pinned.error().message));
  for (const Json& op : pinned.value().json.at("ops")) {
    CAPTURE(op.dump());
    CHECK(op.at("output_spec").get<std::string>().rfind("S1", 0) == 0);
    CHECK(op.at("output_spec").get<std::string>().rfind("S10", 0) != 0);
  }
  // Flattened: one axis of all devices, Alpa's larger latency and smaller per-byte cost.
  const DeviceMesh f = flattened_mesh(alpa_mesh(2, 2, "2,1", "1,0.1"));
  CHECK(f.rows() == 4);
  CHECK(f.cols() == 1);
  CHECK(f.axis[0].alpha == 2);
  CHECK(f.axis[0].beta == doctest::Approx(0.1));
}

TEST_CASE("bert:vocab=V is Alpa's masked LM: three embeddings, the layers, the head, the decoder tied to the word table") {
  const Graph g = model("bert:vocab=128,batch=32,seq=32,hidden=16,heads=4");
  // 128*16 + 32*16 + 2*16 + 2*16 (embedding LayerNorm) + 2 * 3280 (layers) + 16*16 + 16 + 2*16
  // + 128 (decoder bias) = 2048 + 512 + 32 + 32 + 6560 + 272 + 32 + 128 = 9616: the tied table once.
  CHECK(g.total_param_elements() == 9616);
  const int decoder = g.find_op("decoder");
  REQUIRE(decoder >= 0);
  CHECK(g.ops[size_t(decoder)].spec.weight_from == "word_embeddings");
  CHECK(g.ops[size_t(decoder)].params[0].name == "word_embeddings.weight");
  CHECK(g.ops.front().spec.kind == OpKind::embedding);
  CHECK(model("bert").ops.front().spec.name == "qkv_1");   // vocab=0: the layers alone, as run_bert_layers
}
