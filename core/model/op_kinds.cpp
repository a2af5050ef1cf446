// The table of per-kind traits: attributes, input checks, and the shape, parameter, FLOP and
// split-dimension rule of every op kind (FlexFlow section 4's Sample / Attribute / Parameter
// dimensions per op), plus what each keeps for backward and its tensor-parallel role. FLOPs
// count a multiply-add as 2. A new kind is one entry in kind_table() and one rule function.
#include "op_kinds.h"

#include <cmath>

namespace autopar {
namespace {

constexpr int64_t kBig = int64_t(1) << 40;

std::string attr_path(const std::string& path, const std::string& key) { return path + ".attrs." + key; }

Error shape_error(const std::string& path, const std::string& message) {
  return make_error(ErrorCode::bad_shape, message, path);
}

// Multiplies sizes, refusing products beyond kMaxTensorElements (absurd models).
bool checked_product(const Shape& s, int64_t& out) {
  out = 1;
  for (int64_t d : s) {
    if (d <= 0 || out > kMaxTensorElements / d) return false;
    out *= d;
  }
  return true;
}

SplitDim split(const std::string& name, SplitKind kind, int dim, const Shape& out) {
  return SplitDim{name, kind, dim, out[size_t(dim)]};
}

// Split dims of an op whose output is [batch, (attributes...)]: sample on dim 0, attributes
// on the others except the last `whole_last_dims` (dims that must stay whole, e.g. a normalised row).
std::vector<SplitDim> sample_and_attributes(const Shape& out, const std::vector<std::string>& names,
                                            int whole_last_dims) {
  std::vector<SplitDim> dims{split("sample", SplitKind::sample, 0, out)};
  int last = int(out.size()) - whole_last_dims;
  for (int d = 1; d < last; ++d) {
    std::string name = d - 1 < int(names.size()) ? names[size_t(d - 1)] : "dim" + std::to_string(d);
    dims.push_back(split(name, SplitKind::attribute, d, out));
  }
  return dims;
}

int64_t conv_out_size(int64_t in, int64_t kernel, int64_t stride, int64_t padding) {
  return (in + 2 * padding - kernel) / stride + 1;
}

Status need_float(const KindContext& c, size_t i) {
  const Tensor& t = c.op.inputs[i];
  if (t.dtype == DType::i32 || t.dtype == DType::i64)
    return make_error(ErrorCode::bad_dtype, "input '" + t.name + "' holds integers; a " + op_kind_name(c.op.spec.kind) + " op needs floats",
                      c.path + ".inputs[" + std::to_string(i) + "]");
  return Ok{};
}

// FLOPs of a fused activation over `elems` outputs.
double activation_flops(const std::string& activation, int64_t elems) {
  if (activation == "relu") return double(elems);
  if (activation == "gelu") return 8.0 * double(elems);
  if (activation == "tanh") return 4.0 * double(elems);
  return 0.0;
}

// ---- shape rules, one per kind ----

Status infer_linear(KindContext& c, InferredOp& r) {
  const Shape& x = c.op.inputs[0].shape;
  const std::string& n = c.op.spec.name;
  int64_t in_features = 0, rows = 0;
  if (c.attr("flatten")) {
    Shape tail(x.begin() + 1, x.end());
    if (!checked_product(tail, in_features)) return shape_error(c.path, "input too large");
    r.output = {x[0], c.attr("out_features")};
    rows = x[0];
  } else {
    in_features = x.back();
    r.output = x;
    r.output.back() = c.attr("out_features");
    Shape lead(x.begin(), x.end() - 1);
    checked_product(lead, rows);
  }
  int64_t of = c.attr("out_features");
  // A tied weight is the embedding table of op `weight_from` (checked by build_graph), read
  // transposed; it keeps that table's name so the model counts it once.
  const std::string& wf = c.op.spec.weight_from;
  r.params.push_back({(wf.empty() ? n : wf) + ".weight", {in_features, of}, c.float_dtype});
  if (c.attr("bias")) r.params.push_back({n + ".bias", {of}, c.float_dtype});
  r.forward_flops = 2.0 * double(rows) * double(in_features) * double(of) + (c.attr("bias") ? double(rows * of) : 0.0) +
                    activation_flops(c.op.spec.activation, rows * of);
  r.split_dims = sample_and_attributes(r.output, {"length", "width"}, 1);
  r.split_dims.push_back(split("channel", SplitKind::parameter, int(r.output.size()) - 1, r.output));
  return Ok{};
}

Status infer_conv(KindContext& c, InferredOp& r) {
  OpSpec& spec = c.op.spec;
  const bool two = spec.kind == OpKind::conv2d;
  const Shape& x = c.op.inputs[0].shape;
  int64_t k = c.attr("kernel"), s = c.attr("stride"), p = c.attr("padding");
  if (p < 0) p = (k - 1) / 2;  // "same" padding for odd kernels at stride 1
  spec.attrs["padding"] = p;
  Shape& out = r.output;
  out = {x[0], c.attr("out_channels")};
  for (size_t d = 2; d < x.size(); ++d) {
    int64_t o = conv_out_size(x[d], k, s, p);
    if (o < 1)
      return shape_error(c.path, "kernel " + std::to_string(k) + " does not fit input " + shape_to_string(x) + " with padding " +
                                     std::to_string(p) + "; use a smaller kernel or more padding");
    out.push_back(o);
  }
  int64_t spatial = 1;
  for (size_t d = 2; d < out.size(); ++d) spatial *= out[d];
  int64_t window = two ? k * k : k;
  const std::string& n = spec.name;
  r.params.push_back({n + ".weight", two ? Shape{out[1], x[1], k, k} : Shape{out[1], x[1], k}, c.float_dtype});
  if (c.attr("bias")) r.params.push_back({n + ".bias", {out[1]}, c.float_dtype});
  r.forward_flops = 2.0 * double(out[0]) * double(out[1]) * double(spatial) * double(x[1]) * double(window) +
                    (c.attr("bias") ? double(out[0] * out[1] * spatial) : 0.0) +
                    activation_flops(spec.activation, out[0] * out[1] * spatial);
  if (two && c.attr("pool_kernel") > 0) {
    int64_t pk = c.attr("pool_kernel"), ps = c.attr("pool_stride") > 0 ? c.attr("pool_stride") : pk;
    spec.attrs["pool_stride"] = ps;
    for (size_t d = 2; d < 4; ++d) {
      int64_t o = conv_out_size(out[d], pk, ps, 0);
      if (o < 1) return shape_error(c.path, "pool_kernel " + std::to_string(pk) + " is larger than the convolution output " + shape_to_string(out));
      out[d] = o;
    }
    r.forward_flops += double(out[0] * out[1] * out[2] * out[3]) * double(pk * pk);
  }
  r.split_dims.push_back(split("sample", SplitKind::sample, 0, out));
  r.split_dims.push_back(split("channel", SplitKind::parameter, 1, out));
  r.split_dims.push_back(split(two ? "height" : "length", SplitKind::attribute, 2, out));
  if (two) r.split_dims.push_back(split("width", SplitKind::attribute, 3, out));
  return Ok{};
}

Status infer_pool2d(KindContext& c, InferredOp& r) {
  const Shape& x = c.op.inputs[0].shape;
  int64_t k = c.attr("kernel"), s = c.attr("stride") > 0 ? c.attr("stride") : k;
  c.op.spec.attrs["stride"] = s;
  r.output = {x[0], x[1], conv_out_size(x[2], k, s, 0), conv_out_size(x[3], k, s, 0)};
  if (r.output[2] < 1 || r.output[3] < 1)
    return shape_error(c.path, "pool kernel " + std::to_string(k) + " is larger than the input " + shape_to_string(x));
  r.forward_flops = double(num_elements(r.output)) * double(k * k);
  r.split_dims = sample_and_attributes(r.output, {"channel", "height", "width"}, 0);
  return Ok{};
}

Status infer_flatten(KindContext& c, InferredOp& r) {
  const Shape& x = c.op.inputs[0].shape;
  int64_t rest = 0;
  Shape tail(x.begin() + 1, x.end());
  checked_product(tail, rest);
  r.output = {x[0], rest};
  r.split_dims = sample_and_attributes(r.output, {}, 1);
  return Ok{};
}

Status infer_embedding(KindContext& c, InferredOp& r) {
  const Tensor& in = c.op.inputs[0];
  if (in.dtype != DType::i32 && in.dtype != DType::i64)
    return make_error(ErrorCode::bad_dtype, "an embedding reads integer indices (dtype i32 or i64), but '" + in.name + "' is " + dtype_name(in.dtype),
                      c.path + ".inputs[0]");
  const Shape& x = in.shape;
  int64_t dim = c.attr("embedding_dim");
  r.output = x;
  if (c.attr("bag")) {
    if (x.size() < 2) return shape_error(c.path + ".inputs[0]", "a bag embedding sums over the last index dimension, so it needs 2-D indices");
    r.output.back() = dim;
  } else {
    r.output.push_back(dim);
  }
  r.params.push_back({c.op.spec.name + ".weight", {c.attr("num_embeddings"), dim}, c.float_dtype});
  r.forward_flops = double(num_elements(x)) * double(dim);  // one read-and-add per looked-up element
  r.split_dims = sample_and_attributes(r.output, {"length"}, 1);
  r.split_dims.push_back(split("channel", SplitKind::parameter, int(r.output.size()) - 1, r.output));
  return Ok{};
}

// relu, gelu, add, dropout: one output element per input element.
Status infer_elementwise(KindContext& c, InferredOp& r) {
  const auto& in = c.op.inputs;
  const OpKind kind = c.op.spec.kind;
  if (kind == OpKind::add && in[1].shape != in[0].shape)
    return shape_error(c.path + ".inputs[1]", "add needs inputs of one shape, but '" + in[0].name + "' is " + shape_to_string(in[0].shape) +
                                                  " and '" + in[1].name + "' is " + shape_to_string(in[1].shape));
  r.output = in[0].shape;
  r.forward_flops = double(num_elements(r.output)) * (kind == OpKind::gelu ? 8.0 : 1.0);
  r.split_dims = sample_and_attributes(r.output, {"length", "channel"}, 0);
  if (r.output.size() == 2) r.split_dims.back().name = "channel";
  return Ok{};
}

// layernorm, rmsnorm, softmax: each row (last dimension) is normalised whole.
Status infer_row_normalise(KindContext& c, InferredOp& r) {
  r.output = c.op.inputs[0].shape;
  const std::string& n = c.op.spec.name;
  if (c.op.spec.kind == OpKind::layernorm) {
    r.params.push_back({n + ".gamma", {r.output.back()}, c.float_dtype});
    r.params.push_back({n + ".beta", {r.output.back()}, c.float_dtype});
  }
  // RMSNorm (Zhang & Sennrich 2019): a scale, no shift and no mean: square, sum, scale, multiply.
  if (c.op.spec.kind == OpKind::rmsnorm) r.params.push_back({n + ".weight", {r.output.back()}, c.float_dtype});
  r.forward_flops = (c.op.spec.kind == OpKind::rmsnorm ? 4.0 : 5.0) * double(num_elements(r.output));
  r.split_dims = sample_and_attributes(r.output, {"length"}, 1);
  return Ok{};
}

Status infer_attention(KindContext& c, InferredOp& r) {
  const Tensor& in = c.op.inputs[0];
  const Shape& x = in.shape;
  int64_t heads = c.attr("heads");
  int64_t h = 0;
  if (!c.op.spec.attrs.count("kv_heads")) {
    // [batch, seq, 3 * hidden]: the fused Q, K, V projections.
    if (x[2] % 3 != 0 || (x[2] / 3) % heads != 0)
      return shape_error(c.path + ".inputs[0]", "attention reads fused QKV [batch, seq, 3*hidden] with hidden divisible by heads (" +
                                                    std::to_string(heads) + "), but '" + in.name + "' is " + shape_to_string(x));
    h = x[2] / 3;
  } else {
    // Grouped-query attention (Ainslie et al. 2023): [batch, seq, (heads + 2 * kv_heads) * head_dim].
    int64_t kv = c.attr("kv_heads");
    if (heads % kv != 0)
      return make_error(ErrorCode::bad_value, "kv_heads (" + std::to_string(kv) + ") must divide heads (" + std::to_string(heads) + ")",
                        attr_path(c.path, "kv_heads"));
    if (x[2] % (heads + 2 * kv) != 0)
      return shape_error(c.path + ".inputs[0]", "grouped-query attention reads fused Q, K, V [batch, seq, (heads + 2*kv_heads)*head_dim] = (" +
                                                    std::to_string(heads) + " + 2*" + std::to_string(kv) + ")*head_dim, but '" + in.name +
                                                    "' is " + shape_to_string(x));
    h = x[2] / (heads + 2 * kv) * heads;
  }
  r.output = {x[0], x[1], h};
  // Q K^T and (softmax) V: 2 * b * s * s * h each, plus the softmax over b * heads * s * s
  // (grouped K/V heads are shared by their query heads, so the work is that of every head).
  r.forward_flops = 4.0 * double(x[0]) * double(x[1]) * double(x[1]) * double(h) +
                    5.0 * double(x[0]) * double(heads) * double(x[1]) * double(x[1]);
  r.split_dims.push_back(split("sample", SplitKind::sample, 0, r.output));
  // The query positions (SOAP's Attribute dimension as context parallelism): a part computes
  // its positions' outputs against every key and value, which it reads whole (regions.cpp), as
  // Llama 3's all-gather context parallelism does (Dubey et al. 2024, section 3.3.2).
  r.split_dims.push_back(split("length", SplitKind::attribute, 1, r.output));
  r.split_dims.push_back(SplitDim{"heads", SplitKind::attribute, 2, heads});
  return Ok{};
}

Status infer_concat(KindContext& c, InferredOp& r) {
  const auto& in = c.op.inputs;
  int64_t axis = c.attr("axis");
  int rank = int(in[0].shape.size());
  if (axis < 0) axis += rank;
  if (axis < 1 || axis >= rank)
    return make_error(ErrorCode::out_of_range, "concat axis must be a non-batch dimension of the " + std::to_string(rank) + "-D inputs", attr_path(c.path, "axis"));
  c.op.spec.attrs["axis"] = axis;
  r.output = in[0].shape;
  r.output[size_t(axis)] = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    AUTOPAR_TRY(input_float, need_float(c, i));
    const Shape& s = in[i].shape;
    if (s.size() != size_t(rank)) return shape_error(c.path + ".inputs[" + std::to_string(i) + "]", "concat inputs must have one rank");
    for (int d = 0; d < rank; ++d)
      if (d != axis && s[size_t(d)] != in[0].shape[size_t(d)])
        return shape_error(c.path + ".inputs[" + std::to_string(i) + "]",
                           "concat inputs must match outside axis " + std::to_string(axis) + ", but '" + in[i].name + "' is " +
                               shape_to_string(s) + " and '" + in[0].name + "' is " + shape_to_string(in[0].shape));
    r.output[size_t(axis)] += s[size_t(axis)];
  }
  r.split_dims.push_back(split("sample", SplitKind::sample, 0, r.output));
  return Ok{};
}

Status infer_moe(KindContext& c, InferredOp& r) {
  const Shape& x = c.op.inputs[0].shape;
  int64_t h = x.back(), e = c.attr("experts"), f = c.attr("ffn"), k = c.attr("top_k");
  if (k > e) return make_error(ErrorCode::out_of_range, "top_k (" + std::to_string(k) + ") exceeds experts (" + std::to_string(e) + ")", attr_path(c.path, "top_k"));
  // gated: each expert is a gated MLP (SwiGLU, as Mixtral's w1/w3 and w2): gate and up side by
  // side in w1, [E, h, 2f]. shared_gate: the router also scores a shared expert that runs
  // beside the routed ones (Qwen2-MoE's shared_expert_gate, a [h, 1] weight), one more router
  // column; the shared expert itself is ordinary dense ops in the graph.
  const int64_t gated = c.attr_or("gated", 0), shared = c.attr_or("shared_gate", 0);
  r.output = x;
  int64_t tokens = num_elements(x) / h;
  const std::string& n = c.op.spec.name;
  r.params.push_back({n + ".gate", {h, e + shared}, c.float_dtype});
  r.params.push_back({n + ".w1", {e, h, gated ? 2 * f : f}, c.float_dtype});
  r.params.push_back({n + ".w2", {e, f, h}, c.float_dtype});
  // Gate, then each token through top_k experts' matmuls (GShard): two, or three when gated.
  r.forward_flops = 2.0 * double(tokens) * double(h) * double(e + shared) +
                    double(k) * (gated ? 6.0 : 4.0) * double(tokens) * double(h) * double(f);
  r.split_dims = sample_and_attributes(r.output, {"length"}, 1);
  return Ok{};
}

Status infer_loss(KindContext& c, InferredOp& r) {
  const Shape& x = c.op.inputs[0].shape;
  r.output = Shape(x.begin(), x.end() - 1);  // one loss per sample (and position)
  r.forward_flops = 5.0 * double(num_elements(x));
  r.split_dims = sample_and_attributes(r.output, {"length"}, 0);
  return Ok{};
}

// SwiGLU (Shazeer 2020, as in Llama): [..., 2f] holding the gate and up projections side by side
// -> silu(gate) * up, [..., f]. Sigmoid, multiply, multiply: about 5 FLOPs per output.
// GeGLU (the same paper, as in Gemma): gelu(gate) * up, the tanh GELU (8 FLOPs, as the gelu
// kind) and the multiply.
Status infer_swiglu(KindContext& c, InferredOp& r) {
  const Tensor& in = c.op.inputs[0];
  if (in.shape.back() % 2 != 0)
    return shape_error(c.path + ".inputs[0]", std::string(op_kind_name(c.op.spec.kind)) + " reads the gate and up projections side by side, [..., 2*ffn], but '" + in.name +
                                                  "' is " + shape_to_string(in.shape) + " (an odd last dimension)");
  r.output = in.shape;
  r.output.back() /= 2;
  r.forward_flops = (c.op.spec.kind == OpKind::geglu ? 9.0 : 5.0) * double(num_elements(r.output));
  r.split_dims = sample_and_attributes(r.output, {"length", "channel"}, 0);
  if (r.output.size() == 2) r.split_dims.back().name = "channel";
  return Ok{};
}

// The hidden state of each sequence's first token ([CLS]), as BERT's pooler reads it:
// [batch, seq, hidden] -> [batch, hidden].
Status infer_first_token(KindContext& c, InferredOp& r) {
  const Shape& x = c.op.inputs[0].shape;
  r.output = {x[0], x[2]};
  r.split_dims = sample_and_attributes(r.output, {}, 1);
  return Ok{};
}

// ---- what each kind keeps for backward ----

SavedActivations saved_nothing(const Op&) { return {}; }
SavedActivations saved_input(const Op& op) { return {op.inputs.empty() ? 0 : tensor_bytes(op.inputs[0]), 0}; }
SavedActivations saved_output(const Op& op) { return {0, op.output_bytes}; }
// A matmul keeps its input for the weight gradient, and its output before a fused activation.
SavedActivations saved_matmul(const Op& op) {
  return {tensor_bytes(op.inputs[0]), op.spec.activation == "none" ? 0 : op.output_bytes};
}
// Dropout keeps a one-byte mask per element.
SavedActivations saved_dropout(const Op& op) { return {0, num_elements(op.output.shape)}; }
// Attention keeps Q, K and V, the softmax output, and with dropout its mask (1 byte) and output
// (Korthikanti et al. 4.1: 2as^2b + as^2b + 2as^2b = 5as^2b in 16-bit).
SavedActivations saved_attention(const Op& op) {
  const Shape& x = op.inputs[0].shape;
  const int64_t heads = op.spec.attrs.count("heads") ? op.spec.attrs.at("heads") : 1;
  const bool dropout = op.spec.attrs.count("dropout") && op.spec.attrs.at("dropout") != 0;
  const int64_t scores = x[0] * heads * x[1] * x[1];
  const int64_t dt = dtype_bytes(op.output.dtype);
  return {tensor_bytes(op.inputs[0]), scores * (dt + (dropout ? 1 + dt : 0))};
}
// Each token's top_k experts keep the expert input and the hidden activation (both ffn wide).
SavedActivations saved_moe(const Op& op) {
  const Shape& x = op.inputs[0].shape;
  const int64_t tokens = num_elements(x) / x.back();
  const int64_t k = op.spec.attrs.at("top_k"), f = op.spec.attrs.at("ffn");
  // A gated expert also keeps its gate projection (gate, up and their product: 3 x f).
  const int64_t kept = op.spec.attrs.count("gated") && op.spec.attrs.at("gated") ? 3 : 2;
  return {tensor_bytes(op.inputs[0]), kept * k * tokens * f * dtype_bytes(op.output.dtype)};
}

const std::vector<OpKindTraits>& kind_table() {
  using R = TensorParallelRole;
  using G = RegionRule;
  using A = ShardingRule;
  static const std::vector<OpKindTraits> table = {
      {OpKind::linear, "linear",
       {{"out_features", false, 0, 1, kBig}, {"bias", true, 1, 0, 1}, {"flatten", true, 0, 0, 1}},
       1, 1, 2, 6, true, true, R::matmul, G::leading_dims, A::matmul, infer_linear, saved_matmul},
      {OpKind::conv1d, "conv1d",
       {{"out_channels", false, 0, 1, kBig}, {"kernel", false, 0, 1, 4096}, {"stride", true, 1, 1, 4096},
        {"padding", true, -1, -1, 4096}, {"bias", true, 0, 0, 1}},
       1, 1, 3, 3, true, true, R::matmul, G::window, A::matmul, infer_conv, saved_matmul},
      {OpKind::conv2d, "conv2d",
       {{"out_channels", false, 0, 1, kBig}, {"kernel", false, 0, 1, 4096}, {"stride", true, 1, 1, 4096},
        {"padding", true, -1, -1, 4096}, {"bias", true, 0, 0, 1}, {"pool_kernel", true, 0, 0, 4096},
        {"pool_stride", true, 0, 0, 4096}},
       1, 1, 4, 4, true, true, R::matmul, G::window, A::matmul, infer_conv, saved_matmul},
      {OpKind::pool2d, "pool2d", {{"kernel", false, 0, 1, 4096}, {"stride", true, 0, 0, 4096}},
       1, 1, 4, 4, true, false, R::follow, G::window_channels, A::follow_no_spatial, infer_pool2d, saved_input},
      {OpKind::flatten, "flatten", {}, 1, 1, 2, 6, false, false, R::follow, G::batch_only, A::follow_batch_only, infer_flatten, saved_nothing},
      {OpKind::embedding, "embedding",
       {{"num_embeddings", false, 0, 1, kBig}, {"embedding_dim", false, 0, 1, kBig}, {"bag", true, 0, 0, 1}},
       1, 1, 1, 3, false, false, R::embedding, G::lookup, A::embedding, infer_embedding, saved_input},
      {OpKind::relu, "relu", {}, 1, 1, 1, 6, true, false, R::follow, G::same, A::follow, infer_elementwise, saved_output},
      {OpKind::gelu, "gelu", {}, 1, 1, 1, 6, true, false, R::follow, G::same, A::follow, infer_elementwise, saved_input},
      {OpKind::add, "add", {}, 2, 2, 1, 6, true, false, R::follow, G::same, A::follow, infer_elementwise, saved_nothing},
      {OpKind::layernorm, "layernorm", {}, 1, 1, 2, 6, true, false, R::follow, G::same, A::follow_whole_rows, infer_row_normalise, saved_input},
      {OpKind::softmax, "softmax", {}, 1, 1, 2, 6, true, false, R::follow, G::same, A::follow_whole_rows, infer_row_normalise, saved_output},
      {OpKind::attention, "attention",
       {{"heads", false, 0, 1, 65536}, {"kv_heads", true, 0, 1, 65536, false}, {"dropout", true, 0, 0, 1, false}},
       1, 1, 3, 3, true, false, R::follow, G::attention_heads, A::attention, infer_attention, saved_attention},
      {OpKind::concat, "concat", {{"axis", true, -1, -1, 8}}, 2, 1024, 1, 6, false, false, R::follow, G::batch_only, A::follow_batch_only, infer_concat, saved_nothing},
      {OpKind::moe, "moe",
       {{"experts", false, 0, 1, 65536}, {"ffn", false, 0, 1, kBig}, {"top_k", true, 2, 1, 65536},
        {"gated", true, 0, 0, 1, false}, {"shared_gate", true, 0, 0, 1, false}},
       1, 1, 2, 3, true, false, R::experts, G::leading_dims, A::experts, infer_moe, saved_moe},
      {OpKind::loss, "loss", {}, 1, 1, 2, 6, true, false, R::follow, G::leading_dims, A::follow_loss, infer_loss, saved_input},
      {OpKind::rmsnorm, "rmsnorm", {}, 1, 1, 2, 6, true, false, R::follow, G::same, A::follow_whole_rows, infer_row_normalise, saved_input},
      {OpKind::swiglu, "swiglu", {}, 1, 1, 1, 6, true, false, R::follow, G::gated_halves, A::follow, infer_swiglu, saved_input},
      {OpKind::dropout, "dropout", {}, 1, 1, 1, 6, true, false, R::follow, G::same, A::follow, infer_elementwise, saved_dropout},
      {OpKind::first_token, "first_token", {}, 1, 1, 3, 3, true, false, R::follow, G::batch_only, A::follow_batch_only, infer_first_token, saved_nothing},
      {OpKind::geglu, "geglu", {}, 1, 1, 1, 6, true, false, R::follow, G::gated_halves, A::follow, infer_swiglu, saved_input},
  };
  return table;
}

}  // namespace

