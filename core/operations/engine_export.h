// Plans for the engines people train on: a PyTorch tensor-parallel plan with DTensor
// placements, JAX PartitionSpecs over named mesh axes, Megatron-LM flags, and a torchtitan
// pipeline schedule (1F1B) as CSV. Also the conversion of an Alpa intra-op plan into a FlexFlow
// strategy, so that both planners' plans can be simulated by the same simulator.
#pragma once
#include <string>

#include "cluster.h"
#include "compare.h"
#include "dtensor_export.h"   // export_dtensor, declared there since it has its own file
#include "graph.h"
#include "inter_op.h"
#include "intra_op.h"
#include "strategy.h"

namespace autopar {

// Python: jax.sharding Mesh and PartitionSpec per parameter and activation.
std::string export_jax(const Graph& g, const IntraOpPlan& plan, const std::string& title);
// Megatron-LM command-line flags for Alpa's pipeline plan of `g` on `devices` GPUs: the pipeline
// size from its stages, the tensor-parallel size from the stages' own intra-op plans on their
// logical meshes, the data-parallel size and batch flags that follow, and the model's own flags
// (from g.spec.arch when set) within Megatron-LM core_r0.14.0's argument rules (with a note where
// Megatron-LM cannot run the plan as it is or cannot build part of the model).
std::string export_megatron(const Graph& g, const AlpaPipelinePlan& plan, int devices, const std::string& title);
// torchtitan's pipeline schedule CSV: one row per stage, actions like 0F3 (stage 0, forward of
// micro-batch 3) in 1F1B order.
std::string export_torchtitan_schedule(int stages, int microbatches);

// The FlexFlow strategy closest to an Alpa plan on the cluster's full mesh: each op's output
// spec gives its degrees (a split of a reduced dimension, which SOAP cannot express, runs
// replicated instead), parts placed on the mesh positions the spec names.
Strategy alpa_plan_to_strategy(const Graph& g, const IntraOpPlan& plan);

}  // namespace autopar
