// Context and expert parallelism in a given plan (issue 39; core/alpa/context_expert.h):
// cp shards activations and work along the sequence and prices ring attention's K/V passes,
// ep shards the experts of MoE layers and prices the dispatch and combine all-to-alls; plans
// that cannot run say why, naming the key.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include "cluster_spec.h"
#include "context_expert.h"
#include "inter_op.h"
#include "inter_operation.h"
#include "memory_operation.h"
#include "models.h"
#include "operation_requests.h"
#include "worker_reply_json.h"
#include "worker_session.h"

using namespace autopar;

namespace {

const std::string kMixtral = std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/mixtral-8x7b.json:layers=2,seq=1024,batch=16";
const std::string kLlama = std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/llama-3-8b.json:layers=2,seq=1024,batch=16";

// `inter --plan TEXT` priced to the end (refuse_overflow false: `memory --plan`'s reading).
Result<InterReport> price(const std::string& model, const std::string& cluster, const std::string& plan_text) {
  const Graph g = load_model(model).value();
  const Cluster c = load_cluster(cluster).value();
  InterRequest r;
  r.plan = parse_given_plan(plan_text).value();
  r.microbatches = given_plan_microbatches(*r.plan, model_batch(g)).value();
  r.refuse_overflow = false;
  InterJob job(g, c, r);
  return run_to_end(job);
}

double stage_memory(const InterReport& r, const char* key) { return r.to_json()["stages"][0]["memory"][key].get<double>(); }

std::string error_of(const std::string& model, const std::string& cluster, const std::string& plan_text) {
  auto r = price(model, cluster, plan_text);
  REQUIRE(!r.ok());
  CHECK(r.error().path == "--plan");
  return r.error().message;
}

}  // namespace

TEST_CASE("cp= and ep= parse, print back, and reach the JSON report") {
  auto p = parse_given_plan("t=8,p=16,d=64,cp=2,ep=8,v=2,mbs=1,sp=1,recompute=selective,zero=1");
  REQUIRE(p.ok());
  CHECK(p.value().context == 2);
  CHECK(p.value().expert == 8);
  CHECK(parse_given_plan(p.value().text()).value().text() == p.value().text());
  auto r = price(kMixtral, "h100:1x8", "t=2,cp=2,d=2,ep=4,mbs=1,sp=1,recompute=selective");
  REQUIRE(r.ok());
  const Json j = r.value().to_json();
  CHECK(j["plan"]["context"] == 2);
  CHECK(j["plan"]["expert"] == 4);
  CHECK(j["stages"][0]["logical_mesh"] == "4x2");   // the d x cp ranks are the mesh's rows
}

TEST_CASE("cp=2 halves each GPU's activations against cp=1 on the same t and p (d x cp GPUs alike)") {
  // cp=1, d=2: each GPU keeps mbs whole sequences; cp=2, d=1: mbs halves of one. Every saved
  // tensor is per token except attention's scores, s x s per sequence without cp and
  // s / cp x s with it: half as well. Model states are those of a 2x2 mesh both times.
  for (const char* recompute : {"none", "selective", "full"}) {
    CAPTURE(recompute);
    auto one = price(kLlama, "h100:1x4", std::string("t=2,d=2,mbs=1,recompute=") + recompute);
    auto two = price(kLlama, "h100:1x4", std::string("t=2,cp=2,d=1,mbs=2,recompute=") + recompute);
    REQUIRE(one.ok());
    REQUIRE(two.ok());
    // Same sequences per data-parallel replica and step: mbs=2 on one replica of two cp ranks
    // is the tokens of mbs=1 on each of two replicas, so halving is per sequence held.
    const double a1 = stage_memory(one.value(), "activation_bytes_per_microbatch");
    const double a2 = stage_memory(two.value(), "activation_bytes_per_microbatch");
    CHECK(a2 == doctest::Approx(a1).epsilon(0.02));   // 2 half sequences = 1 whole one
    auto two_same = price(kLlama, "h100:1x4", std::string("t=2,cp=2,d=1,mbs=1,recompute=") + recompute);
    REQUIRE(two_same.ok());
    CHECK(stage_memory(two_same.value(), "activation_bytes_per_microbatch") == doctest::Approx(a1 / 2).epsilon(0.02));
    CHECK(stage_memory(two_same.value(), "state_bytes") == doctest::Approx(stage_memory(one.value(), "state_bytes")));
  }
}

