// Alpa's inter-op dynamic programming (section 5.2) and the stage costs it reads.
#include "inter_op.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cctype>
#include <functional>
#include <tuple>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "cost_model.h"
#include "device_mesh.h"
#include "intra_op.h"
#include "op_kinds.h"

namespace autopar {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// One stage (k..i on sub-mesh m at device offset o) in the objective: `lane` is what bounds the
// steady state (its compute lane: latency + receiving; and its send lane), `sum` what it adds
// to the fill and drain. False when it cannot sit at that offset.
struct StageTerms {
  double compute = 0, send = 0, recv = 0;
  double sum() const { return compute + recv + send; }
  double lane() const { return std::max(compute + recv, send); }
};
// Fills a plan's stage with its boundary terms at its offset.
void set_boundary_fields(const StageCostTable& t, PipelineStage& st) {
  if (!t.has_boundaries || st.last + 1 >= t.layers) return;
  st.send_bytes = t.cut_bytes[size_t(st.last)];
  st.send_inter_node = boundary_crosses_nodes(t, st.device_offset + st.submesh.devices());
}

bool stage_terms(const StageCostTable& t, bool boundaries, int k, int i, int m, int offset, StageTerms& out) {
  const size_t idx = t.index(k, i, m);
  out = StageTerms{};
  out.compute = t.latency[idx];
  if (!boundaries) return true;
  const Submesh& sm = t.submeshes[size_t(m)];
  if (!submesh_fits_at(t, sm, offset)) return false;
  if (k > 0) out.recv = boundary_cost(t, k - 1, sm.devices(), idx, boundary_crosses_nodes(t, offset)).recv_ms;   // the receiving side only
  if (i + 1 < t.layers) out.send = boundary_send_ms(t, i, sm.devices(), boundary_crosses_nodes(t, offset + sm.devices()));
  return true;
}

// The plan's stage for layers k..i on sub-mesh m at device `offset`: its latency, logical mesh
// and boundary terms, as the DP and the brute force both report it.
PipelineStage plan_stage(const StageCostTable& t, int k, int i, int m, int offset) {
  const size_t idx = t.index(k, i, m);
  PipelineStage st{k, i, t.submeshes[size_t(m)], t.latency[idx], t.logical_mesh[idx], offset, 0, 0};
  StageTerms terms;
  if (stage_terms(t, t.has_boundaries, k, i, m, offset, terms)) {
    st.recv_ms = terms.recv;
    st.send_ms = terms.send;
  }
  set_boundary_fields(t, st);
  return st;
}

// The total of simple plans the DP also considers: q equal sub-meshes tiling the cluster, the
// layers cut into q stages with the least largest latency (a linear partition), within the
// 1F1B limit. An upper bound on the DP's best in well under a millisecond: candidates with
// (B - 1) * t_max above it cannot win, so InterOpSolver never tries them.
// `holds(idx, s, q)`: whether entry idx may be the stage with s - 1 stages after it in a plan of q
// stages (the DP's memory rule).
template <class Holds>
double equal_submesh_plan_total(const StageCostTable& t, int microbatches, bool boundaries, const Holds& holds) {
  const int L = t.layers, D = t.nodes * t.gpus_per_node;
  double best = kInf;
  for (int m = 0; m < int(t.submeshes.size()); ++m) {
    const int size = t.submeshes[size_t(m)].devices();
    if (D % size != 0 || D / size > L) continue;
    const int q = D / size;
    // G[r][k]: least largest latency of stages r .. q-1 covering layers k ..; last[r][k]: stage r's last layer.
    std::vector<double> G(size_t(q + 1) * size_t(L + 1), kInf);
    std::vector<int> last(G.size(), -1);
    auto at = [&](int r, int k) { return size_t(r) * size_t(L + 1) + size_t(k); };
    G[at(q, L)] = 0;
    for (int r = q - 1; r >= 0; --r)
      for (int k = L - 1; k >= 0; --k)
        for (int i = k; i < L; ++i) {
          const size_t idx = t.index(k, i, m);
          if (!std::isfinite(t.latency[idx])) continue;
          if (!holds(idx, q - r, q)) continue;
          const double worst = std::max(t.latency[idx], G[at(r + 1, i + 1)]);
          if (worst < G[at(r, k)]) {
            G[at(r, k)] = worst;
            last[at(r, k)] = i;
          }
        }
    if (!std::isfinite(G[at(0, 0)])) continue;
    std::vector<StageTerms> terms;
    bool fits = true;
    for (int r = 0, k = 0; r < q; ++r) {
      const int i = last[at(r, k)];
      StageTerms st;
      fits = fits && stage_terms(t, boundaries, k, i, m, r * size, st);
      terms.push_back(st);
      k = i + 1;
    }
    if (!fits) continue;
    // Summed from the last stage back, as F sums, so that the DP's total at t_max = mx is <= it.
    double sum = 0, mx = 0;
    for (size_t r = terms.size(); r-- > 0;) {
      sum = terms[r].sum() + sum;
      mx = std::max(mx, terms[r].lane());
    }
    best = std::min(best, sum + double(microbatches - 1) * mx);
  }
  return best;
}
}  // namespace

double inflight_microbatches(int stage, int stages, int microbatches, int interleave) {
  const int v = std::max(1, interleave), m = std::max(1, microbatches);
  if (v == 1) return double(std::min(stages - stage, m));
  const int warmup = (stages - stage - 1) * 2 + (v - 1) * stages;
  return double(std::min(warmup + 1, m * v)) / double(v);
}

double stage_inflight_microbatches(const std::optional<ScheduleKind>& schedule, int stage, int stages, int microbatches, int interleave) {
  if (!schedule) return inflight_microbatches(stage, stages, microbatches, interleave);
  return schedule_peak_inflight(*schedule, stage, stages, microbatches, interleave > 1 ? interleave : 2);
}

