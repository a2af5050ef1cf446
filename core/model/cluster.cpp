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

// The same with the dense FP8 tensor-core peak (Hopper and later).
GpuSpec gpu_with(GpuSpec g, double tf32_tflops, double fp16_tflops, double fp8_tflops) {
  g = gpu_with(g, tf32_tflops, fp16_tflops);
  g.peak_tflops_fp8 = fp8_tflops;
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

// The same cluster with `nics` network NICs per node (nodes that share fewer NICs than GPUs).
Cluster with_nics(Cluster c, int nics) {
  c.nics_per_node = nics;
  return c;
}

// The same cluster with its efficiencies fitted on `runs`.
Cluster calibrated_on(Cluster c, const std::string& runs) {
  c.calibrated_by = runs;
  return c;
}

// The calibrated presets' efficiencies (README, "The cost model", says which runs fit which).
// Matrix products: matmul_efficiency is the plateau big GEMMs reach, a GEMM of F FLOPs reaching
// F / (F + kHalfGflop x 1e9) of it (cost_model.cpp: a fixed loss per kernel, Megatron-LM's
// README and Calculon (Isaev et al., SC'23) on GEMM efficiency rising with size). kHalfGflop and
// the A100 plateau were fitted together (least mean |error|) on Megatron-LM's SC'21 Table 1 runs
// and Korthikanti et al. 2022's four full-recomputation rows of Table 5 (validate's megatron-*
// and korthikanti-*-full); the four SP + selective rows of that table are held out. The A100
// plateau was refitted alone (0.73 -> 0.72, the curve kept) on the same 11 rows once pipeline
// boundaries stopped overcharging deep, wide plans (README, "The A100 refit": the procedure and
// the joint fit's figures). V100's plateau is fitted on Alpa's benchmark run with the same curve.
constexpr double kMatmulA100 = 0.72, kMatmulV100 = 0.51;
// H100 SXM: fitted on one run, NeMo 24.07's GPT-3 175B in FP8 on 128 H100 (NVIDIA/NeMo
// docs/source/performance/performance_summary.md, 726 tokens/s/GPU; validate's nemo-gpt3-175b-128):
// the plateau the GEMMs reach, BF16 and FP8 alike (under fp8, of the FP8 peak), with A100's curve.
constexpr double kMatmulH100 = 0.56;
// Half the plateau at 10 GFLOP per GEMM kernel (fitted, above): 45 us at A100's 0.72 x 312
// TFLOP/s, under half a wave of a tensor-parallel layer's GEMM (a 22B layer's QKV GEMM at t = 8,
// 232 GFLOP, runs 1.1 ms in 5.3 waves of 128 x 256 tiles over 108 SMs; NVIDIA's "Matrix
// Multiplication Background User's Guide", wave quantization).
constexpr double kHalfGflop = 10;
// Streaming kernels reach about 85% of the datasheet HBM bandwidth (BabelStream's copy/triad on
// V100 and A100; Deakin et al., "Evaluating attainable memory bandwidth", PMBS 2018).
constexpr double kMemoryEfficiency = 0.85;
// Megatron-LM 2021's attention: QK^T writes the scores, its fused scale-mask-softmax reads and
// writes them, dropout reads and writes them, and the product with V reads them: 6 passes.
constexpr double kScorePasses = 6;
// NCCL all-reduce bus bandwidth over NVLink/NVSwitch reaches ~78% of the link (nccl-tests on
// DGX A100: ~230 of 300 GB/s), over InfiniBand ~90% (~22.5 of 25 GB/s per NIC).
constexpr double kNvlinkBus = 0.78, kNetworkBus = 0.90;
const char* const kMegatronFit = "Megatron-LM's SC'21 Table 1 runs (Narayanan et al. 2021) and Korthikanti et al. 2022's full-recomputation runs on DGX A100";
const char* const kH100Fit = "NeMo 24.07's GPT-3 175B FP8 run on 128 H100 (NVIDIA/NeMo performance summary; matrix products only)";
const char* const kAlpaFit = "Alpa's benchmark run on one p3.16xlarge (alpa-projects/alpa, benchmark/alpa/README.md)";

std::vector<ClusterPreset> build_presets() {
  std::vector<ClusterPreset> p;
  // A CUDA kernel launch costs a few microseconds (NVIDIA CUDA C++ Best Practices Guide,
  // "kernel launch overhead"); 5 us is used for every preset.
  const double launch = 5;

  // lecture: the teaching cluster the lecture's demos use. P100 GPUs (datasheet below) in
  // nodes joined by PCIe-class links, and a commodity 10 Gb/s Ethernet network between nodes,
  // slower than the FlexFlow paper's InfiniBand (lecture 4.2: "网卡更慢"): one NIC per node.
  p.push_back({"lecture", "the lecture's teaching cluster: P100 GPUs, 16 GB/s in a node, one 10 GbE NIC per node", 2, 4,
               with_nics(make("lecture", 2, 4, gpu_with({"Tesla P100 SXM2 16 GB", 10.6, 732, 16, launch}, 0, 21.2),
                              {10, 16}, {50, 1.25},
                              "GPU: NVIDIA Tesla P100 datasheet (10.6 TFLOP/s FP32, 21.2 FP16, no tensor cores, 732 GB/s HBM2, 16 GB). "
                              "Intra-node: PCIe 3.0 x16, 15.75 GB/s per direction (PCI-SIG), rounded to 16. "
                              "Inter-node: one 10 Gb/s Ethernet NIC per node = 1.25 GB/s (IEEE 802.3ae); 50 us TCP round trip."),
                         1)});
  // p100: the FlexFlow paper's P100 cluster (Jia et al., MLSys 2019, section 8: 4 P100 per node
  // with NVLink, nodes over 100 Gb/s EDR InfiniBand, one NIC per node).
  p.push_back({"p100", "FlexFlow paper's P100 cluster: 4 x P100 per node, NVLink, one 100 Gb/s EDR InfiniBand NIC per node", 4, 4,
               with_nics(make("p100", 4, 4, gpu_with({"Tesla P100 SXM2 16 GB", 10.6, 732, 16, launch}, 0, 21.2),
                              {5, 20}, {10, 12.5},
                              "GPU: NVIDIA Tesla P100 datasheet (10.6 TFLOP/s FP32, 21.2 FP16, 732 GB/s, 16 GB). "
                              "Intra-node: one NVLink 1.0 link, 20 GB/s per direction (NVIDIA P100 whitepaper). "
                              "Inter-node: one EDR InfiniBand 100 Gb/s NIC per node = 12.5 GB/s (FlexFlow paper, section 8). "
                              "Latencies: order of the P2P/IB latencies measured by Li et al., 'Evaluating Modern GPU "
                              "Interconnect', IEEE TPDS 2019."),
                         1)});
  // k80: the FlexFlow paper's K80 cluster (4 K80 GPUs per node over PCIe, 56 Gb/s FDR InfiniBand).
  p.push_back({"k80", "FlexFlow paper's K80 cluster: 4 x K80 per node, PCIe, one 56 Gb/s FDR InfiniBand NIC per node", 4, 4,
               with_nics(make("k80", 4, 4, gpu_with({"Tesla K80 (one GK210 GPU)", 4.37, 240, 12, launch}, 0, 4.37),
                              {10, 15.75}, {10, 7},
                              "GPU: NVIDIA Tesla K80 datasheet, per GPU of the two on a board (8.74 TFLOP/s FP32 boost, "
                              "480 GB/s, 24 GB per board; Kepler has no faster FP16 path). Intra-node: PCIe 3.0 x16, 15.75 GB/s (PCI-SIG). "
                              "Inter-node: one FDR InfiniBand 56 Gb/s NIC per node = 7 GB/s (FlexFlow paper, section 8)."),
                         1)});
  // v100: the Alpa paper's cluster (Zheng et al., OSDI 2022, section 8: AWS p3.16xlarge,
  // 8 V100 16 GB with NVLink per node, 25 Gb/s between nodes: one network interface per instance).
  p.push_back({"v100", "Alpa paper's cluster: AWS p3.16xlarge, 8 x V100 per node, NVLink, one 25 Gb/s network interface per node", 8, 8,
               calibrated_on(with_nics(framework_run(make("v100", 8, 8, calibrated(gpu_with({"Tesla V100 SXM2 16 GB", 15.7, 900, 16, launch}, 0, 125),
                                                                                  kMatmulV100, kHalfGflop, kMemoryEfficiency, kScorePasses),
                    link(5, 150, kNvlinkBus), link(20, 3.125, kNetworkBus),
                    "GPU: NVIDIA Tesla V100 datasheet (15.7 TFLOP/s FP32, 125 FP16 tensor core, no TF32, 900 GB/s, 16 GB). "
                    "Intra-node: NVLink 2.0, 6 links x 25 GB/s per direction per GPU (V100 whitepaper). "
                    "Inter-node: one 25 Gb/s interface per instance = 3.125 GB/s, shared by its 8 GPUs (AWS p3.16xlarge; Alpa paper, section 8).")),
                                       1),
                             kAlpaFit)});
  // a100: DGX A100 (NVSwitch inside a node, one 200 Gb/s HDR InfiniBand NIC per GPU).
  p.push_back({"a100", "DGX A100: 8 x A100 80 GB per node, NVSwitch, 8 x 200 Gb/s HDR InfiniBand", 1, 8,
               calibrated_on(framework_run(make("a100", 1, 8, calibrated(gpu_with({"A100 SXM4 80 GB", 19.5, 2039, 80, launch}, 156, 312),
                                                                        kMatmulA100, kHalfGflop, kMemoryEfficiency, kScorePasses),
                    link(3, 300, kNvlinkBus), link(5, 25, kNetworkBus),
                    "GPU: NVIDIA A100 datasheet (19.5 TFLOP/s FP32, 156 TF32 and 312 FP16/BF16 tensor core, dense; 2,039 GB/s HBM2e, 80 GB). "
                    "Intra-node: NVLink 3 via NVSwitch, 600 GB/s bidirectional = 300 GB/s per direction. "
                    "Inter-node: one HDR InfiniBand 200 Gb/s NIC per GPU = 25 GB/s (DGX A100 datasheet).")),
                             kMegatronFit)});
  // h100: DGX H100 (NVLink 4 via NVSwitch, one 400 Gb/s NDR InfiniBand NIC per GPU). Its matrix
  // efficiency is fitted on one H100 run (kMatmulH100), the other efficiencies are A100's
  // measured figures; attention is fused (FlashAttention, Dao et al. 2022, keeps the scores on chip).
  // H100 SXM5 datasheet: FP32 67 TFLOP/s; tensor core TF32 989, BF16/FP16 1,979 and FP8 3,958
  // TFLOP/s with sparsity, half of each dense (494.7, 989.4, 1,978.9; the datasheet's footnote
  // "Shown with sparsity. Specifications 1/2 lower without sparsity"); 3.35 TB/s HBM3, 80 GB.
  const GpuSpec h100_gpu = calibrated(gpu_with({"H100 SXM5 80 GB", 67, 3350, 80, launch}, 494.7, 989.4, 1978.9),
                                      kMatmulH100, kHalfGflop, kMemoryEfficiency, 0);
  p.push_back({"h100", "DGX H100: 8 x H100 80 GB per node, NVSwitch, 8 x 400 Gb/s NDR InfiniBand", 1, 8,
               calibrated_on(framework_run(make("h100", 1, 8, h100_gpu, link(3, 450, kNvlinkBus), link(5, 50, kNetworkBus),
                    "GPU: NVIDIA H100 SXM5 datasheet (67 TFLOP/s FP32; tensor core TF32 989, FP16/BF16 1,979 and FP8 3,958 with sparsity, "
                    "so 494.7, 989.4 and 1,978.9 dense; 3.35 TB/s HBM3, 80 GB). "
                    "Intra-node: NVLink 4 via NVSwitch, 900 GB/s bidirectional = 450 GB/s per direction. "
                    "Inter-node: one NDR InfiniBand 400 Gb/s NIC per GPU = 50 GB/s (DGX H100 datasheet).")),
                             kH100Fit)});
  // h200: DGX H200. The same GH100 compute as H100 SXM (NVIDIA H200 datasheet: FP8 3,958 and
  // BF16 1,979 TFLOP/s with sparsity, as H100 SXM), 141 GB of HBM3e at 4.8 TB/s; NVLink 4 and
  // eight 400 Gb/s ConnectX-7 NICs as DGX H100 (DGX BasePOD reference architecture, "NVIDIA DGX
  // H200 and H100 Systems": 1,128 GB of GPU memory, eight single-port ConnectX-7 up to 400 Gb/s).
  GpuSpec h200_gpu = h100_gpu;
  h200_gpu.model = "H200 SXM 141 GB";
  h200_gpu.memory_bandwidth_gb_per_s = 4800;
  h200_gpu.memory_gib = 141;
  p.push_back({"h200", "DGX H200: 8 x H200 141 GB per node, NVSwitch, 8 x 400 Gb/s NDR InfiniBand", 1, 8,
               framework_run(make("h200", 1, 8, h200_gpu, link(3, 450, kNvlinkBus), link(5, 50, kNetworkBus),
                    "GPU: NVIDIA H200 datasheet (H100 SXM's compute: 67 TFLOP/s FP32, dense tensor core TF32 494.7, FP16/BF16 989.4, "
                    "FP8 1,978.9 (half the with-sparsity figures); 141 GB HBM3e at 4.8 TB/s). "
                    "Intra-node: NVLink 4 via NVSwitch, 900 GB/s bidirectional = 450 GB/s per direction. "
                    "Inter-node: one ConnectX-7 400 Gb/s NIC per GPU = 50 GB/s (DGX BasePOD reference architecture, DGX H200)."))});
  // b200: DGX/HGX B200 at 1,000 W. Dense tensor-core peaks per GPU (NVIDIA Blackwell datasheet,
  // HGX B200 column, the with-sparsity figures halved: TF32 2.2 -> 1.1, FP16/BF16 4.5 -> 2.25,
  // FP8 9 -> 4.5 PFLOP/s; FP32 80 TFLOP/s), 180 GB HBM3e per GPU (DGX B200 user guide: "8 x
  // NVIDIA B200 GPUs that provide 1,440 GB total GPU memory") at 8 TB/s; NVLink 5, 1.8 TB/s per
  // GPU bidirectional; 8 single-port ConnectX-7 up to 400 Gb/s (DGX B200 user guide).
  const GpuSpec b200_gpu = calibrated(gpu_with({"B200 (HGX, 1000 W) 180 GB", 80, 8000, 180, launch}, 1100, 2250, 4500),
                                      kMatmulA100, kHalfGflop, kMemoryEfficiency, 0);
  p.push_back({"b200", "DGX B200: 8 x B200 180 GB per node, NVLink 5, 8 x 400 Gb/s NDR InfiniBand", 1, 8,
               framework_run(make("b200", 1, 8, b200_gpu, link(3, 900, kNvlinkBus), link(5, 50, kNetworkBus),
                    "GPU: NVIDIA Blackwell datasheet, HGX B200 (dense: 80 TFLOP/s FP32, tensor core TF32 1,100, FP16/BF16 2,250, FP8 4,500; "
                    "half the with-sparsity figures); 180 GB HBM3e at 8 TB/s (DGX B200: 1,440 GB over 8 GPUs). "
                    "Intra-node: NVLink 5 via NVSwitch, 1.8 TB/s bidirectional = 900 GB/s per direction. "
                    "Inter-node: one ConnectX-7 400 Gb/s NIC per GPU = 50 GB/s (DGX B200 user guide)."))});
  // gb200: GB200 NVL72, one rack of 72 Blackwell GPUs in one NVLink domain: the preset's node is
  // the rack. Per GPU (NVIDIA Blackwell datasheet, GB200 NVL72 column at 1,200 W, with-sparsity
  // figures halved): FP32 90 TFLOP/s, tensor core TF32 1,250, FP16/BF16 2,500, FP8 5,000 (the
  // rack's 720 PFLOP/s FP8 training figure is 72 x 10 with sparsity); 13.4 TB HBM3e per rack =
  // 186 GB per GPU at 8 TB/s; NVLink 5 at 1.8 TB/s per GPU between all 72 (130 TB/s per rack).
  // Between racks NDR 400 Gb/s InfiniBand (DGX SuperPOD GB200 reference architecture), one
  // ConnectX-7 per GPU (4 per compute tray of 4 GPUs; DGX GB200 user guide, "Compute Trays").
  const GpuSpec gb200_gpu = calibrated(gpu_with({"B200 in GB200 NVL72 (1200 W) 186 GB", 90, 8000, 186, launch}, 1250, 2500, 5000),
                                       kMatmulA100, kHalfGflop, kMemoryEfficiency, 0);
  p.push_back({"gb200", "GB200 NVL72: 72 Blackwell GPUs per rack in one NVLink domain, NDR InfiniBand between racks", 1, 72,
               framework_run(make("gb200", 1, 72, gb200_gpu, link(3, 900, kNvlinkBus), link(5, 50, kNetworkBus),
                    "GPU: NVIDIA Blackwell datasheet, GB200 NVL72 (per GPU, dense: 90 TFLOP/s FP32, tensor core TF32 1,250, FP16/BF16 2,500, "
                    "FP8 5,000; half the with-sparsity figures; 720 PFLOP/s FP8 per rack with sparsity); 13.4 TB HBM3e per rack = 186 GB "
                    "per GPU at 8 TB/s. Node = one NVL72 rack: NVLink 5 via NVLink Switch between all 72 GPUs, 1.8 TB/s bidirectional "
                    "= 900 GB/s per direction (130 TB/s per rack). Inter-node (between racks): one NDR InfiniBand 400 Gb/s NIC per GPU "
                    "= 50 GB/s (DGX SuperPOD GB200 reference architecture)."))});
  return p;
}

// "67%" from 0.67: the share as a whole percentage (one decimal when it is not whole).
std::string percent_text(double share) {
  char buf[32];
  const double pct = share * 100;
  std::snprintf(buf, sizeof buf, std::fabs(pct - std::round(pct)) < 1e-9 ? "%.0f%%" : "%.1f%%", pct);
  return buf;
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
    return make_error(ErrorCode::bad_value, what + " must be a finite number", path);
  if ((zero_ok ? v < 0 : v <= 0))
    return make_error(ErrorCode::out_of_range, what + " must be " + (zero_ok ? "zero or positive" : "positive") + ", not " +
                                          short_number(v), path);
  if (v < lo || v > hi)
    return make_error(ErrorCode::out_of_range, what + " is " + short_number(v) + " " + unit + "; it must be between " +
                                          short_number(lo) + " and " + short_number(hi) + " " + unit, path);
  return Ok{};
}

}  // namespace

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::mixed: return "mixed";
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp8: return "fp8";
  }
  return "fp32";
}

