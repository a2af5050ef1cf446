// Unit tests of the Alpa planner: hand-computed collective costs, the paper's Table 2
// resharding cases, the nine strategies of a Linear, solvers that agree with each other and
// with the evaluator, the inter-op DP against brute force, and bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "error_code_printing.h"
#include "test_inputs.h"
#include "cluster_spec.h"
#include "inter_op.h"
#include "intra_op.h"
#include "models.h"
#include "rng.h"

using namespace autopar;
using autopar::test::model;

namespace {

// A plain alpha-beta mesh (the paper's formulas, without Alpa's rounding and constant terms,
// which alpa_reference_test.cpp checks).
DeviceMesh unit_mesh(int r, int c, double alpha = 0, double beta = 1) {
  auto m = mesh_from_costs(r, c, std::to_string(alpha) + "," + std::to_string(alpha), std::to_string(beta) + "," + std::to_string(beta));
  REQUIRE(m.ok());
  DeviceMesh mesh = m.value();
  for (MeshAxis& a : mesh.axis) a.alpa_convention = false;
  return mesh;
}

ShardingSpec spec(const std::string& s) {
  auto p = parse_spec(s);
  REQUIRE(p.ok());
  return p.value();
}

IntraProblem random_problem(Rng& rng, int n, bool chain) {
  IntraProblem p;
  for (int v = 0; v < n; ++v) {
    int k = 1 + int(rng.below(4));
    std::vector<double> c, m;
    for (int i = 0; i < k; ++i) {
      c.push_back(double(rng.below(100)));
      m.push_back(double(1 + rng.below(50)));
    }
    p.node_cost.push_back(c);
    p.node_memory.push_back(m);
  }
  auto add_edge = [&](int u, int v) {
    IntraProblem::Edge e;
    e.u = u;
    e.v = v;
    for (int i = 0; i < p.choices(u) * p.choices(v); ++i) e.cost.push_back(double(rng.below(60)));
    p.edges.push_back(e);
  };
  for (int v = 1; v < n; ++v) add_edge(v - 1, v);
  if (!chain)
    for (int k = 0; k < n / 2; ++k) {
      int u = int(rng.below(uint64_t(n - 1)));
      int v = u + 1 + int(rng.below(uint64_t(n - u - 1)));
      if (v != u + 1) add_edge(u, v);
    }
  return p;
}

}  // namespace

TEST_CASE("collective costs on one mesh axis, by hand") {
  MeshAxis a{4, 1.0, 0.5, false};
  // all-reduce: a + 2b(n-1)/n B = 1 + 2 * 0.5 * 3/4 * 100 = 76.
  CHECK(all_reduce_cost(a, 100) == doctest::Approx(76));
  // all-gather, reduce-scatter, all-to-all: a + b(n-1)/n B = 1 + 0.5 * 3/4 * 100 = 38.5.
  CHECK(all_gather_cost(a, 100) == doctest::Approx(38.5));
  CHECK(reduce_scatter_cost(a, 100) == doctest::Approx(38.5));
  CHECK(all_to_all_cost(a, 100) == doctest::Approx(38.5));
  MeshAxis one{1, 1.0, 0.5, false};
  CHECK(all_reduce_cost(one, 100) == 0);
}

TEST_CASE("meshes over a cluster: which axes cross nodes") {
  auto c = load_cluster("lecture:2x4").value();
  auto m24 = mesh_from_cluster(2, 4, c).value();
  CHECK(m24.axis[0].crosses_nodes);
  CHECK_FALSE(m24.axis[1].crosses_nodes);
  // Axis cost: latency 50 us = 0.05 ms and 1 / (1.25e6 bytes/ms) across nodes.
  CHECK(m24.axis[0].alpha == doctest::Approx(0.05));
  CHECK(m24.axis[0].beta == doctest::Approx(1 / 1.25e6));
  auto m18 = mesh_from_cluster(1, 8, c).value();
  CHECK(m18.axis[1].crosses_nodes);   // 8 consecutive devices span both nodes
  auto m42 = mesh_from_cluster(4, 2, c).value();
  CHECK_FALSE(m42.axis[1].crosses_nodes);
  CHECK(m42.axis[0].crosses_nodes);
  auto bad = mesh_from_cluster(3, 3, c);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::bad_mesh);
  CHECK(bad.error().message.find("2x4") != std::string::npos);   // lists the shapes that fit
}

