// The built-in models (INTERFACES.md "Inputs") and the model-argument parser. Each model is a
// ModelSpec built by a small builder, so it goes through the same validation as a JSON file.
#include "models.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "hf_config.h"
#include "json_io.h"
#include "spec_builder.h"

namespace autopar {
namespace {

// A builder for model `name`, whose floats are the params' dtype_bytes wide.
SpecBuilder spec_builder(const std::string& name, const ModelParams& p) { return SpecBuilder(name, *float_dtype_for_bytes(p.at("dtype_bytes"))); }

ModelParam dtype_param() { return {"dtype_bytes", 4, 2, 8, "bytes per float element (2, 4 or 8)"}; }

constexpr int64_t kMaxSize = int64_t(1) << 30;

ModelSpec build_conv1d(const ModelParams& p) {
  SpecBuilder b = spec_builder("conv1d", p);
  auto x = b.input("x", {p.at("n"), p.at("c_in"), p.at("L")});
  b.op(OpKind::conv1d, "conv", {x}, {{"out_channels", p.at("c_out")}, {"kernel", p.at("k")}, {"bias", 0}});
  return b.take();
}

ModelSpec build_mlp3(const ModelParams& p) {
  SpecBuilder b = spec_builder("mlp3", p);
  auto h = b.input("x", {p.at("batch"), p.at("hidden")});
  for (int i = 1; i <= 3; ++i)
    h = b.op(OpKind::linear, "fc" + std::to_string(i), {h}, {{"out_features", p.at("hidden")}}, i < 3 ? "relu" : "none");
  return b.take();
}

ModelSpec build_elm(const ModelParams& p) {
  SpecBuilder b = spec_builder("elm", p);
  auto ids = b.input("ids", {p.at("batch")}, DType::i32);
  auto e = b.op(OpKind::embedding, "embed", {ids}, {{"num_embeddings", p.at("vocab")}, {"embedding_dim", p.at("dim")}});
  auto h = b.op(OpKind::linear, "linear1", {e}, {{"out_features", p.at("hidden")}}, "relu");
  b.op(OpKind::linear, "linear2", {h}, {{"out_features", p.at("hidden")}});
  return b.take();
}

ModelSpec build_alexnet(const ModelParams& p) {
  // Krizhevsky et al. 2012 in torchvision's single-tower form; ReLU and max-pooling fused into
  // the convolutions so that the graph has the 8 ops FlexFlow schedules (5 conv + 3 FC).
  SpecBuilder b = spec_builder("alexnet", p);
  int64_t img = p.at("image");
  auto h = b.input("image", {p.at("batch"), 3, img, img});
  h = b.op(OpKind::conv2d, "conv1", {h}, {{"out_channels", 64}, {"kernel", 11}, {"stride", 4}, {"padding", 2}, {"bias", 1}, {"pool_kernel", 3}, {"pool_stride", 2}}, "relu");
  h = b.op(OpKind::conv2d, "conv2", {h}, {{"out_channels", 192}, {"kernel", 5}, {"padding", 2}, {"bias", 1}, {"pool_kernel", 3}, {"pool_stride", 2}}, "relu");
  h = b.op(OpKind::conv2d, "conv3", {h}, {{"out_channels", 384}, {"kernel", 3}, {"padding", 1}, {"bias", 1}}, "relu");
  h = b.op(OpKind::conv2d, "conv4", {h}, {{"out_channels", 256}, {"kernel", 3}, {"padding", 1}, {"bias", 1}}, "relu");
  h = b.op(OpKind::conv2d, "conv5", {h}, {{"out_channels", 256}, {"kernel", 3}, {"padding", 1}, {"bias", 1}, {"pool_kernel", 3}, {"pool_stride", 2}}, "relu");
  h = b.op(OpKind::linear, "fc6", {h}, {{"out_features", 4096}, {"flatten", 1}}, "relu");
  h = b.op(OpKind::linear, "fc7", {h}, {{"out_features", 4096}}, "relu");
  b.op(OpKind::linear, "fc8", {h}, {{"out_features", p.at("classes")}});
  return b.take();
}

ModelSpec build_dlrm(const ModelParams& p) {
  // Naumov et al. 2019: sparse features through embedding tables, dense features through a
  // bottom MLP, concatenated into a top MLP. Defaults: 8 tables of 1,000,000 x 64 (5.12e8 parameters, 2 GB in FP32).
  SpecBuilder b = spec_builder("dlrm", p);
  int64_t batch = p.at("batch"), dim = p.at("dim"), hidden = p.at("hidden");
  std::vector<std::string> features;
  for (int64_t t = 0; t < p.at("tables"); ++t) {
    auto ids = b.input("ids" + std::to_string(t), {batch}, DType::i32);
    features.push_back(b.op(OpKind::embedding, "emb" + std::to_string(t), {ids},
                            {{"num_embeddings", p.at("rows")}, {"embedding_dim", dim}}));
  }
  auto d = b.input("dense", {batch, p.at("dense")});
  d = b.op(OpKind::linear, "bot1", {d}, {{"out_features", hidden}}, "relu");
  d = b.op(OpKind::linear, "bot2", {d}, {{"out_features", std::max<int64_t>(1, hidden / 2)}}, "relu");
  d = b.op(OpKind::linear, "bot3", {d}, {{"out_features", dim}}, "relu");
  features.insert(features.begin(), d);
  auto h = b.op(OpKind::concat, "interact", features, {{"axis", 1}});
  h = b.op(OpKind::linear, "top1", {h}, {{"out_features", hidden}}, "relu");
  h = b.op(OpKind::linear, "top2", {h}, {{"out_features", std::max<int64_t>(1, hidden / 2)}}, "relu");
  h = b.op(OpKind::linear, "top3", {h}, {{"out_features", std::max<int64_t>(1, hidden / 4)}}, "relu");
  b.op(OpKind::linear, "top4", {h}, {{"out_features", 1}});
  return b.take();
}

ModelSpec build_mlp(const ModelParams& p) {
  SpecBuilder b = spec_builder("mlp", p);
  int64_t layers = p.at("layers");
  auto h = b.input("x", {p.at("batch"), p.at("in")});
  for (int64_t i = 1; i <= layers; ++i) {
    int64_t width = i == layers ? p.at("out") : p.at("hidden");
    h = b.op(OpKind::linear, "dense" + std::to_string(i), {h}, {{"out_features", width}});
    if (i < layers) h = b.op(OpKind::relu, "relu" + std::to_string(i), {h});
  }
  b.op(OpKind::loss, "loss", {h});
  return b.take();
}

// One GPT-style block (pre-layer-norm): x + attn(ln(x)), then + ffn(ln(.)). `ffn` builds the
// feed-forward part (dense or mixture of experts) and returns its output.
template <class Ffn>
std::string transformer_block(SpecBuilder& b, const std::string& x, const std::string& l, int64_t hidden, int64_t heads, Ffn ffn) {
  auto a = b.op(OpKind::layernorm, "ln1_" + l, {x});
  a = b.op(OpKind::linear, "qkv_" + l, {a}, {{"out_features", 3 * hidden}});
  a = b.op(OpKind::attention, "attn_" + l, {a}, {{"heads", heads}});
  a = b.op(OpKind::linear, "proj_" + l, {a}, {{"out_features", hidden}});
  auto r = b.op(OpKind::add, "res1_" + l, {x, a});
  auto f = b.op(OpKind::layernorm, "ln2_" + l, {r});
  f = ffn(f);
  return b.op(OpKind::add, "res2_" + l, {r, f});
}

// Token embedding (when vocab > 0) or the hidden states themselves as the input.
std::string transformer_input(SpecBuilder& b, const ModelParams& p) {
  int64_t batch = p.at("batch"), seq = p.at("seq"), hidden = p.at("hidden");
  if (p.at("vocab") == 0) return b.input("x", {batch, seq, hidden});
  auto ids = b.input("tokens", {batch, seq}, DType::i32);
  return b.op(OpKind::embedding, "embed", {ids}, {{"num_embeddings", p.at("vocab")}, {"embedding_dim", hidden}});
}

// Final layer norm and output head (when vocab > 0), then the loss.
void transformer_output(SpecBuilder& b, const ModelParams& p, std::string h) {
  if (p.at("vocab") > 0) {
    h = b.op(OpKind::layernorm, "ln_f", {h});
    h = b.op(OpKind::linear, "head", {h}, {{"out_features", p.at("vocab")}, {"bias", 0}});
  }
  b.op(OpKind::loss, "loss", {h});
}

ModelSpec build_transformer(const ModelParams& p) {
  SpecBuilder b = spec_builder("transformer", p);
  int64_t hidden = p.at("hidden"), heads = p.at("heads");
  auto h = transformer_input(b, p);
  for (int64_t i = 1; i <= p.at("layers"); ++i) {
    std::string l = std::to_string(i);
    h = transformer_block(b, h, l, hidden, heads, [&](const std::string& x) {
      auto f = b.op(OpKind::linear, "ffn1_" + l, {x}, {{"out_features", 4 * hidden}}, "gelu");
      return b.op(OpKind::linear, "ffn2_" + l, {f}, {{"out_features", hidden}});
    });
  }
  transformer_output(b, p, h);
  return b.take();
}

ModelSpec build_bert(const ModelParams& p) {
  // Alpa's FlaxBertLayerCollection (alpa/model/bert_model.py) as its shard-parallel tests train it
  // (tests/shard_parallel/test_bert.py): per layer one fused QKV Dense h -> 3h ("qvk_combined"),
  // the attention core, the output Dense, then post-LN: LayerNorm(out + input); the intermediate
  // Dense h -> ffn with GELU, the output Dense ffn -> h, LayerNorm(that + the attention output).
  // Every Dense has a bias. The test's loss is the mean squared error against a label of the
  // output's shape; the input hidden states get no gradient. Dropout (the test runs it) moves no
  // data between devices, so it is left out.
  // With vocab > 0 it is FlaxBertForMaskedLMModule as test_bert.py's run_bert_mlm trains it:
  // word, position (seq positions: max_position_embeddings=seq_len there) and token type (2)
  // embeddings summed and layer-normed before the layers; after them the MLM head, a Dense h -> h
  // with GELU, a LayerNorm, and the decoder: the word embeddings read transposed
  // (tie_word_embeddings) plus a bias, trained with the cross-entropy of the tokens.
  SpecBuilder b = spec_builder("bert", p);
  const int64_t hidden = p.at("hidden"), heads = p.at("heads"), vocab = p.at("vocab");
  const int64_t batch = p.at("batch"), seq = p.at("seq");
  const int64_t ffn = p.at("ffn") > 0 ? p.at("ffn") : 4 * hidden;   // BertConfig(intermediate_size=hidden_size * 4) in the tests
  std::string x;
  if (vocab == 0) {
    x = b.input("hidden_states", {batch, seq, hidden});
  } else {
    auto ids = b.input("input_ids", {batch, seq}, DType::i32);
    auto types = b.input("token_type_ids", {batch, seq}, DType::i32);
    auto positions = b.input("position_ids", {batch, seq}, DType::i32);
    auto w = b.op(OpKind::embedding, "word_embeddings", {ids}, {{"num_embeddings", vocab}, {"embedding_dim", hidden}});
    auto pe = b.op(OpKind::embedding, "position_embeddings", {positions}, {{"num_embeddings", seq}, {"embedding_dim", hidden}});
    auto te = b.op(OpKind::embedding, "token_type_embeddings", {types}, {{"num_embeddings", 2}, {"embedding_dim", hidden}});
    x = b.op(OpKind::add, "embed_add1", {w, pe});
    x = b.op(OpKind::add, "embed_add2", {x, te});
    x = b.op(OpKind::layernorm, "embed_ln", {x});
  }
  for (int64_t i = 1; i <= p.at("layers"); ++i) {
    const std::string l = std::to_string(i);
    auto a = b.op(OpKind::linear, "qkv_" + l, {x}, {{"out_features", 3 * hidden}});
    a = b.op(OpKind::attention, "attn_" + l, {a}, {{"heads", heads}});
    a = b.op(OpKind::linear, "out_" + l, {a}, {{"out_features", hidden}});
    a = b.op(OpKind::add, "res1_" + l, {a, x});
    a = b.op(OpKind::layernorm, "ln1_" + l, {a});
    auto f = b.op(OpKind::linear, "ffn1_" + l, {a}, {{"out_features", ffn}}, "gelu");
    f = b.op(OpKind::linear, "ffn2_" + l, {f}, {{"out_features", hidden}});
    f = b.op(OpKind::add, "res2_" + l, {f, a});
    x = b.op(OpKind::layernorm, "ln2_" + l, {f});
  }
  if (vocab > 0) {
    x = b.op(OpKind::linear, "transform", {x}, {{"out_features", hidden}}, "gelu");
    x = b.op(OpKind::layernorm, "transform_ln", {x});
    b.op(OpKind::linear, "decoder", {x}, {{"out_features", vocab}}, "none", "word_embeddings");
    x = "decoder";
  }
  b.op(OpKind::loss, "loss", {x});
  return b.take();
}

ModelSpec build_transformer_chain(const ModelParams& p) {
  // Lecture 5.5: one layer as a 5-op chain, no residuals or norms (Megatron-LM's split).
  SpecBuilder b = spec_builder("transformer-chain", p);
  int64_t hidden = p.at("hidden");
  auto h = b.input("x", {p.at("batch"), p.at("seq"), hidden});
  h = b.op(OpKind::linear, "qkv", {h}, {{"out_features", 3 * hidden}});
  h = b.op(OpKind::attention, "attention", {h}, {{"heads", p.at("heads")}});
  h = b.op(OpKind::linear, "out_proj", {h}, {{"out_features", hidden}});
  h = b.op(OpKind::linear, "ffn1", {h}, {{"out_features", 4 * hidden}}, "gelu");
  b.op(OpKind::linear, "ffn2", {h}, {{"out_features", hidden}});
  return b.take();
}

ModelSpec build_wide_resnet(const ModelParams& p) {
  // Zagoruyko & Komodakis 2016 (wide residual networks) on ImageNet-sized images: early stages
  // have large activations and small weights, late stages the reverse (lecture 6.3).
  SpecBuilder b = spec_builder("wide-resnet", p);
  int64_t w = p.at("width");
  auto h = b.input("image", {p.at("batch"), 3, p.at("image"), p.at("image")});
  h = b.op(OpKind::conv2d, "stem", {h}, {{"out_channels", 64}, {"kernel", 7}, {"stride", 2}, {"padding", 3}, {"pool_kernel", 3}, {"pool_stride", 2}}, "relu");
  const int64_t base[4] = {64, 128, 256, 512};
  for (int s = 0; s < 4; ++s) {
    std::string st = std::to_string(s + 1);
    int64_t ch = base[s] * w;
    h = b.op(OpKind::conv2d, "down" + st, {h}, {{"out_channels", ch}, {"kernel", 3}, {"stride", s == 0 ? 1 : 2}, {"padding", 1}}, "relu");
    for (int64_t k = 1; k <= p.at("blocks"); ++k) {
      std::string id = st + "_" + std::to_string(k);
      auto c = b.op(OpKind::conv2d, "conv" + id + "a", {h}, {{"out_channels", ch}, {"kernel", 3}, {"padding", 1}}, "relu");
      c = b.op(OpKind::conv2d, "conv" + id + "b", {c}, {{"out_channels", ch}, {"kernel", 3}, {"padding", 1}});
      h = b.op(OpKind::add, "add" + id, {h, c});
      h = b.op(OpKind::relu, "relu" + id, {h});
    }
  }
  // Global average pooling over what is left of the image (7 x 7 at 224).
  int64_t side = p.at("image");
  side = (side + 6 - 7) / 2 + 1;          // stem convolution
  side = (side - 3) / 2 + 1;              // stem pooling
  for (int s = 1; s < 4; ++s) side = (side + 2 - 3) / 2 + 1;
  h = b.op(OpKind::pool2d, "pool", {h}, {{"kernel", std::max<int64_t>(1, side)}});
  h = b.op(OpKind::linear, "fc", {h}, {{"out_features", p.at("classes")}, {"flatten", 1}});
  b.op(OpKind::loss, "loss", {h});
  return b.take();
}

ModelSpec build_moe(const ModelParams& p) {
  // GShard-style: transformer blocks whose feed-forward layer is a mixture of experts.
  SpecBuilder b = spec_builder("moe", p);
  int64_t hidden = p.at("hidden"), heads = p.at("heads");
  auto h = transformer_input(b, p);
  for (int64_t i = 1; i <= p.at("layers"); ++i) {
    std::string l = std::to_string(i);
    h = transformer_block(b, h, l, hidden, heads, [&](const std::string& x) {
      return b.op(OpKind::moe, "moe_" + l, {x}, {{"experts", p.at("experts")}, {"ffn", p.at("ffn")}, {"top_k", p.at("top_k")}});
    });
  }
  transformer_output(b, p, h);
  return b.take();
}

// A preset of real size (hf_config.cpp) at a training shape.
std::function<ModelSpec(const ModelParams&)> preset_builder(const std::string& name) {
  return [name](const ModelParams& p) {
    TransformerArch arch = transformer_presets().at(name);
    arch.layers = p.at("layers");
    TrainingShape shape;
    shape.batch = p.at("batch");
    shape.seq = p.at("seq");
    shape.dtype_bytes = p.at("dtype_bytes");
    return transformer_model_spec(arch, shape, "--model").value();   // the parameter ranges keep it valid
  };
}

std::vector<BuiltinModel> build_registry() {
  std::vector<BuiltinModel> r;
  r.push_back({"conv1d", "the lecture's 1-D convolution (section 2.2): one conv1d op",
               {{"n", 8, 1, kMaxSize, "batch size"}, {"c_in", 16, 1, kMaxSize, "input channels"},
                {"c_out", 32, 1, kMaxSize, "output channels"}, {"L", 64, 1, kMaxSize, "sequence length"},
                {"k", 3, 1, 4096, "kernel width"}, dtype_param()},
               build_conv1d});
  r.push_back({"mlp3", "three linear layers (lecture 4.4: small enough to enumerate)",
               {{"batch", 64, 1, kMaxSize, "batch size"}, {"hidden", 4096, 1, kMaxSize, "width of every layer"}, dtype_param()},
               build_mlp3});
  r.push_back({"elm", "embedding -> linear -> linear (FlexFlow paper Fig. 5, lecture 3.2)",
               {{"batch", 64, 1, kMaxSize, "batch size"}, {"vocab", 32768, 1, kMaxSize, "embedding rows"},
                {"dim", 1024, 1, kMaxSize, "embedding width"}, {"hidden", 1024, 1, kMaxSize, "linear width"}, dtype_param()},
               build_elm});
  r.push_back({"alexnet", "AlexNet: 5 convolutions and 3 fully connected layers (8 ops)",
               {{"batch", 256, 1, kMaxSize, "batch size"}, {"image", 224, 64, 4096, "image side in pixels"},
                {"classes", 1000, 1, kMaxSize, "output classes"}, dtype_param()},
               build_alexnet});
  r.push_back({"dlrm", "DLRM: embedding tables, bottom and top MLPs (16 ops with 8 tables)",
               {{"batch", 1024, 1, kMaxSize, "batch size"}, {"tables", 8, 1, 512, "embedding tables"},
                {"rows", 1000000, 1, kMaxSize, "rows per table"}, {"dim", 64, 1, kMaxSize, "embedding width"},
                {"dense", 16, 1, kMaxSize, "dense features"}, {"hidden", 512, 4, kMaxSize, "MLP width"}, dtype_param()},
               build_dlrm});
  r.push_back({"mlp", "a chain of Dense layers with bias and ReLU between them, trained with a loss",
               {{"layers", 2, 1, 10000, "Dense layers"}, {"batch", 1024, 1, kMaxSize, "batch size"},
                {"in", 1024, 1, kMaxSize, "input features"}, {"hidden", 1024, 1, kMaxSize, "hidden width"},
                {"out", 1024, 1, kMaxSize, "output features"}, dtype_param()},
               build_mlp});
  const std::vector<ModelParam> gpt = {
      {"layers", 4, 1, 2000, "transformer layers"}, {"batch", 64, 1, kMaxSize, "sequences per batch (32 micro-batches of 2 by default)"},
      {"seq", 512, 1, kMaxSize, "sequence length"}, {"hidden", 1024, 1, kMaxSize, "hidden size"},
      {"heads", 16, 1, 65536, "attention heads (divide hidden)"}, {"vocab", 0, 0, kMaxSize, "vocabulary (0: no embedding or head)"}};
  auto with = [](std::vector<ModelParam> v, std::vector<ModelParam> more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
  };
  r.push_back({"transformer", "GPT-style layers with residual adds and layer norms", with(gpt, {dtype_param()}), build_transformer});
  // Defaults: test_bert.py's model-parallel and 2-D mesh cases (2 layers, batch 8, seq 8, hidden 128, 8 heads).
  r.push_back({"bert", "Alpa's BERT layers (FlaxBertLayer of its test_bert.py): fused QKV, post-LN, GELU FFN, MSE loss; vocab>0: its masked LM",
               {{"layers", 2, 1, 2000, "BERT layers"}, {"batch", 8, 1, kMaxSize, "sequences per batch"},
                {"seq", 8, 1, kMaxSize, "sequence length"}, {"hidden", 128, 1, kMaxSize, "hidden size"},
                {"heads", 8, 1, 65536, "attention heads (divide hidden)"},
                {"ffn", 0, 0, kMaxSize, "intermediate (FFN) size (0: 4 x hidden, as Alpa's tests)"},
                {"vocab", 0, 0, kMaxSize, "vocabulary of the masked-LM model (0: the layers alone, fed hidden states)"}, dtype_param()},
               build_bert});
  r.push_back({"transformer-chain", "one layer as the 5-op chain QKV -> attention -> out proj -> FFN1 -> FFN2 (lecture 5.5)",
               {{"batch", 4, 1, kMaxSize, "sequences per micro-batch"}, {"seq", 1024, 1, kMaxSize, "sequence length"},
                {"hidden", 4096, 1, kMaxSize, "hidden size"}, {"heads", 32, 1, 65536, "attention heads"}, dtype_param()},
               build_transformer_chain});
  r.push_back({"wide-resnet", "wide ResNet: convolution stages, early layers large activations, late layers large weights",
               {{"batch", 32, 1, kMaxSize, "batch size"}, {"image", 224, 64, 4096, "image side in pixels"},
                {"width", 2, 1, 64, "width multiplier of the channels"}, {"blocks", 1, 1, 64, "residual blocks per stage"},
                {"classes", 1000, 1, kMaxSize, "output classes"}, dtype_param()},
               build_wide_resnet});
  r.push_back({"moe", "GShard-style mixture of experts: transformer layers whose FFN is a set of experts",
               with(gpt, {{"experts", 8, 1, 65536, "experts per layer"}, {"ffn", 4096, 1, kMaxSize, "expert hidden size"},
                          {"top_k", 2, 1, 64, "experts per token"}, dtype_param()}),
               build_moe});
  // Real sizes, with their published shapes (sources in hf_config.cpp).
  for (const char* name : {"gpt3-175b", "llama2-7b", "llama2-70b"}) {
    const TransformerArch& a = transformer_presets().at(name);
    const bool gpt = a.family == "gpt2";
    std::string desc = gpt ? "GPT-3 175B (Brown et al. 2020): 96 layers of 12288, 96 heads, tied embeddings"
                       : a.layers == 32 ? "Llama-2-7B (Touvron et al. 2023): 32 layers of 4096, SwiGLU 11008, RMSNorm"
                                        : "Llama-2-70B: 80 layers of 8192, 64 heads sharing 8 K/V heads (GQA), SwiGLU 28672";
    r.push_back({name, desc,
                 {{"layers", a.layers, 1, 2000, "transformer layers (the published model has " + std::to_string(a.layers) + ")"},
                  {"batch", 8, 1, kMaxSize, "sequences per batch"},
                  {"seq", a.context, 1, gpt ? a.max_positions : kMaxSize, "sequence length"},
                  // Trained in mixed precision (16-bit activations and weights, FP32 master copy).
                  {"dtype_bytes", 2, 2, 8, "bytes per float element (2: mixed precision, as it was trained; 4: FP32)"}},
                 preset_builder(name)});
  }
  return r;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

const std::vector<BuiltinModel>& builtin_models() {
  static const std::vector<BuiltinModel> models = build_registry();
  return models;
}

const BuiltinModel* find_builtin_model(const std::string& name) {
  for (const auto& m : builtin_models())
    if (m.name == name) return &m;
  return nullptr;
}

Result<BuiltinChoice> parse_builtin_model(const std::string& text, const std::string& arg_path) {
  size_t colon = text.find(':');
  std::string name = text.substr(0, colon);
  const BuiltinModel* model = find_builtin_model(name);
  if (!model) {
    std::string names;
    for (const auto& m : builtin_models()) names += (names.empty() ? "" : ", ") + m.name;
    return make_error(ErrorCode::unknown_model, "unknown model '" + name + "'; built-in models: " + names + " (or a .json file)", arg_path);
  }
  ModelParams values;
  for (const auto& p : model->params) values[p.key] = p.default_value;
  if (colon != std::string::npos) {
    const std::vector<OptionItem> items = split_options(text.substr(colon + 1));
    if (std::string c = conflicting_option(items); !c.empty()) return make_error(ErrorCode::bad_value, "model '" + name + "': " + c, arg_path);
    for (const OptionItem& item : items) {
      const std::string& key = item.key;
      const ModelParam* param = nullptr;
      for (const auto& p : model->params) if (p.key == key) param = &p;
      if (!param) {
        std::string keys;
        for (const auto& p : model->params) keys += (keys.empty() ? "" : ", ") + p.key;
        return make_error(ErrorCode::unknown_param, "model '" + name + "' has no parameter '" + key + "'; its parameters: " + keys, arg_path);
      }
      int64_t v = 0;
      if (!item.has_value || !parse_whole_number(item.value, v))
        return make_error(ErrorCode::bad_value, "parameter '" + key + "' of model '" + name + "' needs a whole number, as in " + key + "=" +
                                           std::to_string(param->default_value), arg_path);
      if (v < param->min_value || v > param->max_value)
        return make_error(ErrorCode::out_of_range, "parameter '" + key + "' of model '" + name + "' is " + std::to_string(v) +
                                              "; it must be between " + std::to_string(param->min_value) + " and " +
                                              std::to_string(param->max_value), arg_path);
      values[key] = v;
    }
  }
  return BuiltinChoice{model, values};
}

Result<ModelSpec> builtin_model_spec(const std::string& text, const std::string& arg_path) {
  auto choice = parse_builtin_model(text, arg_path);
  if (!choice.ok()) return choice.error();
  const BuiltinModel* model = choice.value().model;
  ModelParams& values = choice.value().values;
  if (!float_dtype_for_bytes(values["dtype_bytes"]))
    return make_error(ErrorCode::bad_value, "dtype_bytes must be 2, 4 or 8", arg_path);
  // Parameters that must agree with each other, checked here so the error names them (the
  // built graph's shape checks would name an op of a model the user never wrote).
  if (values.count("hidden") && values.count("heads") && values["hidden"] % values["heads"] != 0)
    return make_error(ErrorCode::bad_value, "model '" + model->name + "': heads=" + std::to_string(values["heads"]) + " does not divide hidden=" +
                                       std::to_string(values["hidden"]) + "; give a number of heads that divides the hidden size",
                      arg_path);
  if (values.count("top_k") && values.count("experts") && values["top_k"] > values["experts"])
    return make_error(ErrorCode::bad_value, "model '" + model->name + "': top_k=" + std::to_string(values["top_k"]) + " routes each token to more experts than the " +
                                       std::to_string(values["experts"]) + " there are; give top_k at most experts",
                      arg_path);
  return model->build(values);
}

Result<Graph> load_model_json(const std::string& text, const std::string& label, const std::string& overrides,
                              const std::string& arg_path) {
  auto j = parse_json_text(text, "model file " + label);
  if (!j.ok()) return j.error();
  auto prefixed = [&](Error e) {
    e.message = "model file " + label + ": " + e.message;
    return e;
  };
  if (is_hf_config(j.value())) {
    std::string name = label;
    if (name.size() > 2 && name.front() == '\'' && name.back() == '\'') name = name.substr(1, name.size() - 2);
    if (size_t slash = name.find_last_of('/'); slash != std::string::npos) name = name.substr(slash + 1);
    if (ends_with(name, ".json")) name = name.substr(0, name.size() - 5);
    if (name.empty()) name = "hf-model";
    auto arch = arch_from_hf_config(j.value(), name);
    if (!arch.ok()) return prefixed(arch.error());
    // torch_dtype sets the float width; dtype_bytes= (and --precision, which appends it) override it.
    TrainingShape shape = default_training_shape(arch.value());
    TransformerArch a = arch.value();
    if (auto s = apply_transformer_overrides(overrides, shape, a, arg_path); !s.ok()) return prefixed(s.error());
    auto spec = transformer_model_spec(a, shape, arg_path);
    if (!spec.ok()) return prefixed(spec.error());
    auto g = build_graph(spec.value());
    if (!g.ok()) return prefixed(g.error());
    return g;
  }
  auto spec = model_from_json(j.value());
  if (!spec.ok()) return prefixed(spec.error());
  // Overrides of an autopar model file: the batch (every input's first dimension) and the
  // float width.
  ModelSpec m = spec.value();
  const std::vector<OptionItem> items = split_options(overrides);
  if (std::string c = conflicting_option(items); !c.empty()) return prefixed(make_error(ErrorCode::bad_value, c, arg_path));
  for (const OptionItem& item : items) {
    const std::string& key = item.key;
    int64_t v = 0;
    if (key != "batch" && key != "dtype_bytes")
      return prefixed(make_error(ErrorCode::unknown_param, "a model file takes the parameters batch and dtype_bytes, not '" + key + "'", arg_path));
    if (!item.has_value || !parse_whole_number(item.value, v) || v < 1 || v > kMaxSize)
      return prefixed(make_error(ErrorCode::bad_value, "parameter '" + key + "' needs a whole number, as in " + key + "=8", arg_path));
    if (key == "batch") {
      for (Tensor& t : m.inputs) t.shape[0] = v;
    } else {
      auto ft = float_dtype_for_bytes(v);
      if (!ft) return prefixed(make_error(ErrorCode::bad_value, "dtype_bytes must be 2, 4 or 8", arg_path));
      for (Tensor& t : m.inputs)
        if (t.dtype == m.dtype) t.dtype = *ft;
      m.dtype = *ft;
    }
    for (OpSpec& o : m.ops) o.shape.reset();   // re-inferred for the new batch or width
  }
  auto g = build_graph(m);
  if (!g.ok()) return prefixed(g.error());
  return g;
}

ModelFileSpec split_model_file_spec(const std::string& text) {
  ModelFileSpec out;
  const size_t json_end = text.find(".json:");
  if (!ends_with(text, ".json") && json_end == std::string::npos) return out;
  out.is_file = true;
  out.file = json_end == std::string::npos ? text : text.substr(0, json_end + 5);
  out.overrides = json_end == std::string::npos ? "" : text.substr(json_end + 6);
  return out;
}

Result<Graph> load_model(const std::string& text) {
  // FILE.json or FILE.json:key=value,...
  if (const ModelFileSpec spec = split_model_file_spec(text); spec.is_file) {
    auto body = read_text_file(spec.file);
    if (!body.ok()) return body.error();
    return load_model_json(body.value(), "'" + spec.file + "'", spec.overrides, "--model");
  }
  auto spec = builtin_model_spec(text);
  if (!spec.ok()) return spec.error();
  auto g = build_graph(spec.value());
  if (!g.ok()) {
    Error e = g.error();
    e.message = "model '" + text + "': " + e.message;
    return e;
  }
  return g;
}

}  // namespace autopar
