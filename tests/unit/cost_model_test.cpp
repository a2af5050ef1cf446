// Unit tests of the calibrated cost model (cost_model.h), the pricing of a given plan and the
// published runs of `autopar validate`. Witnesses: the plain roofline worked by hand on an ideal
// GPU, the given-plan evaluator against the DP's own objective for the plan it picks, and every
// published run's measured iteration time (sources in core/operations/validation.cpp).
#include <doctest/doctest.h>

#include <cmath>

#include "cluster_spec.h"
#include "cost_model.h"
#include "inter_op.h"
#include "inter_operation.h"
#include "models.h"
#include "validation.h"

using namespace autopar;

namespace {

// A linear op of a 1-layer model: [batch, in] x [in, out].
Graph linear_graph(int64_t batch, int64_t width) {
  return load_model("mlp:layers=1,batch=" + std::to_string(batch) + ",in=" + std::to_string(width) + ",hidden=" + std::to_string(width) +
                    ",out=" + std::to_string(width))
      .value();
}

}  // namespace

TEST_CASE("an ideal GPU prices the plain datasheet roofline; a calibrated one derates it") {
  const Cluster lecture = load_cluster("lecture:1x1").value();
  const Graph g = linear_graph(4096, 4096);
  const Op& op = g.ops[0];
  REQUIRE(op.spec.kind == OpKind::linear);
  // By hand: launch + max(FLOPs / peak, bytes / bandwidth).
  const GpuSpec& p = lecture.gpu;
  const double by_hand = p.kernel_overhead_us * 1e-3 + std::max(op.forward_flops / (p.peak_tflops * 1e9), double(op.forward_bytes()) / (p.memory_bandwidth_gb_per_s * 1e6));
  CHECK(op_forward_ms(p, op, 1.0) == doctest::Approx(by_hand).epsilon(1e-12));

  GpuSpec a = load_cluster("a100:1x8,precision=mixed").value().gpu;
  CHECK(a.matmul_efficiency < 1);
  // A large GEMM reaches nearly the plateau; a small one much less (the size curve).
  const double big = 2.0 * 8192 * 8192 * 8192, small = 2.0 * 64 * 64 * 64;
  CHECK(achieved_flops_per_ms(a, big, true) / a.peak_flops_per_ms() > 0.99 * a.matmul_efficiency);
  CHECK(achieved_flops_per_ms(a, small, true) / a.peak_flops_per_ms() < 0.01);
  // Never above the peak, at any size.
  for (double f = 1; f < 1e16; f *= 7) CHECK(achieved_flops_per_ms(a, f, true) <= a.peak_flops_per_ms());
  CHECK(achieved_bytes_per_ms(a) == doctest::Approx(a.memory_bandwidth_bytes_per_ms() * 0.85));
  // Attention's score passes add b * heads * s^2 * bytes per pass to its traffic.
  const Graph t = load_model("transformer:layers=1,batch=2,seq=512,hidden=256,heads=4,dtype_bytes=2").value();
  const int attn = t.find_op("attn_1");
  REQUIRE(attn >= 0);
  const double extra = op_forward_traffic_bytes(a, t.ops[size_t(attn)], 1.0) - double(t.ops[size_t(attn)].forward_bytes());
  CHECK(extra == doctest::Approx(6.0 * 2 * 4 * 512 * 512 * 2));
  GpuSpec fused = a;
  fused.attention_score_passes = 0;
  CHECK(op_forward_traffic_bytes(fused, t.ops[size_t(attn)], 1.0) == double(t.ops[size_t(attn)].forward_bytes()));
  // The optimizer step: 28 bytes per Adam parameter at the achieved bandwidth.
  CHECK(optimizer_step_ms(a, 1e9, Optimizer::adam, Precision::mixed) ==
        doctest::Approx(a.kernel_overhead_ms() + 28e9 / achieved_bytes_per_ms(a)));
}

TEST_CASE("a 16-bit model trains on the FP16 peak even on a cluster left at FP32") {
  const Cluster c = load_cluster("a100:1x8").value();
  const Graph g16 = load_model("llama2-7b:layers=1,batch=1,seq=128").value();   // the preset defaults to 16-bit
  CHECK(training_precision(g16) == Precision::mixed);
  CHECK(cluster_for_model(c, g16).gpu.precision == Precision::mixed);
  const Graph g32 = load_model("llama2-7b:layers=1,batch=1,seq=128,dtype_bytes=4").value();
  CHECK(cluster_for_model(c, g32).gpu.precision == Precision::fp32);
}

