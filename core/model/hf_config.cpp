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

namespace autopar {
namespace {

// Appends ops named after their output; keeps the code below close to the reference models.
class Builder {
 public:
  explicit Builder(ModelSpec& spec) : spec_(spec) {}
  std::string input(const std::string& name, Shape shape, DType dtype) {
    spec_.inputs.push_back(Tensor{name, std::move(shape), dtype});
    return name;
  }
  std::string op(OpKind kind, const std::string& name, std::vector<std::string> inputs,
                 std::map<std::string, int64_t> attrs = {}, const std::string& activation = "none",
                 const std::string& weight_from = "") {
    OpSpec o;
    o.name = name;
    o.kind = kind;
    o.inputs = std::move(inputs);
    o.output = name;
    o.attrs = std::move(attrs);
    o.activation = activation;
    o.weight_from = weight_from;
    spec_.ops.push_back(std::move(o));
    return name;
  }

 private:
  ModelSpec& spec_;
};

Error field_error(const std::string& code, const std::string& family, const std::string& key, const std::string& what) {
  return make_error(code, "a " + family + " config " + what, key);
}

// A positive integer field; `fallback` < 0 means required.
Result<int64_t> int_field(const Json& j, const std::string& family, const std::string& key, int64_t fallback,
                          int64_t max_value = int64_t(1) << 30) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (fallback >= 0) return fallback;
    return field_error("missing_field", family, key, "needs '" + key + "' (a positive integer); add it to config.json");
  }
  // A float counts when it is whole (4096.0); trunc, not a cast, tests it: casting 1e60 to an
  // integer is undefined.
  const bool whole = it->is_number_integer() || (it->is_number_float() && std::isfinite(it->get<double>()) &&
                                                 std::trunc(it->get<double>()) == it->get<double>());
  if (!whole) return field_error("wrong_type", family, key, "needs '" + key + "' to be a whole number, not " + it->dump());
  const double v = it->get<double>();
  if (v < 1 || v > double(max_value))
    return field_error("out_of_range", family, key, "has '" + key + "' = " + it->dump() + "; it must be between 1 and " + std::to_string(max_value));
  return int64_t(v);
}

Result<bool> bool_field(const Json& j, const std::string& family, const std::string& key, bool fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return field_error("wrong_type", family, key, "needs '" + key + "' to be true or false, not " + it->dump());
  return it->get<bool>();
}

// A dropout probability: present and above zero means the model applies dropout there.
Result<bool> dropout_field(const Json& j, const std::string& family, const std::string& key, double fallback) {
  auto it = j.find(key);
  double p = fallback;
  if (it != j.end() && !it->is_null()) {
    if (!it->is_number()) return field_error("wrong_type", family, key, "needs '" + key + "' to be a probability, not " + it->dump());
    p = it->get<double>();
    if (!(p >= 0 && p < 1)) return field_error("out_of_range", family, key, "has '" + key + "' = " + it->dump() + "; a dropout probability is in [0, 1)");
  }
  return p > 0;
}

#define AUTOPAR_FIELD(var, expr) \
  auto var##_r = (expr);         \
  if (!var##_r.ok()) return var##_r.error(); \
  auto var = var##_r.value()

}  // namespace

bool is_hf_config(const Json& j) { return j.is_object() && j.contains("model_type") && !j.contains("ops"); }

