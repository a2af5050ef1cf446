// The PyTorch DTensor export against torch's rules: the Python compiles (python3 -m py_compile),
// and run against stand-ins for torch 2.4's and 2.5's distributed API (dtensor_rules.py: the
// names each release exports, init_device_mesh, mesh slicing by name, parallelize_module's
// styles and what they shard, distribute_tensor) every sharded parameter is placed as the plan
// says, with one placement per mesh dim. The facts the rules check against come from the graph
// and the plan here, not from the export.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cluster_spec.h"
#include "commands.h"
#include "device_mesh.h"
#include "dtensor_export.h"
#include "export_operation.h"
#include "intra_op.h"
#include "json_io.h"
#include "test_inputs.h"

using namespace autopar;

namespace {

namespace fs = std::filesystem;

bool have_python() { return std::system("python3 -c pass > /dev/null 2>&1") == 0; }

// The facts of `g` and its plan for dtensor_rules.py: devices, device type, every parameter's
// torch-layout shape and module kind, and the parameters the plan splits.
Json facts_of(const Graph& g, const IntraOpPlan& plan, const std::string& device_type) {
  Json params = Json::object(), sharded = Json::array();
  for (size_t v = 0; v < g.ops.size(); ++v) {
    const Op& op = g.ops[v];
    const OpStrategy& s = plan.strategies[v][size_t(plan.solution.choice[v])];
    for (size_t k = 0; k < op.params.size(); ++k) {
      const Tensor& p = op.params[k];
      if (params.contains(p.name)) continue;   // a tied table, listed under its embedding
      std::vector<int64_t> shape = p.shape;
      // torch.nn.Linear stores its weight [out, in]; autopar's is [in, out].
      if (op.spec.kind == OpKind::linear && shape.size() == 2) std::swap(shape[0], shape[1]);
      params[p.name] = Json{{"shape", shape}, {"module_kind", op_kind_name(op.spec.kind)}};
      bool split = false;
      for (AxisMask m : s.inputs[op.inputs.size() + k].dims) split = split || m != 0;
      if (split) sharded.push_back(p.name);
    }
  }
  return Json{{"devices", plan.mesh.rows() * plan.mesh.cols()}, {"device_type", device_type}, {"params", params}, {"sharded", sharded}};
}

struct Checked {
  int compile_status = -1;
  int rules_24 = -1, rules_25 = -1;
  std::string output;
};

// Writes the export and its facts to a scratch directory and runs python3 on them.
Checked run_python(const std::string& text, const Json& facts, const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() / ("autopar_dtensor_" + tag);
  fs::create_directories(dir);
  const fs::path py = dir / "plan.py", facts_file = dir / "facts.json", out = dir / "out.txt";
  std::ofstream(py) << text;
  std::ofstream(facts_file) << facts.dump();
  const std::string rules = std::string(AUTOPAR_SOURCE_DIR) + "/tests/unit/dtensor_rules.py";
  Checked c;
  c.compile_status = std::system(("python3 -m py_compile '" + py.string() + "' > '" + out.string() + "' 2>&1").c_str());
  c.output += autopar::test::read_file(out);
  c.rules_24 = std::system(("python3 '" + rules + "' '" + py.string() + "' '" + facts_file.string() + "' 2.4 > '" + out.string() + "' 2>&1").c_str());
  c.output += autopar::test::read_file(out);
  c.rules_25 = std::system(("python3 '" + rules + "' '" + py.string() + "' '" + facts_file.string() + "' 2.5 > '" + out.string() + "' 2>&1").c_str());
  c.output += autopar::test::read_file(out);
  fs::remove_all(dir);
  return c;
}

IntraOpPlan cluster_plan(const Graph& g, const Cluster& c) {
  auto mesh = mesh_from_cluster(c.nodes, c.gpus_per_node, c);
  REQUIRE(mesh.ok());
  auto plan = plan_intra_op(g, mesh.value(), IntraOpOptions{});
  REQUIRE(plan.ok());
  return plan.value();
}

}  // namespace

TEST_CASE("the DTensor export compiles and keeps torch 2.4's and 2.5's rules, every sharded parameter placed") {
  if (!have_python()) {
    MESSAGE("python3 is not installed: the export's Python is not checked");
    return;
  }
  const std::string llama = std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/llama-2-7b.json:layers=2,seq=256,batch=8";
  struct Case {
    std::string model, cluster, device_type;
  };
  int tag = 0;
  for (const Case& k : {Case{llama, "a100:2x8", "cuda"}, Case{"transformer:layers=2,vocab=1000", "lecture:2x4", "cuda"},
                        Case{"moe:layers=1,batch=16,seq=64,hidden=256,heads=4,experts=8,ffn=512", "lecture:2x4", "xpu"},
                        Case{"mlp3", "lecture:1x4", "cpu"}, Case{"bert", "lecture:2x2", "hpu"}, Case{"dlrm:rows=1000", "lecture:2x4", "cuda"}}) {
    CAPTURE(k.model);
    CAPTURE(k.cluster);
    const Graph g = autopar::test::model(k.model);
    const IntraOpPlan plan = cluster_plan(g, load_cluster(k.cluster).value());
    const std::string text = export_dtensor(g, plan, k.model + " on " + k.cluster, k.device_type);
    CAPTURE(text);
    const Checked c = run_python(text, facts_of(g, plan, k.device_type), std::to_string(++tag));
    CAPTURE(c.output);
    CHECK(c.compile_status == 0);
    CHECK(c.rules_24 == 0);
    CHECK(c.rules_25 == 0);
    CHECK(text.find("init_device_mesh(DEVICE_TYPE, (" + std::to_string(plan.mesh.rows()) + ", " + std::to_string(plan.mesh.cols()) + ")") !=
          std::string::npos);
    CHECK(text.find("DEVICE_TYPE = \"" + k.device_type + "\"") != std::string::npos);
  }
}

