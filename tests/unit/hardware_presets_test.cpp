// Unit tests of the hardware presets (cluster.h): today's GPUs' datasheet peaks, FP8 GEMMs beside
// the ops that stay in BF16, the efficiency note written from its constants, clusters of 131,072
// GPUs, one meaning of the network bandwidth (per NIC, with NICs per node), and the shipped
// examples/clusters files equal to the presets. Witnesses: datasheet figures (cited in
// cluster.cpp) and the prices before the NIC field existed, worked by hand.
#include <doctest/doctest.h>

#include <string>

#include "cluster_spec.h"
#include "cost_model.h"
#include "device_mesh.h"
#include "json_io.h"
#include "models.h"

using namespace autopar;

namespace {

const Cluster& preset(const std::string& name) {
  for (const auto& p : cluster_presets())
    if (p.name == name) return p.cluster;
  FAIL("no preset " << name);
  static Cluster none;
  return none;
}

const Op& first_op(const Graph& g, OpKind k) {
  for (const Op& op : g.ops)
    if (op.spec.kind == k) return op;
  FAIL("no op of kind " << op_kind_name(k));
  return g.ops[0];
}

GpuSpec at(GpuSpec g, Precision p) {
  g.precision = p;
  return g;
}

}  // namespace

TEST_CASE("today's presets carry their datasheets' dense peaks, memory and links") {
  // H100 SXM: 1,979 BF16 and 3,958 FP8 TFLOP/s with sparsity, half of each dense.
  const Cluster& h100 = preset("h100");
  CHECK(h100.gpu.peak_tflops_fp16 == 989.4);
  CHECK(h100.gpu.peak_tflops_fp8 == 1978.9);
  // H200: the same compute, 141 GB of HBM3e at 4.8 TB/s.
  const Cluster& h200 = preset("h200");
  CHECK(h200.gpu.peak_tflops_fp16 == h100.gpu.peak_tflops_fp16);
  CHECK(h200.gpu.peak_tflops_fp8 == h100.gpu.peak_tflops_fp8);
  CHECK(h200.gpu.memory_gib == 141);
  CHECK(h200.gpu.memory_bandwidth_gb_per_s == 4800);
  // HGX B200: dense BF16 2.25 and FP8 4.5 PFLOP/s, 180 GB at 8 TB/s, NVLink 5 900 GB/s per direction.
  const Cluster& b200 = preset("b200");
  CHECK(b200.gpu.peak_tflops_fp16 == 2250);
  CHECK(b200.gpu.peak_tflops_fp8 == 4500);
  CHECK(b200.gpu.memory_gib == 180);
  CHECK(b200.gpu.memory_bandwidth_gb_per_s == 8000);
  CHECK(b200.intra_node.bandwidth_gb_per_s == 900);
  // GB200 NVL72: the node is the 72-GPU NVLink domain; one NIC per GPU between racks.
  const Cluster& gb200 = preset("gb200");
  CHECK(gb200.gpus_per_node == 72);
  CHECK(gb200.num_devices() == 72);
  CHECK(gb200.nics() == 72);
  CHECK(gb200.gpu.peak_tflops_fp8 == 5000);
  CHECK(load_cluster("gb200:4x72").ok());
  // Hopper and Blackwell have FP8 tensor cores, A100 and older do not.
  CHECK(preset("a100").gpu.peak_tflops_fp8 == 0);
  CHECK(preset("v100").gpu.peak_tflops_fp8 == 0);
}

TEST_CASE("precision names: fp32, tf32, bf16, fp16, fp8, and mixed as the 16-bit default") {
  for (const char* name : {"fp32", "tf32", "bf16", "fp16", "fp8", "mixed"}) {
    auto p = parse_precision(name);
    REQUIRE(p);
    CHECK(std::string(precision_name(*p)) == name);
  }
  CHECK_FALSE(parse_precision("fp4"));
  CHECK(is_mixed_precision(Precision::mixed));
  CHECK(is_mixed_precision(Precision::bf16));
  CHECK(is_mixed_precision(Precision::fp8));
  CHECK_FALSE(is_mixed_precision(Precision::tf32));
  // bf16, fp16 and mixed price the same peak.
  const GpuSpec& h = preset("h100").gpu;
  CHECK(at(h, Precision::bf16).active_peak_tflops() == at(h, Precision::mixed).active_peak_tflops());
  CHECK(at(h, Precision::fp16).active_peak_tflops() == 989.4);
  CHECK(load_cluster("h100:1x8,precision=fp8").value().gpu.precision == Precision::fp8);
  // bf16, fp16 and fp8 keep mixed precision's 16-bit weights and gradients (2 + 2 + 12 bytes with Adam).
  for (Precision p : {Precision::bf16, Precision::fp16, Precision::fp8}) {
    CHECK(state_bytes_per_param(p, Optimizer::adam).params == 2);
    CHECK(state_bytes_per_param(p, Optimizer::adam).grads == 2);
    CHECK(state_bytes_per_param(p, Optimizer::adam).optimizer == state_bytes_per_param(Precision::mixed, Optimizer::adam).optimizer);
  }
}

