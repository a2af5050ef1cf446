// Unit tests of compare (core/operations/compare.h): Alpa's pipeline simulated micro-batch by
// micro-batch with its stage boundaries as transfer tasks, checked against a hand-worked
// timeline, and the report's contract.
#include <doctest/doctest.h>

#include <set>

#include "error_code_printing.h"
#include "cluster_spec.h"
#include "compare.h"
#include "models.h"
#include "simulator_fixtures.h"
#include "test_inputs.h"

using namespace autopar;
using autopar::test::round_cluster;
using autopar::test::two_linear_ops;

namespace {

OpConfig whole_on(int gpu) {
  OpConfig c;
  c.degrees = {1, 1};
  c.devices = {gpu};
  return c;
}

// A compare request for a model and cluster named as on the command line.
CompareRequest request_for(const std::string& model, const std::string& cluster, int64_t steps) {
  CompareRequest r;
  r.graph = test::model(model);
  auto c = load_cluster(cluster);
  REQUIRE(c.ok());
  r.cluster = c.value();
  r.title = model + " on " + cluster;
  r.steps = steps;
  return r;
}

}  // namespace

TEST_CASE("pipeline_graph: one copy per micro-batch, the weights counted once") {
  auto g = load_model("transformer:layers=2");
  REQUIRE(g.ok());
  auto micro = microbatch_graph(g.value(), 4);
  REQUIRE(micro.ok());
  auto pipe = pipeline_graph(micro.value(), 4);
  REQUIRE(pipe.ok());
  const Graph& m = micro.value();
  const Graph& p = pipe.value();
  CHECK(p.ops.size() == 4 * m.ops.size());
  CHECK(p.ops[0].name() == m.ops[0].name() + "#0");
  CHECK(p.ops[3 * m.ops.size()].name() == m.ops[0].name() + "#3");
  // Four quarter batches compute what the whole batch does.
  CHECK(p.total_forward_flops() == doctest::Approx(g.value().total_forward_flops()).epsilon(1e-12));
  // Only the last copy holds the parameters: they are synchronised once. Every copy reads them
  // (its compute time counts the weight bytes, as each micro-batch's kernels read the weights).
  CHECK(p.total_param_bytes() == m.total_param_bytes());
  for (size_t v = 0; v < m.ops.size(); ++v) {
    CHECK(p.ops[v].params.empty());
    CHECK(p.ops[v].param_bytes == m.ops[v].param_bytes);
  }
  // Too many copies for the op limit is an error naming the option.
  auto huge = pipeline_graph(m, kMaxOps);
  REQUIRE(!huge.ok());
  CHECK(huge.error().code == ErrorCode::too_large);
  CHECK(huge.error().path == "--microbatches");
}

TEST_CASE("two stages, two micro-batches: the hand-worked pipelined timeline") {
  // a on GPU 0, b on GPU 1, batch 4 in two micro-batches of 2 (round numbers, simulator_fixtures.h).
  // a fwd: 10 us + 2*2*8*6 = 192 FLOP / 1e6 = 0.010192 ms; b fwd 0.01 + 48e-6 = 0.010048;
  // b bwd 0.010096; a bwd 0.010384. A boundary crossing is 2x6 floats = 48 B = 0.048 ms.
  //   GPU 0: a#0 fwd [0, 0.010192], a#1 fwd [0.010192, 0.020384]
  //   link 0->1: x#0 [0.010192, 0.058192], x#1 [0.058192, 0.106192] (queued behind x#0)
  //   GPU 1: b#0 fwd [0.058192, 0.06824], b#0 bwd [0.06824, 0.078336],
  //          b#1 fwd [0.106192, 0.11624], b#1 bwd [0.11624, 0.126336]
  //   link 1->0: g#0 [0.078336, 0.126336], g#1 [0.126336, 0.174336]
  //   GPU 0: a#0 bwd [0.126336, 0.13672], a#1 bwd [0.174336, 0.18472]
  // Without micro-batches the same placement takes 0.23344 ms (simulator_test.cpp).
  Graph g = two_linear_ops(4);
  Cluster c = round_cluster(1, 2);
  AlpaPipelinePlan plan;
  plan.microbatches = 2;
  plan.strategy.ops = {whole_on(0), whole_on(1)};
  auto sum = simulate_alpa_pipeline(g, c, plan);
  REQUIRE(sum.ok());
  CHECK(sum.value().makespan_ms == doctest::Approx(0.18472).epsilon(1e-12));
  CHECK(sum.value().activation_bytes == 4 * 48);   // two crossings forward, two back
  CHECK(sum.value().param_sync_bytes == 0);
  plan.microbatches = 1;
  auto serial = simulate_alpa_pipeline(g, c, plan);
  REQUIRE(serial.ok());
  CHECK(serial.value().makespan_ms == doctest::Approx(0.23344).epsilon(1e-12));
}

