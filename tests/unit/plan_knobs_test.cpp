// The plan knobs of issue 39 (`inter --plan ...,sp=1,recompute=selective,zero=1`): parsing,
// the in-flight micro-batches a stage holds, recomputation priced as given (the regression of
// the 175B example), sequence parallelism's communication and Korthikanti et al.'s
// activation memory per layer (arXiv 2205.05198, section 4).
#include <doctest/doctest.h>

#include <cmath>

#include "error_code_printing.h"
#include "cluster_spec.h"
#include "cost_model.h"
#include "device_mesh.h"
#include "inter_op.h"
#include "inter_operation.h"
#include "models.h"
#include "validation.h"

using namespace autopar;

namespace {

// `inter --plan TEXT` on a model and cluster, priced to the end.
Result<InterReport> price(const std::string& model, const std::string& cluster, const std::string& plan_text) {
  const Graph g = load_model(model).value();
  const Cluster c = load_cluster(cluster).value();
  InterRequest r;
  r.plan = parse_given_plan(plan_text).value();
  r.microbatches = given_plan_microbatches(*r.plan, model_batch(g)).value();
  InterJob job(g, c, r);
  return run_to_end(job);
}

// Stage k's activations of one micro-batch (per GPU), from the report's JSON.
double stage_activation_bytes(const InterReport& r, size_t k) {
  return r.to_json()["stages"][k]["memory"]["activation_bytes_per_microbatch"].get<double>();
}

}  // namespace

TEST_CASE("--plan: every key, remat as a synonym, and errors naming the key") {
  auto p = parse_given_plan("t=8,p=16,d=64,cp=1,ep=1,v=2,mbs=1,sp=1,recompute=selective,zero=1,first=3,last=5,schedule=1f1b");
  REQUIRE(p.ok());
  CHECK(p.value().tensor == 8);
  CHECK(p.value().pipeline == 16);
  CHECK(p.value().data == 64);
  CHECK(p.value().interleave == 2);
  CHECK(p.value().sequence_parallel);
  CHECK(p.value().recompute == Recompute::selective);
  CHECK(p.value().zero_stage == 1);
  CHECK(p.value().first_stage_layers == 3);
  CHECK(p.value().last_stage_layers == 5);
  // The text reads back to the same plan.
  auto again = parse_given_plan(p.value().text());
  REQUIRE(again.ok());
  CHECK(again.value().text() == p.value().text());
  CHECK(parse_given_plan("t=2,remat=0").value().recompute == Recompute::none);
  CHECK(parse_given_plan("t=2,remat=1").value().recompute == Recompute::full);
  CHECK(parse_given_plan("t=2").value().recompute == Recompute::full);   // Megatron-LM's published default
  CHECK(parse_given_plan("t=2,recompute=none").value().recompute == Recompute::none);
  CHECK(parse_given_plan("t=2").value().zero_stage == -1);
  auto message = [](const std::string& text) {
    auto r = parse_given_plan(text);
    REQUIRE(!r.ok());
    CHECK(r.error().path == "--plan");
    return r.error().message;
  };
  CHECK(message("t=8,q=2").find("'q' is unknown") != std::string::npos);
  CHECK(message("t=8,sp=2").find("sp is 0 or 1") != std::string::npos);
  CHECK(message("t=8,recompute=partial").find("none, selective or full") != std::string::npos);
  CHECK(message("t=8,zero=4").find("zero is 0, 1, 2 or 3") != std::string::npos);
  CHECK(message("t=8,remat=1,recompute=full").find("twice") != std::string::npos);
  CHECK(parse_given_plan("t=8,cp=2,ep=8").ok());   // priced since issue 39's cp/ep (context_expert_test.cpp)
  CHECK(message("t=1,sp=1").find("t=1") != std::string::npos);
}

