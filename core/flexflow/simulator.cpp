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
// Tasks without successors (leaves) are kept apart, per device, and taken just before their
// device's next task with successors keyed after them (or at the end); released tasks keyed
// after the last one put in a sorted run join it instead of the heap (the walk takes the first
// of the run, the heap and the old order).
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

using Node = DeltaSimulator::Node;

inline DeltaSimulator::Key key_of_node(const std::vector<Node>& nodes, int s) { return {nodes[size_t(s)].ready, nodes[size_t(s)].order}; }

// What set_config knows of a slot during one move. Every slot is kUntouched between moves.
enum : uint8_t {
  kUntouched = 0,   // an old task the walk has not reached, or any task before K0
  kNew = 1,         // added by the move (it goes through the heap)
  kGone = 2,        // removed by the move
  kQueued = 3,      // an old task in the heap (or simulated from it) the walk has not reached
  kDeferred = 4,    // the walk reached it before its deps ended: it goes through the heap
};

// Calls f(u) for each successor u of slot s, in its task's order.
template <class F>
inline void for_each_succ(const Node& n, const std::vector<Task>& tasks, int s, F f) {
  if (n.succs[0] == DeltaSimulator::kManySuccs) {
    for (int u : tasks[size_t(s)].succs) f(u);
    return;
  }
  for (int k = 0; k < 3 && n.succs[k] != DeltaSimulator::kNoSucc; ++k) f(n.succs[k]);
}

}  // namespace

void DeltaSimulator::load_links(int s) {
  const Task& t = tg_.tasks()[size_t(s)];
  Node& n = nodes_[size_t(s)];
  n.deps = t.deps.size();
  n.succs[0] = n.succs[1] = n.succs[2] = kNoSucc;
  if (t.succs.size() > 3) {
    n.succs[0] = kManySuccs;
    return;
  }
  for (int k = 0; k < t.succs.size(); ++k) n.succs[k] = t.succs[k];
}

void DeltaSimulator::load_node(int s) {
  const Task& t = tg_.tasks()[size_t(s)];
  Node& n = nodes_[size_t(s)];
  n.ready = t.ready_ms;
  n.order = t.order;
  n.acc = 0;
  n.start = t.start_ms;
  n.duration = t.duration_ms;
  n.device = t.device;
  n.pending = 0;
  load_links(s);
}

void DeltaSimulator::load_nodes() {
  nodes_.resize(tg_.tasks().size());
  for (size_t s = 0; s < nodes_.size(); ++s) load_node(int(s));
  times_stale_ = false;
}

const TaskGraph& DeltaSimulator::task_graph() const {
  if (times_stale_) {
    auto& tasks = tg_.tasks();
    for (size_t s = 0; s < nodes_.size(); ++s) {
      Task& t = tasks[s];
      if (!t.live) continue;
      const Node& n = nodes_[s];
      t.ready_ms = n.ready;
      t.start_ms = n.start;
      t.end_ms = n.start + n.duration;   // as the simulators compute it: the same bits
    }
    times_stale_ = false;
  }
  return tg_;
}

void DeltaSimulator::simulate_all() {
  makespan_ = simulate_full(tg_);
  load_nodes();
  order_tasks();
}

