// JSON reading and writing of models and clusters. Readers never throw: every access is
// type-checked first and the first problem is returned with its JSON path.
#include "json_io.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>

#include <sys/stat.h>
#include <set>
#include <sstream>

#include "op_kinds.h"

namespace autopar {

namespace {

// Finds where a syntax error is: nlohmann reports it to a SAX handler without throwing.
struct SyntaxErrorLocator : nlohmann::json_sax<nlohmann::json> {
  size_t position = 0;
  std::string token;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t pos, const std::string& last_token, const nlohmann::detail::exception&) override {
    position = pos;
    token = last_token;
    return false;
  }
};

}  // namespace

Result<Json> parse_json_text(const std::string& text, const std::string& what) {
  Json j = Json::parse(text, nullptr, false);
  if (!j.is_discarded()) return j;
  SyntaxErrorLocator loc;
  nlohmann::json::sax_parse(text, &loc);
  size_t line = 1, column = 1;
  for (size_t i = 0; i + 1 < loc.position && i < text.size(); ++i) {
    if (text[i] == '\n') { ++line; column = 1; } else { ++column; }
  }
  std::string near = loc.token.size() > 20 ? loc.token.substr(0, 20) + "..." : loc.token;
  std::string where = text.empty() ? "it is empty" : "syntax error at line " + std::to_string(line) + ", column " +
                                                         std::to_string(column) + (near.empty() ? "" : " near '" + near + "'");
  return make_error(ErrorCode::bad_json, what + " is not valid JSON (" + where + "); check for a missing comma, quote or bracket", "");
}

Result<std::string> read_text_file(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
    return make_error(ErrorCode::io, "'" + path + "' is a folder, not a file; give the path of the JSON file in it", "");
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::io, "cannot read '" + path + "'; check the file name", "");
  // The size is what reading gives, chunk by chunk up to the limit: seeking to the end says
  // nothing about devices and pipes (/dev/zero never ends).
  const size_t limit = size_t(64) << 20;
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, size_t(in.gcount()));
    if (text.size() > limit) return make_error(ErrorCode::too_large, "'" + path + "' is larger than 64 MiB; model and cluster files are small", "");
  }
  if (in.bad()) return make_error(ErrorCode::io, "cannot read '" + path + "' to its end; check the file", "");
  return text;
}

namespace {

std::string type_name(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  return "an object";
}

Error wrong_type(const std::string& path, const std::string& want, const Json& got) {
  return make_error(ErrorCode::wrong_type, path + " must be " + want + ", not " + type_name(got), path);
}

std::string join(const std::string& base, const std::string& key) { return base.empty() ? key : base + "." + key; }

// Rejects keys outside `allowed`, naming the valid ones (catches typos such as "op" for "ops").
Status only_keys(const Json& obj, const std::string& path, const std::set<std::string>& allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (allowed.count(it.key())) continue;
    std::string valid;
    for (const auto& k : allowed) valid += (valid.empty() ? "" : ", ") + k;
    return make_error(ErrorCode::unknown_field, "unknown field '" + it.key() + "'" + (path.empty() ? "" : " in " + path) + "; valid fields: " + valid,
                      join(path, it.key()));
  }
  return Ok{};
}

Result<const Json*> member(const Json& obj, const std::string& key, const std::string& path, bool required) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) return make_error(ErrorCode::missing_field, "missing field '" + key + "'" + (path.empty() ? "" : " in " + path), join(path, key));
    return static_cast<const Json*>(nullptr);
  }
  return &*it;
}

Result<std::string> get_string(const Json& obj, const std::string& key, const std::string& path) {
  auto m = member(obj, key, path, true);
  if (!m.ok()) return m.error();
  if (!m.value()->is_string()) return wrong_type(join(path, key), "a string", *m.value());
  return m.value()->get<std::string>();
}

// An integer that fits int64 exactly (JSON numbers such as 3.0 are accepted; 3.5 is not).
Result<int64_t> as_int(const Json& v, const std::string& path) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
      return make_error(ErrorCode::out_of_range, path + " is too large", path);
    return v.get<int64_t>();
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e15)
      return make_error(ErrorCode::wrong_type, path + " must be a whole number, not " + v.dump(), path);
    return int64_t(d);
  }
  return wrong_type(path, "an integer", v);
}

