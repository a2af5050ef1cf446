// Context and expert parallelism in a given plan (issue 39: `inter --plan ...,cp=2,ep=8`).
//
// Context parallelism (cp): Megatron-Core's convention, a stage's GPUs are t x cp x d and each of
// the cp ranks of a group holds s / cp tokens of every sequence. Megatron splits a sequence into
// 2 cp chunks and gives rank i chunks i and 2 cp - 1 - i, so causal attention's work is even over
// the ranks (Megatron-Core's context parallel docs, docs/source/api-guide/context_parallel.rst).
// Everything but attention works on its own tokens, so a cp group prices as cp times as many
// sequences of s / cp tokens (context_parallel_graph) on a (d x cp) x t mesh, whose rows also
// reduce the gradients (Megatron reduces them over the data-parallel x context-parallel group).
// Attention's K and V go around the ring in cp - 1 steps (Liu et al. 2023, Ring Attention,
// arXiv 2310.01889), each transfer overlapped with the attention of the block in hand.
//
// Expert parallelism (ep): the experts of every MoE layer split over ep GPUs, each holding
// E / ep whole experts (Megatron-Core with --expert-tensor-parallel-size 1); tokens go to their
// experts' GPUs and back with two all-to-alls forward (dispatch, combine) and two backward.
#pragma once
#include <string>

#include "cluster.h"
#include "graph.h"
#include "result.h"

namespace autopar {

// The graph one context-parallel group plans on: every model input [b, s, ...] becomes
// [b * cp, s / cp, ...] (a rank's tokens are a sequence of their own for every op but
// attention, which solve_layer prices back to whole sequences). Errors name `arg_path` and the
// cp key when s does not split into 2 cp chunks or an input has no sequence dimension.
Result<Graph> context_parallel_graph(const Graph& microbatch, int cp, const std::string& arg_path = "--plan");

// The link of a group of `size` GPUs spaced `stride` apart in a stage's device order (TP
// innermost, then CP, then DP: Megatron-Core's rank order): NVLink when stride * size GPUs fit
// in one node, else the network, every GPU of a node sending at once over the node's NICs.
LinkSpec group_link(const Cluster& c, int stride, int size);

// Ring attention's exposed time for one pass: cp - 1 steps, each moving `step_bytes` to the
// next rank while the rank computes one block (`block_ms`); a step costs what its transfer
// outlasts the block, (cp - 1) * max(0, transfer_ms(step_bytes) - block_ms).
double ring_exposed_ms(int cp, double step_bytes, double block_ms, const LinkSpec& link);

// One all-to-all over `ep` GPUs on `link` when each holds `bytes` to redistribute: every GPU
// sends (ep - 1) / ep of them, latency + bytes (ep - 1) / ep / bandwidth (0 when ep is 1).
double expert_all_to_all_ms(int ep, double bytes, const LinkSpec& link);

// The experts of a model's MoE layers (the `experts` of its first moe op; 0 for a dense model).
int64_t model_experts(const Graph& g);

}  // namespace autopar
