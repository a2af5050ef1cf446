// `memory` (INTERFACES.md): training memory per GPU (ZeRO's model states, Korthikanti et al.'s
// activations) for a model on a cluster with data and tensor parallelism, as a typed report.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "json_io.h"
#include "inter_operation.h"
#include "memory_model.h"

namespace autopar {

// The estimate with what it was asked for.
struct TrainingMemoryReport {
  std::string model;
  int devices = 0;
  MemoryOptions options;
  MemoryReport memory;
  Json to_json() const;
  std::string to_text() const;
};

// Per-device memory of `graph` trained on `cluster` as `options` say (see estimate_memory).
Result<TrainingMemoryReport> memory_operation(const Graph& graph, const Cluster& cluster, const MemoryOptions& options);

// `memory --plan`: per pipeline stage of a given plan (inter --plan's stages, recomputation,
// sequence parallelism and ZeRO), its model states, one micro-batch's activations and the
// micro-batches its schedule holds in flight (1F1B: min(p - i, B) at stage i).
struct PlanStageMemory {
  int first_layer = 0, last_layer = 0;         // the model's numbering
  int zero_stage = 0;
  std::string recompute;                       // none, selective or full
  double params_bytes = 0, grads_bytes = 0, optimizer_bytes = 0;   // model states, split by bytes per parameter
  double activation_bytes_per_microbatch = 0;
  double inflight_microbatches = 0;
  double activation_bytes = 0;                 // in flight x per micro-batch, plus full recomputation's one layer
  double total_bytes = 0;
  bool fits = false;
};
// The plan's memory: every stage, and the fullest one's figures at the top level.
struct PlanMemoryReport {
  std::string model, plan;
  int devices = 0, microbatches = 0;
  double capacity_bytes = 0;
  std::vector<PlanStageMemory> stages;
  // {"plan","microbatches","stages":[...]} and the fullest stage's params_bytes, grads_bytes,
  // optimizer_bytes, activation_bytes, total_bytes, plus capacity_bytes and fits (all stages).
  Json to_json() const;
  std::string to_text() const;
};
// The memory of `plan` for `graph` on `cluster` with `microbatches` micro-batches (errors: the
// plan's own, as inter --plan's, but a stage that does not fit is reported, not refused).
Result<PlanMemoryReport> plan_memory_operation(const Graph& graph, const Cluster& cluster, const GivenPlan& plan, int microbatches, Optimizer optimizer);

// The data-parallel degrees `devices` GPUs can be split into for `memory --dp`: the divisors of
// the device count, each at most `batch` (a replica needs a sample; batch 0: no bound), ascending.
std::vector<int> data_parallel_degrees(int devices, int64_t batch);

}  // namespace autopar