TEST_CASE("sharding specs: parse, print, validate") {
  CHECK(spec_to_string(spec("S0R")) == "S0R");
  CHECK(spec_to_string(spec("RS01")) == "RS01");
  CHECK(spec("S01R").dims == std::vector<AxisMask>{3, 0});
  CHECK_FALSE(parse_spec("S2R").ok());
  CHECK_FALSE(parse_spec("").ok());
  CHECK_FALSE(parse_spec("XR").ok());
  DeviceMesh m = unit_mesh(2, 4);
  CHECK(validate_spec(spec("S0S1"), {8, 8}, m, "x").ok());
  auto twice = validate_spec(spec("S0S0"), {8, 8}, m, "x");
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().message.find("twice") != std::string::npos);
  CHECK(validate_spec(spec("RS1"), {8, 6}, m, "x").ok());          // uneven: parts of 2, 2, 1, 1
  CHECK_FALSE(validate_spec(spec("RS1"), {8, 3}, m, "x").ok());    // 4 parts of 3 elements: one device gets none
  CHECK_FALSE(validate_spec(spec("S0"), {8, 8}, m, "x").ok());     // one token for two dims
  CHECK(all_specs({8, 8}, m).size() == 9);                          // RR RS0 RS1 RS01 S0R S0S1 S1R S1S0 S01R
  CHECK(per_device_elements(spec("S01R"), {8, 8}, m) == 8);
}

TEST_CASE("uneven splits: the largest part bounds bytes, memory and collectives") {
  // 257 samples on 4 devices: parts of 65, 64, 64, 64 (ceil(257 / 4) = 65).
  CHECK(largest_part(257, 4) == 65);
  CHECK(largest_part(256, 4) == 64);
  CHECK(largest_part(7, 1) == 7);
  DeviceMesh m = unit_mesh(4, 1, 1, 0.5);
  CHECK(per_device_elements(spec("S0R"), {257, 32}, m) == 65 * 32);
  CHECK(per_device_elements(spec("RS0"), {257, 30}, m) == 257 * 8);   // ceil(30 / 4) = 8
  // S0R -> RS0 of 257 x 32 floats: an all-to-all of the largest shard, 65 * 32 * 4 = 8320 bytes:
  // 1 + 0.5 * 3/4 * 8320 = 3121.
  auto p = reshard(spec("S0R"), spec("RS0"), {257, 32}, 4, m);
  REQUIRE(p.steps.size() == 1);
  CHECK(p.steps[0].collective == "all-to-all");
  CHECK(p.steps[0].bytes == 8320);
  CHECK(p.cost == doctest::Approx(3121));
  // A Dense 32 -> 32 on a batch of 257 stays data parallel on 4 devices: each keeps at most 65
  // rows of its output (8320 bytes) next to the weights and their gradients (2 * (32*32+32) * 4 =
  // 8448 bytes), and the gradient all-reduce costs 1 + 2 * 0.5 * 3/4 * 4224 = 3169.
  Graph g = model("mlp:layers=1,batch=257,in=32,hidden=32,out=32");
  auto all = enumerate_strategies(g, m);
  const OpStrategy* data = nullptr;
  for (const auto& s : all[0]) if (s.name == "data@0") data = &s;
  REQUIRE(data);
  CHECK(spec_to_string(data->inputs[0]) == "S0R");
  CHECK(data->memory_bytes == doctest::Approx(8448 + 8320));
  CHECK(data->grad_sync == doctest::Approx(3169));
  CHECK(data->input_reshard == 0);   // the loader hands out 65 or 64 samples per device
  // The busiest device computes 65 of the 257 samples (1/4 of the work would be 64.25).
  CHECK(work_split(*data, m) == 4);
  CHECK(work_fraction(*data, g.ops[0], m) == doctest::Approx(65.0 / 257));
  const Graph even = model("mlp:layers=1,batch=256,in=32,hidden=32,out=32");
  const auto even_strategies = enumerate_strategies(even, m);
  for (const auto& s : even_strategies[0])
    CHECK(work_fraction(s, even.ops[0], m) == doctest::Approx(1.0 / double(work_split(s, m))));   // even splits: 1 / ways
  CHECK(input_data_spec({257, 32}, m).dims[0] == 1);
  CHECK(input_data_spec({3, 32}, m).dims[0] == 0);   // 3 samples cannot feed 4 devices
}

