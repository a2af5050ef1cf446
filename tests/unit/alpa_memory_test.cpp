// Memory in Alpa's passes: the intra-op pass counts a plan's memory as `autopar memory` does
// (one accounting), and when a plan does not fit, the intra-op and inter-op passes find the ZeRO
// stage and recomputation that make it fit.
#include <doctest/doctest.h>

#include "test_inputs.h"
#include "cluster_spec.h"
#include "device_mesh.h"
#include "inter_op.h"
#include "intra_op.h"
#include "memory_model.h"
#include "models.h"

using namespace autopar;
using autopar::test::model;
using autopar::test::small_cluster;

namespace {

IntraOpPlan plan(const Graph& g, const Cluster& c, IntraOpOptions o) {
  o.capacity_bytes = c.gpu.memory_capacity_bytes();
  o.gpu = c.gpu;
  auto p = plan_intra_op(g, mesh_from_cluster(1, 4, c).value(), o);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.error().message));
  return p.value();
}

// Two transformer layers of 1024 (25 M parameters: 400 MB of FP32 Adam states) with a batch
// whose activations weigh about as much (the pipeline's: two micro-batches of that batch).
const char* const kModel = "transformer:layers=2,batch=32,seq=256,hidden=1024,heads=16";
const char* const kPipelineModel = "transformer:layers=2,batch=64,seq=256,hidden=1024,heads=16";

}  // namespace

TEST_CASE("intra and memory count a data-parallel plan alike: mixed-precision Adam, ZeRO stages, recomputation") {
  // 16-bit model (mixed precision: 2 + 2 + 12 bytes per parameter), data parallel over 4 GPUs.
  const Graph g = model("transformer:layers=2,batch=64,seq=128,hidden=256,heads=4,dtype_bytes=2");
  const Cluster c = load_cluster("lecture:1x4").value();
  for (int zero = 0; zero <= 3; ++zero)
    for (bool remat : {false, true}) {
      CAPTURE(zero);
      CAPTURE(remat);
      IntraOpOptions o;
      o.data_parallel_only = true;
      o.zero_stage = zero;
      o.remat = remat;
      const IntraOpPlan p = plan(g, c, o);
      MemoryOptions mo;
      mo.data_parallel = 4;
      mo.zero_stage = zero;
      mo.remat = remat;
      mo.precision = Precision::mixed;
      auto m = estimate_memory(g, c, mo);
      REQUIRE(m.ok());
      CHECK(p.memory.zero_stage == zero);
      CHECK(p.memory.remat == remat);
      CHECK(p.memory.params_bytes == doctest::Approx(m.value().params_bytes));
      CHECK(p.memory.grads_bytes == doctest::Approx(m.value().grads_bytes));
      CHECK(p.memory.optimizer_bytes == doctest::Approx(m.value().optimizer_bytes));
      CHECK(p.memory.activation_bytes == doctest::Approx(m.value().activation_bytes));
      // `memory` adds ZeRO 3's gathered-weight buffers (FSDP's working memory); the intra-op
      // pass counts the shards only (the pipeline's stage costs add the buffers per stage).
      CHECK((m.value().gathered_bytes > 0) == (zero >= 3));
      CHECK(p.memory.total_bytes == doctest::Approx(m.value().total_bytes - m.value().gathered_bytes));
      CHECK(p.memory.fits == m.value().fits);
      // ZeRO's collectives are priced: stage 3 gathers the weights in every pass, so it costs
      // more than stages 1 and 2, which cost what the all-reduce did within latency terms.
      if (zero == 3) CHECK(p.zero_cost > 0);
      if (remat) CHECK(p.recompute_cost > 0);
    }
}

