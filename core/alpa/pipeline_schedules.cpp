// Pipeline schedules: orders and one simulator. See pipeline_schedules.h.
#include "pipeline_schedules.h"

#include "graph.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <utility>

namespace autopar {

namespace {

struct KindName {
  ScheduleKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {
    {ScheduleKind::gpipe, "gpipe"}, {ScheduleKind::one_f_one_b, "1f1b"}, {ScheduleKind::interleaved, "interleaved"},
    {ScheduleKind::zb_h1, "zb-h1"}, {ScheduleKind::zb_h2, "zb-h2"},      {ScheduleKind::zb_v, "zb-v"},        {ScheduleKind::dualpipe, "dualpipe"},
    {ScheduleKind::dualpipe_v, "dualpipev"},
};

// One step of a device's order. W steps name the split backward whose weight gradient they
// compute (resolved first in, first out when the order is built, as the engines' weight-gradient
// stores pop them). `joint` (DualPipe's F&B) makes an F wait for the next step's inputs too: the
// engine receives both before computing either.
struct Step {
  PassKind kind = PassKind::forward;
  int stage = 0, microbatch = 0, direction = 0;
  bool split = false, joint = false;
};
using Orders = std::vector<std::vector<Step>>;

// Builds one device's order: counts of the micro-batches each (stage, direction) has run
// forward and backward, and the split backwards still owing their W.
class OrderBuilder {
 public:
  explicit OrderBuilder(std::vector<Step>& out) : out_(out) {}
  void forward(int stage, int direction = 0, bool joint = false) {
    out_.push_back(Step{PassKind::forward, stage, forwards_[{stage, direction}]++, direction, false, joint});
  }
  void backward(int stage, bool split, int direction = 0) {
    const Step s{PassKind::backward, stage, backwards_[{stage, direction}]++, direction, split, false};
    out_.push_back(s);
    if (split) pending_.push_back(s);
  }
  // The oldest split backward's W (none pending: nothing, as an empty weight-gradient store).
  void weight() {
    if (pending_.empty()) return;
    Step s = pending_.front();
    pending_.pop_front();
    s.kind = PassKind::weight;
    out_.push_back(s);
  }
  bool pending() const { return !pending_.empty(); }

