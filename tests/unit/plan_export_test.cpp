// `export --plan`: a given plan written for Megatron-LM and torchtitan with every knob, its sizes
// multiplying to the GPUs and its batch to the model's, or refused as `inter --plan` refuses it.
#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>

#include "cluster_spec.h"
#include "export_operation.h"
#include "operation_requests.h"
#include "request_fields.h"
#include "models.h"

using namespace autopar;

namespace {

// The value after "--name " in a Megatron-LM command (-1 when absent).
int64_t megatron_flag(const std::string& text, const std::string& name) {
  const std::string key = "--" + name + " ";
  const size_t at = text.find(key);
  return at == std::string::npos ? -1 : std::stoll(text.substr(at + key.size()));
}

// torchtitan's keys ("section.key" -> value text), from the TOML the export writes.
std::map<std::string, std::string> toml_keys(const std::string& text) {
  std::map<std::string, std::string> keys;
  std::istringstream in(text);
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      section = line.substr(1, line.find(']') - 1);
      continue;
    }
    const size_t eq = line.find(" = ");
    REQUIRE(eq != std::string::npos);
    keys[section + "." + line.substr(0, eq)] = line.substr(eq + 3);
  }
  return keys;
}

Result<ExportReport> export_plan(const std::string& model, const std::string& cluster, const std::string& format, const std::string& plan) {
  ExportRequest r;
  r.format = format;
  r.title = model + " on " + cluster;
  auto given = parse_given_plan(plan);
  auto g = load_model(model);
  auto c = load_cluster(cluster);
  REQUIRE(given.ok());
  REQUIRE(g.ok());
  REQUIRE(c.ok());
  r.plan = given.value();
  return export_operation(g.value(), c.value(), r);
}

}  // namespace

TEST_CASE("export --plan writes every knob of the plan as Megatron-LM's flags") {
  const std::string model = std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/llama-3-8b.json:layers=8,seq=4096,batch=32,dtype_bytes=2";
  auto out = export_plan(model, "h100:2x8,precision=fp8", "megatron", "t=2,p=2,d=2,cp=2,v=2,mbs=2,sp=1,recompute=selective,dist_opt=1");
  REQUIRE(out.ok());
  const std::string& text = out.value().text;
  CAPTURE(text);
  CHECK(megatron_flag(text, "tensor-model-parallel-size") == 2);
  CHECK(megatron_flag(text, "pipeline-model-parallel-size") == 2);
  CHECK(megatron_flag(text, "context-parallel-size") == 2);
  CHECK(megatron_flag(text, "num-virtual-stages-per-pipeline-rank") == 2);
  CHECK(megatron_flag(text, "micro-batch-size") == 2);
  CHECK(megatron_flag(text, "global-batch-size") == 32);
  CHECK(text.find("--sequence-parallel \\\n") != std::string::npos);
  CHECK(text.find("--recompute-granularity selective \\\n") != std::string::npos);
  CHECK(text.find("--use-distributed-optimizer \\\n") != std::string::npos);
  CHECK(text.find("--fp8-format hybrid \\\n") != std::string::npos);
  CHECK(text.find("--bf16 \\\n") != std::string::npos);
  // Megatron-LM's arithmetic: the data-parallel size is what t x cp x p leave of the 16 GPUs, and
  // the global batch is micro-batch size x data-parallel size x micro-batches.
  CHECK(text.find("# data-parallel size (implied by the GPUs over tensor x context x pipeline size): 2\n") != std::string::npos);
  CHECK(text.find(": 8 micro-batches of 2 sequences per data-parallel replica, global batch 32.") != std::string::npos);
  CHECK(text.find("autopar prices it at ") != std::string::npos);
  CHECK(text.find("# Note") == std::string::npos);   // nothing here that Megatron-LM cannot run
}

TEST_CASE("export --plan's Megatron-LM recomputation and sharding follow the plan, and say what Megatron-LM cannot run") {
  const std::string model = "transformer:layers=8,hidden=1024,heads=16,seq=1024,batch=16";
  SUBCASE("full recomputation of every layer, or of the first N of each stage") {
    auto all = export_plan(model, "a100:1x8", "megatron", "t=2,p=2,d=2,mbs=1");
    REQUIRE(all.ok());
    CHECK(all.value().text.find("--recompute-granularity full \\\n--recompute-method uniform \\\n--recompute-num-layers 1 \\\n") != std::string::npos);
    auto block = export_plan(model, "a100:1x8", "megatron", "t=2,p=2,d=2,mbs=1,recompute_layers=3");
    REQUIRE(block.ok());
    CHECK(block.value().text.find("--recompute-method block \\\n--recompute-num-layers 3 \\\n") != std::string::npos);
    auto none = export_plan(model, "a100:1x8", "megatron", "t=2,p=2,d=2,mbs=1,remat=0");
    REQUIRE(none.ok());
    CHECK(none.value().text.find("--recompute") == std::string::npos);
  }
  SUBCASE("ZeRO 3 is FSDP2, which Megatron-LM cannot pipeline") {
    auto flat = export_plan(model, "a100:1x8", "megatron", "t=1,p=1,d=8,mbs=1,zero=3");
    REQUIRE(flat.ok());
    CHECK(flat.value().text.find("--use-torch-fsdp2 \\\n") != std::string::npos);
    CHECK(flat.value().text.find("--use-distributed-optimizer \\\n") == std::string::npos);
    CHECK(flat.value().text.find("cannot run") == std::string::npos);
    auto piped = export_plan(model, "a100:1x8", "megatron", "t=1,p=2,d=4,mbs=1,zero=3");
    REQUIRE(piped.ok());
    CHECK(piped.value().text.find("# Note: Megatron-LM cannot run this plan as it is: its torch FSDP2 does not work with pipeline parallelism") !=
          std::string::npos);
  }
  SUBCASE("a schedule Megatron-LM has no flag for is named") {
    auto zb = export_plan(model, "a100:1x8", "megatron", "t=2,p=2,d=2,mbs=1,schedule=zb-h1");
    REQUIRE(zb.ok());
    CHECK(zb.value().text.find("# Note: the plan runs the zb-h1 schedule") != std::string::npos);
  }
}

