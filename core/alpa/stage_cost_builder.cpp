// Alpa's stage costs built from the model (StageCostBuilder, section 5.2): every layer solved by
// the intra-op pass on every logical mesh, summed per stage. Apart from the DP (inter_op.cpp)
// because it solves the ILP: a program that only runs the DP on a table links no GLPK.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "context_expert.h"
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
  table_.reset(L, cluster_.nodes, cluster_.gpus_per_node, planned_submeshes(cluster_.nodes, cluster_.gpus_per_node, options_));
  table_.has_boundaries = true;
  table_.memory_sums.assign(table_.latency.size(), StageMemorySums{});
  table_.capacity_bytes = cluster_.gpu.memory_capacity_bytes();
  if (!options_.stage_ends.empty() && options_.schedule) table_.state_copies = schedule_parameter_copies(*options_.schedule);
  table_.intra_link = cluster_.intra_node;
  table_.inter_link = cluster_.inter_node;
  table_.nics = cluster_.nics();
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
      // A searched context or expert degree: the cp ranks are rows of the (d x cp) x t mesh, and
      // ep carves its groups out of the stage's GPUs (a given plan's sub-mesh is checked apart).
      if (options_.context_parallel > 1 && r % options_.context_parallel != 0) continue;
      if (options_.expert_parallel > 1 && sm.devices() % options_.expert_parallel != 0) continue;
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
  sp_plans_.resize(size_t(L));
  sp_batch_plans_.resize(size_t(L));
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
      sp_plans_[size_t(layer_)] = sp_plans_[size_t(same_as_[size_t(layer_)])];
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
// `cp` and `ep`: a given plan's context and expert parallelism (context_expert.h); `sg` is then
// of s / cp-token sequences and the mesh's rows are d x cp. `given`: the layer is part of a given
// plan, whose experts are held as its ep says even at ep = 1 (whole on every GPU, their states
// sharded by ZeRO over the stage's t * cp * d GPUs), not as the intra-op solve laid them out.
// `plan` is plan_intra_op's for sg on mesh: one solve serves both settings of sequence
// parallelism, which changes only the work split and activations read off the same strategies.
LayerPlan solve_layer(const Result<IntraOpPlan>& plan, const Graph& sg, const DeviceMesh& mesh, const IntraOpOptions& o, const Cluster& cluster, bool overlap_grad_sync,
                      bool sequence_parallel, bool reshard_after_forward, const std::vector<char>& in_block, int cp, int ep, bool given) {
  LayerPlan lp;
  if (plan.ok()) {
    const auto& p = plan.value();
    // Sequence parallelism's collectives: each all-reduce of tensor parallelism becomes a
    // reduce-scatter and an all-gather, which move the same bytes over a ring as the all-reduce
    // (Korthikanti et al. 2022, section 4.2.2), so the objective's communication stands.
    lp.latency = p.objective;
    double backward_ms = 0, forward_ms = 0, saved_all = 0, scores_all = 0, scores_here = 0;
    // Context and expert parallelism's additions (context_expert.h): the forward work a full
    // recomputation reruns, the expert gradients' sync that ep shrinks, the expert parameters.
    double cp_ep_forward_ms = 0, expert_sync_saved = 0, expert_elements = 0, extra_scores_here = 0;
    double expert_held = 0;                   // the expert weights' parameter bytes on a device, as the intra-op solve laid them out
    double expert_states[4] = {0, 0, 0, 0};   // per ZeRO stage: the expert weights' states on a device, as counted without ep
    double expert_updated[4] = {0, 0, 0, 0};  // and their elements whose optimizer state the device holds (it updates them)
    const Precision precision = training_precision(sg);
    const StateBytesPerParam bp = state_bytes_per_param(precision, o.optimizer, o.fp32_main_grads);
    for (size_t v = 0; v < sg.ops.size(); ++v) {
      const Op& op = sg.ops[v];
      const OpStrategy& chosen_s = p.strategies[v][size_t(p.solution.choice[v])];
      int64_t split = work_split(chosen_s, mesh);
      if (sequence_parallel && sequence_parallel_kind(op.spec.kind)) split = std::max<int64_t>(split, mesh.devices());
      double train = op_compute_ms(op, split, cluster);
      double forward = op_forward_ms(cluster.gpu, op, 1.0 / double(split));
      const SavedActivations sa = saved_activations(op, fused_attention(cluster.gpu));
      // With context parallelism a rank's queries meet every key of the sequence: cp blocks of
      // the s / cp x s / cp attention the graph holds (balanced by Megatron's 2 cp chunks), and
      // its scores are s / cp x s (cp times the graph's). K and V (and backward their gradients
      // too) pass around the ring in cp - 1 steps, each overlapped with one block's attention.
      const double attention_blocks = op.spec.kind == OpKind::attention ? double(cp) : 1.0;
      if (op.spec.kind == OpKind::attention && cp > 1) {
        const int64_t heads = op.spec.attrs.at("heads");
        const int64_t kv = op.spec.attrs.count("kv_heads") ? op.spec.attrs.at("kv_heads") : heads;
        // The fused [b, s, (heads + 2 kv) head_dim] input: K and V are 2 kv of its heads + 2 kv parts.
        const double kv_bytes = double(tensor_bytes(op.inputs[0])) * double(2 * kv) / double(heads + 2 * kv) / double(split);
        const LinkSpec ring = group_link(cluster, mesh.cols(), cp);
        const double backward_block = train - forward;
        const double exposed_forward = ring_exposed_ms(cp, kv_bytes, forward, ring);
        const double exposed_backward = ring_exposed_ms(cp, 2 * kv_bytes, backward_block, ring);
        train = train * cp + exposed_forward + exposed_backward;
        lp.ring_exposed_ms += exposed_forward + exposed_backward;
        cp_ep_forward_ms += forward * (cp - 1) + exposed_forward;
        forward = forward * cp + exposed_forward;
        extra_scores_here += double(cp - 1) * double(sa.with_output_bytes) / double(split);
      }
      if (op.spec.kind == OpKind::moe && ep > 1) {
        // Expert parallelism: E / ep whole experts per GPU, each a GEMM over its tokens (balanced
        // routing assumed: every expert gets top_k x tokens / E of them), and the tokens' trips
        // to their experts' GPUs and back: two all-to-alls forward (dispatch, combine), two
        // backward, each GPU sending top_k of its tokens' hidden states.
        const int64_t experts = op.spec.attrs.at("experts"), top_k = op.spec.attrs.at("top_k");
        const double local = std::max(1.0, double(experts) / double(ep));
        const double forward_experts = local * op_forward_ms(cluster.gpu, op, 1.0 / (double(split) * local));
        const double train_experts = local * op_compute_ms(op, int64_t(double(split) * local), cluster);
        const double a2a = expert_all_to_all_ms(ep, double(tensor_bytes(op.inputs[0])) / double(split) * double(top_k), group_link(cluster, 1, ep));
        cp_ep_forward_ms += forward_experts - forward + 2 * a2a;
        train = train_experts + 4 * a2a;
        lp.all_to_all_ms += 4 * a2a;
        forward = forward_experts + 2 * a2a;
      }
      if (op.spec.kind == OpKind::moe && (ep > 1 || given)) {
        // The expert weights as the intra-op solve counted them, replaced below by the plan's
        // rule (ep_states). Their gradients reduce over the n / ep GPUs holding the same
        // experts, 1 / ep of them each.
        double all_bytes = 0, expert_bytes = 0;
        std::vector<double> states[4], updated[4];
        for (int z = 0; z < 4; ++z) {
          states[z] = param_state_bytes(op, chosen_s, mesh, bp, z);
          updated[z] = param_state_bytes(op, chosen_s, mesh, StateBytesPerParam{0, 0, 1}, z);   // one "byte" per element held
        }
        const std::vector<double> held = param_state_bytes(op, chosen_s, mesh, StateBytesPerParam{bp.params, 0, 0}, 0);
        for (size_t k = 0; k < op.params.size(); ++k) {
          const Tensor& t = op.params[k];
          all_bytes += double(tensor_bytes(t));
          if (t.shape.size() == 3) {   // the expert weights [E, ...]; the gate [h, E] stays whole
            expert_bytes += double(tensor_bytes(t));
            expert_elements += double(num_elements(t.shape));
            expert_held += held[k];
            for (int z = 0; z < 4; ++z) {
              expert_states[z] += states[z][k];
              expert_updated[z] += updated[z][k];
            }
          }
        }
        if (all_bytes > 0 && ep > 1) expert_sync_saved += chosen_s.grad_sync * expert_bytes / all_bytes * (1.0 - 1.0 / ep);
      }
      lp.latency += train;
      backward_ms += train - forward;
      forward_ms += forward;
      saved_all += double(sa.with_input_bytes) + double(sa.with_output_bytes) * attention_blocks;
      if (op.spec.kind == OpKind::attention) {
        // Selective recomputation reruns the attention core's forward (QK^T, softmax, dropout,
        // attention over V) in the backward pass and does not keep its s x s tensors
        // (Korthikanti et al. 2022, section 5: the 5as^2b term of eq. 1).
        lp.selective_ms += forward;
        scores_all += double(sa.with_output_bytes) * attention_blocks;
        scores_here += double(sa.with_output_bytes) * attention_blocks / double(split);
      }
    }
    // The gradient sync (its 1 / B share per micro-batch in the objective) hides behind the last
    // micro-batch's backward pass up to that pass's length.
    lp.latency -= expert_sync_saved * o.grad_sync_scale;
    if (overlap_grad_sync) lp.latency -= std::min(p.grad_sync_cost - expert_sync_saved, backward_ms) * o.grad_sync_scale;
    lp.param_memory = p.param_memory_per_device;
    lp.activation_memory = p.activation_memory_per_device + extra_scores_here;
    // Each GPU holds E / ep experts: what ZeRO leaves whole of their parameters, gradients and
    // optimizer state drops by ep; what it shards, it shards over the n / ep GPUs holding the
    // same experts (Megatron's expert data-parallel group), 1 / ep of the elements over 1 / ep
    // of the GPUs: E b / n per GPU, as without ep. The intra-op pass's own count of the expert
    // weights (whole on every device, expert_states) is replaced by that.
    const double n = double(mesh.devices()), e = double(std::max(1, ep));
    auto ep_states = [&](int z) {
      return expert_elements / e * (bp.params * (z >= 3 ? e / n : 1.0) + bp.grads * (z >= 2 ? e / n : 1.0) + bp.optimizer * (z >= 1 ? e / n : 1.0));
    };
    // Parameters and gradients without ZeRO (gradients as many elements as parameters).
    lp.param_memory += (expert_elements / e * double(bp.params) - expert_held) * double(bp.params + bp.grads) / double(bp.params);
    for (int z = 0; z < 4; ++z) {
      const MemoryChoice c = evaluate_memory_choice(sg, p, o, z, false);
      lp.state_bytes[z] = c.memory.params_bytes + c.memory.grads_bytes + c.memory.optimizer_bytes - expert_states[z] + ep_states(z);
      // The optimizer step, once per iteration (a 1 / B share per micro-batch), over the
      // parameters whose optimizer state this device holds (ZeRO shards them).
      const double updated = (bp.optimizer > 0 ? c.memory.optimizer_bytes / double(bp.optimizer) : c.memory.params_bytes / double(bp.params)) -
                             expert_updated[z] + expert_elements / (z >= 1 ? n : e);
      lp.zero_ms[z] = c.zero_cost + (cluster.optimizer_step ? o.grad_sync_scale * optimizer_step_ms(cluster.gpu, updated, o.optimizer, precision) : 0);
      if (z == 0) lp.gathered_bytes = c.memory.params_bytes - expert_held + expert_elements / e * double(bp.params);
      if (z == 3) {
        // ZeRO 3 as FSDP and Megatron-FSDP run it (Zhao et al., "PyTorch FSDP", VLDB 2023,
        // section 3.3: backward and forward prefetch): each micro-batch all-gathers the
        // layer's weights ahead of its forward pass (and again ahead of its backward pass
        // when resharded after the forward) and reduce-scatters its gradients during the
        // backward pass; on their own stream, so only what outlasts the pass they overlap is
        // exposed. This replaces the data-parallel sync the objective priced (less the part
        // of it that hid behind the last backward pass).
        const double gather = c.zero3_gather_ms, reduce = c.zero3_reduce_ms;
        const double hidden = overlap_grad_sync ? std::min(p.grad_sync_cost, backward_ms) * o.grad_sync_scale : 0;
        const double exposed = std::max(0.0, gather - forward_ms) +
                               std::max(0.0, (reshard_after_forward ? gather : 0.0) + reduce - backward_ms);
        lp.zero_ms[z] = exposed - (c.zero3_replaced_ms - std::min(hidden, c.zero3_replaced_ms)) +
                        (cluster.optimizer_step ? o.grad_sync_scale * optimizer_step_ms(cluster.gpu, updated, o.optimizer, precision) : 0);
      }
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
    lp.recompute_ms = r.recompute_comm + r.recompute_compute + cp_ep_forward_ms;
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
  o.expert_parallel = options_.expert_parallel;
  o.fp32_main_grads = options_.distributed_optimizer;
  o.ilp_cache = &ilp_cache_;
  // Sequence parallelism where it is searched and the logical mesh has a tensor-parallel axis
  // (more than one column): the same solve read both ways (add_stages keeps the better).
  const bool both_sp = options_.stage_ends.empty() && options_.choose_sequence_parallel && !options_.sequence_parallel && mesh.cols() > 1;
  const bool overlap = options_.overlap_grad_sync.value_or(cluster_.overlap_grad_sync);
  if (batch_split) {
    o.data_parallel_only = true;
    o.activations_batch_split = true;
  }
  const Result<IntraOpPlan> plan = plan_intra_op(sg, mesh, o);
  auto read = [&](bool sp) {
    return solve_layer(plan, sg, mesh, o, cluster_, overlap, sp, options_.reshard_after_forward, in_block, options_.context_parallel, options_.expert_parallel,
                       !options_.stage_ends.empty());
  };
  (batch_split ? batch_plans_ : plans_)[size_t(layer)] = read(options_.sequence_parallel);
  (batch_split ? sp_batch_plans_ : sp_plans_)[size_t(layer)] = both_sp ? read(true) : LayerPlan{};
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
    sp_batch_plans_[size_t(l)] = LayerPlan{};
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
      sp_batch_plans_[size_t(l)] = sp_batch_plans_[size_t(same)];
    } else {
      plan_layer(l, true);
    }
    planned[size_t(l)] = 1;
  }
}