TEST_CASE("resharding agrees with the Alpa paper's Table 2") {
  const int n0 = 2, n1 = 4;
  DeviceMesh m = unit_mesh(n0, n1);   // cost = bytes moved x fraction: alpha 0, beta 1
  const Shape shape{1024, 1024};
  const double M = 1024.0 * 1024 * 4;
  auto r = [&](const char* a, const char* b) { return reshard(spec(a), spec(b), shape, 4, m); };
  // 1. RR -> S0S1: local slices, free.
  auto p1 = r("RR", "S0S1");
  CHECK(p1.cost == 0);
  REQUIRE(p1.steps.size() == 2);
  CHECK(p1.steps[0].collective == "slice");
  // 2. S0R -> RR: all-gather(M, axis 0).
  auto p2 = r("S0R", "RR");
  REQUIRE(p2.steps.size() == 1);
  CHECK(p2.steps[0].collective == "all-gather");
  CHECK(p2.steps[0].axes == std::vector<int>{0});
  CHECK(p2.steps[0].bytes == M);
  CHECK(p2.cost == doctest::Approx(M * (n0 - 1) / n0));
  // 3. S0S1 -> S0R: all-gather(M / n0, axis 1).
  auto p3 = r("S0S1", "S0R");
  CHECK(p3.steps[0].collective == "all-gather");
  CHECK(p3.steps[0].axes == std::vector<int>{1});
  CHECK(p3.steps[0].bytes == M / n0);
  // 4. S0R -> RS0: all-to-all(M / n0, axis 0).
  auto p4 = r("S0R", "RS0");
  CHECK(p4.steps[0].collective == "all-to-all");
  CHECK(p4.steps[0].bytes == M / n0);
  CHECK(p4.cost == doctest::Approx(M / n0 * (n0 - 1) / n0));
  // 5. S0S1 -> S01R: all-to-all(M / (n0 n1), axis 1).
  auto p5 = r("S0S1", "S01R");
  REQUIRE(p5.steps.size() == 1);
  CHECK(p5.steps[0].collective == "all-to-all");
  CHECK(p5.steps[0].axes == std::vector<int>{1});
  CHECK(p5.steps[0].bytes == M / (n0 * n1));
  // Same spec: nothing.
  CHECK(r("S0S1", "S0S1").steps[0].collective == "none");
  // S0S1 -> RR: gathering the smaller buffer on the slow axis first is cheaper.
  DeviceMesh slow0 = mesh_from_costs(2, 4, "0,0", "10,1").value();
  for (MeshAxis& a : slow0.axis) a.alpa_convention = false;
  auto two = reshard(spec("S0S1"), spec("RR"), shape, 4, slow0);
  REQUIRE(two.steps.size() == 2);
  CHECK(two.steps[0].axes == std::vector<int>{0});
  CHECK(two.cost == doctest::Approx(10 * 0.5 * M / 4 + 1 * 0.75 * M));
}

TEST_CASE("reshard_cost equals reshard().cost bit for bit, and the steps add up to it") {
  // Every pair of valid specs, on meshes with one, two and uneven axes and different links.
  DeviceMesh slow0 = mesh_from_costs(2, 4, "0.5,0.1", "10,1").value();
  DeviceMesh alpa = mesh_from_costs(4, 2, "1,1", "2,3").value();
  for (const DeviceMesh& m : {unit_mesh(2, 4), unit_mesh(1, 8), unit_mesh(3, 2), slow0, alpa})
    for (const Shape& shape : {Shape{1024, 1024}, Shape{12, 7, 6}, Shape{8}, Shape{6, 9, 4, 5}}) {
      const std::vector<ShardingSpec> specs = all_specs(shape, m);
      REQUIRE(specs.size() >= 1);
      int pairs = 0, costly = 0;
      for (const ShardingSpec& a : specs)
        for (const ShardingSpec& b : specs) {
          const ReshardPlan p = reshard(a, b, shape, 2, m);
          const double c = reshard_cost(a, b, shape, 2, m);
          double sum = 0;
          for (const ReshardStep& st : p.steps) sum += st.cost;
          CHECK_MESSAGE(c == p.cost, spec_to_string(a) << " -> " << spec_to_string(b));
          CHECK(sum == p.cost);
          ++pairs;
          costly += c > 0;
        }
      CHECK(pairs == int(specs.size() * specs.size()));
      if (m.axis[0].size * m.axis[1].size > 1 && specs.size() > 1) CHECK(costly > 0);
    }
}