Result<double> get_number(const Json& obj, const std::string& key, const std::string& path) {
  auto m = member(obj, key, path, true);
  if (!m.ok()) return m.error();
  if (!m.value()->is_number()) return wrong_type(join(path, key), "a number", *m.value());
  return m.value()->get<double>();
}

Result<Shape> get_shape(const Json& v, const std::string& path) {
  if (!v.is_array()) return wrong_type(path, "an array of dimension sizes", v);
  if (v.empty() || v.size() > 6) return make_error(ErrorCode::bad_shape, path + " must have 1 to 6 dimensions", path);
  Shape s;
  for (size_t i = 0; i < v.size(); ++i) {
    std::string p = path + "[" + std::to_string(i) + "]";
    auto n = as_int(v[i], p);
    if (!n.ok()) return n.error();
    if (n.value() < 1 || n.value() > kMaxDimSize)
      return make_error(ErrorCode::bad_shape, p + " is " + std::to_string(n.value()) + "; sizes must be between 1 and 2^40", p);
    s.push_back(n.value());
  }
  return s;
}

Json shape_json(const Shape& s) {
  Json a = Json::array();
  for (int64_t d : s) a.push_back(d);
  return a;
}

}  // namespace

Json model_to_json(const Graph& g) {
  const ModelSpec& m = g.spec;
  Json j;
  j["format"] = "autopar-model";
  j["version"] = 1;
  j["name"] = m.name;
  j["dtype"] = dtype_name(m.dtype);
  j["inputs"] = Json::array();
  for (const Tensor& t : m.inputs)
    j["inputs"].push_back(Json{{"name", t.name}, {"shape", shape_json(t.shape)}, {"dtype", dtype_name(t.dtype)}});
  j["ops"] = Json::array();
  for (const OpSpec& o : m.ops) {
    Json op;
    op["name"] = o.name;
    op["kind"] = op_kind_name(o.kind);
    op["inputs"] = o.inputs;
    op["output"] = o.output;
    if (o.shape) op["shape"] = shape_json(*o.shape);
    Json attrs = Json::object();
    for (const auto& [k, v] : o.attrs) attrs[k] = v;
    if (!attrs.empty()) op["attrs"] = attrs;
    if (o.activation != "none") op["activation"] = o.activation;
    if (!o.weight_from.empty()) op["weight_from"] = o.weight_from;
    j["ops"].push_back(op);
  }
  return j;
}

