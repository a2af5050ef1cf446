// SOAP configurations, space sizes, the named strategies and strategy files (FlexFlow section 4).
#include "soap.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "regions.h"
#include "rng.h"

namespace autopar {
namespace {

// Every degree vector whose product divides n, in lexicographic order of the degrees: powers of
// two that divide their dimension, and for the sample dimension (the batch) every power of two
// up to its size, a degree that does not divide it giving balanced parts (see regions.h). So a
// batch that does not divide has the same choices as one that does, while the other dimensions
// (AlexNet's 55x55 feature maps, say) keep the lecture's space and its counts.
void degree_vectors(const Op& op, int n, size_t dim, std::vector<int>& current, int64_t product,
                    std::vector<std::vector<int>>& out) {
  if (dim == op.split_dims.size()) {
    out.push_back(current);
    return;
  }
  for (int64_t d = 1; product * d <= n; d *= 2) {
    const SplitDim& sd = op.split_dims[dim];
    const bool allowed = sd.kind == SplitKind::sample ? d <= sd.size : sd.size % d == 0;
    if (n % (product * d) != 0 || !allowed) break;
    current.push_back(int(d));
    degree_vectors(op, n, dim + 1, current, product * d, out);
    current.pop_back();
  }
}

OpConfig block_config(std::vector<int> degrees, int first_device) {
  OpConfig c;
  c.degrees = std::move(degrees);
  int parts = 1;
  for (int d : c.degrees) parts *= d;
  for (int k = 0; k < parts; ++k) c.devices.push_back(first_device + k);
  return c;
}

int find_dim(const Op& op, SplitKind kind) {
  for (size_t j = 0; j < op.split_dims.size(); ++j)
    if (op.split_dims[j].kind == kind) return int(j);
  return -1;
}

// One dimension split `degree` ways over devices first..first+degree-1, the rest whole.
OpConfig split_one(const Op& op, int dim, int degree, int first_device) {
  std::vector<int> degrees(op.split_dims.size(), 1);
  if (dim >= 0) degrees[size_t(dim)] = degree;
  else degree = 1;
  return block_config(degrees, first_device);
}

// Base-1e9 digits, least significant first: exact products of config counts.
std::vector<uint32_t> multiply(const std::vector<uint32_t>& a, uint64_t m) {
  std::vector<uint32_t> r;
  uint64_t carry = 0;
  for (uint32_t digit : a) {
    // m < 2^31 keeps digit * m + carry below 2^64.
    uint64_t v = uint64_t(digit) * m + carry;
    r.push_back(uint32_t(v % 1000000000u));
    carry = v / 1000000000u;
  }
  while (carry) { r.push_back(uint32_t(carry % 1000000000u)); carry /= 1000000000u; }
  return r;
}

std::string to_decimal(const std::vector<uint32_t>& a) {
  std::string s = std::to_string(a.back());
  for (size_t i = a.size() - 1; i-- > 0;) {
    std::string part = std::to_string(a[i]);
    s += std::string(9 - part.size(), '0') + part;
  }
  return s;
}

}  // namespace

std::vector<OpConfig> enumerate_configs(const Op& op, int num_devices) {
  std::vector<std::vector<int>> vectors;
  std::vector<int> current;
  degree_vectors(op, num_devices, 0, current, 1, vectors);
  std::vector<OpConfig> configs;
  for (const auto& degrees : vectors) {
    int parts = 1;
    for (int d : degrees) parts *= d;
    for (int first = 0; first + parts <= num_devices; first += parts) configs.push_back(block_config(degrees, first));
  }
  return configs;
}

SpaceSize count_space(const Graph& g, int num_devices) {
  SpaceSize s;
  std::vector<uint32_t> total{1};
  double log10_total = 0;
  // An op's configurations depend only on the kinds and sizes of its split dimensions, and a
  // transformer repeats a few of those over hundreds of ops: each is enumerated once (a 48-layer
  // model on 32 GPUs spent 10 ms of a page edit here).
  std::map<std::vector<std::pair<SplitKind, int64_t>>, std::pair<int64_t, int64_t>> counted;   // -> (configs, uneven ones)
  for (const Op& op : g.ops) {
    std::vector<std::pair<SplitKind, int64_t>> shape;
    for (const SplitDim& d : op.split_dims) shape.emplace_back(d.kind, d.size);
    auto it = counted.find(shape);
    if (it == counted.end()) {
      const auto configs = enumerate_configs(op, num_devices);
      int64_t uneven = 0;
      for (const OpConfig& c : configs) uneven += even_split(op, c) ? 0 : 1;
      it = counted.emplace(std::move(shape), std::pair<int64_t, int64_t>{int64_t(configs.size()), uneven}).first;
    }
    const auto [n, uneven] = it->second;
    s.configs_per_op.push_back(n);
    s.uneven_configs_per_op.push_back(uneven);
    total = multiply(total, uint64_t(n));
    log10_total += std::log10(double(n));
  }
  s.strategies = to_decimal(total);
  // Rounded so that the printed value is the same whatever libm computed the logarithm.
  s.log10_strategies = std::round(log10_total * 1e6) / 1e6;
  return s;
}

Status validate_config(const Op& op, const OpConfig& c, int num_devices, const std::string& path) {
  if (c.degrees.size() != op.split_dims.size())
    return make_error("bad_strategy", "op '" + op.name() + "' has " + std::to_string(op.split_dims.size()) +
                                          " split dimensions but the config gives " + std::to_string(c.degrees.size()) + " degrees",
                      path + ".degrees");
  int64_t parts = 1;
  for (size_t j = 0; j < c.degrees.size(); ++j) {
    const SplitDim& d = op.split_dims[j];
    int deg = c.degrees[j];
    std::string p = path + ".degrees." + d.name;
    if (deg < 1 || deg > kMaxDevices)
      return make_error("out_of_range", "degree " + std::to_string(deg) + " of '" + d.name + "' must be between 1 and the device count", p);
    // A degree need not divide its dimension (uneven parts differ by one element), but every
    // part needs at least one element.
    if (deg > d.size)
      return make_error("bad_degree", "degree " + std::to_string(deg) + " is larger than dimension '" + d.name + "' of op '" +
                                          op.name() + "' (size " + std::to_string(d.size) + "): a part would be empty; use at most " +
                                          std::to_string(d.size),
                        p);
    parts *= deg;
    if (parts > num_devices)
      return make_error("bad_degree", "op '" + op.name() + "' would have more parts than the " + std::to_string(num_devices) + " devices", path + ".degrees");
  }
  if (int64_t(c.devices.size()) != parts)
    return make_error("bad_strategy", "op '" + op.name() + "' has " + std::to_string(parts) + " parts but " +
                                          std::to_string(c.devices.size()) + " devices are listed; give one device per part",
                      path + ".devices");
  std::set<int> seen;
  for (size_t k = 0; k < c.devices.size(); ++k) {
    int dev = c.devices[k];
    std::string p = path + ".devices[" + std::to_string(k) + "]";
    if (dev < 0 || dev >= num_devices)
      return make_error("bad_device", "device " + std::to_string(dev) + " is out of range; the cluster has devices 0.." +
                                          std::to_string(num_devices - 1), p);
    if (!seen.insert(dev).second)
      return make_error("bad_device", "device " + std::to_string(dev) + " holds two parts of op '" + op.name() + "'; give each part its own device", p);
  }
  return Ok{};
}

Strategy data_parallel(const Graph& g, int num_devices) {
  Strategy s;
  for (const Op& op : g.ops) {
    // Every device, whether or not the batch divides (uneven parts), unless there are fewer samples.
    int dim = find_dim(op, SplitKind::sample);
    int64_t degree = dim < 0 ? 1 : std::min<int64_t>(op.split_dims[size_t(dim)].size, num_devices);
    s.ops.push_back(split_one(op, dim, int(degree), 0));
  }
  return s;
}

Strategy model_parallel(const Graph& g, int num_devices) {
  Strategy s;
  for (size_t i = 0; i < g.ops.size(); ++i) s.ops.push_back(split_one(g.ops[i], -1, 1, int(i % size_t(num_devices))));
  return s;
}

Strategy expert_strategy(const Graph& g, const Cluster& cluster) {
  const int n = cluster.num_devices();
  Strategy s = data_parallel(g, n);
  int table = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    if (op.spec.kind == OpKind::embedding) {
      // Each table whole on its own device: only the looked-up rows move.
      s.ops[i] = split_one(op, -1, 1, table++ % n);
    } else if (op.spec.kind == OpKind::linear && op.param_bytes > 0) {
      // Fully connected: split the output channels over the GPUs of one node (fast links),
      // unevenly when they do not divide.
      int dim = find_dim(op, SplitKind::parameter);
      if (dim < 0) continue;
      int64_t degree = std::min<int64_t>(op.split_dims[size_t(dim)].size, cluster.gpus_per_node);
      s.ops[i] = split_one(op, dim, int(degree), 0);
    }
  }
  return s;
}