StageMemoryChoice choose_stage_memory(const StageMemorySums& sums, double capacity, double inflight, const InterOpOptions& options, bool given,
                                      int copies) {
  // Recomputation settings tried: 0 none, 1 selective, 2 full; the first is the default.
  const int modes[3] = {options.recompute >= 0 ? options.recompute : options.force_remat ? 2 : 0, 1, 2};
  const int mode_count = options.recompute >= 0 || options.force_remat ? 1 : 3;
  double best_lat = kInf, best_room = -kInf;
  int best_succ = -2, best_z = 0, best_mode = modes[0];
  bool best_fits = false;
  for (int z = 0; z < 4; ++z)
    for (int mi = 0; mi < mode_count; ++mi) {
      const int mode = modes[mi];
      if (options.zero_stage >= 0 && z != options.zero_stage) continue;
      const double per_micro = mode == 0 ? sums.activation : mode == 1 ? sums.selective : sums.kept;
      const double fixed = double(copies) * sums.states[z] + sums.buffers[z] + (mode == 2 ? sums.largest : 0);
      const double room = capacity - fixed;
      const bool fits = room >= inflight * per_micro;
      const int succ = room < per_micro ? -1 : per_micro > 0 ? int(std::min(1e6, std::floor((room - per_micro) / per_micro))) : int(1e6);
      const double option_lat = sums.latency + sums.zero_ms[z] + (mode == 2 ? sums.recompute_ms : mode == 1 ? sums.selective_ms : 0);
      const bool is_default = z == std::max(0, options.zero_stage) && mode == modes[0];
      // The default when it fits; else the cheapest that fits; else the one leaving the most room.
      const double room_share = per_micro > 0 ? room / per_micro : room;
      bool take = best_succ == -2;
      if (!take && fits && !best_fits) take = true;
      else if (!take && fits && best_fits) take = !(best_z == std::max(0, options.zero_stage) && best_mode == modes[0]) && (is_default || option_lat < best_lat);
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
  StageMemoryChoice c;
  if (best_succ == -2 || (!given && best_succ < 0)) return c;
  const bool remat = best_mode == 2;
  c.found = true;
  c.fits = best_fits;
  c.latency = best_lat;
  c.max_succ = given ? -1 : sums.activation > 0 || remat ? std::min(best_succ, int(1e6)) : -1;
  c.zero_stage = best_z;
  c.mode = best_mode;
  c.state_bytes = sums.states[best_z];
  c.room_bytes = capacity - double(copies) * sums.states[best_z] - sums.buffers[best_z] - (remat ? sums.largest : 0);   // the buffers are working memory, beside the activations
  c.activation_bytes = best_mode == 0 ? sums.activation : best_mode == 1 ? sums.selective : sums.kept;
  return c;
}

double StageMemoryOption::capacity(double capacity_bytes, int copies) const {
  const double room = capacity_bytes - double(copies) * state_bytes - fixed_bytes;
  if (room < 0) return -1;
  return activation_bytes > 0 ? room / activation_bytes : kInf;
}

void append_memory_options(const StageMemorySums& sums, double capacity_bytes, const InterOpOptions& options, bool sequence_parallel,
                           std::vector<StageMemoryOption>& out) {
  for (int z = 0; z < 4; ++z) {
    if (options.zero_stage >= 0 && z != options.zero_stage) continue;
    for (int mode = 0; mode < 3; ++mode) {
      if (options.recompute >= 0 ? mode != options.recompute : options.force_remat && mode != 2) continue;
      StageMemoryOption o;
      o.latency = sums.latency + sums.zero_ms[z] + (mode == 2 ? sums.recompute_ms : mode == 1 ? sums.selective_ms : 0);
      o.zero_stage = z;
      o.mode = mode;
      o.sequence_parallel = sequence_parallel;
      o.state_bytes = sums.states[z];
      o.fixed_bytes = sums.buffers[z] + (mode == 2 ? sums.largest : 0);
      o.activation_bytes = mode == 0 ? sums.activation : mode == 1 ? sums.selective : sums.kept;
      if (o.capacity(capacity_bytes, 1) >= 1) out.push_back(o);
    }
  }
}

std::vector<StageMemoryOption> prune_memory_options(std::vector<StageMemoryOption> options) {
  // Fastest first; among equals, the one holding least first, so that a later equal is dropped.
  std::stable_sort(options.begin(), options.end(), [](const StageMemoryOption& a, const StageMemoryOption& b) {
    if (a.latency != b.latency) return a.latency < b.latency;
    return a.state_bytes + a.fixed_bytes + a.activation_bytes < b.state_bytes + b.fixed_bytes + b.activation_bytes;
  });
  std::vector<StageMemoryOption> kept;
  for (const StageMemoryOption& o : options) {
    bool beaten = false;
    for (const StageMemoryOption& k : kept)
      beaten = beaten || (k.state_bytes <= o.state_bytes && k.fixed_bytes <= o.fixed_bytes && k.activation_bytes <= o.activation_bytes);
    if (!beaten) kept.push_back(o);
  }
  return kept;
}

void apply_memory_options(StageCostTable& t, const InterOpPlan& plan) {
  for (const PipelineStage& st : plan.stages) {
    if (st.memory_option < 0) continue;
    size_t m = 0;
    while (m + 1 < t.submeshes.size() && !(t.submeshes[m] == st.submesh)) ++m;
    const size_t idx = t.index(st.first, st.last, int(m));
    if (idx >= t.memory_options.size() || size_t(st.memory_option) >= t.memory_options[idx].size()) continue;
    const StageMemoryOption& o = t.memory_options[idx][size_t(st.memory_option)];
    t.latency[idx] = o.latency;
    t.zero_stage[idx] = o.zero_stage;
    t.remat[idx] = char(o.mode == 2 ? 1 : o.mode == 1 ? 2 : 0);
    t.sequence_parallel[idx] = char(o.sequence_parallel);
    t.state_bytes[idx] = o.state_bytes;
    t.activation_room_bytes[idx] = t.capacity_bytes - double(t.state_copies) * o.state_bytes - o.fixed_bytes;
    t.activation_bytes[idx] = o.activation_bytes;
    const double cap = o.capacity(t.capacity_bytes, t.state_copies);
    t.max_succ_stages[idx] = std::isfinite(cap) ? int(std::min(1e6, std::floor(cap) - 1)) : -1;
  }
}

void StageCostTable::set_memory_choice(size_t idx, const StageMemoryChoice& c) {
  latency[idx] = c.latency;
  max_succ_stages[idx] = c.max_succ;
  zero_stage[idx] = c.zero_stage;
  remat[idx] = char(c.mode == 2 ? 1 : c.mode == 1 ? 2 : 0);   // the table's code: 1 full, 2 selective
  state_bytes[idx] = c.state_bytes;
  activation_room_bytes[idx] = c.room_bytes;
  activation_bytes[idx] = c.activation_bytes;
}

StageCostTable stage_costs_for_schedule(const StageCostTable& base, ScheduleKind kind, int interleave, const InterOpOptions& options) {
  StageCostTable t = base;
  if (base.memory_sums.size() != base.latency.size() || kind == ScheduleKind::one_f_one_b || options.mode == "intra-only") return t;
  const int L = base.layers, D = base.nodes * base.gpus_per_node, M = int(base.submeshes.size());
  const int copies = schedule_parameter_copies(kind);
  t.state_copies = copies;
  for (int f = 0; f < L; ++f)
    for (int l = f; l < L; ++l)
      for (int m = 0; m < M; ++m) {
        const size_t idx = base.index(f, l, m);
        if (!std::isfinite(base.latency[idx])) continue;
        // The most micro-batches this stage can hold under the schedule: the longest pipeline
        // it can be part of and its earliest position in it, each stage elsewhere taking at
        // least a layer and a sub-mesh of its size (the stage costs' 1F1B reserve, widened to
        // the stages before it for the schedules whose count depends on p).
        const int size = base.submeshes[size_t(m)].devices(), others = (D - size) / size;
        const int after = std::min(L - 1 - l, others), p = 1 + std::min(f + L - 1 - l, others);
        const double inflight = schedule_peak_inflight(kind, std::max(0, p - 1 - after), p, options.microbatches, interleave);
        const StageMemoryChoice c = choose_stage_memory(base.memory_sums[idx], base.capacity_bytes, inflight, options, false, copies);
        if (!c.found) {                  // DualPipe's second copy of the states leaves no room for one micro-batch
          t.latency[idx] = kInf;
          continue;
        }
        t.set_memory_choice(idx, c);
      }
  return t;
}

std::vector<Submesh> alpa_submeshes(int nodes, int gpus_per_node) {
  std::vector<Submesh> out;
  for (int m = 1; m < gpus_per_node; m *= 2) out.push_back({1, m});
  out.push_back({1, gpus_per_node});
  for (int n = 2; n <= nodes; ++n) out.push_back({n, gpus_per_node});
  return out;
}

std::vector<Submesh> planned_submeshes(int nodes, int gpus_per_node, const InterOpOptions& options) {
  if (options.fixed_submesh.devices() > 0) return {options.fixed_submesh};
  std::vector<Submesh> all = alpa_submeshes(nodes, gpus_per_node);
  if (nodes <= kAllSubmeshesMaxNodes) return all;
  std::vector<Submesh> out;
  for (const Submesh& m : all)
    if (m.gpus < gpus_per_node || nodes % m.nodes == 0) out.push_back(m);
  return out;
}

void StageCostTable::reset(int l, int n, int g, std::vector<Submesh> s) {
  layers = l;
  nodes = n;
  gpus_per_node = g;
  submeshes = std::move(s);
  const size_t size = size_t(l) * size_t(l) * submeshes.size();
  latency.assign(size, kInf);
  max_succ_stages.assign(size, -1);
  logical_mesh.assign(size, "");
  zero_stage.assign(size, 0);
  remat.assign(size, 0);
  state_bytes.assign(size, 0);
  activation_room_bytes.assign(size, 0);
  activation_bytes.assign(size, 0);
  memory_sums.clear();
  memory_options.assign(size, {});
  sequence_parallel.assign(size, 0);
  capacity_bytes = 0;
  state_copies = 1;
  ring_exposed_ms.assign(size, 0);
  all_to_all_ms.assign(size, 0);
  has_boundaries = false;
  nics = 1;
  cut_bytes.assign(size_t(l), 0);
  recv_allgather_ms.assign(size, 0);
  recv_replicas.assign(size, 1);
}

bool boundary_crosses_nodes(const StageCostTable& t, int offset) { return t.nodes > 1 && offset % t.gpus_per_node == 0; }

bool submesh_fits_at(const StageCostTable& t, const Submesh& m, int offset) {
  const int G = t.gpus_per_node;
  return m.gpus == G ? offset % G == 0 : offset % G + m.gpus <= G;
}

LinkSpec boundary_stream_link(const StageCostTable& t, int streams, bool inter_node) {
  if (!inter_node) return t.intra_link;                   // NVLink / NVSwitch: each GPU its own links
  // A sub-mesh is part of one node or whole nodes: min(streams, G) of its GPUs leave each node.
  return shared_nic_link(t.inter_link, t.nics, std::min(std::max(1, streams), t.gpus_per_node));
}

double boundary_send_ms(const StageCostTable& t, int cut, int senders, bool inter_node) {
  const int n = std::max(1, senders);
  return 2 * boundary_stream_link(t, n, inter_node).transfer_ms(t.cut_bytes[size_t(cut)] / double(n));
}

BoundaryCost boundary_cost(const StageCostTable& t, int cut, int senders, size_t next_entry, bool inter_node) {
  BoundaryCost b;
  b.bytes = t.cut_bytes[size_t(cut)];
  b.inter_node = inter_node;
  b.senders = std::max(1, senders);
  b.stream_bytes = b.bytes / double(b.senders);
  b.send_ms = boundary_send_ms(t, cut, b.senders, inter_node);
  b.replicas = t.recv_replicas[next_entry];
  // Plain send/recv: each of the receiving mesh's devices takes its own (r - 1) more slices of
  // T / n_recv, all at once over their own links.
  const int receivers = t.submeshes[next_entry % t.submeshes.size()].devices();
  const LinkSpec recv_link = boundary_stream_link(t, receivers, inter_node);
  b.plain_recv_ms = double(b.replicas - 1) * b.bytes / double(receivers) / recv_link.bandwidth_bytes_per_ms();
  b.allgather_ms = b.replicas > 1 ? t.recv_allgather_ms[next_entry] : 0;
  b.local_all_gather = b.allgather_ms < b.plain_recv_ms;
  b.recv_ms = std::min(b.plain_recv_ms, b.allgather_ms);
  return b;
}

InterOpSolver::InterOpSolver(StageCostTable table, int microbatches, bool boundaries, std::optional<InflightRule> rule)
    : table_(std::move(table)), microbatches_(microbatches), boundaries_(boundaries && table_.has_boundaries), rule_(rule) {
  // Interleaving's closed form times v is sum + (v B - 1) t_max: the same DP with t_max weighted
  // v B - 1 (every bound below stays in those units), its total divided by v at the end.
  if (rule_ && rule_->interleaved_total && rule_->kind == ScheduleKind::interleaved) total_divisor_ = std::max(1, rule_->interleave);
  tmax_weight_ = double(total_divisor_) * double(microbatches_) - 1;
  best_.total_latency = kInf;
  best_.boundaries = boundaries_;
  const int L = table_.layers, D = table_.nodes * table_.gpus_per_node;
  if (L < 1) {
    error_ = make_error(ErrorCode::bad_value, "there are no layers to slice", "layers");
    done_ = true;
    return;
  }
  if (rule_ && (rule_->stages < 0 || (rule_->stages == 0 && schedule_inflight_needs_stage_count(rule_->kind)))) {
    error_ = make_error(ErrorCode::bad_value, std::string("the memory rule of ") + schedule_name(rule_->kind) + " needs the pipeline's stage count", "stages");
    done_ = true;
    return;
  }
  // Candidate t_max: the distinct finite lane times a stage can have, ascending (with
  // boundaries: its compute plus receiving over either link kind, and its sends).
  // A rule's schedule keeping a second copy of the states (DualPipe) leaves the options less room.
  const int copies = rule_ ? std::max(table_.state_copies, schedule_parameter_copies(rule_->kind)) : table_.state_copies;
  const bool has_options = table_.memory_options.size() == table_.latency.size();
  for (size_t idx = 0; idx < table_.latency.size(); ++idx) {
    if (!std::isfinite(table_.latency[idx])) continue;
    std::vector<double> lats{table_.latency[idx]};
    if (has_options)
      for (const StageMemoryOption& o : table_.memory_options[idx]) lats.push_back(o.latency);
    for (double x : lats) {
      candidates_.push_back(x);
      if (boundaries_ && idx / table_.submeshes.size() >= size_t(table_.layers)) {   // first layer > 0: it receives
        const int k = int(idx / table_.submeshes.size() / size_t(table_.layers));
        for (bool inter : {false, true}) candidates_.push_back(x + boundary_cost(table_, k - 1, 1, idx, inter).recv_ms);
      }
    }
    // Its send lane over either link kind, from its sub-mesh's GPUs.
    const int last = int(idx / table_.submeshes.size() % size_t(table_.layers));
    if (boundaries_ && last + 1 < L)
      for (bool inter : {false, true})
        candidates_.push_back(boundary_send_ms(table_, last, table_.submeshes[idx % table_.submeshes.size()].devices(), inter));
  }
  std::sort(candidates_.begin(), candidates_.end());
  candidates_.erase(std::unique(candidates_.begin(), candidates_.end()), candidates_.end());
  best_.t_max_candidates = int(candidates_.size());
  stages_max_ = std::min(L, D);
  // The rule's count per row: a stage with s - 1 stages after it is stage p - s of p.
  const int chunks = rule_ ? schedule_chunks_per_device(rule_->kind, rule_->interleave) : 1;
  if (rule_ && rule_->stages > 0) stages_max_ = std::min(stages_max_, rule_->stages);
  need_.assign(size_t(stages_max_ + 1), 0);
  for (int s = 1; s <= stages_max_; ++s) {
    const int p = rule_ && rule_->stages > 0 ? rule_->stages : s;
    // Without a rule, 1F1B: the stage with s - 1 after it holds min(s, B) (inflight_microbatches).
    need_[size_t(s)] = rule_ ? schedule_peak_inflight(rule_->kind, p - s, p, microbatches_, rule_->interleave) : double(std::min(s, std::max(1, microbatches_)));
  }
  // The stages the DP chooses from, with their terms at each kind of placement (what
  // stage_terms gives at an offset of that kind), so that the inner loop only adds.
  choices_.resize(size_t(L));
  for (int k = 0; k < L; ++k)
    for (int i = k; i < L; ++i)
      for (int m = 0; m < int(table_.submeshes.size()); ++m) {
        const size_t idx = table_.index(k, i, m);
        if (!std::isfinite(table_.latency[idx])) continue;
        StageChoice c;
        c.last = i;
        c.submesh = m;
        c.devices = table_.submeshes[size_t(m)].devices();
        c.whole_nodes = table_.submeshes[size_t(m)].gpus == table_.gpus_per_node;
        c.max_succ = table_.max_succ_stages[idx];
        c.latency = table_.latency[idx];
        // Micro-batches its memory holds: the bytes when known (a fraction counts: interleaved
        // chunks hold halves), else the 1F1B limit's max_succ + 1.
        const double act = table_.activation_bytes[idx];
        c.capacity = c.max_succ < 0 ? kInf : act > 0 ? table_.activation_room_bytes[idx] / act : double(c.max_succ) + 1;
        if (i - k + 1 < chunks) continue;                        // too few layers for the schedule's chunks
        for (int kind = 0; kind < 4; ++kind) {
          StageTerms st;
          st.compute = c.latency;
          if (boundaries_) {
            if (k > 0) st.recv = boundary_cost(table_, k - 1, c.devices, idx, kind & 2).recv_ms;
            if (i + 1 < L) st.send = boundary_send_ms(table_, i, c.devices, kind & 1);
            c.recv[kind >> 1] = st.recv;
            c.send[kind & 1] = st.send;
          }
          c.sum[kind] = boundaries_ ? st.sum() : c.latency;
          c.lane[kind] = boundaries_ ? st.lane() : c.latency;
        }
        c.fastest = c.latency;
        if (has_options) {
          // The options' Pareto front at this solver's copies: fastest first, each holding more.
          const auto& opts = table_.memory_options[idx];
          for (size_t q = 0; q < opts.size(); ++q) {
            const double cap = opts[q].capacity(table_.capacity_bytes, copies);
            if (cap < 1) continue;
            if (!c.options.empty() && cap <= c.options.back().second) continue;   // sorted by latency: a slower one must hold more
            c.options.push_back({opts[q].latency, cap});
            c.option_index.push_back(int(q));
            c.fastest = std::min(c.fastest, opts[q].latency);
          }
        }
        choices_[size_t(k)].push_back(c);
      }
  F_.resize(size_t(stages_max_ + 1) * size_t(L + 1) * size_t(D + 1));
  choice_.resize(F_.size());
  finite_.resize(size_t(stages_max_ + 1) * size_t(L + 1));
  // Candidates with (B - 1) * t_max above the total of a simple plan the DP also finds (equal
  // sub-meshes, see equal_submesh_plan_total) cannot win: the first interval stops below them.
  auto holds = [&](size_t idx, int s, int q) {
    if (!rule_) return table_.max_succ_stages[idx] < 0 || table_.max_succ_stages[idx] >= s - 1;
    if (rule_->stages > 0 && q != rule_->stages) return false;
    const int f = int(idx / table_.submeshes.size() / size_t(table_.layers)), l = int(idx / table_.submeshes.size() % size_t(table_.layers));
    if (l - f + 1 < chunks) return false;
    if (table_.max_succ_stages[idx] < 0) return true;
    const double act = table_.activation_bytes[idx];
    const double cap = act > 0 ? table_.activation_room_bytes[idx] / act : double(table_.max_succ_stages[idx]) + 1;
    return cap * (1 + 1e-12) >= schedule_peak_inflight(rule_->kind, q - s, q, microbatches_, rule_->interleave);
  };
  const double simple = equal_submesh_plan_total(table_, total_divisor_ * microbatches_, boundaries_, holds);
  int top = int(candidates_.size()) - 1;
  while (top >= 0 && tmax_weight_ * candidates_[size_t(top)] > simple) --top;
  pending_.push_back({0, top, -kInf});
  pending_count_ = top + 1;
  if (!start_next_candidate()) done_ = true;
}

bool InterOpSolver::start_next_candidate() {
  cand_ = -1;
  while (!pending_.empty()) {
    const Interval iv = pending_.back();
    pending_.pop_back();
    if (iv.a > iv.b) continue;
    // Every candidate j in [a, b] totals at least right_sum + (B - 1) * t_a; Alpa's early
    // stopping, (B - 1) * t_a >= best, is the case right_sum = 0 (latencies are never negative).
    const double lead = tmax_weight_ * candidates_[size_t(iv.a)];
    const double bound = iv.right_sum + lead;
    if (bound > best_.total_latency || (bound == best_.total_latency && iv.a > best_cand_) || lead >= best_.total_latency) {
      pending_count_ -= iv.b - iv.a + 1;
      continue;
    }
    // With nothing known above the interval (only the first one), its top candidate bounds it.
    current_ = iv;
    cand_ = iv.right_sum == -kInf ? iv.b : iv.a + (iv.b - iv.a) / 2;
    // A partial sum above best - (B - 1) * t_a cannot be part of a plan that beats the best at
    // any candidate of the interval, nor make the least sum a useful bound for its lower half:
    // the DP drops it (with a relative margin far above rounding, so that ties survive).
    sum_cap_ = best_.total_latency - lead + std::fabs(best_.total_latency) * 1e-9;
    --pending_count_;
    row_ = 0;
    ++best_.t_max_tried;
    unit_ = 0;
    for (const auto& list : choices_)
      for (const StageChoice& c : list)
        if (c.fastest <= candidates_[size_t(cand_)]) unit_ = std::gcd(unit_, c.devices);
    unit_ = std::max(1, unit_);
    const int L = table_.layers, D = table_.nodes * table_.gpus_per_node;
    std::fill(F_.begin(), F_.begin() + ptrdiff_t(size_t(L + 1) * size_t(D + 1)), kInf);
    F_[at(0, L, 0)] = 0;
    for (int k = 0; k <= L; ++k) finite_[size_t(k)] = k == L ? std::pair<int, int>{0, 0} : std::pair<int, int>{1, 0};
    return true;
  }
  return false;
}

bool InterOpSolver::step(int max_rows) {
  for (int n = 0; n < max_rows && !done_; ++n) {
    compute_row(++row_, candidates_[size_t(cand_)]);
    ++rows_done_;
    if (row_ == stages_max_) {
      finish_candidate();
      if (!start_next_candidate()) done_ = true;
    }
  }
  return done_;
}

int InterOpSolver::rows_bound() const {
  if (done_) return rows_done_;
  const int64_t bound = int64_t(rows_done_) + (cand_ >= 0 ? stages_max_ - row_ : 0) + int64_t(stages_max_) * pending_count_;
  return int(std::min<int64_t>(bound, std::numeric_limits<int>::max()));
}

size_t InterOpSolver::at(int s, int k, int d) const {
  const size_t D = size_t(table_.nodes) * size_t(table_.gpus_per_node);
  return (size_t(s) * size_t(table_.layers + 1) + size_t(k)) * (D + 1) + size_t(d);
}

// Row s of F for one t_max. Per row: for each first layer k (L) and each stage choice (last
// layer i, sub-mesh m: up to L x M, M the sub-mesh shapes), the device counts d it can start at:
// D of them without boundaries, with boundaries the offsets D - d where the sub-mesh fits (N
// for whole nodes, up to D for part of a node), only those where F(s - 1, i + 1, d - size) is
// finite. So at most L x L x M x D per row, min(L, D) rows per candidate; choices slower than
// t_max, or whose 1F1B memory limit allows fewer than s - 1 later stages, are skipped whole.
// The logical meshes do not appear: the stage costs keep each stage's best one.
void InterOpSolver::compute_row(int s, double t_max) {
  const StageCostTable& t = table_;
  const int L = t.layers, G = t.gpus_per_node, D = t.nodes * G;
  const size_t width = size_t(D + 1);
  double* cur = &F_[at(s, 0, 0)];
  CellChoice* arg = &choice_[at(s, 0, 0)];
  std::fill(cur, cur + size_t(L + 1) * width, kInf);
  const double* prev = &F_[at(s - 1, 0, 0)];
  auto crosses = [&](int offset) { return t.nodes > 1 && offset % G == 0; };   // boundary_crosses_nodes
  for (int k = 0; k <= L; ++k) {
    std::pair<int, int>& range = finite_[size_t(s) * size_t(L + 1) + size_t(k)];
    range = {1, 0};
    if (k == L) continue;
    double* row = cur + size_t(k) * width;
    CellChoice* row_arg = arg + size_t(k) * width;
    int lo = D + 1, hi = -1;
    // Whole-node stages start at offsets that are multiples of G, and every reachable device
    // count is a multiple of unit_: both at once.
    const int whole_step = std::lcm(G, std::max(1, unit_));
    for (const StageChoice& c : choices_[size_t(k)]) {
      if (!(c.fastest <= t_max) || c.fastest > sum_cap_) continue;
      double lat = c.latency;
      int16_t option = -1;
      if (!c.options.empty()) {
        // The fastest memory option holding this position's micro-batches in flight.
        size_t q = 0;
        while (q < c.options.size() && c.options[q].second * (1 + 1e-12) < need_[size_t(s)]) ++q;
        if (q == c.options.size()) continue;
        lat = c.options[q].first;
        option = int16_t(c.option_index[q]);
      } else if (!rule_) {
        if (c.max_succ >= 0 && c.max_succ < s - 1) continue;     // 1F1B: it holds the activations of the s - 1 stages after it
      } else if (c.capacity * (1 + 1e-12) < need_[size_t(s)]) {
        continue;                                                // the schedule's micro-batches in flight at this position
      }
      if (!(lat <= t_max)) continue;                             // every lane is at least the compute
      if (lat > sum_cap_) continue;                              // every sum through it is at least the compute
      const auto [plo, phi] = finite_[size_t(s - 1) * size_t(L + 1) + size_t(c.last + 1)];
      if (plo > phi) continue;
      const double* rest = prev + size_t(c.last + 1) * width;
      const int z = c.devices, d_lo = plo + z, d_hi = std::min(phi + z, D);
      auto relax = [&](int d, double sum) {
        const double v = sum + rest[d - z];
        if (v < row[d] && v <= sum_cap_) {
          row[d] = v;
          row_arg[d] = {c.last, int16_t(c.submesh), option};
          lo = std::min(lo, d);
          hi = std::max(hi, d);
        }
      };
      // The stage's terms at a placement kind (2 * receives across nodes + sends across nodes).
      auto sum_at = [&](int kind) { return option < 0 ? c.sum[kind] : boundaries_ ? lat + c.recv[kind >> 1] + c.send[kind & 1] : lat; };
      auto lane_at = [&](int kind) { return option < 0 ? c.lane[kind] : boundaries_ ? std::max(lat + c.recv[kind >> 1], c.send[kind & 1]) : lat; };
      if (!boundaries_) {
        const double sum = sum_at(0);
        for (int d = d_lo; d <= d_hi; ++d) relax(d, sum);
      } else if (c.whole_nodes) {                                // starts on a node's edge: offset D - d a multiple of G
        const int kind = 2 * crosses(0) + crosses(z);
        if (!(lane_at(kind) <= t_max)) continue;
        const double sum = sum_at(kind);
        for (int d = d_hi - d_hi % whole_step; d >= d_lo; d -= whole_step) relax(d, sum);
      } else {                                                   // stays inside one node
        for (int d = d_lo; d <= d_hi; ++d) {
          const int offset = D - d;
          if (offset % G + c.devices > G) continue;
          const int kind = 2 * crosses(offset) + crosses(offset + z);
          if (lane_at(kind) <= t_max) relax(d, sum_at(kind));
        }
      }
    }
    if (lo <= hi) range = {lo, hi};
  }
}

void InterOpSolver::finish_candidate() {
  const StageCostTable& t = table_;
  const int D = t.nodes * t.gpus_per_node;
  const double t_max = candidates_[size_t(cand_)];
  double least_sum = kInf;
  for (int s = rule_ && rule_->stages > 0 ? stages_max_ : 1; s <= stages_max_; ++s) {
    if (rule_ && rule_->stages > 0 && s != rule_->stages) break;   // the rule's p only
    const double sum = F_[at(s, 0, D)];
    if (!std::isfinite(sum)) continue;
    least_sum = std::min(least_sum, sum);
    const double total = sum + tmax_weight_ * t_max;
    // Ties go to the smaller t_max, then to fewer stages, as in the ascending enumeration.
    if (total < best_.total_latency || (total == best_.total_latency && cand_ < best_cand_)) {
      best_.total_latency = total;
      best_.t_max = t_max;
      best_cand_ = cand_;
      best_.stages.clear();
      int k = 0, d = D;
      for (int r = s; r >= 1; --r) {
        const CellChoice cell = choice_[at(r, k, d)];
        const int i = cell.last, m = cell.submesh;
        PipelineStage st = plan_stage(t, k, i, m, D - d);
        if (cell.option >= 0) {
          st.memory_option = cell.option;
          st.latency = t.memory_options[t.index(k, i, m)][size_t(cell.option)].latency;
        }
        best_.stages.push_back(st);
        d -= t.submeshes[size_t(m)].devices();
        k = i + 1;
      }
    }
  }
  // Above the candidate: the interval's own bound; below it: this candidate's least sum (lower
  // t_max allow fewer plans). The lower half goes on top, to be tried first.
  pending_.push_back({cand_ + 1, current_.b, current_.right_sum});
  pending_.push_back({current_.a, cand_ - 1, least_sum});
  cand_ = -1;
}

Result<InterOpPlan> InterOpSolver::finish() {
  while (!step(std::numeric_limits<int>::max())) {}
  if (error_) return *error_;
  if (!std::isfinite(best_.total_latency) && rule_)
    return make_error(ErrorCode::infeasible, std::string("no pipeline plan") + (rule_->stages > 0 ? " of " + std::to_string(rule_->stages) + " stages" : "") +
                                        " holds " + schedule_name(rule_->kind) + "'s micro-batches in flight in every stage's memory" +
                                        (schedule_chunks_per_device(rule_->kind, rule_->interleave) > 1 ? " with enough layers per stage for its chunks" : "") +
                                        "; try another schedule, more micro-batches' room (recomputation, ZeRO) or more devices", "stages");
  if (!std::isfinite(best_.total_latency))
    return make_error(ErrorCode::infeasible, "no pipeline plan covers every layer on sub-meshes that tile the cluster within the memory limit; "
                                    "add devices, micro-batches or memory, or give stage costs for more layer ranges", "stages");
  InterOpPlan plan = best_;
  plan.total_latency /= total_divisor_;
  plan.interleave = total_divisor_;
  // The largest lane time of the plan itself (t_max is only an upper bound).
  double mx = 0;
  for (const auto& st : plan.stages)
    mx = std::max(mx, boundaries_ ? std::max(st.latency + st.recv_ms, st.send_ms) : st.latency);
  plan.t_max = mx;
  return plan;
}

Result<InterOpPlan> solve_inter_op(const StageCostTable& t, int microbatches, bool boundaries, std::optional<InflightRule> rule) {
  InterOpSolver solver(t, microbatches, boundaries, rule);
  return solver.finish();
}

Result<InterOpPlan> brute_force_inter_op(const StageCostTable& t, int microbatches, bool boundaries) {
  const int L = t.layers, D = t.nodes * t.gpus_per_node, M = int(t.submeshes.size());
  if (L > 12 || M > 8) return make_error(ErrorCode::too_large, "brute force is for small tables (at most 12 layers and 8 sub-meshes)", "layers");
  boundaries = boundaries && t.has_boundaries;
  InterOpPlan best;
  best.total_latency = kInf;
  best.boundaries = boundaries;
  std::vector<PipelineStage> cur;
  // Depth-first over (next stage's last layer, its sub-mesh).
  std::function<void(int, int)> go = [&](int k, int d) {
    if (k == L) {
      if (d != 0) return;
      double sum = 0, mx = 0;
      for (size_t r = 0; r < cur.size(); ++r) {
        const int after = int(cur.size() - 1 - r);
        int idx_m = 0;
        while (!(t.submeshes[size_t(idx_m)] == cur[r].submesh)) ++idx_m;
        const size_t idx = t.index(cur[r].first, cur[r].last, idx_m);
        if (t.max_succ_stages[idx] >= 0 && t.max_succ_stages[idx] < after) return;
        StageTerms st;
        if (!stage_terms(t, boundaries, cur[r].first, cur[r].last, idx_m, cur[r].device_offset, st)) return;
        sum += st.sum();
        mx = std::max(mx, st.lane());
      }
      const double total = sum + double(microbatches - 1) * mx;
      if (total < best.total_latency) {
        best.total_latency = total;
        best.t_max = mx;
        best.stages = cur;
      }
      return;
    }
    for (int i = k; i < L; ++i)
      for (int m = 0; m < M; ++m) {
        const int size = t.submeshes[size_t(m)].devices();
        const size_t idx = t.index(k, i, m);
        if (size > d || !std::isfinite(t.latency[idx])) continue;
        cur.push_back(plan_stage(t, k, i, m, D - d));
        go(i + 1, d - size);
        cur.pop_back();
      }
  };
  go(0, D);
  if (!std::isfinite(best.total_latency)) return make_error(ErrorCode::infeasible, "no pipeline plan exists for this table", "stages");
  return best;
}

Result<InterOpPlan> evaluate_inter_op_plan(const StageCostTable& t, int microbatches, const std::vector<std::pair<int, int>>& stages,
                                           int m, bool boundaries, int interleave) {
  if (m < 0 || m >= int(t.submeshes.size())) return make_error(ErrorCode::bad_value, "the plan's sub-mesh is not one of the table's", "plan");
  if (stages.empty() || stages.front().first != 0 || stages.back().second != t.layers - 1)
    return make_error(ErrorCode::bad_value, "the plan's stages must cover layers 1 to " + std::to_string(t.layers), "plan");
  const int size = t.submeshes[size_t(m)].devices();
  if (int64_t(size) * int64_t(stages.size()) != int64_t(t.nodes) * t.gpus_per_node)
    return make_error(ErrorCode::bad_value, std::to_string(stages.size()) + " stages of " + std::to_string(size) + " GPUs do not tile the " +
                                       std::to_string(t.nodes * t.gpus_per_node) + " GPUs of the cluster", "plan");
  boundaries = boundaries && t.has_boundaries;
  InterOpPlan plan;
  plan.boundaries = boundaries;
  std::vector<StageTerms> terms;
  for (size_t r = 0; r < stages.size(); ++r) {
    const auto [k, i] = stages[r];
    if (r > 0 && k != stages[r - 1].second + 1) return make_error(ErrorCode::bad_value, "the plan's stages must be consecutive", "plan");
    const size_t idx = t.index(k, i, m);
    if (!std::isfinite(t.latency[idx]))
      return make_error(ErrorCode::infeasible, "stage " + std::to_string(r + 1) + " (layers " + std::to_string(k + 1) + "-" + std::to_string(i + 1) +
                                          ") does not fit in GPU memory on its sub-mesh, even with recomputation and ZeRO", "plan");
    const int after = int(stages.size() - 1 - r);
    if (t.max_succ_stages[idx] >= 0 && t.max_succ_stages[idx] < after)
      return make_error(ErrorCode::infeasible, "stage " + std::to_string(r + 1) + " keeps too many micro-batches' activations for the " +
                                          std::to_string(after) + " stages after it (1F1B memory)", "plan");
    StageTerms st;
    if (!stage_terms(t, boundaries, k, i, m, int(r) * size, st))
      return make_error(ErrorCode::bad_value, "stage " + std::to_string(r + 1) + "'s sub-mesh cannot start at device " + std::to_string(int(r) * size), "plan");
    terms.push_back(st);
    plan.stages.push_back(plan_stage(t, k, i, m, int(r) * size));
  }
  // Summed from the last stage back, as the DP's F sums, so that the same plan gets the same total.
  double sum = 0, mx = 0;
  for (size_t r = terms.size(); r-- > 0;) {
    sum = terms[r].sum() + sum;
    mx = std::max(mx, terms[r].lane());
  }
  const double v = double(std::max(1, interleave));
  plan.t_max = mx;
  plan.interleave = std::max(1, interleave);
  plan.total_latency = interleave > 1 ? sum / v + (double(microbatches) - 1.0 / v) * mx : sum + double(microbatches - 1) * mx;
  return plan;
}

namespace {

// The half-open box [lo, hi) per dimension of the shard device (r, c) holds under `spec`.
std::vector<std::pair<int64_t, int64_t>> shard_box(const Shape& shape, const ShardingSpec& spec, const DeviceMesh& mesh, int r, int c) {
  std::vector<std::pair<int64_t, int64_t>> box;
  for (size_t d = 0; d < shape.size(); ++d) {
    const AxisMask m = spec.dims[d];
    int64_t ways = 1, idx = 0;
    if (m == 1) { ways = mesh.rows(); idx = r; }
    if (m == 2) { ways = mesh.cols(); idx = c; }
    if (m == 3) { ways = int64_t(mesh.rows()) * mesh.cols(); idx = mesh.device(r, c); }   // S01: axis 0 major
    box.push_back({part_start(shape[d], ways, idx), part_start(shape[d], ways, idx + 1)});
  }
  return box;
}

double box_overlap(const std::vector<std::pair<int64_t, int64_t>>& a, const std::vector<std::pair<int64_t, int64_t>>& b) {
  double v = 1;
  for (size_t d = 0; d < a.size(); ++d) v *= double(std::max<int64_t>(0, std::min(a[d].second, b[d].second) - std::max(a[d].first, b[d].first)));
  return v;
}

}  // namespace

CrossMeshPlan cross_mesh_reshard(const Shape& shape, int dtype, const DeviceMesh& src_mesh, const ShardingSpec& src, int src_first,
                                 const DeviceMesh& dst_mesh, const ShardingSpec& dst, int dst_first, const LinkSpec& link,
                                 bool local_all_gather) {
  using Box = std::vector<std::pair<int64_t, int64_t>>;
  CrossMeshPlan plan;
  // Distinct source shards and the devices holding each (replicas).
  std::vector<Box> shards;
  std::vector<std::vector<int>> holders;
  for (int r = 0; r < src_mesh.rows(); ++r)
    for (int c = 0; c < src_mesh.cols(); ++c) {
      Box b = shard_box(shape, src, src_mesh, r, c);
      size_t k = 0;
      while (k < shards.size() && shards[k] != b) ++k;
      if (k == shards.size()) { shards.push_back(b); holders.emplace_back(); }
      holders[k].push_back(src_first + r * src_mesh.cols() + c);
    }
  // Destination devices with the same shard form a replica group; with the local all-gather
  // member j of a group of n receives slice j of the shard (cut along its first dimension of at
  // least n elements), else every member receives all of it.
  std::map<Box, int> group_size, member_seen;
  for (int r = 0; r < dst_mesh.rows(); ++r)
    for (int c = 0; c < dst_mesh.cols(); ++c) ++group_size[shard_box(shape, dst, dst_mesh, r, c)];
  for (int r = 0; r < dst_mesh.rows(); ++r)
    for (int c = 0; c < dst_mesh.cols(); ++c) {
      const int to = dst_first + r * dst_mesh.cols() + c;
      Box need = shard_box(shape, dst, dst_mesh, r, c);
      const int n = group_size[need], j = member_seen[need]++;
      if (local_all_gather && n > 1) {
        size_t d = 0;
        while (d < need.size() && need[d].second - need[d].first < n) ++d;
        if (d < need.size()) {
          const int64_t len = need[d].second - need[d].first, lo = need[d].first;
          need[d] = {lo + len * j / n, lo + len * (j + 1) / n};
        } else if (j > 0) {
          continue;   // too small to slice: the first member receives it all
        }
      }
      for (size_t k = 0; k < shards.size(); ++k) {
        const double bytes = box_overlap(need, shards[k]) * dtype;
        if (bytes <= 0) continue;
        // Spread the senders over the replicas of the source shard.
        plan.messages.push_back({holders[k][size_t(to) % holders[k].size()], to, bytes});
        plan.bytes_across += bytes;
      }
    }
  plan.send_ms = plan.messages.empty() ? 0 : link.transfer_ms(plan.bytes_across);
  if (local_all_gather) {
    // All-gather along the axes the destination spec replicates over, in the cheaper order.
    AxisMask used = 0;
    for (AxisMask a : dst.dims) used = AxisMask(used | a);
    double start = double(dtype);
    for (size_t d = 0; d < shape.size(); ++d) start *= double(shape[d]);
    start /= double(dst_mesh.devices());
    double best = kInf;
    for (const auto& order : {std::pair<int, int>{0, 1}, std::pair<int, int>{1, 0}}) {
      std::vector<ReshardStep> steps;
      double per_device = start, cost = 0;
      for (int a : {order.first, order.second}) {
        if ((used & (1 << a)) || dst_mesh.axis[a].size <= 1) continue;
        per_device *= dst_mesh.axis[a].size;
        ReshardStep st;
        st.collective = "all-gather";
        st.axes = {a};
        st.bytes = per_device;
        st.cost = all_gather_cost(dst_mesh.axis[a], per_device);
        cost += st.cost;
        steps.push_back(st);
      }
      if (cost < best) {
        best = cost;
        plan.local = steps;
        plan.local_ms = cost;
      }
    }
  }
  return plan;
}

Result<StageCostTable> stage_costs_from_json(const Json& j) {
  auto need_int = [&](const Json& o, const char* key, const std::string& path, int lo, int hi) -> Result<int> {
    if (!o.is_object() || !o.contains(key)) return make_error(ErrorCode::missing_field, "missing field '" + std::string(key) + "'", path + key);
    const Json& v = o[key];
    if (!v.is_number_integer()) return make_error(ErrorCode::wrong_type, path + key + " must be an integer", path + key);
    int64_t x = v.get<int64_t>();
    if (x < lo || x > hi)
      return make_error(ErrorCode::out_of_range, path + key + " is " + std::to_string(x) + "; it must be between " + std::to_string(lo) + " and " + std::to_string(hi), path + key);
    return int(x);
  };
  if (!j.is_object()) return make_error(ErrorCode::wrong_type, "stage costs must be an object with layers, cluster, submeshes and stages", "");
  auto layers = need_int(j, "layers", "", 1, 512);
  if (!layers.ok()) return layers.error();
  if (!j.contains("cluster") || !j["cluster"].is_object()) return make_error(ErrorCode::missing_field, "missing field 'cluster' ({\"nodes\":N,\"gpus_per_node\":G})", "cluster");
  auto nodes = need_int(j["cluster"], "nodes", "cluster.", 1, kMaxDevices);
  if (!nodes.ok()) return nodes.error();
  auto gpus = need_int(j["cluster"], "gpus_per_node", "cluster.", 1, 64);
  if (!gpus.ok()) return gpus.error();
  // The same bound as a cluster file's (validate_cluster).
  if (nodes.value() * gpus.value() > kMaxDevices)
    return make_error(ErrorCode::too_large, "the cluster has " + std::to_string(nodes.value() * gpus.value()) + " devices; at most " +
                                       std::to_string(kMaxDevices) + " are supported", "cluster");
  std::vector<Submesh> subs;
  if (j.contains("submeshes")) {
    if (!j["submeshes"].is_array()) return make_error(ErrorCode::wrong_type, "submeshes must be an array of [n, m] pairs", "submeshes");
    for (size_t k = 0; k < j["submeshes"].size(); ++k) {
      const Json& s = j["submeshes"][k];
      std::string p = "submeshes[" + std::to_string(k) + "]";
      if (!s.is_array() || s.size() != 2 || !s[0].is_number_integer() || !s[1].is_number_integer())
        return make_error(ErrorCode::wrong_type, p + " must be [nodes, gpus]", p);
      Submesh m{int(s[0].get<int64_t>()), int(s[1].get<int64_t>())};
      if (m.nodes < 1 || m.nodes > nodes.value() || m.gpus < 1 || m.gpus > gpus.value())
        return make_error(ErrorCode::out_of_range, p + " does not fit in the cluster of " + std::to_string(nodes.value()) + "x" + std::to_string(gpus.value()), p);
      if (std::find(subs.begin(), subs.end(), m) == subs.end()) subs.push_back(m);
    }
  } else {
    subs = alpa_submeshes(nodes.value(), gpus.value());
  }
  if (subs.empty()) return make_error(ErrorCode::missing_field, "no sub-meshes given", "submeshes");
  StageCostTable t;
  t.reset(layers.value(), nodes.value(), gpus.value(), subs);
  if (!j.contains("stages") || !j["stages"].is_array()) return make_error(ErrorCode::missing_field, "missing field 'stages' (an array)", "stages");
  if (j["stages"].size() > 1000000) return make_error(ErrorCode::too_large, "more than a million stage entries", "stages");
  std::vector<bool> covered(size_t(layers.value()), false);
  for (size_t k = 0; k < j["stages"].size(); ++k) {
    const Json& s = j["stages"][k];
    std::string p = "stages[" + std::to_string(k) + "].";
    auto first = need_int(s, "first", p, 0, layers.value() - 1);
    if (!first.ok()) return first.error();
    auto last = need_int(s, "last", p, first.value(), layers.value() - 1);
    if (!last.ok()) return last.error();
    if (!s.contains("submesh") || !s["submesh"].is_array() || s["submesh"].size() != 2 || !s["submesh"][0].is_number_integer() ||
        !s["submesh"][1].is_number_integer())
      return make_error(ErrorCode::wrong_type, p + "submesh must be [nodes, gpus]", p + "submesh");
    Submesh m{int(s["submesh"][0].get<int64_t>()), int(s["submesh"][1].get<int64_t>())};
    auto it = std::find(subs.begin(), subs.end(), m);
    if (it == subs.end())
      return make_error(ErrorCode::bad_value, p + "submesh [" + std::to_string(m.nodes) + "," + std::to_string(m.gpus) + "] is not in 'submeshes'", p + "submesh");
    if (!s.contains("latency") || !s["latency"].is_number()) return make_error(ErrorCode::wrong_type, p + "latency must be a number", p + "latency");
    double lat = s["latency"].get<double>();
    // Bounded so that the pipeline's total, (B - 1) x the largest plus the sum, stays finite: an
    // overflow to infinity read as "no plan covers every layer".
    if (!std::isfinite(lat) || lat < 0 || lat > 1e12)
      return make_error(ErrorCode::out_of_range, p + "latency must be a number between 0 and 1e12 (ms)", p + "latency");
    int succ = -1;
    if (s.contains("max_succ_stages")) {
      auto v = need_int(s, "max_succ_stages", p, 0, 1 << 20);
      if (!v.ok()) return v.error();
      succ = v.value();
    }
    const size_t idx = t.index(first.value(), last.value(), int(it - subs.begin()));
    t.latency[idx] = lat;
    t.max_succ_stages[idx] = succ;
    for (int l = first.value(); l <= last.value(); ++l) covered[size_t(l)] = true;
  }
  for (int l = 0; l < layers.value(); ++l)
    if (!covered[size_t(l)])
      return make_error(ErrorCode::gap, "no stage entry covers layer " + std::to_string(l) + "; every layer must belong to at least one (range, submesh) entry", "stages");
  return t;
}

Json stage_costs_to_json(const StageCostTable& t) {
  Json subs = Json::array();
  for (const Submesh& m : t.submeshes) subs.push_back(Json::array({m.nodes, m.gpus}));
  Json stages = Json::array();
  for (int f = 0; f < t.layers; ++f)
    for (int l = f; l < t.layers; ++l)
      for (size_t m = 0; m < t.submeshes.size(); ++m) {
        const size_t idx = t.index(f, l, int(m));
        if (!std::isfinite(t.latency[idx])) continue;
        Json s{{"first", f}, {"last", l}, {"submesh", Json::array({t.submeshes[m].nodes, t.submeshes[m].gpus})}, {"latency", t.latency[idx]}};
        if (t.max_succ_stages[idx] >= 0) s["max_succ_stages"] = t.max_succ_stages[idx];
        stages.push_back(s);
      }
  return Json{{"layers", t.layers}, {"cluster", Json{{"nodes", t.nodes}, {"gpus_per_node", t.gpus_per_node}}}, {"submeshes", subs}, {"stages", stages}};
}

std::vector<std::pair<int, int>> cluster_layers(const Graph& g, int max_layers) {
  const int n = int(g.ops.size());
  // Last consumer of each op's output; a cut after op k is clean when exactly one output of
  // ops <= k is still needed later.
  std::vector<int> last_use(size_t(n), -1);
  for (int v = 0; v < n; ++v)
    for (int p : g.ops[size_t(v)].producers)
      if (p >= 0) last_use[size_t(p)] = std::max(last_use[size_t(p)], v);
  std::vector<std::pair<int, int>> units;
  int start = 0;
  for (int k = 0; k < n; ++k) {
    int crossing = 0;
    for (int p = 0; p <= k; ++p) crossing += last_use[size_t(p)] > k;
    if (k == n - 1 || crossing == 1) {
      units.push_back({start, k});
      start = k + 1;
    }
  }
  // Merge neighbours, smallest combined FLOPs first, until there are few enough.
  auto flops = [&](std::pair<int, int> r) {
    double f = 0;
    for (int v = r.first; v <= r.second; ++v) f += g.ops[size_t(v)].forward_flops;
    return f;
  };
  while (int(units.size()) > std::max(1, max_layers)) {
    size_t best = 0;
    double best_f = kInf;
    for (size_t k = 0; k + 1 < units.size(); ++k) {
      double f = flops({units[k].first, units[k + 1].second});
      if (f < best_f) { best_f = f; best = k; }
    }
    units[best].second = units[best + 1].second;
    units.erase(units.begin() + long(best) + 1);
  }
  return units;
}

namespace {

// The number an op's name gives its layer: the digits after the last '_' ("qkv_12" -> 12), or
// the trailing digits ("dense3" -> 3); -1 when there are none.
int64_t name_number(const std::string& name) {
  size_t end = name.size(), start = end;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(name[start - 1]))) --start;
  if (start == end || end - start > 6) return -1;
  if (start > 0 && name[start - 1] != '_' && name.find('_') != std::string::npos) return -1;   // "conv1_1a": not a layer number
  return std::stoll(name.substr(start));
}

