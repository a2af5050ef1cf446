// Unit tests of the resumable inter-op pass (the page spreads it over frames): StageCostBuilder
// and InterOpSolver stepped in slices of any size give bit for bit what stage_costs_from_model
// and solve_inter_op give in one call, and their progress only moves forward and ends at its
// total; the page's planning job (web/alpa_view.h) gives the plan of the synchronous call.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "alpa_view.h"
#include "cluster_spec.h"
#include "inter_op.h"
#include "models.h"
#include "rng.h"

using namespace autopar;

namespace {

// Bit equality (a NaN or -0.0 would also be told apart), unlike ==.
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_table(const StageCostTable& a, const StageCostTable& b) {
  if (a.layers != b.layers || a.nodes != b.nodes || a.gpus_per_node != b.gpus_per_node || !(a.submeshes == b.submeshes) ||
      a.latency.size() != b.latency.size())
    return false;
  for (size_t k = 0; k < a.latency.size(); ++k)
    if (!same_bits(a.latency[k], b.latency[k])) return false;
  return a.max_succ_stages == b.max_succ_stages && a.logical_mesh == b.logical_mesh;
}

bool same_plan(const InterOpPlan& a, const InterOpPlan& b) {
  if (!same_bits(a.total_latency, b.total_latency) || !same_bits(a.t_max, b.t_max) || a.t_max_tried != b.t_max_tried ||
      a.t_max_candidates != b.t_max_candidates || a.stages.size() != b.stages.size())
    return false;
  for (size_t k = 0; k < a.stages.size(); ++k) {
    const PipelineStage &x = a.stages[k], &y = b.stages[k];
    if (x.first != y.first || x.last != y.last || !(x.submesh == y.submesh) || !same_bits(x.latency, y.latency) ||
        x.logical_mesh != y.logical_mesh)
      return false;
  }
  return true;
}

// Slice sizes 1, 2, 3 and random ones up to 9: many slices, of uneven sizes.
int slice_size(int k, Rng& rng) { return k < 3 ? k + 1 : 1 + int(rng.below(9)); }

// Steps a builder to the end in small slices, checking its progress after each one.
StageCostTable build_in_slices(const Graph& micro, const Cluster& cluster, const InterOpOptions& o, int* slices) {
  StageCostBuilder b(micro, cluster, o);
  Rng rng(3);
  CHECK(b.units_done() == 0);
  CHECK(b.units_total() > 0);
  int last = 0;
  *slices = 0;
  while (!b.step(slice_size(*slices, rng))) {
    ++*slices;
    CHECK(b.units_done() > last);   // every slice does work
    CHECK(b.units_done() < b.units_total());
    last = b.units_done();
  }
  ++*slices;
  CHECK(b.units_done() == b.units_total());
  CHECK(b.step(1));   // stepping a finished builder does nothing
  CHECK(b.units_done() == b.units_total());
  auto t = b.finish();
  REQUIRE(t.ok());
  return t.value();
}

// Steps a solver to the end in small slices, checking its progress after each one.
Result<InterOpPlan> solve_in_slices(const StageCostTable& table, int microbatches, int* slices) {
  InterOpSolver s(table, microbatches);
  Rng rng(5);
  int done = s.rows_done(), bound = s.rows_bound();
  CHECK(done == 0);
  *slices = 0;
  while (!s.done()) {
    s.step(slice_size(*slices, rng));
    ++*slices;
    CHECK(s.rows_done() >= done);    // forward only
    CHECK(s.rows_bound() <= bound);  // the estimate of the total only tightens
    CHECK(s.rows_done() <= s.rows_bound());
    done = s.rows_done();
    bound = s.rows_bound();
  }
  CHECK(s.rows_done() == s.rows_bound());
  return s.finish();
}

}  // namespace

