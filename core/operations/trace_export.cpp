// Chrome/Perfetto trace and task-graph JSON of a simulated timeline.
#include "trace_export.h"

#include <algorithm>
#include <map>

namespace autopar {

std::string task_name(const TaskGraph& tg, const Task& t) {
  const std::string head = tg.graph().ops[size_t(t.op)].name() + "." + task_kind_tag(t.kind, t.forward_pass) + "[";
  if (task_kind_traits(t.kind).parts == TaskParts::compute) return head + std::to_string(t.part) + "]";
  // Transfers and ring steps run on a link: "link 0->1" is named by its "0->1".
  const std::string link = tg.topology().name(t.device);
  const std::string parts = task_kind_traits(t.kind).parts == TaskParts::transfer
                                ? std::to_string(t.peer_part) + "->" + std::to_string(t.part)
                                : std::to_string(t.peer_part);
  return head + parts + "] " + link.substr(link.find(' ') + 1);
}

namespace {

std::vector<const Task*> live_in_order(const TaskGraph& tg) {
  std::vector<const Task*> live;
  for (const Task& t : tg.tasks()) if (t.live) live.push_back(&t);
  std::sort(live.begin(), live.end(), [](const Task* a, const Task* b) { return a->order < b->order; });
  return live;
}

}  // namespace

Json perfetto_trace(const TaskGraph& tg) {
  Json events = Json::array();
  events.push_back(Json{{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0}, {"args", Json{{"name", "autopar simulated iteration"}}}});
  std::vector<const Task*> live = live_in_order(tg);
  std::map<int, bool> used;
  for (const Task* t : live) used[t->device] = true;
  for (const auto& [device, yes] : used) {
    (void)yes;
    events.push_back(Json{{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", device}, {"args", Json{{"name", tg.topology().name(device)}}}});
    events.push_back(Json{{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 0}, {"tid", device}, {"args", Json{{"sort_index", device}}}});
  }
  for (const Task* t : live) {
    Json args{{"op", tg.graph().ops[size_t(t->op)].name()}, {"part", t->part}, {"ready_ms", t->ready_ms}};
    if (t->bytes > 0) args["bytes"] = t->bytes;
    events.push_back(Json{{"name", task_name(tg, *t)}, {"cat", task_kind_name(t->kind)}, {"ph", "X"}, {"pid", 0}, {"tid", t->device},
                          {"ts", t->start_ms * 1000.0}, {"dur", t->duration_ms * 1000.0}, {"args", args}});
  }
  return Json{{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

Json task_graph_json(const TaskGraph& tg, double makespan_ms) {
  std::vector<const Task*> live = live_in_order(tg);
  std::map<const Task*, int> id;
  for (size_t i = 0; i < live.size(); ++i) id[live[i]] = int(i);
  Json tasks = Json::array();
  for (const Task* t : live) {
    std::vector<int> deps;
    for (int d : t->deps) deps.push_back(id[&tg.tasks()[size_t(d)]]);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    Json j{{"id", id[t]}, {"name", task_name(tg, *t)}, {"kind", task_kind_name(t->kind)}, {"device", tg.topology().name(t->device)},
           {"duration_ms", t->duration_ms}, {"deps", deps}, {"ready_ms", t->ready_ms}, {"start_ms", t->start_ms}, {"end_ms", t->end_ms}};
    if (t->bytes > 0) j["bytes"] = t->bytes;
    tasks.push_back(j);
  }
  return Json{{"tasks", tasks}, {"makespan_ms", makespan_ms}};
}

}  // namespace autopar
