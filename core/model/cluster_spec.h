// Parses cluster arguments: "PRESET:NxG" (N nodes of G GPUs) or a cluster JSON file.
#pragma once
#include <string>

#include "cluster.h"
#include "result.h"

namespace autopar {

// "lecture:2x4", "a100" (its default shape) or "FILE.json", optionally with the precision in
// use: "a100:4x8,precision=mixed", "FILE.json:precision=mixed"; errors name `arg_path`.
Result<Cluster> load_cluster(const std::string& text, const std::string& arg_path = "--cluster");
// The same without options: "lecture:2x4", "a100" or "FILE.json".
Result<Cluster> load_cluster_plain(const std::string& text, const std::string& arg_path = "--cluster");

// The spec string of a preset cluster ("lecture:2x4").
std::string cluster_spec_string(const Cluster& c);

}  // namespace autopar