TEST_CASE("the nine strategies of a Linear layer and the plan around it") {
  Graph g = model("mlp:layers=1,batch=8192,in=4096,hidden=4096,out=4096");
  auto c = load_cluster("lecture:2x4").value();
  DeviceMesh mesh = mesh_from_cluster(2, 4, c).value();
  auto all = enumerate_strategies(g, mesh);
  REQUIRE(all[0].size() == 9);
  // data@0 column@1: no forward or backward communication (X is input data, without gradient);
  // W's gradient shard [4096, 1024] (16 MiB + bias 4 KiB) all-reduced over the 2 nodes.
  const OpStrategy* dp0_col1 = nullptr;
  for (const auto& s : all[0]) if (s.name == "data@0 column@1") dp0_col1 = &s;
  REQUIRE(dp0_col1);
  CHECK(spec_to_string(dp0_col1->inputs[0]) == "S0R");
  CHECK(spec_to_string(dp0_col1->inputs[1]) == "RS1");
  CHECK(spec_to_string(dp0_col1->output) == "S0S1");
  CHECK(dp0_col1->forward_comm == 0);
  CHECK(dp0_col1->backward_comm == 0);
  const double shard = (4096.0 * 1024 + 1024) * 4;
  CHECK(dp0_col1->grad_sync == doctest::Approx(mesh.axis[0].alpha + 2 * mesh.axis[0].beta * 0.5 * shard));
  auto plan = plan_intra_op(g, mesh, IntraOpOptions{"exhaustive"});
  REQUIRE(plan.ok());
  const OpStrategy& chosen = plan.value().strategies[0][size_t(plan.value().solution.choice[0])];
  CHECK(chosen.name == "data@0 column@1");   // data parallel on the slow axis, tensor parallel on the fast one
  CHECK(plan.value().objective == doctest::Approx(evaluate_assignment(plan.value().problem, plan.value().solution.choice)));
}

TEST_CASE("Megatron-LM's split rediscovered on one node, with zero resharding") {
  Graph g = model("transformer-chain");
  auto c = load_cluster("lecture:1x8").value();
  auto plan = plan_intra_op(g, mesh_from_cluster(1, 8, c).value(), IntraOpOptions{});
  REQUIRE(plan.ok());
  const char* want[] = {"column@1", "heads@1", "row@1", "column@1", "row@1"};
  for (int v = 0; v < 5; ++v) CHECK(plan.value().strategies[size_t(v)][size_t(plan.value().solution.choice[size_t(v)])].name == want[v]);
  CHECK(plan.value().resharding_cost == 0);
  CHECK(plan.value().solution.solver == "dp");
}

TEST_CASE("--write-lp writes the ILP even where the chain DP would solve it, and is refused with a solver that has none") {
  // transformer-chain is a chain: the automatic choice was the DP, which silently wrote no file.
  Graph g = model("transformer-chain");
  auto c = load_cluster("lecture:1x8").value();
  const std::string path = "write_lp_test.lp";
  std::remove(path.c_str());
  IntraOpOptions o;
  o.write_lp = path;
  auto plan = plan_intra_op(g, mesh_from_cluster(1, 8, c).value(), o);
  REQUIRE(plan.ok());
  CHECK(plan.value().solution.solver == "ilp");
  std::FILE* f = std::fopen(path.c_str(), "r");
  CHECK(f != nullptr);
  if (f) std::fclose(f);
  std::remove(path.c_str());
  // The same objective as the DP finds.
  auto dp = plan_intra_op(g, mesh_from_cluster(1, 8, c).value(), IntraOpOptions{});
  REQUIRE(dp.ok());
  CHECK(plan.value().objective == doctest::Approx(dp.value().objective).epsilon(1e-9));
  for (const char* solver : {"dp", "exhaustive"}) {
    o.solver = solver;
    auto refused = plan_intra_op(g, mesh_from_cluster(1, 8, c).value(), o);
    REQUIRE(!refused.ok());
    CHECK(refused.error().path == "--write-lp");
    CHECK(refused.error().code == ErrorCode::bad_argument);
  }
}