TEST_CASE("FP8: linear GEMMs run at twice H100's BF16 rate at the same efficiency; attention and elementwise ops stay BF16") {
  const GpuSpec bf16 = at(preset("h100").gpu, Precision::bf16), fp8 = at(preset("h100").gpu, Precision::fp8);
  // The API the precision parser calls: the GEMM peak of a precision.
  CHECK(matmul_peak_flops_per_ms(bf16, Precision::fp8) == doctest::Approx(1978.9e9));
  CHECK(matmul_peak_flops_per_ms(bf16, Precision::bf16) == doctest::Approx(989.4e9));
  CHECK(matmul_peak_flops_per_ms(preset("a100").gpu, Precision::fp8) == doctest::Approx(312e9));  // no FP8 tensor cores
  // A 1 TFLOP GEMM: the same efficiency curve, the peak ratio 1978.9 / 989.4 (= 2.0001).
  const double flops = 1e12;
  const double ratio = achieved_flops_per_ms(fp8, flops, OpKind::linear) / achieved_flops_per_ms(bf16, flops, OpKind::linear);
  CHECK(ratio == doctest::Approx(1978.9 / 989.4).epsilon(1e-12));
  CHECK(ratio > 1.99);
  CHECK(achieved_flops_per_ms(fp8, flops, OpKind::moe) == doctest::Approx(2 * achieved_flops_per_ms(bf16, flops, OpKind::moe)).epsilon(1e-3));
  // Attention's batched products, softmax and layer norms keep BF16's rate.
  for (OpKind k : {OpKind::attention, OpKind::softmax, OpKind::layernorm, OpKind::add, OpKind::gelu})
    CHECK(achieved_flops_per_ms(fp8, flops, k) == achieved_flops_per_ms(bf16, flops, k));
  // On a transformer layer: the projection's compute time halves, the attention core's does not move.
  const Graph g = load_model("transformer:layers=1,hidden=8192,heads=64,seq=4096,batch=8,vocab=0,dtype_bytes=2").value();
  const Op& proj = first_op(g, OpKind::linear);
  const Op& core = first_op(g, OpKind::attention);
  const double proj_bf16 = op_train_ms(bf16, proj, 1.0), proj_fp8 = op_train_ms(fp8, proj, 1.0);
  CHECK(proj_fp8 < 0.55 * proj_bf16);
  CHECK(proj_fp8 > 0.45 * proj_bf16);
  CHECK(op_train_ms(fp8, core, 1.0) == op_train_ms(bf16, core, 1.0));
}

TEST_CASE("the efficiency note is written from the constants it describes") {
  // The shipped note said "matrix products 80% of peak" while the constants were 0.67 and 0.47
  // (now 0.72 and 0.51).
  const std::string a100 = efficiency_note(preset("a100")), v100 = efficiency_note(preset("v100"));
  CHECK(preset("a100").gpu.matmul_efficiency == 0.72);
  CHECK(a100.find("72% of the tensor-core peak") != std::string::npos);
  CHECK(v100.find("51% of the tensor-core peak") != std::string::npos);
  CHECK(a100.find("80%") == std::string::npos);
  CHECK(a100.find("85% of the memory bandwidth") != std::string::npos);
  // Change a constant and the note follows.
  Cluster c = preset("a100");
  c.gpu.matmul_efficiency = 0.5;
  CHECK(efficiency_note(c).find("50% of the tensor-core peak") != std::string::npos);
  // Calibration is said wherever the numbers are shown: a100, v100 and h100 are fitted (h100's
  // matrix efficiency on validate's nemo-gpt3-175b-128 row), the later GPUs are not.
  CHECK(preset("a100").calibrated());
  CHECK(preset("v100").calibrated());
  CHECK(preset("h100").calibrated());
  CHECK(efficiency_note(preset("h100")).find("56% of the tensor-core peak") != std::string::npos);
  CHECK(efficiency_note(preset("h200")).find("H100's for H200") != std::string::npos);
  for (const char* name : {"h200", "b200", "gb200", "lecture"}) {
    CHECK_FALSE(preset(name).calibrated());
    CHECK(efficiency_note(preset(name)).rfind("Not calibrated", 0) == 0);
    const Json j = cluster_to_json(preset(name));
    CHECK(j["calibrated"] == false);
    CHECK(j["note"].get<std::string>().rfind("Not calibrated", 0) == 0);
  }
}

TEST_CASE("clusters of 131,072 GPUs are accepted, one more is refused") {
  auto big = load_cluster("h100:16384x8");
  REQUIRE(big.ok());
  CHECK(big.value().num_devices() == 131072);
  auto over = load_cluster("h100:16385x8");
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().message.find("131072") != std::string::npos);
  // A file of that size, and a mesh over all of it.
  Json j = cluster_to_json(big.value());
  auto back = cluster_from_json(j);
  REQUIRE(back.ok());
  CHECK(back.value() == big.value());
  CHECK(parse_mesh_shape("1x131072").ok());
  CHECK(mesh_from_cluster(16384, 8, big.value()).ok());
}

