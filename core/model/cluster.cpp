// Cluster presets and their validation. Numbers are stored in datasheet units (TFLOP/s, GB/s,
// GiB, microseconds); LinkSpec and GpuSpec convert to the core's milliseconds and bytes.
#include "cluster.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace autopar {
namespace {


// A GPU with its FP32 numbers and its TF32 and FP16/BF16 peaks (dense, without sparsity).
GpuSpec gpu_with(GpuSpec g, double tf32_tflops, double fp16_tflops) {
  g.peak_tflops_tf32 = tf32_tflops;
  g.peak_tflops_fp16 = fp16_tflops;
  return g;
}

// The efficiencies real runs reach (cost_model.h), for the presets of GPUs that published
// training runs anchor (README, "The cost model"). `matmul` is fitted on Megatron-LM's SC'21
// Table 1 runs; the others are measured figures cited where the presets use them.
GpuSpec calibrated(GpuSpec g, double matmul, double half_gflop, double memory, double score_passes) {
  g.matmul_efficiency = matmul;
  g.matmul_half_gflop = half_gflop;
  g.memory_efficiency = memory;
  g.attention_score_passes = score_passes;
  return g;
}

// A link with the share of its bandwidth NCCL's collectives reach.
LinkSpec link(double latency_us, double gb_per_s, double bus_efficiency) { return LinkSpec{latency_us, gb_per_s, bus_efficiency}; }

// A preset as frameworks run on it: gradient all-reduce overlapped, optimizer step priced.
Cluster framework_run(Cluster c) {
  c.overlap_grad_sync = true;
  c.optimizer_step = true;
  return c;
}

Cluster make(const std::string& name, int nodes, int gpus, GpuSpec gpu, LinkSpec intra, LinkSpec inter,
             const std::string& sources) {
  Cluster c;
  c.name = name;
  c.nodes = nodes;
  c.gpus_per_node = gpus;
  c.gpu = gpu;
  c.intra_node = intra;
  c.inter_node = inter;
  c.sources = sources;
  return c;
}

// The calibrated presets' efficiencies (README, "The cost model", says which runs fit which).
// Matrix products: the share of the tensor-core peak cuBLAS GEMMs reach at training sizes,
// fitted on Megatron-LM's SC'21 Table 1 runs (A100) and Alpa's benchmark run (V100).
constexpr double kMatmulA100 = 0.67, kMatmulV100 = 0.47;
// Half efficiency at about one wave of 128 x 128 output tiles over the GPU's SMs (108 on A100)
// with K = 512: 108 * 128 * 128 * 2 * 512 = 1.8 GFLOP (NVIDIA, "Matrix Multiplication Background
// User's Guide", wave quantization).
constexpr double kHalfGflop = 1.8;
// Streaming kernels reach about 85% of the datasheet HBM bandwidth (BabelStream's copy/triad on
// V100 and A100; Deakin et al., "Evaluating attainable memory bandwidth", PMBS 2018).
constexpr double kMemoryEfficiency = 0.85;
// Megatron-LM 2021's attention: QK^T writes the scores, its fused scale-mask-softmax reads and
// writes them, dropout reads and writes them, and the product with V reads them: 6 passes.
constexpr double kScorePasses = 6;
// NCCL all-reduce bus bandwidth over NVLink/NVSwitch reaches ~78% of the link (nccl-tests on
// DGX A100: ~230 of 300 GB/s), over InfiniBand ~90% (~22.5 of 25 GB/s per NIC).
constexpr double kNvlinkBus = 0.78, kNetworkBus = 0.90;
const std::string kEfficiencySources =
    "Efficiencies (README, 'The cost model'): matrix products 80% of peak, fitted on Megatron-LM's SC'21 Table 1; "
    "half of it at 1.8 GFLOP per kernel (one wave of 128x128 tiles, NVIDIA's GEMM guide); memory 85% (BabelStream); "
    "6 passes over attention scores (Megatron-LM's unfused attention); NCCL bus bandwidth 78% of NVLink and 90% of InfiniBand (nccl-tests).";

std::vector<ClusterPreset> build_presets() {
  std::vector<ClusterPreset> p;
  // A CUDA kernel launch costs a few microseconds (NVIDIA CUDA C++ Best Practices Guide,
  // "kernel launch overhead"); 5 us is used for every preset.
  const double launch = 5;

  // lecture: the teaching cluster the lecture's demos use. P100 GPUs (datasheet below) in
  // nodes joined by PCIe-class links, and a commodity 10 Gb/s Ethernet network between nodes,
  // slower than the FlexFlow paper's InfiniBand (lecture 4.2: "网卡更慢").
  p.push_back({"lecture", "the lecture's teaching cluster: P100 GPUs, 16 GB/s in a node, 10 GbE between nodes", 2, 4,
               make("lecture", 2, 4, gpu_with({"Tesla P100 SXM2 16 GB", 10.6, 732, 16, launch}, 0, 21.2),
                    {10, 16}, {50, 1.25},
                    "GPU: NVIDIA Tesla P100 datasheet (10.6 TFLOP/s FP32, 21.2 FP16, no tensor cores, 732 GB/s HBM2, 16 GB). "
                    "Intra-node: PCIe 3.0 x16, 15.75 GB/s per direction (PCI-SIG), rounded to 16. "
                    "Inter-node: 10 Gb/s Ethernet = 1.25 GB/s (IEEE 802.3ae); 50 us TCP round trip.")});
  // p100: the FlexFlow paper's P100 cluster (Jia et al., MLSys 2019, section 8: 4 P100 per node
  // with NVLink, nodes over 100 Gb/s EDR InfiniBand).
  p.push_back({"p100", "FlexFlow paper's P100 cluster: 4 x P100 per node, NVLink, 100 Gb/s EDR InfiniBand", 4, 4,
               make("p100", 4, 4, gpu_with({"Tesla P100 SXM2 16 GB", 10.6, 732, 16, launch}, 0, 21.2),
                    {5, 20}, {10, 12.5},
                    "GPU: NVIDIA Tesla P100 datasheet (10.6 TFLOP/s FP32, 21.2 FP16, 732 GB/s, 16 GB). "
                    "Intra-node: one NVLink 1.0 link, 20 GB/s per direction (NVIDIA P100 whitepaper). "
                    "Inter-node: EDR InfiniBand 100 Gb/s = 12.5 GB/s (FlexFlow paper, section 8). "
                    "Latencies: order of the P2P/IB latencies measured by Li et al., 'Evaluating Modern GPU "
                    "Interconnect', IEEE TPDS 2019.")});
  // k80: the FlexFlow paper's K80 cluster (4 K80 GPUs per node over PCIe, 56 Gb/s FDR InfiniBand).
  p.push_back({"k80", "FlexFlow paper's K80 cluster: 4 x K80 per node, PCIe, 56 Gb/s FDR InfiniBand", 4, 4,
               make("k80", 4, 4, gpu_with({"Tesla K80 (one GK210 GPU)", 4.37, 240, 12, launch}, 0, 4.37),
                    {10, 15.75}, {10, 7},
                    "GPU: NVIDIA Tesla K80 datasheet, per GPU of the two on a board (8.74 TFLOP/s FP32 boost, "
                    "480 GB/s, 24 GB per board; Kepler has no faster FP16 path). Intra-node: PCIe 3.0 x16, 15.75 GB/s (PCI-SIG). "
                    "Inter-node: FDR InfiniBand 56 Gb/s = 7 GB/s (FlexFlow paper, section 8).")});
  // v100: the Alpa paper's cluster (Zheng et al., OSDI 2022, section 8: AWS p3.16xlarge,
  // 8 V100 16 GB with NVLink per node, 25 Gb/s between nodes).
  p.push_back({"v100", "Alpa paper's cluster: AWS p3.16xlarge, 8 x V100 per node, NVLink, 25 Gb/s network", 8, 8,
               framework_run(make("v100", 8, 8, calibrated(gpu_with({"Tesla V100 SXM2 16 GB", 15.7, 900, 16, launch}, 0, 125),
                                                           kMatmulV100, kHalfGflop, kMemoryEfficiency, kScorePasses),
                    link(5, 150, kNvlinkBus), link(20, 3.125, kNetworkBus),
                    "GPU: NVIDIA Tesla V100 datasheet (15.7 TFLOP/s FP32, 125 FP16 tensor core, no TF32, 900 GB/s, 16 GB). "
                    "Intra-node: NVLink 2.0, 6 links x 25 GB/s per direction per GPU (V100 whitepaper). "
                    "Inter-node: 25 Gb/s = 3.125 GB/s (AWS p3.16xlarge; Alpa paper, section 8). " + kEfficiencySources))});
  // a100: DGX A100 (NVSwitch inside a node, one 200 Gb/s HDR InfiniBand NIC per GPU).
  p.push_back({"a100", "DGX A100: 8 x A100 80 GB per node, NVSwitch, 8 x 200 Gb/s HDR InfiniBand", 1, 8,
               framework_run(make("a100", 1, 8, calibrated(gpu_with({"A100 SXM4 80 GB", 19.5, 2039, 80, launch}, 156, 312),
                                                           kMatmulA100, kHalfGflop, kMemoryEfficiency, kScorePasses),
                    link(3, 300, kNvlinkBus), link(5, 25, kNetworkBus),
                    "GPU: NVIDIA A100 datasheet (19.5 TFLOP/s FP32, 156 TF32 and 312 FP16/BF16 tensor core, dense; 2,039 GB/s HBM2e, 80 GB). "
                    "Intra-node: NVLink 3 via NVSwitch, 600 GB/s bidirectional = 300 GB/s per direction. "
                    "Inter-node: one HDR InfiniBand 200 Gb/s NIC per GPU = 25 GB/s (DGX A100 datasheet). " + kEfficiencySources))});
  // h100: DGX H100 (NVLink 4 via NVSwitch, one 400 Gb/s NDR InfiniBand NIC per GPU).
  p.push_back({"h100", "DGX H100: 8 x H100 80 GB per node, NVSwitch, 8 x 400 Gb/s NDR InfiniBand", 1, 8,
               framework_run(make("h100", 1, 8, calibrated(gpu_with({"H100 SXM5 80 GB", 67, 3350, 80, launch}, 494.7, 989.4),
                                                           kMatmulA100, kHalfGflop, kMemoryEfficiency, 0),
                    link(3, 450, kNvlinkBus), link(5, 50, kNetworkBus),
                    "GPU: NVIDIA H100 SXM5 datasheet (67 TFLOP/s FP32; tensor core TF32 989 and FP16/BF16 1,979 with sparsity, "
                    "so 494.7 and 989.4 dense; 3.35 TB/s HBM3, 80 GB). "
                    "Intra-node: NVLink 4 via NVSwitch, 900 GB/s bidirectional = 450 GB/s per direction. "
                    "Inter-node: one NDR InfiniBand 400 Gb/s NIC per GPU = 50 GB/s (DGX H100 datasheet). " + kEfficiencySources +
                    " H100: A100's matrix efficiency (no published run anchors it here) and fused attention "
                    "(FlashAttention, Dao et al. 2022, keeps the scores on chip)."))});
  return p;
}

// A number as a reader writes it: "-1", "0.5", "1e+12" (std::to_string would print "-1.000000").
std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

Status check_number(double v, double lo, double hi, const std::string& path, const std::string& what,
                    const std::string& unit, bool zero_ok = false) {
  if (!std::isfinite(v))
    return make_error("bad_value", what + " must be a finite number", path);
  if ((zero_ok ? v < 0 : v <= 0))
    return make_error("out_of_range", what + " must be " + (zero_ok ? "zero or positive" : "positive") + ", not " +
                                          short_number(v), path);
  if (v < lo || v > hi)
    return make_error("out_of_range", what + " is " + short_number(v) + " " + unit + "; it must be between " +
                                          short_number(lo) + " and " + short_number(hi) + " " + unit, path);
  return Ok{};
}

}  // namespace

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::mixed: return "mixed";
    case Precision::fp8: return "fp8";
  }
  return "fp32";
}

