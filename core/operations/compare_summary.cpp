// `compare --json` read into typed rows. See compare_summary.h.
#include "compare_summary.h"

#include <algorithm>
#include <optional>
#include <tuple>

namespace autopar {
namespace {

// Reads fields of one JSON object, remembering the first missing or mistyped one with its path.
class FieldReader {
 public:
  FieldReader(const Json& object, std::string path, std::optional<Error>& error) : j_(object), path_(std::move(path)), error_(error) {
    if (!j_.is_object()) fail("", "an object");
  }
  double number(const char* key) {
    const Json* v = find(key, "a number");
    return v && v->is_number() ? v->get<double>() : (wrong(key, "a number", v), 0.0);
  }
  int64_t integer(const char* key) {
    const Json* v = find(key, "a whole number");
    return v && v->is_number_integer() ? v->get<int64_t>() : (wrong(key, "a whole number", v), int64_t(0));
  }
  std::string text(const char* key) {
    const Json* v = find(key, "a string");
    return v && v->is_string() ? v->get<std::string>() : (wrong(key, "a string", v), std::string());
  }
  bool flag(const char* key) {
    const Json* v = find(key, "true or false");
    return v && v->is_boolean() ? v->get<bool>() : (wrong(key, "true or false", v), false);
  }
  // A pair of whole numbers [a, b].
  std::pair<int, int> pair(const char* key) {
    const Json* v = find(key, "[first, last]");
    if (v && v->is_array() && v->size() == 2 && (*v)[0].is_number_integer() && (*v)[1].is_number_integer())
      return {(*v)[0].get<int>(), (*v)[1].get<int>()};
    wrong(key, "[first, last]", v);
    return {0, 0};
  }
  // The value at `key` (null when absent: the caller checks its type).
  const Json& at(const char* key) {
    static const Json null;
    return j_.is_object() && j_.contains(key) ? j_[key] : null;
  }
  std::string path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  void fail(const std::string& key, const std::string& expected) {
    if (!error_) error_ = make_error(ErrorCode::missing_field, "the compare report's " + (key.empty() ? path_ : path(key)) + " must be " + expected,
                                     key.empty() ? path_ : path(key));
  }

