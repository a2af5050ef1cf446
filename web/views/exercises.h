// The numbers behind the interactive exercises of lecture 15, section 11: each function computes
// what the page checks the reader's answer against, from the core where the core has it (delta
// simulation, collective costs, the intra-op problem, the inter-op DP). No ImGui in here.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "inter_op.h"
#include "intra_op.h"
#include "json_io.h"
#include "strategy.h"

namespace autopar::web {

// Number of exercises (lecture section 11).
constexpr int kExerciseCount = 8;


// Exercise 1: per-device numbers of a Linear layer split by sample (degree s) and parameter (p).
struct LinearSplitNumbers {
  int64_t input_elements = 0;     // (batch / s) x in
  int64_t weight_elements = 0;    // in x (out / p)
  int64_t sync_elements = 0;      // gradient elements all-reduced per group (0 when s == 1)
  int sync_group = 1;             // devices holding copies of one weight shard (= s)
  int sync_groups = 1;            // how many such groups (= p)
};
// Computes exercise 1's numbers; degrees must divide batch and out.
LinearSplitNumbers linear_split_numbers(int batch, int in, int out, int sample_degree, int param_degree);

// Exercise 2: min(1, exp(beta * (current - proposed) / scale)), scale = initial cost or 1.
double acceptance_probability(double current_ms, double proposed_ms, double beta, double scale);

// Exercise 3: what one op's move does to the timeline under delta simulation.
struct DeltaMove {
  int op = 0;
  std::string move;              // the new configuration, readable
  int tasks = 0;                 // live tasks after the move
  int recomputed = 0;            // DeltaSimulator::last_recomputed()
  int kept = 0;                  // tasks with the same slot and the same start and end
  double old_ms = 0, new_ms = 0;
  double full_ms = 0;            // full re-simulation of the new strategy (equals new_ms)
  std::vector<int> changed_slots;        // task slots that are new or have new times
  // One box of the timeline after the move: its lane (GPU or link), times and whether it changed.
  struct Box {
    int lane = 0;
    double start_ms = 0, end_ms = 0;
    bool changed = false;
  };
  std::vector<Box> boxes;
  std::vector<std::string> lane_names;   // per lane: "GPU 0", "link 0->1" ...
  double earliest_changed_ms = 0;        // earliest start among changed tasks (the K0 idea)
  int kept_before_earliest = 0;          // tasks ending before it: untouched by construction
};
// Moves `op` of `strategy` to another configuration (whole on GPU 0, or sample-split over every
// GPU when it already is whole on GPU 0) with the core's DeltaSimulator.
DeltaMove delta_move(const Graph& graph, const Cluster& cluster, const Strategy& strategy, int op);

// Exercise 4: S0S1 -> RR on a mesh as two all-gathers in one order.
struct ReshardOrder {
  std::string first_axis_name, second_axis_name;
  double first_bytes = 0, second_bytes = 0;        // bytes each device receives in each step
  double first_ms = 0, second_ms = 0;
  double slow_axis_bytes = 0, fast_axis_bytes = 0; // bytes moved over axis 0 and axis 1 per device
  double total_ms() const { return first_ms + second_ms; }
};
// The cost of gathering a rows x cols tensor of `dtype_bytes` from S0S1 to RR, axis `first` first.
ReshardOrder reshard_order(const DeviceMesh& mesh, int first, double tensor_bytes);

// Exercise 5: the chain DP best[v][j] of an intra-op problem (Viterbi), with the argmin.
struct ChainDp {
  std::vector<std::vector<double>> best;          // [op][strategy]
  std::vector<std::vector<int>> from;             // [op][strategy]: the previous op's strategy
  std::vector<int> choice;                        // traced back
  double objective = 0;                           // min of the last row
};
// Fills the table for a chain problem (nodes 0 -> 1 -> ... in order).
ChainDp chain_dp(const IntraProblem& problem);

// Exercise 6: the t_max enumeration on a small table.
struct TmaxStep {
  double t_max = 0;
  double sum_ms = 0;          // best sum of stage latencies with every stage <= t_max (inf: none)
  double total_ms = 0;        // sum + (B - 1) * t_max
  bool stopped = false;       // early stop: (B - 1) * t_max alone is no better than the best so far
  std::string stages;         // the stages of this t_max's best, readable
};
// The stage-cost table of a 4-layer model on 1 node x 2 GPUs: one GPU runs layers at their cost,
// two GPUs at 60 % of it (imperfect scaling).
StageCostTable small_stage_table(const std::array<float, 4>& layer_ms);
// Walks t_max over the distinct feasible stage latencies in ascending order.
std::vector<TmaxStep> tmax_walk(const StageCostTable& table, int microbatches);

// The reader's inputs and typed answers of every exercise (the Exercises tab).
struct ExercisesState {
  int shown = 1;                                          // exercise in front, 1 .. kExerciseCount
  std::array<std::array<std::string, 3>, kExerciseCount> answers;   // typed answers, up to 3 per exercise
  std::array<bool, kExerciseCount> checked{};             // "Check" was pressed (or an answer set by script)
  std::array<int, kExerciseCount> tries{};                // Checks that were not all right
  std::array<bool, kExerciseCount> solved{};              // the last Check had every part right
  std::array<bool, kExerciseCount> revealed{};            // the answer is shown ("Show the answer" or a second wrong try)
  std::array<std::array<int, 3>, kExerciseCount> grades{};   // per part at the last Check: 0 empty, 1 right, 2 wrong
  // Exercise 1: Y = X W with X: batch x in, W: in x out, split by sample and by parameter.
  int ex1_batch = 64, ex1_in = 1024, ex1_out = 1024, ex1_sample_degree = 4, ex1_param_degree = 2;
  // Exercise 2: costs in ms and beta per ms; with `normalize` the difference is divided by the initial cost.
  double ex2_current_ms = 100, ex2_proposed_ms = 110, ex2_beta = 0.1, ex2_initial_ms = 100;
  bool ex2_normalize = false;
  // Exercise 3: the op whose move is shown on the timeline (-1: the one recomputing the most).
  int ex3_op = 0;
  std::vector<DeltaMove> ex3_moves;     // one move per op of the current strategy
  std::vector<double> ex3_first_start_ms;   // per op: when its first forward task starts now
  uint64_t ex3_revision = 0;            // FlexflowView::revision the moves were computed for (0: none)
  // Exercise 4: the tensor's shape and element size.
  int ex4_rows = 4096, ex4_cols = 4096, ex4_dtype_bytes = 4;
  // Exercise 5: DP rows revealed so far (1 .. ops).
  int ex5_rows_shown = 1;
  std::string ex5_key;                  // cluster/mesh the table below was computed for
  std::string ex5_error;
  std::vector<std::string> ex5_ops;     // op names of transformer-chain
  std::vector<std::vector<std::string>> ex5_strategy_names;   // [op][strategy]
  ChainDp ex5_dp;                       // the DP table
  IntraProblem ex5_problem;             // the costs and resharding matrices the table is built from
  // Exercise 6: per-layer compute of the 4-layer model (ms) and the micro-batches.
  std::array<float, 4> ex6_layer_ms{4.0f, 1.0f, 1.0f, 2.0f};
  int ex6_microbatches = 8;
  int ex6_steps_shown = 1;
  // Exercise 7: DLRM simulated under data parallel and the expert placement.
  Json ex7_dp, ex7_expert;
  int ex5_rows_graded = 0;              // the row the answers of exercise 5 belong to
  std::string ex7_key;                  // cluster the results are for
  std::string ex7_error;
};

// Parses a number typed by the reader ("0.37", "4.5e-5", "37%"); false when it is not one.
bool parse_answer(const std::string& text, double& value);

// True when `value` is within `rel` (relative) or `abs_tol` (absolute) of `expected`.
bool answer_matches(double value, double expected, double rel, double abs_tol);

// Exercise 2's expected answer for the inputs in `ex`.
double exercise2_expected(const ExercisesState& ex);

}  // namespace autopar::web
