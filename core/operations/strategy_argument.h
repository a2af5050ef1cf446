// A strategy as a front end names it (`--strategy`, a search's initial strategy, a scenario's,
// the page's strategy text): one of SOAP's named strategies or a strategy file.
#pragma once
#include <string>

#include "cluster.h"
#include "graph.h"
#include "result.h"
#include "strategy.h"

namespace autopar {

// "dp", "mp", "expert", "random:SEED" or a strategy file (.json); errors name `arg_path`.
Result<Strategy> load_strategy(const std::string& text, const Graph& g, const Cluster& cluster,
                               const std::string& arg_path = "--strategy");

}  // namespace autopar
