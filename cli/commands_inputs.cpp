// CLI commands that describe inputs: the built-in models and cluster presets, one model's
// definition (loadable JSON) and its op table, and one cluster.
#include <cstdio>
#include <sstream>

#include "cluster_spec.h"
#include "commands.h"
#include "models.h"
#include "number_text.h"

namespace autopar::cli {

namespace {

Result<Output> models_command(const Args&) {
  Output out;
  Json list = Json::array();
  std::ostringstream t;
  t << pad("model", 19) << pad("ops", 5, true) << pad("params", 10, true) << "  description\n";
  for (const auto& m : builtin_models()) {
    Json params = Json::object(), docs = Json::object();
    std::string keys;
    for (const auto& p : m.params) {
      params[p.key] = p.default_value;
      docs[p.key] = Json{{"default", p.default_value}, {"min", p.min_value}, {"max", p.max_value}, {"doc", p.doc}};
      keys += (keys.empty() ? "" : ",") + p.key + "=" + std::to_string(p.default_value);
    }
    ModelParams values;
    for (const auto& p : m.params) values[p.key] = p.default_value;
    auto g = build_graph(m.build(values));
    if (!g.ok()) return make_error(ErrorCode::internal, "built-in model '" + m.name + "' is invalid: " + g.error().message, g.error().path);
    list.push_back(Json{{"name", m.name}, {"description", m.description}, {"ops", g.value().ops.size()},
                        {"parameters", g.value().total_param_elements()}, {"params", params}, {"param_docs", docs}});
    t << pad(m.name, 19) << pad(std::to_string(g.value().ops.size()), 5, true)
      << pad(si(double(g.value().total_param_elements())), 10, true) << "  " << m.description << "\n"
      << pad("", 36) << "  " << keys << "\n";
  }
  out.json = Json{{"models", list}};
  out.text = t.str();
  return out;
}

Result<Output> clusters_command(const Args&) {
  Output out;
  Json list = Json::array();
  std::ostringstream t;
  // Peaks are dense (sparsity excluded), in TFLOP/s; the network is per NIC, with NICs per node.
  t << pad("preset", 9) << pad("default", 8) << pad("FP32", 7, true) << pad("TF32", 7, true) << pad("BF16", 7, true) << pad("FP8", 7, true)
    << pad("mem GB/s", 10, true) << pad("GiB", 6, true) << pad("intra GB/s", 12, true) << pad("NIC GB/s", 10, true) << pad("NICs", 6, true)
    << "  calibrated  description\n";
  std::string notes;
  for (const auto& p : cluster_presets()) {
    const Cluster& c = p.cluster;
    std::string shape = std::to_string(p.default_nodes) + "x" + std::to_string(p.default_gpus_per_node);
    list.push_back(Json{{"name", p.name}, {"description", p.description}, {"default_shape", shape}, {"calibrated", c.calibrated()},
                        {"note", efficiency_note(c)}, {"cluster", cluster_to_json(c)}});
    auto peak = [](double tflops) { return tflops > 0 ? format_number(tflops, 4) : std::string("-"); };
    t << pad(p.name, 9) << pad(shape, 8) << pad(peak(c.gpu.peak_tflops), 7, true) << pad(peak(c.gpu.peak_tflops_tf32), 7, true)
      << pad(peak(c.gpu.peak_tflops_fp16), 7, true) << pad(peak(c.gpu.peak_tflops_fp8), 7, true)
      << pad(format_number(c.gpu.memory_bandwidth_gb_per_s, 4), 10, true) << pad(format_number(c.gpu.memory_gib, 3), 6, true)
      << pad(format_number(c.intra_node.bandwidth_gb_per_s, 4), 12, true) << pad(format_number(c.inter_node.bandwidth_gb_per_s, 4), 10, true)
      << pad(std::to_string(c.nics()), 6, true) << "  " << pad(c.calibrated() ? "yes" : "NO", 10) << "  " << p.description << "\n";
    notes += "  " + p.name + ": " + efficiency_note(c) + "\n";
  }
  t << "\nEfficiencies (README, 'The cost model'), from each preset's own numbers:\n" << notes;
  out.json = Json{{"clusters", list}};
  out.text = t.str();
  return out;
}

Result<Graph> model_arg(const Args& a) {
  auto m = a.get("model");
  if (!m) return make_error(ErrorCode::missing_argument, "give a model with --model NAME[:key=value,...] or --model FILE.json", "--model");
  return load_model(*m);
}

Result<Output> model_command(const Args& a) {
  auto g = model_arg(a);
  if (!g.ok()) return g.error();
  Output out;
  out.json = model_to_json(g.value());
  out.text = out.json.dump(2) + "\n";
  return out;
}

Result<Output> ops_command(const Args& a) {
  auto gr = model_arg(a);
  if (!gr.ok()) return gr.error();
  const Graph& g = gr.value();
  Output out;
  out.json = Json{{"model", g.name()},
                  {"ops", ops_table_json(g)},
                  {"total_forward_flops", g.total_forward_flops()},
                  {"total_param_elements", g.total_param_elements()},
                  {"total_param_bytes", g.total_param_bytes()}};
  std::ostringstream t;
  t << pad("op", 12) << pad("kind", 10) << pad("output shape", 22) << pad("fwd FLOPs", 11, true) << pad("params", 10, true)
    << pad("param bytes", 13, true) << "  split dims\n";
  for (const Op& op : g.ops) {
    int64_t pe = 0;
    for (const Tensor& p : op.params) pe += num_elements(p.shape);
    std::string dims;
    for (const SplitDim& d : op.split_dims) dims += (dims.empty() ? "" : " ") + d.name + "(" + split_kind_name(d.kind)[0] + ")";
    t << pad(op.name(), 12) << pad(op_kind_name(op.spec.kind), 10) << pad(shape_to_string(op.output.shape), 22)
      << pad(si(op.forward_flops), 11, true) << pad(si(double(pe)), 10, true) << pad(si(double(op.param_bytes)) + "B", 13, true)
      << "  " << dims << "\n";
  }
  t << "total: " << g.ops.size() << " ops, " << si(g.total_forward_flops()) << "FLOP forward, "
    << si(double(g.total_param_elements())) << " parameters (" << si(double(g.total_param_bytes())) << "B)\n";
  out.text = t.str();
  return out;
}

Result<Output> cluster_command(const Args& a) {
  auto c = load_cluster(a.get("cluster").value_or("lecture:2x4"));
  if (!c.ok()) return c.error();
  Output out;
  out.json = cluster_to_json(c.value());
  out.text = out.json.dump(2) + "\n";
  return out;
}

}  // namespace

std::vector<Command> input_commands() {
  return {
      {"models", "list the built-in models and their parameters", "[--json]", {}, models_command},
      {"clusters", "list the cluster presets with their numbers and sources", "[--json]", {}, clusters_command},
      {"model", "print a model's definition as loadable JSON", "--model M", {{"model"}, {}}, model_command},
      {"ops", "print a model's op table: shapes, FLOPs, parameters, split dimensions", "--model M [--json]", {{"model"}, {}}, ops_command},
      {"cluster", "print a cluster as loadable JSON", "--cluster C", {{"cluster"}, {}}, cluster_command},
  };
}

}  // namespace autopar::cli