bool heavy_op(const Op& op) { return sharding_rule_is_compute(op_kind_traits(op.spec.kind).sharding); }

}  // namespace

std::optional<ModelLayers> named_layers(const Graph& g) {
  const int n = int(g.ops.size());
  std::vector<int64_t> number(size_t(n), -1);
  int64_t prev = -1;
  for (int v = 0; v < n; ++v) {
    number[size_t(v)] = name_number(g.ops[size_t(v)].name());
    if (number[size_t(v)] < 0) continue;
    if (number[size_t(v)] < prev) return std::nullopt;   // not a numbering along the graph
    prev = number[size_t(v)];
  }
  // Unnumbered ops join the layer before them (the first layer for those before any number).
  int64_t first_number = -1;
  for (int v = 0; v < n && first_number < 0; ++v) first_number = number[size_t(v)];
  if (first_number < 0) return std::nullopt;
  ModelLayers out;
  out.source = "model";
  int64_t cur = first_number;
  int start = 0;
  for (int v = 0; v < n; ++v) {
    const int64_t x = number[size_t(v)] < 0 ? cur : number[size_t(v)];
    if (x != cur) {
      out.ops.push_back({start, v - 1});
      out.numbers.push_back({int(cur), int(cur)});
      start = v;
      cur = x;
    }
  }
  out.ops.push_back({start, n - 1});
  out.numbers.push_back({int(cur), int(cur)});
  if (out.ops.size() < 2) return std::nullopt;
  return out;
}

