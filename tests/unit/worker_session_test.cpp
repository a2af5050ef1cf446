// Unit tests of the pool's split of the stage costs and of the worker's message protocol
// (core/operations/worker_session.h): stage costs computed in shares of the pairs and merged
// equal the whole builder's table bit for bit (also through the parts' JSON); the worker's
// "inter" plan equals the InterJob's, whole or from parts; cancel and bad messages answer with
// errors that keep their code and path.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "cluster_spec.h"
#include "export_operation.h"
#include "inter_operation.h"
#include "memory_operation.h"
#include "models.h"
#include "scenarios.h"
#include "search_operation.h"
#include "worker_reply_json.h"
#include "worker_session.h"

using namespace autopar;

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every field of two tables, doubles to the bit.
bool same_table(const StageCostTable& a, const StageCostTable& b) {
  if (a.layers != b.layers || a.nodes != b.nodes || a.gpus_per_node != b.gpus_per_node || !(a.submeshes == b.submeshes) ||
      a.latency.size() != b.latency.size() || a.has_boundaries != b.has_boundaries || a.cut_bytes.size() != b.cut_bytes.size())
    return false;
  for (size_t k = 0; k < a.latency.size(); ++k)
    if (!same_bits(a.latency[k], b.latency[k]) || !same_bits(a.recv_allgather_ms[k], b.recv_allgather_ms[k])) return false;
  for (size_t k = 0; k < a.cut_bytes.size(); ++k)
    if (!same_bits(a.cut_bytes[k], b.cut_bytes[k])) return false;
  return a.max_succ_stages == b.max_succ_stages && a.logical_mesh == b.logical_mesh && a.zero_stage == b.zero_stage && a.remat == b.remat &&
         a.recv_replicas == b.recv_replicas && same_bits(a.intra_link.bandwidth_gb_per_s, b.intra_link.bandwidth_gb_per_s) &&
         same_bits(a.inter_link.latency_us, b.inter_link.latency_us);
}

// The replies of a session stepped until idle (a step of 0 ms does one unit per job).
std::vector<Json> run_session(WorkerSession& s, double budget_ms = 0) {
  std::vector<Json> out;
  for (int guard = 0; guard < 1000000; ++guard) {
    for (const WorkerReply& r : s.take_replies()) out.push_back(reply_json(r));
    if (!s.busy()) break;
    s.step(budget_ms);
  }
  return out;
}

// `j` without its wall-clock fields (solve_ms, elapsed_ms), at any depth.
Json without_wall_clock(const Json& j) {
  if (j.is_array()) {
    Json out = Json::array();
    for (const Json& v : j) out.push_back(without_wall_clock(v));
    return out;
  }
  if (!j.is_object()) return j;
  Json out = Json::object();
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "solve_ms" && it.key() != "elapsed_ms") out[it.key()] = without_wall_clock(it.value());
  return out;
}

Json start_message(int id, const std::string& operation, const std::string& model, const std::string& cluster, Json request) {
  return Json{{"id", id}, {"op", "start"}, {"operation", operation}, {"inputs", Json{{"model", model}, {"cluster", cluster}}}, {"request", request}};
}

}  // namespace

