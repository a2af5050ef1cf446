// Alpa's inter-op pass (section 5): slice the layer sequence into pipeline stages, each on a
// sub-mesh of the cluster, minimising  sum of stage latencies + (B - 1) * max stage latency
// for B micro-batches, by enumerating t_max (the largest stage latency allowed) and the
// F(s, k, d) recurrence, with the 1F1B memory limit and sub-meshes that tile the cluster.
// Boundaries between stages (lecture 6.4, cross-mesh resharding) are priced too, unless ignored
// as the paper's DP does; see "The boundary model" below.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster.h"
#include "device_mesh.h"
#include "graph.h"
#include "ilp_solve_cache.h"
#include "json_io.h"
#include "memory_model.h"
#include "pipeline_schedules.h"
#include "result.h"
#include "sharding_spec.h"

namespace autopar {

// n nodes x m GPUs of the cluster.
struct Submesh {
  int nodes = 1, gpus = 1;
  int devices() const { return nodes * gpus; }
  bool operator==(const Submesh& o) const { return nodes == o.nodes && gpus == o.gpus; }
};

// The sub-mesh shapes Alpa considers on N x M: (1,1), (1,2), (1,4) ... (1,M), then (2,M) ... (N,M).
std::vector<Submesh> alpa_submeshes(int nodes, int gpus_per_node);

// A stage's memory accounting before its ZeRO stage and recomputation are chosen (known when the
// table comes from a model), kept so that another schedule's micro-batches in flight can choose
// them again (stage_costs_for_schedule) without a new intra-op solve.
struct StageMemorySums {
  double latency = 0;                    // compute, communication and resharding, before ZeRO's and recomputation's costs
  double states[4] = {0, 0, 0, 0};       // per ZeRO stage: model states per GPU
  double zero_ms[4] = {0, 0, 0, 0};      // per ZeRO stage: its collectives and optimizer step per micro-batch
  double activation = 0, selective = 0, kept = 0;   // one micro-batch's activations: none, selective, full recomputation (layer inputs)
  double largest = 0;                    // the largest layer's activations (held while full recomputation reruns it)
  double recompute_ms = 0, selective_ms = 0;        // full and selective recomputation's extra forward
  double buffers[4] = {0, 0, 0, 0};      // per ZeRO stage: gathered-weight working buffers beside the states (ZeRO 3 only)
};

// One way a stage can run within its memory: its sequence parallelism, ZeRO stage and
// recomputation, its latency per micro-batch under them and the bytes it holds. A stage-cost
// entry from a model keeps every such option that no other beats on latency and every kind of
// memory; the DP takes, per position, the fastest whose room holds the micro-batches that
// position keeps in flight.
struct StageMemoryOption {
  double latency = 0;                    // per micro-batch, its settings' costs included
  int zero_stage = 0;
  int mode = 0;                          // 0 none, 1 selective, 2 full recomputation
  bool sequence_parallel = false;
  double state_bytes = 0;                // one copy of its model states per GPU
  double fixed_bytes = 0;                // beside them: ZeRO 3's gathered buffers, full recomputation's one layer rerun
  double activation_bytes = 0;           // one micro-batch in flight
  // Micro-batches of activations it holds in `capacity_bytes` beside `copies` copies of its
  // states (infinite when it keeps none; negative when not even its states fit).
  double capacity(double capacity_bytes, int copies) const;
};

// What one stage costs: for layers [first, last] on each sub-mesh, a latency (infinite when
// infeasible) and how many stages may follow it under the 1F1B memory limit (-1: unlimited).
struct StageMemoryChoice;

struct StageCostTable {
  int layers = 0;
  int nodes = 1, gpus_per_node = 1;
  std::vector<Submesh> submeshes;
  std::vector<double> latency;           // [(first * layers + last) * submeshes + m]
  std::vector<int> max_succ_stages;      // same indexing
  std::vector<std::string> logical_mesh; // same indexing; the best logical mesh, e.g. "2x4"
  std::vector<int> zero_stage;           // same indexing; the ZeRO stage the stage runs with (0 from a stage-cost file)
  std::vector<char> remat;               // same indexing; its recomputation: 0 none, 1 full, 2 selective (the attention core; 1 stays full, as older files mean)
  // Same indexing, known when the table comes from a model (0 from a stage-cost file): the
  // bytes per GPU of the stage's model states under its ZeRO stage, what its memory leaves for
  // activations after them, and one micro-batch's activations (what a schedule holds per
  // micro-batch in flight). A schedule's memory check reads them (pipeline_schedules.h).
  std::vector<double> state_bytes, activation_room_bytes, activation_bytes;
  // Same indexing, from a model only (empty from a file): each entry's sums, the GPU's memory,
  // and the copies of the model states activation_room_bytes already leaves out (2 when chosen
  // for DualPipe, which keeps both directions' parameters).
  std::vector<StageMemorySums> memory_sums;
  // Same indexing, from a searched model only (empty vectors otherwise): the entry's memory
  // options (prune_memory_options: fastest first, none beaten on latency and every kind of
  // memory; the DP keeps, per copy count, those holding more than every faster one), and
  // whether its own setting above is sequence parallel.
  std::vector<std::vector<StageMemoryOption>> memory_options;
  std::vector<char> sequence_parallel;
  double capacity_bytes = 0;
  int state_copies = 1;
  // Same indexing, a given plan's context and expert parallelism only (0 otherwise; not written
  // to stage-cost files): per micro-batch, forward and backward, the time ring attention's K/V
  // passes outlast the attention they overlap, and the MoE layers' dispatch and combine
  // all-to-alls (context_expert.h). Both are inside `latency`.
  std::vector<double> ring_exposed_ms, all_to_all_ms;
  // Boundaries (known when the table comes from a model; a stage-cost file has none):
  bool has_boundaries = false;
  std::vector<double> cut_bytes;         // [i]: bytes crossing forward from layer i to layer i + 1, one micro-batch
  LinkSpec intra_link, inter_link;       // the cluster's links inside a node (one per GPU) and between nodes (one NIC)
  int nics = 1;                          // network NICs per node (Cluster::nics()), which a node's sending GPUs share
  std::vector<double> recv_allgather_ms; // latency indexing: Alpa's local all-gather inside the receiving mesh
  std::vector<int> recv_replicas;        // latency indexing: devices of the receiving mesh holding each input element
  // Creates a table where everything is infeasible.
  void reset(int layers, int nodes, int gpus_per_node, std::vector<Submesh> submeshes);
  // Writes entry `idx`'s latency and memory settings from a found choice (choose_stage_memory).
  void set_memory_choice(size_t idx, const StageMemoryChoice& c);
  size_t index(int first, int last, int m) const { return (size_t(first) * size_t(layers) + size_t(last)) * submeshes.size() + size_t(m); }
};

// One stage of a plan.
struct PipelineStage {
  int first = 0, last = 0;
  Submesh submesh;
  double latency = 0;
  std::string logical_mesh;
  int device_offset = 0;                 // its first device when stages sit on consecutive devices in pipeline order
  double recv_ms = 0;                    // receiving its input from the previous stage (inside its mesh), per micro-batch
  double send_ms = 0;                    // sending its output to the next stage and the gradient back, per micro-batch
  double send_bytes = 0;                 // what crosses to the next stage forward, one micro-batch (0 for the last)
  bool send_inter_node = false;          // that crossing goes over the network
  int memory_option = -1;                // the entry's StageMemoryOption the DP chose (-1: the entry's own setting)
};

// The boundary model (lecture 6.4; Alpa, Zheng et al. OSDI'22 section 5, cross-mesh
// resharding). Stages sit on consecutive devices in pipeline order (node by node), so a boundary
// crosses nodes exactly when the cut falls on a node's edge. What crosses is the activation
// leaving the sender's last layer (T bytes per micro-batch, the whole micro-batch of every
// data-parallel replica), and its gradient coming back. It does not travel as one stream: each
// of the sending mesh's n GPUs sends its own slice, T / n bytes, at the same time (each
// data-parallel replica its own samples; inside a replica, Megatron's scatter/gather
// optimisation sends 1/t of the replicated activation from each of its t GPUs: Narayanan et al.,
// SC'21, section 4.1; Alpa's send/recv of distinct slices, OSDI'22 section 5). Inside a node each
// GPU sends over its own intra-node link; across nodes each over a NIC, the node's `nics` NICs
// shared when more of its GPUs send at once (Cluster::inter_node_shared). The sender's count
// prices the send (the DP knows a stage's sub-mesh, not the next one's); a receiving mesh with
// fewer GPUs would take more per GPU than that, which only plans of unequal sub-meshes meet.
// Alpa's local
// all-gather: when the receiver's spec replicates the input r times (tensor parallelism without
// sequence parallelism), the slices arrive spread over the receiving devices (T / n each) and an
// all-gather inside the receiving mesh makes the r copies; plain send/recv sends every receiving
// device its whole (r times larger) share across. The cheaper of the two is used.
// The overlap model (1F1B and GPipe alike): the sends run on a lane of their own (the link),
// concurrently with the stages' compute, so a boundary adds its time once to the pipeline's
// fill and drain, and bounds the steady state like a stage does; the local all-gather runs on
// the receiving devices, so it counts in the receiving stage's time:
//   total = sum_j (latency_j + recv_j + send_j) + (B - 1) * max_j max(latency_j + recv_j, send_j).
struct BoundaryCost {
  double bytes = 0;                      // T: the logical size crossing forward, one micro-batch
  bool inter_node = false;               // over the network (true) or inside a node
  int senders = 1;                       // n: the sending mesh's GPUs, each sending T / n
  double stream_bytes = 0;               // T / n: what one sending GPU sends forward
  double send_ms = 0;                    // one slice forward + its gradient back, all GPUs at once: 2 * (latency + T / n / stream bandwidth)
  double plain_recv_ms = 0;              // plain send/recv's extra copies: (r - 1) * T / n_recv / the receivers' stream bandwidth
  double allgather_ms = 0;               // Alpa's local all-gather inside the receiving mesh
  double recv_ms = 0;                    // min(plain_recv_ms, allgather_ms)
  bool local_all_gather = false;         // the all-gather is strictly cheaper than the extra copies
  int replicas = 1;                      // r
  double ms() const { return send_ms + recv_ms; }
};
// The link one of `streams` GPUs of a sub-mesh sees when all send at once: the intra-node link
// (one per GPU), or across nodes one NIC, shared when more of a node's GPUs send than it has
// NICs (the sub-mesh's GPUs on one node: min(streams, gpus_per_node)).
LinkSpec boundary_stream_link(const StageCostTable& table, int streams, bool inter_node);
// The send lane of the boundary after layer `cut` leaving a sub-mesh of `senders` GPUs:
// 2 * boundary_stream_link(...).transfer_ms(cut_bytes / senders).
double boundary_send_ms(const StageCostTable& table, int cut, int senders, bool inter_node);
// The boundary after layer `cut` from a sub-mesh of `senders` GPUs into the stage of table entry
// `next_entry` (its first layer is cut + 1), over the link kind given. Needs table.has_boundaries.
BoundaryCost boundary_cost(const StageCostTable& table, int cut, int senders, size_t next_entry, bool inter_node);
// Whether the boundary at device offset `offset` (the receiver's first device) crosses nodes.
bool boundary_crosses_nodes(const StageCostTable& table, int offset);
// Whether a sub-mesh can start at device `offset` (whole nodes start on a node's edge; part of a
// node stays inside one node).
bool submesh_fits_at(const StageCostTable& table, const Submesh& m, int offset);

// The plan: total = sum of stage latencies + (B - 1) * max stage latency.
struct InterOpPlan {
  double total_latency = 0;
  double t_max = 0;
  int t_max_tried = 0;                   // candidates enumerated before early stopping
  int t_max_candidates = 0;
  bool boundaries = false;               // boundary costs were in the objective
  // v of interleaved 1F1B the total was priced with (Megatron-LM's virtual stages: each
  // device runs v chunks of its stage's layers, the fill and drain shrink by v); 1: 1F1B.
  int interleave = 1;
  std::vector<PipelineStage> stages;
};

// One point-to-point message of a cross-mesh resharding.
struct CrossMeshMessage {
  int from = 0, to = 0;                  // cluster device numbers
  double bytes = 0;
};
// Cross-mesh resharding (lecture 6.4) of one tensor from a spec on one mesh to a spec on another:
// send/recv messages, each piece sent by one device that holds it; with Alpa's local all-gather,
// the destination devices that hold the same shard each receive a slice of it and all-gather
// inside their mesh.
struct CrossMeshPlan {
  std::vector<CrossMeshMessage> messages;
  double bytes_across = 0;               // sum of the messages
  double send_ms = 0;                    // the messages as one stream over the link (a node with one NIC, as lecture:2x4's)
  std::vector<ReshardStep> local;        // all-gathers inside the destination mesh
  double local_ms = 0;
  double total_ms() const { return send_ms + local_ms; }
};
// Plans it; devices of a mesh are first_device + row * cols + col. Specs must be valid for the
// shape on their meshes (validate_spec).
CrossMeshPlan cross_mesh_reshard(const Shape& shape, int dtype_bytes, const DeviceMesh& src_mesh, const ShardingSpec& src,
                                 int src_first_device, const DeviceMesh& dst_mesh, const ShardingSpec& dst, int dst_first_device,
                                 const LinkSpec& link, bool local_all_gather);

// A pipeline schedule's memory rule for the DP: a stage at position i of p holds
// schedule_peak_inflight(kind, i, p, B, v) micro-batches of its activations, which must fit the
// room its model states leave (per table entry: activation_room_bytes / activation_bytes, or
// max_succ_stages + 1 from a file). GPipe and 1F1B need no p; the others fix the stage count
// (`stages`), and a schedule with chunks (interleaved v, the V shapes 2) takes only stages of at
// least that many layers.
struct InflightRule {
  ScheduleKind kind = ScheduleKind::one_f_one_b;
  int interleave = 2;                    // v of interleaved 1F1B
  int stages = 0;                        // p; 0 only for GPipe and 1F1B (any count)
  // With kind interleaved: the DP minimises interleaved 1F1B's closed form, sum / v + (B - 1/v)
  // t_max (evaluate_inter_op_plan's with that v), and the plan's total and interleave are that;
  // false: Alpa's sum + (B - 1) t_max, the plan then simulated under the schedule.
  bool interleaved_total = false;
};

// The DP of the paper (exact), with boundary costs when the table has them and `boundaries`
// is set; runs an InterOpSolver to the end.
Result<InterOpPlan> solve_inter_op(const StageCostTable& table, int microbatches, bool boundaries = true,
                                   std::optional<InflightRule> rule = std::nullopt);

// The DP of solve_inter_op a bounded piece at a time, so that a page can spread it over
// frames. A unit of work is one row s of the F(s, k, d) recurrence for one t_max candidate
// (a candidate is min(layers, devices) rows); stepped to the end in slices of any size it tries
// the same candidates in the same order and gives exactly solve_inter_op's plan.
//
// Which candidates it tries: the plan of Alpa's enumeration (every candidate in increasing order,
// stopping once (B - 1) * t_max >= the best total) is kept exactly, but runs of candidates are
// skipped with a bound. F*(t) = min_s F(s, 0, D; t), the least sum of a plan whose stages are
// all at most t, never increases with t; so once F*(t_c) is known, every candidate t_j <= t_c
// has a total of at least F*(t_c) + (B - 1) * t_j. Candidates are kept as intervals [a, b] of
// the sorted list, each with the F* of an evaluated candidate to its right; an interval whose
// bound F*(t_c) + (B - 1) * t_a cannot beat the best plan is dropped whole, otherwise its middle
// candidate is evaluated and the interval split (left half first). An infeasible candidate
// (F* infinite) drops every candidate below it. Ties resolve as the ascending enumeration does
// (the smaller t_max, then the fewer stages), so the plan is that enumeration's, bit for bit.
// Cost, for L layers, D devices, M sub-mesh shapes: up to 3 L^2 M candidates (the distinct lane
// times); one candidate's DP is min(L, D) rows of at most L x L x M x D steps (see compute_row),
// far fewer in practice (stages slower than t_max, over their memory limit, or not fitting are
// skipped). The ascending enumeration runs a DP for every candidate below best / (B - 1),
// thousands on 1,024 GPUs; the bounds leave a few tens (15 of 8,039 for GPT-3 175B on 128 x 8).
// The micro-batches B only scale the bounds: the larger B, the sooner candidates drop. Inside a
// candidate's DP, a partial sum that cannot beat the best plan is dropped as it is formed.
class InterOpSolver {
 public:
  // Prepares the candidates (the distinct finite stage latencies, ascending) and the DP arrays.
  // With `boundaries` (and a table that has them) the objective includes the boundary costs,
  // and the stages must fit at their device offsets. Without a rule, a stage's memory holds
  // the stages after it plus one (1F1B, max_succ_stages); with one, the rule's count.
  InterOpSolver(StageCostTable table, int microbatches, bool boundaries = true, std::optional<InflightRule> rule = std::nullopt);
  // Computes at most `max_rows` more rows; returns done().
  bool step(int max_rows);
  // True when every candidate that can still improve the plan has been tried (or on bad input).
  bool done() const { return done_; }
  // Rows computed so far; never decreases.
  int rows_done() const { return rows_done_; }
  // An upper bound on the rows computed by the end (the bounds make the exact count unknown
  // until then): never increases, and equals rows_done() once done.
  int rows_bound() const;
  // Rows per t_max candidate: min(layers, devices).
  int rows_per_candidate() const { return stages_max_; }
  // The plan, or why there is none; steps to the end first when not done.
  Result<InterOpPlan> finish();

