// Per-kind rules of the operator graph, as one table of traits: the attributes a kind takes, how
// many inputs of what rank and dtype it reads, whether it takes a fused activation, how its
// output shape, parameters, FLOPs and SOAP split dimensions follow from its inputs, what it keeps
// for the backward pass, and how Megatron-style tensor parallelism treats it.
#pragma once
#include <string>
#include <vector>

#include "graph.h"
#include "result.h"

namespace autopar {

// One integer attribute of a kind: its default (used when absent) or required when has_default
// is false, and its allowed range. An attribute with `filled` false is left out of the spec when
// absent (its default is derived, e.g. attention's kv_heads = heads), so that adding it did not
// change any existing model file.
struct AttrRule {
  std::string key;
  bool has_default;
  int64_t default_value;
  int64_t min_value;
  int64_t max_value;
  bool filled = true;
};

// How Megatron-LM's tensor parallelism (Shoeybi et al. 2019) treats an op, for the memory model:
// which of its tensors are split over the tensor-parallel group.
enum class TensorParallelRole {
  matmul,      // a replicated input makes it column-parallel (output and weights split), a split
               // input row-parallel (weight split, output all-reduced: replicated, bias replicated)
  embedding,   // vocabulary-parallel: the table is split, the output all-reduced (replicated)
  experts,     // expert-parallel: expert weights split, tokens return to their device
  follow,      // the output is split exactly when the input is; parameters replicated
};

// Which input slices an output slice of the kind reads (FlexFlow's regions, core/flexflow/regions):
// a new kind picks the rule that matches its data access.
enum class RegionRule {
  leading_dims,     // every dimension but the last follows the output (only the batch under flatten)
  window,           // the batch follows; spatial dims widen through kernel, stride, padding and pooling
  window_channels,  // as window, and each channel reads its own channel (pooling)
  batch_only,       // the batch follows; every other dimension is read whole
  lookup,           // the index dimensions follow (not a bag's last)
  same,             // elementwise: the output slice itself
  gated_halves,     // [gate | up] along the last dimension: the same slice of both halves
  attention_heads,  // fused [Q | K | V]: a head slice reads its heads of Q and its groups' K and V
};

// Which sharding strategies Alpa's intra-op pass enumerates for the kind (core/alpa/intra_op).
enum class ShardingRule {
  matmul,            // Alpa's matmul strategies (batch, row, column, contraction splits)
  embedding,         // table split by rows or columns
  attention,         // split by samples and heads
  experts,           // expert parallelism
  follow,            // follows its first operand's spec
  follow_whole_rows, // follows, with the normalised last dimension whole
  follow_loss,       // follows, classes whole; the reported loss is all-reduced
  follow_batch_only, // follows the batch split only (each input keeps its own width)
  follow_no_spatial, // follows, spatial dimensions whole (pooling windows cross them)
};

// True for the kinds whose strategies Alpa enumerates from the op's own compute (the heavy ops
// that anchor layers), false for the kinds that follow an operand.
bool sharding_rule_is_compute(ShardingRule rule);

// What one kind's shape rule computes from the resolved inputs and the (defaulted) attributes.
struct InferredOp {
  Shape output;
  std::vector<Tensor> params;
  double forward_flops = 0;
  std::vector<SplitDim> split_dims;   // before dropping dimensions of size 1
};

// What an op keeps from its forward pass for its backward pass, at full size (no parallelism),
// split by whether it follows the op's input or output layout under tensor parallelism
// (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", 4.1).
struct SavedActivations {
  int64_t with_input_bytes = 0;
  int64_t with_output_bytes = 0;
};

struct OpKindTraits;

// Everything a kind's rules read: the op (inputs resolved, spec attributes defaulted), the model's
// float dtype and the op's JSON path for errors.
struct KindContext {
  Op& op;
  DType float_dtype;
  const std::string& path;
  // The value of an attribute of the kind (defaulted unless the rule is not `filled`).
  int64_t attr(const char* key) const;
  // The value of an attribute, or `fallback` when absent.
  int64_t attr_or(const char* key, int64_t fallback) const;
};

// The traits of one op kind.
struct OpKindTraits {
  OpKind kind;
  const char* name;                     // JSON name
  std::vector<AttrRule> attrs;          // in a fixed order
  size_t min_inputs, max_inputs;        // data inputs
  size_t min_rank, max_rank;            // rank of the first input
  bool float_input;                     // the first input must hold floats
  bool fused_activation;                // takes "activation": relu, gelu or tanh
  TensorParallelRole tensor_parallel;
  RegionRule region;                    // FlexFlow: input slices an output slice reads
  ShardingRule sharding;                // Alpa: the intra-op strategies enumerated
  // Output shape, parameters, forward FLOPs and split dimensions (checks beyond the generic ones).
  Status (*infer)(KindContext& ctx, InferredOp& out);
  // What the op keeps for backward (bytes of the op's dtypes, full size).
  SavedActivations (*saved)(const Op& op);
};

// The traits of `kind` (every kind has one entry).
const OpKindTraits& op_kind_traits(OpKind kind);
// Every kind's traits, in declaration order.
const std::vector<OpKindTraits>& all_op_kind_traits();

// The attributes a kind takes, in a fixed order.
const std::vector<AttrRule>& attr_rules(OpKind kind);

// Derives op.output, op.params, FLOPs, bytes and split dims from op.spec and op.inputs
// (already resolved). `path` is the op's JSON path ("ops[3]") for errors. Attributes absent
// from op.spec.attrs are filled with their defaults (unless the rule is not `filled`).
Status infer_op(Op& op, DType float_dtype, const std::string& path);

// What `op` keeps for its backward pass (see SavedActivations).
SavedActivations saved_activations(const Op& op);

// The same with attention fused (FlashAttention, Dao et al. 2022, section 3.1: the backward
// pass recomputes the scores from Q, K, V, the output and the softmax statistics), when
// `fused_attention`: attention keeps its QKV input and one FP32 log-sum-exp per head and
// position instead of the s x s scores (its output is the next linear's saved input); other
// kinds as saved_activations(op).
SavedActivations saved_activations(const Op& op, bool fused_attention);

}  // namespace autopar