TEST_CASE("stage costs in shares of the pairs, merged, equal the whole table bit for bit (also through JSON)") {
  struct Case {
    const char* model;
    const char* cluster;
    int microbatches;
  };
  for (const Case c : {Case{"transformer:layers=4", "lecture:2x4", 8}, Case{"moe", "lecture:2x4", 4},
                       Case{"transformer:layers=6,hidden=512", "a100:2x8", 4}}) {
    CAPTURE(c.model);
    const Graph micro = microbatch_graph(load_model(c.model).value(), c.microbatches).value();
    const Cluster cluster = load_cluster(c.cluster).value();
    InterOpOptions o;
    o.microbatches = c.microbatches;
    StageCostBuilder whole(micro, cluster, o);
    auto table = whole.finish();
    REQUIRE(table.ok());
    for (int n : {1, 2, 3, 4, 7}) {
      CAPTURE(n);
      std::vector<StageCostPart> parts, read_back;
      int units = 0, reused = 0;
      for (int k = 0; k < n; ++k) {
        StageCostBuilder b(micro, cluster, o, k, n);
        auto part = b.finish_part();
        REQUIRE(part.ok());
        units += part.value().units;
        reused += part.value().reused;
        auto again = stage_cost_part_from_json(Json::parse(stage_cost_part_to_json(part.value()).dump()));
        REQUIRE(again.ok());
        parts.push_back(part.value());
        read_back.push_back(again.value());
      }
      CHECK(units == whole.units_total());
      CHECK(reused == whole.reused_solves());
      auto merged = merge_stage_cost_parts(parts);
      REQUIRE(merged.ok());
      CHECK(same_table(merged.value(), table.value()));
      auto merged_json = merge_stage_cost_parts(read_back);
      REQUIRE(merged_json.ok());
      CHECK(same_table(merged_json.value(), table.value()));
      // Merged in another order, the ties still go to the lower pair.
      std::reverse(read_back.begin(), read_back.end());
      CHECK(same_table(merge_stage_cost_parts(read_back).value(), table.value()));
    }
  }
}

TEST_CASE("a share with one part missing does not pass for the whole table") {
  const Graph g = load_model("transformer:layers=4").value();
  const Cluster c = load_cluster("lecture:2x4").value();
  InterRequest r;
  r.microbatches = 8;
  StageCostJob a(g, c, r, 0, 2);
  REQUIRE(run_to_end(a).ok());
  InterJob job(g, c, r, std::vector<StageCostPart>{a.result().value()});
  REQUIRE(job.done());
  REQUIRE(!job.result().ok());
  CHECK(job.result().error().path == "parts");
}

