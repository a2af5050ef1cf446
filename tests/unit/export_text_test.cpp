// The engine exports as text a user pastes: the Megatron-LM arguments must survive a shell.
#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>

#include "cluster_spec.h"
#include "device_mesh.h"
#include "engine_export.h"
#include "intra_op.h"
#include "sharding_spec.h"
#include "export_operation.h"
#include "models.h"

using namespace autopar;

TEST_CASE("the Megatron-LM export is one unbroken run of arguments") {
  // transformer:layers=2 on one A100 node pipelines into stages and data parallelism is implied;
  // a comment line between arguments joined by trailing backslashes would end the command there.
  const Graph g = load_model("transformer:layers=2").value();
  ExportRequest r;
  r.format = "megatron";
  r.title = "transformer:layers=2 on a100:1x8";
  auto out = export_operation(g, load_cluster("a100:1x8").value(), r);
  REQUIRE(out.ok());
  std::istringstream lines(out.value().text);
  std::string line;
  bool in_arguments = false, continued = false;
  int arguments = 0;
  while (std::getline(lines, line)) {
    CAPTURE(line);
    if (line.rfind("--", 0) == 0) {
      CHECK((!in_arguments || continued));   // every argument after the first follows a backslash
      in_arguments = true;
      ++arguments;
    } else {
      CHECK_FALSE(in_arguments);             // comments only before the arguments
    }
    continued = line.size() >= 2 && line.compare(line.size() - 2, 2, " \\") == 0;
  }
  CHECK_FALSE(continued);                    // the last argument ends the command
  CHECK(arguments >= 6);
}

namespace {

// The value of a Megatron-LM flag in the export, or -1.
int64_t flag(const std::string& text, const std::string& name) {
  const size_t at = text.find("--" + name + " ");
  return at == std::string::npos ? -1 : std::stoll(text.substr(at + name.size() + 3));
}

}  // namespace

TEST_CASE("the Megatron-LM export satisfies Megatron-LM's own checks, or says why the plan cannot run there") {
  // Megatron-LM asserts that tensor x pipeline size divides the GPUs and that the global batch is
  // a multiple of micro-batch size x data-parallel size. The export ignored the data-parallel
  // size (64 sequences, 32 micro-batches and 4 replicas gave --micro-batch-size 2: 8 micro-batches,
  // not the plan's 32) and printed pipeline sizes that do not divide 3 or 6 GPUs without a word.
  for (const char* cluster : {"a100:1x8", "lecture:2x4", "a100:2x8", "a100:4x8", "lecture:1x3", "lecture:1x6", "a100:3x4", "lecture:1x1"}) {
    for (const char* model : {"transformer:layers=2", "transformer:layers=4", "transformer:layers=4,batch=48",
                              "transformer:layers=2,heads=12,hidden=768,batch=1,seq=2048", "transformer:layers=2,heads=6,hidden=768,batch=2"}) {
      CAPTURE(cluster);
      CAPTURE(model);
      const Graph g = load_model(model).value();
      const Cluster c = load_cluster(cluster).value();
      ExportRequest r;
      r.format = "megatron";
      auto out = export_operation(g, c, r);
      REQUIRE(out.ok());
      const std::string& text = out.value().text;
      CAPTURE(text);
      const int64_t tp = flag(text, "tensor-model-parallel-size"), pp = flag(text, "pipeline-model-parallel-size");
      const int64_t micro = flag(text, "micro-batch-size"), global = flag(text, "global-batch-size");
      REQUIRE(tp >= 1);
      REQUIRE(pp >= 1);
      REQUIRE(micro >= 1);
      CHECK(global == g.spec.inputs[0].shape[0]);
      const int devices = c.num_devices();
      // Megatron-LM also splits the attention heads evenly over the tensor-parallel ranks.
      const int64_t heads = flag(text, "num-attention-heads");
      const bool runnable = devices % (tp * pp) == 0 && global % (micro * (devices / (tp * pp))) == 0 && (heads < 0 || heads % tp == 0);
      if (!runnable) {
        CHECK(text.find("# Note: Megatron-LM cannot run") != std::string::npos);
        continue;
      }
      const int64_t dp = devices / (tp * pp);
      CHECK(text.find("# data-parallel size (implied): " + std::to_string(dp) + "\n") != std::string::npos);
      // It says how many micro-batches Megatron-LM will run, and the plan's count when they differ.
      const int64_t runs = global / (micro * dp);
      CHECK(text.find("# micro-batches per iteration: " + std::to_string(runs)) != std::string::npos);
      const int planned = default_microbatches(g);
      if (runs != planned) CHECK(text.find("the plan pipelines " + std::to_string(planned)) != std::string::npos);
      else CHECK(micro * dp * planned == global);
    }
  }
}

