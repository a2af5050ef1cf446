// Full simulation (FlexFlow Algorithm 1) and delta simulation (Algorithm 2).
//
// Every task has a positive duration, so a task becomes ready strictly after the task that
// released it started; the simulation therefore takes tasks in increasing (ready, order), and
// each task's times depend only on tasks that come before it in that order: its ready time is
// the latest end of its deps, and it starts at max(ready, end of the task before it on its
// device in that order).
//
// Delta simulation uses this. After one op's configuration changes, let K0 be the earliest
// (ready, order) key any changed task can have, before or after the change: every task before
// K0 keeps its times. From K0 on it walks the old timeline's processing order (a sorted list
// of slots it keeps) merged with a heap of the tasks the change reached, so that tasks are
// taken in the new (ready, order) order, as a full simulation would:
// - a task of the old order none of whose deps changed kept its ready time; it costs one
//   comparison: it starts at max(ready, device end) and, if that is its old start, it is
//   unchanged and nothing is propagated;
// - a task with a changed dep (or a new task) waits until all its deps are settled, then
//   enters the heap keyed by its new ready time; when taken, its new times are compared with
//   the old ones, and only a change is passed on to its successors.
// The device's end seen by each task is the end of the task before it in the new order, so
// changes that reorder a device are covered. The result is exactly the full simulation's,
// while the heap holds only the tasks a change reaches. The new order is written as it goes
// (for the next move); undo restores the old order and the saved times of changed tasks.
#include "simulator.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace autopar {
namespace {

using HeapItem = DeltaSimulator::QueueItem;

}  // namespace

namespace {

// A binary min-heap on (ready, order) with "replace the top": a finished task usually
// releases a successor, which then takes its place with one sift instead of a pop and a push.
// Keys are unique (orders are), so the order of pops does not depend on how the heap sifts.
// Two variants, each measured faster where it is used: full simulation's successor usually
// stays at or near the top, so sifts stop early on well-predicted branches (kDeep = false);
// delta simulation's heap holds more tasks whose comparisons are unpredictable, so it
// compares without branches and pops Floyd's way (kDeep = true).
template <bool kDeep>
class ReadyQueue {
 public:
  // Works on `storage` in place (the caller clears it when starting afresh).
  explicit ReadyQueue(std::vector<HeapItem>& storage) : h_(storage) {}
  bool empty() const { return h_.empty(); }
  const HeapItem& top() const { return h_[0]; }
  void push(const HeapItem& x) {
    h_.push_back(x);
    sift_up(h_.size() - 1, x);
  }
  void replace_top(const HeapItem& x) {
    h_[0] = x;
    sift_down();
  }
  void pop() {
    const HeapItem x = h_.back();
    h_.pop_back();
    const size_t n = h_.size();
    if (n == 0) return;
    if (!kDeep) {
      h_[0] = x;
      sift_down();
      return;
    }
    // Floyd's pop: the hole at the top sinks to a leaf along the smaller children (one
    // comparison per level, no early exit to mispredict), then the last item rises from there.
    size_t i = 0, c;
    while ((c = 2 * i + 2) < n) {
      c -= less(h_[c - 1], h_[c]);
      h_[i] = h_[c];
      i = c;
    }
    if (c == n) {   // a last, single child
      h_[i] = h_[c - 1];
      i = c - 1;
    }
    sift_up(i, x);
  }
  void heapify() {
    for (size_t i = h_.size() / 2; i-- > 0;) sift_down(i);
  }

 private:
  static bool less(const HeapItem& a, const HeapItem& b) {
    if (!kDeep) return a.ready < b.ready || (a.ready == b.ready && a.order < b.order);
    // Without branches. Ready times are never negative, and non-negative doubles order like
    // their bit patterns, so the key compares as two integers.
    uint64_t ra, rb;
    std::memcpy(&ra, &a.ready, sizeof ra);
    std::memcpy(&rb, &b.ready, sizeof rb);
    return (ra < rb) | ((ra == rb) & (a.order < b.order));
  }
  void sift_up(size_t i, const HeapItem& x) {
    while (i > 0) {
      size_t p = (i - 1) / 2;
      if (!less(x, h_[p])) break;
      h_[i] = h_[p];
      i = p;
    }
    h_[i] = x;
  }
  void sift_down(size_t i = 0) {
    const size_t n = h_.size();
    HeapItem x = h_[i];
    while (true) {
      size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && less(h_[c + 1], h_[c])) ++c;
      if (!less(h_[c], x)) break;
      h_[i] = h_[c];
      i = c;
    }
    h_[i] = x;
  }
  std::vector<HeapItem>& h_;
};
using FullQueue = ReadyQueue<false>;
using DeltaQueue = ReadyQueue<true>;

