// Alpa's stage costs built from the model (StageCostBuilder, section 5.2): every layer solved by
// the intra-op pass on every logical mesh, summed per stage. Apart from the DP (inter_op.cpp)
// because it solves the ILP: a program that only runs the DP on a table links no GLPK.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "cost_model.h"
#include "device_mesh.h"
#include "inter_op.h"
#include "intra_op.h"
#include "op_kinds.h"

namespace autopar {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Bytes of the tensors ops [0, cut] produce that ops after `cut` read (each tensor once).
double crossing_bytes(const Graph& g, int cut) {
  double bytes = 0;
  std::set<int> seen;
  for (int v = cut + 1; v < int(g.ops.size()); ++v) {
    const Op& op = g.ops[size_t(v)];
    for (size_t k = 0; k < op.inputs.size(); ++k)
      if (op.producers[k] >= 0 && op.producers[k] <= cut && seen.insert(op.producers[k]).second) bytes += double(tensor_bytes(op.inputs[k]));
  }
  return bytes;
}

}  // namespace

namespace {

// A structural fingerprint: identical layers (the blocks of a transformer) share their plans.
std::string layer_signature(const Graph& g, int first, int last) {
  std::string s;
  for (int v = first; v <= last; ++v) {
    const Op& op = g.ops[size_t(v)];
    s += op_kind_name(op.spec.kind);
    s += op.spec.activation;
    for (const auto& [k, val] : op.spec.attrs) s += k + std::to_string(val);
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const int p = op.producers[k];
      s += p >= first && p <= last ? "<" + std::to_string(p - first) : "<in" + shape_to_string(op.inputs[k].shape) + dtype_name(op.inputs[k].dtype);
    }
    s += shape_to_string(op.output.shape) + ";";
  }
  return s;
}

// Compute time of an op (forward and backward, cost_model.h) when `split` devices share its work.
double op_compute_ms(const Op& op, int64_t split, const Cluster& c) { return op_train_ms(c.gpu, op, 1.0 / double(split)); }

}  // namespace

StageCostBuilder::StageCostBuilder(Graph microbatch, Cluster cluster, InterOpOptions options, int share_index, int share_count)
    : graph_(std::move(microbatch)), cluster_(std::move(cluster)), options_(std::move(options)) {
  share_count_ = std::max(1, share_count);
  share_index_ = std::clamp(share_index, 0, share_count_ - 1);
  auto layers = plan_layers(graph_, options_);
  if (!layers.ok()) {
    error_ = layers.error();
    return;
  }
  layers_ = layers.value().ops;
  numbers_ = layers.value().numbers;
  in_block_.assign(graph_.ops.size(), 0);
  for (const auto& [first, last] : find_layers(graph_).layers)
    for (int v = first; v <= last; ++v) in_block_[size_t(v)] = 1;
  const int L = int(layers_.size());
  table_.reset(L, cluster_.nodes, cluster_.gpus_per_node, alpa_submeshes(cluster_.nodes, cluster_.gpus_per_node));
  table_.has_boundaries = true;
  table_.intra_link = cluster_.intra_node;
  table_.inter_link = cluster_.inter_node;
  for (int l = 0; l + 1 < L; ++l) table_.cut_bytes[size_t(l)] = crossing_bytes(graph_, layers_[size_t(l)].second);
  // Identical layers (the blocks of a transformer) are planned once per logical mesh.
  std::map<std::string, int> first_with;
  int distinct = 0;
  for (int l = 0; l < L; ++l) {
    auto [it, added] = first_with.emplace(layer_signature(graph_, layers_[size_t(l)].first, layers_[size_t(l)].second), l);
    same_as_.push_back(it->second);
    distinct += added;
  }
  for (size_t m = 0; m < table_.submeshes.size(); ++m) {
    const Submesh sm = table_.submeshes[m];
    if (options_.mode == "intra-only" && !(sm.nodes == cluster_.nodes && sm.gpus == cluster_.gpus_per_node)) continue;
    if (options_.fixed_submesh.devices() > 0 && !(sm == options_.fixed_submesh)) continue;
    Cluster sub = cluster_;
    sub.nodes = sm.nodes;
    sub.gpus_per_node = sm.gpus;
    for (int r = 1; r <= sm.devices(); ++r) {
      if (sm.devices() % r) continue;
      if (options_.fixed_mesh_rows > 0 && r != options_.fixed_mesh_rows) continue;
      auto mesh = mesh_from_cluster(r, sm.devices() / r, sub);
      if (!mesh.ok()) {
        error_ = mesh.error();
        return;
      }
      pairs_.push_back({m, mesh.value()});
    }
  }
  // Per pair: its distinct layers, then its stage sums. The cost of the whole table: the pairs
  // are the sub-mesh shapes (log2 G + N on N x G) times their logical meshes (the divisors of
  // each one's device count: 1,746 pairs on 128 x 8), each with an intra-op solve per distinct
  // layer (2 for GPT-3's 32 merged layers; the other 30 are reused) and L^2 / 2 stage sums.
  // The intra-op solves dominate (an ILP of a few ms each); the sums are O(pairs x L^2).
  int shared_pairs = 0;
  for (size_t p = 0; p < pairs_.size(); ++p) shared_pairs += int(p % size_t(share_count_)) == share_index_;
  units_total_ = shared_pairs * (distinct + 1);
  plans_.resize(size_t(L));
  batch_plans_.resize(size_t(L));
  set_by_.assign(table_.latency.size(), -1);
  skip_other_pairs();
}