 private:
  std::vector<Step>& out_;
  std::map<std::pair<int, int>, int> forwards_, backwards_;
  std::deque<Step> pending_;
};

// GPipe: every forward, then every backward (Huang et al. 2019, Fig. 2).
void gpipe_order(OrderBuilder& o, int stage, int M) {
  for (int m = 0; m < M; ++m) o.forward(stage);
  for (int m = 0; m < M; ++m) o.backward(stage, false);
}

// 1F1B (PipeDream-Flush): p - s - 1 warm-up forwards, then one forward and one backward in
// turn, then the remaining backwards (Narayanan et al. 2021, Fig. 4).
void one_f_one_b_order(OrderBuilder& o, int stage, int P, int M) {
  const int warmup = std::min(P - stage - 1, M);
  for (int m = 0; m < warmup; ++m) o.forward(stage);
  for (int m = warmup; m < M; ++m) {
    o.forward(stage);
    o.backward(stage, false);
  }
  for (int m = 0; m < warmup; ++m) o.backward(stage, false);
}

// Interleaved 1F1B (Megatron-LM's forward_backward_pipelining_with_interleaving): device d holds
// stages c*p + d for chunks c < v; its k-th forward is chunk (k mod pv) / p of micro-batch
// (k / pv) p + k mod p, backwards take the chunks in reverse; warm-up 2(p - d - 1) + (v - 1) p
// forwards (all of them when m == p).
void interleaved_order(OrderBuilder& o, int d, int P, int v, int M) {
  const int total = M * v;
  const int warmup = M == P ? total : std::min(2 * (P - d - 1) + (v - 1) * P, total);
  auto chunk = [&](int k, bool forward) {
    const int c = (k % (P * v)) / P;
    return forward ? c : v - 1 - c;
  };
  auto fwd = [&](int k) { o.forward(chunk(k, true) * P + d); };
  auto bwd = [&](int k) { o.backward(chunk(k, false) * P + d, false); };
  for (int k = 0; k < warmup; ++k) fwd(k);
  for (int i = 0; i < total - warmup; ++i) {
    fwd(warmup + i);
    bwd(i);
  }
  for (int k = total - warmup; k < total; ++k) bwd(k);
}

// ZB-H1 (Qi et al. 2024, Fig. 3; the authors' ZB-H1 pipeline for DeepSpeed): 1F1B's warm-up,
// then stage s defers the weight gradient of its first s backwards and from then on runs each
// F, B with one deferred W, so the deferred W's fill the drain. Stage 0 defers none.
void zb_h1_order(OrderBuilder& o, int s, int P, int M) {
  const int warmup = std::min(P - s - 1, M);
  int f = 0, b = 0;
  for (; f < warmup; ++f) o.forward(s);
  for (int i = 0; i < s && f < M; ++i, ++f, ++b) {
    o.forward(s);
    o.backward(s, true);
  }
  for (; f < M; ++f, ++b) {
    o.forward(s);
    o.backward(s, true);
    o.weight();
  }
  for (; b < M; ++b) {
    o.backward(s, true);
    o.weight();
  }
  while (o.pending()) o.weight();
}

// DualPipe and DualPipeV (deepseek-ai/DualPipe, dualpipe.py and dualpipev.py, steps 1-8). Each
// device has two phases: DualPipe's forward pipeline (stage d) and reverse pipeline (stage
// p-1-d, direction 1), the second half of the devices starting from the reverse one; DualPipeV's
// down and up legs of the V (stages d and 2p-1-d). `half_rank` and `ranks` are the code's:
// DualPipe min(d, p-1-d) of p/2, DualPipeV d of p.
struct DualPhases {
  int stage[2];
  int direction[2];
};
void dualpipe_steps(OrderBuilder& o, const DualPhases& ph, int half_rank, int ranks, int microbatches_per_phase, bool middle) {
  auto F = [&](int p, bool joint = false) { o.forward(ph.stage[p], ph.direction[p], joint); };
  auto B = [&](int p, bool split) { o.backward(ph.stage[p], split, ph.direction[p]); };
  const int rest = ranks - half_rank - 1;
  for (int i = 0; i < 2 * rest; ++i) F(0);                       // 1: nF0
  for (int i = 0; i < half_rank + 1; ++i) { F(0); F(1); }        // 2: nF0F1
  for (int i = 0; i < rest; ++i) { B(1, true); o.weight(); F(1); }   // 3: nB1W1F1
  const int main_steps = microbatches_per_phase - 2 * ranks + half_rank + 1;
  for (int i = 0; i < main_steps; ++i) {                         // 4: nF0B1F1B0
    if (i == 0 && middle) {
      F(0);
      B(1, false);       // the middle ranks run these two apart, to shrink the bubble
    } else {
      F(0, true);
      B(1, false);
    }
    F(1, true);
    B(0, false);
  }
  for (int i = 0; i < rest; ++i) { B(1, false); F(1, true); B(0, false); }   // 5: nB1F1B0
  bool split = false;                                            // 6: nB1B0, zero bubble from the middle on
  const int n6 = half_rank + 1;
  for (int i = 0; i < n6; ++i) {
    if (i == n6 / 2 && half_rank % 2 == 1) split = true;
    B(1, split);
    if (i == n6 / 2 && half_rank % 2 == 0) split = true;
    B(0, split);
  }
  for (int i = 0; i < rest; ++i) { o.weight(); B(0, true); }     // 7: nWB0
  while (o.pending()) o.weight();                                // 8: nW
}

}  // namespace

const std::vector<ScheduleKind>& all_schedule_kinds() {
  static const std::vector<ScheduleKind> kinds = [] {
    std::vector<ScheduleKind> k;
    for (const KindName& n : kKindNames) k.push_back(n.kind);
    return k;
  }();
  return kinds;
}

const char* schedule_name(ScheduleKind kind) {
  for (const KindName& n : kKindNames)
    if (n.kind == kind) return n.name;
  return "?";
}

Result<ScheduleKind> parse_schedule_kind(const std::string& name, const std::string& path) {
  std::string lower;
  for (char c : name) lower += char(std::tolower(static_cast<unsigned char>(c)));
  for (const KindName& n : kKindNames)
    if (lower == n.name) return n.kind;
  std::string names;
  for (const KindName& n : kKindNames) names += std::string(names.empty() ? "" : ", ") + n.name;
  return make_error(ErrorCode::bad_value, "unknown pipeline schedule '" + name + "': use one of " + names, path);
}

int schedule_chunks_per_device(ScheduleKind kind, int interleave) {
  switch (kind) {
    case ScheduleKind::interleaved: return std::max(1, interleave);
    case ScheduleKind::zb_v:
    case ScheduleKind::dualpipe_v: return 2;
    default: return 1;
  }
}

int schedule_parameter_copies(ScheduleKind kind) { return kind == ScheduleKind::dualpipe ? 2 : 1; }

bool schedule_splits_weight_gradient(ScheduleKind kind) {
  return kind == ScheduleKind::zb_h1 || kind == ScheduleKind::zb_h2 || kind == ScheduleKind::zb_v || kind == ScheduleKind::dualpipe ||
         kind == ScheduleKind::dualpipe_v;
}

int stage_count(ScheduleKind kind, int devices, int interleave) { return devices * schedule_chunks_per_device(kind, interleave); }

int stage_device(ScheduleKind kind, int devices, int interleave, int stage, int direction) {
  switch (kind) {
    case ScheduleKind::interleaved: return stage % devices;
    case ScheduleKind::zb_v:
    case ScheduleKind::dualpipe_v: return stage < devices ? stage : 2 * devices - 1 - stage;
    case ScheduleKind::dualpipe: return direction == 0 ? stage : devices - 1 - stage;
    default: (void)interleave; return stage;
  }
}

ScheduleInput uniform_schedule_input(ScheduleKind kind, int devices, int microbatches, int interleave, double f_ms, double b_ms,
                                     double w_ms, double send_ms) {
  ScheduleInput in;
  in.kind = kind;
  in.devices = devices;
  in.microbatches = microbatches;
  in.interleave = interleave;
  in.send_ms = send_ms;
  const int c = schedule_chunks_per_device(kind, interleave);
  const int S = std::max(0, stage_count(kind, devices, interleave));
  in.forward_ms.assign(size_t(S), f_ms / c);
  in.backward_ms.assign(size_t(S), b_ms / c);
  in.weight_ms.assign(size_t(S), w_ms / c);
  return in;
}

Status validate_schedule_input(const ScheduleInput& in) {
  if (in.devices < 1 || in.devices > kScheduleMaxDevices)
    return make_error(ErrorCode::out_of_range, "pipeline devices must be 1 to " + std::to_string(kScheduleMaxDevices) + ", got " +
                                                   std::to_string(in.devices), "devices");
  if (in.microbatches < 1 || in.microbatches > kScheduleMaxMicrobatches)
    return make_error(ErrorCode::out_of_range, "micro-batches must be 1 to " + std::to_string(kScheduleMaxMicrobatches) + ", got " +
                                                   std::to_string(in.microbatches), "microbatches");
  if (in.kind == ScheduleKind::interleaved) {
    if (in.interleave < 1 || in.interleave > kScheduleMaxInterleave)
      return make_error(ErrorCode::out_of_range, "interleaved 1F1B needs v (chunks per device) from 1 to " +
                                                     std::to_string(kScheduleMaxInterleave) + ", got " + std::to_string(in.interleave),
                        "interleave");
    if (in.microbatches % in.devices != 0)
      return make_error(ErrorCode::bad_value,
                        "interleaved 1F1B runs micro-batches in groups of the pipeline's devices (Megatron-LM): " +
                            std::to_string(in.microbatches) + " micro-batches on " + std::to_string(in.devices) +
                            " devices; use a multiple of " + std::to_string(in.devices),
                        "microbatches");
  }
  if (in.kind == ScheduleKind::dualpipe && in.devices % 2 != 0)
    return make_error(ErrorCode::bad_value, "DualPipe pairs device d with device p-1-d: it needs an even number of devices, got " +
                                                std::to_string(in.devices), "devices");
  if (in.kind == ScheduleKind::dualpipe && (in.microbatches % 2 != 0 || in.microbatches < 2 * in.devices))
    return make_error(ErrorCode::bad_value,
                      "DualPipe feeds half the micro-batches from each end and needs an even count of at least 2 x devices (" +
                          std::to_string(2 * in.devices) + "), got " + std::to_string(in.microbatches),
                      "microbatches");
  if (in.kind == ScheduleKind::dualpipe_v && in.microbatches < 2 * in.devices)
    return make_error(ErrorCode::bad_value, "DualPipeV needs at least 2 x devices (" + std::to_string(2 * in.devices) +
                                                ") micro-batches, got " + std::to_string(in.microbatches),
                      "microbatches");
  const size_t S = size_t(stage_count(in.kind, in.devices, in.interleave));
  const std::pair<const std::vector<double>*, const char*> times[] = {
      {&in.forward_ms, "forward_ms"}, {&in.backward_ms, "backward_ms"}, {&in.weight_ms, "weight_ms"}};
  for (const auto& [v, name] : times) {
    if (v->size() != S)
      return make_error(ErrorCode::bad_value, std::string(name) + " needs one time per stage: " + std::to_string(S) + " stages, got " +
                                                  std::to_string(v->size()), name);
    for (size_t s = 0; s < S; ++s)
      if (!std::isfinite((*v)[s]) || (*v)[s] < 0)
        return make_error(ErrorCode::out_of_range, "a pass time must be a finite number >= 0", std::string(name) + "[" + std::to_string(s) + "]");
  }
  for (size_t s = 0; s < S; ++s)
    if (in.weight_ms[s] > in.backward_ms[s])
      return make_error(ErrorCode::out_of_range,
                        "W is the weight-gradient part of the backward pass B, so it cannot take longer than B", "weight_ms[" + std::to_string(s) + "]");
  if (!in.boundary_send_ms.empty() && in.boundary_send_ms.size() != S)
    return make_error(ErrorCode::bad_value, "boundary_send_ms needs one time per stage (" + std::to_string(S) + "), got " +
                                                std::to_string(in.boundary_send_ms.size()), "boundary_send_ms");
  for (size_t s = 0; s < in.boundary_send_ms.size(); ++s)
    if (!std::isfinite(in.boundary_send_ms[s]) || in.boundary_send_ms[s] < 0)
      return make_error(ErrorCode::out_of_range, "a send time must be a finite number >= 0", "boundary_send_ms[" + std::to_string(s) + "]");
  if (!std::isfinite(in.send_ms) || in.send_ms < 0)
    return make_error(ErrorCode::out_of_range, "the send time must be a finite number >= 0", "send_ms");
  if (!std::isfinite(in.send_bytes) || in.send_bytes < 0)
    return make_error(ErrorCode::out_of_range, "the send size must be a finite number >= 0", "send_bytes");
  return Ok{};
}

const char* pass_kind_letter(PassKind kind) {
  switch (kind) {
    case PassKind::forward: return "F";
    case PassKind::backward: return "B";
    case PassKind::weight: return "W";
    case PassKind::send: return "send";
  }
  return "?";
}


namespace {

constexpr double kUnknown = -1;   // a time not known yet (times are >= 0)

// The timeline every order runs on: passes placed one at a time, each device in its order.
// A pass starts when its device is free and its inputs have arrived: F after the previous
// stage's F of that micro-batch (sent over when on another device), B after its own F and the
// next stage's B (the gradient, sent back), W after its B. A result crossing devices is a send on
// the directed link's lane, one at a time, `send_ms` each.
class Timeline {
 public:
  Timeline(const ScheduleInput& in, ScheduleResult& out)
      : in_(in), out_(out), S_(stage_count(in.kind, in.devices, in.interleave)),
        M_(in.kind == ScheduleKind::dualpipe ? in.microbatches / 2 : in.microbatches), dirs_(in.kind == ScheduleKind::dualpipe ? 2 : 1),
        chunk_share_(in.kind == ScheduleKind::dualpipe ? 1.0 : 1.0 / schedule_chunks_per_device(in.kind, in.interleave)) {
    const size_t cells = size_t(dirs_) * size_t(S_) * size_t(M_);
    f_end_.assign(cells, kUnknown);
    b_end_.assign(cells, kUnknown);
    f_arrive_.assign(cells, kUnknown);
    b_arrive_.assign(cells, kUnknown);
    free_at_.assign(size_t(in.devices), 0);
    lane_free_.assign(size_t(in.devices) * size_t(in.devices), 0);
    events_.resize(size_t(in.devices));
  }
  int stages() const { return S_; }
  double free_at(int d) const { return free_at_[size_t(d)]; }
  int device_of(const Step& s) const { return stage_device(in_.kind, in_.devices, in_.interleave, s.stage, s.direction); }

