// The lecture's 1-D convolution demo (section 2.2): the same convolution split along Sample,
// Attribute (length) and Parameter (output channels) onto a few GPUs, each split computed
// numerically from only the data its parts hold and compared with the single-device result.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "graph.h"
#include "result.h"

namespace autopar {

// One way to split the convolution and what it costs per device.
struct Conv1dSplit {
  std::string name;                       // "sample 2 x parameter 2"
  int sample = 1, attribute = 1, parameter = 1;
  int64_t input_elements_per_device = 0;  // the most any part reads, halo included
  int64_t weight_elements_per_device = 0;
  int64_t halo_elements_per_device = 0;   // input read beyond the part's own positions
  int64_t output_elements_per_device = 0;
  int64_t sync_elements = 0;              // weight gradient each device must all-reduce (0 if not replicated)
  double max_abs_diff = 0;                // against the single-device result
};

// Every split of `gpus` (a power of two) into sample x attribute x parameter degrees, for the
// single conv1d op of `conv` (the conv1d model). Errors when gpus is not a power of two or a
// degree does not divide its dimension.
Result<std::vector<Conv1dSplit>> conv1d_splits(const Graph& conv, int gpus);

}  // namespace autopar
