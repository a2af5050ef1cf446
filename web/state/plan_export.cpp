// The Export menu's files (see plan_export.h): engine plans through the operation behind
// `autopar export` (core/operations/export_operation.h), so the page and the CLI print the same text.
#include "plan_export.h"

#include "app_state.h"
#include "export_operation.h"

namespace autopar::web {

const std::vector<ExportFormat>& export_formats() {
  static const std::vector<ExportFormat> formats = {
      {"perfetto", "Timeline as Perfetto trace (JSON)", "autopar-trace.json"},
      {"strategy", "FlexFlow strategy (JSON)", "autopar-strategy.json"},
      {"dtensor", "PyTorch DTensor plan (Python)", "autopar_dtensor_plan.py"},
      {"jax", "JAX PartitionSpecs (Python)", "autopar_jax_plan.py"},
      {"megatron", "Megatron-LM flags (shell)", "autopar_megatron.sh"},
      {"torchtitan", "torchtitan pipeline schedule (CSV)", "autopar_torchtitan_schedule.csv"},
  };
  return formats;
}

Result<std::string> export_plan_text(AppState& state, const std::string& format) {
  ensure_flexflow(state);
  if (format == "perfetto") return flexflow_trace_text(state.flexflow);
  if (format == "strategy") {
    if (!state.flexflow.task_graph) return make_error("not_ready", "no strategy is loaded yet", "strategy");
    return strategy_to_json(state.graph, state.flexflow.strategy).dump(2) + "\n";
  }
  if (format != "dtensor" && format != "jax" && format != "megatron" && format != "torchtitan")
    return make_error("bad_value", "export format must be perfetto, strategy, dtensor, jax, megatron or torchtitan, not '" + format + "'",
                      "format");
  // The same operation as `autopar export`, on the graph and cluster the page holds; the files
  // name their inputs as the user knows them.
  ExportRequest request;
  request.format = format;
  request.title = state.settings.model + " on " + (state.settings.custom_cluster ? state.settings.cluster + " (edited)" : state.settings.cluster);
  auto r = export_operation(state.graph, state.cluster, request);
  if (!r.ok()) return r.error();
  return r.value().text;
}

}  // namespace autopar::web
