// `autopar schedule`: a pipeline schedule (GPipe, 1F1B, interleaved 1F1B, ZB-H1, ZB-V, DualPipe,
// DualPipeV) on uniform stages, as a Gantt chart, its bubble and its activations in flight:
// core/operations/schedule_operation.h.
#include "commands.h"
#include "schedule_operation.h"

namespace autopar::cli {
namespace {

Result<Output> schedule_command(const Args& a) {
  ScheduleRequest r;
  if (auto name = a.get("schedule"); name && *name == "all") {
    r.kinds = all_schedule_kinds();
  } else if (name) {
    auto kind = parse_schedule_kind(*name, "--schedule");
    if (!kind.ok()) return make_error(kind.error().code, kind.error().message + ", or all", "--schedule");
    r.kinds = {kind.value()};
  }
  // The schedule model's own bounds (pipeline_schedules.h), so the CLI and the core refuse alike.
  auto stages = int_option(a, "stages", r.devices, WholeBound{1, kScheduleMaxDevices});
  if (!stages.ok()) return stages.error();
  auto micro = int_option(a, "microbatches", r.microbatches, WholeBound{1, kScheduleMaxMicrobatches});
  if (!micro.ok()) return micro.error();
  auto v = int_option(a, "v", r.interleave, WholeBound{1, kScheduleMaxInterleave});
  if (!v.ok()) return v.error();
  r.devices = int(stages.value());
  r.microbatches = int(micro.value());
  r.interleave = int(v.value());
  for (auto [key, field] : {std::pair<const char*, double*>{"f", &r.f}, {"b", &r.b}, {"w", &r.w}, {"comm", &r.comm}}) {
    auto x = number_option(a, key, *field);
    if (!x.ok()) return x.error();
    *field = x.value();
  }
  auto report = run_schedule_request(r);
  if (!report.ok()) return report.error();
  if (auto trace = a.get("trace")) {
    if (report.value().runs.size() != 1)
      return make_error(ErrorCode::bad_argument, "--trace writes one schedule: name it with --schedule", "--trace");
    if (Status s = write_file(*trace, schedule_trace(report.value().runs[0].result).dump(), "--trace"); !s.ok()) return s.error();
  }
  return output_of(report.value());
}

const char* kScheduleHelp =
    "  --schedule NAME  gpipe, 1f1b, interleaved, zb-h1, zb-h2, zb-v, dualpipe, dualpipev, or all (a table; default 1f1b)\n"
    "  --stages P       pipeline devices (default 4); interleaved holds v stages per device, zb-v and dualpipev 2\n"
    "  --microbatches M micro-batches per iteration (default 8)\n"
    "  --v V            interleaved 1F1B's chunks per device (default 2)\n"
    "  --f F --b B --w W  one micro-batch on one device's share of the model: forward, whole backward (input and\n"
    "                   weight gradients, as DeepSeek-V3's Table 2 counts B) and its weight part (default 1, 2, 1)\n"
    "  --comm C         one send between devices (default 0)\n"
    "  --trace FILE     the timeline as a Chrome/Perfetto trace\n"
    "  --json           {schedule, makespan, bubble (idle per device), bubble_fraction, peak_inflight (per device),\n"
    "                   sends, published_bubble, passes: [{kind, device, stage, microbatch, start, end}]}\n";

}  // namespace

std::vector<Command> schedule_commands() {
  return {{"schedule", "a pipeline schedule (GPipe, 1F1B, interleaved, zero bubble, DualPipe) as a Gantt chart, its bubble and memory",
           "[--schedule NAME|all] [--stages P] [--microbatches M] [--v V] [--f F --b B --w W] [--comm C] [--trace FILE] [--json]",
           {{"schedule", "stages", "microbatches", "v", "f", "b", "w", "comm", "trace"}, {}},
           schedule_command,
           kScheduleHelp}};
}

}  // namespace autopar::cli
