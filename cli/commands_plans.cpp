// CLI commands that use both planners: `export` (plans for real engines and traces) and
// `compare` (FlexFlow's and Alpa's plans simulated by the same simulator, lecture section 7).
#include <chrono>
#include <cstdio>
#include <sstream>

#include "cluster_spec.h"
#include "commands.h"
#include "engine_export.h"
#include "mcmc.h"
#include "models.h"
#include "simulator.h"
#include "trace_export.h"

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

// MCMC from data parallel: the FlexFlow plan used when no strategy is given.
SearchResult flexflow_plan(const Inputs& in, uint64_t seed, int64_t steps, double* elapsed_ms) {
  SearchOptions o;
  o.steps = steps;
  o.seed = seed;
  return run_search(in.graph, in.cluster, data_parallel(in.graph, in.cluster.num_devices()), o, elapsed_ms);
}

// Alpa's intra-op plan on the whole cluster as one nodes x GPUs mesh.
Result<IntraOpPlan> alpa_plan(const Inputs& in) {
  auto mesh = mesh_from_cluster(in.cluster.nodes, in.cluster.gpus_per_node, in.cluster);
  if (!mesh.ok()) return mesh.error();
  return plan_intra_op(in.graph, mesh.value(), IntraOpOptions{});
}

// The largest number of micro-batches (at most 32) that divides every input's batch.
int default_microbatches(const Graph& g) {
  for (int b = 32; b > 1; --b) {
    bool ok = true;
    for (const Tensor& t : g.spec.inputs) ok &= t.shape[0] % b == 0;
    if (ok) return b;
  }
  return 1;
}

Result<Output> export_command(const Args& a) {
  const std::string format = a.get("format").value_or("");
  if (format != "perfetto" && format != "dtensor" && format != "jax" && format != "megatron" && format != "torchtitan")
    return make_error("bad_value", "--format must be perfetto, dtensor, jax, megatron or torchtitan", "--format");
  auto in = inputs_of(a);
  if (!in.ok()) return in.error();
  auto seed = seed_of(a);
  if (!seed.ok()) return seed.error();
  Output out;
  if (format == "perfetto") {
    Strategy s;
    if (auto st = a.get("strategy")) {
      auto loaded = load_strategy(*st, in.value().graph, in.value().cluster);
      if (!loaded.ok()) return loaded.error();
      s = loaded.value();
    } else {
      s = flexflow_plan(in.value(), seed.value(), 2000, nullptr).best;
    }
    TaskGraph tg(in.value().graph, in.value().cluster, s);
    simulate_full(tg);
    out.json = perfetto_trace(tg);
    out.text = out.json.dump() + "\n";
    return out;
  }
  if (a.get("strategy")) return make_error("bad_argument", "--strategy applies to --format perfetto; the engine formats export Alpa's plan", "--strategy");
  auto intra = alpa_plan(in.value());
  if (!intra.ok()) return intra.error();
  std::string text;
  if (format == "dtensor") text = export_dtensor(in.value().graph, intra.value(), in.value().title);
  if (format == "jax") text = export_jax(in.value().graph, intra.value(), in.value().title);
  if (format == "megatron" || format == "torchtitan") {
    const int b = default_microbatches(in.value().graph);
    auto micro = microbatch_graph(in.value().graph, b);
    if (!micro.ok()) return micro.error();
    InterOpOptions o;
    o.microbatches = b;
    auto table = stage_costs_from_model(micro.value(), in.value().cluster, o);
    if (!table.ok()) return table.error();
    auto pipe = solve_inter_op(table.value(), b);
    if (!pipe.ok()) return pipe.error();
    text = format == "megatron"
               ? export_megatron(in.value().graph, intra.value(), pipe.value(), b, in.value().cluster.num_devices(), in.value().title)
               : export_torchtitan_schedule(int(pipe.value().stages.size()), b);
  }
  out.json = Json{{"format", format}, {"text", text}};
  out.text = text;
  return out;
}