TEST_CASE("stage costs and the pipeline plan, stepped in slices, equal the one-call results bit for bit") {
  struct Case {
    const char *model, *cluster;
    int microbatches;
    const char* mode;
  };
  const Case cases[] = {{"transformer:layers=4", "lecture:2x4", 8, "alpa"},
                        {"mlp", "lecture:2x4", 4, "alpa"},
                        {"alexnet", "lecture:1x8", 8, "alpa"},
                        {"transformer:layers=4", "lecture:2x4", 8, "intra-only"},
                        {"mlp", "lecture:2x4", 4, "inter-only"}};
  for (const Case& c : cases) {
    const std::string name = std::string(c.model) + " on " + c.cluster + ", " + c.mode;
    CAPTURE(name);
    Graph micro = microbatch_graph(load_model(c.model).value(), c.microbatches).value();
    const Cluster cluster = load_cluster(c.cluster).value();
    InterOpOptions o;
    o.microbatches = c.microbatches;
    o.mode = c.mode;
    std::vector<std::pair<int, int>> layers;
    auto whole = stage_costs_from_model(micro, cluster, o, &layers);
    REQUIRE(whole.ok());
    int cost_slices = 0;
    const StageCostTable sliced = build_in_slices(micro, cluster, o, &cost_slices);
    CHECK(cost_slices > 5);
    CHECK(same_table(sliced, whole.value()));
    CHECK(StageCostBuilder(micro, cluster, o).layers() == layers);

    auto plan = solve_inter_op(whole.value(), c.microbatches);
    REQUIRE(plan.ok());
    int dp_slices = 0;
    auto stepped = solve_in_slices(sliced, c.microbatches, &dp_slices);
    REQUIRE(stepped.ok());
    // intra-only has one candidate (the whole model on the whole cluster): a few rows; the
    // others try a few candidates (the bounds skip the rest) of a few rows each.
    CHECK(dp_slices > (o.mode == "intra-only" ? 0 : 2));
    CHECK(same_plan(stepped.value(), plan.value()));
  }
}

TEST_CASE("the stepped DP equals the one-call DP and brute force on random tables, feasible or not") {
  Rng rng(17);
  for (int round = 0; round < 40; ++round) {
    StageCostTable t;
    const int L = 1 + int(rng.below(6));
    t.reset(L, 2, 2, alpa_submeshes(2, 2));
    for (int f = 0; f < L; ++f)
      for (int l = f; l < L; ++l)
        for (int m = 0; m < 3; ++m) {
          if (rng.below(4) == 0) continue;   // some entries missing
          const size_t idx = t.index(f, l, m);
          t.latency[idx] = double(1 + rng.below(40)) * (l - f + 1) / t.submeshes[size_t(m)].devices();
          if (round % 2) t.max_succ_stages[idx] = int(rng.below(3));
        }
    const int B = 1 + int(rng.below(16));
    auto whole = solve_inter_op(t, B);
    auto bf = brute_force_inter_op(t, B);
    int slices = 0;
    auto stepped = solve_in_slices(t, B, &slices);
    REQUIRE(whole.ok() == stepped.ok());
    REQUIRE(whole.ok() == bf.ok());
    if (!whole.ok()) {
      CHECK(stepped.error().code == whole.error().code);
      continue;
    }
    CHECK(same_plan(stepped.value(), whole.value()));
    CHECK(whole.value().total_latency == doctest::Approx(bf.value().total_latency));
  }
}

TEST_CASE("the resumable passes report bad input like the one-call ones") {
  // No layers: the solver is done at once with the same error.
  StageCostTable empty;
  empty.reset(0, 1, 2, alpa_submeshes(1, 2));
  InterOpSolver s(empty, 4);
  CHECK(s.done());
  CHECK(s.rows_done() == s.rows_bound());
  auto plan = s.finish();
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().code == solve_inter_op(empty, 4).error().code);
  // finish() without stepping runs the work to the end.
  Graph micro = microbatch_graph(load_model("mlp").value(), 4).value();
  const Cluster cluster = load_cluster("lecture:1x4").value();
  InterOpOptions o;
  o.microbatches = 4;
  StageCostBuilder b(micro, cluster, o);
  auto t = b.finish();
  REQUIRE(t.ok());
  CHECK(b.done());
  CHECK(b.units_done() == b.units_total());
  CHECK(same_table(t.value(), stage_costs_from_model(micro, cluster, o).value()));
}