Result<TransformerArch> arch_from_hf_config(const Json& j, const std::string& name) {
  if (!j.is_object()) return make_error("wrong_type", "a config.json must be an object", "");
  auto mt = j.find("model_type");
  if (mt == j.end()) return make_error("missing_field", "a Hugging Face config needs 'model_type' (a string such as \"llama\")", "model_type");
  if (!mt->is_string()) return make_error("wrong_type", "'model_type' must be a string such as \"llama\", not " + std::string(mt->type_name()), "model_type");
  const std::string type = mt->get<std::string>();
  TransformerArch a;
  a.name = name;
  if (type == "gpt2") {
    a.family = "gpt2";
    AUTOPAR_FIELD(vocab, int_field(j, type, "vocab_size", -1));
    AUTOPAR_FIELD(hidden, int_field(j, type, "n_embd", -1));
    AUTOPAR_FIELD(layers, int_field(j, type, "n_layer", -1, 2000));
    AUTOPAR_FIELD(heads, int_field(j, type, "n_head", -1, 65536));
    // n_positions, or n_ctx in older configs.
    AUTOPAR_FIELD(positions, int_field(j, type, !j.contains("n_positions") && j.contains("n_ctx") ? "n_ctx" : "n_positions", -1));
    AUTOPAR_FIELD(inner, int_field(j, type, "n_inner", 4 * hidden));
    AUTOPAR_FIELD(tied, bool_field(j, type, "tie_word_embeddings", true));
    AUTOPAR_FIELD(attn_drop, dropout_field(j, type, "attn_pdrop", 0.1));
    AUTOPAR_FIELD(resid_drop, dropout_field(j, type, "resid_pdrop", 0.1));
    a.vocab = vocab; a.hidden = hidden; a.layers = layers; a.heads = heads; a.kv_heads = heads;
    a.intermediate = inner; a.max_positions = positions; a.context = positions;
    a.tied_embeddings = tied; a.attention_bias = true; a.mlp_bias = true;
    a.attention_dropout = attn_drop; a.hidden_dropout = resid_drop;
    a.norm = "layernorm"; a.mlp = "gelu"; a.position = "learned";
    if (auto act = j.find("activation_function"); act != j.end() && act->is_string() &&
        act->get<std::string>().compare(0, 4, "gelu") != 0)
      return field_error("bad_value", type, "activation_function", "with activation_function '" + act->get<std::string>() +
                                                                     "' is not supported; autopar models GPT-2's GELU MLP");
  } else if (type == "llama" || type == "mistral") {
    a.family = "llama";
    AUTOPAR_FIELD(vocab, int_field(j, type, "vocab_size", -1));
    AUTOPAR_FIELD(hidden, int_field(j, type, "hidden_size", -1));
    AUTOPAR_FIELD(inter, int_field(j, type, "intermediate_size", -1));
    AUTOPAR_FIELD(layers, int_field(j, type, "num_hidden_layers", -1, 2000));
    AUTOPAR_FIELD(heads, int_field(j, type, "num_attention_heads", -1, 65536));
    AUTOPAR_FIELD(kv, int_field(j, type, "num_key_value_heads", heads, 65536));
    AUTOPAR_FIELD(context, int_field(j, type, "max_position_embeddings", 4096));
    AUTOPAR_FIELD(tied, bool_field(j, type, "tie_word_embeddings", false));
    AUTOPAR_FIELD(abias, bool_field(j, type, "attention_bias", false));
    AUTOPAR_FIELD(mbias, bool_field(j, type, "mlp_bias", false));
    AUTOPAR_FIELD(attn_drop, dropout_field(j, type, "attention_dropout", 0.0));
    if (auto hd = j.find("head_dim"); hd != j.end() && !hd->is_null()) {
      AUTOPAR_FIELD(head_dim, int_field(j, type, "head_dim", -1));
      if (head_dim * heads != hidden)
        return field_error("bad_value", type, "head_dim", "has head_dim " + std::to_string(head_dim) + " x " + std::to_string(heads) +
                                                          " heads != hidden_size " + std::to_string(hidden) + "; autopar models head_dim = hidden_size / heads");
    }
    if (heads % kv != 0)
      return field_error("bad_value", type, "num_key_value_heads", "has num_key_value_heads " + std::to_string(kv) +
                                                                     ", which does not divide num_attention_heads " + std::to_string(heads));
    if (auto act = j.find("hidden_act"); act != j.end() && act->is_string() && act->get<std::string>() != "silu")
      return field_error("bad_value", type, "hidden_act", "with hidden_act '" + act->get<std::string>() +
                                                          "' is not supported; Llama and Mistral use silu (SwiGLU)");
    a.vocab = vocab; a.hidden = hidden; a.layers = layers; a.heads = heads; a.kv_heads = kv;
    a.intermediate = inter; a.context = context; a.tied_embeddings = tied;
    a.attention_bias = abias; a.mlp_bias = mbias; a.attention_dropout = attn_drop;
    a.norm = "rmsnorm"; a.mlp = "swiglu"; a.position = "rope";
  } else if (type == "bert") {
    a.family = "bert";
    AUTOPAR_FIELD(vocab, int_field(j, type, "vocab_size", -1));
    AUTOPAR_FIELD(hidden, int_field(j, type, "hidden_size", -1));
    AUTOPAR_FIELD(inter, int_field(j, type, "intermediate_size", -1));
    AUTOPAR_FIELD(layers, int_field(j, type, "num_hidden_layers", -1, 2000));
    AUTOPAR_FIELD(heads, int_field(j, type, "num_attention_heads", -1, 65536));
    AUTOPAR_FIELD(positions, int_field(j, type, "max_position_embeddings", -1));
    AUTOPAR_FIELD(types, int_field(j, type, "type_vocab_size", 2));
    AUTOPAR_FIELD(attn_drop, dropout_field(j, type, "attention_probs_dropout_prob", 0.1));
    AUTOPAR_FIELD(hidden_drop, dropout_field(j, type, "hidden_dropout_prob", 0.1));
    a.vocab = vocab; a.hidden = hidden; a.layers = layers; a.heads = heads; a.kv_heads = heads;
    a.intermediate = inter; a.max_positions = positions; a.context = positions; a.type_vocab = types;
    a.attention_bias = true; a.mlp_bias = true; a.attention_dropout = attn_drop; a.hidden_dropout = hidden_drop;
    a.norm = "layernorm"; a.mlp = "gelu"; a.position = "learned"; a.post_norm = true;
  } else {
    return make_error("unknown_model", "model_type '" + type + "' is not supported; autopar reads gpt2, llama, mistral and bert configs",
                      "model_type");
  }
  if (a.hidden % a.heads != 0)
    return make_error("bad_value", "a " + type + " config has a hidden size of " + std::to_string(a.hidden) +
                                       ", which " + std::to_string(a.heads) + " attention heads do not divide",
                      type == "gpt2" ? "n_head" : "num_attention_heads");
  return a;
}

