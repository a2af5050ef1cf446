// The step inspector's replay clock and texts (step_inspector.h).
#include "step_inspector.h"

#include <algorithm>
#include <cmath>

namespace autopar::web {

size_t inspector_tick(StepInspector& inspector, size_t available, double seconds) {
  if (!inspector.playing || !(seconds > 0) || inspector.shown >= available) {
    // Waiting at the last record received keeps no clock: the next record shows when it comes.
    inspector.carry = 0;
    return 0;
  }
  // A frame longer than a second (a background tab) moves at most one second's worth.
  inspector.carry += std::min(seconds, 1.0) * inspector.speed;
  const size_t whole = size_t(std::floor(inspector.carry));
  const size_t moved = std::min(whole, available - inspector.shown);
  inspector.carry -= double(whole);
  inspector.shown += moved;
  return moved;
}

void inspector_step(StepInspector& inspector, size_t available) {
  inspector.playing = false;
  inspector.carry = 0;
  if (inspector.shown < available) ++inspector.shown;
}

void inspector_follow(StepInspector& inspector, int64_t run) {
  if (inspector.run == run) return;
  inspector.run = run;
  inspector.shown = 0;
  inspector.carry = 0;
}

namespace {

std::string devices_text(const std::vector<int>& devices) {
  if (devices.empty()) return "-";
  bool block = true;
  for (size_t k = 1; k < devices.size(); ++k) block &= devices[k] == devices[k - 1] + 1;
  if (block) return devices.size() == 1 ? std::to_string(devices[0]) : std::to_string(devices.front()) + "-" + std::to_string(devices.back());
  std::string s;
  for (int d : devices) s += (s.empty() ? "" : ",") + std::to_string(d);
  return s;
}

Json step_json(const Graph& graph, const McmcStep& r) {
  const bool has_op = r.op >= 0 && size_t(r.op) < graph.ops.size();
  const char* move = r.move == McmcStep::Move::remat ? "remat" : r.move == McmcStep::Move::zero ? "zero" : "config";
  Json j{{"step", r.step},
         {"move", move},
         {"op", has_op ? Json(graph.ops[size_t(r.op)].name()) : Json(nullptr)},
         {"text", inspector_move_text(graph, r)},
         {"current_cost", r.current_cost},
         {"proposed_cost", r.proposed_cost},
         {"proposed_ms", r.proposed_ms},
         {"delta_cost", r.delta_cost()},
         {"rate", r.rate},
         {"probability", r.probability},
         {"draw", r.draw < 0 ? Json(nullptr) : Json(r.draw)},
         {"accepted", r.accepted}};
  if (has_op && r.move != McmcStep::Move::remat) {
    j["from"] = inspector_config_text(graph.ops[size_t(r.op)], r.from);
    j["to"] = inspector_config_text(graph.ops[size_t(r.op)], r.to);
  }
  return j;
}

}  // namespace

std::string inspector_config_text(const Op& op, const OpConfig& c) {
  std::string dims;
  for (size_t j = 0; j < op.split_dims.size() && j < c.degrees.size(); ++j)
    if (c.degrees[j] > 1) dims += (dims.empty() ? "" : " ") + op.split_dims[j].name + "=" + std::to_string(c.degrees[j]);
  std::string s = (dims.empty() ? "whole" : dims) + " @ " + devices_text(c.devices);
  if (c.zero > 0) s += " ZeRO " + std::to_string(c.zero);
  return s;
}

std::string inspector_move_text(const Graph& graph, const McmcStep& r) {
  if (r.move == McmcStep::Move::remat) return r.remat_to ? "recomputation on" : "recomputation off";
  if (r.op < 0 || size_t(r.op) >= graph.ops.size()) return "?";
  const Op& op = graph.ops[size_t(r.op)];
  if (r.move == McmcStep::Move::zero) return op.name() + ": ZeRO " + std::to_string(r.from.zero) + " -> " + std::to_string(r.to.zero);
  return op.name() + ": " + inspector_config_text(op, r.from) + " -> " + inspector_config_text(op, r.to);
}

Json inspector_json(const StepInspector& inspector, const std::vector<McmcStep>& records, const Graph& graph, size_t recent) {
  const size_t shown = std::min(inspector.shown, records.size());
  Json list = Json::array();
  for (size_t k = shown > 1 ? shown - 1 : 0; k-- > 0 && list.size() < recent;) list.push_back(step_json(graph, records[k]));
  return Json{{"records", records.size()},
              {"shown", shown},
              {"playing", inspector.playing},
              {"speed", inspector.speed},
              {"current", shown > 0 ? step_json(graph, records[shown - 1]) : Json(nullptr)},
              {"recent", list}};
}

}  // namespace autopar::web