TEST_CASE("the worker's inter plan equals the InterJob's, whole and from shares computed by three workers") {
  const Graph g = load_model("transformer:layers=4").value();
  const Cluster c = load_cluster("lecture:2x4").value();
  InterRequest r;
  r.microbatches = 8;
  InterJob job(g, c, r);
  const InterReport& report = run_to_end(job).value();

  WorkerSession whole;
  whole.message(start_message(1, "inter", "transformer:layers=4", "lecture:2x4", Json{{"microbatches", 8}}).dump());
  auto replies = run_session(whole);
  REQUIRE(replies.size() > 2);   // progress, then the result
  CHECK(replies.front().contains("progress"));
  REQUIRE(replies.back().contains("result"));
  CHECK(replies.back()["id"] == 1);
  const Json& result = replies.back()["result"];
  CHECK(result["plan"] == inter_plan_to_json(report.plan));
  CHECK(result["report"]["total_latency"] == report.to_json()["total_latency"]);
  auto plan = inter_plan_from_json(Json::parse(result["plan"].dump()));
  REQUIRE(plan.ok());
  CHECK(same_bits(plan.value().total_latency, report.plan.total_latency));
  CHECK(inter_plan_to_json(plan.value()) == inter_plan_to_json(report.plan));
  CHECK(result["layer_ops"].size() == report.layer_ops.size());

  // A pool of three: each worker one share, then the DP from the parts.
  Json parts = Json::array();
  std::vector<std::string> bodies;   // each share's result reply body, as a pool forwards it
  for (int k = 0; k < 3; ++k) {
    WorkerSession w;
    w.message(start_message(10 + k, "stage_costs", "transformer:layers=4", "lecture:2x4",
                            Json{{"microbatches", 8}, {"share_index", k}, {"share_count", 3}}).dump());
    auto out = run_session(w, 5);
    REQUIRE(out.back().contains("result"));
    parts.push_back(out.back()["result"]);
    bodies.push_back(Json{{"result", out.back()["result"]}}.dump());
  }
  auto without_wall_clock_fields = [](Json j) {
    j.at("report").erase("elapsed_ms");
    j.at("report").erase("phases");
    return j;
  };
  WorkerSession dp;
  dp.message(start_message(20, "inter", "transformer:layers=4", "lecture:2x4", Json{{"microbatches", 8}, {"parts", parts}}).dump());
  auto out = run_session(dp);
  REQUIRE(out.back().contains("result"));
  CHECK(without_wall_clock_fields(out.back()["result"]) == without_wall_clock_fields(result));

  // The same parts held one by one as they arrive, in any order, then a start with held_parts.
  WorkerSession held;
  for (int k : {2, 0, 1}) held.part(21, k, 3, bodies[size_t(k)]);
  CHECK(held.take_replies().empty());
  Json m = start_message(21, "inter", "transformer:layers=4", "lecture:2x4", Json{{"microbatches", 8}});
  m["held_parts"] = true;
  held.message(m.dump());
  auto from_held = run_session(held);
  REQUIRE(from_held.back().contains("result"));
  CHECK(from_held.back()["id"] == 21);
  CHECK(without_wall_clock_fields(from_held.back()["result"]) == without_wall_clock_fields(result));

  // A part missing, a body that is no result, a part out of range: errors naming them.
  WorkerSession missing;
  missing.part(22, 0, 3, bodies[0]);
  missing.part(22, 2, 3, bodies[2]);
  m["id"] = 22;
  missing.message(m.dump());
  auto miss = run_session(missing);
  REQUIRE(miss.size() == 1);
  CHECK(miss[0]["error"]["path"] == "held_parts");
  CHECK(miss[0]["error"]["message"].get<std::string>().find("part 1 of 3 never arrived") != std::string::npos);
  missing.part(23, 0, 2, R"({"progress":{}})");
  missing.part(23, 5, 2, bodies[0]);
  missing.part(23, 0, 2, "{not json");
  auto bad = run_session(missing);
  REQUIRE(bad.size() == 3);
  CHECK(bad[0]["error"]["code"] == "missing_field");
  CHECK(bad[1]["error"]["path"] == "parts[5]");
  CHECK(bad[2]["error"]["code"] == "bad_json");
  // A cancel forgets parts held for a job that never started.
  missing.part(24, 0, 1, bodies[0]);
  missing.message(R"({"id":24,"op":"cancel"})");
  m["id"] = 24;
  missing.message(m.dump());
  auto forgot = run_session(missing);
  REQUIRE(forgot.size() == 1);
  CHECK(forgot[0]["error"]["path"] == "held_parts");
}

TEST_CASE("the worker answers cancel and bad messages with errors keeping their code and path") {
  WorkerSession s;
  s.message(start_message(3, "inter", "transformer:layers=4", "lecture:2x4", Json{{"microbatches", 8}}).dump());
  s.step(0);
  s.take_replies();
  CHECK(s.busy());
  s.message(R"({"id":3,"op":"cancel"})");
  CHECK_FALSE(s.busy());
  auto replies = s.take_replies();
  REQUIRE(replies.size() == 1);
  CHECK(replies[0].kind == "error");
  CHECK(reply_json(replies[0])["error"]["code"] == "cancelled");

  s.message("{not json");
  s.message(start_message(4, "inter", "no-such-model", "lecture:2x4", Json::object()).dump());
  s.message(start_message(5, "inter", "transformer:layers=4", "lecture:2x4", Json{{"microbatches", "eight"}}).dump());
  s.message(start_message(6, "teleport", "transformer:layers=4", "lecture:2x4", Json::object()).dump());
  s.message(start_message(7, "inter", "transformer:layers=2,batch=8", "lecture:1x4", Json{{"microbatches", 7}}).dump());
  auto out = run_session(s);
  REQUIRE(out.size() == 5);
  CHECK(out[0]["error"]["code"] == "bad_json");
  CHECK(out[1]["id"] == 4);
  CHECK(out[1]["error"]["path"] == "inputs.model");
  CHECK(out[2]["error"]["path"] == "request.microbatches");
  CHECK(out[3]["error"]["path"] == "operation");
  CHECK(out[4]["id"] == 7);   // the core's own error, after a step
  CHECK(out[4]["error"]["path"] == "--microbatches");
}

