// Training memory per device: parameters, gradients and optimizer state as the ZeRO paper counts
// them (Rajbhandari et al., SC 2020, section 3: mixed-precision Adam keeps 2 + 2 + 12 bytes per
// parameter; stage 1 shards the optimizer state over the data-parallel group, stage 2 also the
// gradients, stage 3 also the parameters), and activations as Korthikanti et al. (MLSys 2023,
// "Reducing Activation Recomputation in Large Transformer Models", section 4) count them: what
// each op keeps for its backward pass (op_kinds.h), split by Megatron-style tensor parallelism
// and by the data-parallel batch; full recomputation keeps only each layer's input.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "result.h"

namespace autopar {

// The optimizer whose state is kept: Adam (momentum and variance) or SGD with momentum.
enum class Optimizer { adam, sgd };
// "adam" or "sgd".
const char* optimizer_name(Optimizer o);

// How the model is trained on the devices.
struct MemoryOptions {
  int data_parallel = 1;               // replicas; ZeRO shards over them and they split the batch
  int tensor_parallel = 1;             // Megatron tensor-parallel degree inside a replica
  int zero_stage = 0;                  // 0 (none), 1 (optimizer state), 2 (+ gradients), 3 (+ parameters)
  Optimizer optimizer = Optimizer::adam;
  Precision precision = Precision::fp32;   // mixed: 16-bit weights, gradients and activations, FP32 master copy
  bool remat = false;                  // full recomputation: keep only layer inputs
};

// Bytes per parameter of each kind of model state (ZeRO paper, 3.1).
struct StateBytesPerParam {
  int params = 4;
  int grads = 4;
  int optimizer = 8;
};
// The bytes per parameter a precision and optimizer keep: mixed Adam 2 + 2 + 12 (FP32 master
// weights, momentum, variance), FP32 Adam 4 + 4 + 8, mixed SGD 2 + 2 + 8 (master, momentum),
// FP32 SGD 4 + 4 + 4 (momentum). `fp32_main_grads`: gradients accumulated in FP32 (4 bytes) as
// Megatron-LM's distributed optimizer keeps them: mixed Adam 2 + 4 + 12, which with the 12 sharded
// over d is its 6 + 12/d (docs/source/api-guide/dist_optimizer.md, "float16 param, fp32 grads";
// megatron/training/theoretical_memory_usage.py, num_bytes_per_parameter).
StateBytesPerParam state_bytes_per_param(Precision p, Optimizer o, bool fp32_main_grads = false);

// The layers recomputation checkpoints: groups of ops between clean cuts (one tensor crossing)
// that repeat, e.g. each transformer block.
struct LayerStructure {
  std::vector<std::pair<int, int>> layers;   // op ranges [first, last] of the repeating blocks
};
// Finds the repeating blocks of a graph: the graph is cut where one tensor crosses, and the
// longest run of identical consecutive groups of cut pieces (shortest period first) are the
// layers. A graph without repetition has every piece as its own layer.
LayerStructure find_layers(const Graph& g);

// Activation memory of one device.
struct ActivationMemory {
  int layers = 0;
  double layer_bytes = 0;        // every layer's saved activations
  double kept_input_bytes = 0;   // under recomputation: the layers' inputs
  double recompute_bytes = 0;    // under recomputation: the largest layer, while it is recomputed
  double other_bytes = 0;        // ops outside the repeating layers
  double total_bytes = 0;        // layer_bytes + other_bytes, or kept + recompute + other under recomputation
};
// The activation memory of one device from what each op keeps on it for its backward pass
// (`saved`, per op), each op's output on it (`outputs`, per op: a layer's input is an earlier
// op's output) and the model inputs on it (by name), over the layers of find_layers. Both
// `memory` and Alpa's planners count activations with it, each with its own split of the tensors.
ActivationMemory activation_memory(const Graph& g, const std::vector<double>& saved, const std::vector<double>& outputs,
                                   const std::map<std::string, double>& model_inputs, bool remat);
// The same over layers already found (find_layers(g)): planners count many settings of one graph.
ActivationMemory activation_memory(const Graph& g, const LayerStructure& layers, const std::vector<double>& saved,
                                   const std::vector<double>& outputs, const std::map<std::string, double>& model_inputs, bool remat);

// The precision a model trains in: 16-bit floats mean mixed precision, otherwise FP32.
Precision training_precision(const Graph& g);

// Memory of one device.
struct MemoryReport {
  int64_t param_elements = 0;          // the whole model's (tied weights once)
  double device_param_elements = 0;    // after tensor parallelism, before ZeRO
  StateBytesPerParam bytes_per_param;
  double params_bytes = 0;
  double grads_bytes = 0;
  double optimizer_bytes = 0;
  double activation_bytes = 0;
  // ZeRO 3's working buffers (FSDP, resharded after the forward pass): the largest layer's
  // weights gathered whole twice (the one computing, the one prefetched) and its gradients once
  // before their reduce-scatter; 0 below stage 3.
  double gathered_bytes = 0;
  double total_bytes = 0;
  double capacity_bytes = 0;
  bool fits = false;
  int64_t samples_per_replica = 0;     // the largest replica's share of the batch (ceil(batch / dp))
  // Activations in detail: the layer inputs kept under recomputation, the largest layer's
  // activations while it is recomputed, and the ops outside the repeating layers (embeddings,
  // head, loss); without recomputation every layer's activations are in layer_bytes.
  int layers = 0;
  double layer_bytes = 0;
  double kept_input_bytes = 0;
  double recompute_bytes = 0;
  double other_bytes = 0;
};

// The global batch: the largest first dimension of the model's inputs (0 for a model without).
int64_t model_batch(const Graph& g);

// Per-device training memory of `g` on `c` (capacity: one GPU's memory). The graph's batch is
// the global batch; activations are in the graph's dtype (load the model with dtype_bytes=2 for
// mixed precision). Errors: degrees or stages out of range.
Result<MemoryReport> estimate_memory(const Graph& g, const Cluster& c, const MemoryOptions& o);

}  // namespace autopar