Strategy random_strategy(const Graph& g, int num_devices, uint64_t seed) {
  Rng rng(seed);
  Strategy s;
  for (const Op& op : g.ops) {
    auto configs = enumerate_configs(op, num_devices);
    s.ops.push_back(configs[size_t(rng.below(configs.size()))]);
  }
  return s;
}

Json strategy_to_json(const Graph& g, const Strategy& s) {
  Json ops = Json::array();
  for (size_t i = 0; i < g.ops.size(); ++i) {
    Json degrees = Json::object();
    for (size_t j = 0; j < g.ops[i].split_dims.size(); ++j) degrees[g.ops[i].split_dims[j].name] = s.ops[i].degrees[j];
    Json op{{"name", g.ops[i].name()}, {"degrees", degrees}, {"devices", s.ops[i].devices}};
    if (s.ops[i].zero != 0) op["zero"] = s.ops[i].zero;   // only when used: older readers see what they knew
    ops.push_back(op);
  }
  Json j{{"ops", ops}};
  if (s.remat) j["remat"] = true;
  return j;
}

Result<Strategy> strategy_from_json(const Json& j, const Graph& g, int num_devices) {
  if (!j.is_object() || !j.contains("ops") || !j["ops"].is_array())
    return make_error("wrong_type", "a strategy is an object {\"ops\": [...]} with one entry per op", "ops");
  const Json& ops = j["ops"];
  // A misspelt key ("remats") would otherwise be ignored and the strategy simulated without it.
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "ops" && it.key() != "remat")
      return make_error("unknown_field", "unknown field '" + it.key() + "' in the strategy; valid fields: ops, remat", it.key());
  Strategy s;
  if (j.contains("remat")) {
    if (!j["remat"].is_boolean()) return make_error("wrong_type", "remat is true (recompute the layers' activations) or false", "remat");
    s.remat = j["remat"].get<bool>();
  }
  s.ops.resize(g.ops.size());
  std::vector<bool> given(g.ops.size(), false);
  for (size_t k = 0; k < ops.size(); ++k) {
    const Json& o = ops[k];
    std::string path = "ops[" + std::to_string(k) + "]";
    if (!o.is_object()) return make_error("wrong_type", path + " must be an object with name, degrees and devices", path);
    for (auto it = o.begin(); it != o.end(); ++it)
      if (it.key() != "name" && it.key() != "degrees" && it.key() != "devices" && it.key() != "zero")
        return make_error("unknown_field", "unknown field '" + it.key() + "' in " + path + "; valid fields: name, degrees, devices, zero", path + "." + it.key());
    if (!o.contains("name") || !o["name"].is_string()) return make_error("missing_field", path + " needs the op's name", path + ".name");
    std::string name = o["name"].get<std::string>();
    int i = g.find_op(name);
    if (i < 0) return make_error("unknown_op", "the model has no op named '" + name + "'", path + ".name");
    if (given[size_t(i)]) return make_error("duplicate_name", "op '" + name + "' appears twice in the strategy", path + ".name");
    given[size_t(i)] = true;
    const Op& op = g.ops[size_t(i)];
    OpConfig c;
    c.degrees.assign(op.split_dims.size(), 1);
    if (o.contains("degrees")) {
      const Json& d = o["degrees"];
      if (!d.is_object()) return make_error("wrong_type", path + ".degrees must be an object {dimension: degree}", path + ".degrees");
      for (auto it = d.begin(); it != d.end(); ++it) {
        std::string p = path + ".degrees." + it.key();
        size_t dim = 0;
        while (dim < op.split_dims.size() && op.split_dims[dim].name != it.key()) ++dim;
        if (dim == op.split_dims.size()) {
          std::string valid;
          for (const auto& sd : op.split_dims) valid += (valid.empty() ? "" : ", ") + sd.name;
          // A degree of 1 on a dimension the op cannot split changes nothing; accept it.
          if (it.value().is_number_integer() && it.value().get<int64_t>() == 1) continue;
          return make_error("unknown_dim", "op '" + name + "' cannot be split along '" + it.key() + "'; its dimensions: " +
                                               (valid.empty() ? "none" : valid), p);
        }
        if (!it.value().is_number_integer()) return make_error("wrong_type", p + " must be an integer", p);
        int64_t v = it.value().get<int64_t>();
        if (v < 1 || v > kMaxDevices) return make_error("out_of_range", p + " is " + std::to_string(v) + "; degrees are between 1 and the device count", p);
        c.degrees[dim] = int(v);
      }
    }
    if (!o.contains("devices") || !o["devices"].is_array())
      return make_error("missing_field", path + " needs \"devices\": one device id per part", path + ".devices");
    const Json& devs = o["devices"];
    if (devs.size() > size_t(kMaxDevices)) return make_error("too_large", path + ".devices lists more devices than any cluster has", path + ".devices");
    for (size_t q = 0; q < devs.size(); ++q) {
      if (!devs[q].is_number_integer())
        return make_error("wrong_type", path + ".devices[" + std::to_string(q) + "] must be an integer device id", path + ".devices[" + std::to_string(q) + "]");
      int64_t v = devs[q].get<int64_t>();
      c.devices.push_back(v < -1 || v > kMaxDevices ? -1 : int(v));
    }
    if (o.contains("zero")) {
      const Json& z = o["zero"];
      if (!z.is_number_integer() || z.get<int64_t>() < 0 || z.get<int64_t>() > 3)
        return make_error("out_of_range", path + ".zero is the op's ZeRO stage: 0, 1, 2 or 3", path + ".zero");
      c.zero = int(z.get<int64_t>());
    }
    if (auto st = validate_config(op, c, num_devices, path); !st.ok()) return st.error();
    s.ops[size_t(i)] = c;
  }
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (!given[i]) return make_error("missing_field", "the strategy has no entry for op '" + g.ops[i].name() + "'", "ops");
  return s;
}

