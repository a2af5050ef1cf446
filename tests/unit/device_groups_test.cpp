// Unit tests of web/device_groups (the Cluster panel's tensor-, data- and pipeline-parallel
// groups): hand-checked groups on the lecture's 2x4 cluster for the meshes 2x4, 4x2 and 1x8, the
// groups of an inter-op plan's stages, and that every grouping partitions the devices.
// web/device_groups.cpp is part of autopar_page_logic, which is built natively too.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "device_groups.h"

using namespace autopar;
using namespace autopar::web;

namespace {

using Devices = std::vector<int>;

// Every device's group of one kind, as a set of distinct groups: they must partition 0 .. n-1.
void check_partition(int nodes, int gpus, const std::vector<PlacedStage>& stages, Devices DeviceGroups::*kind) {
  const int n = nodes * gpus;
  std::set<Devices> groups;
  for (int d = 0; d < n; ++d) {
    Devices g = device_groups(d, gpus, stages).*kind;
    CHECK(std::find(g.begin(), g.end(), d) != g.end());
    std::sort(g.begin(), g.end());
    groups.insert(g);
  }
  int covered = 0;
  std::set<int> seen;
  for (const Devices& g : groups)
    for (int d : g) {
      ++covered;
      seen.insert(d);
    }
  CHECK(covered == n);          // no device in two groups
  CHECK(int(seen.size()) == n); // every device in one
}

}  // namespace

TEST_CASE("device groups: mesh 2x4 on 2 nodes x 4 GPUs") {
  // Device 5 is node 1, GPU 1; on the 2x4 mesh it is (5 / 4, 5 % 4) = (1, 1): its row (tensor
  // parallel, inside node 1) is 4..7 and its column (data parallel, across nodes) is 1 and 5.
  const auto stages = whole_cluster_stage(2, 4, 2, 4);
  const DeviceGroups g = device_groups(5, 4, stages);
  CHECK(g.place.node == 1);
  CHECK(g.place.gpu == 1);
  CHECK(g.place.stage == 0);
  CHECK(g.place.mesh_row == 1);
  CHECK(g.place.mesh_col == 1);
  CHECK(g.tensor_parallel == Devices{4, 5, 6, 7});
  CHECK(g.data_parallel == Devices{1, 5});
  CHECK(g.pipeline == Devices{5});   // one stage: no pipeline partners
  check_partition(2, 4, stages, &DeviceGroups::tensor_parallel);
  check_partition(2, 4, stages, &DeviceGroups::data_parallel);
}

