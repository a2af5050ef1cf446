// Training memory per device: the ZeRO paper's Figure 1 figures, Korthikanti et al.'s activation
// formula for one transformer layer (hand-checked), recomputation, and a model that fits only
// with ZeRO.
#include <doctest/doctest.h>

#include "args.h"
#include "cluster_spec.h"
#include "commands.h"
#include "hf_config.h"
#include "memory_model.h"
#include "memory_operation.h"
#include "models.h"

using namespace autopar;

namespace {

// A model of exactly 7.5 billion parameters: one 75,000 x 100,000 linear without bias, batch 64.
Graph zero_paper_model() {
  ModelSpec m;
  m.name = "zero-7.5b";
  m.dtype = DType::f16;
  m.inputs.push_back(Tensor{"x", {64, 75000}, DType::f16});   // one sample per replica
  OpSpec op;
  op.name = "w";
  op.kind = OpKind::linear;
  op.inputs = {"x"};
  op.output = "y";
  op.attrs = {{"out_features", 100000}, {"bias", 0}};
  m.ops.push_back(op);
  return build_graph(m).value();
}

MemoryReport estimate(const Graph& g, const std::string& cluster, MemoryOptions o) {
  auto r = estimate_memory(g, load_cluster(cluster).value(), o);
  REQUIRE(r.ok());
  return r.value();
}

}  // namespace

TEST_CASE("ZeRO's Figure 1: 7.5B parameters, 64-way data parallel, mixed-precision Adam") {
  const Graph g = zero_paper_model();
  REQUIRE(g.total_param_elements() == 7500000000);
  MemoryOptions o;
  o.data_parallel = 64;
  o.precision = Precision::mixed;
  o.optimizer = Optimizer::adam;
  auto states = [&](int stage) {
    o.zero_stage = stage;
    MemoryReport r = estimate(g, "a100:8x8", o);
    return r.params_bytes + r.grads_bytes + r.optimizer_bytes;
  };
  // Baseline (2 + 2 + 12) * 7.5e9 = 120 GB.
  CHECK(states(0) == doctest::Approx(120e9));
  // P_os: 2*7.5e9 + 2*7.5e9 + 12*7.5e9/64 = 15 + 15 + 1.40625 = 31.40625 GB ("31.4GB").
  CHECK(states(1) == doctest::Approx(31.40625e9));
  // P_os+g: 2*7.5e9 + (2 + 12)*7.5e9/64 = 15 + 1.640625 = 16.640625 GB ("16.6GB").
  CHECK(states(2) == doctest::Approx(16.640625e9));
  // P_os+g+p: 16*7.5e9/64 = 1.875 GB ("1.9GB").
  CHECK(states(3) == doctest::Approx(1.875e9));
  // FP32 Adam keeps 4 + 4 + 8 and SGD with momentum in mixed precision 2 + 2 + 8.
  CHECK(state_bytes_per_param(Precision::fp32, Optimizer::adam).optimizer == 8);
  CHECK(state_bytes_per_param(Precision::mixed, Optimizer::sgd).optimizer == 8);
  CHECK(state_bytes_per_param(Precision::fp32, Optimizer::sgd).optimizer == 4);
}