Status apply_transformer_overrides(const std::string& overrides, TrainingShape& shape, TransformerArch& arch,
                                   const std::string& arg_path) {
  const std::vector<OptionItem> items = split_options(overrides);
  if (std::string c = conflicting_option(items); !c.empty()) return make_error("bad_value", c, arg_path);
  for (const OptionItem& item : items) {
    const std::string& key = item.key;
    int64_t* target = key == "batch" ? &shape.batch : key == "seq" ? &shape.seq : key == "dtype_bytes" ? &shape.dtype_bytes
                      : key == "layers" ? &arch.layers : nullptr;
    if (!target)
      return make_error("unknown_param", "model '" + arch.name + "' has no parameter '" + key + "'; its parameters: batch, seq, dtype_bytes, layers",
                        arg_path);
    int64_t v = 0;
    if (!item.has_value || !parse_whole_number(item.value, v))
      return make_error("bad_value", "parameter '" + key + "' of model '" + arch.name + "' needs a whole number, as in " + key + "=8", arg_path);
    const int64_t hi = key == "layers" ? 2000 : key == "dtype_bytes" ? 8 : int64_t(1) << 30;
    if (v < 1 || v > hi)
      return make_error("out_of_range", "parameter '" + key + "' of model '" + arch.name + "' is " + std::to_string(v) +
                                            "; it must be between 1 and " + std::to_string(hi), arg_path);
    *target = v;
  }
  return Ok{};
}

