// Inputs the unit tests load by name: a built-in model that must load, the lecture's small
// cluster with a chosen memory, and a file's bytes.
#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

#include "cluster.h"
#include "cluster_spec.h"
#include "graph.h"
#include "models.h"

namespace autopar::test {

// The model `spec` names (as --model takes it); the test stops with the loader's message when
// it does not load.
inline Graph model(const std::string& spec) {
  auto g = load_model(spec);
  REQUIRE_MESSAGE(g.ok(), (g.ok() ? "" : g.error().message));
  return g.value();
}

// The lecture's P100s, four in a node, with `gib` of memory each.
inline Cluster small_cluster(double gib) {
  Cluster c = load_cluster("lecture:1x4").value();
  c.gpu.memory_gib = gib;
  return c;
}

// The bytes of the file at `p` (empty when it cannot be read).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace autopar::test
