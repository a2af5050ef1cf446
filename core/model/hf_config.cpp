// Hugging Face configs and real-size presets as op graphs. The graphs follow the reference
// implementations (transformers' modeling_gpt2, modeling_llama, modeling_mistral, modeling_bert):
// GPT-2 pre-LayerNorm blocks with learned positions and a tied head; Llama/Mistral pre-RMSNorm
// blocks with grouped-query attention, a SwiGLU MLP and an untied head (rotary positions have
// no parameters); BERT post-LayerNorm blocks with word, position and token-type embeddings and
// the pooler (BertModel: no task head, so the loss reads the pooled output).
#include "hf_config.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "spec_builder.h"

namespace autopar {
namespace {

Error field_error(ErrorCode code, const std::string& family, const std::string& key, const std::string& what) {
  return make_error(code, "a " + family + " config " + what, key);
}

// A positive integer field; `fallback` < 0 means required.
Result<int64_t> int_field(const Json& j, const std::string& family, const std::string& key, int64_t fallback,
                          int64_t max_value = int64_t(1) << 30) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (fallback >= 0) return fallback;
    return field_error(ErrorCode::missing_field, family, key, "needs '" + key + "' (a positive integer); add it to config.json");
  }
  // A float counts when it is whole (4096.0); trunc, not a cast, tests it: casting 1e60 to an
  // integer is undefined.
  const bool whole = it->is_number_integer() || (it->is_number_float() && std::isfinite(it->get<double>()) &&
                                                 std::trunc(it->get<double>()) == it->get<double>());
  if (!whole) return field_error(ErrorCode::wrong_type, family, key, "needs '" + key + "' to be a whole number, not " + it->dump());
  const double v = it->get<double>();
  if (v < 1 || v > double(max_value))
    return field_error(ErrorCode::out_of_range, family, key, "has '" + key + "' = " + it->dump() + "; it must be between 1 and " + std::to_string(max_value));
  return int64_t(v);
}

Result<bool> bool_field(const Json& j, const std::string& family, const std::string& key, bool fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return field_error(ErrorCode::wrong_type, family, key, "needs '" + key + "' to be true or false, not " + it->dump());
  return it->get<bool>();
}

// A dropout probability: present and above zero means the model applies dropout there.
Result<bool> dropout_field(const Json& j, const std::string& family, const std::string& key, double fallback) {
  auto it = j.find(key);
  double p = fallback;
  if (it != j.end() && !it->is_null()) {
    if (!it->is_number()) return field_error(ErrorCode::wrong_type, family, key, "needs '" + key + "' to be a probability, not " + it->dump());
    p = it->get<double>();
    if (!(p >= 0 && p < 1)) return field_error(ErrorCode::out_of_range, family, key, "has '" + key + "' = " + it->dump() + "; a dropout probability is in [0, 1)");
  }
  return p > 0;
}

}  // namespace

bool is_hf_config(const Json& j) { return j.is_object() && j.contains("model_type") && !j.contains("ops"); }

bool TransformerArch::is_moe_layer(int64_t i) const {
  if (experts <= 0) return false;
  if (std::find(dense_layers.begin(), dense_layers.end(), i) != dense_layers.end()) return false;
  return (i + 1) % std::max<int64_t>(1, moe_layer_step) == 0;
}

TrainingShape default_training_shape(const TransformerArch& arch) {
  TrainingShape shape;
  if (arch.dtype_bytes > 0) shape.dtype_bytes = arch.dtype_bytes;
  return shape;
}

