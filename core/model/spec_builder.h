// A small builder for ModelSpecs written in C++ (the built-in models, models.cpp, and the
// Hugging Face configs, hf_config.cpp), so both read like the reference models: one line an op.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph.h"

namespace autopar {

// Appends inputs and ops to a spec; each op's output tensor is named after the op.
class SpecBuilder {
 public:
  // A spec named `name` whose floats are `dtype`.
  SpecBuilder(std::string name, DType dtype) {
    spec_.name = std::move(name);
    spec_.dtype = dtype;
  }
  // Declares a model input (of the spec's float type unless `dtype`); returns its tensor name.
  std::string input(const std::string& name, Shape shape, std::optional<DType> dtype = std::nullopt) {
    spec_.inputs.push_back(Tensor{name, std::move(shape), dtype.value_or(spec_.dtype)});
    return name;
  }
  // Adds an op reading `inputs`; `weight_from` names the op whose table it reads as its weight
  // (tied embeddings). Returns its output tensor name.
  std::string op(OpKind kind, const std::string& name, std::vector<std::string> inputs, std::map<std::string, int64_t> attrs = {},
                 const std::string& activation = "none", const std::string& weight_from = "") {
    OpSpec o;
    o.name = name;
    o.kind = kind;
    o.inputs = std::move(inputs);
    o.output = name;
    o.attrs = std::move(attrs);
    o.activation = activation;
    o.weight_from = weight_from;
    spec_.ops.push_back(std::move(o));
    return name;
  }
  // The spec so far, for fields the builder does not set.
  ModelSpec& spec() { return spec_; }
  // The finished spec (the builder is empty afterwards).
  ModelSpec take() { return std::move(spec_); }

 private:
  ModelSpec spec_;
};

}  // namespace autopar