TEST_CASE("in-flight micro-batches: 1F1B holds min(p - i, B) at stage i; Megatron's interleaved warm-up") {
  CHECK(inflight_microbatches(0, 8, 64, 1) == 8);
  CHECK(inflight_microbatches(6, 8, 64, 1) == 2);
  CHECK(inflight_microbatches(7, 8, 64, 1) == 1);
  CHECK(inflight_microbatches(0, 8, 4, 1) == 4);   // never more than there are micro-batches
  // v = 3, p = 8, stage 0: warm-up (8 - 0 - 1) * 2 + (3 - 1) * 8 = 30 chunks, + 1 in progress,
  // each a third of the stage: 31 / 3.
  CHECK(inflight_microbatches(0, 8, 64, 3) == doctest::Approx(31.0 / 3));
  // The last stage: 0 + 16 + 1 = 17 chunks; with B = 2 capped at 2 x 3 = 6 chunks, 2 stage-units.
  CHECK(inflight_microbatches(7, 8, 64, 3) == doctest::Approx(17.0 / 3));
  CHECK(inflight_microbatches(7, 8, 2, 3) == doctest::Approx(2.0));
}

TEST_CASE("issue 39's regression: remat=0 on 175B (t=8, p=8, d=1, mbs=1) is priced without recomputation") {
  // Under 1F1B stage i of 8 holds min(8 - i, 64) micro-batches; each stage's 12 layers keep
  // 4.5 GB per micro-batch beside 44 GB of model states on an 80 GB A100, so 8 fit on stage 1
  // and the later stages hold fewer: no stage needs recomputation (the old check reserved room
  // for one micro-batch per later layer, 84 on stage 1, and recomputed stages 1-7).
  auto r = price("transformer:layers=96,hidden=12288,heads=96,seq=2048,batch=64,vocab=51200,dtype_bytes=2", "a100:8x8,precision=mixed",
                 "t=8,p=8,d=1,mbs=1,remat=0");
  REQUIRE(r.ok());
  const Json j = r.value().to_json();
  REQUIRE(j["stages"].size() == 8);
  for (size_t k = 0; k < 8; ++k) {
    CHECK(j["stages"][k]["recompute"] == "none");
    CHECK(j["stages"][k]["remat"] == false);
    CHECK(j["stages"][k]["memory"]["inflight_microbatches"].get<double>() == double(8 - k));
  }
  // The same plan with full recomputation is slower: recomputation is priced, not free.
  auto full = price("transformer:layers=96,hidden=12288,heads=96,seq=2048,batch=64,vocab=51200,dtype_bytes=2", "a100:8x8,precision=mixed",
                    "t=8,p=8,d=1,mbs=1,remat=1");
  REQUIRE(full.ok());
  CHECK(full.value().plan.total_latency > 1.2 * r.value().plan.total_latency);
}

TEST_CASE("a given plan that does not fit is refused naming the stage (from 1) and the bytes") {
  // mbs = 4 without recomputation: 8 micro-batches of 4 x 4.5 GB on stage 1.
  auto r = price("transformer:layers=96,hidden=12288,heads=96,seq=2048,batch=64,vocab=51200,dtype_bytes=2", "a100:8x8,precision=mixed",
                 "t=8,p=8,d=1,mbs=4,remat=0");
  REQUIRE(!r.ok());
  CHECK(r.error().code == ErrorCode::infeasible);
  CHECK(r.error().path == "--plan");
  CHECK(r.error().message.find("stage 1 (layers 1-12)") != std::string::npos);
  CHECK(r.error().message.find("short by") != std::string::npos);
}

TEST_CASE("t x p x d that does not match the cluster is the fault named, not --microbatches") {
  const Graph g = load_model("transformer:layers=4,batch=8,seq=128,hidden=256,heads=4,dtype_bytes=2").value();
  const Cluster c = load_cluster("a100:1x8,precision=mixed").value();
  InterRequest r;   // 32 micro-batches by default: the batch of 8 does not split into them
  r.plan = parse_given_plan("t=4,p=1,d=1").value();
  InterJob job(g, c, r);
  auto out = run_to_end(job);
  REQUIRE(!out.ok());
  CHECK(out.error().path == "--plan");
  CHECK(out.error().message.find("t*p*d = 4") != std::string::npos);
}