namespace {

// The types autopar builds, and the encoder-decoders it refuses by name: an encoder-decoder's
// decoder attends to the encoder's output in every layer (cross-attention), so its layers are
// not the one chain both planners slice.
// (Defined after the family table below, from which it is read.)
const std::vector<std::string>& supported_types();
// Those types as a sentence's list: "gpt2, llama, ..., roberta".
std::string supported_list() {
  std::string s;
  for (const std::string& t : supported_types()) s += (s.empty() ? "" : ", ") + t;
  return s;
}
const std::vector<std::string>& encoder_decoder_types() {
  static const std::vector<std::string> t = {"t5", "mt5", "umt5", "longt5", "switch_transformers", "bart", "mbart", "plbart",
                                             "pegasus", "pegasus_x", "marian", "blenderbot", "blenderbot-small", "led",
                                             "prophetnet", "xlm-prophetnet", "m2m_100", "nllb-moe", "fsmt", "bigbird_pegasus",
                                             "whisper", "encoder-decoder", "speech-encoder-decoder", "vision-encoder-decoder"};
  return t;
}
bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// Lower case without '_' and '-': "gpt_neox" and the class prefix "GPTNeoX" compare equal.
std::string squash(const std::string& s) {
  std::string r;
  for (char c : s)
    if (c != '_' && c != '-') r += char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return r;
}

// The model_type a transformers class name belongs to: its prefix before "For", "LMHead" or
// "Model" ("MixtralForCausalLM" -> "mixtral", "GPT2LMHeadModel" -> "gpt2"), if autopar knows it.
std::string type_of_architecture(const std::string& cls) {
  size_t cut = cls.size();
  for (const char* marker : {"For", "LMHead", "Model"}) cut = std::min(cut, cls.find(marker));
  const std::string prefix = squash(cls.substr(0, cut));
  for (const auto* list : {&supported_types(), &encoder_decoder_types()})
    for (const std::string& t : *list)
      if (squash(t) == prefix) return t;
  return "";
}

// Why an encoder-decoder type is refused, and what autopar reads instead.
std::string encoder_decoder_reason(const std::string& type) {
  return "model_type '" + type + "' is an encoder-decoder: its decoder attends to the encoder's output in every layer "
         "(cross-attention), which autopar's layer chain does not model. autopar reads decoder-only and encoder-only "
         "configs: " + supported_list();
}

// The fields that make a config a mixture of experts, by the names transformers uses.
const char* const kExpertFields[] = {"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"};

// A number field's value when it is a number (the MoE checks read fields whose type a dense
// model does not define).
double number_or(const Json& j, const std::string& key, double fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

// `architectures` must name this model_type's classes; MoE fields must not appear under a dense
// type. A mislabelled Mixtral (model_type "mistral") otherwise loads as a dense 7B model.
Status check_consistent(const Json& j, const std::string& type, bool moe_type) {
  if (auto it = j.find("architectures"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return make_error(ErrorCode::wrong_type, "'architectures' must be a list of class names such as [\"LlamaForCausalLM\"]", "architectures");
    for (const Json& cls : *it) {
      if (!cls.is_string()) return make_error(ErrorCode::wrong_type, "'architectures' must be a list of class names, not " + it->dump(), "architectures");
      const std::string named = type_of_architecture(cls.get<std::string>());
      if (!named.empty() && named != type)
        return make_error(ErrorCode::bad_value, "the config contradicts itself: model_type is '" + type + "' but architectures names " +
                                           cls.get<std::string>() + ", a '" + named + "' model; set model_type to \"" + named +
                                           "\" or architectures to the " + type + " class",
                          "architectures");
    }
  }
  if (auto it = j.find("is_encoder_decoder"); it != j.end() && it->is_boolean() && it->get<bool>())
    return make_error(ErrorCode::unknown_model, "a " + type + " config with is_encoder_decoder true has a decoder that attends to an encoder; autopar models one chain of layers (set it false or use a decoder-only config)",
                      "is_encoder_decoder");
  if (moe_type) return Ok{};
  for (const char* key : kExpertFields)
    if (number_or(j, key, 0) > 1)
      return make_error(ErrorCode::bad_value, "the config contradicts itself: model_type '" + type + "' is a dense model, but " + key + " = " +
                                         j.at(key).dump() + " gives it experts (a Mixtral config has model_type \"mixtral\", a Qwen-MoE one \"qwen2_moe\"); "
                                         "fix model_type or remove " + key,
                        key);
  if (number_or(j, "num_experts_per_tok", 0) > 0)
    return make_error(ErrorCode::bad_value, "the config contradicts itself: model_type '" + type + "' is a dense model, but num_experts_per_tok = " +
                                       j.at("num_experts_per_tok").dump() + " routes tokens to experts; fix model_type or remove num_experts_per_tok",
                      "num_experts_per_tok");
  return Ok{};
}

// torch_dtype (or transformers' newer "dtype"): the float width the checkpoint trains in.
Result<int64_t> dtype_field(const Json& j) {
  const char* key = j.contains("torch_dtype") ? "torch_dtype" : "dtype";
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return int64_t(0);
  if (!it->is_string()) return make_error(ErrorCode::wrong_type, std::string("'") + key + "' must be a string such as \"bfloat16\", not " + it->dump(), key);
  const std::string v = it->get<std::string>();
  if (v == "bfloat16" || v == "float16" || v == "half" || v == "bf16" || v == "fp16") return int64_t(2);
  if (v == "float32" || v == "float" || v == "fp32") return int64_t(4);
  if (v == "float64" || v == "double") return int64_t(8);
  if (v == "auto") return int64_t(0);
  return make_error(ErrorCode::bad_value, std::string("'") + key + "' is \"" + v + "\"; autopar knows bfloat16, float16 (2 bytes), float32 (4) and float64 (8)", key);
}

// A list of non-negative integers (Qwen2-MoE's mlp_only_layers).
Result<std::vector<int64_t>> int_list_field(const Json& j, const std::string& family, const std::string& key) {
  std::vector<int64_t> out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array()) return field_error(ErrorCode::wrong_type, family, key, "needs '" + key + "' to be a list of layer numbers, not " + it->dump());
  for (const Json& v : *it) {
    if (!v.is_number_integer() || v.get<int64_t>() < 0)
      return field_error(ErrorCode::wrong_type, family, key, "needs '" + key + "' to be a list of layer numbers (0-based), not " + it->dump());
    out.push_back(v.get<int64_t>());
  }
  return out;
}

// The activation a config names (hidden_act, hidden_activation, activation_function, ...) must be
// `want` ("silu", "gelu": any gelu variant, "relu"); absent is `want`.
Status activation_field(const Json& j, const std::string& type, const std::string& key, const std::string& want, const std::string& why) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Ok{};
  if (!it->is_string()) return field_error(ErrorCode::wrong_type, type, key, "needs '" + key + "' to be a string such as \"" + want + "\", not " + it->dump());
  const std::string v = it->get<std::string>();
  const bool ok = want == "gelu" ? v.compare(0, 4, "gelu") == 0 : v == want || (want == "silu" && v == "swish");
  if (!ok) return field_error(ErrorCode::bad_value, type, key, "with " + key + " '" + v + "' is not supported; " + why);
  return Ok{};
}

}  // namespace