TEST_CASE("one GPT layer's activations follow Korthikanti et al.: sbh(34 + 5as/h), sbh(10 + 24/t + 5as/(ht))") {
  // GPT-2 shapes with dropout, 16-bit: s = 128, b = 4, h = 768, a = 12.
  TransformerArch arch = transformer_presets().at("gpt3-175b");
  arch.name = "one-layer";
  arch.hidden = 768;
  arch.heads = 12;
  arch.kv_heads = 12;
  arch.intermediate = 4 * 768;
  arch.layers = 3;
  arch.vocab = 1000;
  TrainingShape shape;
  shape.batch = 4;
  shape.seq = 128;
  shape.dtype_bytes = 2;
  const Graph g = build_graph(transformer_model_spec(arch, shape, "test").value()).value();
  const LayerStructure ls = find_layers(g);
  REQUIRE(ls.layers.size() == 3);
  CHECK(g.ops[size_t(ls.layers[0].first)].name() == "ln1_1");
  CHECK(g.ops[size_t(ls.layers[0].second)].name() == "res2_1");
  const double s = 128, b = 4, h = 768, a = 12;
  // 34 sbh + 5 a s^2 b = 34*128*4*768 + 5*12*128^2*4 = 13,369,344 + 3,932,160 = 17,301,504 bytes.
  const double per_layer = s * b * h * (34 + 5 * a * s / h);
  CHECK(per_layer == 17301504.0);
  MemoryOptions o;
  o.precision = Precision::mixed;
  MemoryReport r = estimate(g, "a100:1x1", o);
  CHECK(r.layer_bytes == doctest::Approx(3 * per_layer));
  // Tensor parallel over t = 8 (no sequence parallelism): sbh(10 + 24/8 + 5*12*128/(768*8)).
  o.tensor_parallel = 8;
  r = estimate(g, "a100:1x8", o);
  CHECK(r.layer_bytes == doctest::Approx(3 * s * b * h * (10 + 24.0 / 8 + 5 * a * s / (h * 8))));
  // Data parallel over 4 replicas: a quarter of the batch each.
  o.tensor_parallel = 1;
  o.data_parallel = 4;
  r = estimate(g, "a100:1x4", o);
  CHECK(r.layer_bytes == doctest::Approx(3 * per_layer / 4));
  // Full recomputation keeps each layer's 16-bit input (2sbh) and recomputes one layer at a time.
  o.data_parallel = 1;
  o.remat = true;
  r = estimate(g, "a100:1x1", o);
  CHECK(r.kept_input_bytes == doctest::Approx(3 * 2 * s * b * h));
  CHECK(r.recompute_bytes == doctest::Approx(per_layer));
  // Outside the layers, by the same per-kind rules (op_kinds.cpp): the two embeddings keep
  // their int32 indices (4sb each), the embedding dropout its one-byte mask (sbh), ln_f and
  // lm_head their 16-bit input (2sbh each), the loss its 16-bit logits (2sbV, V = 1000):
  // 2 * 2048 + 393,216 + 2 * 786,432 + 1,024,000 = 2,994,176 bytes.
  const double outside = 2 * 4 * s * b + s * b * h + 2 * 2 * s * b * h + 2 * s * b * 1000;
  CHECK(outside == 2994176.0);
  CHECK(r.other_bytes == doctest::Approx(outside));
  CHECK(r.activation_bytes == doctest::Approx(3 * 2 * s * b * h + per_layer + outside));
}

TEST_CASE("Llama-2-7B on 4 x 8 A100 fits only with ZeRO and recomputation") {
  // 32 sequences of 4096 tokens, one per GPU, mixed-precision Adam: 16 B/param * 6.74e9 = 108 GB
  // of model states alone exceed 80 GiB.
  const Graph g = load_model("llama2-7b:batch=32,dtype_bytes=2").value();
  MemoryOptions o;
  o.data_parallel = 32;
  o.precision = Precision::mixed;
  MemoryReport plain = estimate(g, "a100:4x8", o);
  CHECK(plain.params_bytes + plain.grads_bytes + plain.optimizer_bytes == doctest::Approx(16.0 * 6738415616));
  CHECK_FALSE(plain.fits);
  o.zero_stage = 1;
  MemoryReport zero1 = estimate(g, "a100:4x8", o);
  CHECK(zero1.optimizer_bytes == doctest::Approx(12.0 * 6738415616 / 32));
  o.remat = true;
  MemoryReport both = estimate(g, "a100:4x8", o);
  CHECK(both.fits);
  CHECK(both.activation_bytes < zero1.activation_bytes / 5);
  // With ZeRO-3 and recomputation the states are 16 B * 6.74e9 / 32 = 3.4 GB per GPU.
  o.zero_stage = 3;
  CHECK(estimate(g, "a100:4x8", o).params_bytes == doctest::Approx(2.0 * 6738415616 / 32));
}