TEST_CASE("sequence parallelism: reduce-scatter + all-gather move an all-reduce's bytes; less compute and memory") {
  // Ring collectives over n = 8: an all-reduce of B moves 2 (n - 1) / n B per device, a
  // reduce-scatter and an all-gather (n - 1) / n B each: the same bytes, one latency more.
  MeshAxis axis;
  axis.size = 8;
  axis.alpha = 0.005;
  axis.beta = 1e-6;
  const double bytes = 100e6;
  CHECK(reduce_scatter_cost(axis, bytes) + all_gather_cost(axis, bytes) == doctest::Approx(all_reduce_cost(axis, bytes) + axis.alpha));
  const std::string model = "transformer:layers=4,hidden=2048,heads=16,seq=2048,batch=1,vocab=0,dtype_bytes=2";
  auto tp = price(model, "a100:2x8,precision=mixed", "t=8,p=2,d=1,mbs=1,remat=0");
  auto sp = price(model, "a100:2x8,precision=mixed", "t=8,p=2,d=1,mbs=1,remat=0,sp=1");
  REQUIRE(tp.ok());
  REQUIRE(sp.ok());
  // LayerNorm and residual work split 8 ways: faster, never slower.
  CHECK(sp.value().plan.stages[0].latency < tp.value().plan.stages[0].latency);
  CHECK(stage_activation_bytes(sp.value(), 0) < stage_activation_bytes(tp.value(), 0));
}

TEST_CASE("activation memory per layer: Korthikanti et al. 2022, section 4, without the dropout terms") {
  // The built-in transformer has no dropout, so each formula loses Megatron's two dropout masks
  // (2sbh, 2sbh/t under SP) and attention's dropout (3as^2b of the 5as^2b). Stage 1 of
  // p = 2 holds layers 1-2 (no embedding: vocab = 0), so a layer is half the stage's bytes.
  const double s = 2048, b = 1, h = 2048, a = 16, t = 8, sbh = s * b * h;
  const std::string model = "transformer:layers=4,hidden=2048,heads=16,seq=2048,batch=1,vocab=0,dtype_bytes=2";
  auto layer_bytes = [&](const std::string& knobs) {
    auto r = price(model, "a100:2x8,precision=mixed", "t=8,p=2,d=1,mbs=1," + knobs);
    REQUIRE(r.ok());
    return stage_activation_bytes(r.value(), 0) / 2;
  };
  // Tensor parallelism (eq. 2): sbh(10 + 24/t + 5as/(ht)) -> sbh(8 + 24/t) + 2as^2b/t.
  CHECK(layer_bytes("remat=0") == doctest::Approx(sbh * (8 + 24 / t) + 2 * a * s * s * b / t));
  // Tensor + sequence parallelism (eq. 4): sbh/t (34 + 5as/h) -> sbh 32/t + 2as^2b/t.
  CHECK(layer_bytes("remat=0,sp=1") == doctest::Approx(sbh * 32 / t + 2 * a * s * s * b / t));
  // Selective recomputation with tensor + sequence parallelism (eq. 5): 34 sbh/t -> 32 sbh/t.
  CHECK(layer_bytes("recompute=selective,sp=1") == doctest::Approx(sbh * 32 / t));
  // Selective with tensor parallelism alone: sbh(10 + 24/t) -> sbh(8 + 24/t).
  CHECK(layer_bytes("recompute=selective") == doctest::Approx(sbh * (8 + 24 / t)));
  // Full recomputation (section 5): the layer's input, 2sbh; split t ways under SP.
  CHECK(layer_bytes("recompute=full") == doctest::Approx(2 * sbh));
  CHECK(layer_bytes("recompute=full,sp=1") == doctest::Approx(2 * sbh / t));
}

TEST_CASE("selective recomputation costs the attention core's forward once more: none < selective < full") {
  const std::string model = "transformer:layers=4,hidden=2048,heads=16,seq=2048,batch=1,vocab=0,dtype_bytes=2";
  auto latency = [&](const std::string& knobs) {
    auto r = price(model, "a100:2x8,precision=mixed", "t=8,p=2,d=1,mbs=1," + knobs);
    REQUIRE(r.ok());
    return r.value().plan.stages[0].latency;
  };
  const double none = latency("recompute=none"), selective = latency("recompute=selective"), full = latency("recompute=full");
  CHECK(none < selective);
  CHECK(selective < full);
  // Table 4 of the paper (22B): selective adds 1.3 ms to a 19.6 ms layer, full 7.6 ms; here the
  // attention core is a small part of a layer's forward too.
  CHECK(selective - none < 0.5 * (full - none));
}

