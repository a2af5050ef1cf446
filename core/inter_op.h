// Alpa's inter-op pass (section 5): slice the layer sequence into pipeline stages, each on a
// sub-mesh of the cluster, minimising  sum of stage latencies + (B - 1) * max stage latency
// for B micro-batches, by enumerating t_max (the largest stage latency allowed) and the
// F(s, k, d) recurrence, with the 1F1B memory limit and sub-meshes that tile the cluster.
#pragma once
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "json_io.h"
#include "result.h"

namespace autopar {

// n nodes x m GPUs of the cluster.
struct Submesh {
  int nodes = 1, gpus = 1;
  int devices() const { return nodes * gpus; }
  bool operator==(const Submesh& o) const { return nodes == o.nodes && gpus == o.gpus; }
};

// The sub-mesh shapes Alpa considers on N x M: (1,1), (1,2), (1,4) ... (1,M), then (2,M) ... (N,M).
std::vector<Submesh> alpa_submeshes(int nodes, int gpus_per_node);

// What one stage costs: for layers [first, last] on each sub-mesh, a latency (infinite when
// infeasible) and how many stages may follow it under the 1F1B memory limit (-1: unlimited).
struct StageCostTable {
  int layers = 0;
  int nodes = 1, gpus_per_node = 1;
  std::vector<Submesh> submeshes;
  std::vector<double> latency;           // [(first * layers + last) * submeshes + m]
  std::vector<int> max_succ_stages;      // same indexing
  std::vector<std::string> logical_mesh; // same indexing; the best logical mesh, e.g. "2x4"
  // Creates a table where everything is infeasible.
  void reset(int layers, int nodes, int gpus_per_node, std::vector<Submesh> submeshes);
  size_t index(int first, int last, int m) const { return (size_t(first) * size_t(layers) + size_t(last)) * submeshes.size() + size_t(m); }
};

// One stage of a plan.
struct PipelineStage {
  int first = 0, last = 0;
  Submesh submesh;
  double latency = 0;
  std::string logical_mesh;
};

// The plan: total = sum of stage latencies + (B - 1) * max stage latency.
struct InterOpPlan {
  double total_latency = 0;
  double t_max = 0;
  int t_max_tried = 0;                   // candidates enumerated before early stopping
  int t_max_candidates = 0;
  std::vector<PipelineStage> stages;
};

// The DP of the paper (exact).
Result<InterOpPlan> solve_inter_op(const StageCostTable& table, int microbatches);
// Every contiguous slicing and sub-mesh assignment (small tables only): the DP's witness.
Result<InterOpPlan> brute_force_inter_op(const StageCostTable& table, int microbatches);

// Reads the --stage-costs format of INTERFACES.md; a layer no stage covers is an error.
Result<StageCostTable> stage_costs_from_json(const Json& j);
// Writes a table in the same format (feasible entries only).
Json stage_costs_to_json(const StageCostTable& t);

// How the stage latencies of a model are computed.
struct InterOpOptions {
  int microbatches = 32;
  int max_layers = 32;                   // ops are grouped into at most this many layers
  std::string mode = "alpa";             // alpa (inter + intra), intra-only (one stage), inter-only (data parallel stages)
};

// Layers of a graph: contiguous op ranges ending where a single tensor crosses to the rest,
// merged (balancing FLOPs) to at most `max_layers`.
std::vector<std::pair<int, int>> cluster_layers(const Graph& g, int max_layers);

// The graph of one micro-batch: every model input's first dimension divided by B.
Result<Graph> microbatch_graph(const Graph& g, int microbatches);

// Stage costs of a model from the intra-op pass: each layer planned on every logical mesh of
// every sub-mesh (identical layers solved once), a stage's latency = its layers' compute and
// communication on its best logical mesh plus resharding between its layers.
Result<StageCostTable> stage_costs_from_model(const Graph& microbatch, const Cluster& cluster, const InterOpOptions& options,
                                             std::vector<std::pair<int, int>>* layers_out = nullptr);

}  // namespace autopar
