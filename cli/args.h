// Command-line parsing for the autopar CLI: a command, then --options with values and flags.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "request_fields.h"
#include "result.h"

namespace autopar::cli {

// What one command accepts: options that take a value, and flags that do not.
struct CommandSyntax {
  std::set<std::string> options;   // e.g. "model", "cluster"
  std::set<std::string> flags;     // e.g. "json", "table"
  size_t max_positional = 0;       // bare words after the command (e.g. a scenario name)
};

// A parsed command line.
struct Args {
  std::string command;
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;
  std::set<std::string> flags;
  // The value of --key, or nullopt.
  std::optional<std::string> get(const std::string& key) const;
  // True when --flag was given.
  bool has(const std::string& flag) const { return flags.count(flag) > 0; }
};

// Parses argv[2..] against `syntax`; an unknown option or a missing value is an Error whose
// path is the offending argument. `--json` is always accepted, and `--precision` by every
// command that takes --model (apply_precision).
Result<Args> parse_args(const std::string& command, const std::vector<std::string>& words, const CommandSyntax& syntax);

// The one place --precision fp32|tf32|mixed takes effect, for every command that loads a model
// and a cluster: the model's float width (dtype_bytes 2 for mixed, 4 otherwise) and the
// cluster's precision in use (its FP32, TF32 or FP16/BF16 tensor-core peak) are appended to the
// --model and --cluster specs (a missing --cluster is the commands' default lecture:2x4).
Status apply_precision(Args& a);

// --model as a graph (missing: an error naming --model).
Result<Graph> model_option(const Args& a);
// --cluster as a cluster, `fallback` when not given.
Result<Cluster> cluster_option(const Args& a, const std::string& fallback = "lecture:2x4");
// --key as a whole number (bad_value otherwise), `fallback` when not given. The bound is the
// request's (operation_requests.h validate), checked there.
Result<int64_t> whole_option(const Args& a, const std::string& key, int64_t fallback);
// --key as a finite number (bad_value otherwise), `fallback` when not given.
Result<double> number_option(const Args& a, const std::string& key, double fallback);
// A whole-number option no request holds (--gpus, --fine, --layers) within `bound`.
Result<int64_t> int_option(const Args& a, const std::string& key, int64_t fallback, WholeBound bound);
// --seed as a seed (kSeedBound), `fallback` when not given.
Result<uint64_t> seed_option(const Args& a, uint64_t fallback);
// --optimizer adam|sgd (default adam): whose state the memory per GPU counts.
Result<Optimizer> optimizer_option(const Args& a);
// --zero 0|1|2|3, `fallback` when not given.
Result<int> zero_option(const Args& a, int fallback);
// Writes an output file named by `option` (--trace, --taskgraph, ...).
Status write_file(const std::string& path, const std::string& text, const std::string& option);

}  // namespace autopar::cli