void StageCostBuilder::skip_other_pairs() {
  while (pair_ < pairs_.size() && int(pair_ % size_t(share_count_)) != share_index_) ++pair_;
}

bool StageCostBuilder::step(int max_units) {
  const int L = int(layers_.size());
  for (int n = 0; n < max_units && !done(); ++n) {
    // Repeated layers take the plan of their first occurrence (planned earlier on this pair).
    while (layer_ < L && same_as_[size_t(layer_)] != layer_) {
      plans_[size_t(layer_)] = plans_[size_t(same_as_[size_t(layer_)])];
      ++layer_;
      ++reused_;
    }
    if (layer_ < L) {
      plan_layer(layer_);
      ++layer_;
    } else {
      add_stages(pairs_[pair_]);
      ++pair_;
      skip_other_pairs();
      layer_ = 0;
    }
    ++units_done_;
  }
  return done();
}

namespace {

// One layer's intra-op plan on `mesh`: its latency (communication and compute), memory and
// boundary layouts; infinite latency when the solve fails.
// Ops outside tensor parallelism's column/row pairs that sequence parallelism splits along the
// sequence over the tensor-parallel group (Korthikanti et al. 2022, section 4.2.2: LayerNorm,
// dropout and the residual adds).
bool sequence_parallel_kind(OpKind k) {
  return k == OpKind::layernorm || k == OpKind::rmsnorm || k == OpKind::add || k == OpKind::dropout;
}

// `in_block` (per op of sg): whether the op belongs to the model's repeating blocks; the others
// (embedding, final norm, output head, loss) are not recomputed, as Megatron-LM checkpoints only
// its transformer layers (megatron/core/transformer/transformer_block.py, _checkpointed_forward).
LayerPlan solve_layer(const Graph& sg, const DeviceMesh& mesh, const IntraOpOptions& o, const Cluster& cluster, bool overlap_grad_sync,
                      bool sequence_parallel, const std::vector<char>& in_block) {
  LayerPlan lp;
  auto plan = plan_intra_op(sg, mesh, o);
  if (plan.ok()) {
    const auto& p = plan.value();
    // Sequence parallelism's collectives: each all-reduce of tensor parallelism becomes a
    // reduce-scatter and an all-gather, which move the same bytes over a ring as the all-reduce
    // (Korthikanti et al. 2022, section 4.2.2), so the objective's communication stands.
    lp.latency = p.objective;
    double backward_ms = 0, saved_all = 0, scores_all = 0, scores_here = 0;
    for (size_t v = 0; v < sg.ops.size(); ++v) {
      const Op& op = sg.ops[v];
      int64_t split = work_split(p.strategies[v][size_t(p.solution.choice[v])], mesh);
      if (sequence_parallel && sequence_parallel_kind(op.spec.kind)) split = std::max<int64_t>(split, mesh.devices());
      const double train = op_compute_ms(op, split, cluster);
      lp.latency += train;
      backward_ms += train - op_forward_ms(cluster.gpu, op, 1.0 / double(split));
      const SavedActivations sa = saved_activations(op);
      saved_all += double(sa.with_input_bytes + sa.with_output_bytes);
      if (op.spec.kind == OpKind::attention) {
        // Selective recomputation reruns the attention core's forward (QK^T, softmax, dropout,
        // attention over V) in the backward pass and does not keep its s x s tensors
        // (Korthikanti et al. 2022, section 5: the 5as^2b term of eq. 1).
        lp.selective_ms += op_forward_ms(cluster.gpu, op, 1.0 / double(split));
        scores_all += double(sa.with_output_bytes);
        scores_here += double(sa.with_output_bytes) / double(split);
      }
    }
    // The gradient sync (its 1 / B share per micro-batch in the objective) hides behind the last
    // micro-batch's backward pass up to that pass's length.
    if (overlap_grad_sync) lp.latency -= std::min(p.grad_sync_cost, backward_ms) * o.grad_sync_scale;
    lp.param_memory = p.param_memory_per_device;
    lp.activation_memory = p.activation_memory_per_device;
    const Precision precision = training_precision(sg);
    const StateBytesPerParam bp = state_bytes_per_param(precision, o.optimizer);
    for (int z = 0; z < 4; ++z) {
      const MemoryChoice c = evaluate_memory_choice(sg, p, o, z, false);
      lp.state_bytes[z] = c.memory.params_bytes + c.memory.grads_bytes + c.memory.optimizer_bytes;
      // The optimizer step, once per iteration (a 1 / B share per micro-batch), over the
      // parameters whose optimizer state this device holds (ZeRO shards them).
      const double updated = bp.optimizer > 0 ? c.memory.optimizer_bytes / double(bp.optimizer) : c.memory.params_bytes / double(bp.params);
      lp.zero_ms[z] = c.zero_cost + (cluster.optimizer_step ? o.grad_sync_scale * optimizer_step_ms(cluster.gpu, updated, o.optimizer, precision) : 0);
    }
    const MemoryChoice r = evaluate_memory_choice(sg, p, o, 0, true);
    lp.input_bytes = r.memory.input_bytes;
    lp.selective_bytes = std::max(0.0, lp.activation_memory - scores_here);
    if (sequence_parallel) {
      // Every activation of the layer split over the whole d x t mesh: Korthikanti et al. 2022,
      // eq. 4, sbh(34/t + 5as/(ht)) per layer (the 10sbh tensor parallelism left replicated is
      // split too); selective recomputation drops the scores, sbh * 34/t (eq. 5); full
      // recomputation keeps each layer's input split as well, 2sbh/t.
      const double devices = double(mesh.devices());
      lp.activation_memory = saved_all / devices;
      lp.selective_bytes = (saved_all - scores_all) / devices;
      double inputs_all = 0;
      std::set<std::string> counted;
      for (size_t v = 0; v < sg.ops.size(); ++v)
        for (size_t k = 0; k < sg.ops[v].inputs.size(); ++k)
          if (sg.ops[v].producers[k] < 0 && counted.insert(sg.ops[v].inputs[k].name).second) inputs_all += double(tensor_bytes(sg.ops[v].inputs[k]));
      lp.input_bytes = std::min(lp.input_bytes, inputs_all / devices);
    }
    lp.recompute_ms = r.recompute_comm + r.recompute_compute;
    // What recomputation would rerun of the ops outside the repeating blocks: their forward
    // compute, forward collectives and the resharding into them.
    for (size_t v = 0; v < sg.ops.size() && v < in_block.size(); ++v) {
      if (in_block[v]) continue;
      const Op& op = sg.ops[v];
      const OpStrategy& sv = p.strategies[v][size_t(p.solution.choice[v])];
      double skip = op_forward_ms(cluster.gpu, op, 1.0 / double(work_split(sv, mesh))) + sv.forward_comm + sv.input_reshard;
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        const int u = op.producers[k];
        if (u < 0) continue;
        const OpStrategy& su = p.strategies[size_t(u)][size_t(p.solution.choice[size_t(u)])];
        skip += reshard_cost(su.output, sv.inputs[k], op.inputs[k].shape, dtype_bytes(op.inputs[k].dtype), mesh);
      }
      lp.recompute_ms = std::max(0.0, lp.recompute_ms - skip);
    }
    lp.out_spec = p.strategies.back()[size_t(p.solution.choice.back())].output;
    lp.in_spec = p.strategies.front()[size_t(p.solution.choice.front())].inputs.front();
  }
  return lp;
}

}  // namespace