TEST_CASE("one 22B layer against Korthikanti et al.'s Table 4 (forward + backward ms, t = 8, b = 4)") {
  // Table 4 (arXiv 2205.05198): one layer of the 22B model (h 6144, 64 heads, s 2048) on 8 A100
  // with t = 8: forward + backward 7.7 + 11.9 ms without recomputation, 7.2 + 13.1 with SP and
  // selective recomputation, 7.7 + 13.2 selective, 7.7 + 19.5 full. A layer's price is the stage's
  // latency with three layers less that with two (the embedding, head and loss cancel). No
  // constant was fitted on these timings.
  auto layer_ms = [](const std::string& knobs) {
    auto stage = [&](int layers) {
      auto r = price("transformer:layers=" + std::to_string(layers) + ",hidden=6144,heads=64,seq=2048,batch=4,vocab=51200,dtype_bytes=2",
                     "a100:1x8,precision=mixed", "t=8,p=1,d=1,mbs=4," + knobs);
      REQUIRE(r.ok());
      return r.value().plan.stages[0].latency;
    };
    return stage(3) - stage(2);
  };
  const double none = layer_ms("recompute=none"), full = layer_ms("recompute=full"), selective = layer_ms("recompute=selective"),
               sp_selective = layer_ms("recompute=selective,sp=1");
  CHECK(none == doctest::Approx(7.7 + 11.9).epsilon(0.12));
  CHECK(full == doctest::Approx(7.7 + 19.5).epsilon(0.12));
  CHECK(selective == doctest::Approx(7.7 + 13.2).epsilon(0.12));
  CHECK(sp_selective == doctest::Approx(7.2 + 13.1).epsilon(0.12));
  // What recomputation adds: the whole forward (7.6 ms measured) or the attention core alone
  // (1.3 ms: its two batched GEMMs and the softmax and dropout passes over the s x s scores,
  // which run as kernels of their own, so their times add).
  CHECK(full - none == doctest::Approx(19.5 - 11.9).epsilon(0.15));
  CHECK(selective - none == doctest::Approx(13.2 - 11.9).epsilon(0.25));
}

TEST_CASE("validate: Korthikanti Table 5's SP + selective rows are held out, its full-RC rows and the SC'21 rows fitted, and the summary splits them") {
  ValidateRequest request;
  request.search = false;
  request.names = {"korthikanti-22B-full", "korthikanti-22B-sp-sel", "megatron-1.7B"};
  auto report = run_validation(request);
  REQUIRE(report.ok());
  const ValidateReport& v = report.value();
  REQUIRE(v.rows.size() == 3);
  CHECK(v.held_out_rows == 1);
  for (const ValidationRow& r : v.rows) {
    CHECK(r.run->fitted == (r.run->name != "korthikanti-22B-sp-sel"));
    CHECK(std::abs(r.error()) < 0.15);
  }
  // SP + selective is faster than full recomputation, as measured (1.10 s against 1.42 s).
  CHECK(v.rows[1].predicted_s < v.rows[0].predicted_s);
  double held = 0;
  for (const ValidationRow& r : v.rows)
    if (!r.run->fitted) held = std::max(held, std::abs(r.error()));
  CHECK(v.held_out_max_abs_error == doctest::Approx(held));
  const Json j = v.to_json();
  CHECK(j.contains("median_abs_error"));
  CHECK(j.contains("mean_abs_error"));
  CHECK(j["held_out"]["rows"] == 1);
}

