// Unit tests of the inter-op pass's candidate search: InterOpSolver skips runs of t_max
// candidates with bounds, and must give the plan of Alpa's plain enumeration (every candidate
// in increasing order, the F(s, k, d) recurrence over every stage choice and device count,
// stopping once (B - 1) * t_max >= the best total) bit for bit, ties included. The reference
// here is that enumeration written out directly, on tables too large for brute force. Also: the
// stage costs of a model whose head is tied to an embedding in another layer.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "error_code_printing.h"
#include "cluster_spec.h"
#include "inter_op.h"
#include "models.h"
#include "rng.h"

using namespace autopar;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The send lane as the header's boundary model defines it, written out: each of the n sending
// GPUs sends T / n; across nodes the min(n, G) of a node share its NICs.
double reference_send_ms(const StageCostTable& t, int cut, int n, bool inter) {
  LinkSpec link = inter ? t.inter_link : t.intra_link;
  const int streams = std::min(n, t.gpus_per_node);
  if (inter && streams > t.nics) link.bandwidth_gb_per_s *= double(t.nics) / double(streams);
  return 2 * link.transfer_ms(t.cut_bytes[size_t(cut)] / double(n));
}

// A stage's terms at a device offset, as the header's boundary model defines them; false when
// the sub-mesh does not fit there.
bool terms(const StageCostTable& t, bool boundaries, int k, int i, int m, int offset, double& sum, double& lane) {
  const size_t idx = t.index(k, i, m);
  const double compute = t.latency[idx];
  if (!boundaries) {
    sum = lane = compute;
    return true;
  }
  const Submesh& sm = t.submeshes[size_t(m)];
  if (!submesh_fits_at(t, sm, offset)) return false;
  double recv = 0, send = 0;
  if (k > 0) recv = boundary_cost(t, k - 1, sm.devices(), idx, boundary_crosses_nodes(t, offset)).recv_ms;
  if (i + 1 < t.layers) send = reference_send_ms(t, i, sm.devices(), boundary_crosses_nodes(t, offset + sm.devices()));
  sum = compute + recv + send;
  lane = std::max(compute + recv, send);
  return true;
}

struct Reference {
  bool found = false;
  double total = kInf, t_max = 0;
  std::vector<std::pair<int, int>> stages;   // (last layer, sub-mesh)
  std::vector<int> offsets;
};

// Alpa's enumeration, without any bound beyond its early stopping.
Reference alpa_enumeration(const StageCostTable& t, int B, bool boundaries) {
  boundaries = boundaries && t.has_boundaries;
  const int L = t.layers, D = t.nodes * t.gpus_per_node, M = int(t.submeshes.size()), S = std::min(L, D);
  // The candidates: every lane time a stage can have (its compute, plus receiving over either
  // link kind; its sends over either link kind).
  std::vector<double> cands;
  for (int k = 0; k < L; ++k)
    for (int i = k; i < L; ++i)
      for (int m = 0; m < M; ++m) {
        const size_t idx = t.index(k, i, m);
        if (!std::isfinite(t.latency[idx])) continue;
        cands.push_back(t.latency[idx]);
        if (boundaries && k > 0)
          for (bool inter : {false, true}) cands.push_back(t.latency[idx] + boundary_cost(t, k - 1, 1, idx, inter).recv_ms);
        if (boundaries && i + 1 < L)
          for (bool inter : {false, true}) cands.push_back(reference_send_ms(t, i, t.submeshes[size_t(m)].devices(), inter));
      }
  std::sort(cands.begin(), cands.end());
  cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
  auto at = [&](int s, int k, int d) { return (size_t(s) * size_t(L + 1) + size_t(k)) * size_t(D + 1) + size_t(d); };
  std::vector<double> F(size_t(S + 1) * size_t(L + 1) * size_t(D + 1));
  std::vector<std::pair<int, int>> arg(F.size());
  Reference best;
  for (double t_max : cands) {
    if (double(B - 1) * t_max >= best.total) break;
    std::fill(F.begin(), F.end(), kInf);
    F[at(0, L, 0)] = 0;
    for (int s = 1; s <= S; ++s)
      for (int k = L - 1; k >= 0; --k)
        for (int d = 1; d <= D; ++d)
          for (int i = k; i < L; ++i)
            for (int m = 0; m < M; ++m) {
              const int size = t.submeshes[size_t(m)].devices();
              const size_t idx = t.index(k, i, m);
              if (size > d || !(t.latency[idx] <= t_max)) continue;
              if (t.max_succ_stages[idx] >= 0 && t.max_succ_stages[idx] < s - 1) continue;
              double sum, lane;
              if (!terms(t, boundaries, k, i, m, D - d, sum, lane) || !(lane <= t_max)) continue;
              const double v = sum + F[at(s - 1, i + 1, d - size)];
              if (v < F[at(s, k, d)]) {
                F[at(s, k, d)] = v;
                arg[at(s, k, d)] = {i, m};
              }
            }
    for (int s = 1; s <= S; ++s) {
      const double total = F[at(s, 0, D)] + double(B - 1) * t_max;
      if (!(total < best.total)) continue;
      best = Reference{true, total, t_max, {}, {}};
      for (int r = s, k = 0, d = D; r >= 1; --r) {
        const auto [i, m] = arg[at(r, k, d)];
        best.stages.push_back({i, m});
        best.offsets.push_back(D - d);
        d -= t.submeshes[size_t(m)].devices();
        k = i + 1;
      }
    }
  }
  return best;
}