Result<Strategy> load_strategy(const std::string& text, const Graph& g, const Cluster& cluster, const std::string& arg_path) {
  const int n = cluster.num_devices();
  if (text == "dp") return data_parallel(g, n);
  if (text == "mp") return model_parallel(g, n);
  if (text == "expert") return expert_strategy(g, cluster);
  if (text.rfind("random:", 0) == 0) {
    std::string seed = text.substr(7);
    if (seed.empty() || seed.size() > 19 || seed.find_first_not_of("0123456789") != std::string::npos)
      return make_error("bad_value", "random strategies are random:SEED with a whole-number seed, e.g. random:1", arg_path);
    return random_strategy(g, n, std::strtoull(seed.c_str(), nullptr, 10));  // saturates, never throws
  }
  if (text.size() >= 5 && text.compare(text.size() - 5, 5, ".json") == 0) {
    auto body = read_text_file(text);
    if (!body.ok()) return body.error();
    auto j = parse_json_text(body.value(), "strategy file '" + text + "'");
    if (!j.ok()) return j.error();
    const Json& root = j.value().contains("strategy") && j.value()["strategy"].is_object() ? j.value()["strategy"] : j.value();
    auto s = strategy_from_json(root, g, n);
    if (!s.ok()) {
      Error e = s.error();
      e.message = "strategy file '" + text + "': " + e.message;
      return e;
    }
    return s;
  }
  return make_error("unknown_strategy", "unknown strategy '" + text + "'; use dp, mp, expert, random:SEED or a .json file", arg_path);
}

}  // namespace autopar
