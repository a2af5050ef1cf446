// Training memory per GPU under a FlexFlow strategy, counted as the memory model counts it
// (memory_model.h): parameters, gradients and optimizer state at the precision's bytes per
// parameter (mixed-precision Adam 2 + 2 + 12, FP32 Adam 4 + 4 + 8, SGD), sharded by each op's
// ZeRO stage over the replicas of its weight shard, and the activations each part keeps for its
// backward pass (op_kinds.h's saved_activations, as the part's boxes split them), grouped by the
// repeating layers so that recomputation keeps only the layers' inputs. Kept up to date op by op
// for the MCMC, whose out-of-memory penalty reads it.
#pragma once
#include <unordered_map>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "memory_model.h"
#include "strategy.h"

namespace autopar {

// The number of parts holding each shard of `op`'s weights under `c` (ZeRO shards over them);
// 0 when the op has no weights.
int weight_replicas(const Op& op, const OpConfig& c);

// One GPU's memory by kind, in bytes.
struct DeviceMemoryUse {
  double params_bytes = 0;
  double grads_bytes = 0;
  double optimizer_bytes = 0;
  double activation_bytes = 0;
  double total_bytes = 0;
};

// The memory of every GPU under a strategy, updated one op at a time.
class DeviceMemory {
 public:
  // Counts `strategy` on `cluster`'s GPUs; the precision is the model's (training_precision).
  // `graph` and `cluster` must outlive this object.
  DeviceMemory(const Graph& graph, const Cluster& cluster, const Strategy& strategy, Optimizer optimizer = Optimizer::adam);
  // Replaces op `op`'s configuration (degrees, devices, ZeRO stage).
  void set_config(int op, const OpConfig& config);
  // Turns recomputation on or off.
  void set_remat(bool remat);
  // Reverts the last set_config or set_remat exactly.
  void undo();

  // One GPU's memory.
  const DeviceMemoryUse& device(int gpu) const { return use_[size_t(gpu)]; }
  // The fullest GPU (the lowest id among equals) and its total.
  int peak_device() const { return peak_device_; }
  double peak_bytes() const { return use_[size_t(peak_device_)].total_bytes; }
  // One GPU's memory (the cluster's GPU).
  double capacity_bytes() const { return capacity_; }
  // True when every GPU's need is within its capacity.
  bool fits() const { return peak_bytes() <= capacity_; }
  // GPUs whose need exceeds their capacity.
  int over_capacity_devices() const;
  Optimizer optimizer() const { return optimizer_; }
  Precision precision() const { return precision_; }

 private:
  // What one part of an op adds to its GPU.
  struct PartUse { int device; double params, grads, optimizer, saved, kept; };
  // Per GPU, the sums the totals are made of.
  struct Sums {
    double params = 0, grads = 0, optimizer = 0, other = 0, kept = 0;
    std::vector<double> layer;   // saved activations per layer
  };
  // What each part of op `op` under `c` adds to its GPU.
  void contributions(int op, const OpConfig& c, std::vector<PartUse>& out);
  // contributions() computed afresh (the cache's misses).
  void compute_contributions(int op, const OpConfig& c, std::vector<PartUse>& out) const;
  // Adds (sign +1) or takes away (-1) what `parts` (one op's contributions) adds to each GPU.
  void apply(int op, const std::vector<PartUse>& parts, double sign);
  void refresh(int gpu);
  void refresh_peak();
  // Records a GPU's sums before the first change to them (for undo()).
  void save(int gpu);
  // Drops the records of the last change.
  void forget_saved();

  const Graph& graph_;
  Optimizer optimizer_;
  Precision precision_;
  StateBytesPerParam bytes_per_param_;
  double capacity_ = 0;
  bool fused_attention_ = false;   // attention keeps no s x s scores (cost_model.h, fused_attention)
  bool remat_ = false;
  std::vector<OpConfig> configs_;
  std::vector<int> layer_of_;                  // per op: its layer, -1 outside the layers
  std::vector<int> feeds_;                     // per op: layers whose input it is
  std::vector<std::vector<int>> model_inputs_; // per op: inputs (model inputs) it keeps for a layer under recomputation
  std::vector<int64_t> owned_elements_;        // per op: elements of the weights it holds (a tied weight: its first reader)
  std::vector<Sums> sums_;
  std::vector<DeviceMemoryUse> use_;
  int peak_device_ = 0;
  // Per op: what its current configuration adds to each GPU (computed once per change: a
  // move takes away the old configuration's share without computing it again).
  std::vector<std::vector<PartUse>> parts_;
  // Per op: the contributions of the configurations met so far, by degrees and ZeRO stage
  // (they do not depend on the devices; MCMC proposes the same few again and again).
  std::vector<std::unordered_map<uint64_t, std::vector<PartUse>>> contribution_cache_;
  size_t cached_parts_ = 0;                    // PartUse entries held by the cache (bounded)
  // The last change, for undo(). Only the first saved_count_ records are in use; the others
  // keep their storage (each holds a vector) for the next change.
  struct Saved { int gpu; Sums sums; DeviceMemoryUse use; };
  std::vector<Saved> saved_;
  size_t saved_count_ = 0;
  std::vector<char> is_saved_;
  int saved_op_ = -1;                          // -1: nothing to undo; -2: set_remat
  OpConfig saved_config_;
  std::vector<PartUse> saved_parts_;            // the changed op's contributions before the change
  int saved_peak_ = 0;
};

}  // namespace autopar