void StageCostBuilder::plan_layer(int layer, bool batch_split) {
  const DeviceMesh& mesh = pairs_[pair_].mesh;
  const auto [first, last] = layers_[size_t(layer)];
  std::vector<std::string> activations;
  Graph sg = layer_subgraph(graph_, first, last, activations);
  const std::vector<char> in_block(in_block_.begin() + first, in_block_.begin() + last + 1);
  IntraOpOptions o;
  o.solver = "auto";
  o.grad_sync_scale = 1.0 / options_.microbatches;   // synchronised once per iteration, not per micro-batch
  o.data_parallel_only = options_.mode == "inter-only";
  o.gradient_inputs = activations;
  o.gpu = cluster_.gpu;   // no capacity: memory is decided per stage (add_stages)
  o.optimizer = options_.optimizer;
  if (!batch_split) {
    plans_[size_t(layer)] = solve_layer(sg, mesh, o, cluster_, options_.overlap_grad_sync.value_or(cluster_.overlap_grad_sync), options_.sequence_parallel, in_block);
    return;
  }
  o.data_parallel_only = true;
  o.activations_batch_split = true;
  batch_plans_[size_t(layer)] = solve_layer(sg, mesh, o, cluster_, options_.overlap_grad_sync.value_or(cluster_.overlap_grad_sync), options_.sequence_parallel, in_block);
}