Result<ModelSpec> model_from_json(const Json& j) {
  if (!j.is_object()) return wrong_type("(top level)", "an object with name, inputs and ops", j);
  if (auto s = only_keys(j, "", {"format", "version", "name", "description", "dtype", "inputs", "ops"}); !s.ok()) return s.error();
  if (auto f = member(j, "format", "", false); f.ok() && f.value()) {
    if (!f.value()->is_string() || f.value()->get<std::string>() != "autopar-model")
      return make_error(ErrorCode::bad_value, "format must be \"autopar-model\"; is this a model file?", "format");
  }
  if (auto v = member(j, "version", "", false); v.ok() && v.value()) {
    auto n = as_int(*v.value(), "version");
    if (!n.ok()) return n.error();
    if (n.value() != 1) return make_error(ErrorCode::bad_value, "version " + std::to_string(n.value()) + " is not supported; this build reads version 1", "version");
  }
  ModelSpec m;
  auto name = get_string(j, "name", "");
  if (!name.ok()) return name.error();
  m.name = name.value();
  if (auto d = member(j, "dtype", "", false); d.ok() && d.value()) {
    if (!d.value()->is_string()) return wrong_type("dtype", "a string (f16, f32 or f64)", *d.value());
    auto t = parse_dtype(d.value()->get<std::string>());
    if (!t || (*t != DType::f16 && *t != DType::f32 && *t != DType::f64))
      return make_error(ErrorCode::bad_dtype, "dtype '" + d.value()->get<std::string>() + "' is not a float type; use f16, f32 or f64", "dtype");
    m.dtype = *t;
  }
  auto inputs = member(j, "inputs", "", true);
  if (!inputs.ok()) return inputs.error();
  if (!inputs.value()->is_array()) return wrong_type("inputs", "an array", *inputs.value());
  for (size_t k = 0; k < inputs.value()->size(); ++k) {
    const Json& t = (*inputs.value())[k];
    std::string path = "inputs[" + std::to_string(k) + "]";
    if (!t.is_object()) return wrong_type(path, "an object with name and shape", t);
    if (auto s = only_keys(t, path, {"name", "shape", "dtype"}); !s.ok()) return s.error();
    Tensor x;
    auto n = get_string(t, "name", path);
    if (!n.ok()) return n.error();
    x.name = n.value();
    auto sh = member(t, "shape", path, true);
    if (!sh.ok()) return sh.error();
    auto shape = get_shape(*sh.value(), path + ".shape");
    if (!shape.ok()) return shape.error();
    x.shape = shape.value();
    x.dtype = m.dtype;
    if (auto d = member(t, "dtype", path, false); d.ok() && d.value()) {
      if (!d.value()->is_string()) return wrong_type(path + ".dtype", "a string", *d.value());
      auto dt = parse_dtype(d.value()->get<std::string>());
      if (!dt) return make_error(ErrorCode::bad_dtype, "dtype '" + d.value()->get<std::string>() + "' is unknown; use f16, f32, f64, i32 or i64", path + ".dtype");
      x.dtype = *dt;
    }
    m.inputs.push_back(x);
  }
  auto ops = member(j, "ops", "", true);
  if (!ops.ok()) return ops.error();
  if (!ops.value()->is_array()) return wrong_type("ops", "an array", *ops.value());
  if (ops.value()->size() > size_t(kMaxOps))
    return make_error(ErrorCode::too_large, "the model has " + std::to_string(ops.value()->size()) + " ops; at most " + std::to_string(kMaxOps) + " are supported", "ops");
  for (size_t i = 0; i < ops.value()->size(); ++i) {
    const Json& o = (*ops.value())[i];
    std::string path = "ops[" + std::to_string(i) + "]";
    if (!o.is_object()) return wrong_type(path, "an object", o);
    if (auto s = only_keys(o, path, {"name", "kind", "inputs", "output", "shape", "attrs", "activation", "weight_from"}); !s.ok()) return s.error();
    OpSpec op;
    auto n = get_string(o, "name", path);
    if (!n.ok()) return n.error();
    op.name = n.value();
    auto kind = get_string(o, "kind", path);
    if (!kind.ok()) return kind.error();
    auto k = parse_op_kind(kind.value());
    if (!k) {
      std::string valid;
      for (OpKind x : all_op_kinds()) valid += (valid.empty() ? "" : ", ") + std::string(op_kind_name(x));
      return make_error(ErrorCode::unknown_kind, "op kind '" + kind.value() + "' is unknown; valid kinds: " + valid, path + ".kind");
    }
    op.kind = *k;
    auto in = member(o, "inputs", path, true);
    if (!in.ok()) return in.error();
    if (!in.value()->is_array()) return wrong_type(path + ".inputs", "an array of tensor names", *in.value());
    for (size_t q = 0; q < in.value()->size(); ++q) {
      const Json& s = (*in.value())[q];
      if (!s.is_string()) return wrong_type(path + ".inputs[" + std::to_string(q) + "]", "a tensor name (string)", s);
      op.inputs.push_back(s.get<std::string>());
    }
    auto out = get_string(o, "output", path);
    if (!out.ok()) return out.error();
    op.output = out.value();
    if (auto sh = member(o, "shape", path, false); sh.ok() && sh.value()) {
      auto shape = get_shape(*sh.value(), path + ".shape");
      if (!shape.ok()) return shape.error();
      op.shape = shape.value();
    }
    if (auto at = member(o, "attrs", path, false); at.ok() && at.value()) {
      if (!at.value()->is_object()) return wrong_type(path + ".attrs", "an object of integers", *at.value());
      for (auto it = at.value()->begin(); it != at.value()->end(); ++it) {
        std::string p = path + ".attrs." + it.key();
        if (it.value().is_boolean()) { op.attrs[it.key()] = it.value().get<bool>() ? 1 : 0; continue; }
        auto v = as_int(it.value(), p);
        if (!v.ok()) return v.error();
        op.attrs[it.key()] = v.value();
      }
    }
    if (auto act = member(o, "activation", path, false); act.ok() && act.value()) {
      if (!act.value()->is_string()) return wrong_type(path + ".activation", "a string (none, relu, gelu, tanh)", *act.value());
      op.activation = act.value()->get<std::string>();
    }
    if (auto wf = member(o, "weight_from", path, false); wf.ok() && wf.value()) {
      if (!wf.value()->is_string()) return wrong_type(path + ".weight_from", "the name of an embedding op (string)", *wf.value());
      op.weight_from = wf.value()->get<std::string>();
    }
    m.ops.push_back(op);
  }
  return m;
}

