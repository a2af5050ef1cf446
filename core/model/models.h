// The built-in models of INTERFACES.md, each a function of a few integer parameters, and the
// parser of model arguments: "NAME[:key=value,...]" or a JSON file.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "graph.h"
#include "result.h"

namespace autopar {

// One overridable parameter of a built-in model.
struct ModelParam {
  std::string key;
  int64_t default_value;
  int64_t min_value;
  int64_t max_value;
  std::string doc;
};

using ModelParams = std::map<std::string, int64_t>;

// A built-in model: a name, its parameters, and a builder from parameter values to a spec.
struct BuiltinModel {
  std::string name;
  std::string description;
  std::vector<ModelParam> params;      // always includes dtype_bytes
  std::function<ModelSpec(const ModelParams&)> build;
};

// All built-in models, in a fixed order.
const std::vector<BuiltinModel>& builtin_models();
// The built-in model with this name, or nullptr.
const BuiltinModel* find_builtin_model(const std::string& name);

// A built-in model named by a spec string, with every parameter's value (defaults filled in).
struct BuiltinChoice {
  const BuiltinModel* model = nullptr;
  ModelParams values;
};
// Parses "NAME[:key=value,...]" (unknown names and keys and out-of-range values are errors
// naming the valid ones, at `arg_path`); builds nothing.
Result<BuiltinChoice> parse_builtin_model(const std::string& text, const std::string& arg_path = "--model");

// Builds "NAME[:key=value,...]" (unknown keys and out-of-range values are errors naming the
// valid ones). `arg_path` names the argument in errors (e.g. "--model").
Result<ModelSpec> builtin_model_spec(const std::string& text, const std::string& arg_path = "--model");

// A model given as a file: "FILE.json" or "FILE.json:key=value,..." split into the file and its
// overrides. `is_file` is false for anything else (a built-in spec), with both parts empty.
struct ModelFileSpec {
  bool is_file = false;
  std::string file;        // "examples/models/hf/llama-3-8b.json"
  std::string overrides;   // "batch=16,seq=2048"; empty when none
};
ModelFileSpec split_model_file_spec(const std::string& text);

// Loads a model from a built-in spec string or a file: "FILE.json" or "FILE.json:key=value,..."
// (an autopar model file, or a Hugging Face config.json recognised by its model_type).
Result<Graph> load_model(const std::string& text);

// Loads a model from the text of a JSON file (the page's import and share links use this):
// an autopar model file (overrides: batch, dtype_bytes) or a Hugging Face config (overrides:
// batch, seq, dtype_bytes, layers). `label` names the file in messages; errors from overrides
// name `arg_path`.
Result<Graph> load_model_json(const std::string& text, const std::string& label, const std::string& overrides = "",
                              const std::string& arg_path = "--model");

}  // namespace autopar
