// FlexFlow on transformers as the page teaches it (issue 40, item 7): the expert strategy
// follows the model (Megatron's split for transformers, the paper's recipes for CNNs and DLRM),
// and the MCMC step records the inspector replays carry Metropolis-Hastings' own numbers.
#include <doctest/doctest.h>

#include <cmath>

#include "cluster_spec.h"
#include "mcmc.h"
#include "models.h"
#include "search_operation.h"
#include "simulator.h"
#include "soap.h"
#include "step_inspector.h"
#include "strategy_argument.h"

using namespace autopar;

namespace {

int op_index(const Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (g.ops[i].name() == name) return int(i);
  FAIL("no op " << name);
  return -1;
}

// The degree of `op`'s split dimension named `dim` under `c` (1 when it has none).
int degree_of(const Op& op, const OpConfig& c, const std::string& dim) {
  for (size_t j = 0; j < op.split_dims.size(); ++j)
    if (op.split_dims[j].name == dim) return c.degrees[j];
  return 1;
}

double simulate(const Graph& g, const Cluster& c, const Strategy& s) {
  TaskGraph tg(g, c, s);
  return simulate_full(tg);
}

}  // namespace

TEST_CASE("the expert recipe follows the model") {
  CHECK(expert_recipe(load_model("alexnet").value()) == ExpertRecipe::cnn);
  CHECK(expert_recipe(load_model("mlp3").value()) == ExpertRecipe::cnn);
  CHECK(expert_recipe(load_model("dlrm").value()) == ExpertRecipe::dlrm);
  CHECK(expert_recipe(load_model("transformer:layers=2").value()) == ExpertRecipe::transformer);
  CHECK(expert_recipe(load_model("transformer-chain").value()) == ExpertRecipe::transformer);
  CHECK(std::string(expert_recipe_name(ExpertRecipe::transformer)) == "transformer");
}

TEST_CASE("the expert strategy on a transformer is Megatron-shaped: tensor parallel in a node, data parallel across nodes") {
  const Graph g = load_model("transformer:layers=2").value();
  const Cluster c = load_cluster("lecture:4x8").value();
  const Strategy s = expert_strategy(g, c);
  REQUIRE(s.ops.size() == g.ops.size());
  std::vector<int> all(32);
  for (int k = 0; k < 32; ++k) all[size_t(k)] = k;
  for (int layer : {1, 2}) {
    const std::string l = std::to_string(layer);
    // Column-parallel (QKV, FFN-in) and, as near as SOAP gets, row-parallel (attention-out,
    // FFN-out): output channels over the 8 GPUs of a node, the batch over the 4 nodes.
    for (const char* name : {"qkv_", "ffn1_", "proj_", "ffn2_"}) {
      const int i = op_index(g, name + l);
      CAPTURE(g.ops[size_t(i)].name());
      CHECK(degree_of(g.ops[size_t(i)], s.ops[size_t(i)], "channel") == 8);
      CHECK(degree_of(g.ops[size_t(i)], s.ops[size_t(i)], "sample") == 4);
      CHECK(s.ops[size_t(i)].devices == all);
      // The last dimension varies fastest: GPUs 0-7 (node 0) hold one sample slice's 8 shards.
      CHECK(s.ops[size_t(i)].degrees.back() == 8);
    }
    const int attn = op_index(g, "attn_" + l);
    CHECK(degree_of(g.ops[size_t(attn)], s.ops[size_t(attn)], "heads") == 8);
    CHECK(degree_of(g.ops[size_t(attn)], s.ops[size_t(attn)], "sample") == 4);
    // Norms and adds: data parallel over every GPU.
    for (const char* name : {"ln1_", "res1_", "ln2_", "res2_"}) {
      const int i = op_index(g, name + l);
      CHECK(degree_of(g.ops[size_t(i)], s.ops[size_t(i)], "sample") == 32);
      CHECK(s.ops[size_t(i)].parts() == 32);
    }
  }
  for (size_t i = 0; i < g.ops.size(); ++i) CHECK(validate_config(g.ops[i], s.ops[i], 32, "x").ok());
}

TEST_CASE("the expert strategy beats data parallel on a transformer, and keeps the paper's recipe on AlexNet and DLRM") {
  {
    // Issue 40: AlexNet's recipe on every linear layer of a transformer made it 14.9x slower
    // than data parallel; Megatron's split is faster.
    const Graph g = load_model("transformer:layers=24").value();
    const Cluster c = load_cluster("lecture:4x8").value();
    const double expert = simulate(g, c, expert_strategy(g, c)), dp = simulate(g, c, data_parallel(g, 32));
    CAPTURE(expert);
    CAPTURE(dp);
    CHECK(expert < dp);
  }
  {
    // AlexNet on 2x4: the fully connected layers split by channel over node 0's 4 GPUs, the
    // convolutions data parallel on all 8 (the FlexFlow paper's expert strategy, unchanged).
    const Graph g = load_model("alexnet").value();
    const Cluster c = load_cluster("lecture:2x4").value();
    const Strategy s = expert_strategy(g, c);
    for (size_t i = 0; i < g.ops.size(); ++i) {
      const Op& op = g.ops[i];
      if (op.spec.kind == OpKind::linear) {
        CHECK(degree_of(op, s.ops[i], "channel") == 4);
        CHECK(s.ops[i].devices == std::vector<int>{0, 1, 2, 3});
      } else {
        CHECK(degree_of(op, s.ops[i], "sample") == 8);
      }
    }
    CHECK(simulate(g, c, s) < simulate(g, c, data_parallel(g, 8)));
  }
  {
    // DLRM: each table whole on its own GPU.
    const Graph g = load_model("dlrm").value();
    const Cluster c = load_cluster("lecture:2x4").value();
    const Strategy s = expert_strategy(g, c);
    int table = 0;
    for (size_t i = 0; i < g.ops.size(); ++i)
      if (g.ops[i].spec.kind == OpKind::embedding) {
        CHECK(s.ops[i].devices == std::vector<int>{table % 8});
        ++table;
      }
    CHECK(table == 8);
    CHECK(simulate(g, c, s) < simulate(g, c, data_parallel(g, 8)));
  }
}