 private:
  const Json* find(const char* key, const char* expected) {
    if (!j_.is_object() || !j_.contains(key)) {
      fail(key, expected);
      return nullptr;
    }
    return &j_[key];
  }
  void wrong(const char* key, const char* expected, const Json* v) {
    if (v) fail(key, expected);
  }
  const Json& j_;
  std::string path_;
  std::optional<Error>& error_;
};

CompareBreakdown read_breakdown(const Json& half, const std::string& path, std::optional<Error>& error) {
  FieldReader h(half, path, error);
  CompareBreakdown b;
  b.makespan_ms = h.number("makespan_ms");
  FieldReader r(h.at("breakdown"), h.path("breakdown"), error);
  b.compute_ms = r.number("compute_ms");
  b.activation_transfer_ms = r.number("activation_transfer_ms");
  b.param_sync_ms = r.number("param_sync_ms");
  b.activation_bytes = r.number("activation_bytes");
  b.param_sync_bytes = r.number("param_sync_bytes");
  b.peak_memory_bytes = r.number("peak_memory_bytes");
  return b;
}

// strategy_to_json's ops: [{name, degrees: {dim: n}, devices: [...]}].
std::vector<std::pair<std::string, OpPlacement>> read_placements(const Json& strategy, const std::string& path, std::optional<Error>& error) {
  std::vector<std::pair<std::string, OpPlacement>> out;
  FieldReader s(strategy, path, error);
  const Json& ops = s.at("ops");
  if (!ops.is_array()) {
    s.fail("ops", "an array of ops");
    return out;
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    FieldReader op(ops[i], s.path("ops[" + std::to_string(i) + "]"), error);
    OpPlacement p;
    const Json& degrees = op.at("degrees");
    if (!degrees.is_object()) op.fail("degrees", "an object {dimension: degree}");
    else
      for (auto it = degrees.begin(); it != degrees.end(); ++it) {
        if (it.value().is_number_integer()) p.degrees.push_back({it.key(), it.value().get<int64_t>()});
        else op.fail("degrees." + it.key(), "a whole number");
      }
    const Json& devices = op.at("devices");
    if (!devices.is_array()) op.fail("devices", "an array of GPU numbers");
    else
      for (const Json& d : devices) {
        if (d.is_number_integer()) p.devices.push_back(d.get<int>());
        else op.fail("devices", "an array of GPU numbers");
      }
    out.push_back({op.text("name"), std::move(p)});
  }
  return out;
}

std::vector<CompareStageRow> read_stages(const Json& stages, const std::string& path, std::optional<Error>& error) {
  std::vector<CompareStageRow> out;
  if (!stages.is_array()) {
    if (!error) error = make_error(ErrorCode::missing_field, "the compare report's " + path + " must be an array of stages", path);
    return out;
  }
  for (size_t k = 0; k < stages.size(); ++k) {
    FieldReader st(stages[k], path + "[" + std::to_string(k) + "]", error);
    CompareStageRow row;
    std::tie(row.first_layer, row.last_layer) = st.pair("layers");
    std::tie(row.first_device, row.last_device) = st.pair("devices");
    row.logical_mesh = st.text("logical_mesh");
    row.latency = st.number("latency");
    const Json& b = st.at("boundary");
    row.has_boundary = b.is_object();
    if (row.has_boundary) {
      FieldReader boundary(b, st.path("boundary"), error);
      row.boundary_bytes = boundary.number("bytes");
      row.boundary_ms = boundary.number("ms");
      row.boundary_inter_node = boundary.flag("inter_node");
    } else if (!b.is_null()) {
      st.fail("boundary", "an object {bytes, ms, inter_node} or null");
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace

double CompareSummary::speedup() const {
  const double fast = std::min(flexflow.makespan_ms, alpa.makespan_ms), slow = std::max(flexflow.makespan_ms, alpa.makespan_ms);
  return fast > 0 ? slow / fast : 0;
}

Result<CompareSummary> compare_summary_from_json(const Json& report) {
  std::optional<Error> error;
  FieldReader r(report, "", error);
  CompareSummary s;
  FieldReader ff(r.at("flexflow"), "flexflow", error);
  FieldReader al(r.at("alpa"), "alpa", error);
  s.flexflow = read_breakdown(r.at("flexflow"), "flexflow", error);
  s.alpa = read_breakdown(r.at("alpa"), "alpa", error);
  s.search_elapsed_ms = ff.number("elapsed_ms");
  s.search_steps = ff.integer("search_steps");
  s.microbatches = int(al.integer("microbatches"));
  s.pipeline_objective_ms = al.number("objective");
  // The plan under the schedule model (the inter-op tab's GPipe and 1F1B), when reported.
  if (report.contains("alpa") && report["alpa"].contains("schedules") && report["alpa"]["schedules"].is_object()) {
    const Json& sc = report["alpa"]["schedules"];
    auto makespan = [&](const char* name) {
      return sc.contains(name) && sc[name].contains("makespan_ms") && sc[name]["makespan_ms"].is_number() ? sc[name]["makespan_ms"].get<double>() : 0.0;
    };
    s.pipeline_gpipe_ms = makespan("gpipe");
    s.pipeline_1f1b_ms = makespan("1f1b");
  }
  s.alpa_solve_ms = al.number("solve_ms");
  s.mesh = al.text("mesh");
  s.stages = read_stages(al.at("stages"), "alpa.stages", error);
  for (auto& [name, placement] : read_placements(ff.at("strategy"), "flexflow.strategy", error)) {
    CompareOpRow row;
    row.name = name;
    row.flexflow = std::move(placement);
    s.ops.push_back(std::move(row));
  }
  // Alpa's per-op plan [{name, stage, strategy, output_spec}] and its SOAP strategy (null when
  // its micro-batch graph could not be built: the rows then show the plan only).
  const Json& plan = al.at("plan");
  if (!plan.is_array()) al.fail("plan", "an array of ops");
  else
    for (size_t i = 0; i < plan.size() && i < s.ops.size(); ++i) {
      FieldReader op(plan[i], "alpa.plan[" + std::to_string(i) + "]", error);
      s.ops[i].has_alpa = true;
      s.ops[i].alpa_stage = int(op.integer("stage"));
      s.ops[i].alpa_strategy = op.text("strategy");
      s.ops[i].alpa_output_spec = op.text("output_spec");
    }
  if (!al.at("strategy").is_null()) {
    const auto alpa_ops = read_placements(al.at("strategy"), "alpa.strategy", error);
    for (size_t i = 0; i < alpa_ops.size() && i < s.ops.size(); ++i) {
      s.ops[i].has_alpa_placement = true;
      s.ops[i].alpa = alpa_ops[i].second;
    }
  }
  if (error) return *error;
  return s;
}

std::string placement_text(const OpPlacement& placement) {
  std::string s;
  for (const auto& [dim, degree] : placement.degrees)
    if (degree > 1) s += (s.empty() ? "" : " x ") + dim + " " + std::to_string(degree);
  if (s.empty()) s = "whole";
  const std::vector<int>& d = placement.devices;
  if (d.empty()) return s;
  if (d.size() == 1) return s + " @ GPU " + std::to_string(d[0]);
  bool consecutive = true;
  for (size_t i = 1; i < d.size(); ++i) consecutive &= d[i] == d[i - 1] + 1;
  if (consecutive) return s + " @ " + std::to_string(d.front()) + "-" + std::to_string(d.back());
  std::string list;
  for (int x : d) list += (list.empty() ? "" : ",") + std::to_string(x);
  return s + " @ " + list;
}

}  // namespace autopar