Json cluster_to_json(const Cluster& c) {
  Json j;
  j["format"] = "autopar-cluster";
  j["version"] = 1;
  j["name"] = c.name;
  j["nodes"] = c.nodes;
  j["gpus_per_node"] = c.gpus_per_node;
  j["gpu"] = Json{{"model", c.gpu.model},
                  {"peak_tflops", c.gpu.peak_tflops},
                  {"memory_bandwidth_gb_per_s", c.gpu.memory_bandwidth_gb_per_s},
                  {"memory_gib", c.gpu.memory_gib},
                  {"kernel_overhead_us", c.gpu.kernel_overhead_us},
                  {"peak_tflops_tf32", c.gpu.peak_tflops_tf32},
                  {"peak_tflops_fp16", c.gpu.peak_tflops_fp16}};
  if (c.gpu.peak_tflops_fp8 > 0) j["gpu"]["peak_tflops_fp8"] = c.gpu.peak_tflops_fp8;
  if (c.gpu.precision != Precision::fp32) j["gpu"]["precision"] = precision_name(c.gpu.precision);
  // The efficiencies are written when they differ from the plain roofline (files of ideal GPUs stay as they were).
  const GpuSpec ideal;
  if (c.gpu.matmul_efficiency != ideal.matmul_efficiency) j["gpu"]["matmul_efficiency"] = c.gpu.matmul_efficiency;
  if (c.gpu.matmul_half_gflop != ideal.matmul_half_gflop) j["gpu"]["matmul_half_gflop"] = c.gpu.matmul_half_gflop;
  if (c.gpu.memory_efficiency != ideal.memory_efficiency) j["gpu"]["memory_efficiency"] = c.gpu.memory_efficiency;
  if (c.gpu.attention_score_passes != ideal.attention_score_passes) j["gpu"]["attention_score_passes"] = c.gpu.attention_score_passes;
  auto link_json = [](const LinkSpec& l) {
    Json o{{"latency_us", l.latency_us}, {"bandwidth_gb_per_s", l.bandwidth_gb_per_s}};
    if (l.bus_efficiency != 1) o["bus_efficiency"] = l.bus_efficiency;
    return o;
  };
  j["intra_node"] = link_json(c.intra_node);
  j["inter_node"] = link_json(c.inter_node);
  // The network is per NIC: its bandwidth is one NIC's, and the node has this many.
  j["inter_node"]["nics_per_node"] = c.nics();
  if (c.overlap_grad_sync) j["overlap_grad_sync"] = true;
  if (c.optimizer_step) j["optimizer_step"] = true;
  j["sources"] = c.sources;
  // Derived from the numbers above (read back but not trusted): whether a run calibrates them, and what they mean.
  j["calibrated"] = c.calibrated();
  if (c.calibrated()) j["calibrated_by"] = c.calibrated_by;
  j["note"] = efficiency_note(c);
  return j;
}