Result<ModelLayers> auto_layers(const Graph& g, int layers) {
  // O(n^2) for the bounds and the entering bytes, O(n^2 * layers) for the DP; n ops.
  const int n = int(g.ops.size());
  if (layers < 1 || layers > n)
    return make_error(ErrorCode::out_of_range, "--layers must be between 1 and the model's op count (" + std::to_string(n) + ")", "--layers");
  std::vector<double> flops(size_t(n), 0);
  std::vector<int> heavy(size_t(n), 0);
  double total = 0;
  int heavy_total = 0;
  for (int v = 0; v < n; ++v) {
    heavy[size_t(v)] = heavy_op(g.ops[size_t(v)]);
    if (heavy[size_t(v)]) flops[size_t(v)] = g.ops[size_t(v)].forward_flops;
    total += flops[size_t(v)];
    heavy_total += heavy[size_t(v)];
  }
  // Alpa's rule (layer_construction.py): a layer holds at least `lb` heavy ops (3, fewer when
  // the model has few), and stops before a heavy op once its FLOPs reach (1 + eps) x average.
  const double bound = total / layers * 1.5;
  const int lb = std::min(3, heavy_total / layers);
  auto allowed = [&](int left) {   // allowed[r]: ops [left, r] may form one layer
    std::vector<char> ok(size_t(n), 0);
    int cnt = 0;
    double f = 0;
    for (int r = left; r < n; ++r) {
      if (heavy[size_t(r)]) { ++cnt; f += flops[size_t(r)]; }
      if (cnt < lb) { ok[size_t(r)] = f >= bound; continue; }
      if (f >= bound && heavy[size_t(r)] && cnt > lb) break;
      ok[size_t(r)] = 1;
    }
    return ok;
  };
  // in_bytes[left][r]: bytes produced before `left` and read by ops [left, r].
  std::vector<std::vector<double>> in_bytes(size_t(n), std::vector<double>(size_t(n), 0));
  for (int left = 0; left < n; ++left) {
    std::set<int> seen;
    double b = 0;
    for (int r = left; r < n; ++r) {
      const Op& op = g.ops[size_t(r)];
      for (size_t k = 0; k < op.inputs.size(); ++k)
        if (op.producers[k] >= 0 && op.producers[k] < left && seen.insert(op.producers[k]).second) b += double(tensor_bytes(op.inputs[k]));
      in_bytes[size_t(left)][size_t(r)] = b;
    }
  }
  // DP over (ops covered r, layers q): least (largest entering bytes, their sum, sum of squared sizes).
  struct Cell { double mx = kInf, sum = kInf, sq = kInf; int arg = -1; };
  std::vector<Cell> dp(size_t(n + 1) * size_t(layers + 1));
  auto at = [&](int r, int q) -> Cell& { return dp[size_t(r) * size_t(layers + 1) + size_t(q)]; };
  at(0, 0) = {0, 0, 0, -1};
  for (int left = 0; left < n; ++left) {
    const std::vector<char> ok = allowed(left);
    for (int q = 0; q < layers; ++q) {
      const Cell& from = at(left, q);
      if (!(from.mx < kInf)) continue;
      for (int r = left; r < n; ++r) {
        if (!ok[size_t(r)]) continue;
        const double b = in_bytes[size_t(left)][size_t(r)], len = double(r - left + 1);
        Cell c{std::max(from.mx, b), from.sum + b, from.sq + len * len, left};
        Cell& to = at(r + 1, q + 1);
        if (std::tie(c.mx, c.sum, c.sq) < std::tie(to.mx, to.sum, to.sq)) to = c;
      }
    }
  }
  if (!(at(n, layers).mx < kInf))
    return make_error(ErrorCode::infeasible, "the ops cannot be grouped into " + std::to_string(layers) +
                                        " layers of balanced FLOPs (each needs its share of the heavy ops); ask for fewer layers", "--layers");
  ModelLayers out;
  out.source = "auto";
  for (int r = n, q = layers; q > 0; --q) {
    const int left = at(r, q).arg;
    out.ops.insert(out.ops.begin(), {left, r - 1});
    r = left;
  }
  // Named in the model's numbering when it has one (the model layers its first and last op
  // belong to), else 1 .. n.
  const auto named = named_layers(g);
  std::vector<int> number_of_op(size_t(n), 0);
  if (named)
    for (size_t k = 0; k < named->ops.size(); ++k)
      for (int v = named->ops[k].first; v <= named->ops[k].second; ++v) number_of_op[size_t(v)] = named->numbers[k].first;
  for (int k = 0; k < layers; ++k)
    out.numbers.push_back(named ? std::pair<int, int>{number_of_op[size_t(out.ops[size_t(k)].first)], number_of_op[size_t(out.ops[size_t(k)].second)]}
                                : std::pair<int, int>{k + 1, k + 1});
  return out;
}