void DeltaSimulator::order_tasks() {
  std::vector<int>& all = order_before_;   // scratch until the next move
  all = tg_.live_slots();
  std::sort(all.begin(), all.end(), [&](int a, int b) { return key_of_node(nodes_, a) < key_of_node(nodes_, b); });
  const size_t devices = size_t(tg_.topology().num_devices());
  leaves_.resize(devices);
  for (auto& l : leaves_) l.clear();
  leaf_buffer_.resize(devices);
  order_.clear();
  for (int s : all) {
    const Node& n = nodes_[size_t(s)];
    (n.succs[0] == kNoSucc ? leaves_[size_t(n.device)] : order_).push_back(s);
  }
  all.clear();
  state_.assign(tg_.tasks().size(), kUntouched);
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
  task_graph();   // the times into the tasks, which the renumbering moves
  // Every live task in processing order: order_ merged with the leaves (each sorted by key), so
  // that a leaf sits beside the task that releases it.
  std::vector<int>& all = order_before_;   // scratch
  all.clear();
  for (const auto& l : leaves_) all.insert(all.end(), l.begin(), l.end());
  auto before = [&](int a, int b) { return key_of_node(nodes_, a) < key_of_node(nodes_, b); };
  std::sort(all.begin(), all.end(), before);
  const auto leaves_end = std::ptrdiff_t(all.size());
  all.insert(all.end(), order_.begin(), order_.end());
  std::inplace_merge(all.begin(), all.begin() + leaves_end, all.end(), before);
  const std::vector<int>& remap = tg_.compact(all);
  for (int& s : order_) s = remap[size_t(s)];
  for (auto& l : leaves_)
    for (int& s : l) s = remap[size_t(s)];
  load_nodes();
  state_.assign(tg_.tasks().size(), kUntouched);
  order_before_.clear();
  saved_valid_ = false;
  remat_move_ = false;
  full_move_ = false;
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
  if (full_move_) {
    full_move_ = false;
    saved_valid_ = false;
    tg_.undo_last();
    simulate_all();
    return;
  }
  tg_.undo_last();
  for (int s : relinked_) load_links(s);
  for (const SavedLeaf& l : saved_leaves_) {
    Node& n = nodes_[size_t(l.slot)];
    n.ready = l.ready;
    n.start = l.start;
  }
  for (size_t d = 0, from = 0; d < leaves_.size(); from = leaf_tail_end_[d++]) {
    leaves_[d].resize(leaf_p0_[d]);
    leaves_[d].insert(leaves_[d].end(), leaf_tail_.begin() + std::ptrdiff_t(from), leaf_tail_.begin() + std::ptrdiff_t(leaf_tail_end_[d]));
  }
  // The tasks the move took, from p0_ on in its order, get their times back (its new tasks
  // too, which are dead now).
  for (size_t k = p0_; k < order_.size(); ++k) {
    const SavedTimes& t = saved_times_[k - p0_];
    Node& n = nodes_[size_t(order_[k])];
    n.ready = t.ready;
    n.start = t.start;
  }
  times_stale_ = true;
  order_.swap(order_before_);
  makespan_ = saved_makespan_;
  saved_valid_ = false;
}