TEST_CASE("the page's planning job: a unit per frame gives plan_inter's plan; inputs changed mid-way restart it; Cancel stops it") {
  using namespace autopar::web;
  const Graph graph = load_model("transformer:layers=4").value();
  const Cluster cluster = load_cluster("lecture:2x4").value();
  AlpaInputs in{"transformer:layers=4", "lecture:2x4", "2x4", "auto", 8};
  InterOpView sync;
  plan_inter(sync, in, graph, cluster);
  REQUIRE(sync.plan);
  CHECK_FALSE(inter_planning(sync));
  CHECK(sync.timing.slices == 1);

  InterOpView view;
  start_inter_plan(view, in, graph, cluster);
  CHECK(inter_planning(view));
  CHECK(view.pending);
  CHECK(current_inter_plan(view, in) == nullptr);
  int64_t frame = 0;
  double progress = inter_plan_progress(view);
  CHECK(progress == 0);
  // A budget of 0 ms: one unit of work per frame.
  while (!advance_inter_plan(view, in, graph, cluster, 0, frame)) {
    CHECK_FALSE(advance_inter_plan(view, in, graph, cluster, 0, frame));   // once per frame
    ++frame;
    CHECK(inter_plan_progress(view) >= progress);
    CHECK(inter_plan_progress(view) <= 1);
    CHECK_FALSE(inter_plan_status(view).empty());
    progress = inter_plan_progress(view);
  }
  CHECK(frame > 30);   // the intra-op plans of the distinct layers on every logical mesh, and the DP's rows
  CHECK_FALSE(inter_planning(view));
  CHECK_FALSE(view.pending);
  CHECK(view.timing.slices == frame + 1);
  const InterOpPlan* plan = current_inter_plan(view, in);
  REQUIRE(plan != nullptr);
  CHECK(same_plan(*plan, *sync.plan));
  CHECK(view.layer_first_op == sync.layer_first_op);
  CHECK(view.layer_last_op == sync.layer_last_op);

  // Micro-batches changed while planning: the job starts again for the new inputs.
  start_inter_plan(view, in, graph, cluster);
  for (int k = 0; k < 20; ++k) advance_inter_plan(view, in, graph, cluster, 0, ++frame);
  AlpaInputs in4 = in;
  in4.microbatches = 4;
  while (!advance_inter_plan(view, in4, graph, cluster, 0, ++frame)) {}
  InterOpView sync4;
  plan_inter(sync4, in4, graph, cluster);
  REQUIRE(current_inter_plan(view, in4) != nullptr);
  CHECK(same_plan(*current_inter_plan(view, in4), *sync4.plan));
  CHECK(current_inter_plan(view, in) == nullptr);

  // Inputs changed back to those of the plan shown while planning others: the job stops.
  start_inter_plan(view, in, graph, cluster);
  advance_inter_plan(view, in, graph, cluster, 0, ++frame);
  CHECK_FALSE(advance_inter_plan(view, in4, graph, cluster, 0, ++frame));
  CHECK_FALSE(inter_planning(view));
  CHECK(current_inter_plan(view, in4) != nullptr);

  // Cancel: no job, the last plan stays; micro-batches that do not divide fail at the first step.
  start_inter_plan(view, in, graph, cluster);
  advance_inter_plan(view, in, graph, cluster, 0, ++frame);
  cancel_inter_plan(view);
  CHECK_FALSE(inter_planning(view));
  CHECK_FALSE(view.pending);
  CHECK(current_inter_plan(view, in4) != nullptr);
  CHECK_FALSE(advance_inter_plan(view, in, graph, cluster, 0, ++frame));
  AlpaInputs bad = in;
  bad.microbatches = 7;
  start_inter_plan(view, bad, graph, cluster);
  CHECK(advance_inter_plan(view, bad, graph, cluster, 0, ++frame));   // the worker's first step ends it
  CHECK_FALSE(inter_planning(view));
  REQUIRE(view.error);
  CHECK(view.error->path == "--microbatches");
}
