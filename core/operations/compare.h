// Compare (lecture section 7): FlexFlow's plan and Alpa's plan priced by the same simulator.
// FlexFlow's side is an MCMC search over SOAP configurations from data parallel. Alpa's side is
// its whole pipeline: the inter-op pass slices the model into stages on sub-meshes, each
// stage's ops are planned by the intra-op pass on the stage's logical mesh, and the plan is
// simulated micro-batch by micro-batch, so that every stage boundary (lecture 6.4) becomes real
// transfer tasks on the links between the two sub-meshes, forward and backward, exactly as the
// FlexFlow plan's transfers are priced.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "inter_op.h"
#include "intra_op.h"
#include "job.h"
#include "json_io.h"
#include "mcmc.h"
#include "result.h"
#include "simulator.h"
#include "strategy.h"

namespace autopar {

// What to compare.
struct CompareRequest {
  Graph graph;
  Cluster cluster;
  std::string title;                  // "alexnet on lecture:2x4", as the user named them
  uint64_t seed = 1;                  // FlexFlow's search
  int64_t steps = 2000;               // FlexFlow's proposals
  int microbatches = 0;               // Alpa's pipeline; 0: the largest divisor of the batch up to 8
  // Alpa's pipeline plan as given (the page's inter-op tab shows it: one plan per page state, so
  // Compare simulates that very plan); none: the inter-op pass plans it here. Its stages index
  // the layers of the micro-batch graph as `inter` numbers them (first, last from 0).
  std::optional<InterOpPlan> inter_plan;
};

// The micro-batch count compare uses by default: the largest B <= 8 dividing every input's batch.
int default_compare_microbatches(const Graph& g);

// The graph of `microbatches` copies of a one-micro-batch graph, copy k's ops and tensors named
// "NAME#k". Only the last copy holds the parameters, so that a simulation synchronises each
// gradient once per iteration, after the last micro-batch's backward pass, and counts the
// weights once in memory; every copy's compute reads the weights (param_bytes), as each
// micro-batch's kernels do.
Result<Graph> pipeline_graph(const Graph& microbatch, int microbatches);

// One pipeline stage of Alpa's plan as compare prices it.
struct CompareStage {
  PipelineStage stage;                // layers (indices into the micro-batch graph's layers), sub-mesh, offset
  int first_op = 0, last_op = 0;      // its op range in the model
  std::vector<int> devices;           // the cluster GPUs it runs on
  IntraOpPlan intra;                  // the intra-op plan of its ops on its logical mesh
  std::vector<int> layer_numbers;     // [first, last] in the model's numbering
};

// Alpa's side: the pipeline plan and the SOAP strategy each op runs with.
struct AlpaPipelinePlan {
  int microbatches = 1;
  InterOpPlan inter;                  // the inter-op pass's plan (its objective includes boundaries)
  std::vector<CompareStage> stages;
  Strategy strategy;                  // per op of the model: its stage's sharding as SOAP configurations
  std::vector<int> stage_of_op;       // per op: its stage
};

// FlexFlow's or Alpa's plan simulated.
struct ComparedPlan {
  SimSummary summary;
  double planning_ms = 0;             // wall clock (differs between runs by nature)
};

// FlexFlow's half of compare: the MCMC search's result and its best strategy simulated.
struct CompareFlexflowPart {
  SearchResult search;
  ComparedPlan sim;
  // The "flexflow" object of `compare --json` (`g`: the model).
  Json to_json(const Graph& g) const;
};

// Alpa's half: the pipeline plan and its simulation.
struct CompareAlpaPart {
  std::string cluster_shape;          // "NxG": the cluster Alpa's stages tile
  AlpaPipelinePlan plan;
  ComparedPlan sim;
  // The "alpa" object of `compare --json` (`g`: the model).
  Json to_json(const Graph& g) const;
};

// Everything `compare` reports.
struct CompareReport {
  std::string title;
  std::string cluster_shape;          // "NxG": the cluster Alpa's stages tile
  SearchResult flexflow;
  ComparedPlan flexflow_sim;
  AlpaPipelinePlan alpa;
  ComparedPlan alpa_sim;
  // The CLI's JSON (INTERFACES.md: flexflow.makespan_ms/strategy, alpa.makespan_ms/plan): the
  // two halves' JSON under "flexflow" and "alpa", and the title as "model" (compare_json).
  Json to_json(const Graph& g) const;
  // The CLI's table.
  std::string to_text() const;
};

// `compare --json` from its two halves' JSON (CompareFlexflowPart / CompareAlpaPart::to_json):
// a page that ran the halves apart merges them into the CLI's report with this.
Json compare_json(const std::string& title, Json flexflow, Json alpa);

// Checks a compare request; returns the micro-batches Alpa's pipeline uses (the default when
// the request gives 0). Errors name the CLI option.
Result<int> check_compare_request(const CompareRequest& request);

// Alpa's whole plan for a model (inter-op, then each stage's intra-op plan), without simulating it.
Result<AlpaPipelinePlan> plan_alpa_pipeline(const Graph& g, const Cluster& c, int microbatches);

// Checks that a given pipeline plan fits a model of `layers` layers on `c`: its stages cover
// layers 0 .. layers-1 in order, each on a sub-mesh of the cluster's shape at consecutive device
// offsets within it, with a logical mesh of the sub-mesh's device count. Errors name the stage
// under `path` ("request.inter_plan.stages[2].submesh").
Status check_given_inter_plan(const InterOpPlan& plan, int layers, const Cluster& c, const std::string& path);

// plan_alpa_pipeline a unit of work at a time, so that a job can be cancelled between units:
// one intra-op solve of the stage costs, the inter-op DP, or one stage's intra-op plan.
class AlpaPipelinePlanner {
 public:
  // Starts on the micro-batch graph of `g` (an error ends the planning at once). With `given`,
  // that pipeline plan is used as it is (checked with check_given_inter_plan; no stage costs,
  // no DP) and only its stages' intra-op plans are made.
  AlpaPipelinePlanner(const Graph& g, const Cluster& c, int microbatches, const std::optional<InterOpPlan>& given = std::nullopt);
  // Does one unit of work; returns done().
  bool step();
  // True once the plan or an error is known.
  bool done() const { return outcome_.has_value(); }
  // The plan, or why there is none; only valid when done().
  const Result<AlpaPipelinePlan>& result() const { return *outcome_; }
  // Units done and a bound on the total (the stages are known only after the DP), and the phase.
  JobProgress progress() const;