TEST_CASE("solvers agree: ILP == chain DP == exhaustive == evaluator on random problems") {
  Rng rng(42);
  for (int round = 0; round < 60; ++round) {
    const bool chain = round % 2 == 0;
    IntraProblem p = random_problem(rng, 2 + int(rng.below(6)), chain);
    auto ex = solve_exhaustive(p);
    REQUIRE(ex.ok());
    auto ilp = solve_ilp(p, 10000);
    REQUIRE(ilp.ok());
    CHECK(ilp.value().objective == doctest::Approx(ex.value().objective));
    // Each solver's own objective (GLPK's value, the DP's sum, the enumeration's minimum)
    // equals the independent evaluation of the assignment it returns.
    CHECK(evaluate_assignment(p, ilp.value().choice) == doctest::Approx(ilp.value().objective));
    CHECK(evaluate_assignment(p, ex.value().choice) == doctest::Approx(ex.value().objective));
    if (chain) {
      auto dp = solve_chain_dp(p);
      REQUIRE(dp.ok());
      CHECK(dp.value().objective == doctest::Approx(ex.value().objective));
      CHECK(evaluate_assignment(p, dp.value().choice) == doctest::Approx(dp.value().objective));
    } else if (!is_chain(p)) {
      CHECK_FALSE(solve_chain_dp(p).ok());   // branches: the DP refuses rather than answer wrongly
    }
    // A memory budget between the lightest and the heaviest assignment binds.
    double lo = 0, hi = 0;
    for (const auto& m : p.node_memory) {
      lo += *std::min_element(m.begin(), m.end());
      hi += *std::max_element(m.begin(), m.end());
    }
    p.memory_budget = (lo + hi) / 2;
    auto exb = solve_exhaustive(p);
    auto ilpb = solve_ilp(p, 10000);
    REQUIRE(exb.ok());
    REQUIRE(ilpb.ok());
    CHECK(ilpb.value().objective == doctest::Approx(exb.value().objective));
    CHECK(assignment_memory(p, ilpb.value().choice) <= p.memory_budget);
    p.memory_budget = lo / 2;   // nothing fits
    auto none = solve_ilp(p, 10000);
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().code == ErrorCode::infeasible);
  }
}

TEST_CASE("solvers agree on real graphs, with branches") {
  auto c = load_cluster("lecture:1x2").value();
  DeviceMesh mesh = mesh_from_cluster(1, 2, c).value();
  for (const char* m : {"transformer:layers=1,batch=4,seq=64,hidden=256,heads=4", "mlp:layers=3", "moe:layers=1,batch=4,seq=64,hidden=256,heads=4",
                        "elm", "wide-resnet:image=64,batch=4"}) {
    CAPTURE(m);
    Graph g = model(m);
    auto ilp = plan_intra_op(g, mesh, IntraOpOptions{"ilp"});
    REQUIRE(ilp.ok());
    auto ex = plan_intra_op(g, mesh, IntraOpOptions{"exhaustive"});
    if (ex.ok()) CHECK(ilp.value().objective == doctest::Approx(ex.value().objective));
    CHECK(evaluate_assignment(ilp.value().problem, ilp.value().solution.choice) == doctest::Approx(ilp.value().objective));
  }
  Graph chain = model("transformer-chain:batch=2,seq=128,hidden=512,heads=8");
  DeviceMesh m24 = mesh_from_cluster(2, 4, load_cluster("lecture:2x4").value()).value();
  auto dp = plan_intra_op(chain, m24, IntraOpOptions{"dp"});
  auto ilp = plan_intra_op(chain, m24, IntraOpOptions{"ilp"});
  auto ex = plan_intra_op(chain, m24, IntraOpOptions{"exhaustive"});
  REQUIRE(dp.ok());
  REQUIRE(ilp.ok());
  REQUIRE(ex.ok());
  CHECK(dp.value().objective == doctest::Approx(ex.value().objective));
  CHECK(ilp.value().objective == doctest::Approx(ex.value().objective));
}