TEST_CASE("the given-plan evaluator prices the DP's own plan at the DP's objective") {
  const Graph g = load_model("transformer:layers=8,batch=64,seq=256,hidden=512,heads=8,dtype_bytes=2").value();
  const Cluster c = load_cluster("a100:2x8,precision=mixed").value();
  InterOpOptions o;
  o.microbatches = 8;
  auto micro = microbatch_graph(g, 8);
  REQUIRE(micro.ok());
  auto table = stage_costs_from_model(micro.value(), c, o);
  REQUIRE(table.ok());
  for (bool boundaries : {true, false}) {
    auto plan = solve_inter_op(table.value(), 8, boundaries);
    REQUIRE(plan.ok());
    const auto& st = plan.value().stages;
    // Only plans on one sub-mesh shape can be given; the DP's plan here is one (checked).
    bool one_shape = true;
    for (const PipelineStage& s : st) one_shape = one_shape && s.submesh == st[0].submesh;
    if (!one_shape) continue;
    std::vector<std::pair<int, int>> stages;
    for (const PipelineStage& s : st) stages.push_back({s.first, s.last});
    int m = 0;
    while (!(table.value().submeshes[size_t(m)] == st[0].submesh)) ++m;
    // The DP chose each stage's memory option per position; the evaluator prices the table's
    // entries, so they are set to the plan's options first.
    StageCostTable chosen = table.value();
    apply_memory_options(chosen, plan.value());
    auto priced = evaluate_inter_op_plan(chosen, 8, stages, m, boundaries);
    REQUIRE(priced.ok());
    CHECK(priced.value().total_latency == plan.value().total_latency);
    CHECK(priced.value().t_max == plan.value().t_max);
    // Interleaving shrinks only the fill and drain: between the total / v and the total.
    auto v2 = evaluate_inter_op_plan(table.value(), 8, stages, m, boundaries, 2);
    REQUIRE(v2.ok());
    CHECK(v2.value().total_latency <= plan.value().total_latency);
    CHECK(v2.value().total_latency >= 8 * plan.value().t_max - 1e-9);
  }
  // Stages that do not tile the cluster are an error naming the plan.
  auto bad = evaluate_inter_op_plan(table.value(), 8, {{0, 7}}, 0, true);
  CHECK(!bad.ok());
}

TEST_CASE("inter --plan: parsing, the sub-mesh rules and uneven layer counts") {
  auto p = parse_given_plan("t=8,p=4,d=32,mbs=2,v=3");
  REQUIRE(p.ok());
  CHECK(p.value().tensor == 8);
  CHECK(p.value().pipeline == 4);
  CHECK(p.value().data == 32);
  CHECK(p.value().micro_batch_size == 2);
  CHECK(p.value().interleave == 3);
  CHECK(p.value().text() == "t=8,p=4,d=32,mbs=2,v=3");
  CHECK(!parse_given_plan("t=8,q=2").ok());
  CHECK(!parse_given_plan("t=8,t=2").ok());
  CHECK(!parse_given_plan("t=x").ok());
  CHECK(given_plan_microbatches(p.value(), 1792).value() == 28);
  CHECK(!given_plan_microbatches(p.value(), 1000).ok());

  const Graph g = load_model("transformer:layers=6,batch=32,seq=128,hidden=256,heads=4,dtype_bytes=2").value();
  const Cluster c = load_cluster("a100:1x8,precision=mixed").value();
  InterRequest r;
  r.microbatches = 4;
  r.plan = parse_given_plan("t=2,p=4,d=1").value();   // 6 layers do not split into 4 stages
  InterJob job(g, c, r);
  auto out = run_to_end(job);
  REQUIRE(!out.ok());
  CHECK(out.error().message.find("do not split evenly") != std::string::npos);
  r.plan = parse_given_plan("t=2,p=4,d=1,first=1,last=1").value();   // 1 + 2 + 2 + 1
  InterJob job2(g, c, r);
  auto ok = run_to_end(job2);
  REQUIRE(ok.ok());
  REQUIRE(ok.value().plan.stages.size() == 4);
  CHECK(ok.value().plan.stages[0].last == 0);
  CHECK(ok.value().plan.stages[1].last == 2);
  CHECK(ok.value().plan.stages[3].first == 5);
  r.plan = parse_given_plan("t=2,p=2,d=1").value();   // 4 GPUs of 8
  InterJob job3(g, c, r);
  CHECK(!run_to_end(job3).ok());
}