TEST_CASE("precision names: bf16 and fp16 are mixed precision; fp8 runs linear GEMMs at the FP8 peak, attention at BF16's") {
  // bf16 and fp16 keep their own names (they print back as typed) and train as mixed does.
  CHECK(parse_precision("bf16") == Precision::bf16);
  CHECK(parse_precision("fp16") == Precision::fp16);
  CHECK(is_mixed_precision(Precision::bf16));
  CHECK(is_mixed_precision(Precision::fp16));
  CHECK(parse_precision("mixed") == Precision::mixed);
  CHECK(parse_precision("fp8") == Precision::fp8);
  CHECK(!parse_precision("fp4"));
  CHECK(std::string(precision_name(Precision::fp8)) == "fp8");
  // FP8 keeps mixed precision's bytes per parameter (BF16 weights, FP32 master and moments).
  CHECK(state_bytes_per_param(Precision::fp8, Optimizer::adam).params == 2);
  CHECK(state_bytes_per_param(Precision::fp8, Optimizer::adam).optimizer == 12);
  const Graph g = load_model("transformer:layers=1,hidden=8192,heads=64,seq=4096,batch=8,vocab=0,dtype_bytes=2").value();
  const Op* linear = nullptr;
  const Op* attention = nullptr;
  for (const Op& op : g.ops) {
    if (op.name() == "ffn1_1") linear = &op;
    if (op.name() == "attn_1") attention = &op;
  }
  REQUIRE(linear);
  REQUIRE(attention);
  GpuSpec bf16 = load_cluster("a100:1x8,precision=bf16").value().gpu;
  GpuSpec fp8 = bf16;
  fp8.precision = Precision::fp8;
  // No FP8 peak on the GPU: FP8 is priced at the 16-bit peak.
  CHECK(op_forward_ms(fp8, *linear, 1.0) == doctest::Approx(op_forward_ms(bf16, *linear, 1.0)));
  // An FP8 peak twice the 16-bit one (as H100's 1,979 against 989 TFLOP/s): a large GEMM takes
  // half the time (compute-bound, launch aside); attention's batched products do not change.
  fp8.peak_tflops_fp8 = 2 * bf16.peak_tflops_fp16;
  const double launch = bf16.kernel_overhead_ms();
  CHECK(op_forward_ms(fp8, *linear, 1.0) - launch == doctest::Approx((op_forward_ms(bf16, *linear, 1.0) - launch) / 2).epsilon(0.01));
  CHECK(op_forward_ms(fp8, *attention, 1.0) == doctest::Approx(op_forward_ms(bf16, *attention, 1.0)));
  CHECK(op_train_ms(fp8, *attention, 1.0) == doctest::Approx(op_train_ms(bf16, *attention, 1.0)));
}

TEST_CASE("recompute_layers=N: Megatron's block method recomputes N of a stage's layers; memory and time between none and full") {
  // 175B on t = 8, p = 8: a middle stage holds 12 identical layers. Recomputing N of them keeps
  // N layer inputs and 12 - N layers' activations per micro-batch, and reruns N layers' forward.
  const std::string model = "transformer:layers=96,hidden=12288,heads=96,seq=2048,batch=64,vocab=51200,dtype_bytes=2";
  auto stage = [&](const std::string& knobs) {
    auto r = price(model, "a100:8x8,precision=mixed", "t=8,p=8,d=1,mbs=1," + knobs);
    REQUIRE(r.ok());
    const Json j = r.value().to_json();
    return std::make_pair(j["stages"][1]["memory"]["activation_bytes_per_microbatch"].get<double>(), j["stages"][1]["latency"].get<double>());
  };
  const auto none = stage("remat=0"), full = stage("recompute=full");
  for (int n : {4, 8}) {
    CAPTURE(n);
    const auto part = stage("recompute=full,recompute_layers=" + std::to_string(n));
    const double share = n / 12.0;
    CHECK(part.first == doctest::Approx(share * full.first + (1 - share) * none.first).epsilon(1e-9));
    CHECK(part.second == doctest::Approx(share * full.second + (1 - share) * none.second).epsilon(1e-9));
    CHECK(part.first < none.first);
    CHECK(part.second < full.second);
  }
  // N at least the stage's layers is full recomputation; v = 2 chunks of 6 layers: N per chunk.
  CHECK(stage("recompute_layers=12").first == doctest::Approx(full.first).epsilon(1e-12));
  auto v2 = price(model, "a100:8x8,precision=mixed", "t=8,p=8,d=1,mbs=1,v=2,recompute_layers=3");
  REQUIRE(v2.ok());
  CHECK(stage_activation_bytes(v2.value(), 1) == doctest::Approx(0.5 * full.first + 0.5 * none.first).epsilon(1e-9));
  CHECK(parse_given_plan("t=8,recompute_layers=4").value().text().find("recompute_layers=4") != std::string::npos);
  auto bad = parse_given_plan("t=8,remat=0,recompute_layers=4");
  REQUIRE(!bad.ok());
  CHECK(bad.error().message.find("recompute_layers=4") != std::string::npos);
  CHECK(bad.error().message.find("recompute=none") != std::string::npos);
}