Result<Cluster> cluster_from_json(const Json& j) {
  if (!j.is_object()) return wrong_type("(top level)", "an object with nodes, gpus_per_node, gpu, intra_node and inter_node", j);
  if (auto s = only_keys(j, "", {"format", "version", "name", "nodes", "gpus_per_node", "gpu", "intra_node", "inter_node", "sources",
                                "overlap_grad_sync", "optimizer_step", "calibrated", "calibrated_by", "note"}); !s.ok())
    return s.error();
  if (auto f = member(j, "format", "", false); f.ok() && f.value()) {
    if (!f.value()->is_string() || f.value()->get<std::string>() != "autopar-cluster")
      return make_error(ErrorCode::bad_value, "format must be \"autopar-cluster\"; is this a cluster file?", "format");
  }
  Cluster c;
  c.name = "custom";
  // How frameworks run on it (optional; the lecture's arithmetic has neither).
  for (const char* key : {"overlap_grad_sync", "optimizer_step"}) {
    if (auto m = member(j, key, "", false); m.ok() && m.value()) {
      if (!m.value()->is_boolean()) return wrong_type(key, "true or false", *m.value());
      (std::string(key) == "overlap_grad_sync" ? c.overlap_grad_sync : c.optimizer_step) = m.value()->get<bool>();
    }
  }
  if (auto n = member(j, "name", "", false); n.ok() && n.value()) {
    if (!n.value()->is_string()) return wrong_type("name", "a string", *n.value());
    c.name = n.value()->get<std::string>();
  }
  for (const char* key : {"nodes", "gpus_per_node"}) {
    auto m = member(j, key, "", true);
    if (!m.ok()) return m.error();
    auto v = as_int(*m.value(), key);
    if (!v.ok()) return v.error();
    if (v.value() < 1 || v.value() > kMaxDevices)
      return make_error(ErrorCode::out_of_range, std::string(key) + " is " + std::to_string(v.value()) + "; it must be between 1 and " + std::to_string(kMaxDevices), key);
    (std::string(key) == "nodes" ? c.nodes : c.gpus_per_node) = int(v.value());
  }
  auto gpu = member(j, "gpu", "", true);
  if (!gpu.ok()) return gpu.error();
  if (!gpu.value()->is_object()) return wrong_type("gpu", "an object", *gpu.value());
  const Json& g = *gpu.value();
  if (auto s = only_keys(g, "gpu", {"model", "peak_tflops", "memory_bandwidth_gb_per_s", "memory_gib", "kernel_overhead_us",
                                    "peak_tflops_tf32", "peak_tflops_fp16", "peak_tflops_fp8", "precision", "matmul_efficiency", "matmul_half_gflop",
                                    "memory_efficiency", "attention_score_passes"}); !s.ok())
    return s.error();
  // The efficiencies are optional: without them the GPU is the datasheet's plain roofline.
  struct Optional { const char* key; double* target; };
  for (const Optional& o : {Optional{"matmul_efficiency", &c.gpu.matmul_efficiency}, Optional{"matmul_half_gflop", &c.gpu.matmul_half_gflop},
                            Optional{"memory_efficiency", &c.gpu.memory_efficiency}, Optional{"attention_score_passes", &c.gpu.attention_score_passes}}) {
    if (auto m = member(g, o.key, "gpu", false); m.ok() && m.value()) {
      auto v = get_number(g, o.key, "gpu");
      if (!v.ok()) return v.error();
      *o.target = v.value();
    }
  }
  // The TF32 and FP16/BF16 peaks are optional (0: none or unknown, the FP32 peak is used).
  struct Peak { const char* key; double* target; };
  for (const Peak& pk : {Peak{"peak_tflops_tf32", &c.gpu.peak_tflops_tf32}, Peak{"peak_tflops_fp16", &c.gpu.peak_tflops_fp16},
                         Peak{"peak_tflops_fp8", &c.gpu.peak_tflops_fp8}}) {
    if (auto m = member(g, pk.key, "gpu", false); m.ok() && m.value()) {
      auto v = get_number(g, pk.key, "gpu");
      if (!v.ok()) return v.error();
      *pk.target = v.value();
    }
  }
  if (auto m = member(g, "precision", "gpu", false); m.ok() && m.value()) {
    if (!m.value()->is_string()) return wrong_type("gpu.precision", std::string("a string (") + precision_names() + ")", *m.value());
    auto p = parse_precision(m.value()->get<std::string>());
    if (!p) return make_error(ErrorCode::bad_value, "gpu.precision '" + m.value()->get<std::string>() + "' is unknown; use " + precision_names(), "gpu.precision");
    c.gpu.precision = *p;
  }
  if (auto m = member(g, "model", "gpu", false); m.ok() && m.value()) {
    if (!m.value()->is_string()) return wrong_type("gpu.model", "a string", *m.value());
    c.gpu.model = m.value()->get<std::string>();
  }
  struct Field { const Json* obj; const char* path; const char* key; double* target; };
  const Field gpu_fields[] = {{&g, "gpu", "peak_tflops", &c.gpu.peak_tflops},
                              {&g, "gpu", "memory_bandwidth_gb_per_s", &c.gpu.memory_bandwidth_gb_per_s},
                              {&g, "gpu", "memory_gib", &c.gpu.memory_gib},
                              {&g, "gpu", "kernel_overhead_us", &c.gpu.kernel_overhead_us}};
  for (const Field& f : gpu_fields) {
    auto v = get_number(*f.obj, f.key, f.path);
    if (!v.ok()) return v.error();
    *f.target = v.value();
  }
  for (const char* link : {"intra_node", "inter_node"}) {
    auto l = member(j, link, "", true);
    if (!l.ok()) return l.error();
    if (!l.value()->is_object()) return wrong_type(link, "an object with latency_us and bandwidth_gb_per_s", *l.value());
    const bool network = std::string(link) == "inter_node";
    if (network) {
      if (auto s = only_keys(*l.value(), link, {"latency_us", "bandwidth_gb_per_s", "bus_efficiency", "nics_per_node"}); !s.ok()) return s.error();
      // inter_node.bandwidth_gb_per_s is one NIC's; a file without nics_per_node (written before
      // the field existed) has one NIC per GPU, which is how its bandwidth was priced then.
      if (auto m = member(*l.value(), "nics_per_node", link, false); m.ok() && m.value()) {
        auto v = as_int(*m.value(), "inter_node.nics_per_node");
        if (!v.ok()) return v.error();
        if (v.value() < 1 || v.value() > kMaxNicsPerNode)
          return make_error(ErrorCode::out_of_range, "inter_node.nics_per_node is " + std::to_string(v.value()) + "; it must be between 1 and " +
                                                std::to_string(kMaxNicsPerNode) + " (network NICs per node, each of bandwidth_gb_per_s)",
                            "inter_node.nics_per_node");
        c.nics_per_node = int(v.value());
      }
    } else if (auto s = only_keys(*l.value(), link, {"latency_us", "bandwidth_gb_per_s", "bus_efficiency"}); !s.ok()) {
      return s.error();
    }
    LinkSpec& spec = network ? c.inter_node : c.intra_node;
    if (auto m = member(*l.value(), "bus_efficiency", link, false); m.ok() && m.value()) {
      auto v = get_number(*l.value(), "bus_efficiency", link);
      if (!v.ok()) return v.error();
      spec.bus_efficiency = v.value();
    }
    auto lat = get_number(*l.value(), "latency_us", link);
    if (!lat.ok()) return lat.error();
    auto bw = get_number(*l.value(), "bandwidth_gb_per_s", link);
    if (!bw.ok()) return bw.error();
    spec.latency_us = lat.value();
    spec.bandwidth_gb_per_s = bw.value();
  }
  if (auto s = member(j, "sources", "", false); s.ok() && s.value()) {
    if (!s.value()->is_string()) return wrong_type("sources", "a string", *s.value());
    c.sources = s.value()->get<std::string>();
  }
  // "calibrated" and "note" are derived from the rest (efficiency_note); they are checked for type only.
  if (auto m = member(j, "calibrated_by", "", false); m.ok() && m.value()) {
    if (!m.value()->is_string()) return wrong_type("calibrated_by", "a string (the published runs the efficiencies are fitted on)", *m.value());
    c.calibrated_by = m.value()->get<std::string>();
  }
  if (auto m = member(j, "calibrated", "", false); m.ok() && m.value() && !m.value()->is_boolean())
    return wrong_type("calibrated", "true or false", *m.value());
  if (auto m = member(j, "note", "", false); m.ok() && m.value() && !m.value()->is_string()) return wrong_type("note", "a string", *m.value());
  if (auto s = validate_cluster(c); !s.ok()) return s.error();
  return c;
}

