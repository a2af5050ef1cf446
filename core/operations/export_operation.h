// `export` (INTERFACES.md): what the page's Export menu writes, for a model on a cluster: a
// Perfetto trace of a FlexFlow strategy, or Alpa's plan for PyTorch DTensor, JAX, Megatron-LM or
// torchtitan. Without a strategy it plans first (the MCMC search for perfetto, Alpa's passes
// for the engines).
#pragma once
#include <optional>
#include <string>

#include "cluster.h"
#include "graph.h"
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
// The export; errors name "--format" (an unknown format) or come from the planners.
Result<ExportReport> export_operation(const Graph& graph, const Cluster& cluster, const ExportRequest& request);

// The largest number of micro-batches (at most 32) that divides every input's batch: the
// pipeline the engine exports plan for.
int default_microbatches(const Graph& g);

}  // namespace autopar
