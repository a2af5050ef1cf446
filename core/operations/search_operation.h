// `search` as a job (INTERFACES.md): FlexFlow's MCMC search over the SOAP space, stepped a
// bounded amount at a time. The same job serves `autopar search` (stepped to its end) and the
// page's Search tab (a slice per frame, with the live plot's trace). With no time budget the
// report depends on the inputs and the seed only, however the job is sliced.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "job.h"
#include "json_io.h"
#include "mcmc.h"

namespace autopar {

// What a search is started with: the MCMC's options (mcmc.h: beta, steps, budget_ms, seed,
// full_sim, optimizer, memory_moves) and where the chain starts. Read, written and checked by
// operation_requests.h, the same for the CLI, the worker and the page.
struct SearchRequest : SearchOptions {
  std::string init = "dp";       // dp, expert, mp, random (random:SEED with the search seed), random:N or a strategy file
};

// The initial strategy named by `init` (as SearchRequest::init); errors name `path` (the CLI's
// "--init" or the page's "search.init").
Result<Strategy> search_initial_strategy(const std::string& init, uint64_t seed, const Graph& graph, const Cluster& cluster,
                                         const std::string& path);
// The name of the initial strategy as the search reports it ("random" becomes "random:SEED").
std::string search_init_name(const std::string& init, uint64_t seed);

// The chain's course for a live plot: one point every `stride` proposals (best and current
// makespan), thinned 2:1 whenever kMaxPoints are reached.
struct SearchTrace {
  static constexpr size_t kMaxPoints = 2048;
  std::vector<float> step, best, current;
  int64_t stride = 1;
  // Appends the state after a proposal when it falls on the stride (or the search finished).
  void record(const SearchResult& r);
};

// What a finished search reports (`search --json`).
struct SearchReport {
  SearchResult result;           // best strategy, counts, history
  std::string init;              // the initial strategy's name
  double beta = 0;
  int64_t steps_requested = 0;   // --steps: the search stops earlier once half of them brought no improvement
  bool full_sim = false;
  double elapsed_ms = 0;         // setup + search
  double evals_per_s = 0;        // proposals per second of search time (setup left out)
  SimSummary breakdown;          // the best strategy simulated
  int zero_ops[4] = {0, 0, 0, 0};  // the best strategy's ops with replicated weights, by ZeRO stage
  double capacity_bytes = 0;
  Json strategy;                 // the best, as strategy_to_json
  std::string strategy_text;     // the best, as a table
  std::string breakdown_text;
  Json to_json() const;
  std::string to_text() const;
};

// A search in progress. Owns copies of its graph and cluster. A unit of work is one proposal.
class SearchJob : public Job<SearchReport> {
 public:
  // Starts the search (builds the configuration space and simulates the initial strategy); bad
  // input ends the job at once with the error (naming `init_path` for a bad init).
  SearchJob(Graph graph, Cluster cluster, const SearchRequest& request, const std::string& init_path = "--init");
  JobProgress progress() const override;
  // The chain so far (null before the search could start).
  const SearchResult* state() const { return search_ ? &search_->result() : nullptr; }
  // The strategy the chain is at now (only when state() is not null).
  const Strategy& current() const { return search_->current(); }
  // The plot trace so far.
  const SearchTrace& trace() const { return trace_; }
  // Proposals per second of search time so far (0 before any).
  double evals_per_s() const;
  const SearchRequest& request() const { return request_; }
  // The initial strategy's name ("dp", "random:7").
  const std::string& init_name() const { return init_name_; }
  const Graph& graph() const { return graph_; }
  const Cluster& cluster() const { return cluster_; }
  // The search itself (null when it could not start): its step records.
  const McmcSearch* search() const { return search_.get(); }

 protected:
  void work(BudgetMeter& meter) override;

 private:
  void finish_report(double search_ms);   // search_ms: search time including the step in progress
  Graph graph_;
  Cluster cluster_;
  SearchRequest request_;
  std::string init_name_;
  std::unique_ptr<McmcSearch> search_;
  SearchTrace trace_;
  double setup_ms_ = 0;
};

// How many proposals a search the page runs keeps records of (its step inspector replays them).
constexpr int64_t kInspectorRecordSteps = 5000;

// One step record as a compact JSON array: [step, move ("config" | "zero" | "remat"), op,
// from, to, remat_to, current_cost, proposed_cost, proposed_ms, rate, probability, draw,
// accepted], a configuration as [degrees, devices, zero].
Json mcmc_step_to_json(const McmcStep& r);
// Reads one record mcmc_step_to_json wrote, for a graph of `num_ops` ops on `num_devices` GPUs;
// errors name `path`.
Result<McmcStep> mcmc_step_from_json(const Json& j, int num_ops, int num_devices, const std::string& path);

// What a running search has to show since the last call, for a page drawing it live (the
// worker's partial replies): {state: the chain's counts and costs, trace: {from, stride, step,
// best, current} (the points from index `from` on; from 0 with the whole trace after a
// thinning), best: the best strategy (only when it changed)}.
// A partial also carries the step records (McmcStep) the job's search kept since the last one:
// {records: [record, ...]} as mcmc_step_to_json writes them, in order.
class SearchPartial {
 public:
  // The partial for `job` now (tracks what it already gave).
  Json next(const SearchJob& job);

 private:
  size_t sent_records_ = 0;
  size_t sent_points_ = 0;
  int64_t sent_stride_ = 0;
  int64_t sent_best_step_ = -1;
  bool sent_ = false;
};

// A search seen from outside its job (the page, fed by a worker): the chain, its plot trace and
// timing, equal to the job's own after the same partials.
struct SearchView {
  SearchResult chain;            // counts, costs and the best strategy (no history)
  SearchTrace trace;
  std::vector<McmcStep> steps;   // the step records received (the first SearchOptions::record_steps proposals)
  std::string init;              // the initial strategy's name
  double compute_ms = 0;         // search time so far
  double evals_per_s = 0;
  // Applies one SearchPartial (the best strategy is read for `graph` on `num_devices` GPUs); a
  // malformed partial is an error naming its JSON path, and the view is then unchanged.
  Status apply(const Json& partial, const Graph& graph, int num_devices);
};

}  // namespace autopar