TEST_CASE("MCMC step records carry the move, the costs and the acceptance probability min(1, exp(-rate x delta))") {
  const Graph g = load_model("dlrm").value();
  const Cluster c = load_cluster("lecture:2x4").value();
  SearchOptions o;
  o.beta = 50;   // a low beta: many worse proposals accepted, many rejected
  o.steps = 600;
  o.seed = 4;
  o.record_steps = 400;
  McmcSearch recorded(g, c, data_parallel(g, 8), o);
  recorded.step(o.steps);
  SearchOptions plain = o;
  plain.record_steps = 0;
  McmcSearch unrecorded(g, c, data_parallel(g, 8), plain);
  unrecorded.step(plain.steps);
  // Recording changes nothing of the chain.
  CHECK(recorded.result().best_ms == unrecorded.result().best_ms);
  CHECK(recorded.result().accepted == unrecorded.result().accepted);
  CHECK(unrecorded.step_records().empty());
  const auto& records = recorded.step_records();
  REQUIRE(records.size() == 400);
  const double rate = o.beta / records[0].current_cost;   // beta / cost(S0): the first proposal starts from S0
  int64_t last_step = 0, worse_accepted = 0, worse_rejected = 0;
  double chain_cost = records[0].current_cost;
  for (const McmcStep& r : records) {
    CHECK(r.step > last_step);
    last_step = r.step;
    CHECK(r.rate == doctest::Approx(rate).epsilon(1e-12));
    CHECK(r.current_cost == chain_cost);   // the chain's cost before each proposal
    const double expected = std::min(1.0, std::exp(-r.rate * r.delta_cost()));
    CHECK(r.probability == doctest::Approx(expected).epsilon(1e-12));
    if (r.delta_cost() <= 0) {
      CHECK(r.probability == 1.0);
      CHECK(r.draw == -1);
      CHECK(r.accepted);
    } else {
      REQUIRE(r.draw >= 0);
      CHECK(r.draw < 1);
      CHECK(r.accepted == (r.draw < r.probability));
      (r.accepted ? worse_accepted : worse_rejected)++;
    }
    if (r.move == McmcStep::Move::config) {
      REQUIRE(r.op >= 0);
      CHECK(r.from != r.to);
      CHECK(r.from.zero == r.to.zero);
    }
    if (r.accepted) chain_cost = r.proposed_cost;
  }
  CHECK(worse_accepted > 0);
  CHECK(worse_rejected > 0);
  // The page receives them through the worker's partials and reads them back field by field.
  for (size_t k = 0; k < records.size(); k += 37) {
    auto back = mcmc_step_from_json(mcmc_step_to_json(records[k]), int(g.ops.size()), 8, "r");
    REQUIRE(back.ok());
    CHECK(back.value().step == records[k].step);
    CHECK(back.value().op == records[k].op);
    CHECK(back.value().from == records[k].from);
    CHECK(back.value().to == records[k].to);
    CHECK(back.value().probability == records[k].probability);
    CHECK(back.value().draw == records[k].draw);
    CHECK(back.value().accepted == records[k].accepted);
  }
  CHECK(!mcmc_step_from_json(Json::array({1, 2}), int(g.ops.size()), 8, "r").ok());
  Json bad = mcmc_step_to_json(records[0]);
  bad[2] = 999;   // no such op
  CHECK(!mcmc_step_from_json(bad, int(g.ops.size()), 8, "r").ok());
}

TEST_CASE("the step inspector replays at its speed, one step at a time, and starts again for a new search") {
  using namespace autopar::web;
  StepInspector in;
  in.speed = 2;
  CHECK(inspector_tick(in, 10, 0.3) == 0);   // paused: nothing moves
  in.playing = true;
  CHECK(inspector_tick(in, 10, 0.3) == 0);   // 0.6 of a proposal
  CHECK(inspector_tick(in, 10, 0.3) == 1);   // 1.2: one, 0.2 carried
  CHECK(in.shown == 1);
  CHECK(inspector_tick(in, 10, 1.0) == 2);   // 2.2
  CHECK(in.shown == 3);
  CHECK(inspector_tick(in, 4, 5.0) == 1);    // at most one second's worth, and only what was received
  CHECK(in.shown == 4);
  inspector_step(in, 10);
  CHECK(!in.playing);
  CHECK(in.shown == 5);
  inspector_follow(in, 7);
  CHECK(in.shown == 0);
  inspector_step(in, 10);
  inspector_follow(in, 7);   // the same search: keeps its place
  CHECK(in.shown == 1);
}
