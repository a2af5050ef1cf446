// The page's compact text form of a FlexFlow strategy (the `strategy` field of getState,
// setState and share links): a named base strategy plus per-op edits,
//   BASE[;OP=DEGREES@DEVICES]...       e.g. "expert;fc6=1x4@4", "dp;conv2=4x1x1x1@0,2,5,7"
// BASE is dp, mp, expert or random:SEED (as on the CLI); DEGREES are the op's split degrees in
// its split_dims order joined by 'x' (empty for an op that cannot be split); DEVICES is "@F"
// for the consecutive block F, F+1, ... or an explicit comma-separated list; OP is the op's
// name, or "#INDEX" when the name holds one of ";=@#". No ImGui in here.
#pragma once
#include <string>

#include "cluster.h"
#include "graph.h"
#include "result.h"
#include "strategy.h"

namespace autopar::web {

// The base part of a strategy text: "expert;fc6=1x4@4" -> "expert".
std::string strategy_base(const std::string& text);

// True for dp, mp, expert and random:SEED (SEED: 1 to 18 digits).
bool is_named_strategy(const std::string& text);

// Resolves a strategy text on a graph and cluster: the base through the core's load_strategy,
// then each edit validated by validate_config. Errors name the path "strategy".
Result<Strategy> resolve_strategy(const std::string& text, const Graph& graph, const Cluster& cluster);

// The text of `strategy` relative to the named strategy `base`: the base, plus one edit for
// every op whose configuration differs from the base's. `base` must be a named strategy.
std::string encode_strategy(const std::string& base, const Strategy& strategy, const Graph& graph, const Cluster& cluster);

// One op's configuration in edit form: "1x4@4", "2x2@0,1,4,5", "@3".
std::string format_op_config(const OpConfig& config);

// Devices of a configuration, readable: "0-3", "0,2,5,7", "5".
std::string format_devices(const std::vector<int>& devices);

// Parses a device list "0,2,5,7" or a range "0-3" (whitespace allowed); nullopt-like empty
// Result error when malformed. Errors name `path`.
Result<std::vector<int>> parse_device_list(const std::string& text, const std::string& path);

}  // namespace autopar::web
