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
// K0 keeps its times, and gives the devices' ends at K0. The tasks from K0 on are taken in the
// new (ready, order) order, as a full simulation would take them, by walking the old timeline's
// processing order (a sorted list of slots it keeps) merged with a heap:
// - each task from K0 on (or new) waits for all its deps; the tasks before K0 and every task
//   simulated after them pass their ends on to their successors, as in a full simulation;
// - a task of the old order whose deps have all ended when the walk reaches it, at the ready
//   time it had, keeps its key and its place: it is simulated there, without the heap (it
//   starts at max(ready, device end), and is unchanged if that is its old start);
// - any other task (a new one, one whose ready time moved, one the walk reached before its
//   deps ended) enters the heap with its new ready time when its last dep ends.
// In DLRM searches most tasks after K0 change (a shifted task shifts everything after it on its
// GPU and links), so the heap takes about two thirds of them. The result is exactly the full
// simulation's. The new order is written as it goes (for the next move); undo restores the old
// order and the saved times of the tasks whose times changed.
#include "simulator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace autopar {
namespace {

using HeapItem = DeltaSimulator::QueueItem;

// (ready_a, order_a) < (ready_b, order_b), without branches. Ready times are never negative,
// and non-negative doubles order like their bit patterns, so the key compares as one 128-bit
// integer, (ready bits, order): a subtract with borrow (5% fewer instructions in the check's
// delta search than comparing the two halves and combining the results).
inline bool key_before(double ready_a, uint64_t order_a, double ready_b, uint64_t order_b) {
  uint64_t ra, rb;
  std::memcpy(&ra, &ready_a, sizeof ra);
  std::memcpy(&rb, &ready_b, sizeof rb);
  using u128 = unsigned __int128;
  return ((u128(ra) << 64) | order_a) < ((u128(rb) << 64) | order_b);
}

// A binary min-heap on (ready, order) with "replace the top": a finished task usually
// releases a successor, which then takes its place with one sift instead of a pop and a push.
// Keys are unique (orders are), so the order of pops does not depend on how the heap sifts.
// Two variants, each measured faster where it is used: full simulation's successor usually
// stays at or near the top, so sifts stop early on well-predicted branches (kDeep = false);
// delta simulation's heap holds more tasks whose comparisons are unpredictable, so it
// compares without branches and pops or replaces the top Floyd's way (kDeep = true).
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
    if (kDeep) {
      floyd(x);
      return;
    }
    h_[0] = x;
    sift_down();
  }
  void pop() {
    const HeapItem x = h_.back();
    h_.pop_back();
    if (h_.empty()) return;
    if (kDeep) {
      floyd(x);
      return;
    }
    h_[0] = x;
    sift_down();
  }
  void heapify() {
    for (size_t i = h_.size() / 2; i-- > 0;) sift_down(i);
  }

 private:
  static bool less(const HeapItem& a, const HeapItem& b) {
    if (!kDeep) return a.ready < b.ready || (a.ready == b.ready && a.order < b.order);
    return key_before(a.ready, a.order, b.ready, b.order);
  }
  // Floyd's way of putting x in place of the top: the hole at the top sinks to a leaf along
  // the smaller children (one comparison per level, no early exit to mispredict), then x rises
  // from there.
  void floyd(const HeapItem& x) {
    const size_t n = h_.size();
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

// Delta simulation's queue: a 4-ary min-heap on (ready, order), popped and replaced Floyd's way
// without branches. Nearly every task after K0 can go through it (all of them on a
// data-parallel transformer, where the queue holds about 47 tasks): half the levels of a binary
// heap for one more comparison per level, 6% fewer instructions per move on
// transformer:layers=24 and DLRM 16x8 than the binary heap above.
class QuadQueue {
 public:
  explicit QuadQueue(std::vector<HeapItem>& storage) : h_(storage) {}
  bool empty() const { return h_.empty(); }
  const HeapItem& top() const { return h_[0]; }
  void push(const HeapItem& x) {
    h_.push_back(x);
    sift_up(h_.size() - 1, x);
  }
  void replace_top(const HeapItem& x) { floyd(x); }
  void pop() {
    const HeapItem x = h_.back();
    h_.pop_back();
    if (!h_.empty()) floyd(x);
  }
  void heapify() {
    HeapItem* const d = h_.data();
    const size_t n = h_.size();
    for (size_t i = n < 2 ? 0 : (n - 2) / 4 + 1; i-- > 0;) {   // from the last entry's parent
      const HeapItem x = d[i];
      size_t j = i;
      while (true) {   // sift x down: the smallest child rises while it is before x
        size_t m = 4 * j + 1;
        if (m >= n) break;
        for (size_t k = m + 1; k < std::min(n, 4 * j + 5); ++k) m = less(d[k], d[m]) ? k : m;
        if (!less(d[m], x)) break;
        d[j] = d[m];
        j = m;
      }
      d[j] = x;
    }
  }

 private:
  static bool less(const HeapItem& a, const HeapItem& b) { return key_before(a.ready, a.order, b.ready, b.order); }
  void floyd(const HeapItem& x) {
    HeapItem* const d = h_.data();
    const size_t n = h_.size();
    size_t i = 0, c;
    while ((c = 4 * i + 4) < n) {   // four children
      size_t a = c - 3 + less(d[c - 2], d[c - 3]);
      size_t b = c - 1 + less(d[c], d[c - 1]);
      c = less(d[b], d[a]) ? b : a;
      d[i] = d[c];
      i = c;
    }
    c = 4 * i + 1;
    if (c < n) {   // one to three children
      size_t m = c;
      for (size_t k = c + 1; k < n; ++k) m = less(d[k], d[m]) ? k : m;
      d[i] = d[m];
      i = m;
    }
    sift_up(i, x);
  }
  void sift_up(size_t i, const HeapItem& x) {
    HeapItem* const d = h_.data();
    while (i > 0) {
      size_t p = (i - 1) / 4;
      if (!less(x, d[p])) break;
      d[i] = d[p];
      i = p;
    }
    d[i] = x;
  }
  std::vector<HeapItem>& h_;
};
using DeltaQueue = QuadQueue;

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
  std::array<double, kTaskBucketCount> bucket_ms{}, bucket_bytes{};   // by the kinds' breakdown bucket
  for (const Task& t : tg.tasks()) {
    if (!t.live) continue;
    ++s.tasks;
    s.makespan_ms = std::max(s.makespan_ms, t.end_ms);
    const int bucket = int(task_kind_traits(t.kind).bucket);
    bucket_ms[size_t(bucket)] += t.duration_ms;
    bucket_bytes[size_t(bucket)] += t.bytes;
  }
  s.compute_ms = bucket_ms[size_t(TaskBucket::compute)];
  s.activation_transfer_ms = bucket_ms[size_t(TaskBucket::activation_transfer)];
  s.activation_bytes = bucket_bytes[size_t(TaskBucket::activation_transfer)];
  s.param_sync_ms = bucket_ms[size_t(TaskBucket::param_sync)];
  s.param_sync_bytes = bucket_bytes[size_t(TaskBucket::param_sync)];
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
  // A new graph lists its tasks op by op and edge by edge, far from the processing order that
  // every move walks: renumbered in that order, the walk reads them in memory order (on the
  // 18,496 tasks of transformer:layers=24 on lecture:4x8 a move took 1.2x as long before).
  compact();
}

