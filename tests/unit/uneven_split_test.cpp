// Uneven splits (a degree that does not divide its dimension): balanced parts, times and memory
// from each part's own share, transfer volumes from the real box intersections, and named
// strategies that keep their meaning for any batch.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "error_code_printing.h"
#include "cluster_spec.h"
#include "models.h"
#include "regions.h"
#include "simulator.h"
#include "simulator_fixtures.h"
#include "soap.h"

using namespace autopar;
using autopar::test::round_cluster;
using autopar::test::two_linear_ops;

namespace {

OpConfig split_samples(int degree, int first_device) {
  OpConfig c{{degree, 1}, {}};
  for (int k = 0; k < degree; ++k) c.devices.push_back(first_device + k);
  return c;
}

}  // namespace

TEST_CASE("balanced partition: parts differ by at most one unit, the first ones larger") {
  // 10 units in 4 parts: 3, 3, 2, 2.
  CHECK(part_start(10, 4, 0) == 0);
  CHECK(part_start(10, 4, 1) == 3);
  CHECK(part_start(10, 4, 2) == 6);
  CHECK(part_start(10, 4, 3) == 8);
  CHECK(part_start(10, 4, 4) == 10);
  for (int64_t units : {1, 5, 7, 10, 64, 255, 257}) {
    for (int degree = 1; degree <= units && degree <= 16; ++degree) {
      int64_t smallest = units, largest = 0;
      for (int p = 0; p < degree; ++p) {
        const int64_t len = part_start(units, degree, p + 1) - part_start(units, degree, p);
        smallest = std::min(smallest, len);
        largest = std::max(largest, len);
        for (int64_t u = part_start(units, degree, p); u < part_start(units, degree, p + 1); ++u) REQUIRE(part_of_unit(units, degree, u) == p);
      }
      CHECK(largest - smallest <= 1);
      CHECK(part_start(units, degree, degree) == units);
    }
  }
}

TEST_CASE("an odd batch split two ways: the hand-worked timeline") {
  Graph g = two_linear_ops(5);
  Cluster c = round_cluster(1, 2);
  Strategy s{{split_samples(2, 0), split_samples(2, 0)}};
  for (const OpConfig& cfg : s.ops) CHECK(validate_config(g.ops[0], cfg, 2, "x").ok());
  TaskGraph tg(g, c, s);
  double makespan = simulate_full(tg);
  // Batch 5 in two parts: 3 samples on GPU 0, 2 on GPU 1 (parts differ by one, the first larger).
  // a fwd = 2*5*8*6 = 480 FLOP, bwd 960; b fwd = 2*5*6*2 = 120 FLOP, bwd 240; 1e6 FLOP/ms + 0.01 ms.
  //   GPU 0 (3/5): a fwd 0.010288, b fwd 0.010072, b bwd 0.010144, a bwd 0.010576
  //   GPU 1 (2/5): a fwd 0.010192, b fwd 0.010048, b bwd 0.010096, a bwd 0.010384
  // Each part of b reads the rows of a its own GPU computed: no activation transfer.
  // GPU 0: a fwd [0, 0.010288], b fwd -> 0.020360, b bwd -> 0.030504, a bwd -> 0.041080.
  // GPU 1: a fwd [0, 0.010192], b fwd -> 0.020240, b bwd -> 0.030336, a bwd -> 0.040720.
  // b's weight (6x2 floats, 48 bytes) syncs once both b bwd ended (the larger part, 0.030504):
  // a ring of 2 moves 2*(2-1)/2*48 = 48 bytes each way at 1000 bytes/ms, [0.030504, 0.078504].
  // a's weight (8x6 floats, 192 bytes) is ready at 0.041080 but the links are busy until
  // 0.078504; 0.192 ms later it ends at 0.270504 (batch 4, even, gives 0.270336).
  CHECK(makespan == doctest::Approx(0.270504).epsilon(1e-12));
  SimSummary sum = summarize(tg);
  CHECK(sum.activation_bytes == 0);
  CHECK(sum.param_sync_bytes == 2 * 48 + 2 * 192);
  CHECK(sum.compute_ms == doctest::Approx(0.010288 + 0.010072 + 0.010144 + 0.010576 + 0.010192 + 0.010048 + 0.010096 + 0.010384));
  // Training memory per GPU (device_memory.h): FP32 Adam keeps 4 + 4 + 8 bytes per weight of
  // each replicated weight, a's 48 and b's 12: 960 bytes on each GPU; a linear layer keeps its
  // input for the backward pass, the part's own rows: GPU 0 keeps 3/5 of x (5x8 floats, 160
  // bytes) and of a's output (5x6 floats, 120 bytes), 96 + 72; GPU 1 2/5 of them, 64 + 48.
  // The larger part sets the peak: 960 + 168 = 1128 on GPU 0 (1072 on GPU 1).
  CHECK(sum.peak_memory_bytes == 1128);
  CHECK(sum.peak_device == 0);
  CHECK(sum.peak_memory.params_bytes == 240);
  CHECK(sum.peak_memory.grads_bytes == 240);
  CHECK(sum.peak_memory.optimizer_bytes == 480);
  CHECK(sum.peak_memory.activation_bytes == doctest::Approx(168));
  const DeviceMemory memory(g, c, s);
  CHECK(memory.device(1).total_bytes == doctest::Approx(1072));
  // Delta simulation agrees when the split changes to and from uneven degrees.
  DeltaSimulator delta(g, c, Strategy{{split_samples(1, 0), split_samples(1, 1)}});
  TaskGraph half(g, c, Strategy{{split_samples(2, 0), split_samples(1, 1)}});
  CHECK(delta.set_config(0, split_samples(2, 0)) == simulate_full(half));
  CHECK(delta.set_config(1, split_samples(2, 0)) == makespan);
}