namespace {

// The per-slot arrays one set_config reads and writes (DeltaSimulator's members of those names;
// `tasks` only for the links of a task with more than three successors).
struct MoveArrays {
  std::vector<Node>& nodes;
  const std::vector<Task>& tasks;
  std::vector<uint8_t>& state;
  std::vector<HeapItem>& heap;
  std::vector<double>& device_end;
  std::vector<std::vector<int>>& leaves;
  std::vector<std::vector<HeapItem>>& leaf_buffer;
  std::vector<int>& buffered_devices;
  std::vector<DeltaSimulator::SavedLeaf>& saved_leaves;
  std::vector<HeapItem>& run;
};

inline double end_of(const Node& n) { return n.start + n.duration; }

inline bool is_leaf(const Node& n) { return n.succs[0] == DeltaSimulator::kNoSucc; }

// A leaf whose deps have all ended joins its device's buffer, kept sorted by (ready, order)
// (leaves mostly arrive in that order: the insertion rarely moves an entry).
inline void buffer_leaf(MoveArrays& m, int s, const Node& n, double ready) {
  std::vector<HeapItem>& b = m.leaf_buffer[size_t(n.device)];
  if (b.empty()) m.buffered_devices.push_back(n.device);
  const HeapItem item{ready, n.order, s};
  b.push_back(item);
  size_t i = b.size() - 1;
  for (; i > 0 && key_before(ready, n.order, b[i - 1].ready, b[i - 1].order); --i) b[i] = b[i - 1];
  b[i] = item;
}

// Takes device d's buffered leaves keyed before (ready, order) in that order: each starts at
// max(ready, the device's end), as in a full simulation, where they come before that key.
// Saves the times they had; appends them to the device's leaves. Returns how many changed.
inline int take_leaves(MoveArrays& m, int d, double ready, uint64_t order, double& makespan) {
  std::vector<HeapItem>& b = m.leaf_buffer[size_t(d)];
  double& device_end = m.device_end[size_t(d)];
  std::vector<int>& leaves = m.leaves[size_t(d)];
  int changed = 0;
  size_t k = 0;
  for (; k < b.size() && key_before(b[k].ready, b[k].order, ready, order); ++k) {
    const int s = b[k].slot;
    Node& t = m.nodes[size_t(s)];
    const double start = std::max(b[k].ready, device_end);
    uint8_t& own = m.state[size_t(s)];
    changed += b[k].ready != t.ready || start != t.start || own == kNew;
    own = kUntouched;
    m.saved_leaves.push_back({s, t.ready, t.start});
    t.ready = b[k].ready;
    t.start = start;
    device_end = start + t.duration;
    makespan = std::max(makespan, device_end);
    leaves.push_back(s);
  }
  b.erase(b.begin(), b.begin() + std::ptrdiff_t(k));
  return changed;
}

// K0 of a change: no changed task can have a (ready, order) key below it, before or after the
// change. `lb` and `stack` are scratch space.
DeltaSimulator::Key earliest_changed_key(const MoveArrays& m, const TaskGraph::Change& change, std::vector<double>& lb, std::vector<int>& stack) {
  using Key = DeltaSimulator::Key;
  const std::vector<Task>& tasks = m.tasks;
  const std::vector<Node>& nodes = m.nodes;
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
          bound = std::max(bound, end_of(nodes[size_t(d)]));
        }
      }
      if (!ready) continue;
      lb[size_t(s)] = bound;
      stack.pop_back();
    }
  }
  for (int s : change.added) {
    lower({lb[size_t(s)], nodes[size_t(s)].order});
    // Survivors that gain a dep may become ready later: they are changed from their old key on.
    for (int u : tasks[size_t(s)].succs)
      if (!is_new(u)) lower({nodes[size_t(u)].ready, nodes[size_t(u)].order});
  }
  for (int s : change.removed) lower({nodes[size_t(s)].ready, nodes[size_t(s)].order});
  for (int s : change.touched) {
    // Survivors that lost a dep: from their old key, or earlier if they now become ready earlier.
    const Node& t = nodes[size_t(s)];
    double bound = 0;
    for (int d : tasks[size_t(s)].deps) bound = std::max(bound, is_new(d) ? lb[size_t(d)] : end_of(nodes[size_t(d)]));
    lower({t.ready, t.order});
    lower({bound, t.order});
  }
  return k0;
}