namespace {

// A stage's sums over a chain of layer plans (add_stages).
struct StageSum {
  double lat = 0, amem = 0, kept = 0, largest = 0, recompute = 0, sel = 0, selective = 0, ring = 0, a2a = 0;
  double gathered = 0, gathered_largest = 0;   // ZeRO 3's gathered weights: all the layers', the largest layer's
  double states[4] = {0, 0, 0, 0}, zero_ms[4] = {0, 0, 0, 0};
  int first = 0;   // the plan the chain starts with (0: the layer's own, 1: batch-split)
  // Partial recomputation (recompute_layers): over the layers added so far, those recomputed
  // (the first `recomputed_per_chunk` of each chunk of `chunk` layers) and their share of the
  // sums above: their inputs kept and rerun forward, against the others' activations.
  int count = 0, chunk = 0, recomputed_per_chunk = 0;
  double part_kept = 0, part_amem = 0, part_recompute = 0, part_largest = 0;
  // Adds one layer's plan (its latency, memory and settings' costs).
  void add(const LayerPlan& lp) {
    if (recomputed_per_chunk > 0 && (chunk <= 0 || count % chunk < recomputed_per_chunk)) {
      part_kept += lp.input_bytes;
      part_amem += lp.activation_memory;
      part_recompute += lp.recompute_ms;
      part_largest = std::max(part_largest, lp.activation_memory);
    }
    ++count;
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
    ring += lp.ring_exposed_ms;
    a2a += lp.all_to_all_ms;
    gathered += lp.gathered_bytes;
    gathered_largest = std::max(gathered_largest, lp.gathered_bytes);
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
  StageCostTable& table = table_;
  // The readings of this pair's solves: without sequence parallelism (or as a given plan sets
  // it), and with it where it is searched (sp_plans_ finite).
  const std::vector<LayerPlan>* own[2] = {&plans_, &sp_plans_};
  const std::vector<LayerPlan>* split[2] = {&batch_plans_, &sp_batch_plans_};
  int variants = 1;
  for (const LayerPlan& lp : sp_plans_)
    if (std::isfinite(lp.latency)) variants = 2;
  // Resharding into layer l from layer l - 1, per (previous plan, this plan): it depends on the
  // two layers' layouts only (the same in both readings), so once per pair rather than per stage.
  std::vector<std::array<double, 4>> into(size_t(L), {0, 0, 0, 0});
  for (int l = 1; l < L; ++l)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k)
        into[size_t(l)][size_t(2 * j + k)] = reshard_between((j == 0 ? plans_ : batch_plans_)[size_t(l - 1)], (k == 0 ? plans_ : batch_plans_)[size_t(l)], l, mesh);
  // A given plan's table holds its own stages only (the entries below are set for them alone),
  // so only the ranges from a stage's first layer to its last are summed: per layer, the last
  // layer of the plan's stage starting there (-1: none starts there).
  std::vector<int> given_end(size_t(L), -1);
  for (size_t k = 0; k < options_.stage_ends.size(); ++k) {
    const int start = k == 0 ? 0 : options_.stage_ends[k - 1] + 1;
    if (start >= 0 && start < L) given_end[size_t(start)] = options_.stage_ends[k];
  }
  // Stages: sums of their layers plus resharding between consecutive layers.
  for (int f = 0; f < L; ++f) {
    if (options_.mode == "intra-only" && f != 0) break;
    if (!options_.stage_ends.empty() && given_end[size_t(f)] < f) continue;
    // The best chain of [f, l] ending in each layer's own plan (0) or its batch-split plan (1):
    // a stage picks per layer, paying the resharding between consecutive layers' layouts.
    StageSum chain[2][2];
    // A given plan's stage starting at f: its layers and chunks, for recompute_layers.
    int chunk_layers = 0;
    if (options_.recompute_layers > 0 && !options_.stage_ends.empty()) {
      const auto& ends = options_.stage_ends;
      for (size_t k = 0; k < ends.size(); ++k)
        if ((k == 0 ? 0 : ends[k - 1] + 1) == f) chunk_layers = (ends[k] - f + 1) / std::max(1, options_.interleave);
    }
    for (auto& per_variant : chain)
      for (StageSum& c : per_variant) {
        c.chunk = chunk_layers;
        c.recomputed_per_chunk = chunk_layers > 0 ? options_.recompute_layers : 0;
      }
    const int last_l = options_.stage_ends.empty() ? L - 1 : std::min(L - 1, given_end[size_t(f)]);
    for (int l = f; l <= last_l; ++l) {
      for (int v = 0; v < variants; ++v) {
        StageSum next[2];
        for (int k = 0; k < 2; ++k) {
          const LayerPlan& lp = (k == 0 ? *own[v] : *split[v])[size_t(l)];
          if (l == f) {
            next[k].first = k;
            next[k].chunk = chain[v][k].chunk;
            next[k].recomputed_per_chunk = chain[v][k].recomputed_per_chunk;
          } else {
            // From the cheaper chain into this layout (ties to the layers' own plans).
            double via[2];
            for (int j = 0; j < 2; ++j) via[j] = chain[v][j].lat + into[size_t(l)][size_t(2 * j + k)];
            next[k] = chain[v][via[1] < via[0] ? 1 : 0];
            next[k].lat = std::min(via[0], via[1]);
          }
          next[k].add(lp);
        }
        chain[v][0] = next[0];
        chain[v][1] = next[1];
      }
      if (options_.mode == "intra-only" && l != L - 1) continue;
      // The stage's ZeRO stage and recomputation (memory_model.h's accounting): its model states,
      // plus the activations of the micro-batches it holds in flight (under full recomputation
      // only their layer inputs, plus one layer's activations while it is recomputed). A given
      // plan's stage holds what its schedule keeps in flight (inflight_microbatches); a searched
      // stage reserves room for one more micro-batch per stage that can still follow it: at
      // most one per later layer, one per sub-mesh of its size the remaining GPUs make, and
      // B - 1 (1F1B never holds more micro-batches than there are). The DP then chooses again
      // per position from the entry's memory options (StageMemoryOption).
      double inflight = 1;
      if (!options_.stage_ends.empty()) {
        const auto& ends = options_.stage_ends;
        const auto it = std::find(ends.begin(), ends.end(), l);
        const int k = int(it - ends.begin());
        if (it == ends.end() || (k == 0 ? f != 0 : ends[size_t(k - 1)] + 1 != f)) continue;   // not one of the plan's stages
        inflight = stage_inflight_microbatches(options_.schedule, k, int(ends.size()), options_.microbatches, options_.interleave);
      } else if (options_.mode != "intra-only") {
        const int size = table.submeshes[size_t(m)].devices();
        inflight = 1 + std::min({L - 1 - l, (cluster_.num_devices() - size) / size, std::max(0, options_.microbatches - 1)});
      }
      const bool given = !options_.stage_ends.empty();
      const int copies = given && options_.schedule ? schedule_parameter_copies(*options_.schedule) : 1;
      StageMemorySums sums[2];
      StageMemoryChoice choice[2];
      int pick = -1;
      std::vector<StageMemoryOption> options;
      for (int v = 0; v < variants; ++v) {
        const StageSum& best = chain[v][1].lat < chain[v][0].lat ? chain[v][1] : chain[v][0];
        if (!std::isfinite(best.lat)) continue;
        StageMemorySums& su = sums[v];
        su.latency = best.lat;
        for (int z = 0; z < 4; ++z) {
          su.states[z] = best.states[z];
          su.zero_ms[z] = best.zero_ms[z];
        }
        su.activation = best.amem;
        su.selective = best.sel;
        su.kept = best.kept;
        su.largest = best.largest;
        su.recompute_ms = best.recompute;
        su.selective_ms = best.selective;
        if (best.recomputed_per_chunk > 0 && best.recomputed_per_chunk < best.chunk) {
          // Megatron-LM's block method (megatron/core/transformer/transformer_block.py,
          // _checkpointed_forward, recompute_method "block"): the first N layers of each chunk keep
          // only their input and rerun their forward; the others keep every activation (Korthikanti
          // et al. 2022, section 5). Priced as full recomputation of those layers only.
          su.kept = best.part_kept + (best.amem - best.part_amem);
          su.recompute_ms = best.part_recompute;
          su.largest = best.part_largest;
        }
        // ZeRO 3 holds gathered weights beside its shards: resharded after the forward pass, the
        // layer computing and the one prefetched (FSDP's limit of two all-gathers in flight), plus
        // one layer's unsharded gradients before their reduce-scatter; kept, every layer's weights
        // at the turn from forward to backward.
        su.buffers[3] = options_.reshard_after_forward ? 3 * best.gathered_largest : best.gathered + best.gathered_largest;
        choice[v] = choose_stage_memory(su, capacity, inflight, options_, given, copies);
        if (!choice[v].found) continue;                          // searched: nothing fits even one micro-batch
        if (!given) append_memory_options(su, capacity, options_, v == 1 || (options_.sequence_parallel && variants == 1), options);
        if (pick < 0 || choice[v].latency < choice[pick].latency) pick = v;
      }
      if (pick < 0) continue;
      const StageMemoryChoice& c = choice[pick];
      const StageSum& best = chain[pick][1].lat < chain[pick][0].lat ? chain[pick][1] : chain[pick][0];
      const LayerPlan& first_plan = (best.first == 0 ? *own[pick] : *split[pick])[size_t(f)];
      const size_t idx = table.index(f, l, m);
      if (c.latency < table.latency[idx]) {
        // A given plan's memory is checked against its stages' own in-flight counts (InterJob).
        table.set_memory_choice(idx, c);
        table.sequence_parallel[idx] = char(pick == 1 || options_.sequence_parallel);
        table.memory_sums[idx] = sums[pick];
        table.memory_options[idx] = prune_memory_options(std::move(options));
        table.ring_exposed_ms[idx] = best.ring;
        table.all_to_all_ms[idx] = best.a2a;
        table.logical_mesh[idx] = mesh.shape_string();
        set_by_[idx] = int(pair_);
        if (f > 0 && table.sequence_parallel[idx]) {
          // Sequence parallel: the layer input arrives split along the sequence over the tensor
          // axis as it is kept (Korthikanti et al. 2022, section 4.2.2; Megatron-LM sends each
          // rank's 1/t), and the layer's own all-gather (priced in it) rebuilds it: no copies to make.
          table.recv_allgather_ms[idx] = 0;
          table.recv_replicas[idx] = 1;
        } else if (f > 0) {
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
