// The CLI's `inter` command (INTERFACES.md): Alpa's inter-op pass, pipeline stages on
// sub-meshes, from a model and a cluster or from a stage-cost file.
#include <chrono>
#include <fstream>
#include <sstream>

#include "cluster_spec.h"
#include "commands.h"
#include "inter_op.h"
#include "models.h"

namespace autopar::cli {
namespace {

Result<Output> inter_command(const Args& a) {
  int64_t microbatches = 32;
  if (auto b = a.get("microbatches")) {
    if (b->empty() || b->size() > 6 || b->find_first_not_of("0123456789") != std::string::npos || std::stoll(*b) < 1 || std::stoll(*b) > 65536)
      return make_error("bad_value", "--microbatches needs a whole number between 1 and 65536", "--microbatches");
    microbatches = std::stoll(*b);
  }
  const auto start = std::chrono::steady_clock::now();
  StageCostTable table;
  std::vector<std::pair<int, int>> layers;
  Graph graph;
  bool from_model = false;
  std::string mode = a.get("mode").value_or("alpa");
  if (mode != "alpa" && mode != "intra-only" && mode != "inter-only")
    return make_error("bad_value", "--mode must be alpa, intra-only or inter-only", "--mode");
  if (auto file = a.get("stage-costs")) {
    if (a.get("model")) return make_error("bad_argument", "give either --model or --stage-costs, not both", "--stage-costs");
    auto body = read_text_file(*file);
    if (!body.ok()) return body.error();
    auto j = parse_json_text(body.value(), "stage-cost file '" + *file + "'");
    if (!j.ok()) return j.error();
    auto t = stage_costs_from_json(j.value());
    if (!t.ok()) {
      Error e = t.error();
      e.message = "stage-cost file '" + *file + "': " + e.message;
      return e;
    }
    table = t.value();
  } else {
    auto m = a.get("model");
    if (!m) return make_error("missing_argument", "give --model M --cluster C, or --stage-costs FILE", "--model");
    auto g = load_model(*m);
    if (!g.ok()) return g.error();
    auto c = load_cluster(a.get("cluster").value_or("lecture:2x4"));
    if (!c.ok()) return c.error();
    auto micro = microbatch_graph(g.value(), int(microbatches));
    if (!micro.ok()) return micro.error();
    InterOpOptions o;
    o.microbatches = int(microbatches);
    o.mode = mode;
    if (auto ml = a.get("max-layers")) {
      if (ml->empty() || ml->size() > 4 || ml->find_first_not_of("0123456789") != std::string::npos || std::stoi(*ml) < 1)
        return make_error("bad_value", "--max-layers needs a whole number of at least 1", "--max-layers");
      o.max_layers = std::stoi(*ml);
    }
    auto t = stage_costs_from_model(micro.value(), c.value(), o, &layers);
    if (!t.ok()) return t.error();
    table = t.value();
    graph = micro.value();
    from_model = true;
  }
  if (auto dump = a.get("dump-stage-costs")) {
    std::ofstream out(*dump);
    if (!out) return make_error("io", "cannot write '" + *dump + "'", "--dump-stage-costs");
    out << stage_costs_to_json(table).dump(1) << "\n";
  }
  auto plan = a.has("brute-force") ? brute_force_inter_op(table, int(microbatches)) : solve_inter_op(table, int(microbatches));
  if (!plan.ok()) return plan.error();
  const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const InterOpPlan& p = plan.value();
  Json stages = Json::array();
  std::ostringstream t;
  t << (from_model ? "pipeline of " + graph.name() : std::string("pipeline")) << " on " << table.nodes << "x" << table.gpus_per_node << " with "
    << microbatches << " micro-batches (" << mode << "): " << p.stages.size() << " stages, total " << fmt("%.4g", p.total_latency)
    << (from_model ? " ms" : "") << " (t_max " << fmt("%.4g", p.t_max) << ", " << p.t_max_tried << " of " << p.t_max_candidates
    << " t_max candidates tried)\n";
  t << pad("stage", 7) << pad("layers", 10) << pad("sub-mesh", 10) << pad("logical", 9) << pad("latency", 11, true) << "  ops\n";
  for (size_t k = 0; k < p.stages.size(); ++k) {
    const auto& st = p.stages[k];
    Json s{{"layers", Json::array({st.first, st.last})},
           {"submesh", Json::array({st.submesh.nodes, st.submesh.gpus})},
           {"latency", st.latency},
           {"logical_mesh", st.logical_mesh}};
    std::string ops;
    if (from_model) {
      const int first_op = layers[size_t(st.first)].first, last_op = layers[size_t(st.last)].second;
      s["ops"] = Json::array({graph.ops[size_t(first_op)].name(), graph.ops[size_t(last_op)].name()});
      ops = graph.ops[size_t(first_op)].name() + " .. " + graph.ops[size_t(last_op)].name();
    }
    stages.push_back(s);
    t << pad(std::to_string(k), 7) << pad(std::to_string(st.first) + "-" + std::to_string(st.last), 10)
      << pad("(" + std::to_string(st.submesh.nodes) + "," + std::to_string(st.submesh.gpus) + ")", 10) << pad(st.logical_mesh, 9)
      << pad(fmt("%.4g", st.latency), 11, true) << "  " << ops << "\n";
  }
  Output out;
  out.json = Json{{"total_latency", p.total_latency},
                  {"t_max", p.t_max},
                  {"microbatches", microbatches},
                  {"mode", mode},
                  {"layers", table.layers},
                  {"t_max_tried", p.t_max_tried},
                  {"t_max_candidates", p.t_max_candidates},
                  {"solver", a.has("brute-force") ? "brute-force" : "dp"},
                  {"elapsed_ms", elapsed_ms},
                  {"stages", stages}};
  out.text = t.str();
  return out;
}

}  // namespace

std::vector<Command> inter_commands() {
  return {
      {"inter", "Alpa's inter-op plan: pipeline stages on sub-meshes", "--model M --cluster C --microbatches B",
       {{"model", "cluster", "microbatches", "stage-costs", "mode", "max-layers", "dump-stage-costs"}, {"brute-force"}}, inter_command},
  };
}

}  // namespace autopar::cli