TEST_CASE("inter-op DP == brute force over all slicings and sub-meshes, with and without memory limits") {
  Rng rng(9);
  for (int round = 0; round < 40; ++round) {
    StageCostTable t;
    const int L = 2 + int(rng.below(4));
    t.reset(L, 2, 2, alpa_submeshes(2, 2));
    REQUIRE(t.submeshes.size() == 3);   // (1,1) (1,2) (2,2)
    for (int f = 0; f < L; ++f)
      for (int l = f; l < L; ++l)
        for (int m = 0; m < 3; ++m) {
          if (rng.below(5) == 0) continue;   // some entries missing: infeasible
          const size_t idx = t.index(f, l, m);
          t.latency[idx] = double(1 + rng.below(40)) * (l - f + 1) / t.submeshes[size_t(m)].devices();
          if (round % 2) t.max_succ_stages[idx] = int(rng.below(3));
        }
    const int B = 1 + int(rng.below(16));
    auto dp = solve_inter_op(t, B);
    auto bf = brute_force_inter_op(t, B);
    REQUIRE(dp.ok() == bf.ok());
    if (!dp.ok()) continue;
    CHECK(dp.value().total_latency == doctest::Approx(bf.value().total_latency));
    int devices = 0;
    for (const auto& s : dp.value().stages) devices += s.submesh.devices();
    CHECK(devices == 4);   // the sub-meshes tile the cluster
    CHECK(dp.value().stages.front().first == 0);
    CHECK(dp.value().stages.back().last == L - 1);
  }
  // A table computed from a model, too.
  Graph micro = microbatch_graph(model("transformer:layers=2,batch=8,seq=64,hidden=256,heads=4"), 4).value();
  InterOpOptions o;
  o.microbatches = 4;
  o.max_layers = 6;
  auto table = stage_costs_from_model(micro, load_cluster("lecture:2x2").value(), o);
  REQUIRE(table.ok());
  auto dp = solve_inter_op(table.value(), 4);
  auto bf = brute_force_inter_op(table.value(), 4);
  REQUIRE(dp.ok());
  REQUIRE(bf.ok());
  CHECK(dp.value().total_latency == doctest::Approx(bf.value().total_latency));
}

TEST_CASE("inter-op bad input: gaps in the stage-cost table, batches that do not divide") {
  Json gap = Json::parse(R"({"layers":3,"cluster":{"nodes":1,"gpus_per_node":2},"submeshes":[[1,1],[1,2]],
    "stages":[{"first":0,"last":0,"submesh":[1,1],"latency":1},{"first":2,"last":2,"submesh":[1,1],"latency":1}]})");
  auto t = stage_costs_from_json(gap);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().code == ErrorCode::gap);
  CHECK(t.error().message.find("layer 1") != std::string::npos);
  Json bad_mesh = Json::parse(R"({"layers":1,"cluster":{"nodes":1,"gpus_per_node":2},"submeshes":[[1,1]],
    "stages":[{"first":0,"last":0,"submesh":[1,2],"latency":1}]})");
  CHECK(stage_costs_from_json(bad_mesh).error().path == "stages[0].submesh");
  Json ok = Json::parse(R"({"layers":2,"cluster":{"nodes":1,"gpus_per_node":2},"submeshes":[[1,1],[1,2]],
    "stages":[{"first":0,"last":0,"submesh":[1,1],"latency":2},{"first":1,"last":1,"submesh":[1,1],"latency":3},
              {"first":0,"last":1,"submesh":[1,2],"latency":4}]})");
  auto table = stage_costs_from_json(ok);
  REQUIRE(table.ok());
  // Two stages: 2 + 3 + (B - 1) * 3; one stage on both GPUs: 4 + (B - 1) * 4. B = 4: 14 vs 16.
  auto plan = solve_inter_op(table.value(), 4);
  REQUIRE(plan.ok());
  CHECK(plan.value().total_latency == doctest::Approx(14));
  CHECK(plan.value().stages.size() == 2);
  auto micro = microbatch_graph(model("mlp:batch=100"), 32);
  REQUIRE_FALSE(micro.ok());
  CHECK(micro.error().path == "--microbatches");
}
