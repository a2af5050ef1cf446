// A typed value brought into the core's bound, with a notice. See input_bounds.h.
#include "input_bounds.h"

#include <algorithm>
#include <cmath>

#include "cluster.h"
#include "format_units.h"
#include "page_strings.h"

namespace autopar::web {

ClampedNumber clamp_to_bound(double typed, NumberBound bound, const std::string& field) {
  ClampedNumber out;
  out.value = std::isnan(typed) ? bound.lo : std::clamp(typed, bound.lo, bound.hi);
  out.clamped = !(out.value == typed);
  if (out.clamped)
    out.notice = tr_fill("notice.clamped", {field, format_number(typed, 6), format_number(bound.lo, 6), format_number(bound.hi, 6),
                                            format_number(out.value, 6)});
  return out;
}

ClampedWhole clamp_to_bound(int64_t typed, WholeBound bound, const std::string& field) {
  ClampedWhole out;
  out.value = std::clamp(typed, bound.lo, bound.hi);
  out.clamped = out.value != typed;
  if (out.clamped)
    out.notice = tr_fill("notice.clamped", {field, format_whole(typed), format_whole(bound.lo), format_whole(bound.hi), format_whole(out.value)});
  return out;
}

WholeBound nodes_bound(int gpus_per_node) { return {1, kMaxDevices / std::max(1, gpus_per_node)}; }

WholeBound gpus_per_node_bound(int nodes) { return {1, std::min<int64_t>(kMaxGpusPerNode, kMaxDevices / std::max(1, nodes))}; }

ClampedShape clamp_cluster_shape(int64_t typed_nodes, int64_t typed_gpus_per_node) {
  ClampedShape out;
  const ClampedWhole gpus = clamp_to_bound(typed_gpus_per_node, WholeBound{1, kMaxGpusPerNode}, "GPUs per node");
  out.gpus_per_node = int(gpus.value);
  const WholeBound nb = nodes_bound(out.gpus_per_node);
  out.nodes = int(std::clamp<int64_t>(typed_nodes, nb.lo, nb.hi));
  out.clamped = gpus.clamped || out.nodes != typed_nodes;
  if (!out.clamped) return out;
  std::string what;
  if (gpus.clamped) what = gpus.notice;
  if (out.nodes != typed_nodes) {
    if (!what.empty()) what += " ";
    what += tr_fill("notice.clamped_nodes", {format_whole(typed_nodes), format_whole(nb.lo), format_whole(nb.hi),
                                             format_whole(out.gpus_per_node), format_whole(out.nodes)});
  }
  out.notice = what + " " + tr_fill("notice.clamped_shape", {format_whole(out.nodes), format_whole(out.gpus_per_node),
                                                              format_whole(int64_t(out.nodes) * out.gpus_per_node), format_whole(kMaxDevices)});
  return out;
}

}  // namespace autopar::web