// Sets `v` to n zeros (+0.0 is all zero bits): one memset, where assign() filled element by
// element (1,264 devices on 16x8, a few percent of a delta step).
void zero(std::vector<double>& v, size_t n) {
  v.resize(n);
  std::memset(v.data(), 0, n * sizeof(double));
}

// Takes ready tasks in (ready, order) order until none is left; the queue holds the ready
// tasks, each task's `pending` counts its unfinished deps and `ready_ms` the latest dep end
// seen so far. Returns the latest end.
double run_queue(std::vector<Task>& tasks, FullQueue& queue, std::vector<double>& device_end) {
  double makespan = 0;
  while (!queue.empty()) {
    const HeapItem item = queue.top();
    Task& t = tasks[size_t(item.slot)];
    double& dev_end = device_end[size_t(t.device)];
    t.start_ms = std::max(t.ready_ms, dev_end);
    t.end_ms = t.start_ms + t.duration_ms;
    dev_end = t.end_ms;
    makespan = std::max(makespan, t.end_ms);
    bool replaced = false;
    for (int s : t.succs) {
      Task& u = tasks[size_t(s)];
      u.ready_ms = std::max(u.ready_ms, t.end_ms);
      if (--u.pending == 0) {
        if (!replaced) {
          queue.replace_top({u.ready_ms, u.order, s});
          replaced = true;
        } else {
          queue.push({u.ready_ms, u.order, s});
        }
      }
    }
    if (!replaced) queue.pop();
  }
  return makespan;
}

}  // namespace

double simulate_full(TaskGraph& tg) {
  auto& tasks = tg.tasks();
  // Reused between calls: MCMC simulates thousands of times per second.
  static thread_local std::vector<double> device_end;
  static thread_local std::vector<HeapItem> storage;
  zero(device_end, size_t(tg.topology().num_devices()));
  storage.clear();
  FullQueue queue(storage);
  for (int s : tg.live_slots()) {
    Task& t = tasks[size_t(s)];
    t.ready_ms = 0;
    t.pending = t.deps.size();
    if (t.pending == 0) storage.push_back({0.0, t.order, s});
  }
  queue.heapify();
  return run_queue(tasks, queue, device_end);
}

SimSummary summarize(const TaskGraph& tg, Optimizer optimizer) {
  SimSummary s;
  for (const Task& t : tg.tasks()) {
    if (!t.live) continue;
    ++s.tasks;
    s.makespan_ms = std::max(s.makespan_ms, t.end_ms);
    switch (t.kind) {
      case TaskKind::forward:
      case TaskKind::backward:
      case TaskKind::recompute: s.compute_ms += t.duration_ms; break;
      case TaskKind::transfer: s.activation_transfer_ms += t.duration_ms; s.activation_bytes += t.bytes; break;
      case TaskKind::sync: s.param_sync_ms += t.duration_ms; s.param_sync_bytes += t.bytes; break;
    }
  }
  const DeviceMemory memory(tg.graph(), tg.cluster(), tg.strategy(), optimizer);
  s.peak_device = memory.peak_device();
  s.peak_memory = memory.device(s.peak_device);
  s.peak_memory_bytes = int64_t(std::llround(memory.peak_bytes()));
  s.over_capacity_devices = memory.over_capacity_devices();
  s.fits = memory.fits();
  s.optimizer = optimizer;
  s.precision = memory.precision();
  return s;
}

DeltaSimulator::DeltaSimulator(const Graph& graph, const Cluster& cluster, const Strategy& strategy, CostSettings cost)
    : tg_(graph, cluster, strategy, cost) {
  simulate_all();
}

