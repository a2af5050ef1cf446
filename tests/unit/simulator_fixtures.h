// Small hand-checkable inputs shared by the simulator's unit tests.
#pragma once
#include <cstdint>

#include <doctest/doctest.h>

#include "cluster.h"
#include "graph.h"

namespace autopar::test {

// A cluster with round numbers: 1e6 FLOP/ms, memory never the bottleneck, 10 us per kernel,
// links of 1000 bytes/ms without latency inside a node, 0.5 ms latency between nodes.
inline Cluster round_cluster(int nodes, int gpus) {
  Cluster c;
  c.name = "round";
  c.nodes = nodes;
  c.gpus_per_node = gpus;
  c.gpu = {"test GPU", 1e-3, 1e6, 16, 10};
  c.intra_node = {0, 1e-3};
  c.inter_node = {500, 1e-3};
  return c;
}

// x[batch, 8] -> a (linear 8->6, no bias) -> b (linear 6->2, no bias).
inline Graph two_linear_ops(int64_t batch) {
  ModelSpec m;
  m.name = "two";
  m.inputs = {Tensor{"x", {batch, 8}, DType::f32}};
  OpSpec a;
  a.name = "a"; a.kind = OpKind::linear; a.inputs = {"x"}; a.output = "ha"; a.attrs = {{"out_features", 6}, {"bias", 0}};
  OpSpec b;
  b.name = "b"; b.kind = OpKind::linear; b.inputs = {"ha"}; b.output = "hb"; b.attrs = {{"out_features", 2}, {"bias", 0}};
  m.ops = {a, b};
  auto g = build_graph(m);
  REQUIRE(g.ok());
  return g.value();
}

}  // namespace autopar::test
