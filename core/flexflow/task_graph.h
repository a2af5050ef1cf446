// The task graph of FlexFlow's execution simulator (Jia et al., section 5.1): forward and
// backward compute tasks per op part, a transfer task on the link between two devices for every
// data dependency that crosses devices (activations forward, their gradients backward), and
// ring all-reduce tasks that synchronise the replicas of each parameter shard. Every GPU and
// every link is a device of the simulation. Supports replacing one op's configuration in place
// (for delta simulation) with the same tasks and order a fresh build would give.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "regions.h"
#include "result.h"
#include "small_vector.h"
#include "strategy.h"
#include "task_kind.h"

namespace autopar {

// How task durations are computed (lecture 3.4).
enum class CostMode : uint8_t {
  ideal,       // FlexFlow's assumptions: predictable compute, links at full bandwidth
  calibrated,  // ideal compute, message-size-aware bandwidth
  fine,        // "real execution": jittered compute, 20 us per-task launch cost, size-aware bandwidth
};

// Cost-model settings shared by all tasks of a graph.
struct CostSettings {
  CostMode mode = CostMode::ideal;
  uint64_t jitter_seed = 0;          // fine mode: seeds the per-task compute jitter
};

// Extra cost per task of the fine model, and the message size at which a link reaches half
// its bandwidth (efficiency = bytes / (bytes + kHalfBandwidthBytes)).
constexpr double kFineLaunchMs = 0.020;
constexpr double kHalfBandwidthBytes = 1048576.0;
// Fine model: compute times vary uniformly by +-kFineJitter around the roofline estimate.
constexpr double kFineJitter = 0.10;

// One task. `order` is its canonical position (op, phase, indices), the same whichever way the
// graph was built; the simulator breaks ready-time ties by it.
struct Task {
  // Fields the simulator touches on every run come first, to share cache lines.
  uint64_t order = 0;
  double ready_ms = 0, start_ms = 0, end_ms = 0;   // simulation state
  double duration_ms = 0;
  int device = -1;                   // GPU id, or num_gpus + link id
  int pending = 0;                   // the simulators' count of unfinished deps
  SmallVector<int, 4> succs;         // task slots
  SmallVector<int, 4> deps;
  bool live = false;
  TaskKind kind = TaskKind::forward;
  bool forward_pass = true;          // for transfers: activation (true) or gradient (false)
  int op = -1;                       // the op it belongs to (for transfers: the consuming op)
  int part = -1;                     // compute: the part; transfer: consumer part; sync: ring position
  int peer_part = -1;                // transfer: producer part; sync: shard group
  double bytes = 0;                  // transfers and sync: bytes moved
};

// NICs per node that FlexFlow's simulator gives lanes to: the cluster's own count (one per GPU
// on the DGX presets, one per node on the lecture's, p100, k80 and v100), at least one.
int flexflow_nics_per_node(const Cluster& cluster);

// Devices of the simulation: GPUs first, then one link per ordered GPU pair inside a node,
// then network lanes: per ordered pair of nodes, one per NIC of the sending node (a GPU sends
// through NIC gpu * nics / gpus_per_node of its node).
struct DeviceTopology {
  int gpus = 0, nodes = 1, gpus_per_node = 1;
  int nics_per_node = 1;   // network lanes per ordered node pair (1..gpus_per_node)
  // Number of devices (GPUs and links).
  int num_devices() const;
  // The link device carrying data from GPU a to GPU b (a != b).
  int link(int a, int b) const;
  // "GPU 3", "link 0->1", "network node 0->node 1" (with " NIC k" when a node has several).
  std::string name(int device) const;
  // True for a link device.
  bool is_link(int device) const { return device >= gpus; }
};

// The task graph of one strategy, with slots that can be replaced op by op.
// The largest strategy the simulator builds a task graph for, in op parts (each op's parts
// summed): a graph has 2-4 tasks per part at about 400 bytes each (measured: Llama 3.1 405B data
// parallel on 1,024 H100s, 3.4 million tasks in 1.3 GB), so 2^20 parts is about 0.7 GB, which
// a page's WebAssembly heap still holds. Beyond it a build would exhaust memory and abort.
constexpr int64_t kMaxSimulatedParts = int64_t(1) << 20;
// Each op's parts, summed.
int64_t strategy_parts(const Strategy& strategy);
// too_large at `path` (naming the parts, the limit and what to change) when `parts` op parts
// are beyond kMaxSimulatedParts, else Ok; `what` says whose parts they are ("this strategy").
Status check_simulation_size(int64_t parts, const std::string& what, const std::string& path);

class TaskGraph {
 public:
  // Builds every task of `strategy`. `graph` and `cluster` must outlive this object.
  TaskGraph(const Graph& graph, const Cluster& cluster, const Strategy& strategy, CostSettings cost = {});