// Keeps the timeline before index p0 of `order` as it is: replays it into the devices' ends,
// releases into the heap the tasks after it whose deps all end there (new ones, or ones whose
// ready time moved), and returns the makespan so far.
double replay_before(MoveArrays& m, const std::vector<int>& order, size_t p0, const std::vector<size_t>& leaf_p0, DeltaSimulator::Key k0,
                     const TaskGraph::Change& change, int num_devices) {
  std::vector<Node>& nodes = m.nodes;
  // Every task after K0 waits for all its deps at first; the tasks before K0 then pass their
  // ends on to their successors after it, as they would in a full simulation. (Each task after
  // K0 counting its deps before K0 by reading their indices took 7% more instructions in the
  // shared check's search: most tasks are after K0, and so are most of their deps.)
  const size_t count = order.size();
  for (size_t i = p0; i < count; ++i) {
    Node& n = nodes[size_t(order[i])];
    n.pending = n.deps;
    n.acc = 0;
  }
  DeltaQueue queue(m.heap);
  m.heap.clear();
  for (int s : change.added) {
    Node& n = nodes[size_t(s)];
    n.pending = n.deps;
    n.acc = 0;
    if (n.pending > 0) continue;
    if (is_leaf(n)) buffer_leaf(m, s, n, 0.0);
    else m.heap.push_back({0.0, n.order, s});
  }
  // The leaves from each device's first leaf keyed at K0 on wait likewise (the gone ones too,
  // harmlessly: nothing releases them); those before it keep their times and end the device's
  // timeline before K0 with its other tasks there (ends grow along a device's order).
  zero(m.device_end, size_t(num_devices));
  double makespan = 0;
  for (size_t d = 0; d < m.leaves.size(); ++d) {
    const std::vector<int>& leaves = m.leaves[d];
    const size_t q = leaf_p0[d];
    if (q > 0) {
      const double end = end_of(nodes[size_t(leaves[q - 1])]);
      m.device_end[d] = end;
      makespan = std::max(makespan, end);
    }
    for (size_t i = q; i < leaves.size(); ++i) {
      const int s = leaves[i];
      Node& n = nodes[size_t(s)];
      n.pending = n.deps;
      n.acc = 0;
      if (n.deps == 0 && m.state[size_t(s)] != kGone) buffer_leaf(m, s, n, 0.0);
    }
  }
  // The old timeline up to K0 stands: it gives each device's end and the makespan so far.
  // A task after K0 whose deps all end before it enters the heap if its ready time changed (or
  // it is new); an old one ready at its old time waits for the walk; a leaf, its buffer.
  for (size_t i = 0; i < p0; ++i) {
    const int s = order[i];
    const Node& t = nodes[size_t(s)];
    const double end = end_of(t);
    double& device_end = m.device_end[size_t(t.device)];
    device_end = std::max(device_end, end);   // ends grow along a device's order
    makespan = std::max(makespan, end);
    for_each_succ(t, m.tasks, s, [&](int u) {
      Node& n = nodes[size_t(u)];
      uint8_t& state = m.state[size_t(u)];
      // Before K0 too (order's first p0 entries are the old tasks keyed before K0).
      if (state != kNew && key_before(n.ready, n.order, k0.ready, k0.order)) return;
      n.acc = std::max(n.acc, end);
      if (--n.pending > 0) return;
      if (is_leaf(n)) return buffer_leaf(m, u, n, n.acc);
      if (state != kNew && n.acc == n.ready) return;
      if (state != kNew) state = kQueued;
      m.heap.push_back({n.acc, n.order, u});
    });
  }
  queue.heapify();
  return makespan;
}

// What the walk found: the new makespan, and how many tasks' times it changed.
struct WalkResult {
  double makespan;
  int recomputed;
};

