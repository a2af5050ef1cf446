// The Megatron-LM export against the argument rules of Megatron-LM itself (release core_r0.14.0:
// megatron/training/arguments.py validate_args, megatron/core/transformer/transformer_config.py,
// megatron/core/num_microbatches_calculator.py, megatron/core/parallel_state.py), written here as
// this test's own checks of the parsed flags; and the flags that name the model.
#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cluster_spec.h"
#include "compare.h"
#include "engine_export.h"
#include "export_operation.h"
#include "models.h"

using namespace autopar;

namespace {

using Flags = std::map<std::string, std::string>;   // flag (without "--") -> value ("" for a switch)

// The arguments of an export: every line starting "--", "name value" or "name".
Flags parse_flags(const std::string& text) {
  Flags f;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("--", 0) != 0) continue;
    if (line.size() >= 2 && line.compare(line.size() - 2, 2, " \\") == 0) line.resize(line.size() - 2);
    const size_t space = line.find(' ');
    f[line.substr(2, space == std::string::npos ? std::string::npos : space - 2)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  return f;
}

int64_t num(const Flags& f, const std::string& k, int64_t fallback) {
  auto it = f.find(k);
  return it == f.end() ? fallback : std::stoll(it->second);
}

// Megatron-LM's rules on the flags, as a list of the ones broken (empty: validate_args and the
// model's config accept them). Defaults are Megatron's own (tensor and pipeline size 1,
// num_query_groups 1 only with --group-query-attention, expert size 1).
std::vector<std::string> megatron_rule_violations(const Flags& f, int64_t world) {
  std::vector<std::string> broken;
  const auto need = [&](bool ok, const std::string& rule) {
    if (!ok) broken.push_back(rule);
  };
  const int64_t tp = num(f, "tensor-model-parallel-size", 1), pp = num(f, "pipeline-model-parallel-size", 1);
  const int64_t ep = num(f, "expert-model-parallel-size", 1);
  // arguments.py: world size divisible by tensor x pipeline (x context) size.
  need(world % (tp * pp) == 0, "world size divisible by tensor x pipeline size");
  // required_args: num_layers, hidden_size, num_attention_heads, max_position_embeddings.
  for (const char* k : {"num-layers", "hidden-size", "num-attention-heads", "max-position-embeddings"})
    need(f.count(k) == 1, std::string("--") + k + " given");
  const int64_t layers = num(f, "num-layers", 0), heads = num(f, "num-attention-heads", 1), hidden = num(f, "hidden-size", 0);
  // Layers over the pipeline: divisible without the first/last options; with them (TransformerConfig),
  // each given count > 0 and the middle stages' layers divisible by the middle stage count.
  const int64_t first = num(f, "decoder-first-pipeline-num-layers", 0), last = num(f, "decoder-last-pipeline-num-layers", 0);
  if (!f.count("decoder-first-pipeline-num-layers") && !f.count("decoder-last-pipeline-num-layers")) {
    need(layers % pp == 0, "Number of layers should be divisible by the pipeline-model-parallel size");
  } else {
    need(!f.count("decoder-first-pipeline-num-layers") || first > 0, "num_layers_in_first_pipeline_stage must be larger than 0");
    need(!f.count("decoder-last-pipeline-num-layers") || last > 0, "num_layers_in_last_pipeline_stage must be larger than 0");
    const int64_t middle = pp - (first > 0) - (last > 0), rest = layers - first - last;
    need(middle == 0 || (rest > 0 && rest % middle == 0), "number of layers at middle stage divisible by the middle pipeline size");
    need(middle > 0 || rest == 0, "the first and last stages hold every layer when there is no middle stage");
  }
  // TransformerConfig: heads and query groups over the tensor-parallel ranks.
  need(heads % tp == 0, "num_attention_heads must be a multiple of tensor_model_parallel_size");
  const int64_t groups = f.count("group-query-attention") ? num(f, "num-query-groups", 1) : heads;
  need(groups % tp == 0, "num_query_groups must be a multiple of tensor_model_parallel_size");
  need(heads % groups == 0, "num_attention_heads divisible by num_query_groups");
  // kv_channels defaults to hidden / heads, asserted whole.
  need(f.count("kv-channels") || (heads > 0 && hidden % heads == 0), "hidden_size % num_attention_heads == 0 without --kv-channels");
  // max_position_embeddings >= seq_length.
  need(num(f, "max-position-embeddings", 0) >= num(f, "seq-length", 0), "max_position_embeddings >= seq_length");
  // num_microbatches_calculator: global batch divisible by micro batch x data-parallel size.
  const int64_t dp = world % (tp * pp) == 0 ? world / (tp * pp) : 1;
  const int64_t micro = num(f, "micro-batch-size", 0), global = num(f, "global-batch-size", micro * dp);
  need(micro > 0, "micro_batch_size > 0");
  need(micro > 0 && global % (micro * dp) == 0, "global batch size divisible by micro batch size times data parallel size");
  // Without --ffn-hidden-size, --swiglu gives int(8h/3 / 64) * 64, not the model's width: this
  // test asks for the width whenever the MLP is gated.
  need(!f.count("swiglu") || f.count("ffn-hidden-size"), "--swiglu comes with --ffn-hidden-size");
  // Expert parallelism: experts given and divisible, no fp16; parallel_state's expert grid.
  if (ep > 1) {
    need(f.count("num-experts") == 1, "num_experts must be non None to use expert model parallelism");
    need(num(f, "num-experts", 1) % ep == 0, "Number of experts should be a multiple of expert model parallel_size");
    need(!f.count("fp16"), "Expert parallelism is not supported with fp16 training");
    need(world % (tp * ep * pp) == 0, "world size divisible by expert tensor x expert x pipeline size");
  }
  // Interleaved 1F1B (--num-virtual-stages-per-pipeline-rank v): more than one stage, no uneven
  // first/last stages with it here, the layers split evenly over pipeline x chunks, and the
  // micro-batches a multiple of the pipeline size (the interleaved schedule's assertion).
  if (f.count("num-virtual-stages-per-pipeline-rank")) {
    const int64_t v = num(f, "num-virtual-stages-per-pipeline-rank", 1);
    need(pp > 1, "pipeline-model-parallel size should be greater than 1 with interleaved schedule");
    need(layers % (pp * v) == 0, "number of layers divisible by pipeline size x virtual stages");
    const int64_t m = micro > 0 && dp > 0 ? global / (micro * dp) : 0;
    need(m > 0 && m % pp == 0, "number of microbatches divisible by pipeline-model-parallel size when using interleaved schedule");
  }
  need(!(f.count("fp16") && f.count("bf16")), "one of --fp16 and --bf16");
  need(!f.count("moe-router-topk") || num(f, "moe-router-topk", 2) <= num(f, "num-experts", 0), "top-k at most the experts");
  return broken;
}

std::string megatron_export(const std::string& model, const std::string& cluster) {
  ExportRequest r;
  r.format = "megatron";
  r.title = model + " on " + cluster;
  auto g = load_model(model);
  REQUIRE(g.ok());
  auto out = export_operation(g.value(), load_cluster(cluster).value(), r);
  REQUIRE(out.ok());
  return out.value().text;
}

std::string hf(const std::string& name) { return std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/" + name + ".json"; }

// A pipeline plan of `stages` stages with these layer counts, each on devices/stages GPUs (the
// inter-op pass's shape; no intra-op choices: tensor size 1).
AlpaPipelinePlan plan_of(const std::vector<int>& layers_per_stage, int devices, int microbatches) {
  AlpaPipelinePlan p;
  p.microbatches = microbatches;
  int first = 1;
  for (int n : layers_per_stage) {
    PipelineStage s;
    s.first = first;
    s.last = first + n - 1;
    first += n;
    s.submesh = Submesh{1, devices / int(layers_per_stage.size())};
    s.logical_mesh = "1x" + std::to_string(devices / int(layers_per_stage.size()));
    p.inter.stages.push_back(s);
    CompareStage c;
    c.stage = s;
    c.layer_numbers = {s.first, s.last};
    p.stages.push_back(c);
  }
  return p;
}

}  // namespace

TEST_CASE("the rules themselves catch what Megatron-LM rejects") {
  // What the export printed before: no --max-position-embeddings (validate_args: "max_position_embeddings
  // argument is None"), 22 layers over 4 stages without the first/last options.
  Flags before = parse_flags("--tensor-model-parallel-size 8 \\\n--pipeline-model-parallel-size 4 \\\n--num-layers 22 \\\n--hidden-size 2048 \\\n"
                             "--num-attention-heads 32 \\\n--seq-length 2048 \\\n--micro-batch-size 1 \\\n--global-batch-size 8\n");
  auto broken = megatron_rule_violations(before, 32);
  CHECK(std::find(broken.begin(), broken.end(), "--max-position-embeddings given") != broken.end());
  CHECK(std::find(broken.begin(), broken.end(), "Number of layers should be divisible by the pipeline-model-parallel size") != broken.end());
  before["decoder-first-pipeline-num-layers"] = "6";
  before["decoder-last-pipeline-num-layers"] = "6";
  before["max-position-embeddings"] = "2048";
  CHECK(megatron_rule_violations(before, 32).empty());
  before["decoder-last-pipeline-num-layers"] = "5";   // 11 layers over 2 middle stages
  CHECK(megatron_rule_violations(before, 32).size() == 1);
  before["decoder-last-pipeline-num-layers"] = "6";
  before["group-query-attention"] = "";
  before["num-query-groups"] = "4";                   // 4 groups over 8 ranks
  CHECK(megatron_rule_violations(before, 32).size() == 1);
}

TEST_CASE("a Llama-3-8B export for 4x8 A100s names the same model in Megatron-LM's terms and passes its rules") {
  const std::string text = megatron_export(hf("llama-3-8b"), "a100:4x8");
  CAPTURE(text);
  const Flags f = parse_flags(text);
  CHECK(megatron_rule_violations(f, 32).empty());
  // config.json: 32 layers of 4096, 32 heads in 8 K/V groups, SwiGLU 14336, RMSNorm (1e-5), rotary with
  // rope_theta 500000, 8192 positions, untied head, no biases, no dropout, bfloat16.
  CHECK(f.at("num-layers") == "32");
  CHECK(f.at("hidden-size") == "4096");
  CHECK(f.at("ffn-hidden-size") == "14336");
  CHECK(f.at("num-attention-heads") == "32");
  CHECK(f.count("group-query-attention") == 1);
  CHECK(f.at("num-query-groups") == "8");
  CHECK(f.count("kv-channels") == 0);                 // 4096 / 32 = 128, Megatron's default
  CHECK(f.at("max-position-embeddings") == "8192");
  CHECK(f.at("seq-length") == "4096");                // the default training sequence (min(context, 4096))
  CHECK(f.at("position-embedding-type") == "rope");
  CHECK(f.at("rotary-base") == "500000");
  CHECK(f.at("normalization") == "RMSNorm");
  CHECK(f.count("norm-epsilon") == 0);                // 1e-5 is Megatron's default
  CHECK(f.count("swiglu") == 1);
  CHECK(f.count("disable-bias-linear") == 1);
  CHECK(f.count("add-qkv-bias") == 0);
  CHECK(f.count("untie-embeddings-and-output-weights") == 1);
  CHECK(f.at("attention-dropout") == "0.0");
  CHECK(f.at("hidden-dropout") == "0.0");
  CHECK(f.count("bf16") == 1);
  CHECK(f.count("fp16") == 0);
  CHECK(f.count("num-experts") == 0);
  // 128256 rows over the tensor-parallel ranks without padding: divisor x TP divides the vocabulary.
  const int64_t tp = num(f, "tensor-model-parallel-size", 1);
  CHECK(128256 % (num(f, "make-vocab-size-divisible-by", 128) * tp) == 0);
  CHECK(text.find("cannot build") == std::string::npos);
  CHECK(text.find("cannot run this plan") == std::string::npos);
}

TEST_CASE("TinyLlama's 22 layers over 4 pipeline stages take Megatron-LM's first/last-stage options") {
  const Graph g = load_model(hf("tinyllama-1.1b") + ":batch=32").value();
  // Alpa's stages hold 6, 5, 5, 6 layers: Megatron can say exactly that.
  std::string text = export_megatron(g, plan_of({6, 5, 5, 6}, 32, 32), 32, "tinyllama");
  CAPTURE(text);
  Flags f = parse_flags(text);
  CHECK(megatron_rule_violations(f, 32).empty());
  CHECK(f.at("pipeline-model-parallel-size") == "4");
  CHECK(f.at("decoder-first-pipeline-num-layers") == "6");
  CHECK(f.at("decoder-last-pipeline-num-layers") == "6");
  CHECK(f.at("num-query-groups") == "4");
  CHECK(text.find("22 layers do not divide over 4 pipeline stages") != std::string::npos);
  // Stages of 7, 4, 5, 6 have unequal middle stages, which Megatron cannot place: the nearest split it can.
  text = export_megatron(g, plan_of({7, 4, 5, 6}, 32, 32), 32, "tinyllama");
  f = parse_flags(text);
  CHECK(megatron_rule_violations(f, 32).empty());
  CHECK(num(f, "decoder-first-pipeline-num-layers", 0) + num(f, "decoder-last-pipeline-num-layers", 0) == 12);
  // Two stages: the first takes 11, the last the other 11 (even: no option needed); 3 stages of 22: 8, 7, 7.
  f = parse_flags(export_megatron(g, plan_of({11, 11}, 32, 32), 32, "tinyllama"));
  CHECK(megatron_rule_violations(f, 32).empty());
  CHECK(f.count("decoder-first-pipeline-num-layers") == 0);
  f = parse_flags(export_megatron(g, plan_of({8, 7, 7}, 24, 32), 24, "tinyllama"));
  CHECK(megatron_rule_violations(f, 24).empty());
  CHECK(f.at("decoder-first-pipeline-num-layers") == "8");
  // Alpa's own plan of TinyLlama on 4x8 A100s (its stage count need not divide the 32 GPUs: then the
  // nearest pipeline Megatron can run, with a note), within the rules either way.
  text = megatron_export(hf("tinyllama-1.1b") + ":batch=32", "a100:4x8");
  CAPTURE(text);
  CHECK(megatron_rule_violations(parse_flags(text), 32).empty());
  CHECK(text.find("cannot run this plan") == std::string::npos);
  // A plan of 3 stages on 8 GPUs runs as 2 or 4 stages (the nearer, the smaller on a tie: 2).
  f = parse_flags(export_megatron(g, plan_of({8, 7, 7}, 8, 32), 8, "tinyllama"));
  CHECK(megatron_rule_violations(f, 8).empty());
  CHECK(f.at("pipeline-model-parallel-size") == "2");
  // More stages than layers cannot run at all, and the export says so.
  const Graph two = load_model(hf("tinyllama-1.1b") + ":batch=32,layers=2").value();
  text = export_megatron(two, plan_of({1, 1, 0}, 3, 32), 3, "tinyllama");
  CHECK(text.find("cannot run this plan as it is: it needs at least one layer per pipeline stage") != std::string::npos);
}

TEST_CASE("an interleaved plan exports Megatron-LM's virtual stages where its rules take them, else says it runs 1F1B") {
  // Llama 3 8B's 32 layers as 2 stages of 16, 4 chunks each: 32 = 2 x 4 x 4, virtual stages given.
  const Graph g = load_model(hf("llama-3-8b") + ":batch=32").value();
  AlpaPipelinePlan plan = plan_of({16, 16}, 16, 8);
  plan.inter.interleave = 4;
  std::string text = export_megatron(g, plan, 16, "llama");
  CAPTURE(text);
  Flags f = parse_flags(text);
  CHECK(megatron_rule_violations(f, 16).empty());
  CHECK(f.at("num-virtual-stages-per-pipeline-rank") == "4");
  CHECK(f.at("pipeline-model-parallel-size") == "2");
  // TinyLlama's 22 layers cannot split over 2 stages x 2 chunks: no flag, and a note why.
  const Graph tiny = load_model(hf("tinyllama-1.1b") + ":batch=32").value();
  plan = plan_of({11, 11}, 32, 32);
  plan.inter.interleave = 2;
  text = export_megatron(tiny, plan, 32, "tinyllama");
  f = parse_flags(text);
  CHECK(megatron_rule_violations(f, 32).empty());
  CHECK(f.count("num-virtual-stages-per-pipeline-rank") == 0);
  CHECK(text.find("runs interleaved 1F1B with 2 chunks per device") != std::string::npos);
  // The rule itself: virtual stages that do not divide the layers are refused.
  f["num-virtual-stages-per-pipeline-rank"] = "4";
  CHECK(megatron_rule_violations(f, 32).size() == 1);
}

TEST_CASE("GPT-2, Mixtral, Qwen2 and the built-in transformer export within Megatron-LM's rules") {
  // GPT-2: learned positions (1024), LayerNorm, GELU, biases, tied, dropout 0.1 (Megatron's default).
  std::string text = megatron_export(hf("gpt2") + ":batch=16,seq=1024", "a100:1x8");
  CAPTURE(text);
  Flags f = parse_flags(text);
  CHECK(megatron_rule_violations(f, 8).empty());
  CHECK(f.at("position-embedding-type") == "learned_absolute");
  CHECK(f.at("max-position-embeddings") == "1024");
  CHECK(f.at("ffn-hidden-size") == "3072");
  CHECK(f.at("normalization") == "LayerNorm");
  CHECK(f.count("swiglu") == 0);
  CHECK(f.count("disable-bias-linear") == 0);
  CHECK(f.count("untie-embeddings-and-output-weights") == 0);
  CHECK(f.count("attention-dropout") == 0);
  CHECK(f.count("bf16") + f.count("fp16") == 0);      // float32
  // 50257 is odd: any TP above 1 pads it, and the export says by how much.
  if (num(f, "tensor-model-parallel-size", 1) > 1) {
    CHECK(text.find("do not divide over") != std::string::npos);
    CHECK(f.at("make-vocab-size-divisible-by") == "1");   // the least padding: to a multiple of TP
  }
  // Mixtral: 8 experts, top 2, each 14336 wide; expert parallelism divides them; bf16.
  text = megatron_export(hf("mixtral-8x7b") + ":layers=4,batch=16,seq=1024", "a100:2x8");
  f = parse_flags(text);
  CHECK(megatron_rule_violations(f, 16).empty());
  CHECK(f.at("num-experts") == "8");
  CHECK(f.at("moe-router-topk") == "2");
  CHECK(f.at("moe-ffn-hidden-size") == "14336");
  CHECK(f.count("expert-model-parallel-size") == 1);
  CHECK(f.count("swiglu") == 1);
  CHECK(f.count("bf16") == 1);
  // Qwen2: biases on q/k/v only, RMSNorm epsilon 1e-6, rope_theta 1e6.
  f = parse_flags(megatron_export(hf("qwen2-7b") + ":layers=4,batch=16,seq=1024", "a100:1x8"));
  CHECK(megatron_rule_violations(f, 8).empty());
  CHECK(f.count("disable-bias-linear") == 1);
  CHECK(f.count("add-qkv-bias") == 1);
  CHECK(f.at("norm-epsilon") == "1e-06");
  CHECK(f.at("rotary-base") == "1000000");
  CHECK(f.at("num-query-groups") == "4");
  // Gemma: head_dim 256 differs from 3072 / 16, and Megatron has no GeGLU: the export says so.
  text = megatron_export(hf("gemma-7b") + ":layers=2,batch=8,seq=512", "a100:1x8");
  f = parse_flags(text);
  CHECK(megatron_rule_violations(f, 8).empty());
  CHECK(f.at("kv-channels") == "256");
  CHECK(f.count("untie-embeddings-and-output-weights") == 0);
  CHECK(text.find("cannot build a GeGLU MLP") != std::string::npos);
  // Falcon-7B's 71 heads in one K/V group run without tensor parallelism.
  f = parse_flags(megatron_export(hf("falcon-7b") + ":layers=2,batch=8,seq=512", "a100:1x8"));
  CHECK(megatron_rule_violations(f, 8).empty());
  CHECK(f.at("num-query-groups") == "1");
  CHECK(f.at("tensor-model-parallel-size") == "1");
  // The built-in transformer (no vocabulary, no positions) stays within the rules and says what it lacks.
  text = megatron_export("transformer:layers=4", "a100:1x8");
  CHECK(megatron_rule_violations(parse_flags(text), 8).empty());
  CHECK(text.find("without token embeddings") != std::string::npos);
}