Result<ModelLayers> plan_layers(const Graph& g, const InterOpOptions& options) {
  if (options.layers > 0) return auto_layers(g, options.layers);
  if (auto named = named_layers(g)) {
    const int count = int(named->ops.size()), groups = std::min(count, std::max(1, options.max_layers));
    if (groups == count) return *named;
    // More layers than max_layers: consecutive model layers merged evenly (sizes differ by at most one).
    ModelLayers merged;
    merged.source = "model";
    for (int k = 0, at = 0; k < groups; ++k) {
      const int size = count / groups + (k < count % groups ? 1 : 0);
      merged.ops.push_back({named->ops[size_t(at)].first, named->ops[size_t(at + size - 1)].second});
      merged.numbers.push_back({named->numbers[size_t(at)].first, named->numbers[size_t(at + size - 1)].second});
      at += size;
    }
    return merged;
  }
  ModelLayers cuts;
  cuts.source = "cuts";
  cuts.ops = cluster_layers(g, options.max_layers);
  for (int k = 0; k < int(cuts.ops.size()); ++k) cuts.numbers.push_back({k + 1, k + 1});
  return cuts;
}

Result<Graph> microbatch_graph(const Graph& g, int microbatches) {
  if (microbatches < 1 || microbatches > 65536) return make_error(ErrorCode::out_of_range, "--microbatches must be between 1 and 65536", "--microbatches");
  ModelSpec spec = g.spec;
  for (Tensor& t : spec.inputs) {
    if (t.shape[0] % microbatches != 0)
      return make_error(ErrorCode::bad_value, "the batch of input '" + t.name + "' (" + std::to_string(t.shape[0]) + ") does not divide into " +
                                         std::to_string(microbatches) + " micro-batches; pick a divisor", "--microbatches");
    t.shape[0] /= microbatches;
  }
  for (OpSpec& o : spec.ops) o.shape.reset();   // re-inferred for the smaller batch
  return build_graph(spec);
}

