// Real transformer models: Hugging Face `config.json` files (model_type gpt2, llama, mistral,
// qwen2, gemma, phi3, mixtral, qwen2_moe, gpt_neox, falcon, opt, bert, roberta; encoder-decoders
// such as T5 are refused by name) and the built-in presets of published sizes (GPT-3 175B, Llama-2-7B and 70B), turned
// into op graphs that compute what the model computes, so that parameter counts equal the
// published ones exactly.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph.h"
#include "json_io.h"
#include "result.h"

namespace autopar {

// The architecture of a transformer as its config describes it.
struct TransformerArch {
  std::string name;                  // the model's name in the graph
  // The graph builder: "gpt2" (GPT-2/GPT-3), "llama" (pre-RMSNorm rotary decoders: Llama,
  // Mistral, Qwen2, Gemma, Phi-3, Mixtral, Qwen2-MoE), "gpt_neox" (GPT-NeoX, Falcon), "opt",
  // "bert" (BERT, RoBERTa).
  std::string family;
  std::string model_type;            // the config's model_type ("qwen2", ...); the family for presets
  int64_t vocab = 0;
  int64_t hidden = 0;
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;              // grouped-query attention; == heads for multi-head attention
  int64_t intermediate = 0;          // MLP width (SwiGLU: of each of gate and up)
  int64_t max_positions = 0;         // learned position table rows (gpt2, opt, bert); 0: rotary (llama)
  int64_t position_offset = 0;       // learned rows before the first position (OPT, RoBERTa: 2)
  int64_t type_vocab = 0;            // BERT's token-type table rows
  int64_t context = 0;               // the context length it was trained for (the default seq)
  bool tied_embeddings = false;      // the output head reuses the input embedding table
  bool attention_bias = false;       // Q/K/V/output projections have biases
  bool qkv_bias_only = false;        // Q/K/V have biases, the output projection none (Qwen2)
  bool mlp_bias = false;             // MLP projections have biases
  bool attention_dropout = false;    // dropout on the attention probabilities
  bool hidden_dropout = false;       // dropout on the residual branches and embeddings
  // The structure exports name (Megatron's --normalization, --swiglu, --position-embedding-type).
  std::string norm = "layernorm";    // "layernorm" or "rmsnorm"
  std::string mlp = "gelu";          // "gelu" or "relu" (OPT) (two projections) or a gated "swiglu" / "geglu"
  std::string position = "learned";  // "learned" (max_positions rows) or "rope" (rotary)
  double rotary_percent = 1.0;       // the share of each head's dimensions rotated (GPT-NeoX: 0.25)
  bool post_norm = false;            // BERT: the norm follows each residual add
  bool final_norm = true;            // a norm after the last layer (decoders; OPT-350m has none)
  bool parallel_residual = false;    // x + attn(norm1(x)) + mlp(norm2(x)) in one add (GPT-NeoX, Falcon)
  bool shared_norm = false;          // parallel_residual with one norm read by both branches (Falcon-7B)
  int64_t head_dim = 0;              // 0: hidden / heads
  int64_t embed_dim = 0;             // OPT's word_embed_proj_dim when it differs from hidden (project_in/out); else 0
  int64_t experts = 0;               // mixture of experts: experts per layer (0: a dense MLP)
  int64_t experts_per_token = 0;     // mixture of experts: the router's top-k
  int64_t moe_intermediate = 0;      // each expert's MLP width (0: intermediate)
  int64_t shared_expert_intermediate = 0;  // Qwen2-MoE: a gated shared expert of this width beside the routed ones (0: none)
  int64_t moe_layer_step = 1;        // every step-th layer is MoE (Qwen2-MoE's decoder_sparse_step)
  std::vector<int64_t> dense_layers; // 0-based layers with a dense MLP of `intermediate` (mlp_only_layers)
  int64_t dtype_bytes = 0;           // torch_dtype's width (2: bfloat16/float16, 4: float32); 0: not given
  std::string torch_dtype;           // as the config names it ("bfloat16", "float16", ...; "" when absent): Megatron's --bf16 or --fp16
  double rope_theta = 10000;         // rotary base (rope_theta, GPT-NeoX's rotary_emb_base)
  double norm_epsilon = 0;           // the norms' epsilon as the config gives it (0: not given)
  // The head width: head_dim when the config gives one, else hidden / heads.
  int64_t head_width() const { return head_dim > 0 ? head_dim : hidden / heads; }
  // True when layer `i` (0-based) has experts rather than a dense MLP.
  bool is_moe_layer(int64_t i) const;
};

// The training shape a model is built for: overridable as FILE.json:batch=8,seq=2048,dtype_bytes=2.
struct TrainingShape {
  int64_t batch = 8;
  int64_t seq = 0;                   // 0: min(max positions, 4096)
  int64_t dtype_bytes = 4;
};

// The shape a config trains at by default: its torch_dtype's width when it names one (so that
// --precision, the page's precision setting and dtype_bytes= override it, as they append
// dtype_bytes after it), else 4 bytes.
TrainingShape default_training_shape(const TransformerArch& arch);

// True when a JSON object is a Hugging Face config (it has "model_type") rather than an
// autopar model file.
bool is_hf_config(const Json& j);

// Reads a config.json; errors name the missing or bad field (path = the field's key): a type
// autopar does not read, an encoder-decoder, architectures or MoE fields that contradict
// model_type, torch_dtype it does not know.
Result<TransformerArch> arch_from_hf_config(const Json& j, const std::string& name);

// The op graph of `arch` at `shape` (seq and batch checked against the architecture; errors
// name `arg_path`); the spec carries `arch` for the exports.
Result<ModelSpec> transformer_model_spec(const TransformerArch& arch, const TrainingShape& shape,
                                         const std::string& arg_path);

// Applies "key=value,..." overrides (batch, seq, dtype_bytes, layers) to a shape and an
// architecture; unknown keys and bad values are errors naming `arg_path`.
Status apply_transformer_overrides(const std::string& overrides, TrainingShape& shape, TransformerArch& arch,
                                   const std::string& arg_path);

// The built-in presets of real sizes, by name: "gpt3-175b", "llama2-7b", "llama2-70b".
const std::map<std::string, TransformerArch>& transformer_presets();

}  // namespace autopar
