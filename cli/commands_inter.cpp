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
  std::vector<std::pair<int, int>> layers, numbers;
  int reused = 0, solves = 0;
  std::string layer_source = "file";
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
    if (auto nl = a.get("layers")) {
      if (nl->empty() || nl->size() > 4 || nl->find_first_not_of("0123456789") != std::string::npos || std::stoi(*nl) < 1)
        return make_error("bad_value", "--layers needs a whole number of at least 1 (Alpa's automatic layer construction)", "--layers");
      o.layers = std::stoi(*nl);
    }
    if (auto z = a.get("zero")) {
      if (*z != "0" && *z != "1" && *z != "2" && *z != "3") return make_error("bad_value", "--zero must be 0, 1, 2 or 3, not '" + *z + "'", "--zero");
      o.zero_stage = std::stoi(*z);
    }
    const std::string opt = a.get("optimizer").value_or("adam");
    if (opt != "adam" && opt != "sgd") return make_error("bad_value", "--optimizer is '" + opt + "'; use adam or sgd", "--optimizer");
    o.optimizer = opt == "adam" ? Optimizer::adam : Optimizer::sgd;
    StageCostBuilder builder(micro.value(), c.value(), o);
    auto t = builder.finish();
    if (!t.ok()) return t.error();
    layers = builder.layers();
    numbers = builder.layer_numbers();
    reused = builder.reused_solves();
    solves = builder.units_done();
    layer_source = o.layers > 0 ? "auto" : plan_layers(micro.value(), o).value().source;
    table = t.value();
    graph = micro.value();
    from_model = true;
  }
  if (auto dump = a.get("dump-stage-costs")) {
    std::ofstream out(*dump);
    if (!out) return make_error("io", "cannot write '" + *dump + "'", "--dump-stage-costs");
    out << stage_costs_to_json(table).dump(1) << "\n";
  }
  const bool boundaries = !a.has("ignore-boundaries");
  const auto dp_start = std::chrono::steady_clock::now();
  auto plan = a.has("brute-force") ? brute_force_inter_op(table, int(microbatches), boundaries)
                                   : solve_inter_op(table, int(microbatches), boundaries);
  if (!plan.ok()) return plan.error();
  const auto end = std::chrono::steady_clock::now();
  const double elapsed_ms = std::chrono::duration<double, std::milli>(end - start).count();
  const double dp_ms = std::chrono::duration<double, std::milli>(end - dp_start).count();
  const InterOpPlan& p = plan.value();
  Json stages = Json::array();
  std::ostringstream t;
  const std::string unit = from_model ? " ms" : "";
  t << (from_model ? "pipeline of " + graph.name() : std::string("pipeline")) << " on " << table.nodes << "x" << table.gpus_per_node << " with "
    << microbatches << " micro-batches (" << mode << (table.has_boundaries ? (boundaries ? ", boundaries priced" : ", boundaries ignored as in Alpa's DP") : "")
    << "): " << p.stages.size() << " stages, total " << fmt("%.4g", p.total_latency) << unit << " (t_max " << fmt("%.4g", p.t_max) << ", "
    << p.t_max_tried << " of " << p.t_max_candidates << " t_max candidates tried)\n";
  t << pad("stage", 7) << pad("layers", 10) << pad("sub-mesh", 10) << pad("logical", 9) << pad("latency", 11, true)
    << (table.has_boundaries ? "  " + pad("boundary to next", 36) : "") << "  ops\n";
  // Layers in the model's numbering (1-based); a stage-cost file keeps its own (0-based) numbers.
  auto number = [&](int layer, bool last) {
    if (!from_model) return layer;
    return last ? numbers[size_t(layer)].second : numbers[size_t(layer)].first;
  };
  double boundary_total = 0;
  for (size_t k = 0; k < p.stages.size(); ++k) {
    const auto& st = p.stages[k];
    const int first = number(st.first, false), last = number(st.last, true);
    Json s{{"layers", Json::array({first, last})},
           {"submesh", Json::array({st.submesh.nodes, st.submesh.gpus})},
           {"latency", st.latency},
           {"logical_mesh", st.logical_mesh}};
    // The ZeRO stage and recomputation the stage's memory needed (memory_model.h's accounting).
    size_t sm = 0;
    while (sm + 1 < table.submeshes.size() && !(table.submeshes[sm] == st.submesh)) ++sm;
    const size_t entry = table.index(st.first, st.last, int(sm));
    const int zero = entry < table.zero_stage.size() ? table.zero_stage[entry] : 0;
    const bool remat = entry < table.remat.size() && table.remat[entry];
    s["zero_stage"] = zero;
    s["remat"] = remat;
    std::string ops, bnd;
    if (from_model) {
      const int first_op = layers[size_t(st.first)].first, last_op = layers[size_t(st.last)].second;
      s["ops"] = Json::array({graph.ops[size_t(first_op)].name(), graph.ops[size_t(last_op)].name()});
      ops = graph.ops[size_t(first_op)].name() + " .. " + graph.ops[size_t(last_op)].name();
    }
    if (table.has_boundaries) {
      s["device_offset"] = st.device_offset;
      if (k + 1 < p.stages.size()) {
        const auto& next = p.stages[k + 1];
        size_t m = 0;
        while (!(table.submeshes[m] == next.submesh)) ++m;
        const BoundaryCost b = boundary_cost(table, st.last, table.index(next.first, next.last, int(m)),
                                             boundary_crosses_nodes(table, next.device_offset));
        boundary_total += b.ms();
        const std::string link = b.inter_node ? "inter-node" : "intra-node";
        Json coll = Json::array();
        coll.push_back(Json{{"kind", "send/recv"}, {"link", link}, {"bytes", b.bytes}, {"ms", b.send_ms}, {"what", "one copy forward, the gradient back"}});
        if (b.replicas > 1)
          coll.push_back(b.local_all_gather
                             ? Json{{"kind", "all-gather"}, {"link", "inside the receiving mesh"}, {"replicas", b.replicas}, {"ms", b.allgather_ms},
                                    {"instead_of_ms", b.plain_recv_ms}}
                             : Json{{"kind", "send/recv"}, {"link", link}, {"bytes", b.bytes * (b.replicas - 1)}, {"ms", b.plain_recv_ms},
                                    {"what", "the other replicas' copies (cheaper than a local all-gather here)"}, {"instead_of_ms", b.allgather_ms}});
        s["boundary"] = Json{{"bytes", b.bytes}, {"ms", b.ms()}, {"inter_node", b.inter_node}, {"collectives", coll}};
        bnd = si(b.bytes) + "B " + (b.inter_node ? "across nodes " : "in a node ") + fmt("%.3g", b.ms()) + " ms" +
              (b.replicas > 1 ? (b.local_all_gather ? " (+local AG)" : " (x" + std::to_string(b.replicas) + " copies)") : "");
      } else {
        s["boundary"] = nullptr;
      }
    }
    stages.push_back(s);
    t << pad(std::to_string(k), 7) << pad(std::to_string(first) + "-" + std::to_string(last), 10)
      << pad("(" + std::to_string(st.submesh.nodes) + "," + std::to_string(st.submesh.gpus) + ")", 10) << pad(st.logical_mesh, 9)
      << pad(fmt("%.4g", st.latency), 11, true) << (table.has_boundaries ? "  " + pad(bnd, 36) : "") << "  " << ops
      << (zero > 0 ? "  ZeRO-" + std::to_string(zero) : "") << (remat ? "  recomputed" : "") << "\n";
  }
  if (from_model)
    t << "layers: " << layers.size() << " (" << (layer_source == "model" ? "the model's own" : layer_source == "auto" ? "Alpa's automatic construction" : "graph cuts")
      << "); intra-op solves: " << solves << " units, " << reused << " reused from identical layers\n";
  Output out;
  out.json = Json{{"total_latency", p.total_latency},
                  {"t_max", p.t_max},
                  {"microbatches", microbatches},
                  {"mode", mode},
                  {"layers", table.layers},
                  {"t_max_tried", p.t_max_tried},
                  {"t_max_candidates", p.t_max_candidates},
                  {"solver", a.has("brute-force") ? "brute-force" : "dp"},
                  {"boundaries", table.has_boundaries ? (boundaries ? "priced" : "ignored") : "none"},
                  {"boundary_ms_total", boundary_total},
                  {"layer_source", layer_source},
                  {"reused_solves", reused},
                  {"elapsed_ms", elapsed_ms},
                  // Wall-clock time per phase: the stage costs (the intra-op solves, or reading the file), the DP.
                  {"phases", Json{{"stage_costs", Json{{"elapsed_ms", elapsed_ms - dp_ms}}}, {"dp", Json{{"elapsed_ms", dp_ms}}}}},
                  {"stages", stages}};
  out.text = t.str();
  return out;
}

}  // namespace

std::vector<Command> inter_commands() {
  return {
      {"inter", "Alpa's inter-op plan: pipeline stages on sub-meshes", "--model M --cluster C --microbatches B",
       {{"model", "cluster", "microbatches", "stage-costs", "mode", "max-layers", "layers", "dump-stage-costs", "zero", "optimizer"}, {"brute-force", "ignore-boundaries"}}, inter_command},
  };
}

}  // namespace autopar::cli
