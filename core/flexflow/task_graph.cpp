// Builds FlexFlow's task graph (section 5.1) and replaces one op's tasks in place for delta
// simulation (section 5.3). Task order keys are canonical so that a graph edited op by op
// simulates exactly like one built from scratch.
#include "task_graph.h"

#include <algorithm>
#include <cmath>

#include "cost_model.h"
#include "memory_model.h"
#include "regions.h"
#include "rng.h"

namespace autopar {

int flexflow_nics_per_node(const Cluster& cluster) { return std::max(1, cluster.nics()); }

int DeviceTopology::num_devices() const {
  return gpus + nodes * gpus_per_node * (gpus_per_node - 1) + nodes * (nodes - 1) * nics_per_node;
}

int DeviceTopology::link(int a, int b) const {
  int na = a / gpus_per_node, nb = b / gpus_per_node;
  if (na == nb) {
    int la = a % gpus_per_node, lb = b % gpus_per_node;
    return gpus + na * gpus_per_node * (gpus_per_node - 1) + la * (gpus_per_node - 1) + (lb < la ? lb : lb - 1);
  }
  const int nic = (a % gpus_per_node) * nics_per_node / gpus_per_node;
  return gpus + nodes * gpus_per_node * (gpus_per_node - 1) + (na * (nodes - 1) + (nb < na ? nb : nb - 1)) * nics_per_node + nic;
}

std::string DeviceTopology::name(int device) const {
  if (device < gpus) return "GPU " + std::to_string(device);
  int d = device - gpus;
  int intra = nodes * gpus_per_node * (gpus_per_node - 1);
  if (d < intra) {
    int per_node = gpus_per_node * (gpus_per_node - 1);
    int node = d / per_node, r = d % per_node;
    int la = r / (gpus_per_node - 1), lb = r % (gpus_per_node - 1);
    if (lb >= la) ++lb;
    int base = node * gpus_per_node;
    return "link " + std::to_string(base + la) + "->" + std::to_string(base + lb);
  }
  d -= intra;
  const int nic = d % nics_per_node;
  d /= nics_per_node;
  int na = d / (nodes - 1), nb = d % (nodes - 1);
  if (nb >= na) ++nb;
  std::string s = "network node " + std::to_string(na) + "->node " + std::to_string(nb);
  if (nics_per_node > 1) s += " NIC " + std::to_string(nic);
  return s;
}

namespace {

// Canonical order: op, then phase (0 activation transfers into the op, 1 forward, 2 gradient
// transfers out of the op, 3 backward, 4 parameter sync, 5 recomputed forward), then input,
// then two indices. ZeRO 3's weight gathers take input kGatherInput of phases 0 and 2, the
// all-gather after the update input 1 of phase 4.
enum Phase : uint64_t { kFwdTransfer = 0, kForward = 1, kBwdTransfer = 2, kBackward = 3, kSync = 4, kRecompute = 5 };
constexpr int kGatherInput = 1023;
uint64_t order_key(int op, Phase phase, int input, int a, int b) {
  return ((((uint64_t(op) * 8 + phase) * 1024 + uint64_t(input)) * 4096 + uint64_t(a)) * 4096) + uint64_t(b);
}

int64_t param_degree(const Op& op, const OpConfig& c) {
  int64_t d = 1;
  for (size_t j = 0; j < op.split_dims.size(); ++j)
    if (op.split_dims[j].kind == SplitKind::parameter) d *= c.degrees[j];
  return d;
}

// Index of the parameter shard a part holds: its coordinates on the parameter dimensions.
int shard_of(const Op& op, const OpConfig& c, int part) {
  int shard = 0;
  for (size_t j = 0; j < op.split_dims.size(); ++j)
    if (op.split_dims[j].kind == SplitKind::parameter) shard = shard * c.degrees[j] + part_coordinate(c, part, j);
  return shard;
}

}  // namespace

TaskGraph::TaskGraph(const Graph& graph, const Cluster& cluster, const Strategy& strategy, CostSettings cost)
    : graph_(graph), cluster_(cluster), strategy_(strategy), cost_(cost) {
  topo_.gpus = cluster.num_devices();
  topo_.nodes = cluster.nodes;
  topo_.gpus_per_node = cluster.gpus_per_node;
  topo_.nics_per_node = flexflow_nics_per_node(cluster);
  const size_t n = graph.ops.size();
  op_units_.resize(n);
  edges_of_op_.resize(n);
  fwd_slot_.resize(n);
  bwd_slot_.resize(n);
  op_templates_.resize(n);
  op_template_index_.resize(n);
  splits_.resize(n);
  template_of_op_.assign(n, -1);
  in_layer_.assign(n, 0);
  for (auto [first, last] : find_layers(graph).layers)
    for (int v = first; v <= last; ++v) in_layer_[size_t(v)] = 1;
  for (size_t c = 0; c < n; ++c)
    for (size_t j = 0; j < graph.ops[c].producers.size(); ++j) {
      int p = graph.ops[c].producers[j];
      if (p < 0) continue;  // model inputs are resident on every device; no gradient for them
      EdgeUnit e;
      e.producer = p;
      e.consumer = int(c);
      e.input = int(j);
      edges_of_op_[size_t(p)].push_back(edges_.size());
      if (p != int(c)) edges_of_op_[c].push_back(edges_.size());
      edges_.push_back(e);
    }
  build_all();
}

int64_t strategy_parts(const Strategy& strategy) {
  int64_t parts = 0;
  for (const OpConfig& c : strategy.ops) parts += c.parts();
  return parts;
}

Status check_simulation_size(int64_t parts, const std::string& what, const std::string& path) {
  if (parts <= kMaxSimulatedParts) return Ok{};
  return make_error(ErrorCode::too_large,
                    what + " splits the model's ops into " + std::to_string(parts) + " parts, and FlexFlow's simulator here builds task graphs of up to " +
                        std::to_string(kMaxSimulatedParts) + " parts (about 0.7 GB of tasks); simulate on fewer GPUs (a smaller cluster), a model "
                        "with fewer layers, or a strategy that splits fewer ops (Alpa's planners, inter and intra, have no such limit)",
                    path);
}

void TaskGraph::build_all() {
  const size_t n = graph_.ops.size();
  // A first build makes room for every task up front: growing the vector would move every
  // task's link lists. Compute and sync tasks: 3 per part; transfers: at most 2 per (producer
  // part, consumer part). A rebuild finds the room its predecessor left (room_for grows it
  // where it must).
  if (tasks_.empty()) {
    size_t estimate = 0;
    for (size_t i = 0; i < n; ++i) estimate += size_t(strategy_.ops[i].parts()) * (3 + (strategy_.remat ? 1 : 0) + std::min(strategy_.ops[i].zero, 2));
    for (const EdgeUnit& e : edges_)
      estimate += 2 * size_t(std::min(strategy_.ops[size_t(e.producer)].parts() * strategy_.ops[size_t(e.consumer)].parts(), 4096));
    tasks_.reserve(estimate);
  }
  for (size_t i = 0; i < n; ++i) build_op<false>(int(i));
  for (size_t e = 0; e < edges_.size(); ++e) build_edge<false>(e);
}

void TaskGraph::trim_templates() {
  // A long search on a large cluster could meet very many pairs of splits: start afresh beyond
  // a few million overlaps (edge geometries are only a cache).
  if (edge_overlaps_ < (size_t(1) << 22)) return;
  edge_geometries_.clear();
  edge_geometry_index_.clear();
  edge_overlaps_ = 0;
  for (EdgeUnit& edge : edges_) edge.geometry = -1;
}

void TaskGraph::rebuild(const Strategy& strategy) {
  trim_templates();
  // Only the configurations that differ are copied, and only their templates looked up again
  // (a search rebuilds strategies that differ from the last in one op).
  strategy_.remat = strategy.remat;
  for (size_t i = 0; i < strategy_.ops.size(); ++i)
    if (strategy_.ops[i] != strategy.ops[i]) {
      strategy_.ops[i] = strategy.ops[i];
      template_of_op_[i] = -1;
    }
  pending_.reset();
  free_.clear();
  live_ = 0;
  const size_t used_before = used_;
  used_ = 0;
  live_slots_valid_ = false;
  build_all();
  // The new tasks took slots 0 .. used_ - 1 in turn, each marked live: only the slots the
  // previous graph used beyond them are dead (slots are not touched twice), and the live slots
  // are those, with no list to gather.
  for (size_t s = used_; s < used_before; ++s) tasks_[s].live = false;
  live_slots_.resize(used_);
  for (size_t s = 0; s < used_; ++s) live_slots_[s] = int(s);
  live_slots_valid_ = true;
}

void TaskGraph::set_remat(bool remat) {
  Strategy s = strategy_;
  s.remat = remat;
  rebuild(s);
}

const std::vector<int>& TaskGraph::live_slots() const {
  if (!live_slots_valid_) {
    live_slots_.clear();
    for (const OpUnit& u : op_units_) live_slots_.insert(live_slots_.end(), u.slots.begin(), u.slots.end());
    for (const EdgeUnit& e : edges_) live_slots_.insert(live_slots_.end(), e.slots.begin(), e.slots.end());
    live_slots_valid_ = true;
  }
  return live_slots_;
}

// Building is as hot as simulating (a search without delta simulation builds a graph per
// proposal): the two calls every task and link goes through are inline, and what only an edit
// needs (reusing freed slots, marking new slots and links for undo) is compiled out of a build.
// They take the task array from their caller, which made room first (room_for): a list that
// outgrows its inline storage calls out of line, after which the compiler would reload every
// vector's pointers from memory.
Task* TaskGraph::room_for(size_t n) {
  // An edit takes the freed slots first (a build has none); slots at used_ and after are dead
  // until handed out.
  const size_t fresh = n > free_.size() ? n - free_.size() : 0;
  if (tasks_.size() < used_ + fresh) tasks_.resize(used_ + fresh);
  return tasks_.data();
}

template <bool kEdit>
inline int TaskGraph::new_task(Task* tasks, uint64_t order, TaskKind kind, int op, int part, int peer_part, int device, double duration,
                               double bytes) {
  int slot;
  if (kEdit && !free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = int(used_++);
  }
  // Every field, so that a reused slot keeps nothing but its link lists' storage.
  Task& t = tasks[slot];
  t.order = order;
  t.ready_ms = t.start_ms = t.end_ms = 0;
  t.duration_ms = duration;
  t.device = device;
  t.pending = 0;
  t.succs.clear();
  t.deps.clear();
  t.live = true;
  t.kind = kind;
  t.forward_pass = true;
  t.op = op;
  t.part = part;
  t.peer_part = peer_part;
  t.bytes = bytes;
  ++live_;
  if (kEdit) note_new_task(slot);
  return slot;
}

void TaskGraph::note_new_task(int slot) {
  if (new_mark_.size() <= size_t(slot)) new_mark_.resize(std::max(tasks_.size(), 2 * new_mark_.size()), 0);   // not one slot at a time
  new_mark_[size_t(slot)] = epoch_;
  last_change_.added.push_back(slot);
}

template <bool kEdit>
inline void TaskGraph::add_dep(Task* tasks, int from, int to) {
  tasks[from].succs.push_back(to);
  tasks[to].deps.push_back(from);
  if (kEdit) note_new_link(from, to);
}

void TaskGraph::note_new_link(int from, int to) {
  // A survivor's list grew: undo pops it (new tasks' lists are simply cleared).
  if (new_mark_[size_t(from)] != epoch_) pending_.edits.push_back({from, 0, to, kPushSucc});
  if (new_mark_[size_t(to)] != epoch_) pending_.edits.push_back({to, 0, from, kPushDep});
}

double TaskGraph::compute_ms(int op, int part, bool backward, double flops, double bytes) const {
  const GpuSpec& gpu = cluster_.gpu;
  // Roofline (cost_model.h): bound by arithmetic or by memory traffic, plus a fixed launch cost,
  // so that splitting an op finer never divides its time perfectly. Traffic the op's tensors do
  // not show (attention's score matrix) is added in proportion to the part's work.
  const Op& o = graph_.ops[size_t(op)];
  // Those passes are kernels of their own (softmax, dropout), so their time adds to the
  // roofline's rather than hiding under the GEMMs' (cost_model.cpp, op_forward_ms).
  const double pass_flops = backward ? o.backward_flops : o.forward_flops;
  double hidden_ms = 0;
  if (pass_flops > 0) {
    const double hidden = op_forward_traffic_bytes(gpu, o, 1.0) - double(o.forward_bytes());
    hidden_ms = (backward ? 2 : 1) * hidden * flops / pass_flops / achieved_bytes_per_ms(gpu);
  }
  double t = kernel_ms(gpu, flops, bytes, o.spec.kind) + hidden_ms;   // by kind: under fp8 only linear GEMMs run at the FP8 peak
  if (cost_.mode == CostMode::fine) {
    double u = Rng::hash_uniform(cost_.jitter_seed, order_key(op, backward ? kBackward : kForward, 0, part, 0));
    t = t * (1.0 + kFineJitter * (2.0 * u - 1.0)) + kFineLaunchMs;
  }
  return t;
}

double TaskGraph::transfer_ms(int from_gpu, int to_gpu, double bytes, int messages, uint64_t) const {
  const LinkSpec& link = cluster_.link_between(from_gpu, to_gpu);
  double m = double(messages);
  if (cost_.mode == CostMode::ideal) return m * link.latency_ms() + bytes / link.bandwidth_bytes_per_ms();
  // Small messages do not fill the link: efficiency bytes / (bytes + 1 MB) per message.
  double t = m * link.latency_ms() + (bytes + m * kHalfBandwidthBytes) / link.bandwidth_bytes_per_ms();
  return cost_.mode == CostMode::fine ? t + kFineLaunchMs : t;
}

int TaskGraph::op_template(int i) {
  const OpConfig& c = strategy_.ops[size_t(i)];
  std::vector<OpTemplate>& known = op_templates_[size_t(i)];
  const int current = template_of_op_[size_t(i)];
  if (current >= 0) return current;
  // FNV-1a over degrees and devices; equal hashes are checked, collisions scan.
  uint64_t h = 1469598103934665603ull;
  for (int d : c.degrees) h = (h ^ uint64_t(uint32_t(d))) * 1099511628211ull;
  h = (h ^ 0xffffu) * 1099511628211ull;
  for (int d : c.devices) h = (h ^ uint64_t(uint32_t(d))) * 1099511628211ull;
  h = (h ^ uint64_t(uint32_t(c.zero))) * 1099511628211ull;
  auto& index = op_template_index_[size_t(i)];
  auto found = index.find(h);
  if (found != index.end() && known[size_t(found->second)].config == c) return found->second;
  if (found != index.end())
    for (size_t t = 0; t < known.size(); ++t)
      if (known[t].config == c) return int(t);
  const int split = split_of(i, c);
  const bool new_split = split == splits_[size_t(i)].size();
  known.emplace_back();
  make_op_template(i, known.back(), new_split ? nullptr : &known[size_t(splits_[size_t(i)][split])]);
  known.back().split = split;
  if (new_split) splits_[size_t(i)].push_back(int(known.size() - 1));
  if (found == index.end()) index.emplace(h, int(known.size() - 1));
  return int(known.size() - 1);
}

int TaskGraph::split_of(int i, const OpConfig& c) {
  // A handful of splits per op (the divisors of the GPU count over its dimensions): a scan.
  const SmallVector<int, 4>& firsts = splits_[size_t(i)];
  for (int k = 0; k < firsts.size(); ++k)
    if (op_templates_[size_t(i)][size_t(firsts[k])].config.degrees == c.degrees) return k;
  return int(firsts.size());   // a new one
}

namespace {

// The bytes of the weight shard part k holds: exactly 1/pdeg of the weights under an even
// split, its share of the units under an uneven one.
double shard_bytes(const Op& op, const OpConfig& c, int k, bool even, int64_t pdeg) {
  return even ? double(op.param_bytes / pdeg) : std::floor(double(op.param_bytes) * part_share(op, c, k, true));
}

}  // namespace

// The first template of a split: each part's boxes and durations.
void TaskGraph::make_parts(int i, OpTemplate& tpl) const {
  const Op& op = graph_.ops[size_t(i)];
  const OpConfig& c = strategy_.ops[size_t(i)];
  const int parts = c.parts();
  const int64_t pdeg = param_degree(op, c);
  // Uneven splits: each part's work and weights follow its share of the units, so the largest
  // part bounds the time (even splits keep the exact 1/parts arithmetic).
  const bool even = even_split(op, c);
  const double dtype = double(dtype_bytes(op.output.dtype));
  const size_t n_in = op.inputs.size();
  auto& outs = tpl.outs;
  auto& ins = tpl.ins;
  outs.resize(size_t(parts));
  ins.resize(size_t(parts) * n_in);
  for (int k = 0; k < parts; ++k) {
    const Box& out = outs[size_t(k)] = output_box(op, c, k);
    double in_bytes = 0;
    for (size_t j = 0; j < n_in; ++j) {
      const BoxList& reads = ins[size_t(k) * n_in + j] = input_boxes(op, j, out);
      for (int r = 0; r < reads.count; ++r) in_bytes += double(box_volume(reads.boxes[r])) * double(dtype_bytes(op.inputs[j].dtype));
    }
    double bytes = in_bytes + shard_bytes(op, c, k, even, pdeg) + double(box_volume(out)) * dtype;
    const double share = even ? 0 : part_share(op, c, k);
    const double fwd_flops = even ? op.forward_flops / parts : op.forward_flops * share;
    const double bwd_flops = even ? op.backward_flops / parts : op.backward_flops * share;
    tpl.parts[size_t(k)] = {c.devices[size_t(k)], compute_ms(i, k, false, fwd_flops, bytes), compute_ms(i, k, true, bwd_flops, 2 * bytes)};
  }
}

void TaskGraph::make_op_template(int i, OpTemplate& tpl, const OpTemplate* same_split) const {
  const Op& op = graph_.ops[size_t(i)];
  const OpConfig& c = strategy_.ops[size_t(i)];
  const int parts = c.parts();
  const int64_t pdeg = param_degree(op, c);
  const bool even = even_split(op, c);
  tpl.config = c;
  tpl.parts.resize(size_t(parts));
  // Another configuration with the same degrees has the same durations (on other devices); its
  // boxes serve the edges (make_edge_geometry), so this one keeps none.
  if (same_split) {
    for (int k = 0; k < parts; ++k) tpl.parts[size_t(k)] = {c.devices[size_t(k)], same_split->parts[size_t(k)].fwd_ms, same_split->parts[size_t(k)].bwd_ms};
  } else {
    make_parts(i, tpl);
  }
  // Parameter synchronisation: the parts holding the same shard all-reduce their gradients
  // with a ring; each ring edge carries 2(r-1)/r of the shard in 2(r-1) messages, and starts
  // once the gradients at both of its ends are computed. Under ZeRO the all-reduce is split into
  // its halves, each (r-1)/r of the shard in r-1 messages per ring edge: the reduce-scatter of
  // the gradients, then (stages 1, 2) the all-gather of the updated weights, or (stage 3) a
  // gather of the weights before the forward pass and another before the backward pass.
  // An op that holds no weights of its own reads another's (compare's pipeline copies read the
  // weights the last copy holds and synchronises): nothing to synchronise.
  if (op.params.empty() || op.param_bytes / pdeg <= 0 || parts / pdeg < 2) return;
  std::vector<std::vector<int>> groups(static_cast<size_t>(pdeg));
  for (int k = 0; k < parts; ++k) groups[size_t(shard_of(op, c, k))].push_back(k);
  std::vector<int> phases;
  if (c.zero == 0) phases = {0};
  else if (c.zero < 3) phases = {0, 1};
  else phases = {2, 3, 0};
  for (int phase : phases)
    for (size_t g = 0; g < groups.size(); ++g) {
      const auto& members = groups[g];
      const int r = int(members.size());
      const double halves = c.zero == 0 ? 2.0 : 1.0;
      const double bytes = halves * (r - 1) / r * shard_bytes(op, c, members[0], even, pdeg);
      for (int q = 0; q < r; ++q) {
        const int from = members[size_t(q)], to = members[size_t((q + 1) % r)];
        int a = c.devices[size_t(from)], b = c.devices[size_t(to)];
        const uint64_t order = phase == 0   ? order_key(i, kSync, 0, int(g), q)
                               : phase == 1 ? order_key(i, kSync, 1, int(g), q)
                               : phase == 2 ? order_key(i, kFwdTransfer, kGatherInput, int(g), q)
                                            : order_key(i, kBwdTransfer, kGatherInput, int(g), q);
        tpl.syncs.push_back({order, topo_.link(a, b), transfer_ms(a, b, bytes, int(halves) * (r - 1), 0), bytes, from, to, int(g), q, r, phase});
      }
    }
}

template <bool kEdit>
void TaskGraph::build_op(int i) {
  const int id = op_template(i);
  template_of_op_[size_t(i)] = id;
  const OpTemplate& tpl = op_templates_[size_t(i)][size_t(id)];
  const int parts = int(tpl.parts.size());
  const size_t syncs = tpl.syncs.size();
  // Recomputation: the forward pass again before the backward pass, on the same GPU.
  const bool recompute = strategy_.remat && in_layer_[size_t(i)];
  // The unit lists each part's (recompute,) forward and backward task, then the syncs.
  std::vector<int>& unit_slots = op_units_[size_t(i)].slots;
  unit_slots.resize(size_t(parts) * (recompute ? 3 : 2) + syncs);
  fwd_slot_[size_t(i)].resize(size_t(parts));
  bwd_slot_[size_t(i)].resize(size_t(parts));
  if (recompute) scratch_recompute_.resize(size_t(parts));
  int* const unit = unit_slots.data();
  int* const fwd = fwd_slot_[size_t(i)].data();
  int* const bwd = bwd_slot_[size_t(i)].data();
  int* const rc = scratch_recompute_.data();
  Task* const tasks = room_for(unit_slots.size());
  size_t w = 0;
  const uint64_t fkey = order_key(i, kForward, 0, 0, 0), bkey = order_key(i, kBackward, 0, 0, 0), rkey = order_key(i, kRecompute, 0, 0, 0);
  constexpr uint64_t kPartStep = 4096;   // order_key's step of its index a
  for (int k = 0; k < parts; ++k) {
    const PartTemplate& p = tpl.parts[size_t(k)];
    const int f = new_task<kEdit>(tasks, fkey + uint64_t(k) * kPartStep, TaskKind::forward, i, k, -1, p.device, p.fwd_ms, 0);
    const int b = new_task<kEdit>(tasks, bkey + uint64_t(k) * kPartStep, TaskKind::backward, i, k, -1, p.device, p.bwd_ms, 0);
    if (recompute) {
      const int r = new_task<kEdit>(tasks, rkey + uint64_t(k) * kPartStep, TaskKind::recompute, i, k, -1, p.device, p.fwd_ms, 0);
      add_dep<kEdit>(tasks, f, r);
      add_dep<kEdit>(tasks, r, b);
      rc[k] = r;
      unit[w++] = r;
    } else {
      add_dep<kEdit>(tasks, f, b);
    }
    fwd[k] = f;
    bwd[k] = b;
    unit[w++] = f;
    unit[w++] = b;
  }
  // ZeRO 1 and 2 list the reduce-scatter edges, then the all-gather edges in the same order.
  const size_t half = strategy_.ops[size_t(i)].zero == 1 || strategy_.ops[size_t(i)].zero == 2 ? syncs / 2 : 0;
  const int* const next = recompute ? rc : bwd;   // what ZeRO 3's gather before the backward pass feeds
  for (size_t y = 0; y < syncs; ++y) {
    const SyncTemplate& t = tpl.syncs[y];
    const int s = new_task<kEdit>(tasks, t.order, TaskKind::sync, i, t.ring_position, t.group, t.device, t.ms, t.bytes);
    unit[w++] = s;
    switch (t.phase) {
      case 0:
        add_dep<kEdit>(tasks, bwd[t.from_part], s);
        add_dep<kEdit>(tasks, bwd[t.to_part], s);
        break;
      case 1: {
        // An all-gather edge starts once its sender's shard is reduced and updated: after the
        // reduce-scatter edges into and out of the sending part.
        const int q = t.ring_position, r = t.ring_size;
        const size_t own = y - half, into = own - size_t(q) + size_t((q + r - 1) % r);
        add_dep<kEdit>(tasks, unit[w - 1 - (y - own)], s);
        add_dep<kEdit>(tasks, unit[w - 1 - (y - into)], s);
        break;
      }
      case 2:
        add_dep<kEdit>(tasks, s, fwd[t.from_part]);
        add_dep<kEdit>(tasks, s, fwd[t.to_part]);
        break;
      case 3: {
        add_dep<kEdit>(tasks, fwd[t.from_part], s);
        add_dep<kEdit>(tasks, fwd[t.to_part], s);
        add_dep<kEdit>(tasks, s, next[t.from_part]);
        add_dep<kEdit>(tasks, s, next[t.to_part]);
        break;
      }
    }
  }
}

const TaskGraph::EdgeGeometry& TaskGraph::edge_geometry(size_t e) {
  EdgeUnit& edge = edges_[e];
  const int psplit = op_templates_[size_t(edge.producer)][size_t(template_of_op_[size_t(edge.producer)])].split;
  const int csplit = op_templates_[size_t(edge.consumer)][size_t(template_of_op_[size_t(edge.consumer)])].split;
  // Most builds meet an edge with the splits it had the last time.
  if (edge.geometry >= 0 && edge.psplit == psplit && edge.csplit == csplit) return edge_geometries_[size_t(edge.geometry)];
  edge.psplit = psplit;
  edge.csplit = csplit;
  const uint64_t key = (uint64_t(e) << 42) | (uint64_t(psplit) << 21) | uint64_t(csplit);
  auto found = edge_geometry_index_.find(key);
  if (found != edge_geometry_index_.end()) {
    edge.geometry = found->second;
    return edge_geometries_[size_t(found->second)];
  }
  edge.geometry = int(edge_geometries_.size());
  edge_geometry_index_.emplace(key, edge.geometry);
  edge_geometries_.emplace_back();
  make_edge_geometry(e, edge_geometries_.back());
  edge_overlaps_ += edge_geometries_.back().overlaps.size() + 1;
  return edge_geometries_.back();
}

void TaskGraph::make_edge_geometry(size_t e, EdgeGeometry& geometry) {
  const EdgeUnit& edge = edges_[e];
  const Op& prod = graph_.ops[size_t(edge.producer)];
  const Op& cons = graph_.ops[size_t(edge.consumer)];
  const OpConfig& pc = strategy_.ops[size_t(edge.producer)];
  const OpConfig& cc = strategy_.ops[size_t(edge.consumer)];
  // The boxes are the first template's of each split.
  auto first_of_split = [&](int op) -> const OpTemplate& {
    const auto& known = op_templates_[size_t(op)];
    return known[size_t(splits_[size_t(op)][known[size_t(template_of_op_[size_t(op)])].split])];
  };
  const OpTemplate& ptpl = first_of_split(edge.producer);
  const OpTemplate& ctpl = first_of_split(edge.consumer);
  const std::vector<Box>& produced = ptpl.outs;
  const size_t n_in = cons.inputs.size();
  // Producer parts form a grid: along each split dimension, a read range [lo, hi) can only
  // overlap the chunks lo / chunk .. (hi - 1) / chunk, so only those parts are intersected.
  const size_t pdims = prod.split_dims.size();
  std::vector<int64_t>& overlap_of = scratch_overlap_;
  std::vector<int>& touched = scratch_parts_;
  overlap_of.assign(size_t(pc.parts()), 0);
  for (int q = 0; q < cc.parts(); ++q) {
    const BoxList& reads = ctpl.ins[size_t(q) * n_in + size_t(edge.input)];
    touched.clear();
    for (int r = 0; r < reads.count; ++r) {
      const Box& read = reads.boxes[r];
      int first[6], last[6], coord[6];
      bool empty = false;
      for (size_t j = 0; j < pdims; ++j) {
        const SplitDim& sd = prod.split_dims[j];
        const int d = sd.output_dim;
        const int64_t unit = prod.output.shape[size_t(d)] / sd.size;   // elements per unit (see output_box)
        if (read.hi[d] <= read.lo[d]) { empty = true; break; }
        first[j] = part_of_unit(sd.size, pc.degrees[j], read.lo[d] / unit);
        last[j] = part_of_unit(sd.size, pc.degrees[j], (read.hi[d] - 1) / unit);
        coord[j] = first[j];
      }
      if (empty) continue;
      while (true) {
        int k = 0;
        for (size_t j = 0; j < pdims; ++j) k = k * pc.degrees[j] + coord[j];
        int64_t v = intersection_volume(read, produced[size_t(k)]);
        if (v > 0) {
          if (overlap_of[size_t(k)] == 0) touched.push_back(k);
          overlap_of[size_t(k)] += v;
        }
        size_t j = pdims;
        while (j > 0 && coord[j - 1] == last[j - 1]) { coord[j - 1] = first[j - 1]; --j; }
        if (j == 0) break;
        ++coord[j - 1];
      }
    }
    std::sort(touched.begin(), touched.end());   // the same order whatever the boxes
    for (int k : touched) {
      geometry.overlaps.push_back({k, q, overlap_of[size_t(k)]});
      overlap_of[size_t(k)] = 0;
    }
  }
}

template <bool kEdit>
void TaskGraph::build_edge(size_t e) {
  EdgeUnit& edge = edges_[e];
  const std::vector<Overlap>& overlaps = edge_geometry(e).overlaps;
  const int* const pdevs = strategy_.ops[size_t(edge.producer)].devices.data();
  const int* const cdevs = strategy_.ops[size_t(edge.consumer)].devices.data();
  const double dtype = double(dtype_bytes(graph_.ops[size_t(edge.producer)].output.dtype));
  const int* const pf = fwd_slot_[size_t(edge.producer)].data();
  const int* const pb = bwd_slot_[size_t(edge.producer)].data();
  const int* const cf = fwd_slot_[size_t(edge.consumer)].data();
  const int* const cb = bwd_slot_[size_t(edge.consumer)].data();
  Task* const tasks = room_for(2 * overlaps.size());   // two transfers at most per overlap
  edge.slots.clear();
  for (const Overlap& o : overlaps) {
    const int f_prod = pf[o.producer_part], f_cons = cf[o.consumer_part];
    const int b_prod = pb[o.producer_part], b_cons = cb[o.consumer_part];
    const int pdev = pdevs[o.producer_part], cdev = cdevs[o.consumer_part];
    if (pdev == cdev) {   // same GPU: the data is already there
      add_dep<kEdit>(tasks, f_prod, f_cons);
      add_dep<kEdit>(tasks, b_cons, b_prod);
      continue;
    }
    const double bytes = double(o.elements) * dtype;
    const double ms = transfer_ms(pdev, cdev, bytes, 1, 0);   // the same both ways (Cluster::link_between)
    const int xf = new_task<kEdit>(tasks, order_key(edge.consumer, kFwdTransfer, edge.input, o.producer_part, o.consumer_part), TaskKind::transfer,
                                   edge.consumer, o.consumer_part, o.producer_part, topo_.link(pdev, cdev), ms, bytes);
    add_dep<kEdit>(tasks, f_prod, xf);
    add_dep<kEdit>(tasks, xf, f_cons);
    const int xb = new_task<kEdit>(tasks, order_key(edge.consumer, kBwdTransfer, edge.input, o.producer_part, o.consumer_part), TaskKind::transfer,
                                   edge.consumer, o.consumer_part, o.producer_part, topo_.link(cdev, pdev), ms, bytes);
    tasks[xb].forward_pass = false;
    add_dep<kEdit>(tasks, b_cons, xb);
    add_dep<kEdit>(tasks, xb, b_prod);
    edge.slots.push_back(xf);
    edge.slots.push_back(xb);
  }
}

void TaskGraph::commit() {
  if (!pending_.active) return;
  // The removed tasks are no longer needed for an undo: their slots can be reused.
  for (int s : last_change_.removed) {
    tasks_[size_t(s)].deps.clear();
    tasks_[size_t(s)].succs.clear();
  }
  free_.insert(free_.end(), last_change_.removed.begin(), last_change_.removed.end());
  pending_.reset();
}

const TaskGraph::Change& TaskGraph::set_config(int i, const OpConfig& config) {
  commit();
  trim_templates();
  Change& change = last_change_;   // reused: set_config runs thousands of times per second
  change.removed.clear();
  change.added.clear();
  change.touched.clear();
  pending_.active = true;
  pending_.op = i;
  pending_.old_config = strategy_.ops[size_t(i)];
  pending_.live = live_;
  if (new_mark_.size() < tasks_.size()) new_mark_.resize(tasks_.size(), 0);
  if (succs_edited_.size() < tasks_.size()) {
    succs_edited_.resize(tasks_.size(), 0);
    deps_edited_.resize(tasks_.size(), 0);
  }
  ++epoch_;
  std::vector<int>& doomed = scratch_slots_;
  doomed.assign(op_units_[size_t(i)].slots.begin(), op_units_[size_t(i)].slots.end());
  for (size_t e : edges_of_op_[size_t(i)]) doomed.insert(doomed.end(), edges_[e].slots.begin(), edges_[e].slots.end());
  // Mark first, so that removing one doomed task neither edits another's links nor reports
  // it as touched: only survivors' lists are edited (each edit logged for undo_last()), the
  // removed tasks keep theirs untouched until commit(). A survivor's list loses all its doomed
  // entries in one pass (they are its only dead ones): a producer feeding many removed
  // transfers would otherwise be scanned once per transfer.
  for (int s : doomed) tasks_[size_t(s)].live = false;
  std::vector<LinkEdit>& edits = pending_.edits;
  auto dead = [&](int v) { return !tasks_[size_t(v)].live; };
  for (int s : doomed) {
    const Task& t = tasks_[size_t(s)];
    for (int d : t.deps) {
      if (!tasks_[size_t(d)].live || succs_edited_[size_t(d)] == epoch_) continue;
      succs_edited_[size_t(d)] = epoch_;
      tasks_[size_t(d)].succs.erase_if(dead, [&](int pos, int v) { edits.push_back({d, pos, v, kEraseSucc}); });
    }
    for (int u : t.succs) {
      if (!tasks_[size_t(u)].live || deps_edited_[size_t(u)] == epoch_) continue;
      deps_edited_[size_t(u)] = epoch_;
      tasks_[size_t(u)].deps.erase_if(dead, [&](int pos, int v) { edits.push_back({u, pos, v, kEraseDep}); });
      change.touched.push_back(u);
    }
  }
  live_ -= int(doomed.size());
  live_slots_valid_ = false;
  change.removed.assign(doomed.begin(), doomed.end());
  pending_.unit_slots.swap(op_units_[size_t(i)].slots);
  for (size_t e : edges_of_op_[size_t(i)]) {
    if (pending_.edge_count == pending_.edge_slots.size()) pending_.edge_slots.emplace_back();
    pending_.edge_slots[pending_.edge_count++].swap(edges_[e].slots);
  }
  pending_.fwd.swap(fwd_slot_[size_t(i)]);
  pending_.bwd.swap(bwd_slot_[size_t(i)]);
  pending_.old_template = template_of_op_[size_t(i)];
  strategy_.ops[size_t(i)] = config;
  template_of_op_[size_t(i)] = -1;
  build_op<true>(i);
  for (size_t e : edges_of_op_[size_t(i)]) build_edge<true>(e);
  std::sort(change.touched.begin(), change.touched.end());
  change.touched.erase(std::unique(change.touched.begin(), change.touched.end()), change.touched.end());
  return change;
}

const std::vector<int>& TaskGraph::compact(const std::vector<int>& slots) {
  commit();
  remap_.assign(tasks_.size(), -1);
  int next = 0;
  for (int s : slots)
    if (s >= 0 && size_t(s) < tasks_.size() && tasks_[size_t(s)].live && remap_[size_t(s)] < 0) remap_[size_t(s)] = next++;
  for (size_t s = 0; s < tasks_.size(); ++s)
    if (tasks_[s].live && remap_[s] < 0) remap_[s] = next++;
  // Each live task moved once, in its new order, into a vector with room for the tasks the next
  // moves add (so that they do not grow it again at once).
  std::vector<int>& old_slot = scratch_slots_;
  old_slot.resize(size_t(next));
  for (size_t s = 0; s < tasks_.size(); ++s)
    if (remap_[s] >= 0) old_slot[size_t(remap_[s])] = int(s);
  std::vector<Task> fresh;
  fresh.reserve(size_t(next) + size_t(next) / 2 + 64);
  for (int s : old_slot) {
    fresh.push_back(std::move(tasks_[size_t(s)]));
    Task& t = fresh.back();
    for (int& d : t.deps) d = remap_[size_t(d)];
    for (int& u : t.succs) u = remap_[size_t(u)];
  }
  tasks_.swap(fresh);
  auto renumber = [&](std::vector<int>& list) { for (int& s : list) if (s >= 0) s = remap_[size_t(s)]; };
  for (OpUnit& u : op_units_) renumber(u.slots);
  for (EdgeUnit& e : edges_) renumber(e.slots);
  for (auto& parts : fwd_slot_) renumber(parts);
  for (auto& parts : bwd_slot_) renumber(parts);
  free_.clear();
  used_ = tasks_.size();
  new_mark_.assign(tasks_.size(), 0);   // no slot is new or edited in an epoch to come
  succs_edited_.assign(tasks_.size(), 0);
  deps_edited_.assign(tasks_.size(), 0);
  last_change_.removed.clear();
  last_change_.added.clear();
  last_change_.touched.clear();
  live_slots_valid_ = false;
  return remap_;
}

void TaskGraph::undo_last() {
  if (!pending_.active) return;
  const int i = pending_.op;
  for (int s : last_change_.added) {
    Task& t = tasks_[size_t(s)];
    t.live = false;
    t.deps.clear();
    t.succs.clear();
    free_.push_back(s);
  }
  for (int s : last_change_.removed) tasks_[size_t(s)].live = true;
  // The survivors' edits, last first: pushes are popped, erased entries go back where they were.
  const std::vector<LinkEdit>& edits = pending_.edits;
  for (size_t k = edits.size(); k-- > 0;) {
    const LinkEdit& e = edits[k];
    Task& t = tasks_[size_t(e.slot)];
    switch (e.kind) {
      case kPushSucc: t.succs.pop_back(); break;
      case kPushDep: t.deps.pop_back(); break;
      case kEraseSucc: t.succs.insert(e.pos, e.value); break;
      case kEraseDep: t.deps.insert(e.pos, e.value); break;
    }
  }
  live_ = pending_.live;
  strategy_.ops[size_t(i)] = pending_.old_config;
  op_units_[size_t(i)].slots.swap(pending_.unit_slots);
  size_t k = 0;
  for (size_t e : edges_of_op_[size_t(i)]) edges_[e].slots.swap(pending_.edge_slots[k++]);
  fwd_slot_[size_t(i)].swap(pending_.fwd);
  bwd_slot_[size_t(i)].swap(pending_.bwd);
  template_of_op_[size_t(i)] = pending_.old_template;
  live_slots_valid_ = false;
  pending_.reset();
}

}  // namespace autopar