namespace {

// modeling_gpt2.py: learned positions, LayerNorm, GELU MLP with biases, a tied head.
Status read_gpt2(const Json& j, const std::string& type, TransformerArch& a) {
  a.family = "gpt2";
  AUTOPAR_TRY(vocab, int_field(j, type, "vocab_size", -1));
  AUTOPAR_TRY(hidden, int_field(j, type, "n_embd", -1));
  AUTOPAR_TRY(layers, int_field(j, type, "n_layer", -1, 2000));
  AUTOPAR_TRY(heads, int_field(j, type, "n_head", -1, 65536));
  // n_positions, or n_ctx in older configs.
  AUTOPAR_TRY(positions, int_field(j, type, !j.contains("n_positions") && j.contains("n_ctx") ? "n_ctx" : "n_positions", -1));
  AUTOPAR_TRY(inner, int_field(j, type, "n_inner", 4 * hidden));
  AUTOPAR_TRY(tied, bool_field(j, type, "tie_word_embeddings", true));
  AUTOPAR_TRY(attn_drop, dropout_field(j, type, "attn_pdrop", 0.1));
  AUTOPAR_TRY(resid_drop, dropout_field(j, type, "resid_pdrop", 0.1));
  a.vocab = vocab; a.hidden = hidden; a.layers = layers; a.heads = heads; a.kv_heads = heads;
  a.intermediate = inner; a.max_positions = positions; a.context = positions;
  a.tied_embeddings = tied; a.attention_bias = true; a.mlp_bias = true;
  a.attention_dropout = attn_drop; a.hidden_dropout = resid_drop;
  a.norm = "layernorm"; a.mlp = "gelu"; a.position = "learned";
  if (auto st = activation_field(j, type, "activation_function", "gelu", "autopar models GPT-2's GELU MLP"); !st.ok()) return st.error();
  return Ok{};
}

// Llama's layout (modeling_llama.py) and the families that keep it: Mistral; Qwen2 (biases
// on q/k/v only); Gemma (head_dim 256 whatever the width, GeGLU, tied embeddings; its
// embedding scaling by sqrt(hidden) and RMSNorm's (1 + weight) change no count); Phi-3
// (q/k/v fused in qkv_proj, gate and up in gate_up_proj: the same weights as the fused ops
// here); Mixtral (each MLP is num_local_experts SwiGLU experts behind a router without
// bias); Qwen2-MoE (Qwen2's attention, num_experts SwiGLU experts of moe_intermediate_size
// and a gated shared expert of shared_expert_intermediate_size).
Status read_llama_like(const Json& j, const std::string& type, TransformerArch& a) {
  a.family = "llama";
  const bool qwen = type == "qwen2" || type == "qwen2_moe";
  AUTOPAR_TRY(vocab, int_field(j, type, "vocab_size", -1));
  AUTOPAR_TRY(hidden, int_field(j, type, "hidden_size", -1));
  AUTOPAR_TRY(inter, int_field(j, type, "intermediate_size", -1));
  AUTOPAR_TRY(layers, int_field(j, type, "num_hidden_layers", -1, 2000));
  AUTOPAR_TRY(heads, int_field(j, type, "num_attention_heads", -1, 65536));
  AUTOPAR_TRY(kv, int_field(j, type, "num_key_value_heads", heads, 65536));
  AUTOPAR_TRY(context, int_field(j, type, "max_position_embeddings", 4096));
  AUTOPAR_TRY(tied, bool_field(j, type, "tie_word_embeddings", type == "gemma"));
  AUTOPAR_TRY(abias, bool_field(j, type, "attention_bias", false));
  AUTOPAR_TRY(mbias, bool_field(j, type, "mlp_bias", false));
  AUTOPAR_TRY(attn_drop, dropout_field(j, type, "attention_dropout", 0.0));
  AUTOPAR_TRY(resid_drop, dropout_field(j, type, "resid_pdrop", 0.0));
  // head_dim: Gemma's 256 (and newer Llama/Mistral configs) need not be hidden / heads; the
  // attention then reads heads x head_dim and o_proj maps that back to hidden.
  AUTOPAR_TRY(head_dim, int_field(j, type, "head_dim", type == "gemma" ? 256 : 0, 65536));
  if (heads % kv != 0)
    return field_error(ErrorCode::bad_value, type, "num_key_value_heads", "has num_key_value_heads " + std::to_string(kv) +
                                                                   ", which does not divide num_attention_heads " + std::to_string(heads));
  if (type == "gemma") {
    // Gemma names its activation hidden_activation (newer) or hidden_act: a GELU, gated.
    for (const char* key : {"hidden_activation", "hidden_act"})
      if (auto st = activation_field(j, type, key, "gelu", "Gemma's MLP is GeGLU (gelu)"); !st.ok()) return st.error();
  } else if (auto st = activation_field(j, type, "hidden_act", "silu", "this family's MLP is SwiGLU (silu)"); !st.ok()) {
    return st.error();
  }
  a.vocab = vocab; a.hidden = hidden; a.layers = layers; a.heads = heads; a.kv_heads = kv;
  a.intermediate = inter; a.context = context; a.tied_embeddings = tied;
  a.attention_bias = abias; a.mlp_bias = mbias; a.attention_dropout = attn_drop; a.hidden_dropout = resid_drop;
  a.qkv_bias_only = qwen && !abias;   // Qwen2Attention: q/k/v_proj bias=True, o_proj bias=False
  a.head_dim = head_dim > 0 && head_dim * heads != hidden ? head_dim : 0;
  a.norm = "rmsnorm"; a.mlp = type == "gemma" ? "geglu" : "swiglu"; a.position = "rope";
  if (type == "mixtral") {
    AUTOPAR_TRY(experts, int_field(j, type, "num_local_experts", 8, 65536));
    AUTOPAR_TRY(topk, int_field(j, type, "num_experts_per_tok", 2, 65536));
    a.experts = experts; a.experts_per_token = topk; a.moe_intermediate = inter;
  } else if (type == "qwen2_moe") {
    AUTOPAR_TRY(experts, int_field(j, type, "num_experts", 60, 65536));
    AUTOPAR_TRY(topk, int_field(j, type, "num_experts_per_tok", 4, 65536));
    AUTOPAR_TRY(moe_inter, int_field(j, type, "moe_intermediate_size", 1408));
    AUTOPAR_TRY(shared_inter, int_field(j, type, "shared_expert_intermediate_size", 5632));
    AUTOPAR_TRY(step, int_field(j, type, "decoder_sparse_step", 1, 2000));
    AUTOPAR_TRY(dense, int_list_field(j, type, "mlp_only_layers"));
    a.experts = experts; a.experts_per_token = topk; a.moe_intermediate = moe_inter;
    a.shared_expert_intermediate = shared_inter; a.moe_layer_step = step; a.dense_layers = dense;
  }
  if (a.experts > 0 && a.experts_per_token > a.experts)
    return field_error(ErrorCode::out_of_range, type, "num_experts_per_tok", "routes each token to " + std::to_string(a.experts_per_token) +
                                                                      " experts but has only " + std::to_string(a.experts) + "; give num_experts_per_tok at most that");
  return Ok{};
}

// modeling_gpt_neox.py: LayerNorm before attention and MLP, fused query_key_value with
// biases, rotary on rotary_pct of each head, GELU MLP with biases, an untied embed_out and,
// with use_parallel_residual, x + attn(ln1(x)) + mlp(ln2(x)).
Status read_gpt_neox(const Json& j, const std::string& type, TransformerArch& a) {
  a.family = "gpt_neox";
  AUTOPAR_TRY(vocab, int_field(j, type, "vocab_size", -1));
  AUTOPAR_TRY(hidden, int_field(j, type, "hidden_size", -1));
  AUTOPAR_TRY(inter, int_field(j, type, "intermediate_size", -1));
  AUTOPAR_TRY(layers, int_field(j, type, "num_hidden_layers", -1, 2000));
  AUTOPAR_TRY(heads, int_field(j, type, "num_attention_heads", -1, 65536));
  AUTOPAR_TRY(context, int_field(j, type, "max_position_embeddings", 2048));
  AUTOPAR_TRY(tied, bool_field(j, type, "tie_word_embeddings", false));
  AUTOPAR_TRY(parallel, bool_field(j, type, "use_parallel_residual", true));
  AUTOPAR_TRY(abias, bool_field(j, type, "attention_bias", true));
  AUTOPAR_TRY(attn_drop, dropout_field(j, type, "attention_dropout", 0.0));
  AUTOPAR_TRY(hidden_drop, dropout_field(j, type, "hidden_dropout", 0.0));
  double rotary = 0.25;
  if (auto it = j.find("rotary_pct"); it != j.end() && !it->is_null()) {
    if (!it->is_number() || !(it->get<double>() > 0 && it->get<double>() <= 1))
      return field_error(ErrorCode::bad_value, type, "rotary_pct", "needs 'rotary_pct' to be a share in (0, 1], not " + it->dump());
    rotary = it->get<double>();
  }
  if (auto st = activation_field(j, type, "hidden_act", "gelu", "GPT-NeoX's MLP is GELU"); !st.ok()) return st.error();
  a.vocab = vocab; a.hidden = hidden; a.layers = layers; a.heads = heads; a.kv_heads = heads;
  a.intermediate = inter; a.context = context; a.tied_embeddings = tied; a.attention_bias = abias; a.mlp_bias = true;
  a.attention_dropout = attn_drop; a.hidden_dropout = hidden_drop; a.parallel_residual = parallel;
  a.norm = "layernorm"; a.mlp = "gelu"; a.position = "rope"; a.rotary_percent = rotary;
  return Ok{};
}

// modeling_falcon.py: multi-query attention (one K/V head) or, with new_decoder_architecture,
// num_kv_heads groups; parallel_attn runs attention and MLP on one input_layernorm (two,
// ln_attn and ln_mlp, in the new architecture); `bias` for every linear; a tied head.
Status read_falcon(const Json& j, const std::string& type, TransformerArch& a) {
  a.family = "gpt_neox";
  AUTOPAR_TRY(vocab, int_field(j, type, "vocab_size", -1));
  AUTOPAR_TRY(hidden, int_field(j, type, "hidden_size", -1));
  AUTOPAR_TRY(layers, int_field(j, type, j.contains("num_hidden_layers") || !j.contains("n_layer") ? "num_hidden_layers" : "n_layer", -1, 2000));
  AUTOPAR_TRY(heads, int_field(j, type, j.contains("num_attention_heads") || !j.contains("n_head") ? "num_attention_heads" : "n_head", -1, 65536));
  AUTOPAR_TRY(new_arch, bool_field(j, type, "new_decoder_architecture", false));
  AUTOPAR_TRY(multi_query, bool_field(j, type, "multi_query", true));
  AUTOPAR_TRY(parallel, bool_field(j, type, "parallel_attn", true));
  AUTOPAR_TRY(bias, bool_field(j, type, "bias", false));
  AUTOPAR_TRY(alibi, bool_field(j, type, "alibi", false));
  AUTOPAR_TRY(tied, bool_field(j, type, "tie_word_embeddings", true));
  AUTOPAR_TRY(kv_given, int_field(j, type, "num_kv_heads", heads, 65536));
  AUTOPAR_TRY(ffn, int_field(j, type, "ffn_hidden_size", 4 * hidden));
  AUTOPAR_TRY(context, int_field(j, type, "max_position_embeddings", 2048));
  AUTOPAR_TRY(norms, int_field(j, type, "num_ln_in_parallel_attn", new_arch ? 2 : 1, 2));
  AUTOPAR_TRY(attn_drop, dropout_field(j, type, "attention_dropout", 0.0));
  AUTOPAR_TRY(hidden_drop, dropout_field(j, type, "hidden_dropout", 0.0));
  if (alibi)
    return field_error(ErrorCode::bad_value, type, "alibi", "with alibi true (ALiBi attention biases instead of rotary positions) is not supported; autopar models Falcon's rotary layout");
  if (auto st = activation_field(j, type, "activation", "gelu", "Falcon's MLP is GELU"); !st.ok()) return st.error();
  const int64_t kv = new_arch ? kv_given : multi_query ? 1 : heads;
  if (heads % kv != 0)
    return field_error(ErrorCode::bad_value, type, "num_kv_heads", "has num_kv_heads " + std::to_string(kv) + ", which does not divide num_attention_heads " + std::to_string(heads));
  a.vocab = vocab; a.hidden = hidden; a.layers = layers; a.heads = heads; a.kv_heads = kv;
  a.intermediate = ffn; a.context = context; a.tied_embeddings = tied; a.attention_bias = bias; a.mlp_bias = bias;
  a.attention_dropout = attn_drop; a.hidden_dropout = hidden_drop;
  a.parallel_residual = parallel || new_arch;
  a.shared_norm = a.parallel_residual && !(new_arch && norms == 2);
  a.norm = "layernorm"; a.mlp = "gelu"; a.position = "rope";
  return Ok{};
}

// modeling_opt.py: learned positions with 2 rows before the first (OPTLearnedPositionalEmbedding's
// offset), biased q/k/v/out_proj and fc1/fc2 with ReLU, LayerNorm before (or, with
// do_layer_norm_before false, after) each block, project_in/out when word_embed_proj_dim
// differs from hidden_size, a head tied to embed_tokens.
Status read_opt(const Json& j, const std::string& type, TransformerArch& a) {
  a.family = "opt";
  AUTOPAR_TRY(vocab, int_field(j, type, "vocab_size", -1));
  AUTOPAR_TRY(hidden, int_field(j, type, "hidden_size", -1));
  AUTOPAR_TRY(ffn, int_field(j, type, "ffn_dim", -1));
  AUTOPAR_TRY(layers, int_field(j, type, "num_hidden_layers", -1, 2000));
  AUTOPAR_TRY(heads, int_field(j, type, "num_attention_heads", -1, 65536));
  AUTOPAR_TRY(positions, int_field(j, type, "max_position_embeddings", 2048));
  AUTOPAR_TRY(proj, int_field(j, type, "word_embed_proj_dim", hidden));
  AUTOPAR_TRY(pre_norm, bool_field(j, type, "do_layer_norm_before", true));
  AUTOPAR_TRY(removed_final, bool_field(j, type, "_remove_final_layer_norm", false));
  AUTOPAR_TRY(bias, bool_field(j, type, "enable_bias", true));
  AUTOPAR_TRY(tied, bool_field(j, type, "tie_word_embeddings", true));
  AUTOPAR_TRY(attn_drop, dropout_field(j, type, "attention_dropout", 0.0));
  AUTOPAR_TRY(hidden_drop, dropout_field(j, type, "dropout", 0.1));
  if (auto st = activation_field(j, type, "activation_function", "relu", "OPT's MLP is ReLU"); !st.ok()) return st.error();
  a.vocab = vocab; a.hidden = hidden; a.layers = layers; a.heads = heads; a.kv_heads = heads;
  a.intermediate = ffn; a.max_positions = positions + 2; a.position_offset = 2; a.context = positions;
  a.tied_embeddings = tied; a.attention_bias = bias; a.mlp_bias = bias; a.attention_dropout = attn_drop; a.hidden_dropout = hidden_drop;
  a.post_norm = !pre_norm; a.embed_dim = proj != hidden ? proj : 0;
  a.norm = "layernorm"; a.mlp = "relu"; a.position = "learned";
  // The final norm exists only with norms before the blocks, and when not removed (OPTDecoder.__init__).
  a.final_norm = pre_norm && !removed_final;
  return Ok{};
}

// bert and roberta (modeling_roberta.py: BERT's layout; positions counted from
// padding_idx + 1, so max_position_embeddings = 514 rows hold 512 positions).
Status read_bert(const Json& j, const std::string& type, TransformerArch& a) {
  a.family = "bert";
  AUTOPAR_TRY(vocab, int_field(j, type, "vocab_size", -1));
  AUTOPAR_TRY(hidden, int_field(j, type, "hidden_size", -1));
  AUTOPAR_TRY(inter, int_field(j, type, "intermediate_size", -1));
  AUTOPAR_TRY(layers, int_field(j, type, "num_hidden_layers", -1, 2000));
  AUTOPAR_TRY(heads, int_field(j, type, "num_attention_heads", -1, 65536));
  AUTOPAR_TRY(positions, int_field(j, type, "max_position_embeddings", -1));
  AUTOPAR_TRY(types, int_field(j, type, "type_vocab_size", type == "roberta" ? 1 : 2));
  AUTOPAR_TRY(attn_drop, dropout_field(j, type, "attention_probs_dropout_prob", 0.1));
  AUTOPAR_TRY(hidden_drop, dropout_field(j, type, "hidden_dropout_prob", 0.1));
  if (auto st = activation_field(j, type, "hidden_act", "gelu", "BERT's MLP is GELU"); !st.ok()) return st.error();
  int64_t offset = 0;
  if (type == "roberta") {
    // padding_idx may be 0 (then positions start at 1); a non-integer is the wrong type.
    int64_t pad = 1;
    if (auto it = j.find("pad_token_id"); it != j.end() && !it->is_null()) {
      if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() >= positions)
        return field_error(ErrorCode::bad_value, type, "pad_token_id", "needs 'pad_token_id' to be a token id below max_position_embeddings, not " + it->dump());
      pad = it->get<int64_t>();
    }
    offset = pad + 1;
    if (offset >= positions)
      return field_error(ErrorCode::out_of_range, type, "max_position_embeddings", "has max_position_embeddings " + std::to_string(positions) +
                                                                               ", which leaves no position after padding_idx " + std::to_string(pad));
  }
  a.vocab = vocab; a.hidden = hidden; a.layers = layers; a.heads = heads; a.kv_heads = heads;
  a.intermediate = inter; a.max_positions = positions; a.position_offset = offset; a.context = positions - offset; a.type_vocab = types;
  a.attention_bias = true; a.mlp_bias = true; a.attention_dropout = attn_drop; a.hidden_dropout = hidden_drop;
  a.norm = "layernorm"; a.mlp = "gelu"; a.position = "learned"; a.post_norm = true;
  return Ok{};
}