TEST_CASE("uneven producer and consumer parts: transfers carry exactly the overlapping rows") {
  Graph g = two_linear_ops(5);
  Cluster c = round_cluster(1, 3);
  // a in 3 parts: rows [0,2) GPU 0, [2,4) GPU 1, [4,5) GPU 2; b in 2 parts: rows [0,3) GPU 0, [3,5) GPU 1.
  Strategy s{{split_samples(3, 0), split_samples(2, 0)}};
  REQUIRE(validate_config(g.ops[0], s.ops[0], 3, "x").ok());
  TaskGraph tg(g, c, s);
  simulate_full(tg);
  // b part 0 reads rows 0-2: rows 0-1 on its own GPU, row 2 (6 floats = 24 bytes) from GPU 1.
  // b part 1 reads rows 3-4: row 3 on its own GPU, row 4 (24 bytes) from GPU 2.
  // Each crossing goes forward (activation) and back (its gradient): 4 transfers, 96 bytes.
  int transfers = 0;
  double bytes = 0;
  for (const Task& t : tg.tasks()) {
    if (!t.live || t.kind != TaskKind::transfer) continue;
    ++transfers;
    bytes += t.bytes;
    CHECK(t.bytes == 24);
  }
  CHECK(transfers == 4);
  CHECK(bytes == 96);
}

TEST_CASE("validate_config accepts degrees that do not divide, and still refuses impossible ones") {
  Graph g = two_linear_ops(5);
  const Op& a = g.ops[0];   // sample 5, channel 6
  CHECK(validate_config(a, OpConfig{{2, 1}, {0, 1}}, 8, "x").ok());
  CHECK(validate_config(a, OpConfig{{5, 1}, {0, 1, 2, 3, 4}}, 8, "x").ok());
  CHECK(validate_config(a, OpConfig{{1, 4}, {0, 1, 2, 3}}, 8, "x").ok());
  auto too_big = validate_config(a, OpConfig{{6, 1}, {0, 1, 2, 3, 4, 5}}, 8, "x");
  REQUIRE_FALSE(too_big.ok());
  CHECK(too_big.error().code == ErrorCode::bad_degree);
  CHECK(too_big.error().path == "x.degrees.sample");
  CHECK(validate_config(a, OpConfig{{0, 1}, {}}, 8, "x").error().code == ErrorCode::out_of_range);
  CHECK(validate_config(a, OpConfig{{4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}}, 4, "x").error().code == ErrorCode::bad_degree);   // 8 parts, 4 GPUs
  CHECK(validate_config(a, OpConfig{{2, 1}, {0}}, 8, "x").error().code == ErrorCode::bad_strategy);
}

