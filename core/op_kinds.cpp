// Shape, parameter, FLOP and split-dimension rules of every op kind (FlexFlow section 4's
// Sample / Attribute / Parameter dimensions per op). FLOPs count a multiply-add as 2.
#include "op_kinds.h"

#include <cmath>
#include <map>

namespace autopar {
namespace {

constexpr int64_t kBig = int64_t(1) << 40;

const std::map<OpKind, std::vector<AttrRule>>& rule_table() {
  static const std::map<OpKind, std::vector<AttrRule>> table = {
      {OpKind::linear, {{"out_features", false, 0, 1, kBig}, {"bias", true, 1, 0, 1},
                        {"flatten", true, 0, 0, 1}}},
      {OpKind::conv1d, {{"out_channels", false, 0, 1, kBig}, {"kernel", false, 0, 1, 4096},
                        {"stride", true, 1, 1, 4096}, {"padding", true, -1, -1, 4096},
                        {"bias", true, 0, 0, 1}}},
      {OpKind::conv2d, {{"out_channels", false, 0, 1, kBig}, {"kernel", false, 0, 1, 4096},
                        {"stride", true, 1, 1, 4096}, {"padding", true, -1, -1, 4096},
                        {"bias", true, 0, 0, 1}, {"pool_kernel", true, 0, 0, 4096},
                        {"pool_stride", true, 0, 0, 4096}}},
      {OpKind::pool2d, {{"kernel", false, 0, 1, 4096}, {"stride", true, 0, 0, 4096}}},
      {OpKind::flatten, {}},
      {OpKind::embedding, {{"num_embeddings", false, 0, 1, kBig}, {"embedding_dim", false, 0, 1, kBig},
                           {"bag", true, 0, 0, 1}}},
      {OpKind::relu, {}},
      {OpKind::gelu, {}},
      {OpKind::add, {}},
      {OpKind::layernorm, {}},
      {OpKind::softmax, {}},
      {OpKind::attention, {{"heads", false, 0, 1, 65536}}},
      {OpKind::concat, {{"axis", true, -1, -1, 8}}},
      {OpKind::moe, {{"experts", false, 0, 1, 65536}, {"ffn", false, 0, 1, kBig},
                     {"top_k", true, 2, 1, 65536}}},
      {OpKind::loss, {}},
  };
  return table;
}

std::string attr_path(const std::string& path, const std::string& key) { return path + ".attrs." + key; }

Error shape_error(const std::string& path, const std::string& message) {
  return make_error("bad_shape", message, path);
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
// on the others except those in `skip` (dims that must stay whole, e.g. a normalised row).
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

}  // namespace

const std::vector<AttrRule>& attr_rules(OpKind kind) { return rule_table().at(kind); }

Status infer_op(Op& op, DType float_dtype, const std::string& path) {
  OpSpec& spec = op.spec;
  const auto& rules = attr_rules(spec.kind);
  for (const auto& [key, value] : spec.attrs) {
    const AttrRule* rule = nullptr;
    for (const auto& r : rules) if (r.key == key) rule = &r;
    if (!rule) {
      std::string valid;
      for (const auto& r : rules) valid += (valid.empty() ? "" : ", ") + r.key;
      return make_error("unknown_field",
                        "unknown attribute '" + key + "' for a " + op_kind_name(spec.kind) + " op; valid: " +
                            (valid.empty() ? "none" : valid),
                        attr_path(path, key));
    }
    if (value < rule->min_value || value > rule->max_value)
      return make_error("out_of_range",
                        "attribute '" + key + "' is " + std::to_string(value) + "; it must be between " +
                            std::to_string(rule->min_value) + " and " + std::to_string(rule->max_value),
                        attr_path(path, key));
  }
  for (const auto& r : rules) {
    if (spec.attrs.count(r.key)) continue;
    if (!r.has_default)
      return make_error("missing_field",
                        std::string("a ") + op_kind_name(spec.kind) + " op needs the attribute '" + r.key + "'",
                        path + ".attrs");
    spec.attrs[r.key] = r.default_value;
  }
  if (spec.activation != "none" && spec.activation != "relu" && spec.activation != "gelu")
    return make_error("bad_value", "activation '" + spec.activation + "' is unknown; use none, relu or gelu",
                      path + ".activation");
  if (spec.activation != "none" && spec.kind != OpKind::linear && spec.kind != OpKind::conv1d &&
      spec.kind != OpKind::conv2d)
    return make_error("bad_value", "only linear and convolution ops take a fused activation", path + ".activation");

  auto a = [&](const char* key) { return spec.attrs.at(key); };
  const auto& in = op.inputs;
  auto need_inputs = [&](size_t lo, size_t hi) -> Status {
    if (in.size() < lo || in.size() > hi) {
      std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " or more";
      return make_error("bad_arity",
                        std::string("a ") + op_kind_name(spec.kind) + " op reads " + want + " input" +
                            (lo == 1 && hi == 1 ? "" : "s") + ", not " + std::to_string(in.size()),
                        path + ".inputs");
    }
    return Ok{};
  };
  auto need_rank = [&](size_t i, size_t lo, size_t hi) -> Status {
    size_t r = in[i].shape.size();
    if (r < lo || r > hi)
      return shape_error(path + ".inputs[" + std::to_string(i) + "]",
                         std::string("a ") + op_kind_name(spec.kind) + " op needs a " +
                             (lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi)) +
                             "-D input, but '" + in[i].name + "' is " + shape_to_string(in[i].shape));
    return Ok{};
  };
  auto need_float = [&](size_t i) -> Status {
    if (in[i].dtype == DType::i32 || in[i].dtype == DType::i64)
      return make_error("bad_dtype", "input '" + in[i].name + "' holds integers; a " +
                                         op_kind_name(spec.kind) + " op needs floats",
                        path + ".inputs[" + std::to_string(i) + "]");
    return Ok{};
  };
#define AUTOPAR_TRY(expr) do { Status s_ = (expr); if (!s_.ok()) return s_; } while (0)

