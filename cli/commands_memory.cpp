// `autopar memory`: training memory per device (ZeRO's model states, Korthikanti et al.'s
// activations) for a model on a cluster with data and tensor parallelism. See core/model/memory_model.h.
#include <cstdio>
#include <sstream>

#include "cluster_spec.h"
#include "commands.h"
#include "device_mesh.h"
#include "memory_model.h"
#include "models.h"

namespace autopar::cli {
namespace {

Result<int64_t> whole(const Args& a, const std::string& key, int64_t fallback, int64_t lo, int64_t hi) {
  auto v = a.get(key);
  if (!v) return fallback;
  if (v->empty() || v->size() > 9 || v->find_first_not_of("0123456789") != std::string::npos)
    return make_error("bad_value", "--" + key + " needs a whole number, not '" + *v + "'", "--" + key);
  const int64_t x = std::stoll(*v);
  if (x < lo || x > hi)
    return make_error("out_of_range", "--" + key + " is " + *v + "; it must be between " + std::to_string(lo) + " and " + std::to_string(hi), "--" + key);
  return x;
}

std::string gb(double bytes) { return fmt("%.2f GB", bytes / 1e9); }

Result<Output> memory_command(const Args& a) {
  auto m = a.get("model");
  if (!m) return make_error("missing_argument", "give a model with --model NAME[:key=value,...] or --model FILE.json", "--model");
  auto g = load_model(*m);
  if (!g.ok()) return g.error();
  auto c = load_cluster(a.get("cluster").value_or("lecture:2x4"));
  if (!c.ok()) return c.error();
  const int devices = c.value().num_devices();
  MemoryOptions o;
  // Devices: the cluster's, as an R x C mesh (rows data parallel, columns tensor parallel, as
  // Megatron-LM places them: the fast links inside a node carry the tensor-parallel traffic).
  int rows = devices, cols = 1;
  if (auto mesh = a.get("mesh")) {
    auto shape = parse_mesh_shape(*mesh);
    if (!shape.ok()) return shape.error();
    rows = shape.value().first;
    cols = shape.value().second;
    if (rows * cols != devices)
      return make_error("bad_value", "the mesh " + *mesh + " has " + std::to_string(rows * cols) + " devices but the cluster has " +
                                         std::to_string(devices) + "; use a mesh of all its GPUs", "--mesh");
  }
  auto dp = whole(a, "dp", rows, 1, devices);
  if (!dp.ok()) return dp.error();
  if (devices % dp.value() != 0)
    return make_error("bad_value", "--dp " + std::to_string(dp.value()) + " does not divide the " + std::to_string(devices) +
                                       " GPUs; the rest of each group is tensor parallel", "--dp");
  o.data_parallel = int(dp.value());
  o.tensor_parallel = devices / o.data_parallel;
  auto zero = whole(a, "zero", 0, 0, 3);
  if (!zero.ok()) return zero.error();
  o.zero_stage = int(zero.value());
  const std::string opt = a.get("optimizer").value_or("adam");
  if (opt != "adam" && opt != "sgd") return make_error("bad_value", "--optimizer is '" + opt + "'; use adam or sgd", "--optimizer");
  o.optimizer = opt == "adam" ? Optimizer::adam : Optimizer::sgd;
  // Without --precision the model's dtype decides: 16-bit floats train in mixed precision.
  o.precision = a.get("precision") ? *parse_precision(*a.get("precision"))
                                   : g.value().spec.dtype == DType::f16 ? Precision::mixed : Precision::fp32;
  o.remat = a.has("remat");
  auto r = estimate_memory(g.value(), c.value(), o);
  if (!r.ok()) return r.error();
  const MemoryReport& m_ = r.value();
  Output out;
  out.json = Json{{"model", g.value().name()},
                  {"param_elements", m_.param_elements},
                  {"devices", devices},
                  {"dp", o.data_parallel},
                  {"tp", o.tensor_parallel},
                  {"zero", o.zero_stage},
                  {"optimizer", optimizer_name(o.optimizer)},
                  {"precision", precision_name(o.precision)},
                  {"remat", o.remat},
                  {"bytes_per_param", Json{{"params", m_.bytes_per_param.params}, {"grads", m_.bytes_per_param.grads},
                                           {"optimizer", m_.bytes_per_param.optimizer}}},
                  {"params_bytes", m_.params_bytes},
                  {"grads_bytes", m_.grads_bytes},
                  {"optimizer_bytes", m_.optimizer_bytes},
                  {"activation_bytes", m_.activation_bytes},
                  {"total_bytes", m_.total_bytes},
                  {"capacity_bytes", m_.capacity_bytes},
                  {"fits", m_.fits},
                  {"activations", Json{{"layers", m_.layers}, {"layer_bytes", m_.layer_bytes}, {"kept_input_bytes", m_.kept_input_bytes},
                                       {"recompute_bytes", m_.recompute_bytes}, {"other_bytes", m_.other_bytes}}}};
  std::ostringstream t;
  t << "memory per GPU: " << g.value().name() << " (" << group_digits(m_.param_elements) << " parameters) on " << devices << " GPUs: "
    << o.data_parallel << "-way data parallel x " << o.tensor_parallel << "-way tensor parallel, ZeRO stage " << o.zero_stage << ", "
    << optimizer_name(o.optimizer) << ", " << precision_name(o.precision) << " precision"
    << (o.remat ? ", recomputation" : "") << "\n"
    << "  parameters   " << pad(gb(m_.params_bytes), 12, true) << "  (" << m_.bytes_per_param.params << " B/param"
    << (o.zero_stage >= 3 ? ", sharded" : "") << ")\n"
    << "  gradients    " << pad(gb(m_.grads_bytes), 12, true) << "  (" << m_.bytes_per_param.grads << " B/param"
    << (o.zero_stage >= 2 ? ", sharded" : "") << ")\n"
    << "  optimizer    " << pad(gb(m_.optimizer_bytes), 12, true) << "  (" << m_.bytes_per_param.optimizer << " B/param"
    << (o.zero_stage >= 1 ? ", sharded" : "") << ")\n"
    << "  activations  " << pad(gb(m_.activation_bytes), 12, true) << "  (" << m_.layers << " layers"
    << (o.remat ? ": inputs kept " + gb(m_.kept_input_bytes) + ", one layer recomputed " + gb(m_.recompute_bytes)
                : ": " + gb(m_.layer_bytes))
    << "; other ops " << gb(m_.other_bytes) << ")\n"
    << "  total        " << pad(gb(m_.total_bytes), 12, true) << "  of " << gb(m_.capacity_bytes) << ": "
    << (m_.fits ? "fits" : "DOES NOT FIT") << "\n";
  out.text = t.str();
  return out;
}

}  // namespace

std::vector<Command> memory_commands() {
  return {{"memory", "training memory per GPU: parameters, gradients, optimizer state (ZeRO), activations (recomputation)",
           "--model M --cluster C [--mesh RxC] [--dp N] [--zero 0|1|2|3] [--optimizer adam|sgd] [--precision fp32|mixed] [--remat] [--json]",
           {{"model", "cluster", "mesh", "dp", "zero", "optimizer", "precision"}, {"remat"}},
           memory_command}};
}

}  // namespace autopar::cli