Graph layer_subgraph(const Graph& g, int first, int last, std::vector<std::string>& activations) {
  ModelSpec spec;
  spec.name = g.name() + "[" + std::to_string(first) + ".." + std::to_string(last) + "]";
  spec.dtype = g.spec.dtype;
  std::set<std::string> declared;
  for (int v = first; v <= last; ++v) {
    const Op& op = g.ops[size_t(v)];
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const int p = op.producers[k];
      if ((p < first || p > last) && declared.insert(op.inputs[k].name).second) {
        spec.inputs.push_back(op.inputs[k]);
        if (p >= 0) activations.push_back(op.inputs[k].name);   // comes from an earlier layer: needs a gradient
      }
    }
    OpSpec s = op.spec;
    s.shape.reset();
    // A head tied to an embedding outside the slice holds its own copy of the table there (as
    // pipelines keep the tied table on both stages); inside the slice the tie stays.
    if (!s.weight_from.empty() && g.find_op(s.weight_from) < first) s.weight_from.clear();
    spec.ops.push_back(s);
  }
  return build_graph(spec).value();   // a valid graph's slice is valid (ties to ops outside it are cut above)
}


namespace {
bool same_shape(const StageCostTable& a, const StageCostTable& b) {
  return a.layers == b.layers && a.nodes == b.nodes && a.gpus_per_node == b.gpus_per_node && a.submeshes == b.submeshes &&
         a.latency.size() == b.latency.size() && a.has_boundaries == b.has_boundaries;
}
// A double as JSON: a number when finite (nlohmann writes the shortest text that reads back
// exactly), else "inf" / "-inf" / "nan" (JSON has no such numbers).
Json exact_number(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf";
}
bool read_exact_number(const Json& j, double& out) {
  if (j.is_number()) {
    out = j.get<double>();
    return true;
  }
  if (!j.is_string()) return false;
  const std::string s = j.get<std::string>();
  if (s == "inf") out = kInf;
  else if (s == "-inf") out = -kInf;
  else if (s == "nan") out = std::numeric_limits<double>::quiet_NaN();
  else return false;
  return true;
}
}  // namespace