TEST_CASE("published runs: each plan predicted within 15% of its measured time, never above peak") {
  ValidateRequest request;
  request.search = false;
  auto v = run_validation(request);
  REQUIRE(v.ok());
  CHECK(v.value().rows.size() >= 10);
  for (const ValidationRow& row : v.value().rows) {
    INFO(row.run->name);
    // Issue 39's target for every row on a preset's own GPU. A row on a GPU variant the presets
    // do not describe (torchtitan's H100 96 GB at 500 W, whose peak its authors do not know) is
    // priced at the preset's peak, an upper bound on the variant's: it may only come out fast; so
    // may a row whose plan, as priced, does less work than the run did (priced_fast_because).
    if (row.run->gpu_variant.empty() && row.run->priced_fast_because.empty()) CHECK(std::abs(row.error()) <= 0.15);
    else CHECK(row.error() < 0);
    // The model's FLOPs over the predicted time never exceed the GPUs' peak.
    const Cluster c = published_run_cluster(*row.run).value();
    const Graph g = published_run_graph(*row.run).value();
    const double flops = 3.0 * g.total_forward_flops();   // forward + backward, without recomputation
    CHECK(flops / (row.predicted_s * 1e3) < double(c.num_devices()) * c.gpu.peak_flops_per_ms());
  }
  // Megatron-LM's formula by hand for its 1.7B row: 3.53 s at 137 TFLOP/s on 32 GPUs.
  CHECK(megatron_iteration_flops(512, 2048, 24, 2304, 51200) / (32 * 137e12) == doctest::Approx(3.53).epsilon(0.005));
  CHECK(v.value().median_abs_error <= 0.25);
  CHECK(v.value().held_out_rows >= 10);   // Korthikanti's 8, BLOOM, Alpa's MoE
  // Alpa's MoE formula by hand for its 8-GPU row (benchmark/util.py compute_moe_tflops with
  // checkpoint_activations): per token, a dense layer 4 (8h^2 + 4sh + 32h^2), a MoE layer
  // 4 (8h^2 + 4sh + 64h^2 + 2hE + 4S + 8hS), 8 of each, and 6hV for the vocabulary.
  const double h = 1024, s = 1024, tokens = 1024 * 1024.0;
  const double by_hand = tokens * (8 * 4 * (8 * h * h + 4 * s * h + 32 * h * h) +
                                   8 * 4 * (8 * h * h + 4 * s * h + 64 * h * h + 2 * h * 16 + 4 * 2048 + 8 * h * 2048) + 6 * h * 32000);
  CHECK(alpa_moe_iteration_flops(1024, 1024, 16, 1024, 2048, 32000, 16) == doctest::Approx(by_hand));
  CHECK(by_hand / (8 * 45.76e12) == doctest::Approx(13.64).epsilon(0.005));
  auto unknown = run_validation(ValidateRequest{{"no-such-run"}, false});
  CHECK(!unknown.ok());
}

TEST_CASE("autopar's own plan is no slower than the published plan (small runs)") {
  auto v = run_validation(ValidateRequest{{"megatron-1.7B", "alpa-gpt-2.6b", "alpa-moe-2.4b"}, true});
  REQUIRE(v.ok());
  for (const ValidationRow& row : v.value().rows) {
    INFO(row.run->name);
    CHECK(row.searched);
    CHECK(row.best_s <= row.predicted_s * (1 + 1e-9));
    CHECK(!row.best.microbatch_search.empty());
  }
}

TEST_CASE("autopar's own plan is no slower than published interleaved plans: today's space chooses interleaving too") {
  // Before the planner could interleave, its 1F1B plans lost to these published plans' closed
  // form (sum / v + (B - 1/v) t_max): 530B SP + selective 39.9 s against 37.8 s, NeMo's 175B
  // on 512 H100 11.1 s against 10.8 s.
  auto v = run_validation(ValidateRequest{{"korthikanti-530B-sp-sel", "nemo-gpt3-175b-512", "megatron-145.6B"}, true});
  REQUIRE(v.ok());
  for (const ValidationRow& row : v.value().rows) {
    INFO(row.run->name);
    CHECK(row.run->plan.interleave > 1);
    CHECK(row.best_s <= row.predicted_s * (1 + 1e-9));
    CHECK(row.best.plan.interleave > 1);
    // Each chunk a layer at least, and the micro-batches a multiple of the stages (Megatron-LM's rule).
    const int p = int(row.best.plan.stages.size());
    CHECK(row.best.microbatches % p == 0);
    for (const PipelineStage& st : row.best.plan.stages) CHECK(st.last - st.first + 1 >= row.best.plan.interleave);
  }
}