TEST_CASE("the worker's search sends partials and a result equal to autopar search's; its errors keep code and path") {
  WorkerSession s;
  s.message(start_message(1, "search", "alexnet", "lecture:2x4", Json{{"beta", 200}, {"steps", 300}, {"seed", 4}, {"init", "expert"}}).dump());
  auto replies = run_session(s);
  REQUIRE(replies.size() > 3);
  int partials = 0;
  for (const Json& r : replies) partials += r.contains("partial") ? 1 : 0;
  CHECK(partials == int(replies.size()));   // every reply carries what is new
  REQUIRE(replies.back().contains("result"));
  SearchRequest request;
  request.beta = 200;
  request.steps = 300;
  request.seed = 4;
  request.init = "expert";
  SearchJob job(load_model("alexnet").value(), load_cluster("lecture:2x4").value(), request);
  Json want = run_to_end(job).value().to_json(), got = replies.back()["result"]["report"];
  for (Json* j : {&want, &got}) {
    j->erase("elapsed_ms");   // wall-clock fields
    j->erase("evals_per_s");
  }
  CHECK(got == want);

  WorkerSession bad;
  bad.message(start_message(2, "search", "alexnet", "lecture:2x4", Json{{"beta", "hot"}}).dump());
  bad.message(start_message(3, "search", "alexnet", "lecture:2x4", Json{{"init", "greedy"}}).dump());
  bad.message(start_message(4, "search", "alexnet", "lecture:2x4", Json{{"steps", 0}}).dump());
  bad.message(Json{{"id", 5}, {"op", "start"}, {"operation", "search"}, {"inputs", Json{{"model", "alexnet"}, {"cluster", "lecture:2x4"}, {"precision", "fp4"}}}}.dump());
  bad.message(start_message(6, "accuracy", "alexnet", "lecture:2x4", Json{{"samples", 1}}).dump());
  bad.message(start_message(7, "compare_alpa", "mlp:batch=1", "lecture:1x2", Json{{"microbatches", 3}}).dump());
  std::map<int, Json> out;   // by id: errors found on reading come at once, the job's own after a step
  for (const Json& r : run_session(bad)) out[r["id"].get<int>()] = r;
  REQUIRE(out.size() == 6);
  CHECK(out[6]["error"]["path"] == "request.samples");
  CHECK(out[7]["error"]["path"] == "--microbatches");   // the core's compare error, as the CLI names it
  CHECK(out[7]["error"]["code"] == "bad_value");
  CHECK(out[2]["error"]["path"] == "request.beta");
  CHECK(out[2]["error"]["code"] == "wrong_type");
  CHECK(out[3]["error"]["path"] == "request.init");   // the core's own error, from the job
  CHECK(out[3]["error"]["code"] == "bad_value");
  CHECK(out[4]["error"]["path"] == "request.steps");
  CHECK(out[4]["error"]["code"] == "out_of_range");
  CHECK(out[5]["error"]["path"] == "inputs.precision");
}

TEST_CASE("a paused job is not stepped; resume with units does that many and pauses again") {
  WorkerSession s;
  s.message([] { Json m = start_message(1, "search", "alexnet", "lecture:2x4", Json{{"steps", 500}}); m["units"] = 3; return m; }().dump());
  for (int k = 0; k < 5; ++k) s.step(0);
  CHECK_FALSE(s.busy());
  auto replies = s.take_replies();
  REQUIRE(replies.size() == 1);   // the pause after the 3 units
  CHECK(reply_json(replies[0])["progress"]["done"] == 3);
  s.message(R"({"id":1,"op":"resume","units":2})");
  for (int k = 0; k < 5; ++k) s.step(0);
  replies = s.take_replies();
  REQUIRE(replies.size() == 1);
  CHECK(reply_json(replies[0])["progress"]["done"] == 5);
  CHECK(reply_json(replies[0])["partial"]["state"]["steps"] == 5);
  s.message(R"({"id":1,"op":"resume"})");
  CHECK(s.busy());
  s.message(R"({"id":1,"op":"pause"})");
  CHECK_FALSE(s.busy());
  s.message(R"({"id":1,"op":"resume","units":0})");
  replies = s.take_replies();
  REQUIRE(replies.size() == 2);   // the pause's progress, then the bad units
  CHECK(reply_json(replies[1])["error"]["path"] == "units");
}