TEST_CASE("export --plan's torchtitan config multiplies to the GPUs and the batch, for every plan that prices") {
  // Every t, p, d, cp with t*p*cp*d = 8 on one node, with each ZeRO stage and recomputation.
  const std::string model = "transformer:layers=8,hidden=1024,heads=16,seq=1024,batch=32";
  int exported = 0;
  for (int t : {1, 2, 4})
    for (int p : {1, 2, 4})
      for (int cp : {1, 2})
        for (int zero : {0, 1, 3})
          for (const char* recompute : {"none", "selective", "full"}) {
            if (8 % (t * p * cp) != 0) continue;
            const int d = 8 / (t * p * cp);
            const std::string plan = "t=" + std::to_string(t) + ",p=" + std::to_string(p) + ",d=" + std::to_string(d) + ",cp=" + std::to_string(cp) +
                                     ",mbs=1,zero=" + std::to_string(zero) + ",recompute=" + recompute + (t > 1 ? ",sp=1" : "");
            CAPTURE(plan);
            auto out = export_plan(model, "a100:1x8", "torchtitan", plan);
            REQUIRE(out.ok());
            const auto keys = toml_keys(out.value().text);
            auto num = [&](const std::string& k) {
              REQUIRE(keys.count(k));
              return std::stoll(keys.at(k));
            };
            const int64_t replicate = num("parallelism.data_parallel_replicate_degree"), shard = num("parallelism.data_parallel_shard_degree");
            CHECK(replicate * shard == d);
            CHECK((zero == 0 ? shard == 1 : replicate == 1));
            CHECK(replicate * shard * num("parallelism.tensor_parallel_degree") * num("parallelism.context_parallel_degree") *
                      num("parallelism.pipeline_parallel_degree") == 8);
            CHECK(num("training.global_batch_size") == 32);
            CHECK(num("training.local_batch_size") * d == 32);
            CHECK(keys.at("activation_checkpoint.mode") == std::string("\"") + recompute + "\"");
            if (p > 1) {
              CHECK(num("parallelism.pipeline_parallel_microbatch_size") == 1);
              CHECK(num("parallelism.pipeline_parallel_layers_per_stage") * p == 8);
            }
            CHECK((zero == 1) == (out.value().text.find("torchtitan has no ZeRO 1") != std::string::npos));
            ++exported;
          }
  CHECK(exported > 30);
}

TEST_CASE("export --plan writes uneven end stages as torchtitan split points") {
  auto out = export_plan("transformer:layers=10,hidden=1024,heads=16,seq=1024,batch=8", "a100:1x8", "torchtitan", "t=2,p=4,d=1,mbs=1,first=1,last=3");
  REQUIRE(out.ok());
  const auto keys = toml_keys(out.value().text);
  // Stages of 1, 3, 3, 3 layers begin at blocks 1, 4 and 7.
  CHECK(keys.at("parallelism.pipeline_parallel_split_points") == "[\"layers.1\", \"layers.4\", \"layers.7\"]");
  CHECK(keys.count("parallelism.pipeline_parallel_layers_per_stage") == 0);
}

TEST_CASE("export --plan refuses what inter --plan refuses, and formats that take no plan") {
  const std::string model = "transformer:layers=8,hidden=1024,heads=16,seq=1024,batch=16";
  auto wrong_gpus = export_plan(model, "a100:1x8", "megatron", "t=2,p=2,d=1");
  REQUIRE_FALSE(wrong_gpus.ok());
  CHECK(wrong_gpus.error().path == "--plan");
  CHECK(wrong_gpus.error().message.find("uses t*p*d = 4 GPUs but the cluster has 8") != std::string::npos);
  auto perfetto = export_plan(model, "a100:1x8", "perfetto", "t=2,p=2,d=2");
  REQUIRE_FALSE(perfetto.ok());
  CHECK(perfetto.error().path == "--plan");
  // 16 sequences do not split into micro-batches of 3 over 2 replicas.
  auto batch = export_plan(model, "a100:1x8", "torchtitan", "t=2,p=2,d=2,mbs=3");
  REQUIRE_FALSE(batch.ok());
  CHECK(batch.error().message.find("multiple of mbs * d") != std::string::npos);
  // The request's own check, as the page and the worker read it.
  ExportRequest r;
  r.format = "jax";
  r.plan = parse_given_plan("t=2").value();
  CHECK_FALSE(validate(r, cli_field_path()).ok());
}
