// The kinds of task in FlexFlow's task graph (section 5.1) and one row of traits per kind: the
// name the CLI and traces print, the tag in task names, what the part numbers of a task mean and
// the sum of the simulator's breakdown its duration goes to. Every switch over task kinds reads
// this table instead (the page's label and colour per kind: web/panels/task_kind_style.h).
// A plain value of a simulated timeline, carried by the results a front end draws (timeline
// boxes, breakdowns), so it lives with the other value types rather than with the task graph.
#pragma once
#include <array>
#include <cstdint>

namespace autopar {

// What a task does; the breakdown sums durations by kind. A recompute task is a forward pass
// repeated before the backward pass (recomputation); ZeRO's reduce-scatters and gathers are
// sync tasks.
enum class TaskKind : uint8_t { forward, backward, transfer, sync, recompute };
// Number of task kinds: the size of every array indexed by kind.
inline constexpr int kTaskKindCount = 5;

// The sums of SimSummary (simulator.h) a kind's durations and bytes are added to.
enum class TaskBucket : uint8_t { compute, activation_transfer, param_sync };
// Number of breakdown buckets.
inline constexpr int kTaskBucketCount = 3;

// What Task::part and Task::peer_part hold for a kind.
enum class TaskParts : uint8_t {
  compute,    // part: the op part it computes
  transfer,   // part: consumer part, peer_part: producer part
  ring,       // part: ring position, peer_part: shard group
};

// The traits of one task kind.
struct TaskKindTraits {
  TaskKind kind;
  const char* name;           // "forward": trace category, task-graph JSON "kind", CLI
  const char* tag;            // in task names ("conv2.fwd[3]", "conv2 fwd")
  const char* gradient_tag;   // the tag of a backward-pass task when it differs ("grad"), else nullptr
  TaskParts parts;
  TaskBucket bucket;
};

// One row per kind, in declaration order (row i describes TaskKind(i)).
inline constexpr std::array<TaskKindTraits, kTaskKindCount> kTaskKindTable = {{
    {TaskKind::forward, "forward", "fwd", nullptr, TaskParts::compute, TaskBucket::compute},
    {TaskKind::backward, "backward", "bwd", nullptr, TaskParts::compute, TaskBucket::compute},
    {TaskKind::transfer, "transfer", "act", "grad", TaskParts::transfer, TaskBucket::activation_transfer},
    {TaskKind::sync, "sync", "sync", nullptr, TaskParts::ring, TaskBucket::param_sync},
    {TaskKind::recompute, "recompute", "recompute", nullptr, TaskParts::compute, TaskBucket::compute},
}};

namespace task_kind_detail {
constexpr bool rows_in_order() {
  for (int i = 0; i < kTaskKindCount; ++i)
    if (int(kTaskKindTable[size_t(i)].kind) != i) return false;
  return true;
}
}  // namespace task_kind_detail
static_assert(task_kind_detail::rows_in_order(), "kTaskKindTable: row i must describe TaskKind(i), one row per kind");
static_assert(int(TaskKind::recompute) + 1 == kTaskKindCount, "kTaskKindCount: a new TaskKind needs a row and a count");

// The traits of `kind` (a kind past the table is a programmer error).
constexpr const TaskKindTraits& task_kind_traits(TaskKind kind) { return kTaskKindTable[size_t(kind)]; }

// "forward", "backward", "transfer", "sync" or "recompute".
constexpr const char* task_kind_name(TaskKind k) { return task_kind_traits(k).name; }

// The tag of a task of kind `kind` in its pass (`forward_pass` false: the backward pass).
constexpr const char* task_kind_tag(TaskKind kind, bool forward_pass) {
  const TaskKindTraits& t = task_kind_traits(kind);
  return !forward_pass && t.gradient_tag ? t.gradient_tag : t.tag;
}

}  // namespace autopar