// Simulates the tasks of `order` from p0 on (and the heap's) in their new order, appending them
// to `next` (which holds order's first p0 entries), from the makespan so far; saves the times
// every task it takes had before, in the order it takes them (next's entries from p0 on), at
// the start of `saved` (DeltaSimulator's saved_times_, whose type is private; its size only
// grows).
template <class SavedTimesList>
WalkResult walk_from(MoveArrays& m, const std::vector<int>& order, size_t p0, double makespan, std::vector<int>& next, SavedTimesList& saved,
                     size_t added) {
  std::vector<Node>& nodes = m.nodes;
  const size_t count = order.size();
  DeltaQueue queue(m.heap);
  // Released tasks keyed after the last one put in the run join it (in key order, first in first
  // out: no sifting), the others the heap. Taken first from either, they come in the same order.
  // On a data-parallel transformer 87% of the released tasks with successors are keyed after
  // the one released before them (the GPUs' chains release their next task at their end).
  std::vector<HeapItem>& run = m.run;
  run.clear();
  size_t run_head = 0;
  // Both outputs written through pointers into room made up front: the new order holds the live
  // tasks, and each task it takes from p0 on is saved once (a push_back per task, with its
  // capacity check, was 5% of a move's instructions). Every task is saved, changed or not: no
  // slot to note and no branch, and two thirds of the bytes of saving the changed ones with
  // their slots (on a data-parallel transformer, where nearly all change).
  if (saved.size() < count + added - p0) saved.resize(count + added - p0);
  auto* const saved_out = saved.data() - p0;   // indexed like next
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
    // is deferred at once (taken in place or from the heap, a task takes the same place: keys
    // are unique). On a graph where a move shifts everything after K0 (a data-parallel
    // transformer) nearly every task is deferred.
    while (pos < count) {
      const int s = order[pos];
      uint8_t& state = m.state[size_t(s)];
      if (state != kUntouched) state = kUntouched;
      else if (nodes[size_t(s)].pending > 0) state = kDeferred;
      else break;
      ++pos;
    }
    // The released task keyed first: the heap's top or the run's first.
    const HeapItem* first = queue.empty() ? nullptr : &queue.top();
    const bool run_first = run_head < run.size() && (first == nullptr || key_before(run[run_head].ready, run[run_head].order, first->ready, first->order));
    if (run_first) first = &run[run_head];
    bool from_order = pos < count;
    if (!from_order && first == nullptr) break;
    if (from_order && first != nullptr) {
      const Node& t = nodes[size_t(order[pos])];
      from_order = key_before(t.ready, t.order, first->ready, first->order);
    }
    int s;
    double ready;
    bool top_free = false;   // the heap's top was taken: the first task released replaces it
    if (from_order) {
      s = order[pos++];   // its deps have all ended (see above)
      ready = nodes[size_t(s)].ready;
    } else {
      s = first->slot;
      ready = first->ready;
      if (run_first) ++run_head;
      else top_free = true;
    }
    Node& t = nodes[size_t(s)];
    // Its device's leaves keyed before it come first.
    if (!m.leaf_buffer[size_t(t.device)].empty()) recomputed += take_leaves(m, t.device, ready, t.order, makespan);
    double& device_end = m.device_end[size_t(t.device)];
    const double start = std::max(ready, device_end);
    uint8_t& own = m.state[size_t(s)];
    recomputed += ready != t.ready || start != t.start || own == kNew;
    saved_out[next_count] = {t.ready, t.start};
    t.ready = ready;
    t.start = start;
    const double end = start + t.duration;
    device_end = end;
    makespan = std::max(makespan, end);
    // A new task, or one the walk has passed: nothing else will clear its state (the walk
    // clears a queued one when it passes its old place).
    own = own == kQueued ? kQueued : kUntouched;
    next_out[next_count++] = s;
    for_each_succ(t, m.tasks, s, [&](int u) {
      Node& n = nodes[size_t(u)];
      n.acc = std::max(n.acc, end);
      if (--n.pending > 0) return;
      if (is_leaf(n)) return buffer_leaf(m, u, n, n.acc);
      uint8_t& state = m.state[size_t(u)];
      if (state == kUntouched && n.acc == n.ready) return;   // the walk takes it
      if (state == kUntouched) state = kQueued;
      const HeapItem item{n.acc, n.order, u};
      // Keyed after every task in the run (or the run is empty): it joins the run's end.
      if (run_head == run.size()) {
        run.clear();
        run_head = 0;
        run.push_back(item);
        return;
      }
      if (!key_before(item.ready, item.order, run.back().ready, run.back().order)) {
        run.push_back(item);
        return;
      }
      if (top_free) {
        queue.replace_top(item);
        top_free = false;
      } else {
        queue.push(item);
      }
    });
    if (top_free) queue.pop();
  }
  // No task with successors is left: each device's remaining leaves follow in key order.
  for (int d : m.buffered_devices) recomputed += take_leaves(m, d, std::numeric_limits<double>::infinity(), ~uint64_t(0), makespan);
  m.buffered_devices.clear();
  next.resize(next_count);
  return {makespan, recomputed};
}

}  // namespace

double DeltaSimulator::set_config_in_full(const TaskGraph::Change& change) {
  makespan_ = simulate_full(tg_);
  // The tasks whose times changed: the new ones, and the survivors whose times the full
  // simulation moved (their records still hold the old times).
  int recomputed = 0;
  for (int s : tg_.live_slots()) {
    const Task& t = tg_.tasks()[size_t(s)];
    const Node& n = nodes_[size_t(s)];
    recomputed += state_[size_t(s)] == kNew || t.ready_ms != n.ready || t.start_ms != n.start;
  }
  for (int s : change.added) state_[size_t(s)] = kUntouched;
  for (int s : change.removed) state_[size_t(s)] = kUntouched;
  load_nodes();
  order_tasks();
  last_recomputed_ = recomputed;
  full_move_ = true;
  return makespan_;
}

