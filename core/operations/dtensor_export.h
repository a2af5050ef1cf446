// The PyTorch DTensor export: Alpa's intra-op plan as a torch.distributed.tensor.parallel plan
// (ColwiseParallel / RowwiseParallel per module) and DTensor placements per parameter.
#pragma once
#include <string>

#include "graph.h"
#include "intra_op.h"

namespace autopar {

// Python: parallelize_module plan (ColwiseParallel / RowwiseParallel) and DTensor placements.
std::string export_dtensor(const Graph& g, const IntraOpPlan& plan, const std::string& title);

}  // namespace autopar
