// Hugging Face configs and the real-size presets: published parameter counts, the 6 x N x T
// FLOP rule, overrides, and errors that name the field.
#include <doctest/doctest.h>

#include <string>

#include "error_code_printing.h"
#include "hf_config.h"
#include "models.h"

using namespace autopar;

namespace {

std::string hf(const std::string& name) { return std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/" + name + ".json"; }

Error load_error(const std::string& config_text, const std::string& overrides = "") {
  auto g = load_model_json(config_text, "test", overrides);
  REQUIRE(!g.ok());
  return g.error();
}

// Forward + backward FLOPs over 6 x parameters x tokens.
double six_nt_ratio(const Graph& g) {
  double total = 0;
  for (const Op& op : g.ops) total += op.forward_flops + op.backward_flops;
  const Shape& tokens = g.spec.inputs[0].shape;
  return total / (6.0 * double(g.total_param_elements()) * double(tokens[0] * tokens[1]));
}

}  // namespace

TEST_CASE("Hugging Face configs give the published parameter counts exactly") {
  // GPT-2: wte 50257*768 + wpe 1024*768 + 12 * (2 LN 2*1536 + c_attn 768*2304+2304 + c_proj 768*768+768
  //        + c_fc 768*3072+3072 + c_proj 3072*768+768) + ln_f 1536, head tied = 124,439,808.
  CHECK(load_model(hf("gpt2")).value().total_param_elements() == 124439808);
  // Llama-2-7B: 2 * 32000*4096 (embed, untied head) + 32 * (4*4096^2 + 3*4096*11008 + 2*4096) + 4096 = 6,738,415,616.
  CHECK(load_model(hf("llama-2-7b")).value().total_param_elements() == 6738415616);
  // Mistral-7B: K and V are 8 heads of 128 = 1024 wide: 32 * (2*4096^2 + 2*4096*1024 + 3*4096*14336 + 2*4096)
  //             + 2 * 32000*4096 + 4096 = 7,241,732,096.
  CHECK(load_model(hf("mistral-7b")).value().total_param_elements() == 7241732096);
  // Llama-2-70B: 80 * (2*8192^2 + 2*8192*1024 + 3*8192*28672 + 2*8192) + 2 * 32000*8192 + 8192 = 68,976,648,192.
  CHECK(load_model(hf("llama-2-70b")).value().total_param_elements() == 68976648192);
  // BERT-base (BertModel): embeddings 30522*768 + 512*768 + 2*768 + LN 1536, 12 layers of 7,087,872,
  // pooler 768*768+768 = 109,482,240.
  CHECK(load_model(hf("bert-base-uncased")).value().total_param_elements() == 109482240);
}

TEST_CASE("the real-size presets equal their configs and follow 6 x N x T") {
  // The built-in llama2-7b and the config file build the same ops at the same shape.
  auto preset = load_model("llama2-7b:batch=1,seq=2048").value();
  auto file = load_model(hf("llama-2-7b") + ":batch=1,seq=2048").value();
  REQUIRE(preset.ops.size() == file.ops.size());
  for (size_t i = 0; i < preset.ops.size(); ++i) {
    CHECK(preset.ops[i].spec == file.ops[i].spec);
    CHECK(preset.ops[i].forward_flops == file.ops[i].forward_flops);
  }
  CHECK(load_model("llama2-70b:batch=1").value().total_param_elements() == 68976648192);
  // GPT-3 175B: 96 * (12 * 12288^2 + 13 * 12288) + 50257*12288 + 2048*12288 + 2*12288 = 174,604,259,328
  // (the paper's "175.0B").
  auto gpt3 = load_model("gpt3-175b:batch=1").value();
  CHECK(gpt3.total_param_elements() == 174604259328);
  // Training FLOPs ~ 6 N T: the matmuls give 6 per parameter and token (2 forward, 4 backward);
  // attention over a 2048 sequence adds a few percent (4*s*h*L per token forward), embeddings
  // and norms take a little away.
  CHECK(six_nt_ratio(gpt3) == doctest::Approx(1.0).epsilon(0.03));
  CHECK(six_nt_ratio(preset) == doctest::Approx(1.0).epsilon(0.05));
  CHECK(six_nt_ratio(load_model("llama2-70b:batch=1,seq=2048").value()) == doctest::Approx(1.0).epsilon(0.03));
}

TEST_CASE("overrides set the training shape of a config") {
  auto g = load_model(hf("gpt2") + ":batch=2,seq=128,dtype_bytes=2");
  REQUIRE(g.ok());
  CHECK(g.value().spec.inputs[0].shape == Shape{2, 128});
  CHECK(g.value().spec.dtype == DType::f16);
  CHECK(g.value().total_param_elements() == 124439808);      // the shape does not change the weights
  CHECK(load_model(hf("llama-2-7b") + ":layers=2").value().ops.size() == 1 + 2 * 10 + 3);
  // An autopar model file takes batch and dtype_bytes too.
  auto m = load_model(std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/mlp.json:batch=16,dtype_bytes=2");
  REQUIRE(m.ok());
  CHECK(m.value().spec.inputs[0].shape[0] == 16);
  CHECK(m.value().ops[0].output.dtype == DType::f16);
}

TEST_CASE("bad configs are refused with the field they concern") {
  Error e = load_error(R"({"model_type":"t5","d_model":512})");
  CHECK(e.code == ErrorCode::unknown_model);
  CHECK(e.path == "model_type");
  e = load_error(R"({"model_type":"llama","vocab_size":32000,"intermediate_size":11008,"num_hidden_layers":2,"num_attention_heads":32})");
  CHECK(e.code == ErrorCode::missing_field);
  CHECK(e.path == "hidden_size");
  CHECK(e.message.find("hidden_size") != std::string::npos);
  e = load_error(R"({"model_type":"mistral","vocab_size":100,"hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,
                     "num_attention_heads":8,"num_key_value_heads":3})");
  CHECK(e.path == "num_key_value_heads");
  e = load_error(R"({"model_type":"gpt2","vocab_size":100,"n_embd":"768","n_layer":2,"n_head":12,"n_positions":64})");
  CHECK(e.code == ErrorCode::wrong_type);
  CHECK(e.path == "n_embd");
  e = load_error(R"({"model_type":"bert","vocab_size":100,"hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,
                     "num_attention_heads":8,"max_position_embeddings":128})", "seq=512");
  CHECK(e.code == ErrorCode::out_of_range);
  CHECK(e.path == "--model");
  e = load_error(R"({"model_type":"gpt2","vocab_size":100,"n_embd":64,"n_layer":2,"n_head":8,"n_positions":64})", "heads=4");
  CHECK(e.code == ErrorCode::unknown_param);
  e = load_error(R"({"model_type":"gpt2","vocab_size":100,"n_embd":64,"n_layer":2,"n_head":7,"n_positions":64})");
  CHECK(e.path == "n_head");
  // A huge whole float is out of range, not cast (the cast was undefined; the fuzzer found it);
  // a fractional one is the wrong type.
  e = load_error(R"({"model_type":"gpt2","vocab_size":100,"n_embd":7.6e57,"n_layer":2,"n_head":8,"n_positions":64})");
  CHECK(e.code == ErrorCode::out_of_range);
  CHECK(e.path == "n_embd");
  e = load_error(R"({"model_type":"gpt2","vocab_size":100,"n_embd":64.5,"n_layer":2,"n_head":8,"n_positions":64})");
  CHECK(e.code == ErrorCode::wrong_type);
  CHECK(e.path == "n_embd");
  // A model_type that is there but not a string is the wrong type, not a missing field.
  e = load_error(R"({"model_type":5,"vocab_size":100})");
  CHECK(e.code == ErrorCode::wrong_type);
  CHECK(e.path == "model_type");
}
