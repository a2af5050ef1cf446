// Builds and validates the operator graph: resolves tensor names to producers, orders the ops
// topologically (reporting a cycle by the names on it), and derives every op's facts.
#include "graph.h"

#include <map>
#include <set>

#include "op_kinds.h"

namespace autopar {

int dtype_bytes(DType t) {
  switch (t) {
    case DType::f16: return 2;
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::i32: return 4;
    case DType::i64: return 8;
  }
  return 4;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f16: return "f16";
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
  }
  return "f32";
}

std::optional<DType> parse_dtype(const std::string& name) {
  for (DType t : {DType::f16, DType::f32, DType::f64, DType::i32, DType::i64})
    if (name == dtype_name(t)) return t;
  return std::nullopt;
}

std::optional<DType> float_dtype_for_bytes(int64_t bytes) {
  if (bytes == 2) return DType::f16;
  if (bytes == 4) return DType::f32;
  if (bytes == 8) return DType::f64;
  return std::nullopt;
}

int64_t num_elements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t tensor_bytes(const Tensor& t) { return num_elements(t.shape) * dtype_bytes(t.dtype); }

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

const char* split_kind_name(SplitKind k) {
  switch (k) {
    case SplitKind::sample: return "sample";
    case SplitKind::attribute: return "attribute";
    case SplitKind::parameter: return "parameter";
  }
  return "?";
}

int Graph::find_op(const std::string& name) const {
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].name() == name) return int(i);
  return -1;
}

double Graph::total_forward_flops() const {
  double f = 0;
  for (const Op& op : ops) f += op.forward_flops;
  return f;
}

int64_t Graph::total_param_bytes() const {
  int64_t b = 0;
  std::set<std::string> seen;
  for (const Op& op : ops)
    for (const Tensor& p : op.params)
      if (seen.insert(p.name).second) b += tensor_bytes(p);
  return b;
}

int64_t Graph::total_param_elements() const {
  int64_t n = 0;
  std::set<std::string> seen;
  for (const Op& op : ops)
    for (const Tensor& p : op.params)
      if (seen.insert(p.name).second) n += num_elements(p.shape);
  return n;
}

namespace {

std::string op_path(size_t i) { return "ops[" + std::to_string(i) + "]"; }

Status check_name(const std::string& name, const std::string& path, const char* what) {
  if (name.empty()) return make_error(ErrorCode::missing_field, std::string("the ") + what + " name is empty; give it a name", path);
  if (name.size() > 200) return make_error(ErrorCode::out_of_range, std::string("the ") + what + " name is longer than 200 characters", path);
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f)
      return make_error(ErrorCode::bad_value, std::string("the ") + what + " name contains a control character", path);
  return Ok{};
}

}  // namespace

