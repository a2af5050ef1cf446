// Full simulation (FlexFlow Algorithm 1) and delta simulation (Algorithm 2).
//
// Every task has a positive duration, so a task becomes ready strictly after the task that
// released it started; the simulation therefore takes tasks in increasing (ready, order), and
// each task's times depend only on tasks that come before it in that order.
//
// Delta simulation uses this: after one op's configuration changes, let K0 be the earliest
// (ready, order) key any changed task can have, before or after the change. Every task whose
// key was below K0 keeps its times (nothing it depends on changed), so the new timeline is the
// old one up to K0, and only the tasks from K0 on are simulated again, starting from the
// devices' state at K0. A change late in the iteration re-simulates little; one at the very
// start re-simulates everything (but never rebuilds the task graph).
#include "simulator.h"

#include <algorithm>

namespace autopar {
namespace {

using HeapItem = DeltaSimulator::QueueItem;

}  // namespace

namespace {

// A binary min-heap on (ready, order) with "replace the top": a finished task usually
// releases a successor, which then takes its place with one sift instead of a pop and a push.
class ReadyQueue {
 public:
  explicit ReadyQueue(std::vector<HeapItem>& storage) : h_(storage) { h_.clear(); }
  bool empty() const { return h_.empty(); }
  const HeapItem& top() const { return h_[0]; }
  void push(const HeapItem& x) {
    h_.push_back(x);
    size_t i = h_.size() - 1;
    while (i > 0) {
      size_t p = (i - 1) / 2;
      if (!less(h_[i], h_[p])) break;
      std::swap(h_[i], h_[p]);
      i = p;
    }
  }
  void replace_top(const HeapItem& x) {
    h_[0] = x;
    sift_down();
  }
  void pop() {
    h_[0] = h_.back();
    h_.pop_back();
    if (!h_.empty()) sift_down();
  }
  void heapify() {
    for (size_t i = h_.size() / 2; i-- > 0;) sift_down(i);
  }

