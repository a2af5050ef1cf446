// `memory` (INTERFACES.md): training memory per GPU (ZeRO's model states, Korthikanti et al.'s
// activations) for a model on a cluster with data and tensor parallelism, as a typed report.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "json_io.h"
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

// The data-parallel degrees `devices` GPUs can be split into for `memory --dp`: the divisors of
// the device count, each at most `batch` (a replica needs a sample; batch 0: no bound), ascending.
std::vector<int> data_parallel_degrees(int devices, int64_t batch);

}  // namespace autopar