TEST_CASE("the layers of the built-in models are their repeating blocks") {
  CHECK(find_layers(load_model("transformer:layers=6,vocab=100").value()).layers.size() == 6);
  // Without an embedding the first layer reads the model input twice (layer norm and residual):
  // that input is live across the layer like any layer's input, so the first layer is one too.
  CHECK(find_layers(load_model("transformer:layers=4").value()).layers.size() == 4);
  CHECK(find_layers(load_model("transformer:layers=2").value()).layers.size() == 2);
  CHECK(find_layers(load_model("moe:layers=4").value()).layers.size() == 4);
  CHECK(find_layers(load_model("mlp:layers=5").value()).layers.size() == 4);   // dense + relu pairs; the last dense feeds the loss
  CHECK(find_layers(load_model("llama2-7b:layers=4,seq=64,batch=1").value()).layers.size() == 4);
  CHECK(find_layers(load_model(std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/bert-base-uncased.json:seq=64,batch=1").value())
            .layers.size() == 12);
}

TEST_CASE("--precision picks the peak and the model's width in one place for every model command") {
  // A100: 19.5 TFLOP/s FP32, 156 TF32, 312 FP16/BF16 tensor core (dense).
  CHECK(load_cluster("a100:1x8").value().gpu.peak_flops_per_ms() == doctest::Approx(19.5e9));
  CHECK(load_cluster("a100:1x8,precision=tf32").value().gpu.peak_flops_per_ms() == doctest::Approx(156e9));
  CHECK(load_cluster("a100:1x8,precision=mixed").value().gpu.peak_flops_per_ms() == doctest::Approx(312e9));
  // V100 has no TF32: its FP32 peak is used.
  CHECK(load_cluster("v100,precision=tf32").value().gpu.peak_flops_per_ms() == doctest::Approx(15.7e9));
  CHECK(load_cluster(std::string(AUTOPAR_SOURCE_DIR) + "/examples/clusters/h100.json:precision=mixed").value().gpu.active_peak_tflops() == 989.4);
  CHECK(load_cluster("a100:1x8,precision=bf17").error().path == "--cluster");

  cli::CommandSyntax syntax{{"model", "cluster"}, {}};
  auto a = cli::parse_args("simulate", {"--model", "mlp:layers=2", "--cluster", "a100:1x8", "--precision", "mixed"}, syntax);
  REQUIRE(a.ok());
  CHECK(*a.value().get("model") == "mlp:layers=2,dtype_bytes=2");
  CHECK(*a.value().get("cluster") == "a100:1x8,precision=mixed");
  a = cli::parse_args("simulate", {"--model", "m.json", "--cluster", "c.json", "--precision", "fp32"}, syntax);
  REQUIRE(a.ok());
  CHECK(*a.value().get("model") == "m.json:dtype_bytes=4");
  CHECK(*a.value().get("cluster") == "c.json:precision=fp32");
  // A command without --model does not take it.
  CHECK(!cli::parse_args("reshard", {"--precision", "mixed"}, cli::CommandSyntax{{"mesh"}, {}}).ok());

  // `memory` reads the same option (and its model is loaded 16-bit).
  auto mem = cli::run_command({"memory", "--model", "llama2-7b:batch=32", "--cluster", "a100:4x8", "--precision", "mixed", "--zero", "1", "--remat"});
  REQUIRE(mem.ok());
  CHECK(mem.value().json["fits"] == true);
  CHECK(mem.value().json["precision"] == "mixed");
  CHECK(mem.value().json["activation_bytes"].get<double>() < 4e9);
}

TEST_CASE("an uneven batch split bounds activations by the largest replica; a replica needs a sample") {
  const Graph g = load_model("transformer:layers=2,batch=8").value();
  auto c = load_cluster("a100:1x8");
  REQUIRE(c.ok());
  MemoryOptions o;
  o.data_parallel = 1;
  auto whole = estimate_memory(g, c.value(), o);
  REQUIRE(whole.ok());
  CHECK(whole.value().samples_per_replica == 8);
  o.data_parallel = 3;   // 3 + 3 + 2 samples: the largest replica holds 3 of 8
  auto three = estimate_memory(g, c.value(), o);
  REQUIRE(three.ok());
  CHECK(three.value().samples_per_replica == 3);
  CHECK(three.value().activation_bytes == doctest::Approx(whole.value().activation_bytes * 3 / 8));
  o.zero_stage = 1;      // ZeRO still shards over the 3 replicas
  CHECK(estimate_memory(g, c.value(), o).value().optimizer_bytes == doctest::Approx(whole.value().optimizer_bytes / 3));
  o.data_parallel = 16;
  auto too_many = estimate_memory(g, c.value(), o);
  REQUIRE_FALSE(too_many.ok());
  CHECK(too_many.error().path == "--dp");
  CHECK(too_many.error().message.find("batch of 8") != std::string::npos);
  // `memory` without --dp or --mesh keeps every replica a sample: llama2-7b (batch 8) on 32 GPUs
  // is 8-way data parallel x 4-way tensor parallel; an explicit --dp beyond the batch is an error.
  auto mem = cli::run_command({"memory", "--model", "llama2-7b", "--cluster", "a100:4x8", "--json"});
  REQUIRE(mem.ok());
  CHECK(mem.value().json["dp"] == 8);
  CHECK(mem.value().json["tp"] == 4);
  auto explicit_dp = cli::run_command({"memory", "--model", "llama2-7b", "--cluster", "a100:4x8", "--dp", "16"});
  REQUIRE_FALSE(explicit_dp.ok());
  CHECK(explicit_dp.error().path == "--dp");
}

TEST_CASE("memory's table shows the lecture's small models in readable units, not 0.00 GB") {
  // mlp3 keeps 3.67 MB of activations on each of 4 GPUs: printed in GB with two decimals that
  // read as nothing at all.
  const Graph g = load_model("mlp3").value();
  MemoryOptions o;
  o.tensor_parallel = 4;
  auto r = memory_operation(g, load_cluster("lecture:1x4").value(), o);
  REQUIRE(r.ok());
  const std::string text = r.value().to_text();
  CAPTURE(text);
  CHECK(text.find("0.00 GB") == std::string::npos);
  CHECK(text.find("3.67 MB") != std::string::npos);
  // Large figures keep the GB column the README shows.
  CHECK(text.find("of 17.18 GB") != std::string::npos);
}