TEST_CASE("ring attention: a step's transfer hides behind the block's attention, or shows by what it outlasts it") {
  LinkSpec link;
  link.latency_us = 0;
  link.bandwidth_gb_per_s = 100;   // 1e8 bytes per ms
  link.bus_efficiency = 1;
  // K and V of one step: 2 (K, V) x b 1 x s/cp 8192 x one KV head per GPU x head_dim 128 x 2 bytes = 4,194,304 bytes: 0.0419 ms.
  const double step = 2.0 * 1 * 8192 * 1 * 128 * 2;
  CHECK(link.transfer_ms(step) == doctest::Approx(0.04194304));
  CHECK(ring_exposed_ms(4, step, 0.05, link) == 0);                                          // 0.05 ms of attention per block hides it
  CHECK(ring_exposed_ms(4, step, 0.01, link) == doctest::Approx(3 * (0.04194304 - 0.01)));   // 3 steps of 0.0319 ms each
  CHECK(ring_exposed_ms(1, step, 0.0, link) == 0);                                           // no ring without cp
  const Cluster h100 = load_cluster("h100:2x8").value();
  CHECK(group_link(h100, 4, 2) == h100.intra_node);        // t=4, cp=2: 8 GPUs, one node
  CHECK(!(group_link(h100, 8, 2) == h100.intra_node));     // t=8, cp=2: the ring leaves the node
  // In a plan: attention's work grows as s^2 and K/V as s, so the ring shows at short sequences
  // across nodes and hides at long ones inside a node (the report's ring_exposed_ms per stage).
  auto exposed = [](const std::string& model, const std::string& cluster, const std::string& plan) {
    auto r = price(model, cluster, plan);
    REQUIRE(r.ok());
    return r.value().to_json()["stages"][0]["ring_exposed_ms"].get<double>();
  };
  // (On h100 every attention block costs at least the GEMM curve's fixed loss per kernel, which
  // outlasts a short sequence's K/V step; the lecture cluster's one 10 GbE NIC per node does not.)
  CHECK(exposed(kLlama, "lecture:2x4", "t=4,cp=2,d=1,mbs=1") > 0);
  CHECK(exposed(std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/llama-3-8b.json:layers=2,seq=32768,batch=16", "h100:1x8",
                "t=4,cp=2,d=1,mbs=1") == 0);
}

TEST_CASE("a plan whose cp does not split the sequence, or whose GPUs do not match, is refused naming the key") {
  CHECK(error_of(kLlama, "h100:1x8", "t=2,cp=3,d=1,mbs=1").find("GPUs") != std::string::npos);   // 6 of 8 GPUs
  const std::string odd = error_of(std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/llama-3-8b.json:layers=2,seq=1020,batch=16",
                                   "h100:1x8", "t=2,cp=4,d=1,mbs=1");
  CHECK(odd.find("cp=4") != std::string::npos);
  CHECK(odd.find("2*cp = 8") != std::string::npos);
  const std::string count = error_of(kLlama, "h100:2x8", "t=8,cp=2,d=2,mbs=1");
  CHECK(count.find("t*cp*p*d = 32") != std::string::npos);
  CHECK(count.find("16") != std::string::npos);
}

TEST_CASE("ep on Mixtral: each GPU keeps 1/ep of the expert weights' unsharded states; dense models and odd ep are refused") {
  // Mixtral 8x7B with 2 layers: 2 x 8 experts x (4096 x 2 x 14336 + 14336 x 4096) weights, all
  // on one stage of 8 GPUs; without ZeRO each weight keeps 16 bytes (BF16 weight and gradient,
  // FP32 master, momentum, variance).
  const double expert_elements = 2.0 * 8 * 3 * 4096 * 14336;
  double states[4] = {0, 0, 0, 0};
  for (int ep : {2, 4, 8}) {
    auto r = price(kMixtral, "h100:1x8", "t=1,d=8,ep=" + std::to_string(ep) + ",mbs=1,zero=0,recompute=full");
    REQUIRE(r.ok());
    states[ep / 4 + (ep == 8)] = stage_memory(r.value(), "state_bytes");   // 2 -> 0, 4 -> 1, 8 -> 3
  }
  CHECK(states[0] - states[1] == doctest::Approx(expert_elements * 16 * (1.0 / 2 - 1.0 / 4)).epsilon(1e-9));
  CHECK(states[1] - states[3] == doctest::Approx(expert_elements * 16 * (1.0 / 4 - 1.0 / 8)).epsilon(1e-9));
  // Under ZeRO-1 the optimizer state (12 bytes) is sharded over the 8 / ep GPUs holding the same
  // experts: E / ep x 12 / (8 / ep) = 12 E / 8 per GPU whatever ep; the 4 bytes of weight and
  // gradient still drop by ep.
  double zero1[2] = {0, 0};
  for (int ep : {2, 4}) {
    auto r = price(kMixtral, "h100:1x8", "t=1,d=8,ep=" + std::to_string(ep) + ",mbs=1,zero=1,recompute=full");
    REQUIRE(r.ok());
    zero1[ep / 4] = stage_memory(r.value(), "state_bytes");
  }
  CHECK(zero1[0] - zero1[1] == doctest::Approx(expert_elements * 4 * (1.0 / 2 - 1.0 / 4)).epsilon(1e-9));
  // What ZeRO-1 saves at a given ep is the rest of the layer's share plus the experts' optimizer
  // state, 12 E / ep unsharded against 12 E / 8 sharded: 12 E (1/2 - 1/4) more at ep=2 than at 4.
  CHECK((states[0] - zero1[0]) - (states[1] - zero1[1]) == doctest::Approx(expert_elements * 12 * (1.0 / 2 - 1.0 / 4)).epsilon(1e-9));
  CHECK(error_of(kLlama, "h100:1x8", "t=2,d=4,ep=2,mbs=1").find("dense") != std::string::npos);
  CHECK(error_of(kMixtral, "h100:1x8", "t=2,d=4,ep=16,mbs=1").find("8 experts") != std::string::npos);
  CHECK(error_of(kMixtral, "h100:1x4", "t=1,d=1,cp=1,p=4,ep=2,mbs=1").find("t*cp*d = 1") != std::string::npos);
}