  // When the step's inputs are all there, or kUnknown while one is still to be computed.
  double ready(const Step& s) const {
    const size_t i = cell(s.direction, s.stage, s.microbatch);
    switch (s.kind) {
      case PassKind::forward: return s.stage == 0 ? 0 : f_arrive_[cell(s.direction, s.stage - 1, s.microbatch)];
      case PassKind::backward: {
        const double own = f_end_[i];
        const double grad = s.stage + 1 == S_ ? 0 : b_arrive_[cell(s.direction, s.stage + 1, s.microbatch)];
        return own < 0 || grad < 0 ? kUnknown : std::max(own, grad);
      }
      case PassKind::weight: return b_end_[i];
      case PassKind::send: break;
    }
    return kUnknown;
  }
  double duration(const Step& s) const {
    const size_t st = size_t(s.stage);
    switch (s.kind) {
      case PassKind::forward: return in_.forward_ms[st];
      case PassKind::backward: return s.split ? in_.backward_ms[st] - in_.weight_ms[st] : in_.backward_ms[st];
      case PassKind::weight: return in_.weight_ms[st];
      case PassKind::send: break;
    }
    return 0;
  }
  // Runs the step on its device from max(free, ready); returns its end.
  double place(const Step& s, double ready_ms) {
    const int d = device_of(s);
    const double start = std::max(ready_ms, free_at_[size_t(d)]);
    const double end = start + duration(s);
    free_at_[size_t(d)] = end;
    const size_t i = cell(s.direction, s.stage, s.microbatch);
    SchedulePass p;
    p.kind = s.kind;
    p.device = d;
    p.stage = s.stage;
    p.microbatch = s.microbatch + s.direction * M_;
    p.direction = s.direction;
    p.whole_backward = s.kind == PassKind::backward && !s.split;
    p.start_ms = start;
    p.end_ms = end;
    out_.order[size_t(d)].push_back(int(out_.passes.size()));
    out_.passes.push_back(p);
    out_.busy_ms[size_t(d)] += end - start;
    if (s.kind == PassKind::forward) {
      f_end_[i] = end;
      f_arrive_[i] = s.stage + 1 < S_ ? hand_over(s, s.stage + 1, end, false) : end;
      events_[size_t(d)].push_back({start, +chunk_share_});
    } else if (s.kind == PassKind::backward) {
      b_end_[i] = end;
      b_arrive_[i] = s.stage > 0 ? hand_over(s, s.stage - 1, end, true) : end;
      if (!s.split) events_[size_t(d)].push_back({end, -chunk_share_});
    } else {
      events_[size_t(d)].push_back({end, -chunk_share_});
    }
    return end;
  }
  // The sends, after the compute passes, and the in-flight curves.
  void finish() {
    for (SchedulePass& p : sends_) out_.passes.push_back(p);
    for (size_t d = 0; d < events_.size(); ++d) {
      auto& ev = events_[d];
      // Frees before allocations at one instant: memory released is reused at once.
      std::stable_sort(ev.begin(), ev.end(), [](const InflightPoint& a, const InflightPoint& b) {
        return a.time_ms < b.time_ms || (a.time_ms == b.time_ms && a.inflight < b.inflight);
      });
      double level = 0, peak = 0;
      auto& curve = out_.inflight[d];
      for (const InflightPoint& e : ev) {
        level += e.inflight;
        if (std::fabs(level) < 1e-12) level = 0;
        if (!curve.empty() && curve.back().time_ms == e.time_ms) curve.back().inflight = level;
        else curve.push_back({e.time_ms, level});
        peak = std::max(peak, level);
      }
      out_.peak_inflight[d] = peak;
    }
  }

