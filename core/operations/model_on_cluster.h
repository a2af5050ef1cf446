// A model and a cluster loaded from the words a reader types (`--model M --cluster C`): what the
// scenarios and the benchmarks start from.
#pragma once
#include <string>
#include <utility>

#include "cluster.h"
#include "cluster_spec.h"
#include "graph.h"
#include "models.h"
#include "result.h"

namespace autopar {

// A model's graph and the cluster it runs on.
struct ModelOnCluster {
  Graph graph;
  Cluster cluster;
};

// Loads `model` (a built-in with parameters or a file) and `cluster` (a preset or a file); the
// first error found, with its own path.
inline Result<ModelOnCluster> load_model_on_cluster(const std::string& model, const std::string& cluster) {
  auto g = load_model(model);
  if (!g.ok()) return g.error();
  auto c = load_cluster(cluster);
  if (!c.ok()) return c.error();
  return ModelOnCluster{std::move(g.value()), std::move(c.value())};
}

}  // namespace autopar