  // Replaces op `op`'s configuration: removes its tasks and the transfers of its edges, adds the
  // new ones. Returns the slots it removed, added, and the surviving slots that lost deps
  // (a reference valid until the next set_config).
  // The removed tasks keep their data until the next set_config, so the change can be undone.
  struct Change {
    std::vector<int> removed, added, touched;
  };
  const Change& set_config(int op, const OpConfig& config);
  // Reverts the last set_config exactly: the same slots, links and order as before it.
  void undo_last();
  // Builds the tasks of another strategy from scratch, reusing this graph's storage (what a
  // search without delta simulation does at every step).
  void rebuild(const Strategy& strategy);
  // Turns recomputation on or off: rebuilds every task (it changes every layer op's tasks).
  void set_remat(bool remat);
  // Renumbers the live tasks 0 .. live_count() - 1 in the order of `slots` (live tasks missing
  // from it follow in slot order) and drops the dead slots, so that a pass in that order reads
  // the tasks in memory order (a search's accepted moves scatter them over ever more slots).
  // The last set_config can no longer be undone. Returns the old slot -> new slot map (-1: dead).
  const std::vector<int>& compact(const std::vector<int>& slots);

  // All slots, live or not (check Task::live).
  const std::vector<Task>& tasks() const { return tasks_; }
  std::vector<Task>& tasks() { return tasks_; }
  // Number of live tasks.
  int live_count() const { return live_; }
  // The slots of the live tasks (in no particular order).
  const std::vector<int>& live_slots() const;
  const Strategy& strategy() const { return strategy_; }
  const DeviceTopology& topology() const { return topo_; }
  const Graph& graph() const { return graph_; }
  const Cluster& cluster() const { return cluster_; }

 private:
  struct OpUnit { std::vector<int> slots; };     // compute and sync tasks of one op
  struct EdgeUnit {
    std::vector<int> slots;
    int producer = -1, consumer = -1, input = 0;
    int geometry = -1, psplit = -1, csplit = -1;   // its last geometry (index) and the splits it was for
  };

  // What a configuration of an op always gives, computed once per graph (a search proposes the
  // same configurations again and again): each part's device and durations, its boxes, and
  // the parameter-sync ring.
  struct PartTemplate { int device; double fwd_ms, bwd_ms; };
  // A ring edge of a weight shard's collective: phase 0 the all-reduce (ZeRO 0) or the
  // reduce-scatter of the gradients, 1 the all-gather of the updated weights (ZeRO 1, 2), 2 and
  // 3 ZeRO 3's gathers of the weights before the forward and before the backward pass.
  struct SyncTemplate { uint64_t order; int device; double ms, bytes; int from_part, to_part, group, ring_position, ring_size, phase; };
  struct OpTemplate {
    OpConfig config;
    int split = -1;                  // its degrees' index in splits_[op] (edge geometries are per split)
    std::vector<PartTemplate> parts;
    std::vector<SyncTemplate> syncs;
    std::vector<Box> outs;           // per part: what it writes (only in the first template of a split)
    std::vector<BoxList> ins;        // per part and input: what it reads (idem)
  };
  // What an edge gives for a pair of splits (the producer's and the consumer's degrees): the
  // (producer part, consumer part) pairs whose boxes overlap and the elements they share (the
  // transfer volumes), in the order the links are built. The devices only say which link carries
  // each one; a search meets most pairs of configurations once, most pairs of splits often.
  struct Overlap { int producer_part, consumer_part; int64_t elements; };
  struct EdgeGeometry { std::vector<Overlap> overlaps; };
  int op_template(int op);
  void make_op_template(int op, OpTemplate& tpl, const OpTemplate* same_split) const;
  void make_parts(int op, OpTemplate& tpl) const;   // a new split: each part's boxes and durations
  int split_of(int op, const OpConfig& config);
  const EdgeGeometry& edge_geometry(size_t edge);
  void make_edge_geometry(size_t edge, EdgeGeometry& geometry);
  void trim_templates();
  // Makes room for n more new slots after used_ (so that the array does not move while a unit
  // is built) and returns the task array.
  Task* room_for(size_t n);
  // kEdit: inside set_config (slots may come from free_, and new slots and links are noted for
  // undo_last); otherwise a whole build, which hands out slots in turn and notes nothing.
  template <bool kEdit>
  int new_task(Task* tasks, uint64_t order, TaskKind kind, int op, int part, int peer_part, int device, double duration, double bytes);
  template <bool kEdit>
  void add_dep(Task* tasks, int from, int to);
  void note_new_task(int slot);          // set_config: the slot is new (for undo_last)
  void note_new_link(int from, int to);  // set_config: a survivor's link list grew (for undo_last)
  void build_all();
  template <bool kEdit>
  void build_op(int op);
  template <bool kEdit>
  void build_edge(size_t edge);
  void commit();
  double compute_ms(int op, int part, bool backward, double flops, double bytes) const;
  double transfer_ms(int from_gpu, int to_gpu, double bytes, int messages, uint64_t order) const;

