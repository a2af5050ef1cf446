// FlexFlow's execution simulator: full simulation (Algorithm 1) over a task graph, and delta
// simulation (Algorithm 2) that, after one op's configuration changes, recomputes only the
// tasks whose times change and gives exactly the timeline a full simulation would.
#pragma once
#include <cstdint>
#include <vector>

#include "task_graph.h"

namespace autopar {

// Sums over a simulated timeline (INTERFACES.md `simulate`).
struct SimSummary {
  double makespan_ms = 0;
  double compute_ms = 0;                // sum of forward and backward task durations
  double activation_transfer_ms = 0;    // sum of activation and activation-gradient transfers
  double param_sync_ms = 0;             // sum of parameter synchronisation tasks
  double activation_bytes = 0;
  double param_sync_bytes = 0;
  int tasks = 0;
  int64_t peak_memory_bytes = 0;        // the fullest GPU
  int over_capacity_devices = 0;        // GPUs whose memory need exceeds their capacity
};

// Simulates every live task from scratch by the rule of INTERFACES.md: take the ready task with
// the smallest (ready time, order); it starts at max(ready, end of the device's previous task).
// Writes ready/start/end into the tasks; returns the makespan. With `device_order`, also gives
// each device's tasks in the order they ran.
double simulate_full(TaskGraph& tg, std::vector<std::vector<int>>* device_order = nullptr);

// Sums durations and bytes by kind, the makespan and the memory of a simulated task graph.
SimSummary summarize(const TaskGraph& tg);

// A task graph kept simulated across single-op changes (MCMC's inner loop).
class DeltaSimulator {
 public:
  // Builds and fully simulates `strategy`.
  DeltaSimulator(const Graph& graph, const Cluster& cluster, const Strategy& strategy, CostSettings cost = {});
  // Changes one op's configuration and updates the timeline incrementally; returns the makespan.
  double set_config(int op, const OpConfig& config);
  // The current makespan.
  double makespan() const { return makespan_; }
  const TaskGraph& task_graph() const { return tg_; }
  // Tasks recomputed one by one by the last set_config (a measure of how local the change
  // was), or -1 when the change rippled so far that the timeline was re-simulated whole.
  int last_recomputed() const { return last_recomputed_; }
  // Live tasks still waiting to be recomputed (0 after every set_config; for tests).
  int pending_tasks() const;

 // A worklist entry: recompute `slot` at its ready time, or (check) look at it when the
  // frontier reaches its old position.
  struct Entry { double ready; uint64_t order; int slot; bool check; };

 private:
  void resimulate();
  bool before(int a, int b) const;
  size_t position(int device, int slot) const;
  int next_clean(int device, size_t from) const;
  void vacate(int slot);
  size_t index_of(int device, int slot) const;
  void check_follower(int device, size_t from);
  double predecessor_end(int device, size_t index) const;
  void queue_compute(int slot);
  void push(double ready, int slot, bool check);

  TaskGraph tg_;
  std::vector<std::vector<int>> lists_;   // per device: slots sorted by (ready, order)
  std::vector<uint8_t> dirty_, listed_;
  std::vector<Entry> heap_;
  double makespan_ = 0;
  int last_recomputed_ = 0;
};

}  // namespace autopar