std::optional<Precision> parse_precision(const std::string& name) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::mixed, Precision::fp8})
    if (name == precision_name(p)) return p;
  // The names engines use for 16-bit mixed precision (Megatron-LM --bf16 / --fp16, PyTorch AMP
  // dtypes): the same tensor-core peak and the same 2 + 2 + 12 bytes per Adam parameter.
  if (name == "bf16" || name == "fp16") return Precision::mixed;
  return std::nullopt;
}

const std::vector<ClusterPreset>& cluster_presets() {
  static const std::vector<ClusterPreset> presets = build_presets();
  return presets;
}

Status validate_cluster(const Cluster& c) {
  if (c.nodes < 1 || c.nodes > kMaxDevices)
    return make_error("out_of_range", "nodes is " + std::to_string(c.nodes) + "; it must be between 1 and " + std::to_string(kMaxDevices), "nodes");
  if (c.gpus_per_node < 1 || c.gpus_per_node > kMaxGpusPerNode)
    return make_error("out_of_range", "gpus_per_node is " + std::to_string(c.gpus_per_node) + "; it must be between 1 and " +
                                          std::to_string(kMaxGpusPerNode), "gpus_per_node");
  if (int64_t(c.nodes) * c.gpus_per_node > kMaxDevices)
    return make_error("too_large", "the cluster has " + std::to_string(int64_t(c.nodes) * c.gpus_per_node) +
                                       " GPUs; at most " + std::to_string(kMaxDevices) + " are supported", "nodes");
  struct Check { double value; double lo, hi; const char* path; const char* what; const char* unit; bool zero_ok; };
  const Check checks[] = {
      {c.gpu.peak_tflops, 1e-3, 1e6, "gpu.peak_tflops", "GPU peak throughput", "TFLOP/s", false},
      {c.gpu.memory_bandwidth_gb_per_s, 1e-3, 1e6, "gpu.memory_bandwidth_gb_per_s", "GPU memory bandwidth", "GB/s", false},
      {c.gpu.memory_gib, 1e-3, 1e6, "gpu.memory_gib", "GPU memory capacity", "GiB", false},
      {c.gpu.kernel_overhead_us, 0, 1e6, "gpu.kernel_overhead_us", "kernel launch overhead", "us", true},
      {c.gpu.peak_tflops_tf32, 0, 1e6, "gpu.peak_tflops_tf32", "GPU TF32 peak (0: none)", "TFLOP/s", true},
      {c.gpu.peak_tflops_fp16, 0, 1e6, "gpu.peak_tflops_fp16", "GPU FP16/BF16 peak (0: unknown)", "TFLOP/s", true},
      {c.gpu.peak_tflops_fp8, 0, 1e6, "gpu.peak_tflops_fp8", "GPU FP8 peak (0: none)", "TFLOP/s", true},
      {c.intra_node.latency_us, 0, 1e7, "intra_node.latency_us", "intra-node latency", "us", true},
      {c.intra_node.bandwidth_gb_per_s, 1e-6, 1e6, "intra_node.bandwidth_gb_per_s", "intra-node bandwidth", "GB/s", false},
      {c.inter_node.latency_us, 0, 1e7, "inter_node.latency_us", "inter-node latency", "us", true},
      {c.inter_node.bandwidth_gb_per_s, 1e-6, 1e6, "inter_node.bandwidth_gb_per_s", "inter-node bandwidth", "GB/s", false},
      {c.gpu.matmul_efficiency, 1e-3, 1, "gpu.matmul_efficiency", "matrix-product efficiency (a share of the peak)", "", false},
      {c.gpu.matmul_half_gflop, 0, 1e9, "gpu.matmul_half_gflop", "matrix-product half-efficiency size (0: no curve)", "GFLOP", true},
      {c.gpu.memory_efficiency, 1e-3, 1, "gpu.memory_efficiency", "memory-bandwidth efficiency (a share)", "", false},
      {c.gpu.attention_score_passes, 0, 100, "gpu.attention_score_passes", "passes over attention scores (0: fused attention)", "", true},
      {c.intra_node.bus_efficiency, 1e-3, 1, "intra_node.bus_efficiency", "intra-node bus efficiency (a share)", "", false},
      {c.inter_node.bus_efficiency, 1e-3, 1, "inter_node.bus_efficiency", "inter-node bus efficiency (a share)", "", false},
  };
  for (const Check& k : checks)
    if (auto s = check_number(k.value, k.lo, k.hi, k.path, k.what, k.unit, k.zero_ok); !s.ok()) return s;
  return Ok{};
}

Result<std::pair<int, int>> parse_mesh_shape(const std::string& text, const std::string& arg_path) {
  size_t x = text.find('x');
  auto number = [](const std::string& s, int& out) {
    if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::atoi(s.c_str());
    return out >= 1;
  };
  int r = 0, c = 0;
  if (x == std::string::npos || !number(text.substr(0, x), r) || !number(text.substr(x + 1), c))
    return make_error("bad_value", "mesh '" + text + "' must be RxC with R, C >= 1, e.g. 2x4", arg_path);
  return std::make_pair(r, c);
}

std::vector<std::string> mesh_shapes(int devices) {
  std::vector<std::string> out;
  for (int r = 1; r <= devices; ++r)
    if (devices % r == 0) out.push_back(std::to_string(r) + "x" + std::to_string(devices / r));
  return out;
}

}  // namespace autopar
