// JSON reading and writing of models, clusters and errors (nlohmann_json without exceptions).
// Readers check types and ranges field by field and name the JSON path of the first problem.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "cluster.h"
#include "graph.h"
#include "result.h"

namespace autopar {

using Json = nlohmann::ordered_json;

// Parses JSON text; a syntax error becomes an Error with code "bad_json" naming `what`.
Result<Json> parse_json_text(const std::string& text, const std::string& what);
// Reads a whole file; an Error with code "io" when it cannot be read.
Result<std::string> read_text_file(const std::string& path);

// The model definition as JSON (inputs, ops with kind, inputs, output, shape, attrs).
Json model_to_json(const Graph& g);
// Reads a model definition; errors name the JSON path. Shapes are checked by build_graph.
Result<ModelSpec> model_from_json(const Json& j);

// A cluster as JSON in user units (TFLOP/s, GB/s, GiB, microseconds).
Json cluster_to_json(const Cluster& c);
// Reads a cluster in the units of cluster_to_json and validates it.
Result<Cluster> cluster_from_json(const Json& j);

// {"code","message","path"}, the code by its name.
Json error_to_json(const Error& e);
// Reads error_to_json's object back (a worker's reply). A missing or unknown code, which no
// autopar writes, becomes ErrorCode::internal with the text kept in the message; never fails.
Error error_from_json(const Json& j);

// Derived facts of every op: shapes, parameters, FLOPs, bytes, split dimensions.
Json ops_table_json(const Graph& g);

// Reads a non-negative decimal integer written with digits only ("8", not "+8", "8.0" or "");
// false when it is anything else or does not fit in 64 bits. Model overrides use it.
bool parse_whole_number(const std::string& s, int64_t& out);

// One item of a "key=value,key=value" option list; `has_value` is false for an item with no '='.
struct OptionItem {
  std::string key, value;
  bool has_value = false;
};
// Splits model and cluster options ("batch=8,seq=2048") at commas and each item at its first '=';
// empty items (",,") are skipped, so every caller reads options the same way.
std::vector<OptionItem> split_options(const std::string& text);
// What is wrong when a key is given twice with different values ("batch=8,batch=9": the later
// one used to win without a word), or "" when no key contradicts itself. --precision appends
// dtype_bytes and precision, so the message says so for those keys.
std::string conflicting_option(const std::vector<OptionItem>& items);

}  // namespace autopar
