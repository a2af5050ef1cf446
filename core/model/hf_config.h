// Real transformer models: Hugging Face `config.json` files (model_type gpt2, llama, mistral,
// bert) and the built-in presets of published sizes (GPT-3 175B, Llama-2-7B and 70B), turned
// into op graphs that compute what the model computes, so that parameter counts equal the
// published ones exactly.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "graph.h"
#include "json_io.h"
#include "result.h"

namespace autopar {

// The architecture of a transformer as its config describes it.
struct TransformerArch {
  std::string name;                  // the model's name in the graph
  std::string family;                // "gpt2" (GPT-2/GPT-3), "llama" (Llama, Mistral), "bert"
  int64_t vocab = 0;
  int64_t hidden = 0;
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;              // grouped-query attention; == heads for multi-head attention
  int64_t intermediate = 0;          // MLP width (SwiGLU: of each of gate and up)
  int64_t max_positions = 0;         // learned position table rows (gpt2, bert); 0: rotary (llama)
  int64_t type_vocab = 0;            // BERT's token-type table rows
  int64_t context = 0;               // the context length it was trained for (the default seq)
  bool tied_embeddings = false;      // the output head reuses the input embedding table
  bool attention_bias = false;       // Q/K/V/output projections have biases
  bool mlp_bias = false;             // MLP projections have biases
  bool attention_dropout = false;    // dropout on the attention probabilities
  bool hidden_dropout = false;       // dropout on the residual branches and embeddings
  // The structure exports name (Megatron's --normalization, --swiglu, --position-embedding-type).
  std::string norm = "layernorm";    // "layernorm" or "rmsnorm"
  std::string mlp = "gelu";          // "gelu" (two projections) or a gated "swiglu" / "geglu"
  std::string position = "learned";  // "learned" (max_positions rows) or "rope" (rotary)
  bool post_norm = false;            // BERT: the norm follows each residual add
  int64_t head_dim = 0;              // 0: hidden / heads
  int64_t experts = 0;               // mixture of experts: experts per layer (0: a dense MLP)
  int64_t experts_per_token = 0;     // mixture of experts: the router's top-k
};

// The training shape a model is built for: overridable as FILE.json:batch=8,seq=2048,dtype_bytes=2.
struct TrainingShape {
  int64_t batch = 8;
  int64_t seq = 0;                   // 0: min(max positions, 4096)
  int64_t dtype_bytes = 4;
};

// True when a JSON object is a Hugging Face config (it has "model_type") rather than an
// autopar model file.
bool is_hf_config(const Json& j);

// Reads a config.json; errors name the missing or bad field (path = the field's key).
Result<TransformerArch> arch_from_hf_config(const Json& j, const std::string& name);

// The op graph of `arch` at `shape` (seq and batch checked against the architecture; errors
// name `arg_path`).
Result<ModelSpec> transformer_model_spec(const TransformerArch& arch, const TrainingShape& shape,
                                         const std::string& arg_path);

// Applies "key=value,..." overrides (batch, seq, dtype_bytes, layers) to a shape and an
// architecture; unknown keys and bad values are errors naming `arg_path`.
Status apply_transformer_overrides(const std::string& overrides, TrainingShape& shape, TransformerArch& arch,
                                   const std::string& arg_path);

// The built-in presets of real sizes, by name: "gpt3-175b", "llama2-7b", "llama2-70b".
const std::map<std::string, TransformerArch>& transformer_presets();

}  // namespace autopar
