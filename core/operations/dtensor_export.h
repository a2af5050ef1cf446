// The PyTorch DTensor export: Alpa's intra-op plan as torch >= 2.4 code, a named device mesh
// ("dp", "tp"), a torch.distributed.tensor.parallel plan (ColwiseParallel / RowwiseParallel per
// nn.Linear and nn.Embedding) over mesh["tp"], and every parameter's DTensor placements, one per
// mesh dim; the sharded parameters no parallel style places are placed with distribute_tensor.
#pragma once
#include <string>

#include "graph.h"
#include "intra_op.h"
#include "result.h"

namespace autopar {

// Ok when `device_type` can be init_device_mesh's device type (a torch device type name such as
// cuda, cpu, xpu, hpu or npu: a lowercase letter, then lowercase letters, digits or '_', at most
// 32), else the error naming `path`.
Status check_device_type(const std::string& device_type, const std::string& path = "--device-type");

// Python for torch >= 2.4: the plan of `g` on plan.mesh, its device mesh of type `device_type`
// (checked with check_device_type).
std::string export_dtensor(const Graph& g, const IntraOpPlan& plan, const std::string& title, const std::string& device_type = "cuda");

// A Python string literal of `s`: quotes and backslashes escaped, control characters dropped
// (every Python export writes names with it).
std::string python_string_literal(const std::string& s);

}  // namespace autopar
