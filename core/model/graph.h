// The operator graph both planners read: tensors with shapes and dtypes, ops with kind,
// parameters, FLOPs, bytes, and the SOAP dimensions each op can be split along
// (FlexFlow section 4: Sample, Attribute, Parameter). A Graph is built from a ModelSpec by
// build_graph(), which infers every shape and rejects inconsistent models with a JSON path.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "result.h"

namespace autopar {

// Element types; the model's float type comes from its `dtype_bytes`.
enum class DType { f32, f16, f64, i32, i64 };

// Bytes per element of `t`.
int dtype_bytes(DType t);
// Lower-case name used in JSON ("f32", "i32", ...).
const char* dtype_name(DType t);
// Parses a dtype name; nullopt when unknown.
std::optional<DType> parse_dtype(const std::string& name);
// The float dtype with this many bytes (2, 4 or 8); nullopt otherwise.
std::optional<DType> float_dtype_for_bytes(int64_t bytes);

using Shape = std::vector<int64_t>;

// A named tensor: a model input, an op's output or an op's parameter.
struct Tensor {
  std::string name;
  Shape shape;
  DType dtype = DType::f32;
  bool operator==(const Tensor& o) const { return name == o.name && shape == o.shape && dtype == o.dtype; }
};

// Number of elements of a shape (1 for a scalar).
int64_t num_elements(const Shape& shape);
// Bytes of a tensor.
int64_t tensor_bytes(const Tensor& t);
// "[8, 16, 64]".
std::string shape_to_string(const Shape& shape);

// The kinds of operators the graph knows; each has its traits (shape rule, FLOPs, split
// dimensions, ...) in the table of op_kinds.cpp. New kinds go at the end.
enum class OpKind { linear, conv1d, conv2d, pool2d, flatten, embedding, relu, gelu, add,
                    layernorm, softmax, attention, concat, moe, loss,
                    rmsnorm, swiglu, dropout, first_token, geglu };

// JSON name of a kind ("linear", ...).
const char* op_kind_name(OpKind k);
// Parses a kind name; nullopt when unknown.
std::optional<OpKind> parse_op_kind(const std::string& name);
// Every kind, in declaration order (for error messages and docs).
std::vector<OpKind> all_op_kinds();

// SOAP: how a split dimension relates to the op (FlexFlow section 4).
enum class SplitKind { sample, attribute, parameter };
// "sample", "attribute" or "parameter".
const char* split_kind_name(SplitKind k);

// One dimension an op can be split along: which output dimension it partitions and how
// parts it allows at most (`size`; uneven degrees give balanced parts, see regions.h).
struct SplitDim {
  std::string name;    // "sample", "height", "channel", "heads", ...
  SplitKind kind = SplitKind::sample;
  int output_dim = 0;  // index into the op's output shape
  int64_t size = 1;    // units it holds: the largest degree (a degree need not divide it: balanced parts)
  bool operator==(const SplitDim& o) const {
    return name == o.name && kind == o.kind && output_dim == o.output_dim && size == o.size;
  }
};

// What a user writes for one op (JSON or built-in model): the definition, nothing derived.
struct OpSpec {
  std::string name;
  OpKind kind = OpKind::linear;
  std::vector<std::string> inputs;             // tensor names: model inputs or earlier outputs
  std::string output;                          // name of the tensor this op produces
  std::optional<Shape> shape;                  // declared output shape; checked when present
  std::map<std::string, int64_t> attrs;        // kind-specific integers (out_features, kernel, ...)
  std::string activation = "none";             // fused activation: none, relu, gelu, tanh
  // A linear whose weight is another op's embedding table (tied input and output embeddings,
  // as in GPT-2): the name of that embedding op; empty for a weight of its own.
  std::string weight_from;
  bool operator==(const OpSpec& o) const {
    return name == o.name && kind == o.kind && inputs == o.inputs && output == o.output &&
           attrs == o.attrs && activation == o.activation && weight_from == o.weight_from;
  }
};

struct TransformerArch;   // hf_config.h

// A model definition: its inputs and ops. The JSON model format is exactly this.
struct ModelSpec {
  std::string name;
  DType dtype = DType::f32;           // float type of activations and parameters
  std::vector<Tensor> inputs;         // data the model is fed (no gradient is computed for them)
  std::vector<OpSpec> ops;
  // The transformer architecture the ops were built from (transformer_model_spec sets it; null
  // for other models and model files): the engine exports name it in their own terms, which
  // the ops alone do not say (rotary positions and their base, the norms' epsilon, the dtype
  // the checkpoint names, which layers are MoE).
  // Not part of equality or of the JSON format: the ops are the model.
  std::shared_ptr<const TransformerArch> arch;
  bool operator==(const ModelSpec& o) const {
    return name == o.name && dtype == o.dtype && inputs == o.inputs && ops == o.ops;
  }
};

// A validated op with everything derived from its spec.
struct Op {
  OpSpec spec;
  std::vector<Tensor> inputs;         // the data tensors it reads, in spec order
  Tensor output;
  std::vector<Tensor> params;         // trainable parameters ("fc1.weight", ...)
  double forward_flops = 0;           // multiply-add = 2 FLOPs
  double backward_flops = 0;          // input and weight gradients
  int64_t input_bytes = 0;            // sum of data inputs
  int64_t output_bytes = 0;
  int64_t param_bytes = 0;
  std::vector<SplitDim> split_dims;   // SOAP dimensions, in output-dimension order
  std::vector<int> producers;         // per input: index of the producing op, -1 for a model input
  // The attributes region rules read on hot paths, copied from spec.attrs by build_graph.
  struct Geometry {
    int64_t kernel = 1, stride = 1, padding = 0, pool_kernel = 0, pool_stride = 1;
    bool flatten = false, bag = false;
  } geometry;
  const std::string& name() const { return spec.name; }
  // Memory traffic of one forward execution: inputs + parameters + output.
  int64_t forward_bytes() const { return input_bytes + param_bytes + output_bytes; }
};

// A validated model: ops in a topological order (the declared order where it already is one).
struct Graph {
  ModelSpec spec;                     // the definition it was built from (ops reordered)
  std::vector<Op> ops;
  std::vector<std::vector<int>> consumers;   // per op: indices of ops reading its output
  const std::string& name() const { return spec.name; }
  // Index of the op with this name, or -1.
  int find_op(const std::string& name) const;
  // Sums over all ops.
  double total_forward_flops() const;
  // Parameters are counted once per name: a tied weight read by two ops counts once.
  int64_t total_param_bytes() const;
  int64_t total_param_elements() const;
};

// Hard limits that keep absurd inputs bounded in time and memory (refused with a message).
constexpr int kMaxOps = 20000;
constexpr int64_t kMaxDimSize = int64_t(1) << 40;
constexpr int64_t kMaxTensorElements = int64_t(1) << 50;

// Validates a model and derives shapes, parameters, FLOPs, bytes and split dimensions.
// Errors name the JSON path: "ops[3].inputs[0]", "ops[1].shape", "inputs[0].shape[1]", ...
Result<Graph> build_graph(const ModelSpec& spec);

}  // namespace autopar
