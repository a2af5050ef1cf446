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
  // The task graph with the current timeline's times (written into its tasks on the first call
  // after a change: moves keep the times in the simulator's own compact per-task records).
  const TaskGraph& task_graph() const;
  // Number of live tasks (task_graph().live_count(), without writing the times back).
  int live_count() const { return tg_.live_count(); }
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
  // What a move reads and writes of one task, in one cache line: the walk touches each task it
  // recomputes here only, not its 136-byte Task spread over three lines (the 18,496 tasks of
  // transformer:layers=24 on lecture:4x8 then take 1.2 MB instead of 2.5 MB).
  struct Node {
    double ready;        // the timeline's ready time (Task::ready_ms)
    uint64_t order;      // Task::order
    double acc;          // during a move: the latest end among its deps simulated so far
    double start;        // Task::start_ms; its end is start + duration, as the simulators compute it
    double duration;     // Task::duration_ms
    int device;          // Task::device
    int pending;         // during a move: its deps not simulated yet
    int deps;            // its number of deps
    int succs[3];        // its successors, kNoSucc after the last; kManySuccs in succs[0]: more than
                         // three, read from its Task
  };
  static constexpr int kNoSucc = -1, kManySuccs = -2;
  // A leaf's times before a move took it (for undo).
  struct SavedLeaf { int slot; double ready, start; };

 private:
  // Simulates the whole task graph and orders it (construction and set_remat).
  void simulate_all();
  // Orders the simulated tasks: the ones with successors into order_, the leaves into their
  // devices' leaves_ lists (after simulate_all or a renumbering).
  void order_tasks();
  // Finishes a set_config whose `change` turns a survivor into a leaf or back (its task changes
  // list) by simulating the whole graph; returns the makespan.
  double set_config_in_full(const TaskGraph::Change& change);
  // Copies slot s's task into nodes_ (times, duration, device, links), or only its links.
  void load_node(int s);
  void load_links(int s);
  // Copies every slot's task into nodes_ (after a full simulation or a renumbering).
  void load_nodes();

  // Mutable: task_graph() writes the nodes' times back into its tasks when they are stale.
  mutable TaskGraph tg_;
  mutable bool times_stale_ = false;   // nodes_ hold times the tasks do not
  std::vector<Node> nodes_;            // per slot
  // Survivors whose link lists the last set_config edited (their nodes' links are loaded again
  // after it and after its undo).
  std::vector<int> relinked_;
  double makespan_ = 0;
  int compact_calls_ = 0;     // compact_if_scattered() calls since the last compaction
  bool remat_move_ = false;   // the last change was set_remat
  int last_recomputed_ = 0;
  // The live slots in processing order (ready, order) of the current timeline, and the
  // previous one (kept for undo, then reused as the next move's output).
  std::vector<int> order_, order_before_;
  size_t p0_ = 0;             // the last set_config's first changed index
  // The timeline before the last set_config, for undo(): the times each task it took had, in
  // its order (order_'s entries from p0_ on). Its end is start + duration again (the
  // simulators computed it so).
  struct SavedTimes { double ready, start; };
  std::vector<SavedTimes> saved_times_;
  double saved_makespan_ = 0;
  bool saved_valid_ = false;
  // Per slot, during a set_config: its state (see simulator.cpp).
  std::vector<uint8_t> state_;
  // Tasks without successors (leaves: in a data-parallel graph every parameter sync, a quarter
  // of transformer:layers=24's tasks) never enter the ready queue or order_: no other task waits
  // for them, so only their device's order matters. Per device, its leaves in (ready, order)
  // order; during a move, the leaves released and not yet taken, sorted (leaf_buffer_), which
  // are taken just before the device's next task with successors, or at the end.
  std::vector<std::vector<int>> leaves_;
  std::vector<std::vector<QueueItem>> leaf_buffer_;
  std::vector<size_t> leaf_p0_;      // per device: the last set_config's first changed leaf
  std::vector<int> leaf_tail_;       // the leaves each device had from leaf_p0_ on, device by device (for undo)
  std::vector<int> leaf_tail_device_;   // the devices whose leaves changed (in leaf_tail_'s order)
  std::vector<size_t> leaf_tail_end_;   // where each one's entries end in leaf_tail_
  std::vector<SavedLeaf> saved_leaves_;  // the times of the leaves the last set_config took
  bool full_move_ = false;           // the last change was simulated in full (set_config_in_full)
  // Scratch space reused across calls.
  std::vector<double> lb_, device_end_;
  std::vector<int> stack_, buffered_devices_;
  std::vector<QueueItem> heap_;
  std::vector<QueueItem> run_;       // during a move: released tasks in key order (beside the heap)
};

}  // namespace autopar
