// Memory in FlexFlow's half: the simulator counts training memory per GPU as `autopar memory`
// does (one accounting), and the MCMC's out-of-memory penalty steers the search to a strategy
// that fits when the initial one does not.
#include <doctest/doctest.h>

#include "test_inputs.h"
#include "cluster_spec.h"
#include "device_memory.h"
#include "mcmc.h"
#include "memory_model.h"
#include "models.h"
#include "simulator.h"
#include "soap.h"

using namespace autopar;
using autopar::test::model;
using autopar::test::small_cluster;

namespace {

void check_equal(const DeviceMemoryUse& f, const MemoryReport& m) {
  CHECK(f.params_bytes == doctest::Approx(m.params_bytes).epsilon(1e-12));
  CHECK(f.grads_bytes == doctest::Approx(m.grads_bytes).epsilon(1e-12));
  CHECK(f.optimizer_bytes == doctest::Approx(m.optimizer_bytes).epsilon(1e-12));
  CHECK(f.activation_bytes == doctest::Approx(m.activation_bytes).epsilon(1e-12));
  // `memory` adds ZeRO 3's gathered-weight buffers; FlexFlow's simulator counts the shards only.
  CHECK(f.total_bytes == doctest::Approx(m.total_bytes - m.gathered_bytes).epsilon(1e-12));
}

}  // namespace

TEST_CASE("FlexFlow's data-parallel strategy needs per GPU what memory --dp N says, by kind") {
  // Transformers (the repeating layers recomputation checkpoints), a GPT with a tied head (the
  // table counted once), an MLP; FP32 and mixed precision; Adam and SGD; every ZeRO stage.
  const char* const models[] = {"transformer:layers=2,batch=64,seq=128,hidden=256,heads=4,dtype_bytes=2",
                                "transformer:layers=3,batch=32,seq=64,hidden=128,heads=4", "transformer:layers=2,batch=8,seq=64,hidden=128,heads=4,vocab=1000", "elm",
                                "mlp3"};
  for (const char* spec : models) {
    CAPTURE(spec);
    const Graph g = model(spec);
    for (const char* cluster : {"lecture:1x4", "lecture:2x4"}) {
      const Cluster c = load_cluster(cluster).value();
      const int n = c.num_devices();
      for (Optimizer opt : {Optimizer::adam, Optimizer::sgd})
        for (int zero = 0; zero <= 3; ++zero)
          for (bool remat : {false, true}) {
            CAPTURE(cluster);
            CAPTURE(zero);
            CAPTURE(remat);
            Strategy dp = data_parallel(g, n);
            dp.remat = remat;
            for (OpConfig& oc : dp.ops) oc.zero = zero;
            MemoryOptions mo;
            mo.data_parallel = n;
            mo.zero_stage = zero;
            mo.remat = remat;
            mo.optimizer = opt;
            mo.precision = training_precision(g);
            const MemoryReport m = estimate_memory(g, c, mo).value();
            const DeviceMemory f(g, c, dp, opt);
            for (int d = 0; d < n; ++d) check_equal(f.device(d), m);
            CHECK(f.fits() == m.fits);
            TaskGraph tg(g, c, dp);
            simulate_full(tg);
            const SimSummary s = summarize(tg, opt);
            check_equal(s.peak_memory, m);
            CHECK(s.fits == m.fits);
          }
    }
  }
}

TEST_CASE("DeviceMemory op by op equals a fresh count, and undo restores it exactly") {
  const Graph g = model("transformer:layers=2,batch=16,seq=64,hidden=128,heads=4");
  const Cluster c = load_cluster("lecture:2x4").value();
  Strategy s = random_strategy(g, 8, 3);
  DeviceMemory m(g, c, s);
  Rng rng(11);
  for (int step = 0; step < 300; ++step) {
    const int op = int(rng.below(g.ops.size()));
    const auto configs = enumerate_configs(g.ops[size_t(op)], 8);
    OpConfig next = configs[rng.below(configs.size())];
    next.zero = int(rng.below(4));
    std::vector<DeviceMemoryUse> before;
    for (int d = 0; d < 8; ++d) before.push_back(m.device(d));
    m.set_config(op, next);
    if (step % 3 == 0) {
      m.undo();
      for (int d = 0; d < 8; ++d) CHECK(m.device(d).total_bytes == before[size_t(d)].total_bytes);
      continue;
    }
    s.ops[size_t(op)] = next;
    if (step % 50 == 1) {
      m.set_remat(!s.remat);
      s.remat = !s.remat;
    }
    const DeviceMemory fresh(g, c, s);
    for (int d = 0; d < 8; ++d) CHECK(m.device(d).total_bytes == doctest::Approx(fresh.device(d).total_bytes).epsilon(1e-9));
    CHECK(m.peak_bytes() == doctest::Approx(fresh.peak_bytes()).epsilon(1e-9));
  }
}

TEST_CASE("search on a small GPU: data parallelism does not fit, the search returns a strategy that does") {
  // mlp3 with wide layers: every GPU holding all weights (data parallelism) needs their Adam
  // state four times; a strategy splitting the weights (or placing layers apart) needs less.
  const Graph g = model("mlp:layers=4,hidden=4096,batch=64");
  const Strategy dp = data_parallel(g, 4);
  const double dp_need = DeviceMemory(g, small_cluster(1000), dp).peak_bytes();
  const double mp_need = DeviceMemory(g, small_cluster(1000), model_parallel(g, 4)).peak_bytes();
  REQUIRE(mp_need < dp_need * 0.75);
  // A GPU between the two: data parallelism does not fit, placing the layers apart does.
  const Cluster c = small_cluster((mp_need + dp_need) / 2 / 1073741824.0);
  SearchOptions o;
  o.steps = 4000;
  o.seed = 5;
  o.stop_when_stalled = false;
  for (bool full : {false, true}) {
    o.full_sim = full;
    double ms = 0;
    const SearchResult r = run_search(g, c, dp, o, &ms);
    CHECK_FALSE(r.init_fits);
    CHECK(r.best_fits);
    const DeviceMemory best(g, c, r.best);
    CHECK(best.fits());
    CHECK(r.best_peak_bytes == doctest::Approx(best.peak_bytes()));
  }
  // Without the memory limit the same search keeps its course (a large GPU: nothing penalised).
  const Cluster big = small_cluster(1000);
  o.full_sim = false;
  const SearchResult free_run = run_search(g, big, dp, o, nullptr);
  CHECK(free_run.init_fits);
  CHECK(free_run.best_fits);
}