Result<Graph> build_graph(const ModelSpec& spec) {
  if (spec.ops.empty()) return make_error(ErrorCode::missing_field, "the model has no ops; add at least one", "ops");
  if (spec.ops.size() > size_t(kMaxOps))
    return make_error(ErrorCode::too_large, "the model has " + std::to_string(spec.ops.size()) + " ops; at most " +
                                       std::to_string(kMaxOps) + " are supported", "ops");
  if (spec.inputs.empty()) return make_error(ErrorCode::missing_field, "the model has no inputs; declare the data it is fed", "inputs");
  if (auto s = check_name(spec.name, "name", "model"); !s.ok()) return s.error();
  if (spec.dtype != DType::f16 && spec.dtype != DType::f32 && spec.dtype != DType::f64)
    return make_error(ErrorCode::bad_dtype, "the model's dtype must be a float type (f16, f32, f64)", "dtype");

  // Every tensor name: where it is defined (input k or op i) so that references resolve.
  std::map<std::string, std::string> defined_at;  // name -> JSON path of its definition
  std::map<std::string, int> producer;            // tensor -> op index (-1: model input)
  std::map<std::string, size_t> input_index;
  for (size_t k = 0; k < spec.inputs.size(); ++k) {
    const Tensor& t = spec.inputs[k];
    std::string path = "inputs[" + std::to_string(k) + "]";
    if (auto s = check_name(t.name, path + ".name", "input"); !s.ok()) return s.error();
    if (defined_at.count(t.name))
      return make_error(ErrorCode::duplicate_name, "tensor '" + t.name + "' is defined twice (also at " + defined_at[t.name] + ")", path + ".name");
    if (t.shape.empty() || t.shape.size() > 6)
      return make_error(ErrorCode::bad_shape, "input '" + t.name + "' needs a shape of 1 to 6 dimensions", path + ".shape");
    for (size_t d = 0; d < t.shape.size(); ++d)
      if (t.shape[d] < 1 || t.shape[d] > kMaxDimSize)
        return make_error(ErrorCode::bad_shape, "dimension " + std::to_string(d) + " of input '" + t.name + "' is " +
                                           std::to_string(t.shape[d]) + "; sizes must be between 1 and 2^40",
                          path + ".shape[" + std::to_string(d) + "]");
    int64_t n = 1;
    for (int64_t d : t.shape) {
      if (n > kMaxTensorElements / d)
        return make_error(ErrorCode::too_large, "input '" + t.name + "' " + shape_to_string(t.shape) + " has more than 2^50 elements", path + ".shape");
      n *= d;
    }
    defined_at[t.name] = path;
    producer[t.name] = -1;
    input_index[t.name] = k;
  }
  std::set<std::string> op_names;
  for (size_t i = 0; i < spec.ops.size(); ++i) {
    const OpSpec& o = spec.ops[i];
    if (auto s = check_name(o.name, op_path(i) + ".name", "op"); !s.ok()) return s.error();
    if (!op_names.insert(o.name).second)
      return make_error(ErrorCode::duplicate_name, "two ops are named '" + o.name + "'; op names must be unique", op_path(i) + ".name");
    if (auto s = check_name(o.output, op_path(i) + ".output", "output tensor"); !s.ok()) return s.error();
    if (defined_at.count(o.output))
      return make_error(ErrorCode::duplicate_name, "tensor '" + o.output + "' is defined twice (also at " + defined_at[o.output] + ")", op_path(i) + ".output");
    defined_at[o.output] = op_path(i) + ".output";
    producer[o.output] = int(i);
  }
  // Resolve inputs, then order topologically (Kahn; ties keep the declared order).
  std::vector<std::vector<int>> preds(spec.ops.size());
  for (size_t i = 0; i < spec.ops.size(); ++i) {
    const OpSpec& o = spec.ops[i];
    if (o.inputs.empty()) return make_error(ErrorCode::missing_field, "op '" + o.name + "' reads no inputs", op_path(i) + ".inputs");
    for (size_t j = 0; j < o.inputs.size(); ++j) {
      auto it = producer.find(o.inputs[j]);
      if (it == producer.end())
        return make_error(ErrorCode::unknown_tensor, "op '" + o.name + "' reads '" + o.inputs[j] +
                                                "', which is neither a model input nor an op's output",
                          op_path(i) + ".inputs[" + std::to_string(j) + "]");
      if (it->second == int(i))
        return make_error(ErrorCode::cycle, "op '" + o.name + "' reads its own output; the graph must be acyclic",
                          op_path(i) + ".inputs[" + std::to_string(j) + "]");
      if (it->second >= 0) preds[i].push_back(it->second);
    }
  }
  std::vector<int> indeg(spec.ops.size(), 0);
  std::vector<std::vector<int>> succ(spec.ops.size());
  for (size_t i = 0; i < spec.ops.size(); ++i)
    for (int p : preds[i]) { ++indeg[i]; succ[size_t(p)].push_back(int(i)); }
  std::set<int> ready;
  for (size_t i = 0; i < spec.ops.size(); ++i) if (indeg[i] == 0) ready.insert(int(i));
  std::vector<int> order;
  while (!ready.empty()) {
    int i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    for (int s : succ[size_t(i)]) if (--indeg[size_t(s)] == 0) ready.insert(s);
  }
  if (order.size() != spec.ops.size()) {
    // Walk back along unfinished predecessors until a node repeats: that is a cycle.
    int start = -1;
    for (size_t i = 0; i < spec.ops.size(); ++i) if (indeg[i] > 0) { start = int(i); break; }
    std::vector<int> seen_at(spec.ops.size(), -1), walk;
    int v = start;
    while (seen_at[size_t(v)] < 0) {
      seen_at[size_t(v)] = int(walk.size());
      walk.push_back(v);
      for (int p : preds[size_t(v)]) if (indeg[size_t(p)] > 0) { v = p; break; }
    }
    std::string names;
    for (size_t k = walk.size(); k-- > size_t(seen_at[size_t(v)]);) names += "'" + spec.ops[size_t(walk[k])].name + "' -> ";
    names += "'" + spec.ops[size_t(walk.back())].name + "'";  // back where it started
    return make_error(ErrorCode::cycle, "the ops form a cycle: " + names + "; a model must be acyclic", op_path(size_t(v)) + ".inputs");
  }

  Graph g;
  g.spec = spec;
  g.spec.ops.clear();
  std::vector<int> new_index(spec.ops.size());
  for (size_t k = 0; k < order.size(); ++k) new_index[size_t(order[k])] = int(k);
  for (int i : order) {
    Op op;
    op.spec = spec.ops[size_t(i)];
    std::string path = op_path(size_t(i));
    for (const std::string& name : op.spec.inputs) {
      int p = producer[name];
      if (p < 0) {
        op.inputs.push_back(spec.inputs[input_index[name]]);
        op.producers.push_back(-1);
      } else {
        op.inputs.push_back(g.ops[size_t(new_index[size_t(p)])].output);
        op.producers.push_back(new_index[size_t(p)]);
      }
    }
    if (auto s = infer_op(op, spec.dtype, path); !s.ok()) return s.error();
    if (!op.spec.weight_from.empty()) {
      // A tied weight: an embedding op declared earlier whose table [rows, width] is this
      // linear's weight [width, rows] transposed.
      const int e = g.find_op(op.spec.weight_from);
      const std::string wpath = path + ".weight_from";
      if (e < 0 || g.ops[size_t(e)].spec.kind != OpKind::embedding)
        return make_error(ErrorCode::unknown_tensor, "op '" + op.spec.name + "' takes its weight from '" + op.spec.weight_from +
                                                "', which is not an embedding op before it; name the embedding whose table it shares",
                          wpath);
      const Shape& table = g.ops[size_t(e)].params[0].shape;
      const Shape& w = op.params[0].shape;
      if (table[0] != w[1] || table[1] != w[0])
        return make_error(ErrorCode::bad_shape, "op '" + op.spec.name + "' has a weight " + shape_to_string(w) + " but the table of '" +
                                           op.spec.weight_from + "' is " + shape_to_string(table) +
                                           "; a tied weight is the table transposed (out_features = rows, input width = embedding_dim)",
                          wpath);
    }
    op.spec.shape = op.output.shape;
    g.spec.ops.push_back(op.spec);
    g.ops.push_back(std::move(op));
  }
  g.consumers.assign(g.ops.size(), {});
  for (size_t i = 0; i < g.ops.size(); ++i)
    for (int p : g.ops[i].producers)
      if (p >= 0 && (g.consumers[size_t(p)].empty() || g.consumers[size_t(p)].back() != int(i)))
        g.consumers[size_t(p)].push_back(int(i));
  return g;
}

}  // namespace autopar
