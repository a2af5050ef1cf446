// Megatron-LM's GPT flags, shared by the exports of Alpa's plan (engine_export.h) and of a given
// plan (given_plan_export.h): the model as the flags describe it, the layer split over the pipeline,
// and the flags themselves within Megatron-LM core_r0.14.0's argument rules.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "graph.h"

namespace autopar {

// The model as Megatron-LM's GPT flags describe it: from the TransformerArch the graph was built
// from (a Hugging Face config or a preset), else read off the graph's ops (built-in models and
// model files, which say less: no rotary positions, no vocabulary padding).
struct MegatronModel {
  int64_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, kv_channels = 0, ffn = 0, seq = 0, vocab = 0;
  int64_t max_positions = 0;          // Megatron's max_position_embeddings
  std::string norm = "LayerNorm";     // --normalization
  std::string activation = "gelu";    // gelu, swiglu, geglu, relu
  std::string position = "learned_absolute";   // --position-embedding-type: learned_absolute, rope, none
  double rotary_percent = 1, rotary_base = 10000, norm_epsilon = 0;
  bool bias = true, qkv_bias = false, tied = true, embedding = true;
  bool attention_dropout = true, hidden_dropout = true;   // Megatron's defaults are 0.1
  int64_t experts = 0, topk = 0, moe_ffn = 0, shared_expert = 0, moe_layer_step = 1;
  std::vector<int64_t> dense_layers;
  std::string torch_dtype;
  std::vector<std::string> cannot;    // what Megatron's GPT model cannot build as the model has it
};

// The model's flags: from g.spec.arch when set, else read off the graph's attention ops.
MegatronModel megatron_model(const Graph& g);

// How Megatron-LM places L layers on P pipeline stages (its arguments.py and TransformerConfig,
// core_r0.14.0): evenly without options, which needs P to divide L; with
// --decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers, the first and last
// stages hold those counts (each at least one) and the middle P - 2 stages split the rest
// evenly. The plan's own split is kept when Megatron can say it (equal middle stages); else an
// even split, or the nearest split with equal middle stages when P does not divide L.
struct PipelineSplit {
  bool ok = true;
  int64_t first = 0, last = 0;        // 0: not given
  bool as_planned = false;            // the plan's own stage sizes
  std::string why;                    // when !ok
};

// Megatron-LM's split of `layers` over `pp` stages, the plan's own (`planned`, per stage) when the
// flags can say it.
PipelineSplit megatron_pipeline_split(int64_t layers, int64_t pp, const std::vector<int64_t>& planned);

// The degrees and sizes Megatron-LM's flags take for a plan, each as planned and as Megatron-LM
// can run it, with what the notes need to say why they differ.
struct MegatronDegrees {
  std::vector<int64_t> stage_tp;      // per stage: the tensor-parallel size of its own plan
  std::string logical_meshes;         // the stages' logical meshes, ", "-separated
  int64_t planned_tp = 1, tp = 1;     // the size most stages use; the size Megatron-LM's rules allow
  int64_t planned_ep = 1, ep = 1;     // the same for expert parallelism
  int planned_pp = 1, pp = 1;         // the plan's stages; the nearest size that divides the GPUs
  std::vector<int64_t> per_stage;     // per stage: its transformer layers
  std::string stage_gpus;             // per stage: its GPUs, ", "-separated
  PipelineSplit split;                // layers over the pipeline (Megatron's first/last options)
  int64_t dp = 0;                     // implied data-parallel size (0: tp x pp does not divide the GPUs)
  int64_t micro = 1;                  // each replica's micro-batch size
};

// The model's notes (what the flags cannot say, positions, vocabulary, precision) and then every
// flag, `knob_flags` (one flag with its value each) before the batch flags that end the command.
void write_megatron_flags(std::ostream& o, const Graph& g, const MegatronModel& model, const MegatronDegrees& d, int64_t batch,
                          const std::vector<std::string>& knob_flags = {});

}  // namespace autopar
