// The cost model both planners and the simulator share: how long an op's kernels run on one GPU
// (a roofline of the peak at the precision in use and the memory bandwidth, each derated by the
// efficiency real kernels reach), and how long the optimizer step takes. The efficiencies live
// on GpuSpec (cluster.h), so an ideal GPU (every efficiency 1, no curve) prices exactly the
// plain roofline the lecture's arithmetic uses.
#pragma once
#include "cluster.h"
#include "graph.h"
#include "memory_model.h"

namespace autopar {

// Whether an op's FLOPs run as matrix multiplications (tensor cores, the efficiency curve):
// linear, convolutions, attention's two batched products, experts. Other kinds are elementwise
// or reductions, bound by memory traffic.
bool is_matmul_kind(OpKind k);

// Whether `k` runs its GEMMs in FP8 under an FP8 recipe: linear layers and experts (Transformer
// Engine's Linear, LayerNormLinear, LayerNormMLP and GroupedLinear). Attention's batched
// products stay in BF16 (TE's recipes leave fp8_dpa off), as do convolutions (TE has none).
bool runs_fp8_gemm(OpKind k);

// The peak `k`'s FLOPs run at on `g`, in FLOPs per millisecond, before efficiencies: the FP8
// peak for an FP8 GEMM under Precision::fp8 (runs_fp8_gemm), else the peak of the precision in
// use (GpuSpec::active_peak_tflops: BF16 under fp8).
double op_peak_flops_per_ms(const GpuSpec& g, OpKind k);

// The dense matrix-product peak of `g` at precision `p`, in FLOPs per millisecond, for a GEMM
// that the precision runs in its own type (an fp8 linear layer: the FP8 peak). The API the
// precision parser and tables call: matmul_peak_flops_per_ms(gpu, Precision::fp8).
double matmul_peak_flops_per_ms(const GpuSpec& g, Precision p);

// FLOPs per millisecond one kernel of `flops` reaches: the peak at the precision in use times
// matmul_efficiency * flops / (flops + half) for matrix products (half = matmul_half_gflop), the
// plain peak otherwise.
double achieved_flops_per_ms(const GpuSpec& g, double flops, bool matmul);

// The same for a kernel of op kind `k`: its peak is op_peak_flops_per_ms (FP8 for linear
// layers under fp8), its curve and efficiency those of matrix products when is_matmul_kind(k).
double achieved_flops_per_ms(const GpuSpec& g, double flops, OpKind k);

// Whether `g` runs attention fused (FlashAttention): a calibrated GPU (one with the GEMM size
// curve, matmul_half_gflop > 0) that makes no passes over the s x s scores. Its attention keeps
// no scores for the backward pass (saved_activations(op, true)); the plain roofline (lecture,
// p100, k80) keeps Korthikanti et al.'s textbook count.
bool fused_attention(const GpuSpec& g);

// Bytes per millisecond streaming kernels reach: memory bandwidth * memory_efficiency.
double achieved_bytes_per_ms(const GpuSpec& g);

// Memory traffic of one forward execution of `op` on one device doing `fraction` of its work:
// its inputs, parameters and output, plus (attention) the passes over its s x s score matrix
// that unfused attention makes (GpuSpec::attention_score_passes).
double op_forward_traffic_bytes(const GpuSpec& g, const Op& op, double fraction);

// One kernel's time: launch overhead + max(flops / achieved FLOPs, bytes / achieved bandwidth).
double kernel_ms(const GpuSpec& g, double flops, double bytes, bool matmul);

// The same for a kernel of op kind `k` (its peak follows the precision: FP8 GEMMs under fp8).
double kernel_ms(const GpuSpec& g, double flops, double bytes, OpKind k);

// The forward pass of `op` on a device doing `fraction` of its work (recomputation repeats it).
// Unfused attention's passes over its scores are timed apart and added (their own kernels).
double op_forward_ms(const GpuSpec& g, const Op& op, double fraction);

// Forward and backward of `op` priced as one roofline (Alpa's stage costs): two launches, the
// FLOPs of both passes at the efficiency of the forward kernel's size, and the backward's
// traffic twice the forward's (it reads the output gradient and writes two gradients); unfused
// attention's score passes (three times the forward's) are added, as in op_forward_ms.
double op_train_ms(const GpuSpec& g, const Op& op, double fraction);

// The optimizer step over `params` parameters held on one device: it streams the bytes the
// update reads and writes (optimizer_step_bytes) at the achieved memory bandwidth.
double optimizer_step_ms(const GpuSpec& g, double params, Optimizer opt, Precision p);

// Bytes one parameter's update reads and writes: Adam in mixed precision reads the FP32 master
// weight, both moments and the 16-bit gradient and writes the master, the moments and the
// 16-bit weight (4+4+4+2 + 4+4+4+2 = 28); FP32 Adam reads 4 words and writes 3 (28 as well);
// SGD with momentum (memory_model.h) reads weight, momentum and gradient and writes the first
// two (20 in either precision).
double optimizer_step_bytes(Optimizer opt, Precision p);

// The cluster a model trains on: a 16-bit model on a cluster left at FP32 runs in mixed
// precision (its matrix products on the FP16/BF16 peak), as frameworks train 16-bit models.
Cluster cluster_for_model(const Cluster& c, const Graph& g);

}  // namespace autopar