TEST_CASE("device groups: other meshes of the same devices") {
  // 4x2: device 5 is (5 / 2, 5 % 2) = (2, 1); row 2 is {4, 5}, column 1 is {1, 3, 5, 7}.
  auto stages = whole_cluster_stage(2, 4, 4, 2);
  DeviceGroups g = device_groups(5, 4, stages);
  CHECK(g.place.mesh_row == 2);
  CHECK(g.place.mesh_col == 1);
  CHECK(g.tensor_parallel == Devices{4, 5});
  CHECK(g.data_parallel == Devices{1, 3, 5, 7});
  check_partition(2, 4, stages, &DeviceGroups::tensor_parallel);
  check_partition(2, 4, stages, &DeviceGroups::data_parallel);

  // 1x8: one row of all eight devices (tensor parallel across both nodes), columns of one.
  stages = whole_cluster_stage(2, 4, 1, 8);
  g = device_groups(6, 4, stages);
  CHECK(g.tensor_parallel == Devices{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(g.data_parallel == Devices{6});

  // 8x1: the other way round.
  stages = whole_cluster_stage(2, 4, 8, 1);
  g = device_groups(6, 4, stages);
  CHECK(g.tensor_parallel == Devices{6});
  CHECK(g.data_parallel == Devices{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("device groups: stages of an inter-op plan") {
  // `autopar inter --model alexnet --cluster lecture:2x4`: stage 0 on (1,4) as 1x4, stages 1 and
  // 2 on (1,2) as 1x2; first fit puts them at node 0 GPU 0, node 1 GPU 0 and node 1 GPU 2.
  std::vector<PipelineStage> plan(3);
  plan[0].submesh = {1, 4};
  plan[0].logical_mesh = "1x4";
  plan[1].submesh = {1, 2};
  plan[1].logical_mesh = "1x2";
  plan[2].submesh = {1, 2};
  plan[2].logical_mesh = "1x2";
  const auto stages = plan_stages(plan, {{0, 0}, {1, 0}, {1, 2}});
  REQUIRE(stages.size() == 3);
  CHECK(stages[2].first_node == 1);
  CHECK(stages[2].first_gpu == 2);
  CHECK(stages[2].mesh_cols == 2);

  // Device 5 (node 1, GPU 1) is index 1 of stage 1: tensor parallel with 4, alone on its column;
  // its pipeline partners are index 1 of stage 0 (device 1) and of stage 2 (device 7).
  DeviceGroups g = device_groups(5, 4, stages);
  CHECK(g.place.stage == 1);
  CHECK(g.place.index_in_stage == 1);
  CHECK(g.tensor_parallel == Devices{4, 5});
  CHECK(g.data_parallel == Devices{5});
  CHECK(g.pipeline == Devices{1, 5, 7});
  // Device 2 is index 2 of the four-device stage 0; the two-device stages wrap to index 0.
  g = device_groups(2, 4, stages);
  CHECK(g.tensor_parallel == Devices{0, 1, 2, 3});
  CHECK(g.pipeline == Devices{2, 4, 6});
  check_partition(2, 4, stages, &DeviceGroups::tensor_parallel);
  check_partition(2, 4, stages, &DeviceGroups::data_parallel);

  // Four stages of one node each on 4 x 8, each a 4x2 logical mesh: GPU g of every node forms a
  // pipeline group (Megatron's layout in section 6.3); device 13 is node 1, GPU 5 = (2, 1).
  std::vector<PipelineStage> four(4);
  for (auto& s : four) {
    s.submesh = {1, 8};
    s.logical_mesh = "4x2";
  }
  const auto by_node = plan_stages(four, {{0, 0}, {1, 0}, {2, 0}, {3, 0}});
  g = device_groups(13, 8, by_node);
  CHECK(g.place.stage == 1);
  CHECK(g.place.mesh_row == 2);
  CHECK(g.place.mesh_col == 1);
  CHECK(g.tensor_parallel == Devices{12, 13});
  CHECK(g.data_parallel == Devices{9, 11, 13, 15});
  CHECK(g.pipeline == Devices{5, 13, 21, 29});
  check_partition(4, 8, by_node, &DeviceGroups::pipeline);

  // A logical mesh that does not fit the sub-mesh falls back to the sub-mesh's own shape.
  four[0].logical_mesh = "3x3";
  CHECK(plan_stages(four, {{0, 0}})[0].mesh_rows == 1);
  CHECK(plan_stages(four, {{0, 0}})[0].mesh_cols == 8);
}

TEST_CASE("device groups: a device no stage covers") {
  const std::vector<PlacedStage> stages = {PlacedStage{0, 0, 1, 4, 1, 4}};
  const DeviceGroups g = device_groups(6, 4, stages);
  CHECK(g.place.stage == -1);
  CHECK(g.place.node == 1);
  CHECK(g.place.gpu == 2);
  CHECK(g.tensor_parallel == Devices{6});
  CHECK(g.data_parallel == Devices{6});
  CHECK(g.pipeline.empty());
}

TEST_CASE("device groups: device lists as text") {
  CHECK(device_list_text({}) == "");
  CHECK(device_list_text({5}) == "5");
  CHECK(device_list_text({4, 5}) == "4, 5");
  CHECK(device_list_text({0, 1, 2, 3}) == "0-3");
  CHECK(device_list_text({1, 3, 5, 7}) == "1, 3, 5, 7");
  CHECK(device_list_text({0, 1, 2, 8, 9, 12}) == "0-2, 8, 9, 12");
}