  Shape out;
  double fwd = 0;           // forward FLOPs
  std::vector<Tensor> params;
  std::vector<SplitDim> dims;
  const DType ft = float_dtype;
  const std::string& n = spec.name;
  auto act_flops = [&](int64_t elems) {
    return spec.activation == "relu" ? double(elems) : spec.activation == "gelu" ? 8.0 * double(elems) : 0.0;
  };

  switch (spec.kind) {
    case OpKind::linear: {
      AUTOPAR_TRY(need_inputs(1, 1));
      AUTOPAR_TRY(need_rank(0, 2, 6));
      AUTOPAR_TRY(need_float(0));
      const Shape& x = in[0].shape;
      int64_t in_features = 0, rows = 0;
      if (a("flatten")) {
        Shape tail(x.begin() + 1, x.end());
        if (!checked_product(tail, in_features)) return shape_error(path, "input too large");
        out = {x[0], a("out_features")};
        rows = x[0];
      } else {
        in_features = x.back();
        out = x;
        out.back() = a("out_features");
        Shape lead(x.begin(), x.end() - 1);
        checked_product(lead, rows);
      }
      int64_t of = a("out_features");
      params.push_back({n + ".weight", {in_features, of}, ft});
      if (a("bias")) params.push_back({n + ".bias", {of}, ft});
      fwd = 2.0 * double(rows) * double(in_features) * double(of) + (a("bias") ? double(rows * of) : 0.0) +
            act_flops(rows * of);
      std::vector<std::string> names{"length", "width"};
      dims = sample_and_attributes(out, names, 1);
      dims.push_back(split("channel", SplitKind::parameter, int(out.size()) - 1, out));
      break;
    }
    case OpKind::conv1d:
    case OpKind::conv2d: {
      bool two = spec.kind == OpKind::conv2d;
      AUTOPAR_TRY(need_inputs(1, 1));
      AUTOPAR_TRY(need_rank(0, two ? 4 : 3, two ? 4 : 3));
      AUTOPAR_TRY(need_float(0));
      const Shape& x = in[0].shape;
      int64_t k = a("kernel"), s = a("stride"), p = a("padding");
      if (p < 0) p = (k - 1) / 2;  // "same" padding for odd kernels at stride 1
      spec.attrs["padding"] = p;
      out = {x[0], a("out_channels")};
      for (size_t d = 2; d < x.size(); ++d) {
        int64_t o = conv_out_size(x[d], k, s, p);
        if (o < 1)
          return shape_error(path, "kernel " + std::to_string(k) + " does not fit input " + shape_to_string(x) +
                                       " with padding " + std::to_string(p) + "; use a smaller kernel or more padding");
        out.push_back(o);
      }
      int64_t spatial = 1;
      for (size_t d = 2; d < out.size(); ++d) spatial *= out[d];
      int64_t window = two ? k * k : k;
      params.push_back({n + ".weight", two ? Shape{out[1], x[1], k, k} : Shape{out[1], x[1], k}, ft});
      if (a("bias")) params.push_back({n + ".bias", {out[1]}, ft});
      fwd = 2.0 * double(out[0]) * double(out[1]) * double(spatial) * double(x[1]) * double(window) +
            (a("bias") ? double(out[0] * out[1] * spatial) : 0.0) + act_flops(out[0] * out[1] * spatial);
      if (two && a("pool_kernel") > 0) {
        int64_t pk = a("pool_kernel"), ps = a("pool_stride") > 0 ? a("pool_stride") : pk;
        spec.attrs["pool_stride"] = ps;
        for (size_t d = 2; d < 4; ++d) {
          int64_t o = conv_out_size(out[d], pk, ps, 0);
          if (o < 1) return shape_error(path, "pool_kernel " + std::to_string(pk) + " is larger than the convolution output " + shape_to_string(out));
          out[d] = o;
        }
        fwd += double(out[0] * out[1] * out[2] * out[3]) * double(pk * pk);
      }
      dims.push_back(split("sample", SplitKind::sample, 0, out));
      dims.push_back(split("channel", SplitKind::parameter, 1, out));
      dims.push_back(split(two ? "height" : "length", SplitKind::attribute, 2, out));
      if (two) dims.push_back(split("width", SplitKind::attribute, 3, out));
      break;
    }
    case OpKind::pool2d: {
      AUTOPAR_TRY(need_inputs(1, 1));
      AUTOPAR_TRY(need_rank(0, 4, 4));
      AUTOPAR_TRY(need_float(0));
      const Shape& x = in[0].shape;
      int64_t k = a("kernel"), s = a("stride") > 0 ? a("stride") : k;
      spec.attrs["stride"] = s;
      out = {x[0], x[1], conv_out_size(x[2], k, s, 0), conv_out_size(x[3], k, s, 0)};
      if (out[2] < 1 || out[3] < 1) return shape_error(path, "pool kernel " + std::to_string(k) + " is larger than the input " + shape_to_string(x));
      fwd = double(num_elements(out)) * double(k * k);
      dims = sample_and_attributes(out, {"channel", "height", "width"}, 0);
      break;
    }
    case OpKind::flatten: {
      AUTOPAR_TRY(need_inputs(1, 1));
      AUTOPAR_TRY(need_rank(0, 2, 6));
      int64_t rest = 0;
      Shape tail(in[0].shape.begin() + 1, in[0].shape.end());
      checked_product(tail, rest);
      out = {in[0].shape[0], rest};
      dims = sample_and_attributes(out, {}, 1);
      break;
    }
    case OpKind::embedding: {
      AUTOPAR_TRY(need_inputs(1, 1));
      AUTOPAR_TRY(need_rank(0, 1, 3));
      if (in[0].dtype != DType::i32 && in[0].dtype != DType::i64)
        return make_error("bad_dtype", "an embedding reads integer indices (dtype i32 or i64), but '" +
                                           in[0].name + "' is " + dtype_name(in[0].dtype),
                          path + ".inputs[0]");
      const Shape& x = in[0].shape;
      int64_t dim = a("embedding_dim");
      out = x;
      if (a("bag")) {
        if (x.size() < 2) return shape_error(path + ".inputs[0]", "a bag embedding sums over the last index dimension, so it needs 2-D indices");
        out.back() = dim;
      } else {
        out.push_back(dim);
      }
      params.push_back({n + ".weight", {a("num_embeddings"), dim}, ft});
      fwd = double(num_elements(x)) * double(dim);  // one read-and-add per looked-up element
      dims = sample_and_attributes(out, {"length"}, 1);
      dims.push_back(split("channel", SplitKind::parameter, int(out.size()) - 1, out));
      break;
    }
    case OpKind::relu:
    case OpKind::gelu:
    case OpKind::add: {
      bool binary = spec.kind == OpKind::add;
      AUTOPAR_TRY(need_inputs(binary ? 2 : 1, binary ? 2 : 1));
      AUTOPAR_TRY(need_rank(0, 1, 6));
      AUTOPAR_TRY(need_float(0));
      if (binary && in[1].shape != in[0].shape)
        return shape_error(path + ".inputs[1]", "add needs inputs of one shape, but '" + in[0].name + "' is " +
                                                    shape_to_string(in[0].shape) + " and '" + in[1].name + "' is " +
                                                    shape_to_string(in[1].shape));
      out = in[0].shape;
      fwd = double(num_elements(out)) * (spec.kind == OpKind::gelu ? 8.0 : 1.0);
      dims = sample_and_attributes(out, {"length", "channel"}, 0);
      if (out.size() == 2) dims.back().name = "channel";
      break;
    }
    case OpKind::layernorm:
    case OpKind::softmax: {
      AUTOPAR_TRY(need_inputs(1, 1));
      AUTOPAR_TRY(need_rank(0, 2, 6));
      AUTOPAR_TRY(need_float(0));
      out = in[0].shape;
      if (spec.kind == OpKind::layernorm) {
        params.push_back({n + ".gamma", {out.back()}, ft});
        params.push_back({n + ".beta", {out.back()}, ft});
      }
      fwd = 5.0 * double(num_elements(out));
      dims = sample_and_attributes(out, {"length"}, 1);  // each row is normalised whole
      break;
    }
    case OpKind::attention: {
      AUTOPAR_TRY(need_inputs(1, 1));
      AUTOPAR_TRY(need_rank(0, 3, 3));
      AUTOPAR_TRY(need_float(0));
      const Shape& x = in[0].shape;  // [batch, seq, 3 * hidden]: the fused Q, K, V projections
      int64_t heads = a("heads");
      if (x[2] % 3 != 0 || (x[2] / 3) % heads != 0)
        return shape_error(path + ".inputs[0]", "attention reads fused QKV [batch, seq, 3*hidden] with hidden divisible by heads (" +
                                                    std::to_string(heads) + "), but '" + in[0].name + "' is " + shape_to_string(x));
      int64_t h = x[2] / 3;
      out = {x[0], x[1], h};
      // Q K^T and (softmax) V: 2 * b * s * s * h each, plus the softmax over b * heads * s * s.
      fwd = 4.0 * double(x[0]) * double(x[1]) * double(x[1]) * double(h) +
            5.0 * double(x[0]) * double(heads) * double(x[1]) * double(x[1]);
      dims.push_back(split("sample", SplitKind::sample, 0, out));
      dims.push_back(SplitDim{"heads", SplitKind::attribute, 2, heads});
      break;
    }
    case OpKind::concat: {
      AUTOPAR_TRY(need_inputs(2, 1024));
      AUTOPAR_TRY(need_rank(0, 1, 6));
      int64_t axis = a("axis");
      int rank = int(in[0].shape.size());
      if (axis < 0) axis += rank;
      if (axis < 1 || axis >= rank)
        return make_error("out_of_range", "concat axis must be a non-batch dimension of the " + std::to_string(rank) + "-D inputs", attr_path(path, "axis"));
      spec.attrs["axis"] = axis;
      out = in[0].shape;
      out[size_t(axis)] = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        AUTOPAR_TRY(need_float(i));
        Shape s = in[i].shape;
        if (s.size() != size_t(rank)) return shape_error(path + ".inputs[" + std::to_string(i) + "]", "concat inputs must have one rank");
        for (int d = 0; d < rank; ++d)
          if (d != axis && s[size_t(d)] != in[0].shape[size_t(d)])
            return shape_error(path + ".inputs[" + std::to_string(i) + "]",
                               "concat inputs must match outside axis " + std::to_string(axis) + ", but '" + in[i].name + "' is " +
                                   shape_to_string(s) + " and '" + in[0].name + "' is " + shape_to_string(in[0].shape));
        out[size_t(axis)] += s[size_t(axis)];
      }
      dims.push_back(split("sample", SplitKind::sample, 0, out));
      break;
    }
    case OpKind::moe: {
      AUTOPAR_TRY(need_inputs(1, 1));
      AUTOPAR_TRY(need_rank(0, 2, 3));
      AUTOPAR_TRY(need_float(0));
      const Shape& x = in[0].shape;
      int64_t h = x.back(), e = a("experts"), f = a("ffn"), k = a("top_k");
      if (k > e) return make_error("out_of_range", "top_k (" + std::to_string(k) + ") exceeds experts (" + std::to_string(e) + ")", attr_path(path, "top_k"));
      out = x;
      int64_t tokens = num_elements(x) / h;
      params.push_back({n + ".gate", {h, e}, ft});
      params.push_back({n + ".w1", {e, h, f}, ft});
      params.push_back({n + ".w2", {e, f, h}, ft});
      // Gate, then each token through top_k experts' two matmuls (GShard).
      fwd = 2.0 * double(tokens) * double(h) * double(e) + double(k) * 4.0 * double(tokens) * double(h) * double(f);
      dims = sample_and_attributes(out, {"length"}, 1);
      break;
    }
    case OpKind::loss: {
      AUTOPAR_TRY(need_inputs(1, 1));
      AUTOPAR_TRY(need_rank(0, 2, 6));
      AUTOPAR_TRY(need_float(0));
      out = Shape(in[0].shape.begin(), in[0].shape.end() - 1);  // one loss per sample (and position)
      fwd = 5.0 * double(num_elements(in[0].shape));
      dims = sample_and_attributes(out, {"length"}, 0);
      break;
    }
  }
#undef AUTOPAR_TRY

  int64_t elems = 0;
  if (!checked_product(out, elems))
    return shape_error(path, "the output " + shape_to_string(out) + " is too large (more than 2^50 elements); use smaller sizes");
  for (const Tensor& p : params) {
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
  auto attr_or = [&](const char* key, int64_t fallback) {
    auto it = spec.attrs.find(key);
    return it == spec.attrs.end() ? fallback : it->second;
  };
  op.geometry.kernel = attr_or("kernel", 1);
  op.geometry.stride = attr_or("stride", 1);
  op.geometry.padding = attr_or("padding", 0);
  op.geometry.pool_kernel = attr_or("pool_kernel", 0);
  op.geometry.pool_stride = attr_or("pool_stride", 1);
  op.geometry.flatten = attr_or("flatten", 0) != 0;
  op.geometry.bag = attr_or("bag", 0) != 0;
  op.output = Tensor{spec.output, out, ft};
  op.params = std::move(params);
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
  for (const SplitDim& d : dims)
    if (d.size > 1) op.split_dims.push_back(d);
  return Ok{};
}

}  // namespace autopar
