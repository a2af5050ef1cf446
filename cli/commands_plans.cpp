// CLI commands that use both planners: `export` (plans for real engines and traces,
// core/operations/export_operation.h) and `compare` (FlexFlow's and Alpa's plans simulated by
// the same simulator, lecture section 7).
#include <sstream>

#include "cluster_spec.h"
#include "compare.h"
#include "commands.h"
#include "export_operation.h"
#include "models.h"

namespace autopar::cli {
namespace {

struct Inputs {
  Graph graph;
  Cluster cluster;
  std::string title;
};

Result<Inputs> inputs_of(const Args& a) {
  auto m = a.get("model");
  if (!m) return make_error("missing_argument", "give a model with --model NAME[:key=value,...] or --model FILE.json", "--model");
  auto g = load_model(*m);
  if (!g.ok()) return g.error();
  std::string cluster_text = a.get("cluster").value_or("lecture:2x4");
  auto c = load_cluster(cluster_text);
  if (!c.ok()) return c.error();
  return Inputs{g.value(), c.value(), *m + " on " + cluster_text};
}

Result<uint64_t> seed_of(const Args& a) {
  std::string s = a.get("seed").value_or("1");
  if (s.empty() || s.size() > 15 || s.find_first_not_of("0123456789") != std::string::npos)
    return make_error("bad_value", "--seed needs a whole number", "--seed");
  return uint64_t(std::stoull(s));
}

Result<Output> export_command(const Args& a) {
  ExportRequest request;
  request.format = a.get("format").value_or("");
  if (auto st = check_export_format(request.format); !st.ok()) return st.error();
  auto in = inputs_of(a);
  if (!in.ok()) return in.error();
  auto seed = seed_of(a);
  if (!seed.ok()) return seed.error();
  request.seed = seed.value();
  request.title = in.value().title;
  if (auto d = a.get("device-type")) {
    // Only the DTensor export builds a device mesh; elsewhere the option would be silently ignored.
    if (request.format != "dtensor") return make_error("bad_argument", "--device-type applies to --format dtensor (init_device_mesh's device type)", "--device-type");
    request.device_type = *d;
  }
  if (auto st = a.get("strategy")) {
    if (request.format != "perfetto") {
      request.strategy = Strategy{};   // refused by the operation: engines export Alpa's plan
    } else {
      auto loaded = load_strategy(*st, in.value().graph, in.value().cluster);
      if (!loaded.ok()) return loaded.error();
      request.strategy = loaded.value();
    }
  }
  auto r = export_operation(in.value().graph, in.value().cluster, request);
  if (!r.ok()) return r.error();
  return output_of(r.value());
}

Result<Output> compare_command(const Args& a) {
  auto in = inputs_of(a);
  if (!in.ok()) return in.error();
  auto seed = seed_of(a);
  if (!seed.ok()) return seed.error();
  CompareRequest r;
  r.title = in.value().title;
  r.seed = seed.value();
  if (auto s = a.get("steps")) {
    if (s->empty() || s->size() > 8 || s->find_first_not_of("0123456789") != std::string::npos || std::stoll(*s) < 1)
      return make_error("bad_value", "--steps needs a whole number of at least 1", "--steps");
    r.steps = std::stoll(*s);
  }
  if (auto b = a.get("microbatches")) {
    if (b->empty() || b->size() > 5 || b->find_first_not_of("0123456789") != std::string::npos || std::stoll(*b) < 1)
      return make_error("bad_value", "--microbatches needs a whole number of at least 1", "--microbatches");
    r.microbatches = int(std::stoll(*b));
  }
  r.graph = in.value().graph;
  r.cluster = in.value().cluster;
  CompareJob job(std::move(r));
  const auto& report = run_to_end(job);
  if (!report.ok()) return report.error();
  Output out;
  out.json = report.value().to_json(job.request().graph);
  out.text = report.value().to_text();
  return out;
}

}  // namespace

std::vector<Command> plan_commands() {
  return {
      {"export", "write a plan for PyTorch, JAX, Megatron-LM, torchtitan, or a Perfetto trace",
       "--format F --model M --cluster C [--device-type cuda]",
       {{"format", "model", "cluster", "strategy", "seed", "device-type"}, {}}, export_command},
      {"compare", "FlexFlow's and Alpa's plans simulated side by side", "--model M --cluster C",
       {{"model", "cluster", "seed", "steps", "microbatches"}, {}}, compare_command},
  };
}

}  // namespace autopar::cli
