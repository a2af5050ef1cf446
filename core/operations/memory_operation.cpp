// Training memory per GPU. See memory_operation.h.
#include "memory_operation.h"

#include <sstream>

#include "report_text.h"

namespace autopar {
namespace {
// GB with two decimals, the column the README shows; below 10 MB that reads as 0.00 GB for the
// lecture's small models, so those get their own unit (kB, MB).
std::string gb(double bytes) { return bytes >= 1e7 ? fmt("%.2f GB", bytes / 1e9) : si(bytes) + "B"; }
}  // namespace

Result<TrainingMemoryReport> memory_operation(const Graph& graph, const Cluster& cluster, const MemoryOptions& options) {
  auto r = estimate_memory(graph, cluster, options);
  if (!r.ok()) return r.error();
  return TrainingMemoryReport{graph.name(), cluster.num_devices(), options, r.value()};
}

std::vector<int> data_parallel_degrees(int devices, int64_t batch) {
  std::vector<int> degrees;
  for (int d = 1; d <= devices; ++d)
    if (devices % d == 0 && (batch == 0 || d <= batch)) degrees.push_back(d);
  return degrees;
}

Json TrainingMemoryReport::to_json() const {
  const MemoryReport& m = memory;
  const MemoryOptions& o = options;
  return Json{{"model", model},
              {"param_elements", m.param_elements},
              {"devices", devices},
              {"dp", o.data_parallel},
              {"tp", o.tensor_parallel},
              {"samples_per_replica", m.samples_per_replica},
              {"zero", o.zero_stage},
              {"optimizer", optimizer_name(o.optimizer)},
              {"precision", precision_name(o.precision)},
              {"remat", o.remat},
              {"bytes_per_param", Json{{"params", m.bytes_per_param.params}, {"grads", m.bytes_per_param.grads},
                                       {"optimizer", m.bytes_per_param.optimizer}}},
              {"params_bytes", m.params_bytes},
              {"grads_bytes", m.grads_bytes},
              {"optimizer_bytes", m.optimizer_bytes},
              {"activation_bytes", m.activation_bytes},
              {"total_bytes", m.total_bytes},
              {"capacity_bytes", m.capacity_bytes},
              {"fits", m.fits},
              {"activations", Json{{"layers", m.layers}, {"layer_bytes", m.layer_bytes}, {"kept_input_bytes", m.kept_input_bytes},
                                   {"recompute_bytes", m.recompute_bytes}, {"other_bytes", m.other_bytes}}}};
}

std::string TrainingMemoryReport::to_text() const {
  const MemoryReport& m = memory;
  const MemoryOptions& o = options;
  std::ostringstream t;
  t << "memory per GPU: " << model << " (" << group_digits(m.param_elements) << " parameters) on " << devices << (devices == 1 ? " GPU: " : " GPUs: ") << o.data_parallel
    << "-way data parallel x " << o.tensor_parallel << "-way tensor parallel, ZeRO stage " << o.zero_stage << ", " << optimizer_name(o.optimizer)
    << ", " << precision_name(o.precision) << " precision" << (o.remat ? ", recomputation" : "") << "\n"
    << "  parameters   " << pad(gb(m.params_bytes), 12, true) << "  (" << m.bytes_per_param.params << " B/param"
    << (o.zero_stage >= 3 ? ", sharded" : "") << ")\n"
    << "  gradients    " << pad(gb(m.grads_bytes), 12, true) << "  (" << m.bytes_per_param.grads << " B/param"
    << (o.zero_stage >= 2 ? ", sharded" : "") << ")\n"
    << "  optimizer    " << pad(gb(m.optimizer_bytes), 12, true) << "  (" << m.bytes_per_param.optimizer << " B/param"
    << (o.zero_stage >= 1 ? ", sharded" : "") << ")\n"
    << "  activations  " << pad(gb(m.activation_bytes), 12, true) << "  (" << m.layers << (m.layers == 1 ? " layer" : " layers")
    << (o.remat ? ": inputs kept " + gb(m.kept_input_bytes) + ", one layer recomputed " + gb(m.recompute_bytes) : ": " + gb(m.layer_bytes))
    << "; other ops " << gb(m.other_bytes) << ")\n"
    << "  total        " << pad(gb(m.total_bytes), 12, true) << "  of " << gb(m.capacity_bytes) << ": " << (m.fits ? "fits" : "DOES NOT FIT")
    << "\n";
  return t.str();
}

}  // namespace autopar
