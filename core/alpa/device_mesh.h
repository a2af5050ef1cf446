// Alpa's logical device mesh (Zheng et al., OSDI 2022, section 4): a 2-D view of the cluster's
// devices where each axis has a latency (alpha) and a per-byte cost (beta), and the costs of the
// collectives along an axis (INTERFACES.md "Alpa half").
#pragma once
#include <string>

#include "cluster.h"
#include "mesh_position.h"
#include "result.h"

namespace autopar {

// One mesh axis: n devices, latency alpha and per-byte cost beta (milliseconds when the mesh
// comes from a cluster, unitless when given with --alpha/--beta).
struct MeshAxis {
  int size = 1;
  double alpha = 0;
  double beta = 0;
  bool crosses_nodes = false;
  // Alpa's alpha-beta conventions (set by mesh_from_costs): each collective costs
  // round(alpha + beta * volume) plus a constant that breaks ties (all-gather 0.1, all-reduce
  // 0.01, reduce-scatter and all-to-all 0.001), and an all-to-all is charged Alpa's
  // penalty factor n/2, as in the ClusterEnvironment of Alpa's auto-sharding pass.
  bool alpa_convention = false;
};

// A logical R x C mesh; position (r, c) is device r * C + c.
struct DeviceMesh {
  MeshAxis axis[2];
  bool unitless = false;          // costs are plain numbers, not milliseconds
  int rows() const { return axis[0].size; }
  int cols() const { return axis[1].size; }
  int devices() const { return axis[0].size * axis[1].size; }
  // The device at position (r, c) (mesh_position.h).
  int device(int r, int c) const { return mesh_position_device(r, c, cols()); }
  // "2x4".
  std::string shape_string() const;
  // True when the costs follow Alpa's conventions (a mesh given by --alpha/--beta).
  bool alpa_conventions() const { return axis[0].alpa_convention; }
};

// Collectives along one axis; `bytes` is the per-device buffer B of INTERFACES.md (all-gather:
// the gathered output; reduce-scatter: its input; all-reduce and all-to-all: the buffer).
// Over an axis of one device they cost nothing. On an Alpa-convention axis (see MeshAxis) the
// all-to-all is a + b(n-1)/2*B (Alpa's a + b(n-1)/n^2 * nB * n/2) before rounding.
double all_reduce_cost(const MeshAxis& a, double bytes);
double all_gather_cost(const MeshAxis& a, double bytes);
double reduce_scatter_cost(const MeshAxis& a, double bytes);
double all_to_all_cost(const MeshAxis& a, double bytes);

// Alpa's penalty for keeping a parameter or model input replicated (its ILP adds it to the
// "R" strategy of every parameter): round(AllReduce(1 byte, axis 0) + AllReduce(1 byte, axis 1)),
// with Alpa's formula also on an axis of one device. 0 on a cluster mesh, which has no such term.
double replicated_penalty(const DeviceMesh& mesh);

// The mesh over a cluster's devices, numbered node by node: an axis whose devices all sit in
// one node pays the intra-node link, otherwise the inter-node link. R * C must equal the
// cluster's device count.
Result<DeviceMesh> mesh_from_cluster(int rows, int cols, const Cluster& cluster, const std::string& arg_path = "--mesh");

// A unitless mesh from per-axis latencies and per-byte costs ("a0,a1" and "b0,b1").
Result<DeviceMesh> mesh_from_costs(int rows, int cols, const std::string& alphas, const std::string& betas);

// Alpa's LogicalDeviceMesh.flatten (its force_data_parallel): every device on axis 0, both axes
// priced with the larger latency and the smaller per-byte cost of `m`'s axes.
DeviceMesh flattened_mesh(const DeviceMesh& m);

}  // namespace autopar