TEST_CASE("compare: Alpa's stages cover the model, and their boundaries are simulated transfers") {
  const CompareRequest r = request_for("transformer:layers=4", "lecture:2x4", 200);
  CompareJob job(r);
  int slices = 0;
  while (!job.step(StepBudget::time(1.0))) ++slices;
  CHECK(slices > 2);
  CHECK(job.progress().fraction() == 1.0);
  auto report = job.result();
  REQUIRE(report.ok());
  const CompareReport& rep = report.value();
  CHECK(rep.alpa.microbatches == default_compare_microbatches(r.graph));
  REQUIRE(!rep.alpa.stages.empty());
  // The stages tile the ops in order, and every op runs on its stage's GPUs.
  int next_op = 0;
  double boundary_bytes = 0;
  for (size_t k = 0; k < rep.alpa.stages.size(); ++k) {
    const CompareStage& st = rep.alpa.stages[k];
    CHECK(st.first_op == next_op);
    next_op = st.last_op + 1;
    for (int v = st.first_op; v <= st.last_op; ++v) {
      CHECK(rep.alpa.stage_of_op[size_t(v)] == int(k));
      for (int d : rep.alpa.strategy.ops[size_t(v)].devices) {
        CHECK(d >= st.devices.front());
        CHECK(d <= st.devices.back());
      }
    }
    boundary_bytes += st.stage.send_bytes;
  }
  CHECK(next_op == int(r.graph.ops.size()));
  // Every boundary crosses forward and back once per micro-batch, as transfer tasks.
  CHECK(rep.alpa_sim.summary.activation_bytes >= 2 * rep.alpa.microbatches * boundary_bytes);
  CHECK(rep.alpa_sim.summary.makespan_ms > 0);
  CHECK(rep.flexflow_sim.summary.makespan_ms > 0);
  // The JSON contract (INTERFACES.md) and the stage list.
  Json j = rep.to_json(job.request().graph);
  CHECK(j["flexflow"]["makespan_ms"].get<double>() == rep.flexflow_sim.summary.makespan_ms);
  CHECK(j["alpa"]["makespan_ms"].get<double>() == rep.alpa_sim.summary.makespan_ms);
  CHECK(j["flexflow"]["strategy"]["ops"].size() == r.graph.ops.size());
  CHECK(j["alpa"]["plan"].size() == r.graph.ops.size());
  CHECK(j["alpa"]["stages"].size() == rep.alpa.stages.size());
  CHECK(j["alpa"]["stages"].back()["boundary"].is_null());
  // The same request stepped in one go gives the same numbers.
  auto whole = run_compare(r);
  REQUIRE(whole.ok());
  CHECK(whole.value().alpa_sim.summary.makespan_ms == rep.alpa_sim.summary.makespan_ms);
  CHECK(whole.value().flexflow_sim.summary.makespan_ms == rep.flexflow_sim.summary.makespan_ms);
}

TEST_CASE("compare: a batch that does not divide into the micro-batches is an error naming the option") {
  auto g = load_model("mlp3");
  REQUIRE(g.ok());
  CompareRequest r;
  r.graph = g.value();
  r.cluster = round_cluster(1, 2);
  r.microbatches = int(g.value().spec.inputs[0].shape[0]) + 1;
  auto rep = run_compare(r);
  REQUIRE(!rep.ok());
  CHECK(rep.error().path == "--microbatches");
}

TEST_CASE("compare: Alpa's strategy in JSON names the micro-batch graph's split dimensions") {
  // Batch 8 in 8 micro-batches: a micro-batch holds one sample, so its ops have no sample split
  // and the strategy's degrees must be read against that graph, not the model's.
  CompareRequest r = request_for("transformer:layers=2,batch=8", "lecture:2x4", 50);
  r.microbatches = 8;
  auto rep = run_compare(r);
  REQUIRE(rep.ok());
  Json j = rep.value().to_json(r.graph);
  const Json& ops = j["alpa"]["strategy"]["ops"];
  REQUIRE(ops.size() == r.graph.ops.size());
  for (const Json& o : ops) {
    int64_t product = 1;
    for (auto it = o["degrees"].begin(); it != o["degrees"].end(); ++it) {
      const int d = it.value().get<int>();
      CHECK(d >= 1);
      CHECK(d <= 8);
      product *= d;
    }
    CHECK(product == int64_t(o["devices"].size()));
    CHECK_FALSE(o["degrees"].contains("sample"));
  }
}