std::optional<Precision> parse_precision(const std::string& name) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::mixed, Precision::bf16, Precision::fp16, Precision::fp8})
    if (name == precision_name(p)) return p;
  // The names engines use for 16-bit mixed precision (Megatron-LM --bf16 / --fp16, PyTorch AMP
  // dtypes): the same tensor-core peak and the same 2 + 2 + 12 bytes per Adam parameter.
  if (name == "bf16" || name == "fp16") return Precision::mixed;
  return std::nullopt;
}

const char* precision_names() { return "fp32, tf32, bf16, fp16, fp8 or mixed"; }

bool is_mixed_precision(Precision p) {
  return p == Precision::mixed || p == Precision::bf16 || p == Precision::fp16 || p == Precision::fp8;
}

LinkSpec shared_nic_link(const LinkSpec& nic, int nics, int streams) {
  LinkSpec l = nic;
  if (streams > nics && nics > 0) l.bandwidth_gb_per_s *= double(nics) / double(streams);
  return l;
}

LinkSpec Cluster::inter_node_shared(int streams) const { return shared_nic_link(inter_node, nics(), streams); }

std::string efficiency_note(const Cluster& c) {
  const GpuSpec& g = c.gpu;
  const GpuSpec ideal;
  const bool roofline = g.matmul_efficiency == ideal.matmul_efficiency && g.matmul_half_gflop == ideal.matmul_half_gflop &&
                        g.memory_efficiency == ideal.memory_efficiency && c.intra_node.bus_efficiency == 1 &&
                        c.inter_node.bus_efficiency == 1;
  std::string note;
  if (roofline) {
    note = "Not calibrated: the plain datasheet roofline (every efficiency 1), as the lecture's arithmetic.";
  } else {
    note = c.calibrated() ? "Calibrated: efficiencies fitted on " + c.calibrated_by + "."
                          : std::string("Not calibrated: no published run on this GPU fits these efficiencies (the presets borrow "
                                        "those of a calibrated GPU: H100's for H200, which shares its compute; A100's, fitted on "
                                        "Megatron-LM's SC'21 Table 1 and Korthikanti et al.'s full-recomputation runs, for the others, until runs on the GPU are in validate).");
    note += " Matrix products reach " + percent_text(g.matmul_efficiency) + " of the tensor-core peak";
    if (g.matmul_half_gflop > 0)
      note += ", half of that at " + short_number(g.matmul_half_gflop) + " GFLOP per kernel (a fixed loss per GEMM, fitted with the A100 rows)";
    note += "; streaming kernels " + percent_text(g.memory_efficiency) + " of the memory bandwidth (BabelStream)";
    note += "; NCCL bus bandwidth " + percent_text(c.intra_node.bus_efficiency) + " of the intra-node link and " +
            percent_text(c.inter_node.bus_efficiency) + " of the network (nccl-tests).";
  }
  if (g.attention_score_passes > 0)
    note += " Attention is unfused: " + short_number(g.attention_score_passes) + " passes over its s x s scores (Megatron-LM 2021).";
  else if (!roofline)
    note += " Attention is fused (FlashAttention, Dao et al. 2022, keeps the scores on chip).";
  if (g.peak_tflops_fp8 > 0)
    note += " Under fp8 the linear layers' GEMMs run at the FP8 peak at the same efficiency; attention's batched products, "
            "softmax, normalisation and elementwise ops stay at BF16 (Transformer Engine's recipes: fp8_dpa and fp8_mha off by default).";
  return note;
}