// Layers planned one by one choose layouts that can disagree, and the resharding between them
// can cost more than the layers; worse, a layer whose input arrives for free may take it
// replicated and compute everything on every device (the intra-op objective prices no compute):
// Wide-ResNet's down-sampling layers (lecture 6.3). Alpa plans a stage as a whole. Here a layer
// also gets its batch-split plan (a layout consecutive layers share) where that can help: its own
// plan takes a replicated input, or reshards to or from a neighbour's own plan.
void StageCostBuilder::plan_batch_split_layers(const DeviceMesh& mesh) {
  const int L = int(layers_.size());
  std::vector<char> planned(size_t(L), 0);
  for (int l = 0; l < L; ++l) {
    batch_plans_[size_t(l)] = LayerPlan{};   // infinite latency: not a choice
    const LayerPlan& own = plans_[size_t(l)];
    if (!std::isfinite(own.latency)) continue;
    bool replicated = !own.in_spec.dims.empty();
    for (AxisMask a : own.in_spec.dims) replicated = replicated && a == 0;
    const bool reshards = (l > 0 && reshard_between(plans_[size_t(l - 1)], own, l, mesh) > 0) ||
                          (l + 1 < L && reshard_between(own, plans_[size_t(l + 1)], l + 1, mesh) > 0);
    if (!replicated && !reshards) continue;
    const int same = same_as_[size_t(l)];
    if (same != l && planned[size_t(same)]) {
      batch_plans_[size_t(l)] = batch_plans_[size_t(same)];   // identical layers, identical plans
    } else {
      plan_layer(l, true);
    }
    planned[size_t(l)] = 1;
  }
}

namespace {

// A stage's sums over a chain of layer plans (add_stages).
struct StageSum {
  double lat = 0, amem = 0, kept = 0, largest = 0, recompute = 0, sel = 0, selective = 0;
  double states[4] = {0, 0, 0, 0}, zero_ms[4] = {0, 0, 0, 0};
  int first = 0;   // the plan the chain starts with (0: the layer's own, 1: batch-split)
  // Adds one layer's plan (its latency, memory and settings' costs).
  void add(const LayerPlan& lp) {
    lat += lp.latency;
    for (int z = 0; z < 4; ++z) {
      states[z] += lp.state_bytes[z];
      zero_ms[z] += lp.zero_ms[z];
    }
    amem += lp.activation_memory;
    kept += lp.input_bytes;
    largest = std::max(largest, lp.activation_memory);
    recompute += lp.recompute_ms;
    sel += lp.selective_bytes;
    selective += lp.selective_ms;
  }
};

}  // namespace

// Resharding layer l's input from `prev`'s output layout into `next`'s and its gradient back.
double StageCostBuilder::reshard_between(const LayerPlan& prev, const LayerPlan& next, int l, const DeviceMesh& mesh) const {
  const Tensor& t = graph_.ops[size_t(layers_[size_t(l)].first)].inputs[0];
  if (next.in_spec.dims.size() != t.shape.size() || prev.out_spec.dims.size() != t.shape.size()) return 0;
  return reshard_cost(prev.out_spec, next.in_spec, t.shape, dtype_bytes(t.dtype), mesh) +
         reshard_cost(next.in_spec, prev.out_spec, t.shape, dtype_bytes(t.dtype), mesh);
}