int64_t KindContext::attr(const char* key) const { return op.spec.attrs.at(key); }

int64_t KindContext::attr_or(const char* key, int64_t fallback) const {
  auto it = op.spec.attrs.find(key);
  return it == op.spec.attrs.end() ? fallback : it->second;
}

const std::vector<OpKindTraits>& all_op_kind_traits() { return kind_table(); }

bool sharding_rule_is_compute(ShardingRule rule) {
  return rule == ShardingRule::matmul || rule == ShardingRule::embedding || rule == ShardingRule::attention ||
         rule == ShardingRule::experts;
}

const OpKindTraits& op_kind_traits(OpKind kind) {
  // The table is in declaration order (a unit test checks entry i has kind i), so the kind is
  // its index: regions and strategies ask this per op on the task graph's hot path.
  return kind_table()[size_t(kind)];
}

const std::vector<AttrRule>& attr_rules(OpKind kind) { return op_kind_traits(kind).attrs; }

const char* op_kind_name(OpKind k) { return op_kind_traits(k).name; }

std::optional<OpKind> parse_op_kind(const std::string& name) {
  for (const auto& k : kind_table())
    if (name == k.name) return k.kind;
  return std::nullopt;
}

std::vector<OpKind> all_op_kinds() {
  std::vector<OpKind> kinds;
  for (const auto& k : kind_table()) kinds.push_back(k.kind);
  return kinds;
}