const std::vector<ClusterPreset>& cluster_presets() {
  static const std::vector<ClusterPreset> presets = build_presets();
  return presets;
}

Status validate_cluster(const Cluster& c) {
  if (c.nodes < 1 || c.nodes > kMaxDevices)
    return make_error(ErrorCode::out_of_range, "nodes is " + std::to_string(c.nodes) + "; it must be between 1 and " + std::to_string(kMaxDevices), "nodes");
  if (c.gpus_per_node < 1 || c.gpus_per_node > kMaxGpusPerNode)
    return make_error(ErrorCode::out_of_range, "gpus_per_node is " + std::to_string(c.gpus_per_node) + "; it must be between 1 and " +
                                          std::to_string(kMaxGpusPerNode), "gpus_per_node");
  if (int64_t(c.nodes) * c.gpus_per_node > kMaxDevices)
    return make_error(ErrorCode::too_large, "the cluster has " + std::to_string(int64_t(c.nodes) * c.gpus_per_node) +
                                       " GPUs; at most " + std::to_string(kMaxDevices) + " are supported", "nodes");
  if (c.nics_per_node < 0 || c.nics_per_node > kMaxNicsPerNode)
    return make_error(ErrorCode::out_of_range, "nics_per_node is " + std::to_string(c.nics_per_node) + "; it must be between 1 and " +
                                          std::to_string(kMaxNicsPerNode) + " (or 0 for one per GPU)", "inter_node.nics_per_node");
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
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::atoi(s.c_str());
    return out >= 1;
  };
  int r = 0, c = 0;
  if (x == std::string::npos || !number(text.substr(0, x), r) || !number(text.substr(x + 1), c))
    return make_error(ErrorCode::bad_value, "mesh '" + text + "' must be RxC with R, C >= 1, e.g. 2x4", arg_path);
  return std::make_pair(r, c);
}

std::vector<std::string> mesh_shapes(int devices) {
  std::vector<std::string> out;
  for (int r = 1; r <= devices; ++r)
    if (devices % r == 0) out.push_back(std::to_string(r) + "x" + std::to_string(devices / r));
  return out;
}

}  // namespace autopar