TEST_CASE("the DTensor export places Llama's token embedding, whichever way the plan splits it") {
  // The export listed only Linear layers in its plan: Llama's embed_tokens.weight, split by the
  // plan over the tensor axis, was left whole. nn.Embedding takes RowwiseParallel (Shard(0), the
  // vocabulary) or ColwiseParallel (Shard(1)) as torch's styles do; a table split over both mesh
  // axes is placed with distribute_tensor on the whole mesh.
  const std::string llama = std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/llama-2-7b.json:layers=2,seq=256,batch=8";
  const Graph g = autopar::test::model(llama);
  const int v = g.find_op("embed_tokens");
  REQUIRE(v >= 0);
  int row_parallel = 0, both_axes = 0;
  for (const char* cluster : {"a100:1x8", "a100:2x8", "lecture:2x4"}) {
    CAPTURE(cluster);
    const IntraOpPlan plan = cluster_plan(g, load_cluster(cluster).value());
    const ShardingSpec& table = plan.strategies[size_t(v)][size_t(plan.solution.choice[size_t(v)])].inputs[1];
    CAPTURE(spec_to_string(table));
    const std::string text = export_dtensor(g, plan, "llama", "cuda");
    CAPTURE(text);
    // The mesh dim named "tp": the export's choice, read back from its init_device_mesh call.
    const bool tp_is_1 = text.find("mesh_dim_names=(\"dp\", \"tp\"))") != std::string::npos;
    REQUIRE((tp_is_1 || text.find("mesh_dim_names=(\"tp\", \"dp\"))") != std::string::npos));
    const AxisMask tp = tp_is_1 ? 2 : 1;
    const bool listed = text.find("    \"embed_tokens.weight\",\n") != std::string::npos;   // in distributed_params
    if (table.dims == std::vector<AxisMask>{tp, 0}) {
      CHECK(text.find("    \"embed_tokens\": RowwiseParallel(),\n") != std::string::npos);
      ++row_parallel;
    } else if (table.dims == std::vector<AxisMask>{0, tp}) {
      CHECK(text.find("    \"embed_tokens\": ColwiseParallel(),\n") != std::string::npos);
    } else if (table.dims != std::vector<AxisMask>{0, 0}) {
      CHECK(listed);
      both_axes += table.dims[0] == 3 || table.dims[1] == 3;
    }
    if (table.dims == std::vector<AxisMask>{tp, 0} || table.dims == std::vector<AxisMask>{0, tp}) CHECK_FALSE(listed);
    // Either way its placements list both mesh dims.
    CHECK(text.find("    \"embed_tokens.weight\": [") != std::string::npos);
  }
  // Both kinds occur on these clusters (so both branches above are exercised).
  CHECK(row_parallel >= 1);
  CHECK(both_axes >= 1);
}

TEST_CASE("the device type is a parameter of the DTensor export, checked, and only the DTensor export takes it") {
  CHECK(check_device_type("cuda").ok());
  CHECK(check_device_type("xpu").ok());
  CHECK(check_device_type("privateuse1").ok());
  for (const char* bad : {"", "CUDA", "cuda:0", "cu da", "\"cuda\"", "1gpu"}) {
    CAPTURE(bad);
    auto st = check_device_type(bad, "--device-type");
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().path == "--device-type");
    CHECK(st.error().message.find("cpu") != std::string::npos);   // names valid ones
  }
  auto out = cli::run_command({"export", "--format", "dtensor", "--model", "mlp3", "--cluster", "lecture:1x4", "--device-type", "npu"});
  REQUIRE(out.ok());
  CHECK(out.value().text.find("DEVICE_TYPE = \"npu\"\n") != std::string::npos);
  CHECK(out.value().text.find("init_device_mesh(DEVICE_TYPE, (1, 4), mesh_dim_names=(\"dp\", \"tp\"))") != std::string::npos);
  auto dflt = cli::run_command({"export", "--format", "dtensor", "--model", "mlp3", "--cluster", "lecture:1x4"});
  REQUIRE(dflt.ok());
  CHECK(dflt.value().text.find("DEVICE_TYPE = \"cuda\"\n") != std::string::npos);
  auto bad = cli::run_command({"export", "--format", "dtensor", "--model", "mlp3", "--cluster", "lecture:1x4", "--device-type", "cuda:0"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().path == "--device-type");
  auto other = cli::run_command({"export", "--format", "jax", "--model", "mlp3", "--cluster", "lecture:1x4", "--device-type", "cpu"});
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().path == "--device-type");
}
