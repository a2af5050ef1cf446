// A value typed into the page, brought into the bound the core checks it against (the bound of
// setState and the CLI: core/operations/request_fields.h, core/model/cluster.h), with the notice
// that says so when it had to be moved. Every clamp of the page goes through here, so none is
// silent and none uses a bound of its own. No ImGui in here.
#pragma once
#include <cstdint>
#include <string>

#include "request_fields.h"

namespace autopar::web {

// A typed value after clamping: the value used, and the notice when it differs from the typed one.
struct ClampedNumber {
  double value = 0;
  bool clamped = false;
  std::string notice;   // "beta -5 is outside 0 .. 1,000,000,000 (...): used 0." in the page's language; empty when not clamped
};
// A whole value after clamping (as ClampedNumber).
struct ClampedWhole {
  int64_t value = 0;
  bool clamped = false;
  std::string notice;
};

// `typed` brought into `bound` (NaN goes to the lower end); `field` names it in the notice.
ClampedNumber clamp_to_bound(double typed, NumberBound bound, const std::string& field);
// The same for whole numbers.
ClampedWhole clamp_to_bound(int64_t typed, WholeBound bound, const std::string& field);

// The largest number of nodes and of GPUs per node the core accepts (validate_cluster), each given
// the other: nodes x GPUs per node must stay within kMaxDevices.
WholeBound nodes_bound(int gpus_per_node);
WholeBound gpus_per_node_bound(int nodes);

// Nodes and GPUs per node as typed, brought into the core's bounds: GPUs per node first (its own
// bound), then nodes given those GPUs. The notice names each value moved and the cluster that
// results ("nodes 100000 is outside 1 .. 1,024 for 4 GPUs per node: used 1,024 (1,024 x 4 =
// 4,096 GPUs)."); empty when nothing moved.
struct ClampedShape {
  int nodes = 1, gpus_per_node = 1;
  bool clamped = false;
  std::string notice;
};
ClampedShape clamp_cluster_shape(int64_t typed_nodes, int64_t typed_gpus_per_node);

}  // namespace autopar::web
