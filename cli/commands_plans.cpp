// CLI commands that use both planners: `export` (plans for real engines and traces,
// core/operations/export_operation.h) and `compare` (FlexFlow's and Alpa's plans simulated by
// the same simulator, lecture section 7).
#include <sstream>

#include "cluster_spec.h"
#include "compare.h"
#include "commands.h"
#include "export_operation.h"
#include "models.h"
#include "operation_requests.h"
#include "strategy_argument.h"

namespace autopar::cli {
namespace {

struct Inputs {
  Graph graph;
  Cluster cluster;
  std::string title;
};

Result<Inputs> inputs_of(const Args& a) {
  auto m = a.get("model");
  if (!m) return make_error(ErrorCode::missing_argument, "give a model with --model NAME[:key=value,...] or --model FILE.json", "--model");
  auto g = load_model(*m);
  if (!g.ok()) return g.error();
  std::string cluster_text = a.get("cluster").value_or("lecture:2x4");
  auto c = load_cluster(cluster_text);
  if (!c.ok()) return c.error();
  return Inputs{g.value(), c.value(), *m + " on " + cluster_text};
}

Result<Output> export_command(const Args& a) {
  ExportRequest request;
  request.format = a.get("format").value_or("");
  if (auto st = check_export_format(request.format); !st.ok()) return st.error();
  auto in = inputs_of(a);
  if (!in.ok()) return in.error();
  auto seed = seed_option(a, request.seed);
  if (!seed.ok()) return seed.error();
  request.seed = seed.value();
  request.title = in.value().title;
  request.device_type = a.get("device-type").value_or(request.device_type);
  if (auto text = a.get("plan")) {
    auto plan = parse_given_plan(*text);
    if (!plan.ok()) return plan.error();
    request.plan = plan.value();
  }
  if (auto st = validate(request, cli_field_path()); !st.ok()) return st.error();
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
  CompareRequest r;
  auto seed = seed_option(a, r.seed);
  if (!seed.ok()) return seed.error();
  auto steps = whole_option(a, "steps", r.steps);
  if (!steps.ok()) return steps.error();
  auto microbatches = whole_option(a, "microbatches", 0);
  if (!microbatches.ok()) return microbatches.error();
  // Given, it is a count: 0 would silently mean the default (checked before narrowing to int).
  if (a.get("microbatches"))
    if (auto st = check_bound(microbatches.value(), kMicrobatchesBound, "--microbatches"); !st.ok()) return st.error();
  r.title = in.value().title;
  r.seed = seed.value();
  r.steps = steps.value();
  r.microbatches = int(microbatches.value());
  if (auto st = validate(r, cli_field_path()); !st.ok()) return st.error();
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
       "--format F --model M --cluster C [--device-type cuda] [--plan t=8,p=4,d=2,sp=1,...]",
       {{"format", "model", "cluster", "strategy", "seed", "device-type", "plan"}, {}}, export_command},
      {"compare", "FlexFlow's and Alpa's plans simulated side by side", "--model M --cluster C",
       {{"model", "cluster", "seed", "steps", "microbatches"}, {}}, compare_command},
  };
}

}  // namespace autopar::cli