Json error_to_json(const Error& e) {
  return Json{{"code", error_code_name(e.code)}, {"message", e.message}, {"path", e.path}};
}

Error error_from_json(const Json& j) {
  auto text = [&j](const char* key) {
    return j.is_object() && j.contains(key) && j[key].is_string() ? std::optional<std::string>(j[key].get<std::string>()) : std::nullopt;
  };
  const std::string message = text("message").value_or("(no message)");
  const std::string path = text("path").value_or("");
  const std::optional<std::string> name = text("code");
  if (!name) return make_error(ErrorCode::internal, "an error without a code: " + message, path);
  if (auto code = error_code_from_name(*name)) return make_error(*code, message, path);
  return make_error(ErrorCode::internal, "an error with the unknown code '" + *name + "': " + message, path);
}

Json ops_table_json(const Graph& g) {
  Json ops = Json::array();
  for (const Op& op : g.ops) {
    Json o;
    o["name"] = op.name();
    o["kind"] = op_kind_name(op.spec.kind);
    Json ins = Json::array();
    for (const Tensor& t : op.inputs) ins.push_back(Json{{"name", t.name}, {"shape", shape_json(t.shape)}, {"dtype", dtype_name(t.dtype)}});
    o["inputs"] = ins;
    o["output"] = Json{{"name", op.output.name}, {"shape", shape_json(op.output.shape)}, {"dtype", dtype_name(op.output.dtype)}};
    Json ps = Json::array();
    for (const Tensor& t : op.params) ps.push_back(Json{{"name", t.name}, {"shape", shape_json(t.shape)}});
    o["params"] = ps;
    int64_t elems = 0;
    for (const Tensor& t : op.params) elems += num_elements(t.shape);
    o["param_elements"] = elems;
    o["param_bytes"] = op.param_bytes;
    o["forward_flops"] = op.forward_flops;
    o["backward_flops"] = op.backward_flops;
    o["input_bytes"] = op.input_bytes;
    o["output_bytes"] = op.output_bytes;
    Json dims = Json::array();
    for (const SplitDim& d : op.split_dims)
      dims.push_back(Json{{"name", d.name}, {"kind", split_kind_name(d.kind)}, {"output_dim", d.output_dim}, {"size", d.size}});
    o["split_dims"] = dims;
    ops.push_back(o);
  }
  return ops;
}

std::vector<OptionItem> split_options(const std::string& text) {
  std::vector<OptionItem> items;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    items.push_back(OptionItem{item.substr(0, eq), eq == std::string::npos ? "" : item.substr(eq + 1), eq != std::string::npos});
  }
  return items;
}

std::string conflicting_option(const std::vector<OptionItem>& items) {
  for (size_t i = 0; i < items.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (items[k].key == items[i].key && (items[k].value != items[i].value || items[k].has_value != items[i].has_value)) {
        const std::string& key = items[i].key;
        return "'" + key + "' is given twice, as " + items[k].value + " and " + items[i].value + "; give it once" +
               (key == "dtype_bytes" || key == "precision" ? " (--precision sets the model's dtype_bytes and the cluster's precision)" : "");
      }
  return "";
}

bool parse_whole_number(const std::string& s, int64_t& out) {
  if (s.empty() || s.size() > 19) return false;
  for (char c : s) if (c < '0' || c > '9') return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;   // overflow
  out = v;
  return true;
}

}  // namespace autopar