TEST_CASE("the Megatron-LM export takes its tensor-parallel size from the pipeline stages' own plans") {
  // It took it from the intra-op plan of the whole cluster as one mesh, which the pipeline does
  // not run: on lecture:2x4 the stages run 2x2 meshes with 2-way tensor parallelism, and the
  // export printed 4. Here each stage's size is read from its plan's strategy names (the mesh
  // axes its Linear layers split by column or row, or attention by heads).
  for (const char* cluster : {"lecture:2x4", "a100:2x8", "lecture:1x6", "a100:1x8", "lecture:1x1"}) {
    for (const char* model : {"transformer:layers=4", "transformer:layers=2,heads=12,hidden=768,batch=8"}) {
      CAPTURE(cluster);
      CAPTURE(model);
      const Graph g = load_model(model).value();
      const Cluster c = load_cluster(cluster).value();
      auto pipe = plan_alpa_pipeline(g, c, default_microbatches(g));
      REQUIRE(pipe.ok());
      std::map<int64_t, int> votes;
      for (const CompareStage& st : pipe.value().stages) {
        int64_t ways = 1;
        for (int axis = 0; axis < 2; ++axis) {
          bool used = false;
          for (size_t v = 0; v < st.intra.strategies.size(); ++v) {
            const std::string& name = st.intra.strategies[v][size_t(st.intra.solution.choice[v])].name;
            for (const char* role : {"column@", "row@", "heads@"})
              used = used || name.find(role + std::to_string(axis)) != std::string::npos;
          }
          if (used) ways *= axis == 0 ? st.intra.mesh.rows() : st.intra.mesh.cols();
        }
        CHECK(ways <= st.stage.submesh.devices());
        ++votes[ways];
      }
      int64_t expected = 1;
      int best = 0;
      for (const auto& [ways, n] : votes)   // ascending: the smaller size wins a tie
        if (n > best) expected = ways, best = n;
      const int pp = int(pipe.value().inter.stages.size());
      // Lowered until tensor x pipeline size divides the GPUs and the heads divide over the ranks
      // (Megatron-LM's TransformerConfig refuses num_attention_heads % tensor size != 0).
      const int64_t heads = g.ops[size_t(g.find_op("attn_1"))].spec.attrs.at("heads");
      while (expected > 1 && (c.num_devices() % (expected * pp) != 0 || heads % expected != 0)) expected /= 2;
      ExportRequest r;
      r.format = "megatron";
      auto out = export_operation(g, c, r);
      REQUIRE(out.ok());
      CAPTURE(out.value().text);
      CHECK(flag(out.value().text, "tensor-model-parallel-size") == expected);
      CHECK(flag(out.value().text, "pipeline-model-parallel-size") == pp);
      if (votes.size() > 1) CHECK(out.value().text.find("# Note: the stages' own plans use tensor-parallel sizes") != std::string::npos);
    }
  }
}

TEST_CASE("the JAX export names every sharded dimension that does not divide over its mesh axes") {
  // JAX (jit, device_put) refuses a NamedSharding whose dimension does not divide by the mesh
  // axes it is split over; Alpa's plan splits unevenly (4096 over 3 GPUs), so the export must say.
  for (const char* cluster : {"lecture:1x3", "lecture:1x4", "lecture:2x3", "lecture:1x6"}) {
    for (const char* model : {"mlp3", "transformer:layers=1", "transformer:layers=4", "alexnet"}) {
      CAPTURE(cluster);
      CAPTURE(model);
      const Graph g = load_model(model).value();
      const Cluster c = load_cluster(cluster).value();
      auto mesh = mesh_from_cluster(c.nodes, c.gpus_per_node, c);
      REQUIRE(mesh.ok());
      auto plan = plan_intra_op(g, mesh.value(), IntraOpOptions{});
      REQUIRE(plan.ok());
      const std::string text = export_jax(g, plan.value(), model);
      const size_t note = text.find("# Note: JAX");
      int uneven = 0;
      auto check = [&](const std::string& name, const std::vector<int64_t>& shape, const ShardingSpec& spec) {
        for (size_t d = 0; d < spec.dims.size() && d < shape.size(); ++d)
          if (spec.dims[d] != 0 && shape[d] % mask_ways(spec.dims[d], plan.value().mesh) != 0) {
            ++uneven;
            CAPTURE(name);
            REQUIRE(note != std::string::npos);
            if (uneven <= 24) CHECK(text.find("'" + name + "'", note) != std::string::npos);   // the first 24 by name
          }
      };
      for (size_t v = 0; v < g.ops.size(); ++v) {
        const Op& op = g.ops[v];
        const OpStrategy& s = plan.value().strategies[v][size_t(plan.value().solution.choice[v])];
        for (size_t k = 0; k < op.params.size(); ++k) check(op.params[k].name, op.params[k].shape, s.inputs[op.inputs.size() + k]);
        check(op.name(), op.output.shape, s.output);
      }
      if (uneven == 0) CHECK(note == std::string::npos);
      if (uneven > 24) CHECK(text.find("#   and " + std::to_string(uneven - 24) + " more\n") != std::string::npos);
    }
  }
}
