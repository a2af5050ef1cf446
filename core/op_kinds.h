// Per-kind rules of the operator graph: which attributes an op kind takes, how many inputs it
// reads, and how its output shape, parameters, FLOPs and SOAP split dimensions follow from them.
#pragma once
#include <string>
#include <vector>

#include "graph.h"
#include "result.h"

namespace autopar {

// One integer attribute of a kind: its default (used when absent) or required when has_default
// is false, and its allowed range.
struct AttrRule {
  std::string key;
  bool has_default;
  int64_t default_value;
  int64_t min_value;
  int64_t max_value;
};

// The attributes a kind takes, in a fixed order.
const std::vector<AttrRule>& attr_rules(OpKind kind);

// Derives op.output, op.params, FLOPs, bytes and split dims from op.spec and op.inputs
// (already resolved). `path` is the op's JSON path ("ops[3]") for errors. Attributes absent
// from op.spec.attrs are filled with their defaults.
Status infer_op(Op& op, DType float_dtype, const std::string& path);

}  // namespace autopar