TEST_CASE("the worker's export is `autopar export`'s text; a bad request is refused before any planning") {
  const Graph g = load_model("transformer:layers=2").value();
  const Cluster c = load_cluster("lecture:2x4").value();
  for (const char* format : {"jax", "megatron"}) {
    CAPTURE(format);
    ExportRequest r;
    r.format = format;
    r.title = "transformer:layers=2 on lecture:2x4";
    const auto direct = export_operation(g, c, r);
    REQUIRE(direct.ok());
    WorkerSession s;
    s.message(start_message(1, "export", "transformer:layers=2", "lecture:2x4", Json{{"format", format}, {"title", r.title}}).dump());
    auto out = run_session(s);
    REQUIRE(out.size() == 1);   // one unit of work: the result at once
    REQUIRE(out[0].contains("result"));
    CHECK(out[0]["result"]["format"] == format);
    CHECK(out[0]["result"]["text"] == direct.value().text);
  }
  WorkerSession s;
  s.message(start_message(2, "export", "transformer:layers=2", "lecture:2x4", Json{{"format", "pdf"}}).dump());
  s.message(start_message(3, "export", "transformer:layers=2", "lecture:2x4", Json{{"format", "jax"}, {"device_type", "cpu"}}).dump());
  auto out = run_session(s);
  REQUIRE(out.size() == 2);
  CHECK(out[0]["error"]["path"] == "request.format");
  CHECK(out[1]["error"]["code"] == "bad_argument");
  CHECK(out[1]["error"]["path"] == "request.device_type");
}

TEST_CASE("the worker's scenario is `autopar scenario`'s numbers in both languages; a bad name keeps its code and path") {
  for (const char* name : {"linear-nine", "task-graph"}) {
    CAPTURE(name);
    const auto direct = scenario_operation(name, "scenario");
    REQUIRE(direct.ok());
    WorkerSession s;
    // No model or cluster: a scenario names its own inputs.
    s.message(Json{{"id", 1}, {"op", "start"}, {"operation", "scenario"}, {"inputs", Json::object()}, {"request", Json{{"name", name}}}}.dump());
    auto out = run_session(s);
    REQUIRE(out.size() == 1);
    REQUIRE(out[0].contains("result"));
    auto numbers = scenario_numbers_from_json(out[0]["result"]);
    REQUIRE(numbers.ok());
    // The same numbers but wall-clock ones (an ILP's solve_ms differs run to run).
    CHECK(without_wall_clock(numbers.value().results) == without_wall_clock(direct.value().results));
    REQUIRE(numbers.value().findings.size() == direct.value().findings.size());
    REQUIRE(!numbers.value().findings.empty());
    for (size_t k = 0; k < numbers.value().findings.size(); ++k) {
      CHECK(numbers.value().findings[k].en == direct.value().findings[k].en);
      CHECK(numbers.value().findings[k].zh == direct.value().findings[k].zh);
    }
  }
  WorkerSession s;
  s.message(Json{{"id", 2}, {"op", "start"}, {"operation", "scenario"}, {"inputs", Json::object()}, {"request", Json{{"name", "nope"}}}}.dump());
  s.message(Json{{"id", 3}, {"op", "start"}, {"operation", "scenario"}, {"inputs", Json::object()}, {"request", Json::object()}}.dump());
  s.message(Json{{"id", 4}, {"op", "start"}, {"operation", "scenario"}, {"inputs", Json::object()}, {"request", Json{{"name", 7}}}}.dump());
  std::map<int, Json> out;
  for (const Json& r : run_session(s)) out[r["id"].get<int>()] = r;
  REQUIRE(out.size() == 3);
  CHECK(out[2]["error"]["code"] == "unknown_scenario");
  CHECK(out[2]["error"]["path"] == "request.name");
  CHECK(out[3]["error"]["code"] == "missing_field");
  CHECK(out[3]["error"]["path"] == "request.name");
  CHECK(out[4]["error"]["path"] == "request.name");
}