void DeltaSimulator::simulate_all() {
  makespan_ = simulate_full(tg_);
  const auto& tasks = tg_.tasks();
  order_ = tg_.live_slots();
  std::sort(order_.begin(), order_.end(), [&](int a, int b) {
    return Key{tasks[size_t(a)].ready_ms, tasks[size_t(a)].order} < Key{tasks[size_t(b)].ready_ms, tasks[size_t(b)].order};
  });
}

namespace {

// What set_config knows of a slot during one move.
enum : uint8_t {
  kUnmarked = 0,   // not reached by the change: its times are the old ones once the walk passed it
  kNotify = 1,     // not passed yet, and a waiting task counts it among its unsettled deps
  kWaiting = 2,    // reached by the change; Task::pending counts its unsettled deps
  kQueued = 3,     // in the heap with its new ready time
  kDone = 4,       // its new times are computed
  kGone = 5,       // removed by the change
};

}  // namespace

uint8_t DeltaSimulator::state(int slot) const {
  return state_[size_t(slot)];
}

void DeltaSimulator::set_state(int slot, uint8_t s) {
  uint8_t& state = state_[size_t(slot)];
  if (state == kUnmarked) marked_.push_back(slot);   // to be cleared when the move is done
  state = s;
}

void DeltaSimulator::count_unsettled(int slot, const Key& now) {
  auto& tasks = tg_.tasks();
  Task& t = tasks[size_t(slot)];
  int pending = 0;
  double ready = 0;   // the latest end among its settled deps
  for (int d : t.deps) {
    const uint8_t s = state(d);
    const Task& dep = tasks[size_t(d)];
    // Settled: recomputed already, or passed by the walk (then it kept its times).
    if (s == kDone || ((s == kUnmarked || s == kNotify) && Key{dep.ready_ms, dep.order} < now)) {
      ready = std::max(ready, dep.end_ms);
      continue;
    }
    ++pending;
    if (s == kUnmarked) set_state(d, kNotify);
  }
  if (pending == 0) {
    enqueue(slot, ready);
  } else {
    t.pending = pending;
    ready_[size_t(slot)] = ready;
    set_state(slot, kWaiting);
  }
}

void DeltaSimulator::enqueue(int slot, double ready) {
  DeltaQueue queue(heap_);
  const uint64_t order = tg_.tasks()[size_t(slot)].order;
  if (top_taken_) {   // the task being processed left its place at the top: take it
    queue.replace_top({ready, order, slot});
    top_taken_ = false;
  } else {
    queue.push({ready, order, slot});
  }
  set_state(slot, kQueued);
}

void DeltaSimulator::pass_on(int slot, bool changed, const Key& now) {
  auto& tasks = tg_.tasks();
  const double end = tasks[size_t(slot)].end_ms;
  for (int w : tasks[size_t(slot)].succs) {
    const uint8_t s = state(w);
    if (s == kWaiting) {
      double& ready = ready_[size_t(w)];
      ready = std::max(ready, end);
      if (--tasks[size_t(w)].pending == 0) enqueue(w, ready);
    } else if (changed && (s == kUnmarked || s == kNotify)) {
      count_unsettled(w, now);   // its ready time may change: it waits for its other deps
    }
  }
}

bool DeltaSimulator::compact_if_scattered() {
  // Accepted moves put new tasks in whatever slots are free, far from their neighbours in the
  // processing order; on a graph spread over many times its live slots a move took 1.05-1.12x
  // as long (DLRM 2x4 and 4x8; 1.2-1.4x while another process shared the caches). A compaction
  // costs about one move (53 us against 49 on 4x8, 13 against 19 on 2x4), hence not every time.
  constexpr int kCompactEvery = 64;
  const bool sparse = tg_.tasks().size() > 2 * size_t(tg_.live_count()) + 64;
  if (!sparse && ++compact_calls_ < kCompactEvery) return false;
  compact();
  return true;
}

void DeltaSimulator::compact() {
  compact_calls_ = 0;
  const std::vector<int>& remap = tg_.compact(order_);
  for (int& s : order_) s = remap[size_t(s)];   // 0, 1, 2, ...: the order lists every live task
  order_before_.clear();
  saved_valid_ = false;
  remat_move_ = false;
}

double DeltaSimulator::set_remat(bool remat) {
  tg_.set_remat(remat);
  simulate_all();
  last_recomputed_ = tg_.live_count();   // every task
  saved_valid_ = true;
  remat_move_ = true;
  return makespan_;
}

