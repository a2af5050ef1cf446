// A strategy's checks and its JSON form. See strategy.h.
#include "strategy.h"

#include <set>

#include "cluster.h"

namespace autopar {

Status validate_config(const Op& op, const OpConfig& c, int num_devices, const std::string& path) {
  if (c.degrees.size() != op.split_dims.size())
    return make_error(ErrorCode::bad_strategy, "op '" + op.name() + "' has " + std::to_string(op.split_dims.size()) +
                                          " split dimensions but the config gives " + std::to_string(c.degrees.size()) + " degrees",
                      path + ".degrees");
  int64_t parts = 1;
  for (size_t j = 0; j < c.degrees.size(); ++j) {
    const SplitDim& d = op.split_dims[j];
    int deg = c.degrees[j];
    std::string p = path + ".degrees." + d.name;
    if (deg < 1 || deg > kMaxDevices)
      return make_error(ErrorCode::out_of_range, "degree " + std::to_string(deg) + " of '" + d.name + "' must be between 1 and the device count", p);
    // A degree need not divide its dimension (uneven parts differ by one element), but every
    // part needs at least one element.
    if (deg > d.size)
      return make_error(ErrorCode::bad_degree, "degree " + std::to_string(deg) + " is larger than dimension '" + d.name + "' of op '" +
                                          op.name() + "' (size " + std::to_string(d.size) + "): a part would be empty; use at most " +
                                          std::to_string(d.size),
                        p);
    parts *= deg;
    if (parts > num_devices)
      return make_error(ErrorCode::bad_degree, "op '" + op.name() + "' would have more parts than the " + std::to_string(num_devices) + " devices", path + ".degrees");
  }
  if (int64_t(c.devices.size()) != parts)
    return make_error(ErrorCode::bad_strategy, "op '" + op.name() + "' has " + std::to_string(parts) + " parts but " +
                                          std::to_string(c.devices.size()) + " devices are listed; give one device per part",
                      path + ".devices");
  std::set<int> seen;
  for (size_t k = 0; k < c.devices.size(); ++k) {
    int dev = c.devices[k];
    std::string p = path + ".devices[" + std::to_string(k) + "]";
    if (dev < 0 || dev >= num_devices)
      return make_error(ErrorCode::bad_device, "device " + std::to_string(dev) + " is out of range; the cluster has devices 0.." +
                                          std::to_string(num_devices - 1), p);
    if (!seen.insert(dev).second)
      return make_error(ErrorCode::bad_device, "device " + std::to_string(dev) + " holds two parts of op '" + op.name() + "'; give each part its own device", p);
  }
  return Ok{};
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
    return make_error(ErrorCode::wrong_type, "a strategy is an object {\"ops\": [...]} with one entry per op", "ops");
  const Json& ops = j["ops"];
  // A misspelt key ("remats") would otherwise be ignored and the strategy simulated without it.
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "ops" && it.key() != "remat")
      return make_error(ErrorCode::unknown_field, "unknown field '" + it.key() + "' in the strategy; valid fields: ops, remat", it.key());
  Strategy s;
  if (j.contains("remat")) {
    if (!j["remat"].is_boolean()) return make_error(ErrorCode::wrong_type, "remat is true (recompute the layers' activations) or false", "remat");
    s.remat = j["remat"].get<bool>();
  }
  s.ops.resize(g.ops.size());
  std::vector<bool> given(g.ops.size(), false);
  for (size_t k = 0; k < ops.size(); ++k) {
    const Json& o = ops[k];
    std::string path = "ops[" + std::to_string(k) + "]";
    if (!o.is_object()) return make_error(ErrorCode::wrong_type, path + " must be an object with name, degrees and devices", path);
    for (auto it = o.begin(); it != o.end(); ++it)
      if (it.key() != "name" && it.key() != "degrees" && it.key() != "devices" && it.key() != "zero")
        return make_error(ErrorCode::unknown_field, "unknown field '" + it.key() + "' in " + path + "; valid fields: name, degrees, devices, zero", path + "." + it.key());
    if (!o.contains("name") || !o["name"].is_string()) return make_error(ErrorCode::missing_field, path + " needs the op's name", path + ".name");
    std::string name = o["name"].get<std::string>();
    int i = g.find_op(name);
    if (i < 0) return make_error(ErrorCode::unknown_op, "the model has no op named '" + name + "'", path + ".name");
    if (given[size_t(i)]) return make_error(ErrorCode::duplicate_name, "op '" + name + "' appears twice in the strategy", path + ".name");
    given[size_t(i)] = true;
    const Op& op = g.ops[size_t(i)];
    OpConfig c;
    c.degrees.assign(op.split_dims.size(), 1);
    if (o.contains("degrees")) {
      const Json& d = o["degrees"];
      if (!d.is_object()) return make_error(ErrorCode::wrong_type, path + ".degrees must be an object {dimension: degree}", path + ".degrees");
      for (auto it = d.begin(); it != d.end(); ++it) {
        std::string p = path + ".degrees." + it.key();
        size_t dim = 0;
        while (dim < op.split_dims.size() && op.split_dims[dim].name != it.key()) ++dim;
        if (dim == op.split_dims.size()) {
          std::string valid;
          for (const auto& sd : op.split_dims) valid += (valid.empty() ? "" : ", ") + sd.name;
          // A degree of 1 on a dimension the op cannot split changes nothing; accept it.
          if (it.value().is_number_integer() && it.value().get<int64_t>() == 1) continue;
          return make_error(ErrorCode::unknown_dim, "op '" + name + "' cannot be split along '" + it.key() + "'; its dimensions: " +
                                               (valid.empty() ? "none" : valid), p);
        }
        if (!it.value().is_number_integer()) return make_error(ErrorCode::wrong_type, p + " must be an integer", p);
        int64_t v = it.value().get<int64_t>();
        if (v < 1 || v > kMaxDevices) return make_error(ErrorCode::out_of_range, p + " is " + std::to_string(v) + "; degrees are between 1 and the device count", p);
        c.degrees[dim] = int(v);
      }
    }
    if (!o.contains("devices") || !o["devices"].is_array())
      return make_error(ErrorCode::missing_field, path + " needs \"devices\": one device id per part", path + ".devices");
    const Json& devs = o["devices"];
    if (devs.size() > size_t(kMaxDevices)) return make_error(ErrorCode::too_large, path + ".devices lists more devices than any cluster has", path + ".devices");
    for (size_t q = 0; q < devs.size(); ++q) {
      if (!devs[q].is_number_integer())
        return make_error(ErrorCode::wrong_type, path + ".devices[" + std::to_string(q) + "] must be an integer device id", path + ".devices[" + std::to_string(q) + "]");
      int64_t v = devs[q].get<int64_t>();
      c.devices.push_back(v < -1 || v > kMaxDevices ? -1 : int(v));
    }
    if (o.contains("zero")) {
      const Json& z = o["zero"];
      if (!z.is_number_integer() || z.get<int64_t>() < 0 || z.get<int64_t>() > 3)
        return make_error(ErrorCode::out_of_range, path + ".zero is the op's ZeRO stage: 0, 1, 2 or 3", path + ".zero");
      c.zero = int(z.get<int64_t>());
    }
    if (auto st = validate_config(op, c, num_devices, path); !st.ok()) return st.error();
    s.ops[size_t(i)] = c;
  }
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (!given[i]) return make_error(ErrorCode::missing_field, "the strategy has no entry for op '" + g.ops[i].name() + "'", "ops");
  return s;
}

}  // namespace autopar
