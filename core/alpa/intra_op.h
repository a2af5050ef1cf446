// Alpa's intra-op pass (section 4.2): the parallel algorithms of each op on a device mesh
// (the paper's Table 3 idea: each mesh axis is given to one loop dimension of the op), their
// communication and memory, the resharding costs on every edge, and the plan a solver picks.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "device_mesh.h"
#include "graph.h"
#include "ilp_solve_cache.h"
#include "intra_op_problem.h"
#include "memory_model.h"
#include "result.h"
#include "sharding_spec.h"

namespace autopar {

// How many collectives of each kind a plan (or a part of it) performs.
struct CollectiveCounts {
  int all_reduce = 0, all_gather = 0, reduce_scatter = 0, all_to_all = 0;
  CollectiveCounts& operator+=(const CollectiveCounts& o) {
    all_reduce += o.all_reduce;
    all_gather += o.all_gather;
    reduce_scatter += o.reduce_scatter;
    all_to_all += o.all_to_all;
    return *this;
  }
  bool operator==(const CollectiveCounts& o) const {
    return all_reduce == o.all_reduce && all_gather == o.all_gather && reduce_scatter == o.reduce_scatter && all_to_all == o.all_to_all;
  }
  int total() const { return all_reduce + all_gather + reduce_scatter + all_to_all; }
};

// The collectives of one resharding (each step that is an all-gather or all-to-all).
CollectiveCounts collectives_of(const ReshardPlan& p);

// One gradient synchronisation of a strategy: the gradients of `params` (indices into the op's
// parameters) all-reduced over the mesh axes `axes` (the axes that split the batch, along which
// the parameter is replicated). On a cluster mesh one per op (a bucket, as DDP and ZeRO flatten
// gradients); under Alpa's conventions one per parameter tensor, as its ILP sees them.
struct GradSync {
  std::vector<int> params;
  AxisMask axes = 0;
  double bytes = 0;     // per device, before the reduction
  double cost = 0;      // of the all-reduce, already in OpStrategy::grad_sync
};

// One way to run one op on the mesh.
struct OpStrategy {
  std::string name;                     // "data@0 column@1", "heads@1", "follow"
  ShardingSpec output;
  std::vector<ShardingSpec> inputs;     // data inputs first, then parameters, in the op's order
  double forward_comm = 0;              // e.g. all-reduce of a row-parallel output
  double backward_comm = 0;             // e.g. all-reduce of a column-parallel input gradient
  double grad_sync = 0;                 // all-reduce of parameter gradients over the data axes
  double input_reshard = 0;             // bringing model input data into this op's input spec
  double memory_bytes = 0;              // per device: parameters and gradients, output activations
  double penalty = 0;                   // Alpa's penalty for replicated parameters and inputs (0 on a cluster mesh)
  double recompute_comm = 0;            // with rematerialization: the forward collectives and input resharding again
  CollectiveCounts forward_collectives, backward_collectives, input_collectives;   // counted once each
  std::vector<GradSync> grad_syncs;     // what grad_sync pays for (combined across ops when counted)
  CollectiveCounts update_collectives;  // Alpa: all-gathers bringing a 2-D-split gradient to its stored 1-D spec
  // Everything this strategy costs on its own (the ILP's node cost).
  double cost() const { return forward_comm + backward_comm + grad_sync + input_reshard + penalty + recompute_comm; }
};

// How many devices share the op's work under a strategy: the mesh axes any of its tensors is
// split along (an axis no tensor uses runs the op replicated).
int64_t work_split(const OpStrategy& s, const DeviceMesh& mesh);

// The share of the op's work its busiest device does under a strategy: 1 / work_split when the
// splits are even; an uneven split (ceil(d / ways) elements on the largest part) raises it by
// ceil(d / ways) * ways / d for each split dimension of the output and each split reduced
// dimension of the first data input (e.g. 257 samples on 4 devices: 65 / 257, not 1 / 4).
double work_fraction(const OpStrategy& s, const Op& op, const DeviceMesh& mesh);

// The spec a model input arrives in on a cluster mesh: split along its batch dimension over as
// many mesh axes as it has samples for (uneven when they do not divide), as a data loader hands
// each device its own samples.
ShardingSpec input_data_spec(const Shape& shape, const DeviceMesh& mesh);

// Settings of the intra-op pass.
struct IntraOpOptions {
  std::string solver = "auto";          // auto (dp on chains, else ilp), ilp, dp, exhaustive
  double memory_budget_bytes = 0;       // per device; 0 = capacity_bytes (none when that is 0 too)
  double time_limit_ms = 20000;         // ILP time limit
  std::string write_lp;                 // write the ILP here (CPLEX LP format)
  double grad_sync_scale = 1;           // weight of gradient sync (1 / micro-batches in a pipeline stage)
  bool data_parallel_only = false;      // heavy ops may only split their batch (no operator parallelism)
  // Alpa's force_batch_dim_to_mesh_dim: 0 or 1 splits every activation's batch dimension along
  // that mesh axis and no other (along an axis of one device: the batch stays whole); -1: Alpa's
  // default, axis 0 on a 2-D mesh under its conventions (--alpha/--beta), else free.
  int force_batch_axis = -1;
  std::vector<std::string> gradient_inputs;   // model inputs that do need a gradient (a stage's activations)
  bool activations_batch_split = false; // price those as arriving split by batch over the mesh (else free)
  bool reduce_scatter = false;          // after the solve: gradient all-reduce -> reduce-scatter + all-gather (ZeRO-2)
  bool remat = false;                   // recompute activations in the backward pass (forward collectives paid twice)
  // Memory (memory_model.h's accounting). With a capacity (or a budget) a plan that does not
  // fit is never returned as if it did: ZeRO stages and recomputation are tried, cheapest first.
  double capacity_bytes = 0;            // one GPU's memory; 0: unknown (Alpa's unitless meshes)
  std::optional<GpuSpec> gpu;           // prices recomputation's extra forward pass (cost_model.h); none: not priced
  Optimizer optimizer = Optimizer::adam;
  bool fp32_main_grads = false;         // gradients kept in FP32 (Megatron's distributed optimizer; state_bytes_per_param)
  int zero_stage = -1;                  // 0-3: fixed; -1: chosen (0 unless the plan does not fit; 2 with reduce_scatter)
  bool choose_remat = true;             // recomputation may be chosen when no plan fits without it
  // A given plan's expert parallelism (> 1): MoE ops split their tokens over every mesh axis and
  // keep their experts whole on each device; the stage costs price the ep-way expert sharding
  // and its all-to-alls on top (context_expert.h), which a 2-D mesh axis cannot express.
  int expert_parallel = 1;
  // Sequence-dimension strategies on cluster meshes (Megatron's sequence parallelism, Korthikanti
  // et al. 2022, 4.2.2): norms, adds, dropout and activations may split a [batch, seq, ...]
  // activation along the sequence over the axes their operand leaves free, and linears and
  // embeddings reduce-scatter to, and all-gather from, that layout. On for the intra-op pass as
  // `intra` and the page run it (intra_options); off (2022's strategy set) where the inter-op
  // pass solves every stage: they triple a transformer layer's ILP variables and doubled GPT-3's
  // planning on 1,024 GPUs (18 -> 34 CPU-s), which the inter-op search must budget for first.
  bool sequence_strategies = false;
  // Where ILP solves are remembered (a problem equal in every number to one solved before takes
  // its answer, which a new solve would repeat); null: every problem is solved. Not owned.
  IlpSolveCache* ilp_cache = nullptr;
};

// Per-device memory of a plan by kind, counted as `autopar memory` counts it: the bytes per
// parameter of the model's precision and the optimizer (state_bytes_per_param), each parameter
// sharded by ZeRO over the mesh axes its gradient is synchronised over, and Korthikanti's saved
// activations of every op in its chosen layout (activation_memory).
struct PlanMemory {
  int zero_stage = 0;
  bool remat = false;
  double params_bytes = 0, grads_bytes = 0, optimizer_bytes = 0, activation_bytes = 0;
  double input_bytes = 0;               // the model inputs on a device (a pipeline stage keeps them under recomputation)
  double total_bytes = 0;
  double capacity_bytes = 0;            // the budget it is checked against (0: none)
  bool fits = true;
};

// The strategies of every op, in graph order. Heavy ops (linear, convolution, embedding,
// attention, mixture of experts) give every mesh axis to a loop dimension; light ops follow
// the spec their first operand is produced in.
std::vector<std::vector<OpStrategy>> enumerate_strategies(const Graph& g, const DeviceMesh& mesh, const IntraOpOptions& options = {});

// Per parameter of `op` under strategy `s`: its model states on one device (parameters,
// gradients, optimizer state) under ZeRO stage `zero`, as evaluate_memory_choice adds them up.
std::vector<double> param_state_bytes(const Op& op, const OpStrategy& s, const DeviceMesh& mesh, const StateBytesPerParam& bp, int zero);

// The chosen plan.
struct IntraOpPlan {
  DeviceMesh mesh;
  std::vector<std::vector<OpStrategy>> strategies;   // per op
  IntraProblem problem;
  IntraSolution solution;                             // choice per op
  double objective = 0;
  double communication_cost = 0;                      // node costs without input resharding
  double base_communication_cost = 0;                 // the same, as solved (before ZeRO and unpriced recomputation)
  double resharding_cost = 0;                         // edges plus model-input resharding
  double memory_per_device = 0;
  double param_memory_per_device = 0;                 // parameters and gradients
  double activation_memory_per_device = 0;            // outputs kept for the backward pass
  double grad_sync_cost = 0;                          // unscaled gradient sync of the chosen plan
  double solve_ms = 0;
  double penalty_cost = 0;                            // Alpa's replicated penalties (objective = comm + resharding + penalty)
  double solver_objective = 0;                        // what the solver reported (before --reduce-scatter)
  double reduce_scatter_delta = 0;                    // objective change of the reduce-scatter pass
  double optimizer_memory_per_device = 0;             // optimizer state (not in memory_per_device)
  PlanMemory memory;                                  // everything by kind, with the ZeRO stage and recomputation chosen
  double zero_cost = 0;                               // objective change of the ZeRO stage's collectives (reduce_scatter_delta when 1 or 2)
  double recompute_cost = 0;                          // recomputation's extra forward compute (cluster meshes), in the objective
  int memory_tries = 0;                               // ZeRO / recomputation settings evaluated because the plan did not fit
  CollectiveCounts collectives;                       // per iteration, forward and backward, gradient collectives combined
  LayerStructure layers;                              // the graph's repeating layers (find_layers), for its memory
};

// The collectives a chosen plan performs per iteration (forward, backward, recomputation,
// resharding on every edge, gradient synchronisation). Gradient collectives over the same mesh
// axes are combined into one, as XLA's all-reduce combiner (and DDP's buckets) do; under
// --reduce-scatter the reduce-scatters and all-gathers combine when they also scatter the same
// tensor dimension. Computed from the plan's strategies, independently of the solver.
CollectiveCounts count_collectives(const Graph& g, const IntraOpPlan& plan, const IntraOpOptions& options);

// What a ZeRO stage and recomputation setting keeps and costs on a solved plan: its memory and
// the change of the objective (ZeRO 1 and 2: each gradient all-reduce becomes a reduce-scatter
// once per iteration plus an all-gather of the updated weights; ZeRO 3: the reduce-scatter plus
// the weights all-gathered in every forward pass and again in the backward pass; recomputation:
// the forward collectives and resharding again, when the solve did not already price them, and
// the forward compute again at the GPU's peak).
struct MemoryChoice {
  PlanMemory memory;
  double zero_cost = 0;
  // ZeRO 3's collectives apart, for pricing their overlap (stage_cost_builder.cpp): one
  // all-gather of every sharded weight, one reduce-scatter of their gradients (both per
  // micro-batch, unscaled), and the gradient sync they replace (scaled as in the objective).
  double zero3_gather_ms = 0, zero3_reduce_ms = 0, zero3_replaced_ms = 0;
  double recompute_comm = 0;
  double recompute_compute = 0;
  double cost_delta() const { return zero_cost + recompute_comm + recompute_compute; }
};
// `plan` is plan_intra_op's for `g` (its layers are g's).
MemoryChoice evaluate_memory_choice(const Graph& g, const IntraOpPlan& plan, const IntraOpOptions& options, int zero_stage, bool remat);

// The problem plan_intra_op solves, unsolved (strategies and problem only): every strategy's
// memory counted under `zero_stage` and options.remat against `budget` (0: none). For callers
// that solve a chain themselves without the ILP (the page's exercise, which does not link GLPK).
IntraOpPlan intra_op_problem(const Graph& g, const DeviceMesh& mesh, const IntraOpOptions& options, int zero_stage, double budget);

// Builds the problem and solves it.
Result<IntraOpPlan> plan_intra_op(const Graph& g, const DeviceMesh& mesh, const IntraOpOptions& options);

}  // namespace autopar