 private:
  static bool less(const HeapItem& a, const HeapItem& b) {
    return a.ready < b.ready || (a.ready == b.ready && a.order < b.order);
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

// Takes ready tasks in (ready, order) order until none is left; the queue holds the ready
// tasks, each task's `pending` counts its unfinished deps and `ready_ms` the latest dep end
// seen so far. Returns the latest end.
double run_queue(std::vector<Task>& tasks, ReadyQueue& queue, std::vector<double>& device_end) {
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
  device_end.assign(size_t(tg.topology().num_devices()), 0.0);
  ReadyQueue queue(storage);
  for (int s : tg.live_slots()) {
    Task& t = tasks[size_t(s)];
    t.ready_ms = 0;
    t.pending = t.deps.size();
    if (t.pending == 0) storage.push_back({0.0, t.order, s});
  }
  queue.heapify();
  return run_queue(tasks, queue, device_end);
}

SimSummary summarize(const TaskGraph& tg) {
  SimSummary s;
  for (const Task& t : tg.tasks()) {
    if (!t.live) continue;
    ++s.tasks;
    s.makespan_ms = std::max(s.makespan_ms, t.end_ms);
    switch (t.kind) {
      case TaskKind::forward:
      case TaskKind::backward: s.compute_ms += t.duration_ms; break;
      case TaskKind::transfer: s.activation_transfer_ms += t.duration_ms; s.activation_bytes += t.bytes; break;
      case TaskKind::sync: s.param_sync_ms += t.duration_ms; s.param_sync_bytes += t.bytes; break;
    }
  }
  const double capacity = tg.cluster().gpu.memory_capacity_bytes();
  for (int64_t m : tg.memory_bytes()) {
    s.peak_memory_bytes = std::max(s.peak_memory_bytes, m);
    if (double(m) > capacity) ++s.over_capacity_devices;
  }
  return s;
}

DeltaSimulator::DeltaSimulator(const Graph& graph, const Cluster& cluster, const Strategy& strategy, CostSettings cost)
    : tg_(graph, cluster, strategy, cost) {
  makespan_ = simulate_full(tg_);
}

void DeltaSimulator::undo() {
  if (!saved_valid_) return;
  tg_.undo_last();
  auto& tasks = tg_.tasks();
  for (const SavedTimes& t : saved_times_) {
    Task& task = tasks[size_t(t.slot)];
    task.ready_ms = t.ready;
    task.start_ms = t.start;
    task.end_ms = t.end;
  }
  makespan_ = saved_makespan_;
  saved_valid_ = false;
}

double DeltaSimulator::set_config(int op, const OpConfig& config) {
  auto& tasks = tg_.tasks();
  saved_times_.clear();
  saved_makespan_ = makespan_;
  saved_valid_ = true;

  const TaskGraph::Change& change = tg_.set_config(op, config);
  const size_t n = tasks.size();
  if (state_.size() < n) state_.resize(n, 0);
  enum : uint8_t { kOld = 0, kNew = 1, kSuffix = 2 };

  // K0: no changed task can have a (ready, order) key below it, before or after the change.
  Key k0{1e300, ~uint64_t(0)};
  auto lower = [&](Key k) { if (k < k0) k0 = k; };
  for (int s : change.added) state_[size_t(s)] = kNew;
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
        if (state_[size_t(d)] == kNew) {
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
      if (state_[size_t(u)] != kNew) lower({tasks[size_t(u)].ready_ms, tasks[size_t(u)].order});
  }
  for (int s : change.removed) lower({tasks[size_t(s)].ready_ms, tasks[size_t(s)].order});
  for (int s : change.touched) {
    // Survivors that lost a dep: from their old key, or earlier if they now become ready earlier.
    const Task& t = tasks[size_t(s)];
    double bound = 0;
    for (int d : t.deps) bound = std::max(bound, state_[size_t(d)] == kNew ? lb_[size_t(d)] : tasks[size_t(d)].end_ms);
    lower({t.ready_ms, t.order});
    lower({bound, t.order});
  }

  // Tasks before K0 keep their times and give each device's state at K0; the rest re-run.
  device_end_.assign(size_t(tg_.topology().num_devices()), 0.0);
  double makespan = 0;
  int rerun = 0;
  for (int s : tg_.live_slots()) {
    Task& t = tasks[size_t(s)];
    if (state_[size_t(s)] != kNew && Key{t.ready_ms, t.order} < k0) {
      device_end_[size_t(t.device)] = std::max(device_end_[size_t(t.device)], t.end_ms);
      makespan = std::max(makespan, t.end_ms);
    } else {
      // Remember what is about to be overwritten, so that a rejected proposal costs a copy.
      if (state_[size_t(s)] != kNew) saved_times_.push_back({s, t.ready_ms, t.start_ms, t.end_ms});
      state_[size_t(s)] = kSuffix;
      suffix_.push_back(s);
      ++rerun;
    }
  }
  ReadyQueue queue(heap_);
  for (int s : suffix_) {
    Task& t = tasks[size_t(s)];
    t.ready_ms = 0;
    t.pending = 0;
    for (int d : t.deps) {
      if (state_[size_t(d)] == kSuffix) ++t.pending;
      else t.ready_ms = std::max(t.ready_ms, tasks[size_t(d)].end_ms);
    }
    if (t.pending == 0) heap_.push_back({t.ready_ms, t.order, s});
  }
  queue.heapify();
  makespan = std::max(makespan, run_queue(tasks, queue, device_end_));
  for (int s : suffix_) state_[size_t(s)] = kOld;
  for (int s : change.removed) state_[size_t(s)] = kOld;
  suffix_.clear();
  last_recomputed_ = rerun;
  makespan_ = makespan;
  return makespan_;
}

}  // namespace autopar