Result<Output> compare_command(const Args& a) {
  auto in = inputs_of(a);
  if (!in.ok()) return in.error();
  auto seed = seed_of(a);
  if (!seed.ok()) return seed.error();
  int64_t steps = 2000;
  if (auto s = a.get("steps")) {
    if (s->empty() || s->size() > 8 || s->find_first_not_of("0123456789") != std::string::npos || std::stoll(*s) < 1)
      return make_error("bad_value", "--steps needs a whole number of at least 1", "--steps");
    steps = std::stoll(*s);
  }
  double ff_ms = 0;
  SearchResult ff = flexflow_plan(in.value(), seed.value(), steps, &ff_ms);
  TaskGraph ff_tg(in.value().graph, in.value().cluster, ff.best);
  simulate_full(ff_tg);
  SimSummary ff_sum = summarize(ff_tg);
  auto start = std::chrono::steady_clock::now();
  auto intra = alpa_plan(in.value());
  if (!intra.ok()) return intra.error();
  const double alpa_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  Strategy alpa_strategy = alpa_plan_to_strategy(in.value().graph, intra.value());
  TaskGraph alpa_tg(in.value().graph, in.value().cluster, alpa_strategy);
  simulate_full(alpa_tg);
  SimSummary alpa_sum = summarize(alpa_tg);
  auto breakdown = [](const SimSummary& s) {
    return Json{{"compute_ms", s.compute_ms}, {"activation_transfer_ms", s.activation_transfer_ms}, {"param_sync_ms", s.param_sync_ms},
                {"activation_bytes", s.activation_bytes}, {"param_sync_bytes", s.param_sync_bytes}, {"peak_memory_bytes", s.peak_memory_bytes}};
  };
  Json plan = Json::array();
  for (size_t v = 0; v < in.value().graph.ops.size(); ++v) {
    const OpStrategy& s = intra.value().strategies[v][size_t(intra.value().solution.choice[v])];
    plan.push_back(Json{{"name", in.value().graph.ops[v].name()}, {"strategy", s.name}, {"output_spec", spec_to_string(s.output)}});
  }
  Output out;
  out.json = Json{{"model", in.value().title},
                  {"flexflow", Json{{"makespan_ms", ff_sum.makespan_ms}, {"search_steps", ff.steps}, {"elapsed_ms", ff_ms},
                                    {"breakdown", breakdown(ff_sum)}, {"strategy", strategy_to_json(in.value().graph, ff.best)}}},
                  {"alpa", Json{{"makespan_ms", alpa_sum.makespan_ms}, {"mesh", intra.value().mesh.shape_string()}, {"objective", intra.value().objective},
                                {"solve_ms", alpa_ms}, {"breakdown", breakdown(alpa_sum)}, {"plan", plan},
                                {"strategy", strategy_to_json(in.value().graph, alpa_strategy)}}}};
  std::ostringstream t;
  char line[240];
  t << "FlexFlow and Alpa on " << in.value().title << ", both simulated by FlexFlow's simulator\n";
  std::snprintf(line, sizeof line, "  %-9s %10s %10s %12s %12s %10s\n", "", "makespan", "compute", "act. xfer", "param sync", "planning");
  t << line;
  std::snprintf(line, sizeof line, "  %-9s %8.3f ms %8.3f %12.3f %12.3f %7.0f ms (MCMC, %lld steps)\n", "FlexFlow", ff_sum.makespan_ms, ff_sum.compute_ms,
                ff_sum.activation_transfer_ms, ff_sum.param_sync_ms, ff_ms, (long long)ff.steps);
  t << line;
  std::snprintf(line, sizeof line, "  %-9s %8.3f ms %8.3f %12.3f %12.3f %7.1f ms (intra-op on %s)\n", "Alpa", alpa_sum.makespan_ms, alpa_sum.compute_ms,
                alpa_sum.activation_transfer_ms, alpa_sum.param_sync_ms, alpa_ms, intra.value().mesh.shape_string().c_str());
  t << line;
  t << "(Alpa's plan as SOAP configurations: a row-parallel split of a reduced dimension runs replicated there.)\n";
  out.text = t.str();
  return out;
}

}  // namespace

std::vector<Command> plan_commands() {
  return {
      {"export", "write a plan for PyTorch, JAX, Megatron-LM, torchtitan, or a Perfetto trace", "--format F --model M --cluster C",
       {{"format", "model", "cluster", "strategy", "seed"}, {}}, export_command},
      {"compare", "FlexFlow's and Alpa's plans simulated side by side", "--model M --cluster C",
       {{"model", "cluster", "seed", "steps"}, {}}, compare_command},
  };
}

}  // namespace autopar::cli
