// An exact memo of intra-op ILP solves. The stage costs solve many layers on many logical meshes,
// and some of those problems are the same numbers, bit for bit (a data-parallel-only layer on
// two logical meshes of one sub-mesh, a layer's batch-split plan equal to its own): about one
// solve in eight for Llama 3 405B on 16,384 H100s. GLPK is deterministic, so the stored answer is
// the one a new solve would give.
#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "intra_op_problem.h"

namespace autopar {

class IlpSolveCache {
 public:
  // The stored answer of a problem equal to `p` in every number (costs, memory, edges, budget)
  // and solved under the same time limit; null when none is stored.
  const IntraSolution* find(const IntraProblem& p, double time_limit_ms) const;
  // Keeps `solution` as the answer of `p`; once the stored problems hold `max_bytes`, nothing
  // more is kept (the memo only saves time; a miss solves again).
  void store(const IntraProblem& p, double time_limit_ms, const IntraSolution& solution);
  // Answers given from the memo so far.
  int hits() const { return hits_; }
  // Bytes of problems kept (their numbers).
  size_t bytes() const { return bytes_; }
  // The most bytes of problems kept: 64 MB, about 1,500 of 405B's layer problems.
  static constexpr size_t max_bytes = size_t(64) << 20;

 private:
  struct Entry {
    IntraProblem problem;
    double time_limit_ms = 0;
    IntraSolution solution;
  };
  std::unordered_multimap<uint64_t, Entry> entries_;
  size_t bytes_ = 0;
  mutable int hits_ = 0;
};

}  // namespace autopar
