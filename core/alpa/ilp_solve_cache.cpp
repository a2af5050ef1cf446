// The exact memo of intra-op ILP solves. See ilp_solve_cache.h.
#include "ilp_solve_cache.h"

#include <cstring>

namespace autopar {

namespace {

// FNV-1a over the problem's numbers as bytes: equal problems hash equal (the lookup then
// compares every number, so a collision only costs a comparison).
uint64_t problem_hash(const IntraProblem& p, double time_limit_ms) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const void* data, size_t n) {
    const unsigned char* b = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) {
      h ^= b[i];
      h *= 1099511628211ull;
    }
  };
  auto mix_doubles = [&](const std::vector<double>& v) {
    const uint64_t n = v.size();
    mix(&n, sizeof n);
    mix(v.data(), v.size() * sizeof(double));
  };
  const uint64_t nodes = p.node_cost.size(), edges = p.edges.size();
  mix(&nodes, sizeof nodes);
  mix(&edges, sizeof edges);
  for (const auto& c : p.node_cost) mix_doubles(c);
  for (const auto& m : p.node_memory) mix_doubles(m);
  for (const auto& e : p.edges) {
    mix(&e.u, sizeof e.u);
    mix(&e.v, sizeof e.v);
    mix_doubles(e.cost);
  }
  mix(&p.memory_budget, sizeof p.memory_budget);
  mix(&time_limit_ms, sizeof time_limit_ms);
  return h;
}

// Equal bit for bit (memcmp, so -0 and 0 differ and NaNs compare by their bits, as GLPK would
// see different numbers).
bool same_doubles(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

bool same_problem(const IntraProblem& a, const IntraProblem& b) {
  if (a.node_cost.size() != b.node_cost.size() || a.node_memory.size() != b.node_memory.size() || a.edges.size() != b.edges.size() ||
      std::memcmp(&a.memory_budget, &b.memory_budget, sizeof a.memory_budget) != 0)
    return false;
  for (size_t v = 0; v < a.node_cost.size(); ++v)
    if (!same_doubles(a.node_cost[v], b.node_cost[v])) return false;
  for (size_t v = 0; v < a.node_memory.size(); ++v)
    if (!same_doubles(a.node_memory[v], b.node_memory[v])) return false;
  for (size_t k = 0; k < a.edges.size(); ++k)
    if (a.edges[k].u != b.edges[k].u || a.edges[k].v != b.edges[k].v || !same_doubles(a.edges[k].cost, b.edges[k].cost)) return false;
  return true;
}

size_t problem_bytes(const IntraProblem& p) {
  size_t n = 0;
  for (const auto& c : p.node_cost) n += c.size() * sizeof(double);
  for (const auto& m : p.node_memory) n += m.size() * sizeof(double);
  for (const auto& e : p.edges) n += e.cost.size() * sizeof(double);
  return n;
}

}  // namespace

const IntraSolution* IlpSolveCache::find(const IntraProblem& p, double time_limit_ms) const {
  const auto range = entries_.equal_range(problem_hash(p, time_limit_ms));
  for (auto it = range.first; it != range.second; ++it)
    if (std::memcmp(&it->second.time_limit_ms, &time_limit_ms, sizeof time_limit_ms) == 0 && same_problem(it->second.problem, p)) {
      ++hits_;
      return &it->second.solution;
    }
  return nullptr;
}

void IlpSolveCache::store(const IntraProblem& p, double time_limit_ms, const IntraSolution& solution) {
  const size_t n = problem_bytes(p);
  if (bytes_ + n > max_bytes) return;
  bytes_ += n;
  entries_.emplace(problem_hash(p, time_limit_ms), Entry{p, time_limit_ms, solution});
}

}  // namespace autopar
