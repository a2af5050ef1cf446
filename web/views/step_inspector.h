// The Search tab's MCMC step inspector, without ImGui: a replay of the search's step records
// (McmcStep: proposed op, old -> new configuration, cost change, Metropolis-Hastings'
// acceptance probability, accepted or not) at a speed a class can follow, with play, pause and
// single steps. The chain itself runs at full speed in the worker; the inspector replays the
// records its first kInspectorRecordSteps proposals left (search_operation.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "graph.h"
#include "json_io.h"
#include "search_operation.h"

namespace autopar::web {

// Replay speeds offered, in proposals per second.
constexpr double kInspectorSpeeds[] = {0.5, 1, 2, 5, 10, 50};
constexpr int kInspectorSpeedCount = 6;

// Where the replay is: records [0, shown) have been shown, the last of them is the current one.
struct StepInspector {
  size_t shown = 0;           // records shown so far
  bool playing = false;       // advancing by itself at `speed`
  double speed = 2;           // proposals per second
  double carry = 0;           // the fraction of a proposal the clock has accumulated
  int64_t run = -1;           // the search the replay follows (SearchRun::generation; a new one starts it again)
};

// Advances a playing replay by `seconds` of wall time over `available` records (it stops at the
// last one received; more records let it go on); returns how many records it advanced.
size_t inspector_tick(StepInspector& inspector, size_t available, double seconds);
// Shows the next record, if there is one (Step); pauses the replay.
void inspector_step(StepInspector& inspector, size_t available);
// Starts the replay again from the first record when `run` is another search than the one followed.
void inspector_follow(StepInspector& inspector, int64_t run);

// One configuration as the inspector writes it: "sample=4 channel=8 @ 0-31" (degrees above 1,
// the GPUs), "whole @ 3", with " ZeRO 2" when a ZeRO stage is set.
std::string inspector_config_text(const Op& op, const OpConfig& c);
// The move: "qkv_3: sample=32 @ 0-31 -> sample=4 channel=8 @ 0-31", "qkv_3: ZeRO 0 -> 2",
// "recomputation on".
std::string inspector_move_text(const Graph& graph, const McmcStep& r);

// result().search.inspector: {records, shown, playing, speed, current: {step, move, op, from, to,
// current_cost, proposed_cost, delta_cost, rate, probability, draw, accepted} or null, recent:
// [the same for up to `recent` records before it, newest first]}.
Json inspector_json(const StepInspector& inspector, const std::vector<McmcStep>& records, const Graph& graph, size_t recent = 8);

}  // namespace autopar::web