// The stage sums of one pair: every layer range [f, l] (L^2 / 2 of them, each extending the
// previous by one layer and its resharding), O(L^2).
void StageCostBuilder::add_stages(const MeshPair& pair) {
  plan_batch_split_layers(pair.mesh);
  const DeviceMesh& mesh = pair.mesh;
  const int L = int(layers_.size()), m = int(pair.submesh);
  const double capacity = cluster_.gpu.memory_capacity_bytes();
  const std::vector<LayerPlan>& plans = plans_;
  const std::vector<LayerPlan>& batch_plans = batch_plans_;
  StageCostTable& table = table_;
  // Resharding into layer l from layer l - 1, per (previous plan, this plan): it depends on the
  // two layers only, so once per pair rather than once per stage.
  std::vector<std::array<double, 4>> into(size_t(L), {0, 0, 0, 0});
  for (int l = 1; l < L; ++l)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k)
        into[size_t(l)][size_t(2 * j + k)] = reshard_between((j == 0 ? plans : batch_plans)[size_t(l - 1)], (k == 0 ? plans : batch_plans)[size_t(l)], l, mesh);
  // Stages: sums of their layers plus resharding between consecutive layers.
  for (int f = 0; f < L; ++f) {
    if (options_.mode == "intra-only" && f != 0) break;
    // The best chain of [f, l] ending in each layer's own plan (0) or its batch-split plan (1):
    // a stage picks per layer, paying the resharding between consecutive layers' layouts.
    StageSum chain[2];
    for (int l = f; l < L; ++l) {
      StageSum next[2];
      for (int k = 0; k < 2; ++k) {
        const LayerPlan& lp = (k == 0 ? plans : batch_plans)[size_t(l)];
        if (l == f) {
          next[k].first = k;
        } else {
          // From the cheaper chain into this layout (ties to the layers' own plans).
          double via[2];
          for (int j = 0; j < 2; ++j) via[j] = chain[j].lat + into[size_t(l)][size_t(2 * j + k)];
          next[k] = chain[via[1] < via[0] ? 1 : 0];
          next[k].lat = std::min(via[0], via[1]);
        }
        next[k].add(lp);
      }
      chain[0] = next[0];
      chain[1] = next[1];
      const StageSum& best = chain[1].lat < chain[0].lat ? chain[1] : chain[0];
      const double lat = best.lat, amem = best.amem, kept = best.kept, largest = best.largest, recompute = best.recompute;
      const double* states = best.states;
      const double* zero_ms = best.zero_ms;
      const LayerPlan& first_plan = (best.first == 0 ? plans : batch_plans)[size_t(f)];
      if (options_.mode == "intra-only" && l != L - 1) continue;
      if (!std::isfinite(lat)) continue;
      // The stage's ZeRO stage and recomputation (memory_model.h's accounting): its model states,
      // plus the activations of the micro-batches it holds in flight (under full recomputation
      // only their layer inputs, plus one layer's activations while it is recomputed). A given
      // plan's stage holds what its schedule keeps in flight (inflight_microbatches); a searched
      // stage reserves room for one more micro-batch per stage that can still follow it: at
      // most one per later layer, one per sub-mesh of its size the remaining GPUs make, and
      // B - 1 (1F1B never holds more micro-batches than there are).
      double inflight = 1;
      if (!options_.stage_ends.empty()) {
        const auto& ends = options_.stage_ends;
        const auto it = std::find(ends.begin(), ends.end(), l);
        const int k = int(it - ends.begin());
        if (it == ends.end() || (k == 0 ? f != 0 : ends[size_t(k - 1)] + 1 != f)) continue;   // not one of the plan's stages
        inflight = inflight_microbatches(k, int(ends.size()), options_.microbatches, options_.interleave);
      } else if (options_.mode != "intra-only") {
        const int size = table.submeshes[size_t(m)].devices();
        inflight = 1 + std::min({L - 1 - l, (cluster_.num_devices() - size) / size, std::max(0, options_.microbatches - 1)});
      }
      // Recomputation settings tried: 0 none, 1 selective, 2 full; the first is the default.
      int modes[2] = {options_.recompute >= 0 ? options_.recompute : options_.force_remat ? 2 : 0, 2};
      const int mode_count = options_.recompute >= 0 || options_.force_remat ? 1 : 2;
      const bool given = !options_.stage_ends.empty();
      double best_lat = kInf, best_room = -kInf;
      int best_succ = -2, best_z = 0, best_mode = modes[0];
      bool best_fits = false;
      for (int z = 0; z < 4; ++z)
        for (int mi = 0; mi < mode_count; ++mi) {
          const int mode = modes[mi];
          if (options_.zero_stage >= 0 && z != options_.zero_stage) continue;
          const double per_micro = mode == 0 ? amem : mode == 1 ? best.sel : kept;
          const double fixed = states[z] + (mode == 2 ? largest : 0);
          const double room = capacity - fixed;
          const bool fits = room >= inflight * per_micro;
          const int succ = room < per_micro ? -1 : per_micro > 0 ? int(std::min(1e6, std::floor((room - per_micro) / per_micro))) : int(1e6);
          const double option_lat = lat + zero_ms[z] + (mode == 2 ? recompute : mode == 1 ? best.selective : 0);
          const bool is_default = z == std::max(0, options_.zero_stage) && mode == modes[0];
          // The default when it fits; else the cheapest that fits; else the one leaving the most room.
          const double room_share = per_micro > 0 ? room / per_micro : room;
          bool take = best_succ == -2;
          if (!take && fits && !best_fits) take = true;
          else if (!take && fits && best_fits) take = !(best_z == std::max(0, options_.zero_stage) && best_mode == modes[0]) && (is_default || option_lat < best_lat);
          else if (!take && !fits && !best_fits) take = room_share > best_room || (room_share == best_room && option_lat < best_lat);
          if (take) {
            best_lat = option_lat;
            best_succ = succ;
            best_z = z;
            best_mode = mode;
            best_fits = fits;
            best_room = room_share;
          }
        }
      if (best_succ == -2 || (!given && best_succ < 0)) continue;   // searched: nothing fits even one micro-batch
      const bool best_r = best_mode == 2;
      const double best_act = best_mode == 0 ? amem : best_mode == 1 ? best.sel : kept;
      const size_t idx = table.index(f, l, m);
      if (best_lat < table.latency[idx]) {
        table.latency[idx] = best_lat;
        // A given plan's memory is checked against its stages' own in-flight counts (InterJob).
        table.max_succ_stages[idx] = given ? -1 : amem > 0 || best_r ? std::min(best_succ, int(1e6)) : -1;
        table.zero_stage[idx] = best_z;
        table.remat[idx] = char(best_mode == 2 ? 1 : best_mode == 1 ? 2 : 0);
        table.state_bytes[idx] = states[best_z];
        table.activation_room_bytes[idx] = capacity - states[best_z] - (best_r ? largest : 0);
        table.activation_bytes[idx] = best_act;
        table.logical_mesh[idx] = mesh.shape_string();
        set_by_[idx] = int(pair_);
        if (f > 0) {
          // Alpa's local all-gather: one copy arrives spread over the n devices (T / n each),
          // then all-gathers along the mesh axes the input's spec replicates over.
          // Both axis orders are tried: the data grows with each step, so the slow axis is
          // usually cheaper first (lecture 6.4's exercise).
          AxisMask used = 0;
          for (AxisMask a : first_plan.in_spec.dims) used = AxisMask(used | a);
          double best_ag = kInf;
          int replicas = 1;
          for (const auto& order : {std::pair<int, int>{1, 0}, std::pair<int, int>{0, 1}}) {
            double per_device = table.cut_bytes[size_t(f - 1)] / double(mesh.devices()), ag = 0;
            replicas = 1;
            for (int a : {order.first, order.second}) {
              const MeshAxis& axis = mesh.axis[a];
              if ((used & (1 << a)) || axis.size <= 1) continue;
              ag += all_gather_cost(axis, per_device * axis.size);
              per_device *= axis.size;
              replicas *= axis.size;
            }
            best_ag = std::min(best_ag, ag);
          }
          table.recv_allgather_ms[idx] = best_ag;
          table.recv_replicas[idx] = replicas;
        }
      }
    }
  }
}

Result<StageCostTable> StageCostBuilder::finish() {
  while (!step(std::numeric_limits<int>::max())) {}
  if (error_) return *error_;
  return table_;
}

Result<StageCostPart> StageCostBuilder::finish_part() {
  while (!step(std::numeric_limits<int>::max())) {}
  if (error_) return *error_;
  return StageCostPart{table_, set_by_, units_done_, reused_};
}

}  // namespace autopar
