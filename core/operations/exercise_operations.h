// The numbers behind lecture 15's exercises (section 11), from the planners that teach them:
// a split Linear layer, the Metropolis-Hastings acceptance probability (mcmc.h's own formula),
// one op's move under delta simulation, S0S1 -> RR as two all-gathers, the intra-op chain DP,
// the inter-op t_max walk, DLRM under two strategies, and the additive cost against the
// simulated makespan. Typed inputs and results, no UI text: the page words them (web/views) and
// grades answers against them (web/state/exercise_grading).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cluster.h"
#include "device_mesh.h"
#include "graph.h"
#include "inter_op.h"
#include "intra_op_problem.h"
#include "result.h"
#include "simulator.h"
#include "soap.h"
#include "task_graph.h"

namespace autopar {

// Exercise 1: per-device numbers of a Linear layer Y = X W (X: batch x in, W: in x out) split
// by sample (degree s) and by parameter (degree p).
struct LinearSplitNumbers {
  int64_t input_elements = 0;     // (batch / s) x in
  int64_t weight_elements = 0;    // in x (out / p)
  int64_t sync_elements = 0;      // gradient elements all-reduced per group (0 when s == 1)
  int sync_group = 1;             // devices holding copies of one weight shard (= s)
  int sync_groups = 1;            // how many such groups (= p)
};
// Exercise 1's numbers; bad_degree when s does not divide batch or p does not divide out.
Result<LinearSplitNumbers> linear_split_numbers(int batch, int in, int out, int sample_degree, int param_degree);

// Exercise 2's inputs: two costs in ms, beta, and whether the cost difference is divided by the
// initial cost (as the search does, mcmc.h) or taken raw.
struct AcceptanceInputs {
  double current_ms = 100, proposed_ms = 110, beta = 0.1, initial_ms = 100;
  bool normalize = false;
};
// The acceptance probability of one beta for those costs, in ms and in seconds.
struct AcceptanceOdds {
  double beta = 0;
  double scale_ms = 1;            // what the difference is divided by: the initial cost or 1
  double in_ms = 0;               // min(1, exp(beta * (current - proposed) / scale)), costs in ms
  double in_s = 0;                // the same with the costs (and the scale) in seconds
};
// The odds for `beta` (not in.beta: the page's table compares betas on the same costs).
AcceptanceOdds acceptance_odds(const AcceptanceInputs& in, double beta);
// The lecture's two cases (beta 0.1 and 1) and then the reader's beta when it is neither.
std::vector<AcceptanceOdds> acceptance_table(const AcceptanceInputs& in);

// Exercise 3: what one op's move does to the timeline under delta simulation.
struct DeltaMove {
  int op = 0;
  OpConfig config;                // the op's configuration after the move
  int tasks = 0;                  // live tasks after the move
  int recomputed = 0;             // DeltaSimulator::last_recomputed()
  int kept = 0;                   // tasks with the same slot and the same start and end
  double old_ms = 0, new_ms = 0;
  double full_ms = 0;             // full re-simulation of the new strategy (equals new_ms)
  // True when the delta simulation's makespan is the full re-simulation's (to 1e-9 relative).
  bool matches_full() const;
  // The share of the live tasks after the move that were recomputed (0 when there are none).
  double recomputed_share() const { return tasks > 0 ? double(recomputed) / double(tasks) : 0.0; }
  std::vector<int> changed_slots; // task slots that are new or have new times
  // One box of the timeline after the move: its lane (GPU or link), times and whether it changed.
  struct Box {
    int lane = 0;
    double start_ms = 0, end_ms = 0;
    bool changed = false;
  };
  std::vector<Box> boxes;
  std::vector<std::string> lane_names;   // per lane: the device's name ("GPU 0", "link 0->1", ...)
  double earliest_changed_ms = 0;        // earliest start among changed tasks (the K0 idea)
  int kept_before_earliest = 0;          // tasks ending before it: untouched by construction
};
// Moves `op` of `strategy` to another configuration (whole on GPU 0, or sample-split over every
// GPU when it already is whole on GPU 0) with the core's DeltaSimulator, and re-simulates the
// moved strategy in full for comparison.
DeltaMove delta_move(const Graph& graph, const Cluster& cluster, const Strategy& strategy, int op);

// Exercise 3 for a strategy: every op's move and which ops' moves recompute the largest share of
// their tasks (where delta simulation saves the least).
struct DeltaMovesExercise {
  std::vector<DeltaMove> moves;              // per op
  std::vector<double> first_start_ms;        // per op: its first forward task's start (inf: none)
  double most_recomputed_share = 0;          // the largest DeltaMove::recomputed_share()
  std::vector<int> most_recomputing_ops;     // the ops whose move recomputes that share (ties), ascending
  int most_recomputed = 0;                   // the most tasks recomputed among those ops
};
// `simulated` is `strategy`'s simulated task graph (its forward starts are what the reader
// reasons from).
DeltaMovesExercise delta_moves_exercise(const Graph& graph, const Cluster& cluster, const Strategy& strategy,
                                        const TaskGraph& simulated);

// Exercise 4: S0S1 -> RR on a mesh as two all-gathers in one order.
struct ReshardOrder {
  int first_axis = 0, second_axis = 1;             // the mesh axes gathered first and second
  double first_bytes = 0, second_bytes = 0;        // bytes each device receives in each step
  double first_ms = 0, second_ms = 0;              // all_gather_cost of each step
  double slow_axis_bytes = 0, fast_axis_bytes = 0; // bytes moved over axis 0 and axis 1 per device
  double total_ms() const { return first_ms + second_ms; }
};
// The cost of gathering a tensor of `tensor_bytes` from S0S1 to RR, axis `first` (0 or 1) first.
ReshardOrder reshard_order(const DeviceMesh& mesh, int first, double tensor_bytes);

// Exercise 4's mesh: the cluster's 8 GPUs as 2 x 4 (bad_mesh, mesh_from_cluster's error, otherwise).
Result<DeviceMesh> exercise4_mesh(const Cluster& cluster);
// Exercise 4 on that mesh for a rows x cols tensor of dtype_bytes elements: both orders.
struct ReshardExercise {
  MeshAxis axis[2];                  // the mesh's axes (size, link cost, whether they cross nodes)
  double tensor_bytes = 0;           // rows x cols x dtype_bytes
  ReshardOrder axis0_first, axis1_first;
  int cheaper_first() const { return axis0_first.total_ms() <= axis1_first.total_ms() ? 0 : 1; }   // ties: axis 0
};
ReshardExercise reshard_exercise(const DeviceMesh& mesh, int rows, int cols, int dtype_bytes);

// Exercise 5: the chain DP best[v][j] of an intra-op problem (Viterbi), with the argmin.
struct ChainDp {
  std::vector<std::vector<double>> best;          // [op][strategy]
  std::vector<std::vector<int>> from;             // [op][strategy]: the previous op's strategy (-1 on op 0)
  std::vector<int> choice;                        // traced back
  double objective = 0;                           // min of the last row
};
// Fills the table for a chain problem (nodes 0 -> 1 -> ... in order).
ChainDp chain_dp(const IntraProblem& problem);

// Exercise 5: the intra-op problem of the transformer-chain model on a mesh of the cluster, as
// the reader fills the DP: per op its strategies' costs and the resharding costs from the
// previous op, and the table.
struct ChainDpExercise {
  std::vector<std::string> ops;                          // op names
  std::vector<std::vector<std::string>> strategy_names;  // [op][strategy]
  std::vector<std::vector<double>> cost;                 // [op][strategy]: the node cost
  std::vector<std::vector<double>> reshard;              // [op][i * k + j]: from the previous op's i to j (op 0: empty)
  ChainDp dp;
  // The best of row `v` (the part the reader answers for that row).
  double row_min(int v) const;
};
// `mesh` is "RxC" over the cluster's devices. Checked against the core's chain DP (solve_chain_dp):
// an internal error when they differ.
Result<ChainDpExercise> chain_dp_exercise(const Cluster& cluster, const std::string& mesh);

// Exercise 6: one step of the t_max enumeration on a small stage-cost table.
struct TmaxStage {
  int first = 0, last = 0;   // layers, 0-based
  int devices = 1;
};
struct TmaxStep {
  double t_max = 0;
  double sum_ms = 0;          // best sum of stage latencies with every stage <= t_max (inf: none)
  double total_ms = 0;        // sum + (B - 1) * t_max
  bool stopped = false;       // early stop: (B - 1) * t_max alone is no better than the best so far
  std::vector<TmaxStage> stages;   // this t_max's best, in layer order (empty when infeasible)
};
// The stage-cost table of a 4-layer model on 1 node x 2 GPUs: one GPU runs layers at their cost,
// two GPUs at 60 % of it (imperfect scaling).
StageCostTable small_stage_table(const std::array<float, 4>& layer_ms);
// Walks t_max over the distinct feasible stage latencies in ascending order.
std::vector<TmaxStep> tmax_walk(const StageCostTable& table, int microbatches);

// Exercise 6 for given layer costs and micro-batches: the table the reader reads, the walk, and
// the core's inter-op DP on the same table (which skips candidates with a bound).
struct TmaxExercise {
  struct StageLatency {
    int first = 0, last = 0;            // layers, 0-based
    double one_gpu_ms = 0, two_gpus_ms = 0;
  };
  std::vector<StageLatency> latencies;  // every run of layers, by first then last
  std::vector<TmaxStep> steps;
  double best_total_ms = 0;             // least total over the walk (inf: none feasible)
  bool core_solved = false;
  InterOpPlan core;                     // solve_inter_op's plan when core_solved
};
TmaxExercise tmax_exercise(const std::array<float, 4>& layer_ms, int microbatches);

// Exercise 7: DLRM simulated on a preset cluster under data parallelism and the expert placement
// (what `autopar simulate --model dlrm --cluster KEY --strategy dp|expert` prints).
struct DlrmExercise {
  SimSummary data_parallel, expert;
  // How many times faster the expert placement is (the part the reader answers); 0 when unknown.
  double speedup() const;
};
Result<DlrmExercise> dlrm_exercise(const std::string& cluster_key);

// Exercise 8: the cost an additive model would give (compute + transfers + synchronisation),
// against which the simulated makespan (with overlap) is compared.
double additive_cost_ms(const SimSummary& summary);

}  // namespace autopar
