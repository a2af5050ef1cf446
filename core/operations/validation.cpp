// The published runs `validate` checks, and the check. Sources are given per run.
#include "validation.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "cluster_spec.h"
#include "knob_search.h"
#include "memory_model.h"
#include "models.h"
#include "report_text.h"

namespace autopar {

namespace {

// The shape a run's FLOPs formula reads.
void set_formula_shape(PublishedRun& r, int64_t batch, int64_t seq, int64_t layers, int64_t hidden, int64_t vocab) {
  r.batch = batch;
  r.seq = seq;
  r.layers = layers;
  r.hidden = hidden;
  r.vocab = vocab;
}

// Megatron-LM's Table 1 (Narayanan et al., "Efficient Large-Scale Language Model Training on
// GPU Clusters Using Megatron-LM", SC'21): the shapes, t, p, micro-batch size, global batch and
// node count of its examples/sc21/run_table_1.sh, the TFLOP/s per GPU of its Table 1 (and the
// repository's README), on DGX A100 80 GB nodes (Selene: 8 GPUs, 8 HDR InfiniBand NICs per
// node), sequences of 2048 tokens, a vocabulary of 51,200, mixed precision, full recomputation.
PublishedRun megatron(const std::string& size, int64_t layers, int64_t hidden, int64_t heads, int tensor, int pipeline, int mbs,
                      int64_t global_batch, int nodes, int interleave, bool torch_ddp, double tflops) {
  PublishedRun r;
  r.name = "megatron-" + size;
  const int gpus = nodes * 8;
  r.label = "Megatron-LM GPT " + size + ", " + std::to_string(gpus) + " A100";
  r.source = "Narayanan et al., SC'21, Table 1 (" + fmt("%g", tflops) + " TFLOP/s per GPU); plan from Megatron-LM examples/sc21/run_table_1.sh";
  r.model = "transformer:layers=" + std::to_string(layers) + ",batch=" + std::to_string(global_batch) + ",seq=2048,hidden=" +
            std::to_string(hidden) + ",heads=" + std::to_string(heads) + ",vocab=51200";
  r.cluster = "a100:" + std::to_string(nodes) + "x8,precision=mixed";
  r.plan.tensor = tensor;
  r.plan.pipeline = pipeline;
  r.plan.data = gpus / (tensor * pipeline);
  r.plan.micro_batch_size = mbs;
  r.plan.interleave = interleave;
  // Its runs up to 18B use PyTorch's DDP (all-reduce overlapped with the backward pass); the
  // larger ones Megatron-LM's "local" DDP, which reduces after the backward pass.
  r.overlap_grad_sync = torch_ddp;
  r.measured_tflops = tflops;
  set_formula_shape(r, global_batch, 2048, layers, hidden, 51200);
  r.fitted = true;
  r.fit_note = "A100 matmul_efficiency 0.72 and matmul_half_gflop 10 were fitted on the 7 Megatron-LM SC'21 rows and Korthikanti's 4 full-recomputation rows";
  return r;
}

// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models"
// (arXiv 2205.05198), Table 5 (shapes from its Table 3): Selene, DGX A100 80 GB, 8 per node with
// NVSwitch and 8 x 200 Gb/s HDR InfiniBand (the a100 preset's network), mixed precision, s = 2048,
// V = 51,200, t = 8, d = 1, iteration seconds as published; "full" is full recomputation without
// sequence parallelism, "SP + selective" sequence parallelism with selective recomputation.
// The four full-recomputation rows are fitted (the A100 plateau and the GEMM size curve's
// half-size were fitted on them with Megatron-LM's SC'21 rows); the four SP + selective rows are
// held out: they test sequence parallelism and selective recomputation on the same shapes.
PublishedRun korthikanti(const std::string& size, int64_t heads, int64_t hidden, int64_t layers, int pipeline, int interleave,
                         int64_t global_batch, int mbs, bool sp_selective, double seconds) {
  PublishedRun r;
  r.name = "korthikanti-" + size + (sp_selective ? "-sp-sel" : "-full");
  const int gpus = 8 * pipeline;
  r.label = "Korthikanti GPT " + size + (sp_selective ? " SP+selective, " : " full RC, ") + std::to_string(gpus) + " A100";
  r.source = "Korthikanti et al. 2022, arXiv 2205.05198, Table 5 (" + fmt("%g", seconds) + " s per iteration, " +
             (sp_selective ? "SP + selective" : "full recompute") + ")";
  r.model = "transformer:layers=" + std::to_string(layers) + ",batch=" + std::to_string(global_batch) + ",seq=2048,hidden=" +
            std::to_string(hidden) + ",heads=" + std::to_string(heads) + ",vocab=51200";
  r.cluster = "a100:" + std::to_string(pipeline) + "x8,precision=mixed";
  r.plan.tensor = 8;
  r.plan.pipeline = pipeline;
  r.plan.data = 1;
  r.plan.micro_batch_size = mbs;
  r.plan.interleave = interleave;
  r.plan.sequence_parallel = sp_selective;
  r.plan.recompute = sp_selective ? Recompute::selective : Recompute::full;
  r.overlap_grad_sync = false;   // d = 1: no data-parallel gradient sync to overlap
  r.measured_s = seconds;
  set_formula_shape(r, global_batch, 2048, layers, hidden, 51200);
  r.fitted = !sp_selective;
  r.fit_note = sp_selective ? "held out: no constant fitted on it"
                            : "A100 matmul_efficiency 0.72 and matmul_half_gflop 10 were fitted on this row with the SC'21 rows";
  return r;
}

// A run of Alpa's benchmarks on one AWS p3.16xlarge (8 V100 16 GB, fp16; XLA overlaps the
// gradient all-reduce with the backward pass).
PublishedRun alpa_p3_run(const std::string& name, const std::string& label, const std::string& source, const std::string& model, int tensor,
                         int pipeline, int data, int mbs) {
  PublishedRun r;
  r.name = name;
  r.label = label;
  r.source = source;
  r.model = model;
  r.cluster = "v100:1x8,precision=mixed";
  r.plan.tensor = tensor;
  r.plan.pipeline = pipeline;
  r.plan.data = data;
  r.plan.micro_batch_size = mbs;
  r.overlap_grad_sync = true;
  return r;
}

// A run of NVIDIA's published recipe tables on DGX H100 (8 H100 SXM 80 GB per node, NVSwitch,
// 8 x 400 Gb/s NDR InfiniBand: the h100 preset), measured in tokens/s per GPU; iteration seconds
// = B x s / (tokens/s/GPU x GPUs). FP8 is Transformer Engine's: the linear layers' GEMMs in
// FP8, attention in BF16 (the fp8 precision's model).
PublishedRun h100_recipe(const std::string& name, const std::string& label, const std::string& source, int gpus, const std::string& precision,
                         double tokens_per_gpu) {
  PublishedRun r;
  r.name = name;
  r.label = label;
  r.source = source;
  r.cluster = "h100:" + std::to_string(gpus / 8) + "x8,precision=" + precision;
  r.measured_tokens_per_gpu = tokens_per_gpu;
  r.overlap_grad_sync = true;   // Megatron's distributed optimizer overlaps its gradient reduce-scatter (overlap_grad_sync)
  r.fit_note = "held out: no constant fitted on it";
  return r;
}

// GPT-3 175B on DGX H100 in FP8 (NVIDIA/NeMo docs/source/performance/performance_summary.md,
// NeMo 24.07, "System: DGX-H100"): t = 4, p = 8, v = 6, micro-batch 1 (128 GPUs, B = 256) or 2
// (512 GPUs, B = 2048); the recipe (NeMo-Framework-Launcher conf/training/gpt3/175b.yaml):
// sequence parallelism, selective recomputation, the distributed optimizer (distributed_fused_adam)
// with overlapped gradient and parameter syncs.
PublishedRun nemo_gpt3_175b(int gpus, int64_t batch, int mbs, double tokens_per_gpu) {
  PublishedRun r = h100_recipe("nemo-gpt3-175b-" + std::to_string(gpus), "NeMo GPT-3 175B FP8, " + std::to_string(gpus) + " H100",
                               "NVIDIA NeMo 24.07 performance summary, DGX-H100 (" + fmt("%g", tokens_per_gpu) +
                                   " tokens/s/GPU); recipe NeMo-Framework-Launcher conf/training/gpt3/175b.yaml",
                               gpus, "fp8", tokens_per_gpu);
  r.model = "transformer:layers=96,batch=" + std::to_string(batch) + ",seq=2048,hidden=12288,heads=96,vocab=51200";
  r.plan.tensor = 4;
  r.plan.pipeline = 8;
  r.plan.data = gpus / 32;
  r.plan.interleave = 6;
  r.plan.micro_batch_size = mbs;
  r.plan.sequence_parallel = true;
  r.plan.recompute = Recompute::selective;
  r.plan.zero_stage = 1;
  set_formula_shape(r, batch, 2048, 96, 12288, 51200);
  return r;
}

std::vector<PublishedRun> build_runs() {
  std::vector<PublishedRun> runs;
  //                 size    l    h      a   t  p  mbs   B     nodes v  torch  TFLOP/s
  runs.push_back(megatron("1.7B", 24, 2304, 24, 1, 1, 16, 512, 4, 1, true, 137));
  runs.push_back(megatron("3.6B", 30, 3072, 32, 2, 1, 16, 512, 8, 1, true, 138));
  runs.push_back(megatron("7.5B", 36, 4096, 32, 4, 1, 16, 512, 16, 1, true, 142));
  runs.push_back(megatron("18.4B", 40, 6144, 48, 8, 1, 8, 1024, 32, 1, true, 135));
  runs.push_back(megatron("39.1B", 48, 8192, 64, 8, 2, 4, 1536, 64, 1, false, 138));
  // 5 layers per virtual stage (run_table_1.sh's --num-layers-per-virtual-pipeline-stage 5).
  runs.push_back(megatron("76.1B", 60, 10240, 80, 8, 4, 2, 1792, 128, 3, false, 140));
  runs.push_back(megatron("145.6B", 80, 12288, 96, 8, 8, 2, 2304, 192, 2, false, 148));

  //                         size    a    h      L    p   v  B    b  SP+sel  seconds
  for (bool sp : {false, true}) {
    runs.push_back(korthikanti("22B", 64, 6144, 48, 1, 1, 4, 4, sp, sp ? 1.10 : 1.42));
    runs.push_back(korthikanti("175B", 96, 12288, 96, 8, 3, 64, 1, sp, sp ? 13.75 : 18.13));
    runs.push_back(korthikanti("530B", 128, 20480, 105, 35, 3, 280, 1, sp, sp ? 37.83 : 49.05));
    runs.push_back(korthikanti("1T", 160, 25600, 128, 64, 1, 512, 1, sp, sp ? 71.49 : 94.42));
  }

  // BLOOM 176B (BigScience, bigscience/bloom model card and Le Scao et al. 2022, arXiv:2211.05100,
  // section 3.4): 70 layers of 14336, 112 heads, vocabulary 250,880, sequences of 2048, global
  // batch 2048 in micro-batches of 2, t = 4, p = 12, d = 8 on 384 A100 80 GB (48 nodes of 8 with
  // NVLink and 4 Omni-Path 100 Gb/s links per node, 6.25 GB/s per GPU), bf16, full recomputation,
  // "about 150 TFLOP per GPU per second". Megatron-DeepSpeed gives the first and last stages the
  // embeddings, so 70 layers split 5, 6 x 10, 5; DeepSpeed's pipeline reduces gradients after it.
  PublishedRun b;
  b.name = "bloom-176b";
  b.label = "BLOOM 176B, 384 A100";
  b.source = "BigScience bloom model card (150 TFLOP/s per GPU; 384 A100 80GB, 4 x 100 Gb/s Omni-Path per node); Le Scao et al. 2022";
  b.model = "transformer:layers=70,batch=2048,seq=2048,hidden=14336,heads=112,vocab=250880";
  b.cluster = "a100:48x8,precision=mixed";
  b.inter_node_gb_per_s = 6.25;
  b.plan.tensor = 4;
  b.plan.pipeline = 12;
  b.plan.data = 8;
  b.plan.micro_batch_size = 2;
  b.plan.first_stage_layers = 5;
  b.plan.last_stage_layers = 5;
  b.overlap_grad_sync = false;
  b.measured_tflops = 150;
  set_formula_shape(b, 2048, 2048, 70, 14336, 250880);
  b.fit_note = "held out: the A100 constant was fitted on Megatron-LM's rows, not this one";
  runs.push_back(b);

  // Alpa's benchmark sanity check (alpa-projects/alpa, benchmark/alpa/README.md, "Expected output
  // on AWS p3.16", April 24, 2022): GPT 2.6B (32 layers of 2560, 32 heads, vocabulary 51,200,
  // batch 32 of 1024 tokens) on one p3.16xlarge (8 V100 16 GB), dp = op = pp = 2, 4 micro-batches,
  // recomputation, fp16: mean iteration 2.425 s.
  PublishedRun a = alpa_p3_run("alpa-gpt-2.6b", "Alpa GPT 2.6B, 8 V100", "Alpa benchmark/alpa/README.md, expected output on AWS p3.16 (2.425 s mean time)",
                               "transformer:layers=32,batch=32,seq=1024,hidden=2560,heads=32,vocab=51200", 2, 2, 2, 4);
  a.measured_s = 2.425;
  a.fitted = true;
  a.fit_note = "V100 matmul_efficiency 0.51 was fitted on this row";
  runs.push_back(a);

  // Alpa's MoE on one p3.16xlarge (Zheng et al., OSDI'22, Fig. 8b; the data is the artifact's
  // reference results, alpa-projects/alpa branch osdi22_artifact, osdi22_artifact/results_e2e_ref.tsv:
  // "e2e p3.16 1 8 moe parax.auto {'tflops': 45.76}"). The model (suite_paper_auto_moe.py, "2.4B"):
  // 16 layers of 1024, 16 heads, vocabulary 32,000, batch 1024 of 1024 tokens, 16 experts of
  // 8 x 1024 (benchmark_3d_one_case_moe.py: intermediate_size = 8 * hidden), top-2 gating over
  // expert groups of 2048 tokens, MoE and dense layers alternating (alpa/model/moe.py), fp16 with
  // rematerialization. The plan Alpa found and the artifact replays (suite_artifact_e2e_moe.py):
  // 32 micro-batches, layers 0-3 and 4-7 of its 8 auto-layers on two 1 x 4 sub-meshes, each a
  // 4 x 1 logical mesh with the batch forced onto its first axis: t = 1, p = 2, d = 4, so
  // mbs = 1024 / (32 x 4) = 8. The iteration time follows from Alpa's own FLOPs formula
  // (alpa_moe_iteration_flops, 4.9925e15 FLOPs): 4.9925e15 / (8 GPUs x 45.76e12) = 13.64 s.
  PublishedRun m = alpa_p3_run("alpa-moe-2.4b", "Alpa MoE 2.4B, 8 V100",
                               "Zheng et al., OSDI'22, Fig. 8b (45.76 TFLOP/s per GPU): alpa osdi22_artifact/results_e2e_ref.tsv; plan from its suite_artifact_e2e_moe.py",
                               "moe:layers=16,batch=1024,seq=1024,hidden=1024,heads=16,vocab=32000,experts=16,ffn=8192,top_k=2", 1, 2, 4, 8);
  m.measured_tflops = 45.76;
  m.flops = PublishedRun::Flops::alpa_moe;
  set_formula_shape(m, 1024, 1024, 16, 1024, 32000);
  m.experts = 16;
  m.expert_group = 2048;
  m.dense_ffn_every_other = 8192;
  m.fit_note = "held out: added after the V100 fit";
  runs.push_back(m);

  // NVIDIA's recipe tables on DGX H100 (../shared/published-runs.md).
  PublishedRun g128 = nemo_gpt3_175b(128, 256, 1, 726);
  g128.fitted = true;
  g128.fit_note = "H100 matmul_efficiency 0.56 was fitted on this row";
  runs.push_back(g128);
  runs.push_back(nemo_gpt3_175b(512, 2048, 2, 782));
  // Llama 3 8B, FSDP over 8 H100 (NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md, 25.11,
  // "System: DGX-H100": FP8-CS, GBS 128, MBS 1, seq 8192, FSDP 1, TP = PP = CP = 1, 14,451
  // tokens/s/GPU). Megatron-FSDP shards parameters, gradients and optimizer state (zero=3);
  // its recipe (scripts/performance/configs/llama/llama3_workload_base_configs.py) recomputes 5
  // of the 32 layers, which a plan here cannot say: priced without recomputation.
  PublishedRun l8 = h100_recipe("megatron-bridge-llama3-8b", "Megatron-Bridge Llama 3 8B FP8 FSDP, 8 H100",
                                "Megatron-Bridge 25.11 performance summary, DGX-H100 (14451 tokens/s/GPU); FSDP d8, recipe llama3_workload_base_configs.py",
                                8, "fp8", 14451);
  l8.arch = "llama-3-8b";
  l8.plan.data = 8;
  l8.plan.micro_batch_size = 1;
  l8.plan.recompute = Recompute::none;
  l8.plan.zero_stage = 3;
  set_formula_shape(l8, 128, 8192, 32, 4096, 128256);
  runs.push_back(l8);
  // Llama 3 70B on 64 H100 (the same table: FP8-CS, GBS 128, MBS 1, seq 8192, TP 4, PP 8, VP 5,
  // no FSDP, 1,602 tokens/s/GPU): d = 2, sequence parallelism with tensor parallelism, no
  // recomputation, Megatron's distributed optimizer.
  PublishedRun l70 = h100_recipe("megatron-bridge-llama3-70b", "Megatron-Bridge Llama 3 70B FP8, 64 H100",
                                 "Megatron-Bridge 25.11 performance summary, DGX-H100 (1602 tokens/s/GPU); t4 p8 v5 d2",
                                 64, "fp8", 1602);
  l70.arch = "llama-3-70b";
  l70.plan.tensor = 4;
  l70.plan.pipeline = 8;
  l70.plan.data = 2;
  l70.plan.interleave = 5;
  l70.plan.micro_batch_size = 1;
  l70.plan.sequence_parallel = true;
  l70.plan.recompute = Recompute::none;
  l70.plan.zero_stage = 1;
  set_formula_shape(l70, 128, 8192, 80, 8192, 128256);
  runs.push_back(l70);
  // Llama 3.1 8B in BF16 with FSDP over 8 H100 (pytorch/torchtitan benchmarks/
  // llama3_h100_202412_torchtitan.md, Table 1, "FSDP" without torch.compile or Float8: 5,762
  // tokens/s/GPU; local batch 2, global batch 16; sequences of 8,192 (train_configs/llama3_8b.toml);
  // selective activation checkpointing). The GPUs are Grand Teton's H100 with 96 GB of HBM2e at
  // 2.4 TB/s, run at 500 W (the benchmark: "the actual peak TFLOPs number is between SXM and NVL,
  // and we don't know its exact value"): priced with the preset's SXM peaks, its HBM changed;
  // one 400 Gb/s NIC per GPU as the preset. FSDP2 reshards after forward by default (zero=3,
  // reshard=1). Its "op" selective checkpointing recomputes every second matmul and the
  // elementwise ops, keeping attention's output; the plan here can say only recompute=selective
  // (attention's core rerun), the nearer of the two in recomputed work (Llama 3 8B at 8K: the
  // attention core is about a quarter of a layer's forward FLOPs, half the matmuls about 36%).
  PublishedRun tt = h100_recipe("torchtitan-llama3-8b-bf16", "torchtitan Llama 3.1 8B BF16 FSDP, 8 H100 96GB",
                                "torchtitan benchmarks/llama3_h100_202412_torchtitan.md, Table 1 FSDP (5762 tokens/s/GPU); H100 96 GB HBM2e 2.4 TB/s at 500 W; "
                                "seq 8192, local batch 2 (train_configs/llama3_8b.toml)",
                                8, "bf16", 5762);
  tt.arch = "llama-3-8b";
  tt.gpu_variant = "H100 96 GB HBM2e (Grand Teton, 500 W)";
  tt.memory_bandwidth_gb_per_s = 2400;
  tt.memory_gib = 96;
  tt.plan.data = 8;
  tt.plan.micro_batch_size = 2;
  tt.plan.recompute = Recompute::selective;
  tt.plan.zero_stage = 3;
  tt.plan.reshard_after_forward = true;
  set_formula_shape(tt, 16, 8192, 32, 4096, 128256);
  runs.push_back(tt);
  // Llama 3 8B in BF16 with FSDP2 over 64 A100 80 GB (pytorch/torchtitan docs/performance.md,
  // "Llama 3 performance numbers": local batch 1, global 64, "selective op" activation
  // checkpointing, 2,973 tokens/s per GPU at 58.2% MFU; sequences of 8,192 as its
  // train_configs/llama3_8b.toml, which the MFU confirms: 6 x 8.03 G + 12 x 32 x 4096 x 8192
  // FLOPs per token x 2,973 = 182 TFLOP/s = 58.2% of 312). The network is not stated: priced on
  // the a100 preset's (one 200 Gb/s NIC per GPU). torchtitan's Llama calls torch's
  // scaled_dot_product_attention, FlashAttention on A100 in BF16: attention priced fused. FSDP2
  // reshards after forward by default (zero=3, reshard=1); "op" checkpointing is mapped to
  // recompute=selective as for the H100 row above, which reruns less than torchtitan does.
  PublishedRun ta;
  ta.name = "torchtitan-llama3-8b-a100";
  ta.label = "torchtitan Llama 3 8B BF16 FSDP, 64 A100";
  ta.source = "torchtitan docs/performance.md, Llama 3 on 64 A100 80GB with FSDP2, batch 1, selective op AC (2973 tokens/s/GPU, MFU 58.2%); "
              "seq 8192 (train_configs/llama3_8b.toml); network not stated (a100 preset's)";
  ta.arch = "llama-3-8b";
  ta.cluster = "a100:8x8,precision=bf16";
  ta.fused_attention = true;
  ta.measured_tokens_per_gpu = 2973;
  ta.plan.data = 64;
  ta.plan.micro_batch_size = 1;
  ta.plan.recompute = Recompute::selective;
  ta.plan.zero_stage = 3;
  ta.plan.reshard_after_forward = true;
  ta.priced_fast_because = "torchtitan's op checkpointing reruns every second matmul (over a third of a layer's forward at 8K tokens); "
                           "recompute=selective prices the attention core's rerun (about a quarter)";
  ta.fit_note = "held out: no constant fitted on it";
  set_formula_shape(ta, 64, 8192, 32, 4096, 128256);
  runs.push_back(ta);
  return runs;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

const std::vector<PublishedRun>& published_runs() {
  static const std::vector<PublishedRun> runs = build_runs();
  return runs;
}

double megatron_iteration_flops(int64_t batch, int64_t seq, int64_t layers, int64_t hidden, int64_t vocab) {
  const double B = double(batch), s = double(seq), l = double(layers), h = double(hidden), V = double(vocab);
  return 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
}

double alpa_moe_iteration_flops(int64_t batch, int64_t seq, int64_t layers, int64_t hidden, int64_t group, int64_t vocab, int64_t experts) {
  const double tokens = double(batch) * double(seq), s = double(seq), h = double(hidden), E = double(experts), S = double(group);
  const double factor = 4;   // forward, backward (twice the forward) and the recomputed forward
  const double attention = tokens * (8 * h * h + 4 * s * h);   // QKV, output projection, scores and context
  const double dense = attention + tokens * 32 * h * h;        // an FFN of 8h
  // Two experts of 8h per token, the gate's softmax, top-2 gating, dispatch and combine einsums.
  const double moe = attention + tokens * (64 * h * h + 2 * h * E + 4 * S + 8 * h * S);
  return factor * (dense + moe) * double(layers) / 2 + 6 * tokens * h * double(vocab);
}

double published_iteration_flops(const PublishedRun& run) {
  if (run.flops == PublishedRun::Flops::alpa_moe)
    return alpa_moe_iteration_flops(run.batch, run.seq, run.layers, run.hidden, run.expert_group, run.vocab, run.experts);
  return megatron_iteration_flops(run.batch, run.seq, run.layers, run.hidden, run.vocab);
}

Result<TransformerArch> published_run_arch(const std::string& name) {
  // meta-llama/Meta-Llama-3-8B and Meta-Llama-3-70B config.json (examples/models/hf/): Llama 2
  // 70B's structure (RMSNorm, SwiGLU, rotary, grouped-query attention with 8 K/V heads, untied
  // head) with a 128,256-word vocabulary, 8,192 positions and rope_theta 500,000.
  if (name != "llama-3-8b" && name != "llama-3-70b")
    return make_error(ErrorCode::bad_value, "no published architecture is called '" + name + "' (llama-3-8b, llama-3-70b)", "run.arch");
  TransformerArch a = transformer_presets().at("llama2-70b");
  a.name = name;
  a.vocab = 128256;
  a.context = 8192;
  a.rope_theta = 500000;
  a.norm_epsilon = 1e-5;
  a.torch_dtype = "bfloat16";
  a.dtype_bytes = 2;
  if (name == "llama-3-8b") {
    a.hidden = 4096;
    a.layers = 32;
    a.heads = 32;
    a.intermediate = 14336;
  }
  return a;
}

Result<Graph> published_run_graph(const PublishedRun& run) {
  if (!run.arch.empty()) {
    auto arch = published_run_arch(run.arch);
    if (!arch.ok()) return arch.error();
    TrainingShape shape;
    shape.batch = run.batch;
    shape.seq = run.seq;
    shape.dtype_bytes = 2;
    auto spec = transformer_model_spec(arch.value(), shape, "run." + run.name + ".arch");
    if (!spec.ok()) return spec.error();
    return build_graph(spec.value());
  }
  auto spec = builtin_model_spec(run.model + ",dtype_bytes=2", "run." + run.name + ".model");
  if (!spec.ok()) return spec.error();
  ModelSpec m = spec.value();
  if (run.dense_ffn_every_other > 0) {
    // The mixture of every even-numbered layer (moe_2, moe_4, ...) becomes two linears, and
    // what read its output reads theirs.
    std::vector<OpSpec> ops;
    std::map<std::string, std::string> renamed;
    for (OpSpec op : m.ops) {
      for (std::string& in : op.inputs)
        if (auto it = renamed.find(in); it != renamed.end()) in = it->second;
      const std::string layer = op.name.substr(op.name.find('_') + 1);
      if (op.kind != OpKind::moe || op.name.rfind("moe_", 0) != 0 || std::strtoll(layer.c_str(), nullptr, 10) % 2 != 0) {
        ops.push_back(op);
        continue;
      }
      OpSpec up;
      up.name = up.output = "ffn1_" + layer;
      up.kind = OpKind::linear;
      up.inputs = op.inputs;
      up.attrs = {{"out_features", run.dense_ffn_every_other}};
      up.activation = "gelu";
      OpSpec down;
      down.name = down.output = "ffn2_" + layer;
      down.kind = OpKind::linear;
      down.inputs = {up.output};
      down.attrs = {{"out_features", run.hidden}};
      renamed[op.output] = down.output;
      ops.push_back(up);
      ops.push_back(down);
    }
    m.ops = std::move(ops);
  }
  return build_graph(m);
}

Result<Cluster> published_run_cluster(const PublishedRun& run) {
  auto c = load_cluster(run.cluster, "run." + run.name + ".cluster");
  if (!c.ok()) return c.error();
  Cluster out = c.value();
  if (run.inter_node_gb_per_s > 0) out.inter_node.bandwidth_gb_per_s = run.inter_node_gb_per_s;
  if (!run.gpu_variant.empty()) out.gpu.model = run.gpu_variant;
  if (run.memory_bandwidth_gb_per_s > 0) out.gpu.memory_bandwidth_gb_per_s = run.memory_bandwidth_gb_per_s;
  if (run.memory_gib > 0) out.gpu.memory_gib = run.memory_gib;
  if (run.fused_attention) out.gpu.attention_score_passes = 0;
  return out;
}

Result<ValidateReport> run_validation(const ValidateRequest& request) {
  ValidateReport report;
  for (const std::string& n : request.names) {
    const auto& runs = published_runs();
    if (std::none_of(runs.begin(), runs.end(), [&](const PublishedRun& r) { return r.name == n; })) {
      std::string known;
      for (const auto& r : runs) known += (known.empty() ? "" : ", ") + r.name;
      return make_error(ErrorCode::bad_value, "no published run is called '" + n + "'; the runs: " + known, "--run");
    }
  }
  std::vector<double> errors, held_out;
  for (const PublishedRun& run : published_runs()) {
    if (!request.names.empty() && std::find(request.names.begin(), request.names.end(), run.name) == request.names.end()) continue;
    ValidationRow row;
    row.run = &run;
    const int gpus = run.plan.tensor * run.plan.pipeline * run.plan.data;
    row.measured_s = run.measured_tflops > 0 ? published_iteration_flops(run) / (double(gpus) * run.measured_tflops * 1e12)
                     : run.measured_tokens_per_gpu > 0 ? double(run.batch) * double(run.seq) / (run.measured_tokens_per_gpu * double(gpus))
                                                       : run.measured_s;
    auto graph = published_run_graph(run);
    if (!graph.ok()) return graph.error();
    auto cluster = published_run_cluster(run);
    if (!cluster.ok()) return cluster.error();
    InterRequest r;
    r.options.overlap_grad_sync = run.overlap_grad_sync;
    r.plan = run.plan;
    auto b = given_plan_microbatches(run.plan, model_batch(graph.value()));
    if (!b.ok()) return b.error();
    r.microbatches = b.value();
    InterJob job(graph.value(), cluster.value(), r);
    const auto& priced = run_to_end(job);
    if (!priced.ok()) {
      Error e = priced.error();
      e.message = run.name + ": " + e.message;
      return e;
    }
    row.published = priced.value();
    row.predicted_s = row.published.plan.total_latency / 1000;
    if (request.search) {
      // autopar's own plan under the same framework (overlap as the run's), searching the
      // micro-batch count from the published one.
      InterRequest s;
      s.options.overlap_grad_sync = run.overlap_grad_sync;
      if (!request.full_search && gpus > request.free_search_max_gpus) {
        // Every stage on t x d GPUs (part of a node, or whole nodes), as the published plan's.
        const int per_stage = run.plan.tensor * run.plan.data, G = cluster.value().gpus_per_node;
        s.options.fixed_submesh = per_stage < G ? Submesh{1, per_stage} : Submesh{per_stage / G, G};
        // p stages need at least p layers to slice: the DP's layers are the model's merged to
        // max_layers (32), fewer than 530B's 35 or 1T's 64 stages; and interleaving v chunks
        // per stage needs p x v (530B's 105 layers as 35 x 3 chunks of one layer).
        s.options.max_layers = std::max(s.options.max_layers, run.plan.pipeline * std::max(1, run.plan.interleave));
        row.bounded = true;
      }
      // Today's space (knob_search.h): per stage sequence parallelism, recomputation and ZeRO,
      // the micro-batch count from the published one, cp where nothing fits and ep on MoE.
      auto best = plan_inter_searching_knobs(graph.value(), cluster.value(), s, r.microbatches);
      if (!best.ok()) {
        Error e = best.error();
        e.message = run.name + " (autopar's own plan): " + e.message;
        return e;
      }
      row.searched = true;
      row.best = best.value();
      row.best_s = row.best.plan.total_latency / 1000;
    }
    errors.push_back(std::abs(row.error()));
    if (!run.fitted) held_out.push_back(std::abs(row.error()));
    report.rows.push_back(std::move(row));
  }
  auto mean = [](const std::vector<double>& v) { double t = 0; for (double x : v) t += x; return v.empty() ? 0.0 : t / double(v.size()); };
  auto largest = [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); };
  report.median_abs_error = median(errors);
  report.mean_abs_error = mean(errors);
  report.max_abs_error = largest(errors);
  report.held_out_rows = int(held_out.size());
  report.held_out_median_abs_error = median(held_out);
  report.held_out_mean_abs_error = mean(held_out);
  report.held_out_max_abs_error = largest(held_out);
  return report;
}

Json ValidateReport::to_json() const {
  Json rows_json = Json::array();
  for (const ValidationRow& r : rows) {
    Json j{{"name", r.run->name},
           {"label", r.run->label},
           {"source", r.run->source},
           {"model", r.run->arch.empty() ? r.run->model : r.run->arch + ":batch=" + std::to_string(r.run->batch) + ",seq=" + std::to_string(r.run->seq)},
           {"cluster", r.run->cluster},
           {"plan", r.run->plan.text()},
           {"microbatches", r.published.microbatches},
           {"measured_s", r.measured_s},
           {"predicted_s", r.predicted_s},
           {"error", r.error()},
           {"fitted", r.run->fitted},
           {"fit_note", r.run->fit_note}};
    if (!r.run->gpu_variant.empty()) j["gpu_variant"] = r.run->gpu_variant;
    if (r.run->fused_attention) j["fused_attention"] = true;
    if (!r.run->priced_fast_because.empty()) j["priced_fast_because"] = r.run->priced_fast_because;
    if (r.run->measured_tflops > 0) {
      j["measured_tflops_per_gpu"] = r.run->measured_tflops;
      const int gpus = r.run->plan.tensor * r.run->plan.pipeline * r.run->plan.data;
      j["predicted_tflops_per_gpu"] = published_iteration_flops(*r.run) /
                                      (double(gpus) * r.predicted_s * 1e12);
    }
    if (r.searched) {
      Json stages = Json::array();
      for (const PipelineStage& st : r.best.plan.stages)
        stages.push_back(Json{{"layers", Json::array({r.best.stage_layers(st).first, r.best.stage_layers(st).second})},
                              {"submesh", Json::array({st.submesh.nodes, st.submesh.gpus})},
                              {"logical_mesh", st.logical_mesh}});
      j["best"] = Json{{"predicted_s", r.best_s}, {"microbatches", r.best.microbatches}, {"interleave", r.best.plan.interleave}, {"stages", stages},
                       {"speedup_over_published", r.predicted_s / r.best_s}, {"bounded_to_published_stage_size", r.bounded}};
    }
    rows_json.push_back(j);
  }
  return Json{{"rows", rows_json},
              {"median_abs_error", median_abs_error},
              {"max_abs_error", max_abs_error},
              {"mean_abs_error", mean_abs_error},
              {"held_out", Json{{"rows", held_out_rows},
                                {"median_abs_error", held_out_median_abs_error},
                                {"mean_abs_error", held_out_mean_abs_error},
                                {"max_abs_error", held_out_max_abs_error}}}};
}

std::string ValidateReport::to_text() const {
  std::ostringstream t;
  size_t name_w = 16, plan_w = 26;
  for (const ValidationRow& r : rows) {
    name_w = std::max(name_w, r.run->name.size() + 2);
    plan_w = std::max(plan_w, r.run->plan.text().size() + std::to_string(r.published.microbatches).size() + 5);
  }
  t << "predictions against published training runs (iteration seconds; error = predicted / measured - 1; fit: a constant was fitted on the row)\n";
  t << pad("run", int(name_w)) << pad("plan", int(plan_w)) << pad("measured", 10, true) << pad("predicted", 11, true) << pad("error", 8, true)
    << pad("fit", 10, true) << pad("autopar's plan", 16, true) << "  its stages\n";
  for (const ValidationRow& r : rows) {
    std::string best = "-", stages;
    if (r.searched) {
      best = fmt("%.3g", r.best_s) + " (B=" + std::to_string(r.best.microbatches) +
             (r.best.plan.interleave > 1 ? ", v=" + std::to_string(r.best.plan.interleave) : "") + ")" + (r.bounded ? "*" : "");
      for (const PipelineStage& st : r.best.plan.stages)
        stages += (stages.empty() ? "" : " ") + std::to_string(st.submesh.nodes) + "x" + std::to_string(st.submesh.gpus) + ":" + st.logical_mesh;
    }
    t << pad(r.run->name, int(name_w)) << pad(r.run->plan.text() + " B=" + std::to_string(r.published.microbatches), int(plan_w))
      << pad(fmt("%.3g", r.measured_s), 10, true) << pad(fmt("%.3g", r.predicted_s), 11, true) << pad(fmt("%+.1f%%", 100 * r.error()), 8, true)
      << pad(r.run->fitted ? "fitted" : "held out", 10, true) << pad(best, 16, true) << "  " << stages << "\n";
  }
  t << "|error| over all " << rows.size() << " runs: median " << fmt("%.1f%%", 100 * median_abs_error) << ", mean " << fmt("%.1f%%", 100 * mean_abs_error)
    << ", largest " << fmt("%.1f%%", 100 * max_abs_error) << "\n";
  t << "|error| over the " << held_out_rows << " held-out runs: ";
  if (held_out_rows > 0)
    t << "median " << fmt("%.1f%%", 100 * held_out_median_abs_error) << ", mean " << fmt("%.1f%%", 100 * held_out_mean_abs_error) << ", largest "
      << fmt("%.1f%%", 100 * held_out_max_abs_error) << "\n";
  else
    t << "none\n";
  if (std::any_of(rows.begin(), rows.end(), [](const ValidationRow& r) { return r.bounded; }))
    t << "* searched with stages of the published plan's size (t x d GPUs each); validate --full-search plans them freely (minutes)\n";
  t << "sources:\n";
  for (const ValidationRow& r : rows) t << "  " << r.run->name << ": " << r.run->source << " [" << r.run->fit_note << "]\n";
  return t.str();
}

}  // namespace autopar
