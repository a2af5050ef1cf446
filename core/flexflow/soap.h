// FlexFlow's SOAP search space (Jia et al., MLSys 2019, section 4): a configuration per op gives
// a degree for each of its split dimensions (Sample, Attribute, Parameter) and the device of each
// part (Operator placement); a strategy picks one configuration per op. Here: which
// configurations the space holds, its size, and the named strategies (dp, mp, expert, random).
// The strategy value, its checks and JSON are core/model/strategy.h; reading a strategy a front
// end names (a word or a file) is core/operations/strategy_argument.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "strategy.h"

namespace autopar {

// The configurations the search space allows for `op` on `num_devices` devices: power-of-two
// degrees that divide their dimension (the sample dimension also takes those up to its size
// that do not: balanced, uneven parts), whose product divides the device count, with the parts
// on an aligned block of consecutive devices. Ordered by degrees, then by block.
std::vector<OpConfig> enumerate_configs(const Op& op, int num_devices);

// Exact size of the strategy space (product of per-op counts) as a decimal string, and log10.
struct SpaceSize {
  std::vector<int64_t> configs_per_op;
  std::vector<int64_t> uneven_configs_per_op;   // of those, configs with a degree that does not divide its dimension
  std::string strategies;
  double log10_strategies = 0;
};
// Counts configurations per op and multiplies them exactly (arbitrary precision).
SpaceSize count_space(const Graph& g, int num_devices);

// Data parallel: every op split along its sample dimension over all devices (unevenly when the
// batch does not divide; over fewer only when there are fewer samples), parameters replicated.
Strategy data_parallel(const Graph& g, int num_devices);
// Model parallel (operator placement): each op whole on one device, ops spread round-robin
// in topological order so that consecutive layers sit on different GPUs.
Strategy model_parallel(const Graph& g, int num_devices);
// Which hand-written recipe the expert strategy follows, chosen by the model's ops.
enum class ExpertRecipe {
  cnn,          // FlexFlow paper's CNN recipe: convolutions data parallel, fully connected layers split by parameter in a node
  transformer,  // Megatron-LM's: each layer's matrix products split over a node's GPUs, data parallel across nodes
  dlrm,         // FlexFlow paper's DLRM recipe: each embedding table whole on its own GPU, the MLPs as in cnn
};
// The recipe a model gets: transformer when it has attention, dlrm when it has at least two
// embedding tables and no attention, cnn otherwise (plain MLPs included).
ExpertRecipe expert_recipe(const Graph& g);
// "cnn", "transformer" or "dlrm" (the name the CLI's JSON and the page show).
const char* expert_recipe_name(ExpertRecipe r);
// One line saying what the recipe does to which ops (English; the page translates by name).
const char* expert_recipe_summary(ExpertRecipe r);
// The expert strategy by expert_recipe(g):
// - cnn and dlrm (the FlexFlow paper's): convolutions and other ops data parallel, fully
//   connected layers split by parameter over the GPUs of one node (unevenly when the channels do
//   not divide); dlrm also puts each embedding table whole on its own device.
// - transformer (Megatron-LM, Shoeybi et al. 2019, as far as SOAP reaches): tensor parallel over
//   the GPUs of a node and data parallel across nodes. The first linear of each block (QKV,
//   FFN-in: Megatron's column-parallel) splits its output channels over the node; attention
//   splits its heads over the same GPUs; the second (attention-out, FFN-out: Megatron's
//   row-parallel) splits its output channels over the node too, since SOAP has no split of a
//   linear's input features (the reduction Megatron all-reduces), and so gathers its input
//   where Megatron all-reduces its output; embeddings and the output head split their channels
//   over the node; norms, residual adds and the loss stay data parallel over every GPU.
Strategy expert_strategy(const Graph& g, const Cluster& cluster);
// A uniformly random configuration per op from enumerate_configs.
Strategy random_strategy(const Graph& g, int num_devices, uint64_t seed);

}  // namespace autopar