// A random table on nodes x gpus: latencies from a few values (many ties), some entries
// missing, optional 1F1B limits, and boundary terms. `flat`: latencies that do not shrink on
// larger sub-meshes (more ties between plans).
StageCostTable random_table(Rng& rng, int L, int nodes, int gpus, bool memory, bool flat) {
  StageCostTable t;
  t.reset(L, nodes, gpus, alpa_submeshes(nodes, gpus));
  for (int f = 0; f < L; ++f)
    for (int l = f; l < L; ++l)
      for (int m = 0; m < int(t.submeshes.size()); ++m) {
        if (rng.below(6) == 0) continue;
        const size_t idx = t.index(f, l, m);
        t.latency[idx] = double(1 + rng.below(12)) * (l - f + 1) / (flat ? 1 : t.submeshes[size_t(m)].devices());
        if (memory) t.max_succ_stages[idx] = int(rng.below(4));
        t.recv_replicas[idx] = 1 + int(rng.below(3));
        t.recv_allgather_ms[idx] = double(rng.below(8)) / 4;
      }
  t.has_boundaries = true;
  for (int i = 0; i < L; ++i) t.cut_bytes[size_t(i)] = double(rng.below(3)) * 1e6;
  t.intra_link = {10, 8};
  t.inter_link = {50, 1};
  t.nics = 1 + int(rng.below(unsigned(gpus)));   // from one NIC per node to one per GPU
  return t;
}

}  // namespace

TEST_CASE("the bounded t_max search gives Alpa's ascending enumeration's plan, bit for bit") {
  Rng rng(29);
  int plans = 0, skipped = 0;
  for (int round = 0; round < 160; ++round) {
    const int L = 2 + int(rng.below(8)), nodes = 1 + int(rng.below(4)), gpus = round % 3 == 0 ? 8 : round % 3 == 1 ? 4 : 2;
    const StageCostTable t = random_table(rng, L, nodes, gpus, round % 2 == 1, round % 5 < 2);
    // One micro-batch makes the total the sum alone: equal totals at many candidates, where
    // the smaller t_max must win.
    const int B = round % 4 == 0 ? 1 : 1 + int(rng.below(40));
    for (bool boundaries : {true, false}) {
      CAPTURE(round);
      CAPTURE(boundaries);
      const Reference ref = alpa_enumeration(t, B, boundaries);
      auto plan = solve_inter_op(t, B, boundaries);
      REQUIRE(plan.ok() == ref.found);
      if (!ref.found) continue;
      ++plans;
      const InterOpPlan& p = plan.value();
      CHECK(same_bits(p.total_latency, ref.total));
      REQUIRE(p.stages.size() == ref.stages.size());
      for (size_t k = 0; k < p.stages.size(); ++k) {
        CHECK(p.stages[k].last == ref.stages[k].first);
        CHECK(p.stages[k].submesh == t.submeshes[size_t(ref.stages[k].second)]);
        CHECK(p.stages[k].device_offset == ref.offsets[k]);
      }
      CHECK(p.t_max_tried <= p.t_max_candidates);
      skipped += p.t_max_candidates - p.t_max_tried;
    }
  }
  CHECK(plans > 120);
  CHECK(skipped > 0);   // the bounds do skip candidates
}

TEST_CASE("the bounded t_max search on an infeasible table tries one candidate") {
  // Every stage needs more memory than 1F1B allows for the stages after it, and no single stage
  // covers both layers: no plan at any t_max, which the largest candidate shows at once.
  StageCostTable t;
  t.reset(2, 1, 2, alpa_submeshes(1, 2));
  for (int m = 0; m < 2; ++m) {
    t.latency[t.index(0, 0, m)] = 1 + m;
    t.latency[t.index(1, 1, m)] = 3 + m;
    t.max_succ_stages[t.index(0, 0, m)] = 0;
  }
  InterOpSolver solver(t, 4);
  auto plan = solver.finish();
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().code == ErrorCode::infeasible);
  CHECK(solver.rows_done() == solver.rows_per_candidate());
}

TEST_CASE("a head tied to an embedding in an earlier layer: the inter-op pass plans it (GPT-3's tied embeddings)") {
  // gpt3-175b ties lm_head to the token embedding wte; with 2 layers the head's layer does not
  // hold wte, so its slice keeps a copy of the table instead of failing to build.
  auto g = load_model("gpt3-175b:layers=2,batch=8,seq=64");
  REQUIRE(g.ok());
  Graph micro = microbatch_graph(g.value(), 8).value();
  InterOpOptions o;
  o.microbatches = 8;
  std::vector<std::pair<int, int>> layers;
  auto table = stage_costs_from_model(micro, load_cluster("a100:1x8").value(), o, &layers);
  REQUIRE(table.ok());
  REQUIRE(layers.size() == 2);
  // The tie crosses the cut: wte in the first layer, lm_head (weight_from wte) in the second.
  const int wte = micro.find_op("wte"), head = micro.find_op("lm_head");
  REQUIRE(wte >= 0);
  REQUIRE(head >= 0);
  CHECK(wte <= layers[0].second);
  CHECK(head >= layers[1].first);
  CHECK(micro.ops[size_t(head)].spec.weight_from == "wte");
  auto plan = solve_inter_op(table.value(), 8);
  REQUIRE(plan.ok());
  CHECK(std::isfinite(plan.value().total_latency));
}