 private:
  // One (last layer, sub-mesh) choice for a stage starting at layer k, with its cost terms for
  // each placement: [c] with c = 2 * (starts on a node's edge) + (ends on a node's edge).
  struct StageChoice {
    int last = 0, submesh = 0, devices = 0, max_succ = -1;
    double capacity = 0;                 // micro-batches of activations its memory holds (infinite: unlimited)
    bool whole_nodes = false;            // starts on a node's edge (else stays inside one node)
    double latency = 0;
    double sum[4] = {0, 0, 0, 0}, lane[4] = {0, 0, 0, 0};
    double recv[2] = {0, 0}, send[2] = {0, 0};   // its boundary terms: receiving within / across nodes, sending within / across
    // The entry's memory options (StageMemoryOption) as (latency, micro-batches held beside the
    // rule's copies of the states), fastest first, each holding more than the one before; a row
    // takes the first that holds its position's count. Empty: the entry's own setting above.
    std::vector<std::pair<double, double>> options;
    std::vector<int> option_index;       // each one's index in the table entry's memory_options
    double fastest = 0;                  // the least latency of any of its settings
  };
  // What a DP cell remembers of its first stage: its last layer, sub-mesh and memory option.
  struct CellChoice {
    int last = 0;
    int16_t submesh = 0, option = -1;
  };
  // A run [a, b] of untried candidates and the least sum of an evaluated candidate above them
  // (-infinity when none is known yet).
  struct Interval {
    int a = 0, b = 0;
    double right_sum = 0;
  };
  size_t at(int s, int k, int d) const;  // index of F[s][k][d]
  bool start_next_candidate();           // pops intervals until one needs a DP; false when none does
  void compute_row(int s, double t_max);
  void finish_candidate();               // after the last row of a candidate
  StageCostTable table_;
  int microbatches_ = 1;
  int total_divisor_ = 1;                // v when the rule asks for interleaving's closed form, else 1
  double tmax_weight_ = 0;               // t_max's weight in the objective times total_divisor_: v B - 1
  bool boundaries_ = false;
  std::optional<InflightRule> rule_;
  std::vector<double> need_;             // [s]: micro-batches a stage with s - 1 stages after it holds under the rule
  int stages_max_ = 0;                   // S = min(layers, devices): rows per candidate (the rule's p when it fixes one)
  std::vector<double> candidates_;
  std::vector<std::vector<StageChoice>> choices_;   // [k]: feasible stages starting at layer k, by (last, sub-mesh)
  std::vector<Interval> pending_;        // a stack, the lowest interval on top
  int pending_count_ = 0;                // untried candidates in pending_ and in the current interval
  Interval current_;                     // the interval the current candidate splits
  int cand_ = -1;                        // the candidate being tried (-1: none)
  int row_ = 0;                          // its rows computed so far
  int rows_done_ = 0;
  bool done_ = false;
  std::vector<double> F_;                // F[s][k][d]: least sum of latencies slicing layers k.. into s stages on d devices, every stage at most t_max
  std::vector<CellChoice> choice_;       // same indexing: the (last layer, sub-mesh, memory option) of the first of those stages
  int unit_ = 1;                         // the gcd of the device counts of the choices the candidate can use (every reachable d is a multiple)
  std::vector<std::pair<int, int>> finite_;   // [s * (L + 1) + k]: the d range where F[s][k][d] is finite (empty: first > second)
  InterOpPlan best_;
  int best_cand_ = -1;                   // the candidate of best_ (ties go to the smaller)
  double sum_cap_ = 0;                   // partial sums above it are dropped (see start_next_candidate)
  std::optional<Error> error_;           // bad input found by the constructor
};

// The objective of one given plan: stages [first, last] in order on sub-mesh `submesh` (an index
// of table.submeshes), at consecutive device offsets, priced as the DP prices a plan (boundaries
// when the table has them and `boundaries` is set). With interleave v > 1 (Megatron-LM's
// interleaved 1F1B: each device holds v chunks of layers) the fill and drain shrink by v:
// total = sum_j (stage_j) / v + (B - 1/v) * max_j lane_j, which is the DP's objective at v = 1.
// Errors name an infeasible stage (memory) or stages that do not tile the cluster.
Result<InterOpPlan> evaluate_inter_op_plan(const StageCostTable& table, int microbatches, const std::vector<std::pair<int, int>>& stages,
                                           int submesh, bool boundaries = true, int interleave = 1);

// Every contiguous slicing and sub-mesh assignment (small tables only): the DP's witness.
Result<InterOpPlan> brute_force_inter_op(const StageCostTable& table, int microbatches, bool boundaries = true);

// Reads the --stage-costs format of INTERFACES.md; a layer no stage covers is an error.
Result<StageCostTable> stage_costs_from_json(const Json& j);
// Writes a table in the same format (feasible entries only).
Json stage_costs_to_json(const StageCostTable& t);

// How the stage latencies of a model are computed.
struct InterOpOptions {
  int microbatches = 32;
  int max_layers = 32;                   // ops are grouped into at most this many layers
  int layers = 0;                        // > 0: Alpa's automatic layer construction into this many layers
  std::string mode = "alpa";             // alpa (inter + intra), intra-only (one stage), inter-only (data parallel stages)
  int zero_stage = -1;                   // 0-3: every stage's ZeRO stage; -1: chosen per stage (0 unless memory needs more)
  Optimizer optimizer = Optimizer::adam; // the optimizer state counted
  // Megatron-LM's distributed optimizer (a given plan's dist_opt=1): ZeRO stage 1 with FP32 main
  // gradients, 6 + 12/d bytes per parameter in mixed precision (state_bytes_per_param).
  bool distributed_optimizer = false;
  bool force_remat = false;              // every stage recomputes its activations (Megatron-LM's full recomputation)
  // A given plan's recomputation, priced as given: -1 chosen per stage (none unless memory needs
  // full; force_remat forces full), 0 none, 1 selective (the attention core only), 2 full.
  int recompute = -1;
  // Under full recomputation (2), a given plan's first N layers of each of its `interleave`
  // chunks recompute and the rest keep their activations (Megatron-LM's block method); 0: all.
  int recompute_layers = 0;
  // Korthikanti et al. 2022's sequence parallelism: LayerNorm, dropout and residual work and
  // activations split over the tensor-parallel group (its collectives move the same bytes).
  bool sequence_parallel = false;
  // ZeRO 3 (FSDP): whether a layer's gathered weights are freed after its forward pass and
  // gathered again for its backward pass (PyTorch FSDP's reshard_after_forward, its default),
  // or kept until the backward pass (false: one gather per micro-batch, the stage's weights
  // whole in memory at the turn, as Llama 3's training ran; Dubey et al. 2024, section 3.3.2).
  bool reshard_after_forward = true;
  // A given plan's stages, as the layer index each one ends at, and its interleaving: each
  // stage's memory then holds the micro-batches its schedule keeps in flight (1F1B: min(p - i, B)
  // at stage i of p). Empty: the stages are searched, and a stage reserves room for
  // min(stages that can follow it, B - 1) more micro-batches.
  std::vector<int> stage_ends;
  int interleave = 1;
  // The given plan's schedule, whose in-flight count its stages hold (stage_inflight_microbatches);
  // none: Megatron-LM's 1F1B, or interleaved with interleave > 1.
  std::optional<ScheduleKind> schedule;
  // Whether the data-parallel gradient all-reduce runs during the last micro-batch's backward
  // pass, as PyTorch DDP's buckets and XLA's asynchronous collectives do (Li et al., VLDB 2020),
  // so that only what outlasts that pass is exposed; none: as the cluster says
  // (Cluster::overlap_grad_sync). False: after it (Megatron-LM's "local" DDP).
  std::optional<bool> overlap_grad_sync;
  // A given plan (--plan): only this sub-mesh and logical mesh rows x cols are planned (0: all).
  Submesh fixed_submesh{0, 0};
  int fixed_mesh_rows = 0;
  // A given plan's context and expert parallelism (context_expert.h): cp > 1 plans a graph of
  // s / cp-token sequences (context_parallel_graph) and prices attention back to whole sequences
  // plus ring attention's exposed K/V passes; ep > 1 shards the experts ep ways and adds the
  // dispatch and combine all-to-alls. Both 1 outside a given plan.
  int context_parallel = 1, expert_parallel = 1;
  // A searched stage (no stage_ends) takes Korthikanti et al.'s sequence parallelism where its
  // logical mesh has a tensor-parallel axis (more than one column) and it is cheaper within the
  // stage's memory: both readings of each intra-op solve are kept and the stage chooses (the
  // StageMemoryOption list holds both). False (the default, Alpa's space): only `sequence_parallel`.
  bool choose_sequence_parallel = false;
  // Today's space: a searched plan may also run interleaved 1F1B (Megatron-LM's virtual
  // stages, v = 2 .. kMaxInterleave chunks per device): after the DP, one more DP per (v, p)
  // on that schedule's memory and closed form, the least total kept (InterJob). False: 1F1B.
  bool choose_interleave = false;
};
// The most chunks per device the planner tries (NeMo's published H100 recipes run up to 6).
constexpr int kMaxInterleave = 8;

// The sub-mesh shapes the stage costs plan on N x G: a given plan's one shape (fixed_submesh);
// on more than kAllSubmeshesMaxNodes nodes, the part-node shapes and the whole-node shapes whose
// node count divides N (Alpa's N + log2 G + 1 shapes would be 2,052 on 2,048 nodes, each with
// its logical meshes and an intra-op solve per distinct layer on each); else alpa_submeshes.
std::vector<Submesh> planned_submeshes(int nodes, int gpus_per_node, const InterOpOptions& options);
// 128 nodes: GPT-3 175B on 1,024 A100s (128 x 8) keeps Alpa's whole list, as published.
constexpr int kAllSubmeshesMaxNodes = 128;

// The micro-batches of activations stage `stage` (0-based) of `stages` holds at its peak under
// Megatron-LM's schedules, in units of the whole stage's activations: 1F1B min(stages - stage,
// microbatches); interleaved with v chunks, Megatron-LM's warm-up of (stages - stage - 1) * 2 +
// (v - 1) * stages chunk micro-batches plus the one in progress, capped at microbatches * v,
// each 1 / v of the stage (megatron/core/pipeline_parallel/schedules.py, interleaved warm-up).
double inflight_microbatches(int stage, int stages, int microbatches, int interleave);
// The same for a plan run under `schedule` (schedule_peak_inflight; v = interleave, or 2 for an
// interleaved schedule without one); none: inflight_microbatches.
double stage_inflight_microbatches(const std::optional<ScheduleKind>& schedule, int stage, int stages, int microbatches, int interleave);

// A stage's ZeRO stage and recomputation, chosen as the stage costs choose them: the default
// (options.zero_stage or 0, options' recomputation or none) when `inflight` micro-batches fit
// `capacity_bytes` beside `state_copies` copies of its model states; else the cheapest that
// fits; else the one leaving the most room. `given`: a given plan's stage, kept even when
// nothing fits one micro-batch (else `found` is false for it).
struct StageMemoryChoice {
  bool found = false, fits = false;
  double latency = 0;
  int max_succ = -1;                     // micro-batches beyond one its memory holds (-1: not even one)
  int zero_stage = 0;
  int mode = 0;                          // 0 none, 1 selective, 2 full recomputation
  double state_bytes = 0, room_bytes = 0, activation_bytes = 0;
};
// Appends the options of `sums` (every ZeRO stage and recomputation `options` leave open) that
// hold at least one micro-batch on one GPU of the table's capacity, marked `sequence_parallel`.
void append_memory_options(const StageMemorySums& sums, double capacity_bytes, const InterOpOptions& options, bool sequence_parallel,
                           std::vector<StageMemoryOption>& out);
// Drops every option another beats or equals on latency and each kind of memory (so it is
// never better at any in-flight count or copy count); the rest fastest first.
std::vector<StageMemoryOption> prune_memory_options(std::vector<StageMemoryOption> options);
// Writes a plan's chosen options (PipelineStage::memory_option) into the table's entries of its
// stages, so that the table's settings and memory are the plan's; latencies stay the plan's.
void apply_memory_options(StageCostTable& table, const InterOpPlan& plan);

StageMemoryChoice choose_stage_memory(const StageMemorySums& sums, double capacity_bytes, double inflight, const InterOpOptions& options,
                                      bool given, int state_copies = 1);

// The stage costs of `base` (from a model) with every stage's ZeRO stage and recomputation
// chosen again for `schedule`: each entry reserves room for the most micro-batches the schedule
// can have it hold (its position and the pipeline's length bounded by the layers and sub-meshes
// around it, as the stage costs' 1F1B reserve), DualPipe's stages for two copies of their
// states. Latencies, logical meshes and boundaries stay; no intra-op solve. A table without
// memory sums (a file) is returned as it is. Under 1F1B it equals `base`.
StageCostTable stage_costs_for_schedule(const StageCostTable& base, ScheduleKind schedule, int interleave, const InterOpOptions& options);

// Layers of a graph: contiguous op ranges ending where a single tensor crosses to the rest,
// merged (balancing FLOPs) to at most `max_layers`.
std::vector<std::pair<int, int>> cluster_layers(const Graph& g, int max_layers);

// The layers the inter-op pass slices, as op ranges, and each one's layers in the model's own
// numbering (1-based, like op names: transformer layer 7 is ln1_7 .. res2_7).
struct ModelLayers {
  std::vector<std::pair<int, int>> ops;
  std::vector<std::pair<int, int>> numbers;   // [first, last] model layer of each
  std::string source;                         // "model" (op names), "auto" (Alpa's construction) or "cuts"
};
// The model's own layers when its op names number them (a trailing number, non-decreasing
// along the graph; unnumbered ops join the neighbouring layer); nullopt otherwise.
std::optional<ModelLayers> named_layers(const Graph& g);
// Alpa's automatic layer construction: `n` layers whose heavy ops' FLOPs are at most 1.5x the
// average (Alpa's eps 0.5), the largest bytes entering a layer as small as possible, then their
// sum, then the spread of sizes. Numbered by the model's layers its ops belong to when the
// model numbers them (named_layers), else 1 .. n. Errors when the graph has fewer ops than `n`.
Result<ModelLayers> auto_layers(const Graph& g, int n);
// The layers a plan uses: auto_layers when options.layers > 0, else the model's own layers
// (consecutive ones merged evenly to at most options.max_layers), else cluster_layers.
Result<ModelLayers> plan_layers(const Graph& g, const InterOpOptions& options);

// The graph of ops [first, last] of a valid graph (a stage or a layer): tensors from outside
// become its inputs, and those made by earlier ops (needing a gradient) are appended to
// `activations`.
Graph layer_subgraph(const Graph& g, int first, int last, std::vector<std::string>& activations);

// The graph of one micro-batch: every model input's first dimension divided by B.
Result<Graph> microbatch_graph(const Graph& g, int microbatches);

// Stage costs of a model from the intra-op pass: each layer planned on every logical mesh of
// every sub-mesh (identical layers solved once), a stage's latency = its layers' compute and
// communication on its best logical mesh plus resharding between its layers. Runs a
// StageCostBuilder to the end.
Result<StageCostTable> stage_costs_from_model(const Graph& microbatch, const Cluster& cluster, const InterOpOptions& options,
                                             std::vector<std::pair<int, int>>* layers_out = nullptr);

// One layer's intra-op plan on one logical mesh, as the stage costs read it.
struct LayerPlan {
  double latency = std::numeric_limits<double>::infinity();   // compute + communication; infinite when the intra-op pass fails
  double param_memory = 0, activation_memory = 0;   // parameters + gradients; saved activations of one micro-batch
  // Memory as `autopar memory` counts it (evaluate_memory_choice): per ZeRO stage z, the model
  // states on a device (parameters, gradients, optimizer) and the latency change of its collectives.
  double state_bytes[4] = {0, 0, 0, 0};
  double zero_ms[4] = {0, 0, 0, 0};
  double input_bytes = 0;                // the layer's input on a device: all recomputation keeps of it
  double recompute_ms = 0;               // recomputation's second forward pass (collectives and compute)
  double selective_ms = 0;               // selective recomputation: the attention cores' forward once more
  double selective_bytes = 0;            // activations of one micro-batch under selective recomputation
  double ring_exposed_ms = 0;            // context parallelism: the ring's K/V passes not hidden by attention (forward and backward)
  double all_to_all_ms = 0;              // expert parallelism: dispatch and combine, forward and backward
  double gathered_bytes = 0;             // ZeRO 3: the layer's weights gathered on a device (16-bit, after tensor parallelism)
  ShardingSpec out_spec, in_spec;        // of the tensor leaving / entering the layer
};

// Part of a stage-cost table: the entries computed by some of the (sub-mesh, logical mesh) pairs
// (a StageCostBuilder given a share), with the pair that set each entry. Pairs are independent
// intra-op solves, so parts can be computed in parallel (the page's worker pool) and merged.
struct StageCostPart {
  StageCostTable table;                  // entries no pair of the share set stay infeasible
  std::vector<int> set_by;               // latency indexing: the pair that set the entry (-1: none)
  int units = 0, reused = 0;             // units of work done, intra-op solves reused
};
// Merges parts of one model's table (their shares covering every pair once) into the table the
// whole builder makes, bit for bit: an entry takes the least latency, ties going to the lower
// pair, as the whole builder keeps the first pair (in order) with the least latency. Errors when
// the parts do not have the same shape.
Result<StageCostTable> merge_stage_cost_parts(const std::vector<StageCostPart>& parts);
// A part as JSON (set entries only, doubles written exactly) and back; errors name the path.
Json stage_cost_part_to_json(const StageCostPart& part);
Result<StageCostPart> stage_cost_part_from_json(const Json& j);

// stage_costs_from_model a bounded piece at a time, so that a page can spread it over frames.
// A unit of work is one intra-op plan of a distinct layer on one (sub-mesh, logical mesh) pair,
// or the stage sums of one pair once its layers are planned; stepped to the end in slices of
// any size it does the same computations in the same order, so the table is bit-identical.
class StageCostBuilder {
 public:
  // Groups the layers and lists the (sub-mesh, logical mesh) pairs; no planning yet. With a
  // share (index, count), only the pairs p with p % count == index are planned (finish_part).
  StageCostBuilder(Graph microbatch, Cluster cluster, InterOpOptions options, int share_index = 0, int share_count = 1);
  // Does at most `max_units` more units of work; returns done().
  bool step(int max_units);
  // True when every unit is done or an error stopped the work.
  bool done() const { return error_.has_value() || pair_ == pairs_.size(); }
  // Units done so far; never decreases.
  int units_done() const { return units_done_; }
  // Units in all (known from the start; units_done() reaches it unless an error stops the work).
  int units_total() const { return units_total_; }
  // The layers: op ranges [first, last] of the micro-batch graph.
  const std::vector<std::pair<int, int>>& layers() const { return layers_; }
  // Each layer's first and last layer in the model's numbering.
  const std::vector<std::pair<int, int>>& layer_numbers() const { return numbers_; }
  // Intra-op solves reused from an identical layer planned before (structural fingerprint).
  int reused_solves() const { return reused_; }
  // ILP solves answered from the memo (a problem equal, number for number, to one solved before).
  int memo_hits() const { return ilp_cache_.hits(); }
  // The micro-batch graph the layers index.
  const Graph& graph() const { return graph_; }
  // The table, or the first error; steps to the end first when not done.
  Result<StageCostTable> finish();
  // The share's part of the table (the whole table when the share is all), or the first error;
  // steps to the end first when not done.
  Result<StageCostPart> finish_part();

