// The comparison of lecture section 7 as a front end shows it: the numbers of `compare --json`
// (compare.h: FlexFlow's and Alpa's plans simulated by the same simulator) read once into typed
// rows, so that a page that received the report as JSON from its worker draws from structs, and
// a field missing from the report is an error naming it, never a silent 0.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "json_io.h"
#include "result.h"

namespace autopar {

// One plan's simulated iteration: makespan and its breakdown ("breakdown" of a compare half).
struct CompareBreakdown {
  double makespan_ms = 0;
  double compute_ms = 0, activation_transfer_ms = 0, param_sync_ms = 0;
  double activation_bytes = 0, param_sync_bytes = 0, peak_memory_bytes = 0;
};

// One op's SOAP configuration: its split degrees by dimension name and its devices.
struct OpPlacement {
  std::vector<std::pair<std::string, int64_t>> degrees;   // in the report's order (by name)
  std::vector<int> devices;
};

// One of Alpa's pipeline stages: layers, GPUs, logical mesh, latency, and the boundary to the next.
struct CompareStageRow {
  int first_layer = 0, last_layer = 0;      // the model's numbering
  int first_device = 0, last_device = 0;
  std::string logical_mesh;
  double latency = 0;
  bool has_boundary = false;                // false for the last stage
  double boundary_bytes = 0, boundary_ms = 0;
  bool boundary_inter_node = false;
};

// One op of the model under both plans.
struct CompareOpRow {
  std::string name;
  OpPlacement flexflow;                     // FlexFlow's configuration
  bool has_alpa = false;                    // Alpa's plan covers this op
  int alpa_stage = 0;
  std::string alpa_strategy, alpa_output_spec;
  bool has_alpa_placement = false;          // the report carries Alpa's sharding as SOAP configurations
  OpPlacement alpa;                         // that configuration
};

// Everything the Compare tab draws.
struct CompareSummary {
  CompareBreakdown flexflow, alpa;
  double search_elapsed_ms = 0;             // FlexFlow's planning (wall clock)
  int64_t search_steps = 0;
  int microbatches = 0;                     // Alpa's pipeline
  double pipeline_objective_ms = 0;         // the inter-op pass's total latency
  double pipeline_gpipe_ms = 0, pipeline_1f1b_ms = 0;   // its plan under the schedule model (0: not reported)
  double alpa_solve_ms = 0;                 // Alpa's planning (wall clock)
  std::string mesh;                         // "NxG", the cluster Alpa's stages tile
  std::vector<CompareStageRow> stages;
  std::vector<CompareOpRow> ops;
  // How many times faster the faster plan is (>= 1), and which: true when FlexFlow's (ties too).
  double speedup() const;
  bool flexflow_faster() const { return flexflow.makespan_ms <= alpa.makespan_ms; }
};

// Reads `compare --json` (compare_json's output) into the summary; errors name the JSON path.
Result<CompareSummary> compare_summary_from_json(const Json& report);

// "sample 2 x channel 4 @ 0-7": the non-trivial degrees ("whole" when none) and the devices (one
// GPU, a consecutive range, or a list).
std::string placement_text(const OpPlacement& placement);

}  // namespace autopar