Result<StageCostTable> merge_stage_cost_parts(const std::vector<StageCostPart>& parts) {
  if (parts.empty()) return make_error(ErrorCode::bad_value, "no stage-cost parts to merge", "parts");
  StageCostTable out = parts[0].table;
  std::vector<int> by(out.latency.size(), -1);
  for (size_t i = 0; i < by.size(); ++i) by[i] = parts[0].set_by.size() == by.size() ? parts[0].set_by[i] : -1;
  for (size_t k = 1; k < parts.size(); ++k) {
    const StageCostTable& t = parts[k].table;
    if (!same_shape(t, out) || parts[k].set_by.size() != by.size())
      return make_error(ErrorCode::bad_value, "stage-cost part " + std::to_string(k) + " has another shape than part 0 (not the same model and cluster)",
                        "parts[" + std::to_string(k) + "]");
    for (size_t i = 0; i < by.size(); ++i) {
      const int p = parts[k].set_by[i];
      if (p < 0) continue;
      // The whole builder keeps the first pair with the least latency (it replaces on <).
      if (by[i] >= 0 && !(t.latency[i] < out.latency[i] || (t.latency[i] == out.latency[i] && p < by[i]))) continue;
      by[i] = p;
      out.latency[i] = t.latency[i];
      out.max_succ_stages[i] = t.max_succ_stages[i];
      out.logical_mesh[i] = t.logical_mesh[i];
      out.zero_stage[i] = t.zero_stage[i];
      out.remat[i] = t.remat[i];
      out.state_bytes[i] = t.state_bytes[i];
      out.activation_room_bytes[i] = t.activation_room_bytes[i];
      out.activation_bytes[i] = t.activation_bytes[i];
      if (i < t.ring_exposed_ms.size() && i < out.ring_exposed_ms.size()) {   // parts read from JSON have none
        out.ring_exposed_ms[i] = t.ring_exposed_ms[i];
        out.all_to_all_ms[i] = t.all_to_all_ms[i];
      }
      out.recv_allgather_ms[i] = t.recv_allgather_ms[i];
      out.recv_replicas[i] = t.recv_replicas[i];
      if (t.memory_sums.size() == by.size()) {
        if (out.memory_sums.size() != by.size()) out.memory_sums.assign(by.size(), StageMemorySums{});
        out.memory_sums[i] = t.memory_sums[i];
      }
      if (i < t.memory_options.size() && i < out.memory_options.size()) {
        out.memory_options[i] = t.memory_options[i];
        out.sequence_parallel[i] = t.sequence_parallel[i];
      }
    }
  }
  return out;
}

