// Tensor-, data- and pipeline-parallel groups of a device. See device_groups.h.
#include "device_groups.h"

#include "alpa_operations.h"
#include "mesh_position.h"

namespace autopar::web {
namespace {

// The device at index `i` (node by node) of a stage's sub-mesh.
int device_at(const PlacedStage& s, int i, int gpus_per_node) {
  return (s.first_node + i / s.gpus) * gpus_per_node + s.first_gpu + i % s.gpus;
}

}  // namespace

std::vector<PlacedStage> whole_cluster_stage(int nodes, int gpus_per_node, int mesh_rows, int mesh_cols) {
  return {PlacedStage{0, 0, nodes, gpus_per_node, mesh_rows, mesh_cols}};
}

std::vector<PlacedStage> plan_stages(const std::vector<PipelineStage>& stages, const std::vector<std::pair<int, int>>& places) {
  std::vector<PlacedStage> out;
  for (size_t k = 0; k < stages.size() && k < places.size(); ++k) {
    const Submesh& sm = stages[k].submesh;
    PlacedStage s{places[k].first, places[k].second, sm.nodes, sm.gpus, sm.nodes, sm.gpus};
    auto shape = parse_mesh_shape(stages[k].logical_mesh);
    if (shape.ok() && shape.value().first * shape.value().second == sm.devices()) {
      s.mesh_rows = shape.value().first;
      s.mesh_cols = shape.value().second;
    }
    out.push_back(s);
  }
  return out;
}

DevicePlace device_place(int device, int gpus_per_node, const std::vector<PlacedStage>& stages) {
  DevicePlace p;
  p.device = device;
  p.node = device / gpus_per_node;
  p.gpu = device % gpus_per_node;
  for (size_t k = 0; k < stages.size(); ++k) {
    const PlacedStage& s = stages[k];
    const int dn = p.node - s.first_node, dg = p.gpu - s.first_gpu;
    if (dn < 0 || dn >= s.nodes || dg < 0 || dg >= s.gpus) continue;
    p.stage = int(k);
    p.index_in_stage = dn * s.gpus + dg;
    p.mesh_row = p.index_in_stage / s.mesh_cols;
    p.mesh_col = p.index_in_stage % s.mesh_cols;
    break;
  }
  return p;
}

DeviceGroups device_groups(int device, int gpus_per_node, const std::vector<PlacedStage>& stages) {
  DeviceGroups g;
  g.place = device_place(device, gpus_per_node, stages);
  if (g.place.stage < 0) {
    g.tensor_parallel = g.data_parallel = {device};
    return g;
  }
  const PlacedStage& s = stages[size_t(g.place.stage)];
  for (int c = 0; c < s.mesh_cols; ++c) g.tensor_parallel.push_back(device_at(s, mesh_position_device(g.place.mesh_row, c, s.mesh_cols), gpus_per_node));
  for (int r = 0; r < s.mesh_rows; ++r) g.data_parallel.push_back(device_at(s, mesh_position_device(r, g.place.mesh_col, s.mesh_cols), gpus_per_node));
  // Stages of different sizes have no one-to-one pairing; wrapping the index keeps one device of
  // every stage in the group, as a micro-batch passes through every stage.
  for (const PlacedStage& other : stages)
    g.pipeline.push_back(device_at(other, g.place.index_in_stage % (other.nodes * other.gpus), gpus_per_node));
  return g;
}

std::string device_list_text(const std::vector<int>& devices) {
  std::string out;
  for (size_t i = 0; i < devices.size();) {
    size_t j = i;
    while (j + 1 < devices.size() && devices[j + 1] == devices[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    if (j - i >= 2) {
      out += std::to_string(devices[i]) + "-" + std::to_string(devices[j]);
      i = j + 1;
    } else {
      out += std::to_string(devices[i]);
      ++i;
    }
  }
  return out;
}

}  // namespace autopar::web