SavedActivations saved_activations(const Op& op) { return op_kind_traits(op.spec.kind).saved(op); }

SavedActivations saved_activations(const Op& op, bool fused_attention) {
  if (!fused_attention || op.spec.kind != OpKind::attention || op.inputs.empty() || op.inputs[0].shape.size() != 3)
    return saved_activations(op);
  const Shape& x = op.inputs[0].shape;
  const int64_t heads = op.spec.attrs.count("heads") ? op.spec.attrs.at("heads") : 1;
  // Its output is the output projection's saved input (one tensor, counted there).
  return {tensor_bytes(op.inputs[0]), x[0] * heads * x[1] * 4};
}

Status infer_op(Op& op, DType float_dtype, const std::string& path) {
  OpSpec& spec = op.spec;
  const OpKindTraits& traits = op_kind_traits(spec.kind);
  const auto& rules = traits.attrs;
  for (const auto& [key, value] : spec.attrs) {
    const AttrRule* rule = nullptr;
    for (const auto& r : rules) if (r.key == key) rule = &r;
    if (!rule) {
      std::string valid;
      for (const auto& r : rules) valid += (valid.empty() ? "" : ", ") + r.key;
      return make_error(ErrorCode::unknown_field,
                        "unknown attribute '" + key + "' for a " + op_kind_name(spec.kind) + " op; valid: " +
                            (valid.empty() ? "none" : valid),
                        attr_path(path, key));
    }
    if (value < rule->min_value || value > rule->max_value)
      return make_error(ErrorCode::out_of_range,
                        "attribute '" + key + "' is " + std::to_string(value) + "; it must be between " +
                            std::to_string(rule->min_value) + " and " + std::to_string(rule->max_value),
                        attr_path(path, key));
  }
  for (const auto& r : rules) {
    if (spec.attrs.count(r.key) || !r.filled) continue;
    if (!r.has_default)
      return make_error(ErrorCode::missing_field,
                        std::string("a ") + op_kind_name(spec.kind) + " op needs the attribute '" + r.key + "'",
                        path + ".attrs");
    spec.attrs[r.key] = r.default_value;
  }
  if (spec.activation != "none" && spec.activation != "relu" && spec.activation != "gelu" && spec.activation != "tanh")
    return make_error(ErrorCode::bad_value, "activation '" + spec.activation + "' is unknown; use none, relu, gelu or tanh",
                      path + ".activation");
  if (spec.activation != "none" && !traits.fused_activation)
    return make_error(ErrorCode::bad_value, "only linear and convolution ops take a fused activation", path + ".activation");
  if (!spec.weight_from.empty() && spec.kind != OpKind::linear)
    return make_error(ErrorCode::bad_value, "only a linear op can take its weight from an embedding (weight_from)", path + ".weight_from");

  const auto& in = op.inputs;
  if (in.size() < traits.min_inputs || in.size() > traits.max_inputs) {
    size_t lo = traits.min_inputs, hi = traits.max_inputs;
    std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " or more";
    return make_error(ErrorCode::bad_arity,
                      std::string("a ") + op_kind_name(spec.kind) + " op reads " + want + " input" +
                          (lo == 1 && hi == 1 ? "" : "s") + ", not " + std::to_string(in.size()),
                      path + ".inputs");
  }
  {
    size_t r = in[0].shape.size(), lo = traits.min_rank, hi = traits.max_rank;
    if (r < lo || r > hi)
      return shape_error(path + ".inputs[0]",
                         std::string("a ") + op_kind_name(spec.kind) + " op needs a " +
                             (lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi)) +
                             "-D input, but '" + in[0].name + "' is " + shape_to_string(in[0].shape));
  }
  KindContext ctx{op, float_dtype, path};
  if (traits.float_input) {
    AUTOPAR_TRY(input_float, need_float(ctx, 0));
  }

  InferredOp r;
  AUTOPAR_TRY(inferred, traits.infer(ctx, r));
  const Shape& out = r.output;
  const double fwd = r.forward_flops;

  int64_t elems = 0;
  if (!checked_product(out, elems))
    return shape_error(path, "the output " + shape_to_string(out) + " is too large (more than 2^50 elements); use smaller sizes");
  for (const Tensor& p : r.params) {
    int64_t pe = 0;
    if (!checked_product(p.shape, pe))
      return shape_error(path, "parameter '" + p.name + "' " + shape_to_string(p.shape) + " is too large; use smaller sizes");
  }
  if (!std::isfinite(fwd) || fwd > 1e24)
    return shape_error(path, "the op needs more than 1e24 FLOPs; use smaller sizes");
  if (spec.shape && *spec.shape != out)
    return shape_error(path + ".shape", "declared output shape " + shape_to_string(*spec.shape) + " does not match " +
                                            shape_to_string(out) + ", which this " + op_kind_name(spec.kind) +
                                            " op produces from its inputs; fix the shape or the inputs");
  op.geometry.kernel = ctx.attr_or("kernel", 1);
  op.geometry.stride = ctx.attr_or("stride", 1);
  op.geometry.padding = ctx.attr_or("padding", 0);
  op.geometry.pool_kernel = ctx.attr_or("pool_kernel", 0);
  op.geometry.pool_stride = ctx.attr_or("pool_stride", 1);
  op.geometry.flatten = ctx.attr_or("flatten", 0) != 0;
  op.geometry.bag = ctx.attr_or("bag", 0) != 0;
  op.output = Tensor{spec.output, out, float_dtype};
  op.params = std::move(r.params);
  op.forward_flops = fwd;
  // Backward: ops with weights compute both the input and the weight gradient (2x);
  // parameter-free ops only the input gradient (1x).
  op.backward_flops = op.params.empty() ? fwd : 2.0 * fwd;
  op.input_bytes = 0;
  for (const Tensor& t : op.inputs) op.input_bytes += tensor_bytes(t);
  op.output_bytes = tensor_bytes(op.output);
  op.param_bytes = 0;
  for (const Tensor& t : op.params) op.param_bytes += tensor_bytes(t);
  // A split degree must divide the dimension; a dimension of size 1 cannot be split.
  for (const SplitDim& d : r.split_dims)
    if (d.size > 1) op.split_dims.push_back(d);
  return Ok{};
}


}  // namespace autopar
