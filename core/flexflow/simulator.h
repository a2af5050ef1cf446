// FlexFlow's execution simulator: full simulation (Algorithm 1) over a task graph, and delta
// simulation (Algorithm 2) that, after one op's configuration changes, simulates again only
// the tasks from the earliest point the change can reach (through the heap only those whose
// ready time moved) and gives exactly the timeline a full simulation would.
#pragma once
#include <cstdint>
#include <vector>

#include "device_memory.h"
#include "task_graph.h"

namespace autopar {

// Sums over a simulated timeline (INTERFACES.md `simulate`).
struct SimSummary {
  double makespan_ms = 0;
  double compute_ms = 0;                // sum of forward, backward and recompute task durations
  double activation_transfer_ms = 0;    // sum of activation and activation-gradient transfers
  double param_sync_ms = 0;             // sum of parameter synchronisation tasks
  double activation_bytes = 0;
  double param_sync_bytes = 0;
  int tasks = 0;
  int64_t peak_memory_bytes = 0;        // the fullest GPU (device_memory.h's training memory)
  int over_capacity_devices = 0;        // GPUs whose memory need exceeds their capacity
  DeviceMemoryUse peak_memory;          // the fullest GPU by kind
  int peak_device = 0;
  bool fits = true;                     // every GPU within its capacity
  Optimizer optimizer = Optimizer::adam;
  Precision precision = Precision::fp32;
};

// Simulates every live task from scratch by the rule of INTERFACES.md: take the ready task with
// the smallest (ready time, order); it starts at max(ready, end of the device's previous task).
// Writes ready/start/end into the tasks; returns the makespan.
double simulate_full(TaskGraph& tg);

// Sums durations and bytes by kind, the makespan and the training memory per GPU (with the
// optimizer's state) of a simulated task graph.
SimSummary summarize(const TaskGraph& tg, Optimizer optimizer = Optimizer::adam);

// A task graph kept simulated across single-op changes (MCMC's inner loop).
class DeltaSimulator {
 public:
  // Builds and fully simulates `strategy`.
  DeltaSimulator(const Graph& graph, const Cluster& cluster, const Strategy& strategy, CostSettings cost = {});
  // Changes one op's configuration: updates the task graph in place and propagates the change
  // through the deps and each device's order from the earliest key it can reach (FlexFlow's
  // Algorithm 2); returns the makespan, exactly what simulate_full would give.
  double set_config(int op, const OpConfig& config);
  // Reverts the last set_config: the graph and the timeline are exactly as before it
  // (MCMC's rejected proposals; restores the saved times of the tasks that changed).
  void undo();
  // Turns recomputation on or off: a new task graph, fully simulated (every layer op changes);
  // undo() reverts it the same way. Returns the makespan.
  double set_remat(bool remat);
  // Renumbers the task graph's live tasks in the current processing order (TaskGraph::compact),
  // so that the next moves read them in memory order; the last change can no longer be undone.
  void compact();
  // compact(), when the live tasks fill less than half of the slots or once in 64 calls (MCMC
  // calls it after each accepted move); returns whether it did.
  bool compact_if_scattered();
  // The current makespan.
  double makespan() const { return makespan_; }
  const TaskGraph& task_graph() const { return tg_; }
  // Tasks whose times the last set_config changed, new tasks included (the rest kept theirs).
  int last_recomputed() const { return last_recomputed_; }

  // A (ready time, order) key: the simulator's processing order.
  struct Key {
    double ready;
    uint64_t order;
    bool operator<(const Key& o) const { return ready < o.ready || (ready == o.ready && order < o.order); }
  };
  // An entry of the ready queue.
  struct QueueItem { double ready; uint64_t order; int slot; };

 private:
  // Simulates the whole task graph and orders it (construction and set_remat).
  void simulate_all();
  // Sets pos_ for order_'s entries from `from` on (then none is stale).
  void index_order(size_t from);

  TaskGraph tg_;
  double makespan_ = 0;
  int compact_calls_ = 0;     // compact_if_scattered() calls since the last compaction
  bool remat_move_ = false;   // the last change was set_remat
  int last_recomputed_ = 0;
  // The live slots in processing order (ready, order) of the current timeline, and the
  // previous one (kept for undo, then reused as the next move's output).
  std::vector<int> order_, order_before_;
  // Per slot: its index in order_ (kNoPos for a slot not in it). A dep indexed below the
  // first index a move can change is final without reading its task.
  std::vector<int> pos_;
  size_t p0_ = 0;             // the last set_config's first changed index
  size_t stale_from_ = 0;     // pos_ is exact before this index of order_ (undo leaves the rest)
  // The timeline before the last set_config, for undo(): the times of the tasks it changed.
  // Its end is start + duration again (the simulators computed it so).
  struct SavedTimes { int slot; double ready, start; };
  std::vector<SavedTimes> saved_times_;   // its first saved_count_ entries
  size_t saved_count_ = 0;
  double saved_makespan_ = 0;
  bool saved_valid_ = false;
  // Per slot, during a set_config: its state (see simulator.cpp), its deps not yet simulated,
  // and the latest end among those that are.
  std::vector<uint8_t> state_;
  std::vector<int> pending_;
  std::vector<double> acc_;
  // Scratch space reused across calls.
  std::vector<double> lb_, device_end_;
  std::vector<int> stack_;
  std::vector<QueueItem> heap_;
};

}  // namespace autopar