TEST_CASE("AlexNet with batch 257: data parallel stays data parallel over every GPU") {
  auto c = load_cluster("lecture:2x4");
  REQUIRE(c.ok());
  auto even = load_model("alexnet");
  auto odd = load_model("alexnet:batch=257");
  REQUIRE(even.ok());
  REQUIRE(odd.ok());
  double ms[2];
  int64_t peak[2];
  for (int k = 0; k < 2; ++k) {
    const Graph& g = (k == 0 ? even : odd).value();
    Strategy dp = data_parallel(g, 8);
    for (size_t i = 0; i < g.ops.size(); ++i) {
      CHECK(dp.ops[i].parts() == 8);
      CHECK(validate_config(g.ops[i], dp.ops[i], 8, "x").ok());
    }
    TaskGraph tg(g, c.value(), dp);
    ms[k] = simulate_full(tg);
    peak[k] = summarize(tg).peak_memory_bytes;
  }
  // One more sample: the largest part has 33 samples instead of 32, so the iteration takes a
  // little longer, never less, and far from the 104 ms of everything on one GPU.
  CHECK(ms[1] > ms[0]);
  CHECK(ms[1] < ms[0] * 1.01);
  CHECK(peak[1] > peak[0]);
  // The space keeps its size: the batch takes the same degrees whether or not they divide it.
  CHECK(count_space(even.value(), 8).strategies == count_space(odd.value(), 8).strategies);
  CHECK(count_space(even.value(), 8).uneven_configs_per_op[0] == 0);
  // conv1 (sample 257, channel 64; its 27x27 maps take no degree): sample 2 with channel 1, 2, 4
  // (4 + 2 + 1 blocks), sample 4 with channel 1, 2 (2 + 1), sample 8 (1): 11 uneven of 26.
  CHECK(count_space(odd.value(), 8).uneven_configs_per_op[0] == 11);
  // The lecture's count is untouched: 26 configs per 2-dim op on 8 GPUs, 17,576 for mlp3.
  auto mlp3 = load_model("mlp3");
  REQUIRE(mlp3.ok());
  CHECK(count_space(mlp3.value(), 8).strategies == "17576");
}

TEST_CASE("count_space counts each op's configurations as enumerate_configs lists them (ops of one shape counted once)") {
  for (const char* spec : {"transformer:layers=6", "alexnet", "dlrm", "mlp:layers=5", "wide-resnet", "moe"}) {
    auto g = load_model(spec);
    REQUIRE(g.ok());
    for (int devices : {1, 6, 8, 32}) {
      CAPTURE(spec);
      CAPTURE(devices);
      const SpaceSize s = count_space(g.value(), devices);
      REQUIRE(s.configs_per_op.size() == g.value().ops.size());
      double log10_total = 0;
      for (size_t v = 0; v < g.value().ops.size(); ++v) {
        const Op& op = g.value().ops[v];
        const auto configs = enumerate_configs(op, devices);
        const auto uneven = std::count_if(configs.begin(), configs.end(), [&](const OpConfig& c) { return !even_split(op, c); });
        CHECK(s.configs_per_op[v] == int64_t(configs.size()));
        CHECK(s.uneven_configs_per_op[v] == int64_t(uneven));
        log10_total += std::log10(double(configs.size()));
      }
      CHECK(s.log10_strategies == std::round(log10_total * 1e6) / 1e6);   // as count_space rounds it
    }
  }
}