namespace {

// What set_config knows of a slot during one move. Every slot is kUntouched between moves.
enum : uint8_t {
  kUntouched = 0,   // an old task the walk has not reached, or any task before K0
  kNew = 1,         // added by the move (it goes through the heap)
  kGone = 2,        // removed by the move
  kQueued = 3,      // an old task in the heap (or simulated from it) the walk has not reached
  kDeferred = 4,    // the walk reached it before its deps ended: it goes through the heap
};

constexpr int kNoPos = std::numeric_limits<int>::max();

}  // namespace

void DeltaSimulator::simulate_all() {
  makespan_ = simulate_full(tg_);
  const auto& tasks = tg_.tasks();
  order_ = tg_.live_slots();
  std::sort(order_.begin(), order_.end(), [&](int a, int b) {
    return Key{tasks[size_t(a)].ready_ms, tasks[size_t(a)].order} < Key{tasks[size_t(b)].ready_ms, tasks[size_t(b)].order};
  });
  pos_.assign(tasks.size(), kNoPos);
  state_.assign(tasks.size(), kUntouched);
  index_order(0);
}

void DeltaSimulator::index_order(size_t from) {
  for (size_t i = from; i < order_.size(); ++i) pos_[size_t(order_[i])] = int(i);
  stale_from_ = order_.size();
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
  pos_.assign(order_.size(), kNoPos);
  state_.assign(order_.size(), kUntouched);
  index_order(0);
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
  for (size_t k = 0; k < saved_count_; ++k) {
    const SavedTimes& t = saved_times_[k];
    Task& task = tasks[size_t(t.slot)];
    task.ready_ms = t.ready;
    task.start_ms = t.start;
    task.end_ms = t.start + task.duration_ms;   // as the simulators computed it: the same bits
  }
  order_.swap(order_before_);
  // The move wrote its own indices from p0_ on: the next move re-indexes from there if it
  // needs them (most start before p0_ and do not).
  stale_from_ = std::min(stale_from_, p0_);
  makespan_ = saved_makespan_;
  saved_valid_ = false;
}

