// Full simulation (FlexFlow Algorithm 1) and delta simulation (Algorithm 2).
//
// Every task has a positive duration, so a task becomes ready strictly after the task that
// released it started; the full simulation therefore takes tasks in increasing (ready, order),
// and the timeline is the unique solution of
//   ready(T) = max end(deps), start(T) = max(ready(T), end(device predecessor)), end = start + dur
// where the device predecessor is the previous task of the device in (ready, order) order.
// Delta simulation re-solves these equations only where they change: a worklist in increasing
// (ready, order) recomputes a task once its deps are final, and propagates to its successors
// and to the next task of its device when its end or position changes.
#include "simulator.h"

#include <algorithm>

namespace autopar {
namespace {

struct HeapItem {
  double ready;
  uint64_t order;
  int slot;
};
// Min-heap on (ready, order).
struct Later {
  bool operator()(const HeapItem& a, const HeapItem& b) const {
    return a.ready > b.ready || (a.ready == b.ready && a.order > b.order);
  }
};

}  // namespace

double simulate_full(TaskGraph& tg, std::vector<std::vector<int>>* device_order) {
  auto& tasks = tg.tasks();
  std::vector<int> pending(tasks.size(), 0);
  std::vector<double> device_end(size_t(tg.topology().num_devices()), 0.0);
  std::vector<HeapItem> heap;
  heap.reserve(size_t(tg.live_count()));
  for (size_t s = 0; s < tasks.size(); ++s) {
    Task& t = tasks[s];
    if (!t.live) continue;
    t.ready_ms = 0;
    pending[s] = int(t.deps.size());
    if (pending[s] == 0) heap.push_back({0.0, t.order, int(s)});
  }
  std::make_heap(heap.begin(), heap.end(), Later{});
  if (device_order) {
    device_order->resize(device_end.size());
    for (auto& l : *device_order) l.clear();
  }
  double makespan = 0;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), Later{});
    HeapItem item = heap.back();
    heap.pop_back();
    Task& t = tasks[size_t(item.slot)];
    if (device_order) (*device_order)[size_t(t.device)].push_back(item.slot);
    double& dev_end = device_end[size_t(t.device)];
    t.start_ms = std::max(t.ready_ms, dev_end);
    t.end_ms = t.start_ms + t.duration_ms;
    dev_end = t.end_ms;
    makespan = std::max(makespan, t.end_ms);
    for (int s : t.succs) {
      Task& u = tasks[size_t(s)];
      u.ready_ms = std::max(u.ready_ms, t.end_ms);
      if (--pending[size_t(s)] == 0) {
        heap.push_back({u.ready_ms, u.order, s});
        std::push_heap(heap.begin(), heap.end(), Later{});
      }
    }
  }
  return makespan;
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
  resimulate();
}

void DeltaSimulator::resimulate() {
  makespan_ = simulate_full(tg_, &lists_);
  const auto& tasks = tg_.tasks();
  dirty_.assign(tasks.size(), 0);
  listed_.assign(tasks.size(), 0);
  for (size_t s = 0; s < tasks.size(); ++s) listed_[s] = tasks[s].live;
  heap_.clear();
}

bool DeltaSimulator::before(int a, int b) const {
  const Task& x = tg_.tasks()[size_t(a)];
  const Task& y = tg_.tasks()[size_t(b)];
  return x.ready_ms < y.ready_ms || (x.ready_ms == y.ready_ms && x.order < y.order);
}

size_t DeltaSimulator::position(int device, int slot) const {
  const auto& l = lists_[size_t(device)];
  auto it = std::lower_bound(l.begin(), l.end(), slot, [&](int a, int b) { return before(a, b); });
  return size_t(it - l.begin());
}

int DeltaSimulator::next_clean(int device, size_t from) const {
  const auto& l = lists_[size_t(device)];
  for (size_t p = from; p < l.size(); ++p)
    if (!dirty_[size_t(l[p])]) return l[p];
  return -1;
}

namespace {
bool entry_later(const DeltaSimulator::Entry& a, const DeltaSimulator::Entry& b) {
  return a.ready > b.ready || (a.ready == b.ready && (a.order > b.order || (a.order == b.order && a.check < b.check)));
}
}  // namespace

void DeltaSimulator::push(double ready, int slot, bool check) {
  heap_.push_back({ready, tg_.tasks()[size_t(slot)].order, slot, check});
  std::push_heap(heap_.begin(), heap_.end(), entry_later);
}

void DeltaSimulator::queue_compute(int slot) {
  const Task& t = tg_.tasks()[size_t(slot)];
  double ready = 0;
  for (int d : t.deps) ready = std::max(ready, tg_.tasks()[size_t(d)].end_ms);
  push(ready, slot, false);
}

void DeltaSimulator::vacate(int slot) {
  // Only called while the frontier has not passed this task's old (ready, order): nothing
  // processed so far relied on it. From now on it is skipped as a device predecessor, and the
  // tasks that relied on it are looked at when the frontier reaches them.
  if (dirty_[size_t(slot)]) return;
  dirty_[size_t(slot)] = 1;
  const Task& t = tg_.tasks()[size_t(slot)];
  if (listed_[size_t(slot)]) check_follower(t.device, index_of(t.device, slot) + 1);
  for (int s : t.succs)
    if (!dirty_[size_t(s)]) push(tg_.tasks()[size_t(s)].ready_ms, s, true);
  queue_compute(slot);
}