TEST_CASE("compare: a FlexFlow plan whose memory does not fit says so, as search does") {
  // Four Llama-2 layers (1.07 G parameters, 16 B each under Adam) cannot fit two 16 GB GPUs;
  // the search returns its best strategy anyway, and a makespan alone would read as a plan.
  const CompareRequest r = request_for("llama2-7b:layers=4", "lecture:1x2", 100);
  auto rep = run_compare(r);
  REQUIRE(rep.ok());
  REQUIRE_FALSE(rep.value().flexflow_sim.summary.fits);
  CHECK(rep.value().to_text().find("FlexFlow's plan DOES NOT FIT") != std::string::npos);
  Json j = rep.value().to_json(r.graph);
  CHECK(j["flexflow"]["fits"] == false);
  CHECK(j["flexflow"]["breakdown"]["peak_memory_bytes"].get<double>() > r.cluster.gpu.memory_capacity_bytes());
}

TEST_CASE("compare: an Alpa split that does not divide its dimension stays split across the stage's GPUs") {
  // 3 GPUs and micro-batches of 8 samples: Alpa splits the batch 3 ways (3, 3, 2), and SOAP runs
  // uneven parts too, so the ops must not fall back to one GPU (they did: compare then simulated
  // the stage on GPU 0 alone, about 3x the inter-op objective).
  auto g = load_model("transformer:layers=2,batch=64");
  REQUIRE(g.ok());
  auto c = load_cluster("lecture:1x3");
  REQUIRE(c.ok());
  auto plan = plan_alpa_pipeline(g.value(), c.value(), 8);
  REQUIRE(plan.ok());
  const AlpaPipelinePlan& p = plan.value();
  REQUIRE(p.stages.size() == 1);
  REQUIRE(p.stages[0].devices.size() == 3);
  const IntraOpPlan& intra = p.stages[0].intra;
  int split_ops = 0;
  for (size_t v = 0; v < p.strategy.ops.size(); ++v) {
    const ShardingSpec& out = intra.strategies[v][size_t(intra.solution.choice[v])].output;
    bool sharded = false;
    for (AxisMask m : out.dims) sharded |= m != 0;
    if (!sharded) continue;
    ++split_ops;
    CHECK_MESSAGE(p.strategy.ops[v].devices.size() == 3, g.value().ops[v].name());
  }
  CHECK(split_ops > 0);
  auto sim = simulate_alpa_pipeline(g.value(), c.value(), p);
  REQUIRE(sim.ok());
  // Split three ways, the simulated iteration is well under the stage run on one GPU.
  CHECK(sim.value().makespan_ms < 0.6 * sim.value().compute_ms);
}

TEST_CASE("compare: Alpa's half steps one intra-op solve at a time, cancels between them, and equals the plan made in one go") {
  const CompareRequest r = request_for("transformer:layers=4", "lecture:2x4", 2000);
  CompareAlpaJob whole(r);
  REQUIRE(whole.step(StepBudget::unlimited()));
  REQUIRE(whole.result().ok());

  CompareAlpaJob sliced(r);
  int64_t steps = 0, last_done = -1;
  std::set<std::string> phases;
  while (!sliced.step(StepBudget::work(1))) {
    ++steps;
    const JobProgress p = sliced.progress();
    CHECK(p.done > last_done);   // every unit moves the job on
    CHECK(p.done < p.total);
    last_done = p.done;
    phases.insert(p.phase);
  }
  // Stage costs (one solve per layer kind and mesh), the DP, the stages' plans, the simulation.
  CHECK(steps > 5);
  CHECK(phases.count("stage costs") == 1);
  CHECK(phases.count("stage plans") == 1);
  CHECK(sliced.progress().fraction() == 1.0);
  REQUIRE(sliced.result().ok());
  Json a = sliced.result().value().to_json(r.graph), b = whole.result().value().to_json(r.graph);
  a.erase("solve_ms");   // wall time
  b.erase("solve_ms");
  CHECK(a.dump() == b.dump());

  CompareAlpaJob cancelled(r);
  cancelled.step(StepBudget::work(2));
  REQUIRE(!cancelled.done());   // an intra-op solve is a unit: the pass is far from over
  cancelled.cancel();
  REQUIRE(cancelled.done());
  CHECK(cancelled.result().error().code == ErrorCode::cancelled);
}

TEST_CASE("compare: on one GPU Alpa's simulated pipeline takes its own objective, memory-bound ops included") {
  // One stage on one GPU: B micro-batches run back to back, each reading the weights, so the
  // simulation is B x the stage latency, which is the inter-op objective. DLRM's embedding
  // tables are memory-bound: when only the last copy read its weights, the simulation said
  // 10.1 ms against the objective's 68.8 ms.
  for (const char* model : {"dlrm", "transformer:layers=2"}) {
    CAPTURE(model);
    const CompareRequest r = request_for(model, "lecture:1x1", 20);
    auto rep = run_compare(r);
    REQUIRE(rep.ok());
    const CompareReport& c = rep.value();
    REQUIRE(c.alpa.stages.size() == 1);
    CHECK(c.alpa_sim.summary.makespan_ms == doctest::Approx(c.alpa.inter.total_latency).epsilon(1e-9));
  }
}
