// Command-line parsing for the autopar CLI: a command, then --options with values and flags.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

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
// path is the offending argument. `--json` is always accepted.
Result<Args> parse_args(const std::string& command, const std::vector<std::string>& words, const CommandSyntax& syntax);

}  // namespace autopar::cli