double DeltaSimulator::set_config(int op, const OpConfig& config) {
  remat_move_ = false;
  full_move_ = false;
  const auto& tasks = tg_.tasks();
  saved_makespan_ = makespan_;
  saved_valid_ = true;

  const TaskGraph::Change& change = tg_.set_config(op, config);
  const size_t n = tasks.size();
  if (state_.size() < n) state_.resize(n, kUntouched);
  if (nodes_.size() < n) nodes_.resize(n);
  for (int s : change.added) {
    state_[size_t(s)] = kNew;
    load_node(s);
  }
  for (int s : change.removed) state_[size_t(s)] = kGone;
  // The survivors whose link lists changed: the producers and consumers of removed and of new
  // tasks (the removed tasks keep their lists until the next set_config). A removed task links
  // only to survivors and removed ones, a new task only to survivors and new ones, so a
  // survivor is a slot neither new nor gone (its state says so without reading its task).
  relinked_.clear();
  auto survivor = [&](int s) { return state_[size_t(s)] == kUntouched; };
  for (int s : change.removed) {
    for (int d : tasks[size_t(s)].deps) if (survivor(d)) relinked_.push_back(d);
    for (int u : tasks[size_t(s)].succs) if (survivor(u)) relinked_.push_back(u);
  }
  for (int s : change.added) {
    for (int d : tasks[size_t(s)].deps) if (survivor(d)) relinked_.push_back(d);
    for (int u : tasks[size_t(s)].succs) if (survivor(u)) relinked_.push_back(u);
  }
  // A survivor that becomes a leaf or stops being one changes lists: rare (a leaf is a
  // parameter sync or a graph's last task, and a move relinks the tasks around one op's
  // edges), so that move is simulated in full.
  for (int s : relinked_) {
    if (is_leaf(nodes_[size_t(s)]) != tasks[size_t(s)].succs.empty()) return set_config_in_full(change);
  }
  for (int s : relinked_) load_links(s);
  MoveArrays m{nodes_, tasks, state_, heap_, device_end_, leaves_, leaf_buffer_, buffered_devices_, saved_leaves_, run_};

  const Key k0 = earliest_changed_key(m, change, lb_, stack_);
  auto key_before_k0 = [&](int s, const Key& k) { return key_of_node(nodes_, s) < k; };
  const size_t p0 = size_t(std::lower_bound(order_.begin(), order_.end(), k0, key_before_k0) - order_.begin());
  p0_ = p0;
  // Each device's leaves from K0 on are taken again: kept for undo, then dropped from the list
  // (the walk appends them again in their new order).
  const size_t devices = leaves_.size();
  leaf_p0_.resize(devices);
  leaf_tail_end_.resize(devices);
  leaf_tail_.clear();
  saved_leaves_.clear();
  for (size_t d = 0; d < devices; ++d) {
    const std::vector<int>& l = leaves_[d];
    const auto q = std::lower_bound(l.begin(), l.end(), k0, key_before_k0);
    leaf_p0_[d] = size_t(q - l.begin());
    leaf_tail_.insert(leaf_tail_.end(), q, l.end());
    leaf_tail_end_[d] = leaf_tail_.size();
  }
  const double makespan = replay_before(m, order_, p0, leaf_p0_, k0, change, tg_.topology().num_devices());
  for (size_t d = 0; d < devices; ++d) leaves_[d].resize(leaf_p0_[d]);
  std::vector<int>& next = order_before_;   // becomes the new order; the old one is kept for undo
  next.assign(order_.begin(), order_.begin() + std::ptrdiff_t(p0));
  const WalkResult walk = walk_from(m, order_, p0, makespan, next, saved_times_, change.added.size());
  for (int s : change.removed) state_[size_t(s)] = kUntouched;   // the gone leaves (the walk passed the others)
  order_.swap(next);
  last_recomputed_ = walk.recomputed;
  makespan_ = walk.makespan;
  times_stale_ = true;
  return makespan_;
}

}  // namespace autopar