TEST_CASE("the network is per NIC: DGX prices are unchanged, one NIC per node is shared by its GPUs' transfers") {
  // a100: one 25 GB/s NIC per GPU, 90% bus efficiency. Before the field, each GPU's ring step
  // across nodes cost 1 / (25 GB/s x 0.9); it still does (8 NICs for 8 streams).
  const Cluster a100 = load_cluster("a100:4x8").value();
  CHECK(a100.nics() == 8);
  auto m = mesh_from_cluster(4, 8, a100);
  REQUIRE(m.ok());
  CHECK(m.value().axis[0].crosses_nodes);
  CHECK(m.value().axis[0].beta == doctest::Approx(1.0 / (25 * 0.9 * 1e6)).epsilon(1e-15));
  CHECK(m.value().axis[0].alpha == doctest::Approx(5e-3));
  auto flat = mesh_from_cluster(1, 32, a100);
  CHECK(flat.value().axis[1].beta == doctest::Approx(1.0 / (25 * 0.9 * 1e6)).epsilon(1e-15));
  // v100 (p3.16xlarge): one 25 Gb/s interface per node. Axis 0 of an 8x8 mesh runs 8 rings at
  // once, each leaving the node: 3.125 GB/s x 0.9 / 8 each. A 1x64 ring leaves each node once: the whole NIC.
  const Cluster v100 = load_cluster("v100:8x8").value();
  CHECK(v100.nics() == 1);
  CHECK(mesh_from_cluster(8, 8, v100).value().axis[0].beta == doctest::Approx(8.0 / (3.125 * 0.9 * 1e6)).epsilon(1e-12));
  CHECK(mesh_from_cluster(1, 64, v100).value().axis[1].beta == doctest::Approx(1.0 / (3.125 * 0.9 * 1e6)).epsilon(1e-12));
  // lecture:2x4 (one 10 GbE NIC per node): axis 0 of the 2x4 mesh shares it four ways.
  const Cluster lecture = load_cluster("lecture:2x4").value();
  CHECK(mesh_from_cluster(2, 4, lecture).value().axis[0].beta == doctest::Approx(4.0 / (1.25 * 1e6)).epsilon(1e-12));
  CHECK(lecture.inter_node_shared(1).bandwidth_gb_per_s == 1.25);
  CHECK(lecture.inter_node_shared(4).bandwidth_gb_per_s == doctest::Approx(0.3125));
}

TEST_CASE("a cluster file written before nics_per_node reads as it was priced: one NIC per GPU") {
  // examples/clusters/v100.json as shipped before the field (its network priced per GPU).
  const char* old_v100 = R"({"format": "autopar-cluster", "version": 1, "name": "v100", "nodes": 8, "gpus_per_node": 8,
    "gpu": {"model": "Tesla V100 SXM2 16 GB", "peak_tflops": 15.7, "memory_bandwidth_gb_per_s": 900.0, "memory_gib": 16.0,
            "kernel_overhead_us": 5.0, "peak_tflops_tf32": 0.0, "peak_tflops_fp16": 125.0, "matmul_efficiency": 0.47,
            "matmul_half_gflop": 1.8, "memory_efficiency": 0.85, "attention_score_passes": 6.0},
    "intra_node": {"latency_us": 5.0, "bandwidth_gb_per_s": 150.0, "bus_efficiency": 0.78},
    "inter_node": {"latency_us": 20.0, "bandwidth_gb_per_s": 3.125, "bus_efficiency": 0.9},
    "overlap_grad_sync": true, "optimizer_step": true, "sources": "..."})";
  auto c = cluster_from_json(parse_json_text(old_v100, "old v100").value());
  REQUIRE(c.ok());
  CHECK(c.value().nics_per_node == 0);
  CHECK(c.value().nics() == 8);
  CHECK_FALSE(c.value().calibrated());
  CHECK(mesh_from_cluster(8, 8, c.value()).value().axis[0].beta == doctest::Approx(1.0 / (3.125 * 0.9 * 1e6)).epsilon(1e-12));
  // A bad NIC count names the field and its range.
  Json j = cluster_to_json(preset("a100"));
  j["inter_node"]["nics_per_node"] = 0;
  auto bad = cluster_from_json(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().path == "inter_node.nics_per_node");
}

TEST_CASE("examples/clusters holds exactly what the presets produce") {
  for (const auto& p : cluster_presets()) {
    CAPTURE(p.name);
    const std::string path = std::string(AUTOPAR_SOURCE_DIR) + "/examples/clusters/" + p.name + ".json";
    auto text = read_text_file(path);
    REQUIRE(text.ok());
    auto j = parse_json_text(text.value(), path);
    REQUIRE(j.ok());
    CHECK(j.value() == cluster_to_json(p.cluster));
    auto c = load_cluster(path);
    REQUIRE(c.ok());
    CHECK(c.value() == p.cluster);
  }
}
