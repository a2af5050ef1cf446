// Which devices work together with one device under Alpa's plans (Zheng et al., OSDI 2022,
// sections 4-5), for the Cluster panel's drawing: its tensor-parallel group (the devices of its
// row of the logical mesh, along mesh axis 1), its data-parallel group (its mesh column, along
// axis 0) and its pipeline group (the device at the same position in every stage). The cluster
// is split into stages, each a sub-mesh of nodes x GPUs viewed as a logical mesh numbered like
// the core numbers them (core/alpa/inter_op.cpp: devices node by node inside the sub-mesh, position
// (r, c) is device r * C + c, core/model/mesh_position.h). No ImGui in here.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "pipeline_schedule.h"

namespace autopar::web {

// One pipeline stage on the cluster: a sub-mesh of `nodes` x `gpus` starting at node
// `first_node`, GPU `first_gpu`, viewed as a mesh_rows x mesh_cols logical mesh.
struct PlacedStage {
  int first_node = 0, first_gpu = 0;
  int nodes = 1, gpus = 1;
  int mesh_rows = 1, mesh_cols = 1;   // mesh_rows * mesh_cols == nodes * gpus
};

// The whole cluster as one stage on a rows x cols logical mesh: the intra-op plan's view (no
// pipeline). rows * cols must equal nodes * gpus_per_node.
std::vector<PlacedStage> whole_cluster_stage(int nodes, int gpus_per_node, int mesh_rows, int mesh_cols);

// The stages of an inter-op plan at `places` (per stage its first node and GPU, as
// place_submeshes gives them), each on its chosen logical mesh ("RxC"; the sub-mesh's own
// nodes x GPUs shape when that is missing or does not fit).
std::vector<PlacedStage> plan_stages(const std::vector<PipelineStage>& stages, const std::vector<std::pair<int, int>>& places);

// Where a device sits: its node and GPU, the stage holding it (-1: none, e.g. devices a plan
// leaves idle), its index inside that stage (node by node) and its logical mesh position.
struct DevicePlace {
  int device = 0, node = 0, gpu = 0;
  int stage = -1;
  int index_in_stage = 0;
  int mesh_row = 0, mesh_col = 0;
};

// The place of `device` on a nodes x gpus_per_node cluster split into `stages` (the first stage
// that covers it wins).
DevicePlace device_place(int device, int gpus_per_node, const std::vector<PlacedStage>& stages);

// A device's place and its three groups, each listing device numbers.
struct DeviceGroups {
  DevicePlace place;
  std::vector<int> tensor_parallel;   // its mesh row, by column (the device alone when it has no stage)
  std::vector<int> data_parallel;     // its mesh column, by row (the device alone when it has no stage)
  std::vector<int> pipeline;          // per stage, in stage order, the device at index_in_stage modulo the
                                      // stage's size; just the device when there is one stage; empty
                                      // when the device has no stage
};

// The groups of `device` on a cluster with `gpus_per_node` GPUs per node split into `stages`.
DeviceGroups device_groups(int device, int gpus_per_node, const std::vector<PlacedStage>& stages);

// Device numbers as short text, consecutive runs of three or more as ranges: "0-3, 8, 12".
std::string device_list_text(const std::vector<int>& devices);

}  // namespace autopar::web
