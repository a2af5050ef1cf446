// The cluster model: nodes x GPUs, per-GPU throughput, memory bandwidth and capacity, and the
// latency and bandwidth of links inside a node and between nodes. Presets cite their sources.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "result.h"

namespace autopar {

// One kind of link, in the units of datasheets (kept as given, so files round-trip exactly).
struct LinkSpec {
  double latency_us = 0;
  double bandwidth_gb_per_s = 0;         // 1 GB = 1e9 bytes
  double bus_efficiency = 1;             // the share of it transfers and collectives reach (NCCL's bus bandwidth / link bandwidth)
  // Latency in milliseconds.
  double latency_ms() const { return latency_us * 1e-3; }
  // Bandwidth transfers reach, in bytes per millisecond.
  double bandwidth_bytes_per_ms() const { return bandwidth_gb_per_s * bus_efficiency * 1e6; }
  // Time to move `bytes` over this link: latency + bytes / bandwidth (FlexFlow's assumption A2).
  double transfer_ms(double bytes) const { return latency_ms() + bytes / bandwidth_bytes_per_ms(); }
  bool operator==(const LinkSpec& o) const {
    return latency_us == o.latency_us && bandwidth_gb_per_s == o.bandwidth_gb_per_s && bus_efficiency == o.bus_efficiency;
  }
};

// The arithmetic a training run uses, named as engines name it: plain FP32, FP32 storage with
// TF32 tensor-core matmuls, 16-bit mixed precision (BF16 or FP16 tensor-core matmuls, 16-bit
// activations and gradients, FP32 master weights; Micikevicius et al. 2018), or FP8 (Transformer
// Engine's recipe: the GEMMs of linear layers in FP8 on the FP8 tensor-core peak, everything else
// as in BF16 mixed precision). `mixed` is the 16-bit default, priced as bf16 (same peak); it keeps
// its own value so it prints back as "mixed".
enum class Precision { fp32, tf32, mixed, bf16, fp16, fp8 };
// "fp32", "tf32", "mixed", "bf16", "fp16" or "fp8".
const char* precision_name(Precision p);
// Parses a precision name (fp32, tf32, bf16, fp16, fp8, or mixed for the 16-bit default); nullopt when unknown.
std::optional<Precision> parse_precision(const std::string& name);
// The names parse_precision takes, for messages: "fp32, tf32, bf16, fp16, fp8 or mixed".
const char* precision_names();
// Whether a run in `p` keeps 16-bit weights, activations and gradients with an FP32 master copy
// (mixed, bf16, fp16 and fp8: FP8 recipes keep BF16 tensors between GEMMs and cast to FP8 inside
// them; Transformer Engine's fp8_autocast). fp32 and tf32 store FP32.
bool is_mixed_precision(Precision p);

// One GPU, in the units of datasheets.
struct GpuSpec {
  std::string model;                     // "Tesla P100 SXM2 16 GB"
  double peak_tflops = 0;                // dense FP32 peak, 1e12 FLOP/s
  double memory_bandwidth_gb_per_s = 0;
  double memory_gib = 0;
  double kernel_overhead_us = 0;         // fixed cost of launching one kernel
  double peak_tflops_tf32 = 0;           // dense TF32 tensor-core peak; 0: none (FP32 is used)
  double peak_tflops_fp16 = 0;           // dense FP16/BF16 peak (tensor cores where there are); 0: unknown
  double peak_tflops_fp8 = 0;            // dense FP8 tensor-core peak (sparsity excluded); 0: none (FP8 GEMMs run at the FP16/BF16 peak)
  Precision precision = Precision::fp32; // the precision in use: selects the peak below
  // What real kernels reach (cost_model.h); 1 and 0 give the plain roofline of the datasheet.
  double matmul_efficiency = 1;          // share of the peak large matrix products reach
  double matmul_half_gflop = 0;          // GFLOPs of a matrix-product kernel at which it reaches half of that (0: no size curve)
  double memory_efficiency = 1;          // share of the memory bandwidth streaming kernels reach
  double attention_score_passes = 0;     // passes over attention's s x s scores per forward (unfused attention; 0: not counted)
  // The peak of the precision in use for every kernel but FP8 GEMMs, in TFLOP/s (a missing peak
  // falls back to FP32's). Under fp8 this is the BF16 peak: the ops that stay in BF16.
  double active_peak_tflops() const {
    if (precision == Precision::tf32 && peak_tflops_tf32 > 0) return peak_tflops_tf32;
    if (is_mixed_precision(precision) && peak_tflops_fp16 > 0) return peak_tflops_fp16;
    return peak_tflops;
  }
  // The peak a GEMM that the precision runs in FP8 reaches, in TFLOP/s: the FP8 peak under fp8
  // (the FP16/BF16 peak on a GPU without FP8 tensor cores), active_peak_tflops() otherwise.
  double fp8_gemm_peak_tflops() const {
    if (precision == Precision::fp8 && peak_tflops_fp8 > 0) return peak_tflops_fp8;
    return active_peak_tflops();
  }
  // Peak throughput in FLOPs per millisecond, at the precision in use.
  double peak_flops_per_ms() const { return active_peak_tflops() * 1e9; }
  // Memory bandwidth in bytes per millisecond.
  double memory_bandwidth_bytes_per_ms() const { return memory_bandwidth_gb_per_s * 1e6; }
  // Memory capacity in bytes.
  double memory_capacity_bytes() const { return memory_gib * 1073741824.0; }
  // Kernel launch overhead in milliseconds.
  double kernel_overhead_ms() const { return kernel_overhead_us * 1e-3; }
  bool operator==(const GpuSpec& o) const {
    return model == o.model && peak_tflops == o.peak_tflops && memory_bandwidth_gb_per_s == o.memory_bandwidth_gb_per_s &&
           memory_gib == o.memory_gib && kernel_overhead_us == o.kernel_overhead_us && peak_tflops_tf32 == o.peak_tflops_tf32 &&
           peak_tflops_fp16 == o.peak_tflops_fp16 && peak_tflops_fp8 == o.peak_tflops_fp8 && precision == o.precision && matmul_efficiency == o.matmul_efficiency &&
           matmul_half_gflop == o.matmul_half_gflop && memory_efficiency == o.memory_efficiency &&
           attention_score_passes == o.attention_score_passes;
  }
};

// One NIC's link as each of `streams` transfers leaving a node with `nics` NICs at once sees it:
// the NIC's own while there are NICs enough, else the NICs shared (nics * bandwidth / streams).
LinkSpec shared_nic_link(const LinkSpec& nic, int nics, int streams);

// A homogeneous cluster. Devices are numbered node by node: device = node * gpus_per_node + gpu.
struct Cluster {
  std::string name;                      // preset name or the file's "name"
  int nodes = 1;
  int gpus_per_node = 1;
  GpuSpec gpu;
  LinkSpec intra_node;                   // between two GPUs of one node (one link per pair)
  LinkSpec inter_node;                   // one network NIC (port) of a node: its bandwidth per direction
  int nics_per_node = 0;                 // network NICs per node; 0: one per GPU (DGX-like nodes)
  std::string sources;                   // where the numbers come from
  std::string calibrated_by;             // the published runs its efficiencies are fitted on; empty: not calibrated
  // How training frameworks run on it (the calibrated presets; the lecture's arithmetic has neither):
  bool overlap_grad_sync = false;        // the data-parallel all-reduce overlaps the last backward pass (PyTorch DDP, XLA)
  bool optimizer_step = false;           // the optimizer step's time is priced (cost_model.h)
  // Total number of GPUs.
  int num_devices() const { return nodes * gpus_per_node; }
  // Node that holds device `d`.
  int node_of(int d) const { return d / gpus_per_node; }
  // The link used between devices a != b (between nodes: one NIC, whatever the node's NIC count).
  const LinkSpec& link_between(int a, int b) const { return node_of(a) == node_of(b) ? intra_node : inter_node; }
  // Network NICs per node: nics_per_node, or one per GPU when it is 0.
  int nics() const { return nics_per_node > 0 ? nics_per_node : gpus_per_node; }
  // The network as each of `streams` transfers leaving one node at once sees it: one NIC's
  // bandwidth while there are NICs enough, else the node's NICs shared (nics * NIC / streams).
  LinkSpec inter_node_shared(int streams) const;
  // Whether a published run calibrates the efficiencies (calibrated_by is not empty).
  bool calibrated() const { return !calibrated_by.empty(); }
  bool operator==(const Cluster& o) const {
    return name == o.name && nodes == o.nodes && gpus_per_node == o.gpus_per_node && gpu == o.gpu &&
           intra_node == o.intra_node && inter_node == o.inter_node && nics() == o.nics() &&
           overlap_grad_sync == o.overlap_grad_sync && optimizer_step == o.optimizer_step;
  }
};

// A named preset with its default shape.
struct ClusterPreset {
  std::string name;
  std::string description;
  int default_nodes;
  int default_gpus_per_node;
  Cluster cluster;                       // with the default shape
};

// Largest cluster accepted: 131,072 GPUs (16,384 nodes of 8; Llama 3 trained on 16,384 H100s).
constexpr int kMaxDevices = 131072;
// Most GPUs one node may hold (an NVLink domain: GB200 NVL72 joins 72; validate_cluster checks
// it, the page clamps to it).
constexpr int kMaxGpusPerNode = 72;
// Most network NICs one node may hold.
constexpr int kMaxNicsPerNode = 1024;

// The presets, in a fixed order: lecture, p100, k80, v100, a100, h100, h200, b200, gb200.
const std::vector<ClusterPreset>& cluster_presets();

// What the efficiencies mean, written from the numbers themselves: "matrix products 67% of the
// tensor-core peak, ...", with whether a published run calibrates them (calibrated_by) or not;
// the plain datasheet roofline when every efficiency is 1. `autopar clusters`, cluster JSON's
// "note" and the page show it.
std::string efficiency_note(const Cluster& c);

// Checks every number is finite, positive and within bounds; errors name the JSON path.
Status validate_cluster(const Cluster& c);

// A logical device mesh's shape over a cluster's devices is "RxC": R rows of C devices (Alpa's
// 2-D mesh; the planner's mesh with its links is core/alpa/device_mesh.h).
// Parses "RxC" (both whole numbers, at least 1); errors name `arg_path`.
Result<std::pair<int, int>> parse_mesh_shape(const std::string& text, const std::string& arg_path = "--mesh");
// Every mesh shape "RxC" with R*C == devices, R ascending.
std::vector<std::string> mesh_shapes(int devices);

}  // namespace autopar