namespace {

// The per-slot arrays one set_config reads and writes (DeltaSimulator's members of those names).
struct MoveArrays {
  std::vector<Task>& tasks;
  std::vector<uint8_t>& state;
  std::vector<int>& pos;
  std::vector<int>& pending;
  std::vector<double>& acc;
  std::vector<HeapItem>& heap;
  std::vector<double>& device_end;
};

// K0 of a change: no changed task can have a (ready, order) key below it, before or after the
// change. `lb` and `stack` are scratch space.
DeltaSimulator::Key earliest_changed_key(const MoveArrays& m, const TaskGraph::Change& change, std::vector<double>& lb, std::vector<int>& stack) {
  using Key = DeltaSimulator::Key;
  const std::vector<Task>& tasks = m.tasks;
  auto is_new = [&](int s) { return m.state[size_t(s)] == kNew; };
  Key k0{1e300, ~uint64_t(0)};
  auto lower = [&](Key k) { if (k < k0) k0 = k; };
  // A new task is ready no earlier than the end of any dep that keeps its times, and no
  // earlier than any new dep is (lower bounds, computed depth-first over new deps).
  lb.resize(tasks.size());
  for (int s : change.added) lb[size_t(s)] = -1;
  for (int root : change.added) {
    if (lb[size_t(root)] >= 0) continue;
    stack.assign(1, root);
    while (!stack.empty()) {
      int s = stack.back();
      double bound = 0;
      bool ready = true;
      for (int d : tasks[size_t(s)].deps) {
        if (is_new(d)) {
          if (lb[size_t(d)] < 0) { stack.push_back(d); ready = false; }
          else bound = std::max(bound, lb[size_t(d)]);
        } else {
          bound = std::max(bound, tasks[size_t(d)].end_ms);
        }
      }
      if (!ready) continue;
      lb[size_t(s)] = bound;
      stack.pop_back();
    }
  }
  for (int s : change.added) {
    lower({lb[size_t(s)], tasks[size_t(s)].order});
    // Survivors that gain a dep may become ready later: they are changed from their old key on.
    for (int u : tasks[size_t(s)].succs)
      if (!is_new(u)) lower({tasks[size_t(u)].ready_ms, tasks[size_t(u)].order});
  }
  for (int s : change.removed) lower({tasks[size_t(s)].ready_ms, tasks[size_t(s)].order});
  for (int s : change.touched) {
    // Survivors that lost a dep: from their old key, or earlier if they now become ready earlier.
    const Task& t = tasks[size_t(s)];
    double bound = 0;
    for (int d : t.deps) bound = std::max(bound, is_new(d) ? lb[size_t(d)] : tasks[size_t(d)].end_ms);
    lower({t.ready_ms, t.order});
    lower({bound, t.order});
  }
  return k0;
}

// Keeps the timeline before index p0 of `order` as it is: replays it into the devices' ends,
// releases into the heap the tasks after it whose deps all end there (new ones, or ones whose
// ready time moved), and returns the makespan so far.
double replay_before(MoveArrays& m, const std::vector<int>& order, size_t p0, const TaskGraph::Change& change, int num_devices) {
  const std::vector<Task>& tasks = m.tasks;
  // Every task after K0 waits for all its deps at first; the tasks before K0 then pass their
  // ends on to their successors after it, as they would in a full simulation. (Each task after
  // K0 counting its deps before K0 by reading their indices took 7% more instructions in the
  // shared check's search: most tasks are after K0, and so are most of their deps.)
  const size_t count = order.size();
  for (size_t i = p0; i < count; ++i) {
    const int s = order[i];
    m.pending[size_t(s)] = tasks[size_t(s)].deps.size();
    m.acc[size_t(s)] = 0;
  }
  DeltaQueue queue(m.heap);
  m.heap.clear();
  for (int s : change.added) {
    m.pending[size_t(s)] = tasks[size_t(s)].deps.size();
    m.acc[size_t(s)] = 0;
    if (m.pending[size_t(s)] == 0) m.heap.push_back({0.0, tasks[size_t(s)].order, s});
  }
  // The old timeline up to K0 stands: it gives each device's end and the makespan so far.
  // A task after K0 whose deps all end before it enters the heap if its ready time changed (or
  // it is new); an old one ready at its old time waits for the walk.
  zero(m.device_end, size_t(num_devices));
  double makespan = 0;
  const int first = int(p0);
  for (size_t i = 0; i < p0; ++i) {
    const Task& t = tasks[size_t(order[i])];
    m.device_end[size_t(t.device)] = t.end_ms;   // ends grow along a device's order
    makespan = std::max(makespan, t.end_ms);
    for (int u : t.succs) {
      if (m.pos[size_t(u)] < first) continue;   // before K0 too
      double& acc = m.acc[size_t(u)];
      acc = std::max(acc, t.end_ms);
      if (--m.pending[size_t(u)] > 0) continue;
      uint8_t& state = m.state[size_t(u)];
      if (state != kNew && acc == tasks[size_t(u)].ready_ms) continue;
      if (state != kNew) state = kQueued;
      m.heap.push_back({acc, tasks[size_t(u)].order, u});
    }
  }
  queue.heapify();
  return makespan;
}

// What the walk found: the new makespan, how many tasks' times it changed, and how many old
// tasks' times it saved.
struct WalkResult {
  double makespan;
  int recomputed;
  size_t saved;
};

// Simulates the tasks of `order` from p0 on (and the heap's) in their new order, appending them
// to `next` (which holds order's first p0 entries), from the makespan so far; saves the old times
// of the tasks it changes at the start of `saved` (DeltaSimulator's saved_times_, whose type is
// private; its size only grows, the result tells how many entries this move wrote).
template <class SavedTimesList>
WalkResult walk_from(MoveArrays& m, const std::vector<int>& order, size_t p0, double makespan, std::vector<int>& next, SavedTimesList& saved,
                     size_t added) {
  const size_t count = order.size();
  DeltaQueue queue(m.heap);
  // Both outputs written through pointers into room made up front: each old task from p0 on is
  // saved at most once, and the new order holds the live tasks (a push_back per task, with its
  // capacity check, was 5% of a move's instructions).
  if (saved.size() < count - p0) saved.resize(count - p0);
  auto* const saved_out = saved.data();
  size_t saved_count = 0;
  next.resize(count + added);
  int* const next_out = next.data();
  size_t next_count = p0;
  // Walk the old order from K0 merged with the heap, in the new (ready, order) order, as a full
  // simulation would take the tasks. A task of the old order whose deps all ended by the time
  // the walk reaches it, at the ready time it had, keeps its key: it is simulated there without
  // the heap. Any other task enters the heap when its last dep ends, with its new ready time.
  int recomputed = 0;
  size_t pos = p0;
  while (true) {
    // Gone, or through the heap: the walk passes it, and it is kUntouched again for the next move.
    // A dep not ended yet: it goes through the heap (deferred) whenever the walk reaches it, so it
    // is deferred at once, without reading its task (taken in place or from the heap, a task
    // takes the same place: keys are unique). On a graph where a move shifts everything after
    // K0 (a data-parallel transformer) nearly every task is deferred.
    while (pos < count) {
      uint8_t& state = m.state[size_t(order[pos])];
      if (state != kUntouched) state = kUntouched;
      else if (m.pending[size_t(order[pos])] > 0) state = kDeferred;
      else break;
      ++pos;
    }
    bool from_order = pos < count;
    if (!from_order && queue.empty()) break;
    if (from_order && !queue.empty()) {
      const Task& t = m.tasks[size_t(order[pos])];
      const HeapItem& top = queue.top();
      from_order = t.ready_ms < top.ready || (t.ready_ms == top.ready && t.order < top.order);
    }
    int s;
    double ready;
    bool top_free = false;   // the heap's top was taken: the first task released replaces it
    if (from_order) {
      s = order[pos++];   // its deps have all ended (see above)
      ready = m.tasks[size_t(s)].ready_ms;
    } else {
      s = queue.top().slot;
      ready = queue.top().ready;
      top_free = true;
    }
    Task& t = m.tasks[size_t(s)];
    double& device_end = m.device_end[size_t(t.device)];
    const double start = std::max(ready, device_end);
    if (ready != t.ready_ms || start != t.start_ms || m.state[size_t(s)] == kNew) {
      if (m.state[size_t(s)] != kNew) saved_out[saved_count++] = {s, t.ready_ms, t.start_ms};
      t.ready_ms = ready;
      t.start_ms = start;
      t.end_ms = start + t.duration_ms;
      ++recomputed;
    }
    device_end = t.end_ms;
    makespan = std::max(makespan, t.end_ms);
    // A new task, or one the walk has passed: nothing else will clear its state (the walk
    // clears a queued one when it passes its old place).
    uint8_t& own = m.state[size_t(s)];
    own = own == kQueued ? kQueued : kUntouched;
    m.pos[size_t(s)] = int(next_count);   // pos_ is read only before the walk
    next_out[next_count++] = s;
    const double end = t.end_ms;
    for (int u : t.succs) {
      double& acc = m.acc[size_t(u)];
      acc = std::max(acc, end);
      if (--m.pending[size_t(u)] > 0) continue;
      uint8_t& state = m.state[size_t(u)];
      if (state == kUntouched && acc == m.tasks[size_t(u)].ready_ms) continue;   // the walk takes it
      if (state == kUntouched) state = kQueued;
      const HeapItem item{acc, m.tasks[size_t(u)].order, u};
      // Its task is read again when the queue gives it back, a few dozen tasks later: the rest
      // of it (a task spans three cache lines; its succs list reaches into the second) is
      // fetched now. On transformer:layers=24 on 4x8, where every task after K0 goes through
      // the queue, moves took 0.79-0.95x as long (best of six, three alternating runs; DLRM 16x8
      // within 2%).
      __builtin_prefetch(reinterpret_cast<const char*>(&m.tasks[size_t(u)]) + 64);
      if (top_free) {
        queue.replace_top(item);
        top_free = false;
      } else {
        queue.push(item);
      }
    }
    if (top_free) queue.pop();
  }
  next.resize(next_count);
  return {makespan, recomputed, saved_count};
}

}  // namespace