TEST_CASE("a plan that fits only with ZeRO: the intra-op pass finds it") {
  const Graph g = model(kModel);
  const Cluster c = small_cluster(0.4);
  const double capacity = c.gpu.memory_capacity_bytes();
  // The unconstrained plan needs more than the GPU has.
  IntraOpOptions none;
  none.choose_remat = false;
  none.zero_stage = 0;
  IntraOpOptions unbounded = none;
  unbounded.capacity_bytes = 0;
  auto free_plan = plan_intra_op(g, mesh_from_cluster(1, 4, c).value(), unbounded);
  REQUIRE(free_plan.ok());
  CHECK(free_plan.value().memory.total_bytes > capacity);
  // Without ZeRO no plan fits, with or without recomputation: the ILP under the budget has none.
  IntraOpOptions no_zero;
  no_zero.zero_stage = 0;
  const IntraOpPlan without = plan(g, c, no_zero);
  CHECK_FALSE(without.memory.fits);
  CHECK(without.memory_tries > 0);
  // By default the pass finds a ZeRO plan that fits and says which.
  const IntraOpPlan with = plan(g, c, IntraOpOptions{});
  CHECK(with.memory.fits);
  CHECK(with.memory.zero_stage >= 1);
  CHECK(with.memory.total_bytes <= capacity);
  CHECK(with.objective == doctest::Approx(with.communication_cost + with.resharding_cost + with.penalty_cost + with.recompute_cost));
  // Its memory is what `memory` says for that setting (the plan is data parallel).
  MemoryOptions mo;
  mo.data_parallel = 4;
  mo.zero_stage = with.memory.zero_stage;
  mo.remat = with.memory.remat;
  auto m = estimate_memory(g, c, mo);
  REQUIRE(m.ok());
  CHECK(m.value().fits);
  CHECK(with.memory.total_bytes == doctest::Approx(m.value().total_bytes));
  // An explicit budget still applies: a generous one keeps the plain plan.
  IntraOpOptions generous;
  generous.memory_budget_bytes = 10 * free_plan.value().memory.total_bytes;
  const IntraOpPlan roomy = plan(g, c, generous);
  CHECK(roomy.memory.fits);
  CHECK(roomy.memory.zero_stage == 0);
  CHECK_FALSE(roomy.memory.remat);
  CHECK(roomy.objective == doctest::Approx(free_plan.value().objective));
}

TEST_CASE("a pipeline that fits only with ZeRO: the inter-op pass finds it, and fitting plans are unchanged") {
  const Graph g = model(kPipelineModel);
  auto micro = microbatch_graph(g, 2);
  REQUIRE(micro.ok());
  InterOpOptions o;
  o.microbatches = 2;
  auto stages = [&](const Cluster& c, int zero) {
    InterOpOptions oz = o;
    oz.zero_stage = zero;
    auto t = stage_costs_from_model(micro.value(), c, oz);
    REQUIRE(t.ok());
    return t.value();
  };
  // Small GPUs: without ZeRO no pipeline fits (the 1F1B memory limit with optimizer state).
  const Cluster small = small_cluster(0.4);
  CHECK_FALSE(solve_inter_op(stages(small, 0), 2).ok());
  const StageCostTable table = stages(small, -1);
  auto p = solve_inter_op(table, 2);
  REQUIRE(p.ok());
  bool zero_used = false;
  for (const PipelineStage& st : p.value().stages) {
    size_t m = 0;
    while (!(table.submeshes[m] == st.submesh)) ++m;
    zero_used = zero_used || table.zero_stage[table.index(st.first, st.last, int(m))] > 0;
  }
  CHECK(zero_used);
  // Where memory is not binding, choosing the ZeRO stage never costs time: the DP takes each
  // position's fastest option, and ZeRO's overlapped reduce-scatter can beat the all-reduce.
  const Cluster big = small_cluster(16);
  auto plain = solve_inter_op(stages(big, 0), 2);
  auto chosen = solve_inter_op(stages(big, -1), 2);
  REQUIRE(plain.ok());
  REQUIRE(chosen.ok());
  CHECK(chosen.value().total_latency <= plain.value().total_latency);
}