TEST_CASE("ep's all-to-all: NVLink inside a node, the network (slower) once ep GPUs span nodes") {
  const Cluster eight = load_cluster("h100:2x8").value();
  const Cluster four = load_cluster("h100:4x4").value();
  const double bytes = 2.0 * 1024 * 4096 * 2;   // top_k 2 of 1,024 tokens' BF16 hidden states
  const double inside = expert_all_to_all_ms(8, bytes, group_link(eight, 1, 8));
  const double across = expert_all_to_all_ms(8, bytes, group_link(four, 1, 8));
  CHECK(group_link(eight, 1, 8) == eight.intra_node);
  CHECK(across > 2 * inside);   // a NIC (50 GB/s) against NVLink (450 GB/s)
  CHECK(expert_all_to_all_ms(8, bytes, eight.intra_node) ==
        doctest::Approx(eight.intra_node.latency_ms() + bytes * 7 / 8 / eight.intra_node.bandwidth_bytes_per_ms()));
  // In a plan: the same ep=8 over 4-GPU nodes prices its MoE layers' all-to-alls on the network.
  auto near = price(kMixtral, "h100:1x8", "t=1,d=8,ep=8,mbs=1,recompute=full");
  auto far = price(kMixtral, "h100:2x4", "t=1,d=8,ep=8,mbs=1,recompute=full");
  REQUIRE(near.ok());
  REQUIRE(far.ok());
  const double a2a_near = near.value().to_json()["stages"][0]["all_to_all_ms"].get<double>();
  const double a2a_far = far.value().to_json()["stages"][0]["all_to_all_ms"].get<double>();
  CHECK(a2a_near > 0);
  CHECK(a2a_far > 2 * a2a_near);
  CHECK(far.value().plan.total_latency > near.value().plan.total_latency);
}

TEST_CASE("the page's plan field reaches the same parser and pricing (worker request)") {
  const FieldPath path = json_field_path("request");
  auto request = inter_request_from_json(Json{{"microbatches", 16}, {"plan", "t=2,cp=2,d=2,ep=4,mbs=1,recompute=selective"}}, path);
  REQUIRE(request.ok());
  REQUIRE(request.value().plan);
  CHECK(request.value().plan->context == 2);
  CHECK(request.value().plan->expert == 4);
  WorkerSession s;
  // The page sends a model file's text beside its name (inputs.model_json), as the browser has no files.
  std::ifstream file(std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/mixtral-8x7b.json");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  s.message(Json{{"id", 1}, {"op", "start"}, {"operation", "inter"},
                 {"inputs", Json{{"model", "mixtral-8x7b.json:layers=2,seq=1024,batch=16"}, {"model_json", text}, {"cluster", "h100:1x8"}}},
                 {"request", Json{{"microbatches", 16}, {"plan", "t=2,cp=2,d=2,ep=4,mbs=1,recompute=selective"}}}}
                .dump());
  Json last;
  for (int guard = 0; guard < 100000; ++guard) {
    for (const WorkerReply& r : s.take_replies()) last = reply_json(r);
    if (!s.busy()) break;
    s.step(0);
  }
  INFO(last.dump());
  REQUIRE(last.contains("result"));
  auto direct = price(kMixtral, "h100:1x8", "t=2,cp=2,d=2,ep=4,mbs=1,recompute=selective");
  REQUIRE(direct.ok());
  CHECK(last["result"]["report"]["total_latency"] == direct.value().to_json()["total_latency"]);
  CHECK(last["result"]["report"]["plan"]["context"] == 2);
}