double DeltaSimulator::set_config(int op, const OpConfig& config) {
  remat_move_ = false;
  auto& tasks = tg_.tasks();
  saved_count_ = 0;
  saved_makespan_ = makespan_;
  saved_valid_ = true;

  const TaskGraph::Change& change = tg_.set_config(op, config);
  const size_t n = tasks.size();
  if (state_.size() < n) {
    state_.resize(n, kUntouched);
    pos_.resize(n, kNoPos);
  }
  if (pending_.size() < n) {
    pending_.resize(n);
    acc_.resize(n);
  }
  for (int s : change.added) {
    state_[size_t(s)] = kNew;
    pos_[size_t(s)] = kNoPos;
  }
  for (int s : change.removed) state_[size_t(s)] = kGone;
  MoveArrays m{tasks, state_, pos_, pending_, acc_, heap_, device_end_};

  const Key k0 = earliest_changed_key(m, change, lb_, stack_);
  auto key_of = [&](int s) { return Key{tasks[size_t(s)].ready_ms, tasks[size_t(s)].order}; };
  const size_t p0 = size_t(std::lower_bound(order_.begin(), order_.end(), k0, [&](int s, const Key& k) { return key_of(s) < k; }) -
                           order_.begin());
  p0_ = p0;
  // Indices left by undone moves: those at or after p0 are read only as "not before p0", which
  // they are (each is at least its move's first index); from before p0 on they must be exact.
  if (stale_from_ < p0) index_order(stale_from_);
  const double makespan = replay_before(m, order_, p0, change, tg_.topology().num_devices());
  std::vector<int>& next = order_before_;   // becomes the new order; the old one is kept for undo
  next.assign(order_.begin(), order_.begin() + std::ptrdiff_t(p0));
  const WalkResult walk = walk_from(m, order_, p0, makespan, next, saved_times_, change.added.size());
  saved_count_ = walk.saved;
  order_.swap(next);
  stale_from_ = order_.size();   // the walk indexed every task from p0 on
  last_recomputed_ = walk.recomputed;
  makespan_ = walk.makespan;
  return makespan_;
}

}  // namespace autopar