// Each model_type autopar reads, with the reader of its family's fields (the families that keep
// Llama's layout share one reader).
struct HfFamily {
  const char* model_type;
  Status (*read)(const Json& j, const std::string& type, TransformerArch& a);
};
const HfFamily kHfFamilies[] = {
    {"gpt2", read_gpt2},           {"llama", read_llama_like}, {"mistral", read_llama_like}, {"mixtral", read_llama_like},
    {"qwen2", read_llama_like},    {"qwen2_moe", read_llama_like}, {"gemma", read_llama_like}, {"phi3", read_llama_like},
    {"gpt_neox", read_gpt_neox},   {"falcon", read_falcon},    {"opt", read_opt},            {"bert", read_bert},
    {"roberta", read_bert},
};

const std::vector<std::string>& supported_types() {
  static const std::vector<std::string> t = [] {
    std::vector<std::string> types;
    for (const HfFamily& f : kHfFamilies) types.push_back(f.model_type);
    return types;
  }();
  return t;
}

}  // namespace

Result<TransformerArch> arch_from_hf_config(const Json& j, const std::string& name) {
  if (!j.is_object()) return make_error(ErrorCode::wrong_type, "a config.json must be an object", "");
  auto mt = j.find("model_type");
  if (mt == j.end()) return make_error(ErrorCode::missing_field, "a Hugging Face config needs 'model_type' (a string such as \"llama\")", "model_type");
  if (!mt->is_string()) return make_error(ErrorCode::wrong_type, "'model_type' must be a string such as \"llama\", not " + std::string(mt->type_name()), "model_type");
  const std::string type = mt->get<std::string>();
  if (contains(encoder_decoder_types(), type)) return make_error(ErrorCode::unknown_model, encoder_decoder_reason(type), "model_type");
  if (!contains(supported_types(), type))
    return make_error(ErrorCode::unknown_model, "model_type '" + type + "' is not supported; autopar reads " + supported_list() + " configs", "model_type");
  const bool moe_type = type == "mixtral" || type == "qwen2_moe";
  if (auto st = check_consistent(j, type, moe_type); !st.ok()) return st.error();
  AUTOPAR_TRY(dtype_bytes, dtype_field(j));
  TransformerArch a;
  a.name = name;
  a.model_type = type;
  a.dtype_bytes = dtype_bytes;
  if (dtype_bytes > 0) a.torch_dtype = j.at(j.contains("torch_dtype") ? "torch_dtype" : "dtype").get<std::string>();
  // Numbers only the exports read (Megatron's --rotary-base, --norm-epsilon); a value of the
  // wrong type is left at its default rather than refused, as no count depends on it.
  a.rope_theta = number_or(j, j.contains("rope_theta") ? "rope_theta" : "rotary_emb_base", 10000);
  for (const char* key : {"rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "norm_eps"})
    if (a.norm_epsilon == 0) a.norm_epsilon = number_or(j, key, 0);
  for (const HfFamily& family : kHfFamilies)
    if (type == family.model_type) {
      if (auto st = family.read(j, type, a); !st.ok()) return st.error();
      break;
    }
  if (a.head_dim == 0 && a.hidden % a.heads != 0)
    return make_error(ErrorCode::bad_value, "a " + type + " config has a hidden size of " + std::to_string(a.hidden) +
                                       ", which " + std::to_string(a.heads) + " attention heads do not divide",
                      type == "gpt2" ? "n_head" : "num_attention_heads");
  return a;
}

Status apply_transformer_overrides(const std::string& overrides, TrainingShape& shape, TransformerArch& arch,
                                   const std::string& arg_path) {
  const std::vector<OptionItem> items = split_options(overrides);
  if (std::string c = conflicting_option(items); !c.empty()) return make_error(ErrorCode::bad_value, c, arg_path);
  for (const OptionItem& item : items) {
    const std::string& key = item.key;
    int64_t* target = key == "batch" ? &shape.batch : key == "seq" ? &shape.seq : key == "dtype_bytes" ? &shape.dtype_bytes
                      : key == "layers" ? &arch.layers : nullptr;
    if (!target)
      return make_error(ErrorCode::unknown_param, "model '" + arch.name + "' has no parameter '" + key + "'; its parameters: batch, seq, dtype_bytes, layers",
                        arg_path);
    int64_t v = 0;
    if (!item.has_value || !parse_whole_number(item.value, v))
      return make_error(ErrorCode::bad_value, "parameter '" + key + "' of model '" + arch.name + "' needs a whole number, as in " + key + "=8", arg_path);
    const int64_t hi = key == "layers" ? 2000 : key == "dtype_bytes" ? 8 : int64_t(1) << 30;
    if (v < 1 || v > hi)
      return make_error(ErrorCode::out_of_range, "parameter '" + key + "' of model '" + arch.name + "' is " + std::to_string(v) +
                                            "; it must be between 1 and " + std::to_string(hi), arg_path);
    *target = v;
  }
  return Ok{};
}

Result<ModelSpec> transformer_model_spec(const TransformerArch& a, const TrainingShape& shape, const std::string& arg_path) {
  auto ft = float_dtype_for_bytes(shape.dtype_bytes);
  if (!ft) return make_error(ErrorCode::bad_value, "dtype_bytes must be 2, 4 or 8", arg_path);
  const int64_t b = shape.batch;
  const int64_t s = shape.seq > 0 ? shape.seq : std::min<int64_t>(a.context > 0 ? a.context : 2048, 4096);
  // A learned table's first position_offset rows hold no position (OPT's offset, RoBERTa's
  // padding_idx + 1), so it holds max_positions - position_offset positions.
  const int64_t usable_positions = a.max_positions - a.position_offset;
  if (a.max_positions > 0 && s > usable_positions)
    return make_error(ErrorCode::out_of_range, "seq " + std::to_string(s) + " is longer than the " + std::to_string(usable_positions) +
                                          " learned positions of model '" + a.name + "'; use seq=" + std::to_string(usable_positions) + " or less",
                      arg_path);
  SpecBuilder m(a.name, *ft);
  const int64_t h = a.hidden, head_dim = a.head_width();
  const bool gqa = a.kv_heads != a.heads;
  std::map<std::string, int64_t> attn{{"heads", a.heads}};
  if (gqa) attn["kv_heads"] = a.kv_heads;
  if (a.attention_dropout) attn["dropout"] = 1;
  const int64_t qkv_width = (a.heads + 2 * a.kv_heads) * head_dim;
  const int64_t ab = a.attention_bias ? 1 : 0, mb = a.mlp_bias ? 1 : 0, qkv_b = a.attention_bias || a.qkv_bias_only ? 1 : 0;
  auto tokens = m.input("tokens", {b, s}, DType::i32);
  std::string x;
  if (a.family == "gpt2") {
    auto positions = m.input("positions", {b, s}, DType::i32);
    auto wte = m.op(OpKind::embedding, "wte", {tokens}, {{"num_embeddings", a.vocab}, {"embedding_dim", h}});
    auto wpe = m.op(OpKind::embedding, "wpe", {positions}, {{"num_embeddings", a.max_positions}, {"embedding_dim", h}});
    x = m.op(OpKind::add, "embed", {wte, wpe});
    if (a.hidden_dropout) x = m.op(OpKind::dropout, "embed_drop", {x});
    for (int64_t i = 1; i <= a.layers; ++i) {
      const std::string l = std::to_string(i);
      auto y = m.op(OpKind::layernorm, "ln1_" + l, {x});
      y = m.op(OpKind::linear, "qkv_" + l, {y}, {{"out_features", 3 * h}, {"bias", ab}});
      y = m.op(OpKind::attention, "attn_" + l, {y}, attn);
      y = m.op(OpKind::linear, "proj_" + l, {y}, {{"out_features", h}, {"bias", ab}});
      if (a.hidden_dropout) y = m.op(OpKind::dropout, "drop1_" + l, {y});
      x = m.op(OpKind::add, "res1_" + l, {x, y});
      y = m.op(OpKind::layernorm, "ln2_" + l, {x});
      y = m.op(OpKind::linear, "ffn1_" + l, {y}, {{"out_features", a.intermediate}, {"bias", mb}}, "gelu");
      y = m.op(OpKind::linear, "ffn2_" + l, {y}, {{"out_features", h}, {"bias", mb}});
      if (a.hidden_dropout) y = m.op(OpKind::dropout, "drop2_" + l, {y});
      x = m.op(OpKind::add, "res2_" + l, {x, y});
    }
    x = m.op(OpKind::layernorm, "ln_f", {x});
    x = m.op(OpKind::linear, "lm_head", {x}, {{"out_features", a.vocab}, {"bias", 0}}, "none", a.tied_embeddings ? "wte" : "");
    m.op(OpKind::loss, "loss", {x});
  } else if (a.family == "llama") {
    const OpKind gated = a.mlp == "geglu" ? OpKind::geglu : OpKind::swiglu;
    const std::string gated_name = a.mlp == "geglu" ? "geglu_" : "swiglu_";
    // Gemma multiplies the embeddings by sqrt(hidden): a scale, no parameter.
    x = m.op(OpKind::embedding, "embed_tokens", {tokens}, {{"num_embeddings", a.vocab}, {"embedding_dim", h}});
    if (a.hidden_dropout) x = m.op(OpKind::dropout, "embed_drop", {x});
    for (int64_t i = 1; i <= a.layers; ++i) {
      const std::string l = std::to_string(i);
      auto y = m.op(OpKind::rmsnorm, "norm1_" + l, {x});
      // q_proj, k_proj and v_proj side by side (K and V are kv_heads wide; Phi-3's qkv_proj is
      // this op as it is).
      y = m.op(OpKind::linear, "qkv_" + l, {y}, {{"out_features", qkv_width}, {"bias", qkv_b}});
      y = m.op(OpKind::attention, "attn_" + l, {y}, attn);
      y = m.op(OpKind::linear, "o_proj_" + l, {y}, {{"out_features", h}, {"bias", ab}});
      if (a.hidden_dropout) y = m.op(OpKind::dropout, "drop1_" + l, {y});
      x = m.op(OpKind::add, "res1_" + l, {x, y});
      auto n2 = m.op(OpKind::rmsnorm, "norm2_" + l, {x});
      if (a.is_moe_layer(i - 1)) {
        // The routed experts as one moe op (router + SwiGLU experts); Qwen2-MoE's shared expert
        // is a dense SwiGLU MLP beside it, its sigmoid gate one more router column.
        const int64_t shared = a.shared_expert_intermediate > 0 ? 1 : 0;
        std::map<std::string, int64_t> moe{{"experts", a.experts}, {"ffn", a.moe_intermediate > 0 ? a.moe_intermediate : a.intermediate},
                                           {"top_k", a.experts_per_token}};
        if (a.mlp != "gelu") moe["gated"] = 1;
        if (shared) moe["shared_gate"] = 1;
        y = m.op(OpKind::moe, "moe_" + l, {n2}, moe);
        if (shared) {
          auto e = m.op(OpKind::linear, "shared_gate_up_" + l, {n2}, {{"out_features", 2 * a.shared_expert_intermediate}, {"bias", 0}});
          e = m.op(gated, "shared_" + gated_name + l, {e});
          e = m.op(OpKind::linear, "shared_down_" + l, {e}, {{"out_features", h}, {"bias", 0}});
          y = m.op(OpKind::add, "moe_sum_" + l, {y, e});
        }
      } else {
        // gate_proj and up_proj side by side (Phi-3's gate_up_proj), then act(gate) * up and down_proj.
        y = m.op(OpKind::linear, "gate_up_" + l, {n2}, {{"out_features", 2 * a.intermediate}, {"bias", mb}});
        y = m.op(gated, gated_name + l, {y});
        y = m.op(OpKind::linear, "down_" + l, {y}, {{"out_features", h}, {"bias", mb}});
      }
      if (a.hidden_dropout) y = m.op(OpKind::dropout, "drop2_" + l, {y});
      x = m.op(OpKind::add, "res2_" + l, {x, y});
    }
    x = m.op(OpKind::rmsnorm, "norm", {x});
    x = m.op(OpKind::linear, "lm_head", {x}, {{"out_features", a.vocab}, {"bias", 0}}, "none", a.tied_embeddings ? "embed_tokens" : "");
    m.op(OpKind::loss, "loss", {x});
  } else if (a.family == "gpt_neox") {
    // GPT-NeoX and Falcon: rotary positions, LayerNorm, a GELU MLP; parallel residual blocks
    // add attention and MLP to the same input in one add.
    x = m.op(OpKind::embedding, "embed_in", {tokens}, {{"num_embeddings", a.vocab}, {"embedding_dim", h}});
    if (a.hidden_dropout) x = m.op(OpKind::dropout, "embed_drop", {x});
    for (int64_t i = 1; i <= a.layers; ++i) {
      const std::string l = std::to_string(i);
      auto n1 = m.op(OpKind::layernorm, "ln1_" + l, {x});
      std::string n2;
      if (a.parallel_residual) n2 = a.shared_norm ? n1 : m.op(OpKind::layernorm, "ln2_" + l, {x});
      auto y = m.op(OpKind::linear, "qkv_" + l, {n1}, {{"out_features", qkv_width}, {"bias", ab}});
      y = m.op(OpKind::attention, "attn_" + l, {y}, attn);
      y = m.op(OpKind::linear, "proj_" + l, {y}, {{"out_features", h}, {"bias", ab}});
      if (!a.parallel_residual) {
        if (a.hidden_dropout) y = m.op(OpKind::dropout, "drop1_" + l, {y});
        x = m.op(OpKind::add, "res1_" + l, {x, y});
        n2 = m.op(OpKind::layernorm, "ln2_" + l, {x});
      }
      auto f = m.op(OpKind::linear, "ffn1_" + l, {n2}, {{"out_features", a.intermediate}, {"bias", mb}}, "gelu");
      f = m.op(OpKind::linear, "ffn2_" + l, {f}, {{"out_features", h}, {"bias", mb}});
      if (a.parallel_residual) f = m.op(OpKind::add, "branches_" + l, {y, f});
      if (a.hidden_dropout) f = m.op(OpKind::dropout, "drop2_" + l, {f});
      x = m.op(OpKind::add, "res2_" + l, {x, f});
    }
    x = m.op(OpKind::layernorm, "ln_f", {x});
    x = m.op(OpKind::linear, "lm_head", {x}, {{"out_features", a.vocab}, {"bias", 0}}, "none", a.tied_embeddings ? "embed_in" : "");
    m.op(OpKind::loss, "loss", {x});
  } else if (a.family == "opt") {
    const int64_t e = a.embed_dim > 0 ? a.embed_dim : h;
    auto positions = m.input("positions", {b, s}, DType::i32);
    x = m.op(OpKind::embedding, "embed_tokens", {tokens}, {{"num_embeddings", a.vocab}, {"embedding_dim", e}});
    if (a.embed_dim > 0) x = m.op(OpKind::linear, "project_in", {x}, {{"out_features", h}, {"bias", 0}});
    auto pe = m.op(OpKind::embedding, "embed_positions", {positions}, {{"num_embeddings", a.max_positions}, {"embedding_dim", h}});
    x = m.op(OpKind::add, "embed", {x, pe});
    if (a.hidden_dropout) x = m.op(OpKind::dropout, "embed_drop", {x});
    for (int64_t i = 1; i <= a.layers; ++i) {
      const std::string l = std::to_string(i);
      auto y = a.post_norm ? x : m.op(OpKind::layernorm, "ln1_" + l, {x});
      y = m.op(OpKind::linear, "qkv_" + l, {y}, {{"out_features", qkv_width}, {"bias", ab}});
      y = m.op(OpKind::attention, "attn_" + l, {y}, attn);
      y = m.op(OpKind::linear, "proj_" + l, {y}, {{"out_features", h}, {"bias", ab}});
      if (a.hidden_dropout) y = m.op(OpKind::dropout, "drop1_" + l, {y});
      x = m.op(OpKind::add, "res1_" + l, {x, y});
      if (a.post_norm) x = m.op(OpKind::layernorm, "ln1_" + l, {x});
      y = a.post_norm ? x : m.op(OpKind::layernorm, "ln2_" + l, {x});
      y = m.op(OpKind::linear, "ffn1_" + l, {y}, {{"out_features", a.intermediate}, {"bias", mb}}, "relu");
      y = m.op(OpKind::linear, "ffn2_" + l, {y}, {{"out_features", h}, {"bias", mb}});
      if (a.hidden_dropout) y = m.op(OpKind::dropout, "drop2_" + l, {y});
      x = m.op(OpKind::add, "res2_" + l, {x, y});
      if (a.post_norm) x = m.op(OpKind::layernorm, "ln2_" + l, {x});
    }
    if (a.final_norm) x = m.op(OpKind::layernorm, "ln_f", {x});
    if (a.embed_dim > 0) x = m.op(OpKind::linear, "project_out", {x}, {{"out_features", e}, {"bias", 0}});
    x = m.op(OpKind::linear, "lm_head", {x}, {{"out_features", a.vocab}, {"bias", 0}}, "none", a.tied_embeddings ? "embed_tokens" : "");
    m.op(OpKind::loss, "loss", {x});
  } else {
    auto positions = m.input("positions", {b, s}, DType::i32);
    auto types = m.input("token_types", {b, s}, DType::i32);
    auto we = m.op(OpKind::embedding, "word_embeddings", {tokens}, {{"num_embeddings", a.vocab}, {"embedding_dim", h}});
    auto pe = m.op(OpKind::embedding, "position_embeddings", {positions}, {{"num_embeddings", a.max_positions}, {"embedding_dim", h}});
    auto te = m.op(OpKind::embedding, "token_type_embeddings", {types}, {{"num_embeddings", a.type_vocab}, {"embedding_dim", h}});
    x = m.op(OpKind::add, "embed_add1", {we, pe});
    x = m.op(OpKind::add, "embed_add2", {x, te});
    x = m.op(OpKind::layernorm, "embed_ln", {x});
    if (a.hidden_dropout) x = m.op(OpKind::dropout, "embed_drop", {x});
    for (int64_t i = 1; i <= a.layers; ++i) {
      const std::string l = std::to_string(i);
      auto y = m.op(OpKind::linear, "qkv_" + l, {x}, {{"out_features", 3 * h}, {"bias", ab}});
      y = m.op(OpKind::attention, "attn_" + l, {y}, attn);
      y = m.op(OpKind::linear, "proj_" + l, {y}, {{"out_features", h}, {"bias", ab}});
      if (a.hidden_dropout) y = m.op(OpKind::dropout, "drop1_" + l, {y});
      x = m.op(OpKind::add, "res1_" + l, {x, y});
      x = m.op(OpKind::layernorm, "ln1_" + l, {x});
      y = m.op(OpKind::linear, "ffn1_" + l, {x}, {{"out_features", a.intermediate}, {"bias", mb}}, "gelu");
      y = m.op(OpKind::linear, "ffn2_" + l, {y}, {{"out_features", h}, {"bias", mb}});
      if (a.hidden_dropout) y = m.op(OpKind::dropout, "drop2_" + l, {y});
      x = m.op(OpKind::add, "res2_" + l, {x, y});
      x = m.op(OpKind::layernorm, "ln2_" + l, {x});
    }
    x = m.op(OpKind::first_token, "cls", {x});
    x = m.op(OpKind::linear, "pooler", {x}, {{"out_features", h}, {"bias", 1}}, "tanh");
    m.op(OpKind::loss, "loss", {x});
  }
  m.spec().arch = std::make_shared<const TransformerArch>(a);
  return m.take();
}

const std::map<std::string, TransformerArch>& transformer_presets() {
  static const std::map<std::string, TransformerArch> presets = [] {
    std::map<std::string, TransformerArch> p;
    // GPT-3 175B (Brown et al. 2020, Table 2.1: 96 layers, d_model 12288, 96 heads of 128,
    // context 2048; GPT-2's architecture and its 50257-token vocabulary). Dropout as in
    // Korthikanti et al.'s activation analysis of the same model.
    TransformerArch g;
    g.name = "gpt3-175b"; g.family = "gpt2"; g.vocab = 50257; g.hidden = 12288; g.layers = 96; g.heads = 96; g.kv_heads = 96;
    g.intermediate = 4 * 12288; g.max_positions = 2048; g.context = 2048; g.tied_embeddings = true;
    g.attention_bias = true; g.mlp_bias = true; g.attention_dropout = true; g.hidden_dropout = true;
    g.model_type = "gpt2";
    p[g.name] = g;
    // Llama 2 (Touvron et al. 2023; the published config.json files): 7B is 32 layers of 4096
    // with 32 heads and an 11008-wide SwiGLU; 70B is 80 layers of 8192 with 64 query heads
    // sharing 8 K/V heads and a 28672-wide SwiGLU. Vocabulary 32000, context 4096, untied head.
    TransformerArch l;
    l.name = "llama2-7b"; l.family = "llama"; l.model_type = "llama"; l.vocab = 32000; l.hidden = 4096; l.layers = 32; l.heads = 32; l.kv_heads = 32;
    l.intermediate = 11008; l.context = 4096; l.norm = "rmsnorm"; l.mlp = "swiglu"; l.position = "rope";
    p[l.name] = l;
    l.name = "llama2-70b"; l.hidden = 8192; l.layers = 80; l.heads = 64; l.kv_heads = 8; l.intermediate = 28672;
    p[l.name] = l;
    return p;
  }();
  return presets;
}

}  // namespace autopar