Result<ModelSpec> transformer_model_spec(const TransformerArch& a, const TrainingShape& shape, const std::string& arg_path) {
  auto ft = float_dtype_for_bytes(shape.dtype_bytes);
  if (!ft) return make_error("bad_value", "dtype_bytes must be 2, 4 or 8", arg_path);
  const int64_t b = shape.batch;
  const int64_t s = shape.seq > 0 ? shape.seq : std::min<int64_t>(a.context > 0 ? a.context : 2048, 4096);
  if (a.max_positions > 0 && s > a.max_positions)
    return make_error("out_of_range", "seq " + std::to_string(s) + " is longer than the " + std::to_string(a.max_positions) +
                                          " learned positions of model '" + a.name + "'; use seq=" + std::to_string(a.max_positions) + " or less",
                      arg_path);
  ModelSpec spec;
  spec.name = a.name;
  spec.dtype = *ft;
  Builder m(spec);
  const int64_t h = a.hidden, head_dim = a.hidden / a.heads;
  const bool gqa = a.kv_heads != a.heads;
  std::map<std::string, int64_t> attn{{"heads", a.heads}};
  if (gqa) attn["kv_heads"] = a.kv_heads;
  if (a.attention_dropout) attn["dropout"] = 1;
  const int64_t qkv_width = (a.heads + 2 * a.kv_heads) * head_dim;
  const int64_t ab = a.attention_bias ? 1 : 0, mb = a.mlp_bias ? 1 : 0;
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
    x = m.op(OpKind::embedding, "embed_tokens", {tokens}, {{"num_embeddings", a.vocab}, {"embedding_dim", h}});
    for (int64_t i = 1; i <= a.layers; ++i) {
      const std::string l = std::to_string(i);
      auto y = m.op(OpKind::rmsnorm, "norm1_" + l, {x});
      // q_proj, k_proj and v_proj side by side (K and V are kv_heads wide).
      y = m.op(OpKind::linear, "qkv_" + l, {y}, {{"out_features", qkv_width}, {"bias", ab}});
      y = m.op(OpKind::attention, "attn_" + l, {y}, attn);
      y = m.op(OpKind::linear, "o_proj_" + l, {y}, {{"out_features", h}, {"bias", ab}});
      x = m.op(OpKind::add, "res1_" + l, {x, y});
      y = m.op(OpKind::rmsnorm, "norm2_" + l, {x});
      // gate_proj and up_proj side by side, then silu(gate) * up and down_proj.
      y = m.op(OpKind::linear, "gate_up_" + l, {y}, {{"out_features", 2 * a.intermediate}, {"bias", mb}});
      y = m.op(OpKind::swiglu, "swiglu_" + l, {y});
      y = m.op(OpKind::linear, "down_" + l, {y}, {{"out_features", h}, {"bias", mb}});
      x = m.op(OpKind::add, "res2_" + l, {x, y});
    }
    x = m.op(OpKind::rmsnorm, "norm", {x});
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
  return spec;
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
    p[g.name] = g;
    // Llama 2 (Touvron et al. 2023; the published config.json files): 7B is 32 layers of 4096
    // with 32 heads and an 11008-wide SwiGLU; 70B is 80 layers of 8192 with 64 query heads
    // sharing 8 K/V heads and a 28672-wide SwiGLU. Vocabulary 32000, context 4096, untied head.
    TransformerArch l;
    l.name = "llama2-7b"; l.family = "llama"; l.vocab = 32000; l.hidden = 4096; l.layers = 32; l.heads = 32; l.kv_heads = 32;
    l.intermediate = 11008; l.context = 4096; l.norm = "rmsnorm"; l.mlp = "swiglu"; l.position = "rope";
    p[l.name] = l;
    l.name = "llama2-70b"; l.hidden = 8192; l.layers = 80; l.heads = 64; l.kv_heads = 8; l.intermediate = 28672;
    p[l.name] = l;
    return p;
  }();
  return presets;
}

}  // namespace autopar