void DeltaSimulator::undo() {
  if (!saved_valid_) return;
  if (remat_move_) {
    remat_move_ = false;
    saved_valid_ = false;
    tg_.set_remat(!tg_.strategy().remat);
    simulate_all();
    return;
  }
  tg_.undo_last();
  auto& tasks = tg_.tasks();
  for (const SavedTimes& t : saved_times_) {
    Task& task = tasks[size_t(t.slot)];
    task.ready_ms = t.ready;
    task.start_ms = t.start;
    task.end_ms = t.end;
  }
  order_.swap(order_before_);
  makespan_ = saved_makespan_;
  saved_valid_ = false;
}

double DeltaSimulator::set_config(int op, const OpConfig& config) {
  remat_move_ = false;
  auto& tasks = tg_.tasks();
  saved_times_.clear();
  saved_makespan_ = makespan_;
  saved_valid_ = true;

  const TaskGraph::Change& change = tg_.set_config(op, config);
  const size_t n = tasks.size();
  if (state_.size() < n) state_.resize(n, kUnmarked);
  if (ready_.size() < n) ready_.resize(n, 0.0);
  for (int s : change.added) set_state(s, kWaiting);
  for (int s : change.removed) set_state(s, kGone);
  auto is_new = [&](int s) { return state(s) == kWaiting; };

  // K0: no changed task can have a (ready, order) key below it, before or after the change.
  Key k0{1e300, ~uint64_t(0)};
  auto lower = [&](Key k) { if (k < k0) k0 = k; };
  // A new task is ready no earlier than the end of any dep that keeps its times, and no
  // earlier than any new dep is (lower bounds, computed depth-first over new deps).
  lb_.resize(n);
  std::vector<int>& stack = stack_;
  for (int s : change.added) lb_[size_t(s)] = -1;
  for (int root : change.added) {
    if (lb_[size_t(root)] >= 0) continue;
    stack.assign(1, root);
    while (!stack.empty()) {
      int s = stack.back();
      double bound = 0;
      bool ready = true;
      for (int d : tasks[size_t(s)].deps) {
        if (is_new(d)) {
          if (lb_[size_t(d)] < 0) { stack.push_back(d); ready = false; }
          else bound = std::max(bound, lb_[size_t(d)]);
        } else {
          bound = std::max(bound, tasks[size_t(d)].end_ms);
        }
      }
      if (!ready) continue;
      lb_[size_t(s)] = bound;
      stack.pop_back();
    }
  }
  for (int s : change.added) {
    lower({lb_[size_t(s)], tasks[size_t(s)].order});
    // Survivors that gain a dep may become ready later: they are changed from their old key on.
    for (int u : tasks[size_t(s)].succs)
      if (!is_new(u)) lower({tasks[size_t(u)].ready_ms, tasks[size_t(u)].order});
  }
  for (int s : change.removed) lower({tasks[size_t(s)].ready_ms, tasks[size_t(s)].order});
  for (int s : change.touched) {
    // Survivors that lost a dep: from their old key, or earlier if they now become ready earlier.
    const Task& t = tasks[size_t(s)];
    double bound = 0;
    for (int d : t.deps) bound = std::max(bound, is_new(d) ? lb_[size_t(d)] : tasks[size_t(d)].end_ms);
    lower({t.ready_ms, t.order});
    lower({bound, t.order});
  }

  // The old timeline up to K0 stands: it gives each device's end and the makespan so far.
  auto key_of = [&](int s) { return Key{tasks[size_t(s)].ready_ms, tasks[size_t(s)].order}; };
  const size_t p0 = size_t(std::lower_bound(order_.begin(), order_.end(), k0, [&](int s, const Key& k) { return key_of(s) < k; }) -
                           order_.begin());
  zero(device_end_, size_t(tg_.topology().num_devices()));
  double makespan = 0;
  for (size_t i = 0; i < p0; ++i) {
    const Task& t = tasks[size_t(order_[i])];
    device_end_[size_t(t.device)] = t.end_ms;   // ends grow along a device's order
    makespan = std::max(makespan, t.end_ms);
  }
  std::vector<int>& next = order_before_;   // becomes the new order; the old one is kept for undo
  next.assign(order_.begin(), order_.begin() + std::ptrdiff_t(p0));

  // The tasks the edit reached: new ones, and survivors that lost or gained deps. Each waits
  // for its deps not yet settled at K0.
  dirty_.assign(change.added.begin(), change.added.end());
  for (int s : change.touched)
    if (state(s) == kUnmarked) { set_state(s, kWaiting); dirty_.push_back(s); }
  for (int s : change.added)
    for (int u : tasks[size_t(s)].succs)
      if (state(u) == kUnmarked) { set_state(u, kWaiting); dirty_.push_back(u); }
  heap_.clear();
  for (int s : dirty_) count_unsettled(s, k0);

  // Walk the old order from K0 merged with the heap, in the new (ready, order) order.
  DeltaQueue queue(heap_);
  const size_t count = order_.size();
  size_t pos = p0;
  int recomputed = 0;
  while (true) {
    while (pos < count) {
      const uint8_t s = state(order_[pos]);
      if (s == kUnmarked || s == kNotify) break;
      ++pos;   // gone, or reached by the change: it comes out of the heap
    }
    bool from_order = pos < count;
    if (!from_order && queue.empty()) break;
    // The walk's next tasks are known: start loading them (a no-op where unsupported).
    if (pos + 6 < count) __builtin_prefetch(&tasks[size_t(order_[pos + 6])]);
    if (from_order && !queue.empty()) {
      const Task& t = tasks[size_t(order_[pos])];
      const HeapItem& top = queue.top();
      from_order = t.ready_ms < top.ready || (t.ready_ms == top.ready && t.order < top.order);
    }
    if (from_order) {
      const int s = order_[pos++];
      Task& t = tasks[size_t(s)];
      int unsettled = 0;
      for (int d : t.deps) {
        const uint8_t sd = state(d);
        unsettled += sd == kWaiting || sd == kQueued;
      }
      if (unsettled > 0) {   // a dep is still to be recomputed: so is this task
        double ready = 0;
        for (int d : t.deps) {
          const uint8_t sd = state(d);
          if (sd != kWaiting && sd != kQueued) ready = std::max(ready, tasks[size_t(d)].end_ms);
        }
        t.pending = unsettled;
        ready_[size_t(s)] = ready;
        set_state(s, kWaiting);
        continue;
      }
      // Its deps kept their times, so it kept its ready time; only its device can delay or advance it.
      double& device_end = device_end_[size_t(t.device)];
      const double start = std::max(t.ready_ms, device_end);
      const Key now{t.ready_ms, t.order};
      if (start != t.start_ms) {
        saved_times_.push_back({s, t.ready_ms, t.start_ms, t.end_ms});
        t.start_ms = start;
        t.end_ms = start + t.duration_ms;
        set_state(s, kDone);
        ++recomputed;
        pass_on(s, true, now);
      } else if (state(s) == kNotify) {
        pass_on(s, false, now);   // waiting tasks counted it as unsettled
      }
      device_end = t.end_ms;
      makespan = std::max(makespan, t.end_ms);
      next.push_back(s);
    } else {
      const HeapItem item = queue.top();
      top_taken_ = true;   // popped once pass_on released nothing to take its place
      Task& t = tasks[size_t(item.slot)];
      double& device_end = device_end_[size_t(t.device)];
      const double start = std::max(item.ready, device_end);
      const bool changed = item.ready != t.ready_ms || start != t.start_ms;
      if (changed) saved_times_.push_back({item.slot, t.ready_ms, t.start_ms, t.end_ms});
      t.ready_ms = item.ready;
      t.start_ms = start;
      t.end_ms = start + t.duration_ms;
      device_end = t.end_ms;
      makespan = std::max(makespan, t.end_ms);
      set_state(item.slot, kDone);
      ++recomputed;
      next.push_back(item.slot);
      // A new task's successors are all waiting for it already, changed or not.
      pass_on(item.slot, changed, Key{item.ready, t.order});
      if (top_taken_) {
        queue.pop();
        top_taken_ = false;
      }
    }
  }
  order_.swap(next);
  for (int s : marked_) state_[size_t(s)] = kUnmarked;
  marked_.clear();
  last_recomputed_ = recomputed;
  makespan_ = makespan;
  return makespan_;
}

}  // namespace autopar
