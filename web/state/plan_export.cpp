// The Export menu's files (see plan_export.h): engine plans through the operation behind
// `autopar export` (core/operations/export_operation.h), run by a worker, so the page and the CLI
// print the same text.
#include "plan_export.h"

#include "app_state.h"
#include "operation_requests.h"
#include "page_result.h"
#include "plan_settings.h"

namespace autopar::web {

const std::vector<ExportFormat>& export_formats() {
  static const std::vector<ExportFormat> formats = {
      {"perfetto", "export.format.perfetto", "autopar-trace.json"},
      {"strategy", "export.format.strategy", "autopar-strategy.json"},
      {"dtensor", "export.format.dtensor", "autopar_dtensor_plan.py"},
      {"jax", "export.format.jax", "autopar_jax_plan.py"},
      {"megatron", "export.format.megatron", "autopar_megatron.sh"},
      {"torchtitan", "export.format.torchtitan", "autopar_torchtitan_schedule.csv"},
      // The plan of the Model & Cluster tab's knobs (t, p, d, cp, ep, v, mbs, SP, recomputation,
      // ZeRO), priced and written with every knob (`autopar export --plan`).
      {"megatron-plan", "export.format.megatron-plan", "autopar_megatron_plan.sh"},
      {"torchtitan-plan", "export.format.torchtitan-plan", "autopar_torchtitan.toml"},
  };
  return formats;
}

namespace {

bool engine_format(const std::string& format) { return format == "dtensor" || format == "jax" || format == "megatron" || format == "torchtitan"; }

// "megatron-plan" -> "megatron": the engine format of a plan export ("" when `format` is not one).
std::string plan_format(const std::string& format) {
  const std::string suffix = "-plan";
  if (format.size() <= suffix.size() || format.compare(format.size() - suffix.size(), suffix.size(), suffix) != 0) return "";
  const std::string base = format.substr(0, format.size() - suffix.size());
  return base == "megatron" || base == "torchtitan" ? base : "";
}

// The page's own formats, from the views it holds.
Result<std::string> page_export_text(AppState& state, const std::string& format) {
  ensure_flexflow(state);
  if (format == "perfetto") return flexflow_trace_text(state.flexflow);
  if (!state.flexflow.task_graph) return make_error(ErrorCode::not_ready, "no strategy is loaded yet", "strategy");
  return strategy_to_json(state.graph, state.flexflow.strategy).dump(2) + "\n";
}

// The worker's result {format, text}: the file's text.
Result<std::string> export_text_of(const Json& result) {
  if (!result.is_object() || !result.contains("text")) return make_error(ErrorCode::missing_field, "the worker's export has no 'text'", "result.text");
  return string_from_json(result["text"], "result.text", "the file's text");
}

}  // namespace

ExportJob start_export(AppState& state, const std::string& format) {
  ExportJob job;
  job.format = format;
  if (format == "perfetto" || format == "strategy") {
    job.outcome = page_export_text(state, format);
    return job;
  }
  const std::string given = plan_format(format);
  if (!engine_format(format) && given.empty()) {
    job.outcome = Result<std::string>(make_error(
        ErrorCode::bad_value, "export format must be perfetto, strategy, dtensor, jax, megatron, torchtitan, megatron-plan or torchtitan-plan, not '" + format + "'",
        "format"));
    return job;
  }
  // The same operation as `autopar export`, on the model and cluster the page holds; the files
  // name their inputs as the user knows them.
  ExportRequest request;
  request.format = given.empty() ? format : given;
  request.title = state.settings.model + " on " + (state.settings.custom_cluster ? state.settings.cluster + " (edited)" : state.settings.cluster);
  if (!given.empty()) {
    // The Model & Cluster tab's plan, as `export --plan` reads it.
    if (auto st = validate_plan_settings(state.settings.plan); !st.ok()) {
      job.outcome = Result<std::string>(st.error());
      return job;
    }
    auto plan = parse_given_plan(plan_settings_text(state.settings.plan), "plan");
    if (!plan.ok()) {
      job.outcome = Result<std::string>(plan.error());
      return job;
    }
    request.plan = plan.value();
  }
  job.request = state.alpa.inter.worker->start("export", operation_inputs(state.settings), request_to_json(request));
  return job;
}

bool take_export(AppState& state, ExportJob& job) {
  if (job.outcome) return true;
  if (!job.request) return false;
  auto reply = state.alpa.inter.worker->take(job.request);
  if (!reply) return false;
  job.request = 0;
  if (reply->ok()) job.outcome = export_text_of(reply->value());
  else job.outcome = Result<std::string>(reply->error());
  return true;
}

void cancel_export(AppState& state, ExportJob& job) {
  if (job.request) state.alpa.inter.worker->cancel(job.request);
  job.request = 0;
}

}  // namespace autopar::web
