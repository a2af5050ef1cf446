// `export` (INTERFACES.md): what the page's Export menu writes, for a model on a cluster: a
// Perfetto trace of a FlexFlow strategy, or Alpa's plan for PyTorch DTensor, JAX, Megatron-LM or
// torchtitan. Without a strategy it plans first (the MCMC search for perfetto, Alpa's passes
// for the engines).
#pragma once
#include <optional>
#include <string>

#include "cluster.h"
#include "graph.h"
#include "inter_operation.h"
#include "json_io.h"
#include "strategy.h"

namespace autopar {

// What to export.
struct ExportRequest {
  std::string format;                  // perfetto, dtensor, jax, megatron or torchtitan
  std::optional<Strategy> strategy;    // perfetto only: the strategy to trace (else a 2,000-step search from data parallel)
  uint64_t seed = 1;                   // the search's seed
  std::string title;                   // names the inputs in the generated files, e.g. "alexnet on lecture:2x4"
  std::string device_type = "cuda";    // dtensor only: init_device_mesh's device type (--device-type)
  // megatron and torchtitan only: this plan (`inter --plan`'s knobs) instead of Alpa's, priced
  // first as `inter --plan` prices it (given_plan_export.h).
  std::optional<GivenPlan> plan;
};

// The exported file.
struct ExportReport {
  std::string format;
  Json trace;                          // perfetto: the trace itself
  std::string text;                    // the file's text
  // perfetto: the trace; else {"format","text"}.
  Json to_json() const;
  std::string to_text() const;
};

// Ok for the formats export_operation knows, else the error naming "--format".
Status check_export_format(const std::string& format);
// Ok when `format` takes a given plan (megatron, torchtitan), else the error naming `path`.
Status check_plan_format(const std::string& format, const std::string& path);
// The export; errors name "--format" (an unknown format), "--plan" (a plan an engine format cannot
// take, or `inter --plan`'s refusal of it) or come from the planners.
Result<ExportReport> export_operation(const Graph& graph, const Cluster& cluster, const ExportRequest& request);

// The largest number of micro-batches (at most 32) that splits every input's batch into whole
// shares for each of `replicas` data-parallel replicas: the pipeline the engine exports plan
// for; 0 when not even one does (a batch that is not a multiple of `replicas`).
int default_microbatches(const Graph& g, int replicas = 1);

}  // namespace autopar