TEST_CASE("a scenario's numbers read back refuse a malformed finding at its path; every listed scenario has a runner") {
  auto bad = scenario_numbers_from_json(Json{{"results", Json::object()}, {"findings", Json::array({Json{{"en", "a"}}})}});
  REQUIRE(!bad.ok());
  CHECK(bad.error().path == "findings[0]");
  CHECK(!scenario_numbers_from_json(Json::array()).ok());
  // The texts (scenarios.cpp) and the runners (scenario_runs.cpp) are two tables: the same names.
  std::vector<std::string> listed;
  for (const Scenario& sc : scenario_catalogue()) listed.push_back(sc.name);
  std::vector<std::string> runners = scenario_runner_names();
  std::sort(listed.begin(), listed.end());
  std::sort(runners.begin(), runners.end());
  CHECK(listed == runners);
  CHECK(listed.size() == 22);
}

TEST_CASE("the worker builds a model once for messages with the same inputs; its plan_memory equals a fresh computation") {
  InputsCache cache;
  const Json inputs{{"model", "transformer:layers=8,batch=16,seq=1024,hidden=2048,heads=16"}, {"cluster", "a100:2x8"}, {"precision", "bf16"}};
  auto a = cache.get(inputs);
  auto b = cache.get(inputs);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a.value() == b.value());   // the same built model, not a second build
  CHECK(cache.builds() == 1);
  const Graph fresh = graph_from_inputs(inputs).value();
  CHECK(a.value()->graph.ops.size() == fresh.ops.size());
  CHECK(same_bits(a.value()->graph.total_forward_flops(), fresh.total_forward_flops()));
  CHECK(a.value()->cluster.num_devices() == 16);
  // Other inputs are another model; a bad one is an error naming it, and not kept.
  Json fp32 = inputs;
  fp32["precision"] = "fp32";
  REQUIRE(cache.get(fp32).ok());
  CHECK(cache.builds() == 2);
  auto bad = cache.get(Json{{"model", "transformer:layers=0"}, {"cluster", "a100:2x8"}});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().path.rfind("inputs.model", 0) == 0);
  CHECK(cache.builds() == 2);
  // Beyond kSize inputs the least recently used goes, and is built again when asked for.
  for (int layers = 2; layers < 2 + int(InputsCache::kSize); ++layers)
    REQUIRE(cache.get(Json{{"model", "transformer:layers=" + std::to_string(layers)}, {"cluster", "a100:2x8"}}).ok());
  const int64_t before = cache.builds();
  REQUIRE(cache.get(inputs).ok());
  CHECK(cache.builds() == before + 1);

  // Two plans on one cached model: each result is `memory --plan`'s JSON computed from scratch.
  InputsCache session;
  for (const std::string plan : {"t=2,p=2,d=4,recompute=none,zero=1", "t=4,p=2,d=2,sp=1,recompute=selective,zero=3"}) {
    auto op = start_operation("plan_memory", inputs, Json{{"plan", plan}, {"microbatches", 4}}, &session);
    REQUIRE(op.ok());
    while (!op.value()->step(StepBudget::unlimited())) {
    }
    auto got = op.value()->result();
    REQUIRE(got.ok());
    auto want = plan_memory_operation(fresh, cluster_from_inputs(inputs).value(), parse_given_plan(plan).value(), 4, Optimizer::adam);
    REQUIRE(want.ok());
    CHECK(got.value() == want.value().to_json());
  }
  CHECK(session.builds() == 1);
}