Json stage_cost_part_to_json(const StageCostPart& part) {
  const StageCostTable& t = part.table;
  Json subs = Json::array();
  for (const Submesh& m : t.submeshes) subs.push_back(Json::array({m.nodes, m.gpus}));
  Json cuts = Json::array();
  for (double b : t.cut_bytes) cuts.push_back(exact_number(b));
  Json entries = Json::array();
  for (size_t i = 0; i < part.set_by.size() && i < t.latency.size(); ++i) {
    if (part.set_by[i] < 0) continue;
    Json e = Json::array({i, exact_number(t.latency[i]), t.max_succ_stages[i], t.logical_mesh[i], t.zero_stage[i], int(t.remat[i]),
                          exact_number(t.recv_allgather_ms[i]), t.recv_replicas[i], part.set_by[i], exact_number(t.state_bytes[i]),
                          exact_number(t.activation_room_bytes[i]), exact_number(t.activation_bytes[i])});
    if (i < t.memory_sums.size()) {
      // The 13th element: the memory sums a schedule chooses again from (stage_costs_for_schedule).
      const StageMemorySums& m = t.memory_sums[i];
      Json sums = Json::array({exact_number(m.latency)});
      for (int z = 0; z < 4; ++z) sums.push_back(exact_number(m.states[z]));
      for (int z = 0; z < 4; ++z) sums.push_back(exact_number(m.zero_ms[z]));
      for (double x : {m.activation, m.selective, m.kept, m.largest, m.recompute_ms, m.selective_ms}) sums.push_back(exact_number(x));
      e.push_back(sums);
      // The 14th: [sequence parallel, [[latency, zero, mode, sp, state, fixed, activation bytes] per memory option]].
      Json opts = Json::array();
      if (i < t.memory_options.size())
        for (const StageMemoryOption& o : t.memory_options[i])
          opts.push_back(Json::array({exact_number(o.latency), o.zero_stage, o.mode, int(o.sequence_parallel), exact_number(o.state_bytes),
                                      exact_number(o.fixed_bytes), exact_number(o.activation_bytes)}));
      e.push_back(Json::array({i < t.sequence_parallel.size() ? int(t.sequence_parallel[i]) : 0, opts}));
    }
    entries.push_back(e);
  }
  return Json{{"layers", t.layers},
              {"nodes", t.nodes},
              {"gpus_per_node", t.gpus_per_node},
              {"submeshes", subs},
              {"has_boundaries", t.has_boundaries},
              {"cut_bytes", cuts},
              {"intra_link", Json::array({exact_number(t.intra_link.latency_us), exact_number(t.intra_link.bandwidth_gb_per_s),
                                          exact_number(t.intra_link.bus_efficiency)})},
              {"inter_link", Json::array({exact_number(t.inter_link.latency_us), exact_number(t.inter_link.bandwidth_gb_per_s),
                                          exact_number(t.inter_link.bus_efficiency)})},
              {"nics", t.nics},
              {"capacity_bytes", exact_number(t.capacity_bytes)},
              {"state_copies", t.state_copies},
              {"units", part.units},
              {"reused", part.reused},
              // [index, latency, max_succ_stages, logical_mesh, zero_stage, remat, recv_allgather_ms, recv_replicas, set_by,
              //  state_bytes, activation_room_bytes, activation_bytes]
              {"entries", entries}};
}

Result<StageCostPart> stage_cost_part_from_json(const Json& j) {
  auto bad = [](const std::string& what, const std::string& path) {
    return make_error(ErrorCode::bad_value, "a stage-cost part needs " + what, path);
  };
  if (!j.is_object()) return bad("to be an object", "");
  for (const char* k : {"layers", "nodes", "gpus_per_node", "units", "reused"})
    if (!j.contains(k) || !j[k].is_number_integer()) return bad(std::string("an integer '") + k + "'", k);
  const int64_t layers = j["layers"].get<int64_t>();
  if (layers < 1 || layers > 4096) return bad("1 to 4096 layers", "layers");
  if (!j.contains("submeshes") || !j["submeshes"].is_array()) return bad("a 'submeshes' array", "submeshes");
  std::vector<Submesh> subs;
  for (const Json& m : j["submeshes"]) {
    if (!m.is_array() || m.size() != 2 || !m[0].is_number_integer() || !m[1].is_number_integer()) return bad("[nodes, gpus] sub-meshes", "submeshes");
    subs.push_back(Submesh{m[0].get<int>(), m[1].get<int>()});
  }
  StageCostPart part;
  StageCostTable& t = part.table;
  t.reset(int(layers), j["nodes"].get<int>(), j["gpus_per_node"].get<int>(), subs);
  t.has_boundaries = j.value("has_boundaries", false);
  if (!j.contains("cut_bytes") || !j["cut_bytes"].is_array() || j["cut_bytes"].size() != size_t(layers)) return bad("one cut size per layer", "cut_bytes");
  for (size_t i = 0; i < size_t(layers); ++i)
    if (!read_exact_number(j["cut_bytes"][i], t.cut_bytes[i])) return bad("numbers in cut_bytes", "cut_bytes[" + std::to_string(i) + "]");
  for (const char* k : {"intra_link", "inter_link"}) {
    LinkSpec& link = std::string(k) == "intra_link" ? t.intra_link : t.inter_link;
    if (!j.contains(k) || !j[k].is_array() || j[k].size() < 2 || j[k].size() > 3 || !read_exact_number(j[k][0], link.latency_us) ||
        !read_exact_number(j[k][1], link.bandwidth_gb_per_s) || (j[k].size() == 3 && !read_exact_number(j[k][2], link.bus_efficiency)))
      return bad("[latency_us, bandwidth_gb_per_s, bus_efficiency] links", k);
  }
  if (j.contains("nics")) {
    if (!j["nics"].is_number_integer() || j["nics"].get<int64_t>() < 1 || j["nics"].get<int64_t>() > kMaxNicsPerNode)
      return bad("nics from 1 to " + std::to_string(kMaxNicsPerNode), "nics");
    t.nics = j["nics"].get<int>();
  }
  if (j.contains("capacity_bytes") && !read_exact_number(j["capacity_bytes"], t.capacity_bytes)) return bad("a number for capacity_bytes", "capacity_bytes");
  if (j.contains("state_copies")) {
    if (!j["state_copies"].is_number_integer() || j["state_copies"].get<int>() < 1 || j["state_copies"].get<int>() > 2) return bad("state_copies 1 or 2", "state_copies");
    t.state_copies = j["state_copies"].get<int>();
  }
  part.units = j["units"].get<int>();
  part.reused = j["reused"].get<int>();
  part.set_by.assign(t.latency.size(), -1);
  if (!j.contains("entries") || !j["entries"].is_array()) return bad("an 'entries' array", "entries");
  for (size_t k = 0; k < j["entries"].size(); ++k) {
    const Json& e = j["entries"][k];
    const std::string path = "entries[" + std::to_string(k) + "]";
    if (!e.is_array() || e.size() < 12 || e.size() > 14 || !e[0].is_number_unsigned() || !e[2].is_number_integer() || !e[3].is_string() ||
        !e[4].is_number_integer() || !e[5].is_number_integer() || !e[7].is_number_integer() || !e[8].is_number_integer())
      return bad("entries [index, latency, max_succ, mesh, zero, remat, allgather_ms, replicas, set_by, state, room, activation bytes]", path);
    const size_t i = e[0].get<size_t>();
    if (i >= t.latency.size()) return bad("entry indices inside the table", path);
    if (!read_exact_number(e[1], t.latency[i]) || !read_exact_number(e[6], t.recv_allgather_ms[i])) return bad("numbers for latencies", path);
    if (!read_exact_number(e[9], t.state_bytes[i]) || !read_exact_number(e[10], t.activation_room_bytes[i]) ||
        !read_exact_number(e[11], t.activation_bytes[i]))
      return bad("numbers for memory", path);
    t.max_succ_stages[i] = e[2].get<int>();
    t.logical_mesh[i] = e[3].get<std::string>();
    t.zero_stage[i] = e[4].get<int>();
    t.remat[i] = char(e[5].get<int>());
    t.recv_replicas[i] = e[7].get<int>();
    part.set_by[i] = e[8].get<int>();
    if (e.size() == 13) {
      const Json& m = e[12];
      double x[15];
      bool ok = m.is_array() && m.size() == 15;
      for (size_t q = 0; ok && q < 15; ++q) ok = read_exact_number(m[q], x[q]);
      if (!ok) return bad("15 numbers of memory sums as an entry's 13th element", path + "[12]");
      if (t.memory_sums.size() != t.latency.size()) t.memory_sums.assign(t.latency.size(), StageMemorySums{});
      StageMemorySums& s = t.memory_sums[i];
      s.latency = x[0];
      for (int z = 0; z < 4; ++z) {
        s.states[z] = x[1 + z];
        s.zero_ms[z] = x[5 + z];
      }
      s.activation = x[9];
      s.selective = x[10];
      s.kept = x[11];
      s.largest = x[12];
      s.recompute_ms = x[13];
      s.selective_ms = x[14];
    }
    if (e.size() == 14) {
      const Json& x = e[13];
      if (!x.is_array() || x.size() != 2 || !x[0].is_number_integer() || !x[1].is_array())
        return bad("[sequence parallel, memory options] as an entry's 14th element", path + "[13]");
      t.sequence_parallel[i] = char(x[0].get<int>() != 0);
      for (size_t q = 0; q < x[1].size(); ++q) {
        const Json& o = x[1][q];
        StageMemoryOption opt;
        bool ok = o.is_array() && o.size() == 7 && o[1].is_number_integer() && o[2].is_number_integer() && o[3].is_number_integer() &&
                  read_exact_number(o[0], opt.latency) && read_exact_number(o[4], opt.state_bytes) && read_exact_number(o[5], opt.fixed_bytes) &&
                  read_exact_number(o[6], opt.activation_bytes);
        if (!ok) return bad("memory options [latency, zero, mode, sp, state, fixed, activation bytes]", path + "[13][1][" + std::to_string(q) + "]");
        opt.zero_stage = std::clamp(o[1].get<int>(), 0, 3);
        opt.mode = std::clamp(o[2].get<int>(), 0, 2);
        opt.sequence_parallel = o[3].get<int>() != 0;
        t.memory_options[i].push_back(opt);
      }
    }
  }
  return part;
}

Result<StageCostTable> stage_costs_from_model(const Graph& g, const Cluster& cluster, const InterOpOptions& options,
                                             std::vector<std::pair<int, int>>* layers_out) {
  StageCostBuilder builder(g, cluster, options);
  if (layers_out) *layers_out = builder.layers();
  return builder.finish();
}

}  // namespace autopar
