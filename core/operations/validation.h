// `autopar validate`: predictions held against training runs that really happened. Each
// published run names its source, its model, cluster and plan (t, p, d, micro-batch size,
// interleaving) and its measured iteration time; autopar prices that plan under its cost model
// and plans the same model itself, and the report gives both with their errors.
#pragma once
#include <string>
#include <vector>

#include "cluster.h"
#include "hf_config.h"
#include "inter_operation.h"
#include "json_io.h"
#include "result.h"

namespace autopar {

// One published training run.
struct PublishedRun {
  std::string name;                    // "megatron-1.7b"
  std::string label;                   // "Megatron-LM GPT 1.7B, 32 A100"
  std::string source;                  // where the plan and the measurement are published
  std::string model;                   // an autopar model argument (built-in, with its shape)
  // Non-empty: the model is this Hugging Face architecture (published_run_arch: "llama-3-8b",
  // "llama-3-70b") at batch x seq, and `model` is left empty.
  std::string arch;
  std::string cluster;                 // a preset argument ("a100:4x8,precision=mixed")
  double inter_node_gb_per_s = 0;      // > 0: the run's network per GPU differs from the preset's (cited in `source`)
  // Non-empty: the run's GPU is a variant of the preset's (torchtitan's 96 GB H100 at 500 W), with
  // this name and, where > 0, this HBM bandwidth and capacity (cited in `source`).
  std::string gpu_variant;
  double memory_bandwidth_gb_per_s = 0, memory_gib = 0;
  // The run's framework fuses attention (FlashAttention through torch's scaled_dot_product_attention)
  // on a preset that prices it unfused (A100's Megatron-LM 2021 attention): priced with the
  // preset's attention_score_passes at 0, as the fused presets are (cited in `source`).
  bool fused_attention = false;
  // Non-empty: why the plan as priced does less work than the run did (its recomputation, say),
  // so the prediction can only come out fast; shown in the report, and the tests hold such a row
  // to coming out fast instead of to issue 39's ±15%.
  std::string priced_fast_because;
  GivenPlan plan;                      // the published t, p, d, mbs and interleaving
  bool overlap_grad_sync = true;       // the framework overlaps the gradient all-reduce with backward
  double measured_s = 0;               // iteration time as published (or derived below)
  double measured_tflops = 0;          // > 0: published TFLOP/s per GPU, from which measured_s is derived
  double measured_tokens_per_gpu = 0;  // > 0: published tokens/s per GPU: measured_s = batch x seq / (it x GPUs)
  // The FLOPs formula the publication turned its iteration time into TFLOP/s with.
  enum class Flops { megatron, alpa_moe } flops = Flops::megatron;
  int64_t batch = 0, seq = 0, layers = 0, hidden = 0, vocab = 0;   // for the FLOPs formula
  int64_t experts = 0, expert_group = 0;                           // alpa_moe only
  // > 0: every second layer (2, 4, ...) has a dense FFN of this width instead of the model's
  // mixture of experts, as Alpa's MoE alternates them (see published_run_graph).
  int64_t dense_ffn_every_other = 0;
  // Whether a constant of the cost model was fitted on this run (so it is no independent check)
  // and, in a few words, which; held-out rows were never fitted on.
  bool fitted = false;
  std::string fit_note;
};

// The runs `validate` checks, in a fixed order.
const std::vector<PublishedRun>& published_runs();

// Megatron-LM's FLOPs per iteration with full recomputation (Narayanan et al., SC'21, eq. 3):
// 96 B s l h^2 (1 + s / 6h + V / 16 l h).
double megatron_iteration_flops(int64_t batch, int64_t seq, int64_t layers, int64_t hidden, int64_t vocab);

// Alpa's FLOPs per iteration for its MoE benchmark with rematerialization (alpa-projects/alpa,
// benchmark/util.py compute_moe_tflops, checkpoint_activations=True, mlp_factor 8): half the
// layers dense, half attention + top-2 experts with GShard's dispatch and combine einsums over
// expert groups of `group` tokens, and the vocabulary projection.
double alpa_moe_iteration_flops(int64_t batch, int64_t seq, int64_t layers, int64_t hidden, int64_t group, int64_t vocab, int64_t experts);

// The FLOPs per iteration a run's TFLOP/s were computed from (its publication's formula).
double published_iteration_flops(const PublishedRun& run);

// The architectures `arch` names, as Meta's published config.json files give them
// (examples/models/hf/llama-3-8b.json and llama-3-70b.json); errors name an unknown one.
Result<TransformerArch> published_run_arch(const std::string& name);

// The model a run trained, in 16-bit (its `model`, with the dense layers of
// dense_ffn_every_other swapped in).
Result<Graph> published_run_graph(const PublishedRun& run);

// One run's check.
struct ValidationRow {
  const PublishedRun* run = nullptr;
  double measured_s = 0;
  double predicted_s = 0;              // the published plan, priced
  InterReport published;               // its report
  bool searched = false;               // the planner ran (not --price-only)
  // The search was bounded to stages of the published plan's size (t x d GPUs each, so p stages;
  // see ValidateRequest::full_search); the layer split, logical meshes, recomputation, ZeRO
  // and micro-batch count were still searched.
  bool bounded = false;
  double best_s = 0;                   // autopar's own plan
  InterReport best;
  // Predicted / measured - 1 for the published plan.
  double error() const { return predicted_s / measured_s - 1; }
};

// The whole table.
struct ValidateReport {
  std::vector<ValidationRow> rows;
  double median_abs_error = 0;         // over the rows
  double max_abs_error = 0;
  double mean_abs_error = 0;
  // The same over the held-out rows only (no constant fitted on them); 0 when there are none.
  int held_out_rows = 0;
  double held_out_median_abs_error = 0, held_out_mean_abs_error = 0, held_out_max_abs_error = 0;
  Json to_json() const;
  std::string to_text() const;
};

// What to check: every run (empty `names`) or those named; `search` also plans each model
// (the slow part: a whole inter-op plan per micro-batch count tried).
struct ValidateRequest {
  std::vector<std::string> names;
  bool search = true;
  // Runs on more than this many GPUs search only stages of the published plan's size: a free
  // search builds the stage costs of every sub-mesh shape and logical mesh (2,817 pairs on
  // 192 x 8, an intra-op ILP per distinct layer each) for every micro-batch count tried, which
  // took minutes per row. full_search lifts the bound.
  int free_search_max_gpus = 256;
  bool full_search = false;
};

// Runs the checks; unknown names are an error naming the known ones.
Result<ValidateReport> run_validation(const ValidateRequest& request);

// The cluster a run was measured on (the preset with the run's own network where it differs).
Result<Cluster> published_run_cluster(const PublishedRun& run);

}  // namespace autopar