  const Graph& graph_;
  const Cluster& cluster_;
  DeviceTopology topo_;
  Strategy strategy_;
  CostSettings cost_;
  std::vector<Task> tasks_;
  std::vector<int> free_;
  size_t used_ = 0;                  // slots handed out since construction or rebuild()
  int live_ = 0;
  mutable std::vector<int> live_slots_;
  mutable bool live_slots_valid_ = false;
  std::vector<OpUnit> op_units_;
  std::vector<EdgeUnit> edges_;
  std::vector<std::vector<size_t>> edges_of_op_;   // edges touching each op
  std::vector<std::vector<int>> fwd_slot_, bwd_slot_;   // per op, per part
  std::vector<char> in_layer_;     // per op: in a repeating layer (recomputed when the strategy says so)
  std::vector<int> scratch_recompute_;   // build_op: the recompute slot of each part
  // What the last set_config changed, kept until the next one so that it can be undone (with
  // last_change_'s removed and added slots).
  // One edit of a surviving task's link list: `value` erased from position `pos`, or pushed at
  // the end. Undo replays them backwards, so the lists come back exactly, order included.
  enum LinkEditKind : uint8_t { kEraseSucc, kEraseDep, kPushSucc, kPushDep };
  struct LinkEdit { int slot, pos, value; LinkEditKind kind; };
  struct Pending {
    bool active = false;
    int op = -1;
    int live = 0;
    OpConfig old_config;
    int old_template = -1;
    std::vector<int> unit_slots, fwd, bwd;
    std::vector<std::vector<int>> edge_slots;
    std::vector<LinkEdit> edits;
    // Empties it, keeping the storage (set_config runs thousands of times per second).
    void reset() {
      active = false;
      op = -1;
      unit_slots.clear();
      fwd.clear();
      bwd.clear();
      for (auto& e : edge_slots) e.clear();
      edge_count = 0;
      edits.clear();
    }
    size_t edge_count = 0;   // entries of edge_slots in use
  } pending_;
  std::vector<uint32_t> new_mark_;   // slot -> the set_config epoch that created it
  // slot -> the set_config epoch that took the removed tasks out of its succs (deps) list
  std::vector<uint32_t> succs_edited_, deps_edited_;
  uint32_t epoch_ = 0;
  std::vector<std::vector<OpTemplate>> op_templates_;   // per op, every configuration seen
  std::vector<std::unordered_map<uint64_t, int>> op_template_index_;   // per op: config hash -> template (only looked up)
  std::vector<int> template_of_op_;                     // per op: its current configuration's template, or -1 (to look up)
  // Per op: for each distinct split met, the first of its templates with it (their configs
  // hold the degrees).
  std::vector<SmallVector<int, 4>> splits_;
  std::vector<EdgeGeometry> edge_geometries_;
  // (edge, producer split, consumer split) -> index in edge_geometries_; only looked up.
  std::unordered_map<uint64_t, int> edge_geometry_index_;
  size_t edge_overlaps_ = 0;                            // overlaps held by edge_geometries_ (bounds memory)
  std::vector<int64_t> scratch_overlap_;                // make_edge_geometry: overlap per producer part
  std::vector<int> scratch_parts_;                      // make_edge_geometry: producer parts overlapped
  std::vector<int> scratch_slots_;                      // set_config: the slots it removes; compact: each new slot's old one
  std::vector<int> remap_;                              // compact: old slot -> new slot
  Change last_change_;                                  // what set_config returns
};

}  // namespace autopar