size_t DeltaSimulator::index_of(int device, int slot) const {
  const auto& l = lists_[size_t(device)];
  size_t p = position(device, slot);
  while (l[p] != slot) ++p;
  return p;
}

void DeltaSimulator::check_follower(int device, size_t from) {
  int next = next_clean(device, from);
  if (next >= 0) push(tg_.tasks()[size_t(next)].ready_ms, next, true);
}

double DeltaSimulator::predecessor_end(int device, size_t index) const {
  const auto& l = lists_[size_t(device)];
  for (size_t q = index; q-- > 0;)
    if (!dirty_[size_t(l[q])]) return tg_.tasks()[size_t(l[q])].end_ms;
  return 0;
}

int DeltaSimulator::pending_tasks() const {
  int n = 0;
  for (size_t s = 0; s < dirty_.size(); ++s) n += dirty_[s] && tg_.tasks()[s].live;
  return n;
}

double DeltaSimulator::set_config(int op, const OpConfig& config) {
  TaskGraph::Change change = tg_.set_config(op, config);
  auto& tasks = tg_.tasks();
  if (dirty_.size() < tasks.size()) {
    dirty_.resize(tasks.size(), 0);
    listed_.resize(tasks.size(), 0);
  }
  heap_.clear();
  // Removed tasks leave their device; the task after each one has a new predecessor.
  for (int s : change.removed) {
    if (!listed_[size_t(s)]) continue;
    int dev = tasks[size_t(s)].device;
    auto& l = lists_[size_t(dev)];
    size_t p = position(dev, s);
    while (l[p] != s) ++p;
    l.erase(l.begin() + long(p));
    listed_[size_t(s)] = 0;
    dirty_[size_t(s)] = 0;
  }
  for (int s : change.removed)   // the task after each removed one has a new predecessor
    check_follower(tasks[size_t(s)].device, position(tasks[size_t(s)].device, s));
  for (int s : change.added) {
    listed_[size_t(s)] = 0;
    dirty_[size_t(s)] = 0;
  }
  for (int s : change.added) vacate(s);
  for (int s : change.touched)
    if (tasks[size_t(s)].live) vacate(s);

  // When a change ripples through much of the timeline, re-simulating the (already updated)
  // task graph from scratch is cheaper than propagating task by task; both are exact.
  int recomputed = 0;
  const long budget = long(tg_.live_count()) / 8 + 16;
  long pops = 0;
  while (!heap_.empty()) {
    if (++pops > budget) {
      resimulate();
      last_recomputed_ = -1;
      return makespan_;
    }
    std::pop_heap(heap_.begin(), heap_.end(), entry_later);
    Entry e = heap_.back();
    heap_.pop_back();
    Task& t = tasks[size_t(e.slot)];
    if (!t.live) continue;
    if (e.check) {
      // The frontier reached this task's old position: it keeps it only if its deps are final
      // and still make it ready at the same time.
      if (dirty_[size_t(e.slot)] || !listed_[size_t(e.slot)]) continue;
      double ready = 0;
      bool deps_final = true;
      for (int d : t.deps) {
        if (dirty_[size_t(d)]) { deps_final = false; break; }
        ready = std::max(ready, tasks[size_t(d)].end_ms);
      }
      if (!deps_final || ready != t.ready_ms ||
          std::max(ready, predecessor_end(t.device, index_of(t.device, e.slot))) != t.start_ms)
        vacate(e.slot);
      continue;
    }
    if (!dirty_[size_t(e.slot)]) continue;
    double ready = 0;
    bool deps_final = true;
    for (int d : t.deps) {
      if (dirty_[size_t(d)]) { deps_final = false; break; }
      ready = std::max(ready, tasks[size_t(d)].end_ms);
    }
    if (!deps_final) continue;             // queued again when that dep is finalised
    if (ready != e.ready) {                // a stale entry: queue it at its true ready time
      push(ready, e.slot, false);
      continue;
    }
    ++recomputed;
    const int dev = t.device;
    auto& l = lists_[size_t(dev)];
    const double old_ready = t.ready_ms, old_end = t.end_ms;
    const bool was_listed = listed_[size_t(e.slot)];
    if (was_listed) l.erase(l.begin() + long(index_of(dev, e.slot)));   // its old follower was checked on vacating
    t.ready_ms = ready;
    size_t p = position(dev, e.slot);
    t.start_ms = std::max(ready, predecessor_end(dev, p));
    t.end_ms = t.start_ms + t.duration_ms;
    l.insert(l.begin() + long(p), e.slot);
    listed_[size_t(e.slot)] = 1;
    dirty_[size_t(e.slot)] = 0;
    const bool end_moved = !was_listed || t.end_ms != old_end;
    if (end_moved || ready != old_ready) check_follower(dev, p + 1);
    for (int s : t.succs) {
      if (dirty_[size_t(s)]) queue_compute(s);   // waiting on this task
      else if (end_moved) vacate(s);
    }
  }
  last_recomputed_ = recomputed;
  makespan_ = 0;
  for (const Task& t : tasks)
    if (t.live) makespan_ = std::max(makespan_, t.end_ms);
  return makespan_;
}

}  // namespace autopar