 private:
  size_t cell(int direction, int stage, int mb) const { return (size_t(direction) * size_t(S_) + size_t(stage)) * size_t(M_) + size_t(mb); }
  // The result of step `s` handed to stage `to`: a send when that stage is on another device.
  double hand_over(const Step& s, int to, double end, bool gradient) {
    const int from_device = device_of(s);
    const int to_device = stage_device(in_.kind, in_.devices, in_.interleave, to, s.direction);
    if (from_device == to_device) return end;
    ++out_.sends;
    out_.p2p_bytes += in_.send_bytes;
    const double send = s.stage < int(in_.boundary_send_ms.size()) ? in_.boundary_send_ms[size_t(std::min(s.stage, to))] : in_.send_ms;
    if (!(send > 0)) return end;
    double& lane = lane_free_[size_t(from_device) * size_t(in_.devices) + size_t(to_device)];
    const double start = std::max(end, lane);
    lane = start + send;
    SchedulePass p;
    p.kind = PassKind::send;
    p.device = from_device;
    p.to_device = to_device;
    p.stage = s.stage;
    p.microbatch = s.microbatch + s.direction * M_;
    p.direction = s.direction;
    p.gradient = gradient;
    p.start_ms = start;
    p.end_ms = lane;
    sends_.push_back(p);
    return lane;
  }
  const ScheduleInput& in_;
  ScheduleResult& out_;
  int S_, M_, dirs_;
  double chunk_share_;
  std::vector<double> f_end_, b_end_, f_arrive_, b_arrive_, free_at_, lane_free_;
  std::vector<SchedulePass> sends_;
  std::vector<std::vector<InflightPoint>> events_;   // per device: (time, +share at F start / -share when freed)
};

// Runs fixed orders: every device takes its next step as soon as its inputs are known, until
// all are placed. An order that waits on itself is a bug in its builder (internal error).
Status run_orders(const Orders& orders, Timeline& t) {
  std::vector<size_t> next(orders.size(), 0);
  size_t left = 0;
  for (const auto& o : orders) left += o.size();
  while (left > 0) {
    bool progress = false;
    for (size_t d = 0; d < orders.size(); ++d) {
      while (next[d] < orders[d].size()) {
        const Step& s = orders[d][next[d]];
        double r = t.ready(s);
        if (r < 0) break;
        if (s.joint && next[d] + 1 < orders[d].size()) {
          const double r2 = t.ready(orders[d][next[d] + 1]);
          if (r2 < 0) break;
          r = std::max(r, r2);
        }
        t.place(s, r);
        ++next[d];
        --left;
        progress = true;
      }
    }
    if (!progress) return make_error(ErrorCode::internal, "a pipeline order waits on itself (a bug in its builder)", "schedule");
  }
  return Ok{};
}

// ZB-V (Qi et al. 2024, section 6): the V placement (device d runs stages d and 2p-1-d, so
// the first forward and the last backward are both on device 0) scheduled greedily under
// 1F1B's activation memory (p micro-batches of a device's share = 2p chunks): the device that
// can act first runs a ready B (one leg first), else -- memory full -- a deferred W to free
// room, else a ready F if memory allows, else a deferred W where it fits before the next
// input, else waits for that input. The authors build ZB-V by hand for F = B = W and search it
// otherwise; this greedy rule and its variants (best makespan kept) are ours. It beats ZB-H1
// when W is at least a quarter of B; with a small W its steady state drifts (tested).
struct ZbvPolicy {
  bool up_leg_first = true;            // among ready forwards, the up leg's first
  bool w_only_in_gaps = true;          // a deferred W only where it fits before the next input
  int down_leg_reserve = 1;            // chunks of room the down leg's forwards leave for the up leg
  bool free_when_full = true;          // with no room for a forward, a deferred W before waiting or a forward
  bool eager_w = false;                // each W right after its B (nothing deferred)
};
// `cutoff`: a variant one of whose devices cannot finish its remaining work before it (its free
// time plus the work left) cannot beat the best so far, and is dropped (infinite makespan) then.
std::pair<Orders, double> zb_v_orders(const ScheduleInput& in, ZbvPolicy policy, double cutoff) {
  const int P = in.devices, M = in.microbatches;
  ScheduleResult scratch;
  scratch.order.resize(size_t(P));
  scratch.busy_ms.assign(size_t(P), 0);
  scratch.inflight.resize(size_t(P));
  scratch.peak_inflight.assign(size_t(P), 0);
  Timeline t(in, scratch);
  Orders orders(static_cast<size_t>(P));
  const int limit = 2 * P;
  struct DeviceState {
    int f[2] = {0, 0}, b[2] = {0, 0};
    int inflight = 0;
    std::deque<Step> pending;
    bool done(int M) const { return f[0] == M && f[1] == M && b[0] == M && b[1] == M && pending.empty(); }
  };
  std::vector<DeviceState> st(static_cast<size_t>(P));
  auto stage_of = [&](int d, int leg) { return leg == 0 ? d : 2 * P - 1 - d; };
  // Each device's whole work: a device that cannot finish it before `cutoff` ends the variant.
  std::vector<double> work(static_cast<size_t>(P), 0);
  for (int d = 0; d < P; ++d)
    for (int leg = 0; leg < 2; ++leg)
      work[size_t(d)] += (in.forward_ms[size_t(stage_of(d, leg))] + in.backward_ms[size_t(stage_of(d, leg))]) * M;
  auto beyond_cutoff = [&](int d) { return t.free_at(d) + (work[size_t(d)] - scratch.busy_ms[size_t(d)]) >= cutoff * (1 - 1e-12); };
  // Per device, what it would run next and when (found false: nothing). A placement on device d
  // changes only the state of d and the inputs of d's neighbours in the V (stages s +- 1 sit on
  // devices d - 1, d, d + 1), so only those are evaluated again: the same choices, a third of
  // the work on 8 devices.
  struct Choice {
    bool valid = false, found = false;
    Step pick;
    double start = std::numeric_limits<double>::infinity();
  };
  std::vector<Choice> choice(static_cast<size_t>(P));
  for (;;) {
    // The device that can act first, and what it runs.
    int best_d = -1;
    Step best_step;
    double best_start = std::numeric_limits<double>::infinity();
    for (int d = 0; d < P; ++d) {
      Choice& ch = choice[size_t(d)];
      if (!ch.valid) {
        ch = Choice{};
        ch.valid = true;
        DeviceState& s = st[size_t(d)];
        if (s.done(M)) continue;
        const double now = t.free_at(d);
      // Candidates by priority, each with its ready time (kUnknown: not yet).
      // At most two backwards and two forwards: a fixed array (this loop runs per pass per device).
      struct Candidates {
        std::pair<Step, double> items[4];
        size_t n = 0;
        void push_back(const std::pair<Step, double>& c) { items[n++] = c; }
        size_t size() const { return n; }
        const std::pair<Step, double>& operator[](size_t i) const { return items[i]; }
        const std::pair<Step, double>* begin() const { return items; }
        const std::pair<Step, double>* end() const { return items + n; }
      } cand;
      for (int leg : {1, 0})   // the up leg's backward first: it is on the critical path
        if (s.b[leg] < s.f[leg]) {
          Step b{PassKind::backward, stage_of(d, leg), s.b[leg], 0, true, false};
          cand.push_back({b, t.ready(b)});
        }
      const size_t backward_candidates = cand.size();
      bool memory_full = false;        // a forward waits for room only
      for (int leg : {policy.up_leg_first ? 1 : 0, policy.up_leg_first ? 0 : 1}) {
        const int room = leg == 0 ? limit - policy.down_leg_reserve : limit;
        if (s.f[leg] < M && s.inflight + 1 > room && (leg == 0 || s.f[1] < s.f[0])) memory_full = true;
        if (s.f[leg] < M && s.inflight + 1 <= room && (leg == 0 || s.f[1] < s.f[0])) {
          Step f{PassKind::forward, stage_of(d, leg), s.f[leg], 0, false, false};
          cand.push_back({f, t.ready(f)});
        }
      }
      // The first candidate ready now runs now; else a deferred W fills the wait; else the
      // candidate whose input arrives first.
      Step pick;
      double start = std::numeric_limits<double>::infinity();
      bool found = false;
      for (size_t i = 0; i < cand.size() && !found; ++i) {
        // Memory full: a deferred W frees room before another forward is let in.
        if (i == backward_candidates && policy.free_when_full && memory_full && !s.pending.empty()) {
          pick = s.pending.front(); start = now; found = true; break;
        }
        if (cand[i].second >= 0 && cand[i].second <= now) { pick = cand[i].first; start = now; found = true; }
      }
      if (!found && policy.free_when_full && memory_full && !s.pending.empty()) { pick = s.pending.front(); start = now; found = true; }
      double first = std::numeric_limits<double>::infinity();
      Step first_step;
      for (const auto& [c, r] : cand)
        if (r >= 0 && r < first) { first = r; first_step = c; }
      // A deferred W runs in a wait it fits in (or when nothing else is known to come).
      if (!found && !s.pending.empty() && (!policy.w_only_in_gaps || now + t.duration(s.pending.front()) <= first + 1e-12)) {
        pick = s.pending.front(); start = now; found = true;
      }
      if (!found && first < std::numeric_limits<double>::infinity()) { pick = first_step; start = first; found = true; }
        ch.found = found;
        ch.pick = pick;
        ch.start = start;
      }
      if (ch.found && ch.start < best_start) { best_start = ch.start; best_d = d; best_step = ch.pick; }
    }
    if (best_d < 0) break;
    for (int e = std::max(0, best_d - 1); e <= std::min(P - 1, best_d + 1); ++e) choice[size_t(e)].valid = false;
    DeviceState& s = st[size_t(best_d)];
    const int leg = best_step.stage == stage_of(best_d, 0) && best_step.stage < P ? 0 : 1;
    if (best_step.kind == PassKind::forward) { ++s.f[leg]; ++s.inflight; }
    else if (best_step.kind == PassKind::backward) {
      ++s.b[leg];
      Step w = best_step;
      w.kind = PassKind::weight;
      s.pending.push_back(w);
    }
    else { s.pending.pop_front(); --s.inflight; }
    t.place(best_step, t.ready(best_step));
    if (beyond_cutoff(best_d)) return {orders, std::numeric_limits<double>::infinity()};
    orders[size_t(best_d)].push_back(best_step);
    if (policy.eager_w && best_step.kind == PassKind::backward) {
      // W at once: the V placement with whole backwards (what a small W is best spent on).
      const Step w = s.pending.back();
      s.pending.pop_back();
      --s.inflight;
      t.place(w, t.ready(w));
      if (beyond_cutoff(best_d)) return {orders, std::numeric_limits<double>::infinity()};
      orders[size_t(best_d)].push_back(w);
    }
  }
  // A rule that stalls before every pass is placed (memory held by passes that wait on each
  // other) gives no schedule.
  double makespan = 0;
  for (int d = 0; d < P; ++d) {
    if (!st[size_t(d)].done(M)) return {orders, std::numeric_limits<double>::infinity()};
    makespan = std::max(makespan, t.free_at(d));
  }
  return {orders, makespan};
}

// ZB-V: the best of the greedy rule's variants (the authors too search for theirs).
Orders zb_v_orders(const ScheduleInput& in) {
  // Every variant stalled: no order (an empty list).
  std::pair<Orders, double> best{{}, std::numeric_limits<double>::infinity()};
  // No order beats the busiest device's own work: a variant that reaches it ends the search.
  double bound = 0;
  for (int d = 0; d < in.devices; ++d) {
    double work = 0;
    for (int leg = 0; leg < 2; ++leg) {
      const size_t st = size_t(leg == 0 ? d : 2 * in.devices - 1 - d);
      work += (in.forward_ms[st] + in.backward_ms[st]) * in.microbatches;
    }
    bound = std::max(bound, work);
  }
  for (bool up : {true, false})
    for (bool gaps : {true, false})
      for (bool free_full : {true, false})
        for (bool eager : {false, true})
          for (int reserve : {1, 2}) {
          // With each W right after its B nothing is ever deferred, so the two rules about
          // deferred W's cannot change the order: those variants would repeat this one.
          if (eager && (!gaps || !free_full)) continue;
          ZbvPolicy policy;
          policy.down_leg_reserve = reserve;
          policy.up_leg_first = up;
          policy.w_only_in_gaps = gaps;
          policy.free_when_full = free_full;
          policy.eager_w = eager;
          if (best.second <= bound * (1 + 1e-12)) return best.first;
          auto o = zb_v_orders(in, policy, best.second);
          if (o.second < best.second) best = std::move(o);
        }
  return best.first;
}

// ZB-H2 (Qi et al. 2024, section 2.2, Fig. 3 bottom, Table 2): at up to 2p-1 micro-batches'
// activations per device (twice 1F1B's), the bubble before the first B is filled with more
// warm-up forwards, and the W passes are deferred so that the B's run back to back in the tail
// (the trapezoid becomes a parallelogram). Built greedily on the timeline, as ZB-V is: the device
// that can act first runs a ready B, else a ready F while its activations stay under the limit,
// else a deferred W (in a wait it fits in, or to free memory), else waits for its next input.
// With T_F = T_B = T_W each device then runs without a gap from its first pass to its last.
Orders zb_h2_orders(const ScheduleInput& in) {
  const int P = in.devices, M = in.microbatches;
  const int limit = 2 * P - 1;
  ScheduleResult scratch;
  scratch.order.resize(size_t(P));
  scratch.busy_ms.assign(size_t(P), 0);
  scratch.inflight.resize(size_t(P));
  scratch.peak_inflight.assign(size_t(P), 0);
  Timeline t(in, scratch);
  Orders orders(static_cast<size_t>(P));
  struct DeviceState {
    int f = 0, b = 0, inflight = 0;
    std::deque<Step> pending;
  };
  std::vector<DeviceState> st(static_cast<size_t>(P));
  const double inf = std::numeric_limits<double>::infinity();
  for (;;) {
    int best_d = -1;
    Step best_step;
    double best_start = inf;
    for (int d = 0; d < P; ++d) {
      DeviceState& s = st[size_t(d)];
      if (s.f == M && s.b == M && s.pending.empty()) continue;
      const double now = t.free_at(d);
      const Step b{PassKind::backward, d, s.b, 0, true, false};
      const Step f{PassKind::forward, d, s.f, 0, false, false};
      const double rb = s.b < s.f ? t.ready(b) : kUnknown;
      const bool room = s.f < M && s.inflight < limit;
      const double rf = room ? t.ready(f) : kUnknown;
      Step pick;
      double start = inf;
      if (rb >= 0 && rb <= now) pick = b, start = now;
      else if (rf >= 0 && rf <= now) pick = f, start = now;
      else {
        const double next = std::min(rb >= 0 ? rb : inf, rf >= 0 ? rf : inf);
        const bool memory_full = s.f < M && !room;
        if (!s.pending.empty() && (memory_full || now + t.duration(s.pending.front()) <= next + 1e-12 || next == inf))
          pick = s.pending.front(), start = now;
        else if (next < inf) pick = rb >= 0 && rb == next ? b : f, start = next;
      }
      if (start < best_start) best_start = start, best_d = d, best_step = pick;
    }
    if (best_d < 0) break;
    DeviceState& s = st[size_t(best_d)];
    if (best_step.kind == PassKind::forward) ++s.f, ++s.inflight;
    else if (best_step.kind == PassKind::backward) {
      ++s.b;
      Step w = best_step;
      w.kind = PassKind::weight;
      s.pending.push_back(w);
    } else {
      s.pending.pop_front();
      --s.inflight;
    }
    t.place(best_step, t.ready(best_step));
    orders[size_t(best_d)].push_back(best_step);
  }
  return orders;
}

Result<Orders> build_orders(const ScheduleInput& in) {
  const int P = in.devices, M = in.microbatches;
  Orders orders(static_cast<size_t>(P));
  for (int d = 0; d < P; ++d) {
    OrderBuilder o(orders[size_t(d)]);
    switch (in.kind) {
      case ScheduleKind::gpipe: gpipe_order(o, d, M); break;
      case ScheduleKind::one_f_one_b: one_f_one_b_order(o, d, P, M); break;
      case ScheduleKind::interleaved: interleaved_order(o, d, P, in.interleave, M); break;
      case ScheduleKind::zb_h1: zb_h1_order(o, d, P, M); break;
      case ScheduleKind::zb_h2: break;
      case ScheduleKind::dualpipe: {
        // Device d: the forward pipeline's stage d and the reverse one's stage p-1-d; the
        // second half of the devices starts from the reverse pipeline (its phase 0).
        const bool second = d >= P / 2;
        DualPhases ph{{d, P - 1 - d}, {0, 1}};
        if (second) ph = DualPhases{{P - 1 - d, d}, {1, 0}};
        const bool middle = d == P / 2 - 1 || d == P / 2;
        dualpipe_steps(o, ph, std::min(d, P - 1 - d), P / 2, M / 2, middle);
        break;
      }
      case ScheduleKind::dualpipe_v:
        dualpipe_steps(o, DualPhases{{d, 2 * P - 1 - d}, {0, 0}}, d, P, M, d == P - 1);
        break;
      case ScheduleKind::zb_v: break;
    }
  }
  if (in.kind == ScheduleKind::zb_h2) return zb_h2_orders(in);
  if (in.kind == ScheduleKind::zb_v) {
    orders = zb_v_orders(in);
    if (orders.empty())
      return make_error(ErrorCode::infeasible, "no ZB-V order fits 1F1B's activation memory for these stage times; try zb-h1", "schedule");
  }
  return orders;
}

}  // namespace

Result<ScheduleResult> simulate_schedule(const ScheduleInput& in) {
  if (Status v = validate_schedule_input(in); !v.ok()) return v.error();
  ScheduleResult out;
  out.kind = in.kind;
  out.devices = in.devices;
  out.microbatches = in.microbatches;
  out.interleave = in.kind == ScheduleKind::interleaved ? in.interleave : 1;
  out.stages = stage_count(in.kind, in.devices, in.interleave);
  out.order.resize(size_t(in.devices));
  out.busy_ms.assign(size_t(in.devices), 0);
  out.inflight.resize(size_t(in.devices));
  out.peak_inflight.assign(size_t(in.devices), 0);
  const Result<Orders> orders = build_orders(in);
  if (!orders.ok()) return orders.error();
  Timeline t(in, out);
  if (Status s = run_orders(orders.value(), t); !s.ok()) return s.error();
  t.finish();
  for (const SchedulePass& p : out.passes) out.makespan_ms = std::max(out.makespan_ms, p.end_ms);
  double idle = 0;
  for (int d = 0; d < in.devices; ++d) {
    out.bubble_ms.push_back(std::max(0.0, out.makespan_ms - out.busy_ms[size_t(d)]));
    idle += out.bubble_ms.back();
  }
  out.bubble_fraction = out.makespan_ms > 0 ? idle / (double(in.devices) * out.makespan_ms) : 0;
  return out;
}

std::vector<double> schedule_span_bubble(const ScheduleResult& r) {
  std::vector<double> first(size_t(r.devices), std::numeric_limits<double>::infinity()), last(size_t(r.devices), 0);
  for (const SchedulePass& p : r.passes) {
    if (p.kind == PassKind::send || p.device < 0 || p.device >= r.devices) continue;
    first[size_t(p.device)] = std::min(first[size_t(p.device)], p.start_ms);
    last[size_t(p.device)] = std::max(last[size_t(p.device)], p.end_ms);
  }
  std::vector<double> out(size_t(r.devices), 0);
  for (int d = 0; d < r.devices; ++d)
    if (std::isfinite(first[size_t(d)])) out[size_t(d)] = std::max(0.0, last[size_t(d)] - first[size_t(d)] - r.busy_ms[size_t(d)]);
  return out;
}

double schedule_longest_span(const ScheduleResult& r) {
  const std::vector<double> idle = schedule_span_bubble(r);
  double longest = 0;
  for (int d = 0; d < r.devices; ++d) longest = std::max(longest, r.busy_ms[size_t(d)] + idle[size_t(d)]);
  return longest;
}

double plan_weight_share(const Graph& g) {
  double weight = 0, backward = 0;
  for (const Op& op : g.ops) {
    backward += op.backward_flops;
    if (!op.params.empty()) weight += op.forward_flops;   // dW = X^T dY: a forward's multiply-adds
  }
  return backward > 0 ? std::min(1.0, weight / backward) : 0.5;
}

double plan_forward_share(const Graph& g) {
  double forward = 0, backward = 0;
  for (const Op& op : g.ops) {
    forward += op.forward_flops;
    backward += op.backward_flops;
  }
  return forward > 0 && backward > 0 ? forward / (forward + backward) : 1.0 / 3;
}

Result<ScheduleInput> plan_schedule_input(const PlanPipeline& plan, ScheduleKind kind, int interleave) {
  const int P = int(plan.stage_ms.size());
  if (P < 1) return make_error(ErrorCode::bad_value, "a plan needs at least one stage", "stages");
  if (plan.boundary_ms.size() != plan.stage_ms.size())
    return make_error(ErrorCode::bad_value, "a plan needs one boundary time per stage (0 for the last)", "boundary_ms");
  if (!(plan.forward_share > 0 && plan.forward_share < 1))
    return make_error(ErrorCode::out_of_range, "the forward's share of a stage's time is between 0 and 1", "forward_share");
  if (!(plan.weight_share >= 0 && plan.weight_share <= 1))
    return make_error(ErrorCode::out_of_range, "the weight-gradient share of the backward is from 0 to 1", "weight_share");
  ScheduleInput in;
  in.kind = kind;
  in.devices = P;
  in.microbatches = plan.microbatches;
  in.interleave = interleave;
  const int S = stage_count(kind, P, interleave);
  const int chunks = schedule_chunks_per_device(kind, interleave);
  for (int s = 0; s < S; ++s) {
    // DualPipe's stage s is the plan's stage s in both directions; a chunk is a share of its device's stage.
    const int d = kind == ScheduleKind::dualpipe ? s : stage_device(kind, P, interleave, s);
    const double t = plan.stage_ms[size_t(d)] / (kind == ScheduleKind::dualpipe ? 1 : chunks);
    const double backward = t * (1 - plan.forward_share);
    in.forward_ms.push_back(t * plan.forward_share);
    in.backward_ms.push_back(backward);
    in.weight_ms.push_back(backward * plan.weight_share);
    // A hand-over leaves the device over its stage's boundary link (half of it each way); the
    // last device's has none in the plan, so interleaving's wrap back to device 0 takes the
    // plan's slowest boundary.
    const double own = plan.boundary_ms[size_t(d)];
    in.boundary_send_ms.push_back((d == P - 1 ? *std::max_element(plan.boundary_ms.begin(), plan.boundary_ms.end()) : own) / 2);
  }
  if (Status v = validate_schedule_input(in); !v.ok()) return v.error();
  return in;
}

double published_bubble(ScheduleKind kind, int p, int v, double f, double b, double w) {
  switch (kind) {
    case ScheduleKind::gpipe:
    case ScheduleKind::one_f_one_b: return (p - 1) * (f + b);
    case ScheduleKind::interleaved: return (p - 1) * (f + b) / std::max(1, v);
    case ScheduleKind::zb_h1: return (p - 1) * (f + b - 2 * w);
    case ScheduleKind::zb_h2: return (p - 1) * (f + b - 3 * w);
    case ScheduleKind::dualpipe: return (p / 2.0 - 1) * ((f + b) + b - 3 * w);
    case ScheduleKind::dualpipe_v: return (p - 1) * ((f + b) + b - 3 * w) / 2;
    case ScheduleKind::zb_v: return -1;
  }
  return -1;
}

double published_peak_inflight(ScheduleKind kind, int p, int v, int m) {
  switch (kind) {
    case ScheduleKind::gpipe: return m;
    case ScheduleKind::one_f_one_b:
    case ScheduleKind::zb_h1:
    case ScheduleKind::zb_v: return p;
    case ScheduleKind::zb_h2: return 2.0 * p - 1;
    case ScheduleKind::interleaved: return p + double(p - 1) / std::max(1, v);
    case ScheduleKind::dualpipe: return p + 1;
    case ScheduleKind::dualpipe_v: return (2.0 * p + 1) / 2;
  }
  return -1;
}

}  // namespace autopar