 private:
  struct MeshPair {                      // one logical mesh of one sub-mesh
    size_t submesh = 0;
    DeviceMesh mesh;
  };
  // Plans one layer on pair_'s mesh: its own best plan, or its batch-split plan.
  void plan_layer(int layer, bool batch_split = false);
  // Gives batch_plans_ a plan for each layer where it can lower a stage's cost (others: none).
  void plan_batch_split_layers(const DeviceMesh& mesh);
  // Resharding layer `layer`'s input from prev's output layout to next's, and its gradient back.
  double reshard_between(const LayerPlan& prev, const LayerPlan& next, int layer, const DeviceMesh& mesh) const;
  void add_stages(const MeshPair& pair);
  Graph graph_;
  Cluster cluster_;
  InterOpOptions options_;
  std::vector<std::pair<int, int>> layers_;
  std::vector<std::pair<int, int>> numbers_;
  int reused_ = 0;
  std::vector<int> same_as_;             // per layer: the first layer with the same structure (shares its plan)
  std::vector<char> in_block_;           // per op of the graph: whether it is in the model's repeating blocks (find_layers), which recomputation reruns
  std::vector<MeshPair> pairs_;
  StageCostTable table_;
  size_t pair_ = 0;                      // the pair being planned
  int share_index_ = 0, share_count_ = 1; // the pairs planned: p % share_count_ == share_index_
  std::vector<int> set_by_;              // latency indexing: the pair that set the entry (-1: none)
  void skip_other_pairs();               // moves pair_ to the share's next pair
  int layer_ = 0;                        // its next layer to plan; layers() size: its stage sums are next
  // The layers of pair_ planned so far: each layer's own best plan, and (where it can help) its
  // best plan with the batch split over every device, a layout consecutive layers share, so a
  // stage can chain them without resharding (add_stages picks per layer).
  std::vector<LayerPlan> plans_, batch_plans_;
  // The same solves read with sequence parallelism (InterOpOptions::choose_sequence_parallel),
  // where the mesh has a tensor-parallel axis; infinite latency elsewhere.
  std::vector<LayerPlan> sp_plans_, sp_batch_plans_;
  int units_done_ = 0, units_total_ = 0;
  IlpSolveCache ilp_cache_;              // the layers' ILP solves, for problems that recur bit for bit
  std::optional<Error> error_;           // why the work stopped early
};

}  // namespace autopar