 private:
  void plan_stage(size_t k);
  Cluster cluster_;
  int microbatches_ = 1;
  std::optional<StageCostBuilder> builder_;
  AlpaPipelinePlan plan_;
  bool inter_done_ = false;
  bool given_ = false;                 // the inter-op plan was given: the stage costs are not built
  size_t next_stage_ = 0;
  int64_t stages_ = 0;                 // the DP's stages (plan_ is moved into the result at the end)
  std::optional<Result<AlpaPipelinePlan>> outcome_;
};

// Simulates Alpa's plan: `microbatches` copies of the micro-batch graph, each op on its stage's
// devices with its stage's sharding; returns the summary of that simulation.
Result<SimSummary> simulate_alpa_pipeline(const Graph& g, const Cluster& c, const AlpaPipelinePlan& plan);

// FlexFlow's half as a job: the MCMC search from data parallel (a unit is one proposal), then
// the best strategy simulated. Refers to `request`, which must outlive it.
class CompareFlexflowJob : public Job<CompareFlexflowPart> {
 public:
  // Checks the request (errors end the job at once) and starts the search.
  explicit CompareFlexflowJob(const CompareRequest& request);
  JobProgress progress() const override;
  // Proposals made so far.
  int64_t search_steps() const { return search_ ? search_->result().steps : 0; }

 protected:
  void work(BudgetMeter& meter) override;

 private:
  const CompareRequest& request_;
  std::unique_ptr<McmcSearch> search_;
};

// Alpa's half as a job: the pipeline plan (AlpaPipelinePlanner's units), then its simulation
// (one more unit). Refers to `request`, which must outlive it.
class CompareAlpaJob : public Job<CompareAlpaPart> {
 public:
  // Checks the request; errors end the job at once.
  explicit CompareAlpaJob(const CompareRequest& request);
  JobProgress progress() const override;

 protected:
  void work(BudgetMeter& meter) override;

 private:
  const CompareRequest& request_;
  std::optional<AlpaPipelinePlanner> planner_;
};

// The whole comparison as a job (the CLI's; a page runs the two halves side by side instead):
// FlexFlow's half, then Alpa's. Owns its request.
class CompareJob : public Job<CompareReport> {
 public:
  // Checks the request; errors show in result().
  explicit CompareJob(CompareRequest request);
  JobProgress progress() const override;
  // FlexFlow's proposals made so far.
  int64_t search_steps() const { return flexflow_.search_steps(); }
  // The request (its graph indexes the report's strategies).
  const CompareRequest& request() const { return *request_; }

 protected:
  void work(BudgetMeter& meter) override;

 private:
  std::unique_ptr<CompareRequest> request_;   // stable address: the halves refer to it
  CompareFlexflowJob flexflow_;
  CompareAlpaJob alpa_;
};

// Runs a CompareJob to the end.
Result<CompareReport> run_compare(CompareRequest request);

}  // namespace autopar