TEST_CASE("validate bounds the search of runs over 256 GPUs to stages of the published plan's size") {
  auto v = run_validation(ValidateRequest{{"megatron-1.7B", "bloom-176b"}, true});
  REQUIRE(v.ok());
  REQUIRE(v.value().rows.size() == 2);
  const ValidationRow& free = v.value().rows[0];
  const ValidationRow& bloom = v.value().rows[1];
  CHECK(!free.bounded);
  CHECK(bloom.bounded);
  // BLOOM: t = 4, d = 8, so 32 GPUs (4 nodes of 8) a stage and 12 stages, each on its own
  // logical mesh; no slower than BLOOM's own plan.
  CHECK(bloom.best.plan.stages.size() == 12);
  for (const PipelineStage& st : bloom.best.plan.stages) CHECK(st.submesh == Submesh{4, 8});
  CHECK(bloom.best_s <= bloom.predicted_s * (1 + 1e-9));
  CHECK(v.value().to_text().find("--full-search") != std::string::npos);
}

TEST_CASE("Alpa's MoE row alternates mixture-of-experts and dense layers, as alpa/model/moe.py does") {
  const PublishedRun* moe = nullptr;
  for (const PublishedRun& r : published_runs())
    if (r.name == "alpa-moe-2.4b") moe = &r;
  REQUIRE(moe != nullptr);
  auto g = published_run_graph(*moe);
  REQUIRE(g.ok());
  int experts = 0, dense = 0;
  for (const Op& op : g.value().ops) {
    if (op.spec.kind == OpKind::moe) ++experts;
    if (op.spec.name.rfind("ffn1_", 0) == 0) {
      ++dense;
      CHECK(op.output.shape.back() == 8192);
    }
  }
  CHECK(experts == 8);
  CHECK(dense == 8);
  // Layer 1 keeps its experts, layer 2 is dense and its residual add reads the dense FFN.
  bool moe_1 = false, res2_2_reads_ffn = false;
  for (const Op& op : g.value().ops) {
    moe_1 = moe_1 || op.spec.name == "moe_1";
    if (op.spec.name == "res2_2") res2_2_reads_ffn = op.spec.inputs[1] == "ffn2_2";
  }
  CHECK(moe_1);
  CHECK(res2_2_reads_ffn);
}

TEST_CASE("inter --plan with schedule=: the plan priced under that schedule, its memory checked per stage") {
  auto p = parse_given_plan("t=2,p=4,d=1,schedule=ZB-H1");
  REQUIRE(p.ok());
  CHECK(p.value().schedule == ScheduleKind::zb_h1);
  CHECK(p.value().text() == "t=2,p=4,d=1,schedule=zb-h1");
  CHECK(parse_given_plan("t=2,schedule=zb-h3").error().message.find("dualpipev") != std::string::npos);

  const Graph g = load_model("transformer:layers=8,batch=32,seq=128,hidden=256,heads=4,dtype_bytes=2").value();
  const Cluster c = load_cluster("a100:1x8,precision=mixed").value();
  InterRequest r;
  r.microbatches = 8;
  r.plan = parse_given_plan("t=2,p=4,d=1").value();
  InterJob plain(g, c, r);
  auto closed = run_to_end(plain);
  REQUIRE(closed.ok());
  CHECK(closed.value().schedules.empty());
  double one_f_one_b = 0;
  for (ScheduleKind k : {ScheduleKind::one_f_one_b, ScheduleKind::zb_h1, ScheduleKind::zb_v}) {
    r.plan->schedule = k;
    InterJob job(g, c, r);
    auto out = run_to_end(job);
    REQUIRE(out.ok());
    REQUIRE(out.value().schedules.size() == 1);
    CHECK(out.value().plan.total_latency == out.value().schedules[0].total_ms);
    if (k == ScheduleKind::one_f_one_b) one_f_one_b = out.value().plan.total_latency;
    else CHECK(out.value().plan.total_latency < one_f_one_b);   // W > 0 fills the bubble
    CHECK(out.value().to_json()["schedule"] == schedule_name(k));
  }
  // The weight-gradient share of a transformer's backward: under a half (attention has no weights).
  CHECK(closed.value().weight_share > 0.3);
  CHECK(closed.value().weight_share < 0.5);
  // auto: every schedule simulated, the fastest that fits chosen and its makespan the total.
  r.plan->schedule.reset();
  r.schedule = "auto";
  InterJob all(g, c, r);
  auto best = run_to_end(all);
  REQUIRE(best.ok());
  CHECK(best.value().schedules.size() == all_schedule_kinds().size());
  for (const PlanScheduleRow& row : best.value().schedules)
    if (row.fits) CHECK(best.value().plan.total_latency <= row.total_ms);
  // A schedule whose rule the plan breaks: DualPipe needs >= 2 x 4 micro-batches.
  r.schedule = "";
  r.microbatches = 4;
  r.plan->schedule = ScheduleKind::dualpipe;
  InterJob dual(g, c, r);
  auto refused = run_to_end(dual);
  REQUIRE(!refused.ok());
  CHECK(refused.error().path == "--plan");
  CHECK(refused.error().message.find("DualPipe") != std::string::npos);
}
