// The FlexFlow half's short operations (INTERFACES.md): space, simulate, exhaustive and the
// conv1d demo, each a function over in-memory inputs returning a typed report that renders to
// the CLI's JSON and text. The long ones are jobs: search_operation.h, accuracy_operation.h.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "cluster.h"
#include "conv1d_demo.h"
#include "graph.h"
#include "json_io.h"
#include "mcmc.h"
#include "result.h"
#include "simulator.h"
#include "soap.h"
#include "task_graph.h"

namespace autopar {

// The breakdown of a simulated timeline as `simulate --json` prints it (makespan, sums per
// task kind, bytes, tasks, peak memory against the GPU's capacity): the one writer of it.
Json simulation_summary_json(const SimSummary& s, double capacity_bytes);
// The fullest GPU's training memory by kind (as `memory --json` names the kinds), its id, the
// capacity and whether every GPU fits: the summary's "memory".
Json simulation_memory_json(const SimSummary& s, double capacity_bytes);
// The same breakdown as `simulate` prints it without --json.
std::string simulation_summary_text(const SimSummary& s, const Cluster& cluster);
// The strategy as a table: op, degrees of its split dimensions, devices.
std::string strategy_table_text(const Graph& g, const Strategy& s);

// `space`: SOAP configurations per op and strategies in all.
struct SpaceReport {
  SpaceSize size;
  std::vector<std::string> op_names, op_dims;   // per op: name and "dim(size) ..."
  int devices = 0;
  Json to_json() const;
  std::string to_text() const;
};
SpaceReport space_operation(const Graph& graph, const Cluster& cluster);

// What `simulate` runs: a strategy under a cost model, and what to keep besides the summary.
struct SimulateRequest {
  Strategy strategy;
  int zero_stage = -1;              // 0-3: every op's ZeRO stage (--zero); -1: the strategy's own
  bool remat = false;               // recomputation on (--remat); else as the strategy says
  CostSettings cost;                // ideal, calibrated or fine (with its jitter seed)
  bool trace = false;               // keep the Perfetto trace (report.trace)
  bool task_graph = false;          // keep the task list (report.task_graph)
  Optimizer optimizer = Optimizer::adam;   // whose state the memory per GPU counts
  bool expert = false;              // the strategy is the named expert one: the report says its recipe
};
// `simulate`: the summary, the strategy, and the trace or task list when asked for.
struct SimulateReport {
  SimSummary summary;
  std::optional<ExpertRecipe> expert_recipe;   // which recipe the expert strategy followed (request.expert)
  double capacity_bytes = 0;        // per GPU
  std::string cost_model;           // ideal, calibrated or fine
  Json strategy;                    // strategy_to_json
  std::string strategy_text;        // strategy_table_text
  std::string summary_text;         // simulation_summary_text
  std::optional<Json> trace, task_graph;
  Json to_json() const;
  std::string to_text() const;
};
SimulateReport simulate_operation(const Graph& graph, const Cluster& cluster, const SimulateRequest& request);

// `exhaustive`: the optimum of a small space (refused when too large).
struct ExhaustiveReport {
  ExhaustiveResult result;
  Json strategy;
  std::string strategy_text;
  Json to_json() const;
  std::string to_text() const;
};
Result<ExhaustiveReport> exhaustive_operation(const Graph& graph, const Cluster& cluster);

// `conv1d`: the lecture's 1-D convolution split six ways over `gpus`, checked numerically.
struct Conv1dReport {
  std::string model;
  int gpus = 0;
  std::vector<Conv1dSplit> splits;
  Json to_json() const;
  std::string to_text() const;
};
Result<Conv1dReport> conv1d_operation(const Graph& conv, int gpus);

}  // namespace autopar
