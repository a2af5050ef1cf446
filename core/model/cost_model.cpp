// The shared cost model (cost_model.h). Constants and their sources are on the presets
// (cluster.cpp); this file only combines them.
#include "cost_model.h"

#include <algorithm>

namespace autopar {

bool is_matmul_kind(OpKind k) {
  return k == OpKind::linear || k == OpKind::conv1d || k == OpKind::conv2d || k == OpKind::attention || k == OpKind::moe;
}

bool runs_fp8_gemm(OpKind k) { return k == OpKind::linear || k == OpKind::moe; }

double op_peak_flops_per_ms(const GpuSpec& g, OpKind k) {
  return (runs_fp8_gemm(k) ? g.fp8_gemm_peak_tflops() : g.active_peak_tflops()) * 1e9;
}

double matmul_peak_flops_per_ms(const GpuSpec& g, Precision p) {
  GpuSpec at = g;
  at.precision = p;
  return at.fp8_gemm_peak_tflops() * 1e9;
}

namespace {

// The roofline's compute rate for a kernel of `flops` with peak `peak`: matrix products reach
// matmul_efficiency of it, less for kernels too small to fill the GPU.
double achieved_rate(const GpuSpec& g, double peak, double flops, bool matmul) {
  if (!matmul) return peak;
  // A GEMM of F FLOPs runs at matmul_efficiency x F / (F + half) of the peak: each kernel loses
  // about half / (matmul_efficiency x peak) of time to what does not scale with its size (its
  // partial last wave of tiles, the pipeline's fill and drain), so big GEMMs run nearer the
  // plateau than small or tensor-parallel-split ones (Megatron-LM's README: MFU rises from 41%
  // to 47-48% with model size "because larger GEMMs ... are more efficient to execute";
  // Calculon, Isaev et al. SC'23, prices matrix efficiency by a GEMM's GFLOPs the same way).
  const double half = g.matmul_half_gflop * 1e9;
  const double curve = half > 0 && flops > 0 ? flops / (flops + half) : 1.0;
  return peak * g.matmul_efficiency * curve;
}

// The part of `traffic` (op_forward_traffic_bytes of `op` at `fraction`) that unfused attention's
// passes over its s x s scores make: the scale-mask-softmax and dropout kernels Megatron-LM 2021
// runs between its two batched GEMMs, which stream the scores while no GEMM runs, so their time
// adds to the GEMMs' instead of hiding under them (Calculon, Isaev et al. SC'23, prices each
// layer's GEMM and streaming time apart and adds them, its "no_overlap" mode).
double score_pass_bytes(const Op& op, double traffic, double fraction) {
  return std::max(0.0, traffic - double(op.forward_bytes()) * fraction);
}

}  // namespace

double achieved_flops_per_ms(const GpuSpec& g, double flops, bool matmul) {
  return achieved_rate(g, g.peak_flops_per_ms(), flops, matmul);
}

double achieved_flops_per_ms(const GpuSpec& g, double flops, OpKind k) {
  return achieved_rate(g, op_peak_flops_per_ms(g, k), flops, is_matmul_kind(k));
}

bool fused_attention(const GpuSpec& g) { return g.attention_score_passes == 0 && g.matmul_half_gflop > 0; }

double achieved_bytes_per_ms(const GpuSpec& g) { return g.memory_bandwidth_bytes_per_ms() * g.memory_efficiency; }

double op_forward_traffic_bytes(const GpuSpec& g, const Op& op, double fraction) {
  double bytes = double(op.forward_bytes());
  if (op.spec.kind == OpKind::attention && g.attention_score_passes > 0 && op.inputs[0].shape.size() == 3) {
    auto it = op.spec.attrs.find("heads");
    const double heads = it == op.spec.attrs.end() ? 1.0 : double(it->second);
    const Shape& x = op.inputs[0].shape;
    const double scores = double(x[0]) * heads * double(x[1]) * double(x[1]);
    bytes += g.attention_score_passes * scores * double(dtype_bytes(op.output.dtype));
  }
  return bytes * fraction;
}

double kernel_ms(const GpuSpec& g, double flops, double bytes, bool matmul) {
  return g.kernel_overhead_ms() + std::max(flops / achieved_flops_per_ms(g, flops, matmul), bytes / achieved_bytes_per_ms(g));
}

double kernel_ms(const GpuSpec& g, double flops, double bytes, OpKind k) {
  return g.kernel_overhead_ms() + std::max(flops / achieved_flops_per_ms(g, flops, k), bytes / achieved_bytes_per_ms(g));
}

double op_forward_ms(const GpuSpec& g, const Op& op, double fraction) {
  const double traffic = op_forward_traffic_bytes(g, op, fraction), scores = score_pass_bytes(op, traffic, fraction);
  return kernel_ms(g, op.forward_flops * fraction, traffic - scores, op.spec.kind) + scores / achieved_bytes_per_ms(g);
}

double op_train_ms(const GpuSpec& g, const Op& op, double fraction) {
  const double forward = op.forward_flops * fraction;
  const double flops = (op.forward_flops + op.backward_flops) * fraction;
  const double rate = achieved_flops_per_ms(g, forward, op.spec.kind);
  const double traffic = op_forward_traffic_bytes(g, op, fraction), scores = score_pass_bytes(op, traffic, fraction);
  return 2 * g.kernel_overhead_ms() + std::max(flops / rate, 3.0 * (traffic - scores) / achieved_bytes_per_ms(g)) +
         3.0 * scores / achieved_bytes_per_ms(g);
}

double optimizer_step_bytes(Optimizer opt, Precision p) {
  // Both precisions move the same bytes (see cost_model.h): mixed precision trades 2 gradient
  // bytes for the 2 of the 16-bit weight copy it writes.
  (void)p;
  return opt == Optimizer::adam ? 28 : 20;
}

double optimizer_step_ms(const GpuSpec& g, double params, Optimizer opt, Precision p) {
  if (params <= 0) return 0;
  return g.kernel_overhead_ms() + params * optimizer_step_bytes(opt, p) / achieved_bytes_per_ms(g);
}

Cluster cluster_for_model(const Cluster& c, const Graph& g) {
  Cluster out = c;
  if (out.gpu.precision == Precision::fp32 && is_mixed_precision(training_precision(g))) out.gpu.precision = Precision::mixed;
  return out;
}

}  // namespace autopar
