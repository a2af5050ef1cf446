// The lecture's scenarios computed (`autopar scenario NAME`): each scenario's runner and the
// operations it calls. Apart from scenarios.cpp (the scenarios' texts and page set-ups), so a
// program that only lists and shows the scenarios (the page) does not link the planners' solvers.
#include "scenarios.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>

#include "accuracy_operation.h"
#include "alpa_operations.h"
#include "beta_sweep.h"
#include "compare.h"
#include "cluster_spec.h"
#include "device_mesh.h"
#include "engine_export.h"
#include "flexflow_operations.h"
#include "inter_op.h"
#include "inter_operation.h"
#include "memory_operation.h"
#include "model_on_cluster.h"
#include "models.h"
#include "pipeline_schedule.h"
#include "report_text.h"
#include "search_operation.h"
#include "sharding_spec.h"
#include "soap.h"
#include "strategy_argument.h"
#include "validation.h"

namespace autopar {
namespace {

// What each scenario reads: an operation's report as JSON (what the CLI command in the
// scenario's explanation prints with --json), for spec strings of a model and a cluster
// (load_model_on_cluster).

// `conv1d --gpus N`.
Result<Json> conv1d_json(int gpus) {
  auto g = load_model("conv1d");
  if (!g.ok()) return g.error();
  auto r = conv1d_operation(g.value(), gpus);
  if (!r.ok()) return r.error();
  return r.value().to_json();
}

// `space --model M --cluster C`.
Result<Json> space_json(const std::string& model, const std::string& cluster) {
  auto in = load_model_on_cluster(model, cluster);
  if (!in.ok()) return in.error();
  return space_operation(in.value().graph, in.value().cluster).to_json();
}

// `simulate --model M --cluster C --strategy S` (S a named strategy, or a strategy file's JSON
// text); `task_graph` receives what --taskgraph writes.
Result<Json> simulate_json(const std::string& model, const std::string& cluster, const std::string& strategy, Json* task_graph = nullptr) {
  auto in = load_model_on_cluster(model, cluster);
  if (!in.ok()) return in.error();
  SimulateRequest request;
  if (!strategy.empty() && strategy[0] == '{') {
    auto j = parse_json_text(strategy, "strategy");
    if (!j.ok()) return j.error();
    auto s = strategy_from_json(j.value(), in.value().graph, in.value().cluster.num_devices());
    if (!s.ok()) return s.error();
    request.strategy = s.value();
  } else {
    auto s = load_strategy(strategy, in.value().graph, in.value().cluster);
    if (!s.ok()) return s.error();
    request.strategy = s.value();
  }
  request.task_graph = task_graph != nullptr;
  SimulateReport r = simulate_operation(in.value().graph, in.value().cluster, request);
  if (task_graph) *task_graph = *r.task_graph;
  return r.to_json();
}

// `search --model M --cluster C --beta B --steps N --seed S --init I`.
Result<Json> search_json(const std::string& model, const std::string& cluster, double beta, int64_t steps, uint64_t seed, const std::string& init) {
  auto in = load_model_on_cluster(model, cluster);
  if (!in.ok()) return in.error();
  SearchRequest request;
  request.beta = beta;
  request.steps = steps;
  request.seed = seed;
  request.init = init;
  SearchJob job(std::move(in.value().graph), std::move(in.value().cluster), request);
  const auto& r = run_to_end(job);
  if (!r.ok()) return r.error();
  return r.value().to_json();
}

// `exhaustive --model M --cluster C`.
Result<Json> exhaustive_json(const std::string& model, const std::string& cluster) {
  auto in = load_model_on_cluster(model, cluster);
  if (!in.ok()) return in.error();
  auto r = exhaustive_operation(in.value().graph, in.value().cluster);
  if (!r.ok()) return r.error();
  return r.value().to_json();
}

// `accuracy --model M --cluster C --samples N --seed S [--calibrated]`.
Result<Json> accuracy_json(const std::string& model, const std::string& cluster, int samples, uint64_t seed, bool calibrated) {
  auto in = load_model_on_cluster(model, cluster);
  if (!in.ok()) return in.error();
  AccuracyRequest request;
  request.samples = samples;
  request.seed = seed;
  request.simulator = calibrated ? CostMode::calibrated : CostMode::ideal;
  AccuracyJob job(std::move(in.value().graph), std::move(in.value().cluster), request);
  const auto& r = run_to_end(job);
  if (!r.ok()) return r.error();
  return r.value().to_json();
}

// `reshard --mesh RxC --cluster C --table --shape S`.
Result<Json> reshard_table_json(const std::string& cluster, int rows, int cols, const Shape& shape) {
  auto c = load_cluster(cluster);
  if (!c.ok()) return c.error();
  auto mesh = mesh_from_cluster(rows, cols, c.value());
  if (!mesh.ok()) return mesh.error();
  return reshard_table_operation(shape, 4, mesh.value()).to_json();
}

// `intra --model M --cluster C --mesh RxC [--solver S]`.
Result<Json> intra_json(const std::string& model, const std::string& cluster, int rows, int cols, const std::string& solver = "auto") {
  auto in = load_model_on_cluster(model, cluster);
  if (!in.ok()) return in.error();
  auto mesh = mesh_from_cluster(rows, cols, in.value().cluster);
  if (!mesh.ok()) return mesh.error();
  IntraOpOptions o;
  o.solver = solver;
  o.sequence_strategies = true;   // as intra_options, for `intra`
  // As `intra --cluster`: the GPU's memory is the budget and its peak prices recomputation.
  o.capacity_bytes = in.value().cluster.gpu.memory_capacity_bytes();
  o.gpu = in.value().cluster.gpu;
  auto r = intra_operation(in.value().graph, mesh.value(), o);
  if (!r.ok()) return r.error();
  return r.value().to_json();
}

// `intra --model M --cluster C --all-meshes`.
Result<Json> intra_all_meshes_json(const std::string& model, const std::string& cluster) {
  auto in = load_model_on_cluster(model, cluster);
  if (!in.ok()) return in.error();
  IntraOpOptions o;
  o.sequence_strategies = true;   // as intra_options, for `intra`
  o.capacity_bytes = in.value().cluster.gpu.memory_capacity_bytes();
  o.gpu = in.value().cluster.gpu;
  auto r = intra_all_meshes_operation(in.value().graph, in.value().cluster, o);
  if (!r.ok()) return r.error();
  return r.value().to_json();
}

// `inter --model M --cluster C --microbatches B --mode MODE [--plan PLAN]`.
Result<Json> inter_json(const std::string& model, const std::string& cluster, int microbatches, const std::string& mode,
                        const std::string& plan = "", bool with_schedules = false) {
  auto in = load_model_on_cluster(model, cluster);
  if (!in.ok()) return in.error();
  InterRequest request;
  request.microbatches = microbatches;
  request.options.mode = mode;
  if (!plan.empty()) {
    auto given = parse_given_plan(plan);
    if (!given.ok()) return given.error();
    request.plan = given.value();
  }
  InterJob job(in.value().graph, in.value().cluster, request);
  const auto& r = run_to_end(job);
  if (!r.ok()) return r.error();
  Json j = r.value().to_json();
  if (with_schedules) {
    // The plan's GPipe and 1F1B as the schedule model runs them (pipeline_schedule.h): the
    // makespans of the inter-op tab's charts, the Schedules tab and `inter --schedule gpipe|1f1b`.
    const PlanShares shares{r.value().forward_share, r.value().weight_share};
    Json sched;
    for (const auto& [name, kind] : {std::pair<const char*, PipelineKind>{"gpipe", PipelineKind::gpipe}, {"1f1b", PipelineKind::one_f_one_b}}) {
      const PipelineSchedule ps = plan_pipeline_schedule(r.value().plan, microbatches, kind, shares);
      double peak = 0;
      for (double x : ps.peak_inflight) peak = std::max(peak, x);
      sched[name] = Json{{"makespan_ms", ps.makespan_ms}, {"bubble_fraction", ps.bubble_fraction}, {"peak_inflight", peak}};
    }
    j["pipeline_schedules"] = sched;
  }
  return j;
}

// `compare --model M --cluster C --seed S`.
Result<Json> compare_json(const std::string& model, const std::string& cluster, uint64_t seed) {
  auto in = load_model_on_cluster(model, cluster);
  if (!in.ok()) return in.error();
  CompareRequest request;
  request.title = model + " on " + cluster;
  request.seed = seed;
  request.graph = std::move(in.value().graph);
  request.cluster = std::move(in.value().cluster);
  CompareJob job(std::move(request));
  const auto& report = run_to_end(job);
  if (!report.ok()) return report.error();
  return report.value().to_json(job.request().graph);
}

// Each scenario's runner (named run_ and its name): computes its numbers through the operations
// and words its findings in both languages.
Status run_conv1d_splits(Json& r, std::vector<Bilingual>& f) {
  AUTOPAR_TRY(j, conv1d_json(4));
  r["conv1d"] = j;
  for (const auto& x : j["splits"])
    f.push_back(say("{0}: input {1}, weights {2}, halo {3} per device; max |diff| {4}",
                    "{0}：每卡输入 {1}、权重 {2}、光晕 {3}；最大 |差| {4}",
                    {x["name"].get<std::string>(), std::to_string(x["input_elements_per_device"].get<int64_t>()),
                     std::to_string(x["weight_elements_per_device"].get<int64_t>()),
                     std::to_string(x["halo_elements_per_device"].get<int64_t>()), fmt("%.1e", x["max_abs_diff"].get<double>())}));
  return Ok{};
}

Status run_space_sizes(Json& r, std::vector<Bilingual>& f) {
  for (const char* m : {"alexnet", "dlrm"}) {
    AUTOPAR_TRY(j, space_json(m, "lecture:2x4"));
    r[m] = j;
    f.push_back(say("{0}: 10^{1} strategies", "{0}：10^{1} 种策略", {m, fmt("%.2f", j["log10_strategies"].get<double>())}));
  }
  return Ok{};
}

Status run_alexnet_strategies(Json& r, std::vector<Bilingual>& f) {
  for (const char* st : {"dp", "mp", "expert", "random:1", "random:2", "random:3"}) {
    AUTOPAR_TRY(j, simulate_json("alexnet", "lecture:2x4", st));
    r[st] = Json{{"makespan_ms", j["makespan_ms"]}, {"compute_ms", j["compute_ms"]}, {"activation_transfer_ms", j["activation_transfer_ms"]},
                 {"param_sync_ms", j["param_sync_ms"]}};
    f.push_back(say("{0}: {1}", "{0}：{1}", {st, fmt("%.1f ms", j["makespan_ms"].get<double>())}));
  }
  return Ok{};
}

Status run_task_graph(Json& r, std::vector<Bilingual>& f) {
  Json tasks;
  // The strategy as a strategy file would hold it (`simulate --strategy FILE`).
  AUTOPAR_TRY(j, simulate_json("elm", "lecture:1x2",
                            "{\"ops\":[{\"name\":\"embed\",\"degrees\":{},\"devices\":[0]},"
                            "{\"name\":\"linear1\",\"degrees\":{\"sample\":2},\"devices\":[0,1]},"
                            "{\"name\":\"linear2\",\"degrees\":{},\"devices\":[1]}]}",
                            &tasks));
  r["simulate"] = j;
  r["tasks"] = tasks["tasks"];
  for (const auto& t : tasks["tasks"])
    f.push_back(say("{0} on {1}: ready {2}, start {3}, end {4}", "{0}（{1}）：就绪 {2}，开始 {3}，结束 {4}",
                    {t["name"].get<std::string>(), t["device"].get<std::string>(), fmt("%.4f", t["ready_ms"].get<double>()),
                     fmt("%.4f", t["start_ms"].get<double>()), fmt("%.4f ms", t["end_ms"].get<double>())}));
  return Ok{};
}

Status run_simulator_accuracy(Json& r, std::vector<Bilingual>& f) {
  for (const char* m : {"alexnet", "dlrm"})
    for (bool cal : {false, true}) {
      auto j = accuracy_json(m, "lecture:2x4", 300, 1, cal);
      if (!j.ok()) return j.error();
      // The points (simulated, "real" ms per strategy) stay: the page plots them.
      const Json& res = j.value();
      r[std::string(m) + (cal ? "_calibrated" : "_ideal")] = res;
      f.push_back(say(cal ? "{0} calibrated: mean error {1}, tau {2}, tau among the best {3}, simulator's favourite is really #{4}"
                          : "{0} ideal: mean error {1}, tau {2}, tau among the best {3}, simulator's favourite is really #{4}",
                      cal ? "{0} 校准：平均误差 {1}，tau {2}，最好策略之间的 tau {3}，模拟器的首选实际排第 #{4}"
                          : "{0} 理想：平均误差 {1}，tau {2}，最好策略之间的 tau {3}，模拟器的首选实际排第 #{4}",
                      {m, fmt("%.1f%%", 100 * res["mean_rel_error"].get<double>()), fmt("%.2f", res["kendall_tau"].get<double>()),
                       fmt("%.2f", res["top_kendall_tau"].get<double>()), std::to_string(res["sim_best_true_rank"].get<int>())}));
    }
  return Ok{};
}

Status run_simulator_speed(Json& r, std::vector<Bilingual>& f) {
  for (const char* m : {"alexnet", "dlrm"}) {
    AUTOPAR_TRY(j, simulate_json(m, "lecture:2x4", "expert"));
    // What a search pays per strategy: building the task graph and simulating it (the model, the
    // cluster and the strategy are loaded once, as a search has them).
    auto in = load_model_on_cluster(m, "lecture:2x4");
    if (!in.ok()) return in.error();
    SimulateRequest request;
    auto strategy = load_strategy("expert", in.value().graph, in.value().cluster);
    if (!strategy.ok()) return strategy.error();
    request.strategy = strategy.value();
    const auto start = std::chrono::steady_clock::now();
    int runs = 0;
    double elapsed = 0;
    while (elapsed < 200) {
      (void)simulate_operation(in.value().graph, in.value().cluster, request);
      ++runs;
      elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    const double per_s = runs / (elapsed / 1000);
    r[m] = Json{{"simulated_ms", j["makespan_ms"]}, {"evaluations_per_s", per_s}};
    f.push_back(say("{0}: simulated iteration {1}, evaluated {2} times per second (task graph built and simulated each time)",
                    "{0}：模拟的迭代 {1}，每秒评估 {2} 次（每次都构建任务图并模拟）",
                    {m, fmt("%.2f ms", j["makespan_ms"].get<double>()), fmt("%.0f", per_s)}));
  }
  return Ok{};
}

// mcmc-alexnet and mcmc-dlrm.
Status run_mcmc(const std::string& model, Json& r, std::vector<Bilingual>& f) {
  AUTOPAR_TRY(dp, simulate_json(model, "lecture:2x4", "dp"));
  AUTOPAR_TRY(ex, simulate_json(model, "lecture:2x4", "expert"));
  AUTOPAR_TRY(se, search_json(model, "lecture:2x4", 500, 3000, 1, "dp"));
  r["dp"] = dp;
  r["expert"] = ex;
  r["search"] = se;
  for (const auto* x : {&dp, &ex}) {
    const Json& j = *x;
    f.push_back(say(x == &dp ? "data parallel: {0} (compute {1}, activations {2}, parameter sync {3})"
                             : "expert: {0} (compute {1}, activations {2}, parameter sync {3})",
                    x == &dp ? "数据并行：{0}（计算 {1}，激活传输 {2}，参数同步 {3}）" : "专家策略：{0}（计算 {1}，激活传输 {2}，参数同步 {3}）",
                    {fmt("%.2f ms", j["makespan_ms"].get<double>()), fmt("%.1f", j["compute_ms"].get<double>()),
                     fmt("%.1f", j["activation_transfer_ms"].get<double>()), fmt("%.1f ms", j["param_sync_ms"].get<double>())}));
  }
  const Json& b = se["breakdown"];
  f.push_back(say("MCMC: {0} (compute {1}, activations {2}, parameter sync {3}), {4} faster than data parallel",
                  "MCMC：{0}（计算 {1}，激活传输 {2}，参数同步 {3}），比数据并行快 {4}",
                  {fmt("%.2f ms", se["best_ms"].get<double>()), fmt("%.1f", b["compute_ms"].get<double>()),
                   fmt("%.1f", b["activation_transfer_ms"].get<double>()), fmt("%.1f ms", b["param_sync_ms"].get<double>()),
                   fmt("%.1fx", dp["makespan_ms"].get<double>() / se["best_ms"].get<double>())}));
  int replicated = 0;
  for (const auto& op : se["strategy"]["ops"])
    if (op["name"].get<std::string>().rfind("emb", 0) == 0 && op["devices"].size() > 1) ++replicated;
  if (model == "dlrm")
    f.push_back(say("{0} of 8 embedding tables are split or replicated in the search result", "搜索结果中 8 张嵌入表里有 {0} 张被切开或复制",
                    {std::to_string(replicated)}));
  return Ok{};
}

Status run_mcmc_vs_exhaustive(Json& r, std::vector<Bilingual>& f) {
  AUTOPAR_TRY(ex, exhaustive_json("mlp3", "lecture:1x8"));
  const double best = ex["best_ms"].get<double>();
  r["exhaustive"] = Json{{"best_ms", best}, {"strategies_evaluated", ex["strategies_evaluated"]}};
  Json runs = Json::array();
  int exact = 0, near = 0;
  for (int seed = 1; seed <= 10; ++seed) {
    AUTOPAR_TRY(j, search_json("mlp3", "lecture:1x8", 500, 1500, uint64_t(seed), "random"));
    const double ratio = j["best_ms"].get<double>() / best;
    exact += ratio <= 1 + 1e-9;
    near += ratio <= 1.02;
    runs.push_back(Json{{"seed", seed}, {"best_ms", j["best_ms"]}, {"ratio", ratio}});
  }
  r["mcmc"] = runs;
  r["exact"] = exact;
  r["within_2_percent"] = near;
  f.push_back(say("optimum {0} over 17,576 strategies; MCMC found it in {1}/10 runs, within 2% in {2}/10",
                  "17,576 种策略中的最优为 {0}；MCMC 在 {1}/10 次中找到它，{2}/10 次在 2% 以内",
                  {fmt("%.4f ms", best), std::to_string(exact), std::to_string(near)}));
  return Ok{};
}

Status run_beta_sweep(Json& r, std::vector<Bilingual>& f) {
  std::vector<double> best_ms;
  for (size_t k = 0; k < beta_sweep_runs(); ++k) {
    const BetaSweepRun run = beta_sweep_run(k);
    AUTOPAR_TRY(j, search_json(kBetaSweepModel, kBetaSweepCluster, run.beta, kBetaSweepSteps, run.seed, kBetaSweepInit));
    best_ms.push_back(j["best_ms"].get<double>());
  }
  BetaSweepResult sweep = beta_sweep_result(best_ms);
  r["sweep"] = sweep.results["sweep"];
  f.insert(f.end(), sweep.findings.begin(), sweep.findings.end());
  return Ok{};
}

Status run_resharding_table(Json& r, std::vector<Bilingual>& f) {
  AUTOPAR_TRY(j, reshard_table_json("lecture:2x4", 2, 4, Shape{1024, 1024}));
  r["table"] = j;
  for (const char* pair : {"S0R>RR", "RS0>RR", "S0S1>S0R", "S0R>RS0", "S0S1>S01R", "RR>S0S1"}) {
    std::string p = pair;
    std::string from = p.substr(0, p.find('>')), to = p.substr(p.find('>') + 1);
    for (const auto& row : j["table"])
      if (row["from"] == from && row["to"] == to)
        f.push_back(say("{0} -> {1}: {2}", "{0} → {1}：{2}", {from, to, fmt("%.3f ms", row["cost"].get<double>())}));
  }
  return Ok{};
}

Status run_linear_nine(Json& r, std::vector<Bilingual>& f) {
  AUTOPAR_TRY(j, intra_json("mlp:layers=1,batch=8192,in=4096,hidden=4096,out=4096", "lecture:2x4", 2, 4, "exhaustive"));
  r["plan"] = j;
  f.push_back(say("chosen: {0} (input {1}, weight {2}), objective {3}", "选中：{0}（输入 {1}，权重 {2}），目标值 {3}",
                  {j["ops"][0]["strategy"].get<std::string>(), j["ops"][0]["input_specs"][0].get<std::string>(),
                   j["ops"][0]["input_specs"][1].get<std::string>(), fmt("%.2f ms", j["objective"].get<double>())}));
  return Ok{};
}

Status run_megatron(Json& r, std::vector<Bilingual>& f) {
  AUTOPAR_TRY(one, intra_json("transformer-chain", "lecture:1x8", 1, 8));
  AUTOPAR_TRY(all, intra_all_meshes_json("transformer-chain", "lecture:1x8"));
  AUTOPAR_TRY(two, intra_json("transformer-chain", "lecture:2x8", 2, 8));
  r["one_node"] = one;
  Json meshes = Json::array();
  for (const auto& m : all["meshes"]) meshes.push_back(Json{{"mesh", m["mesh"]}, {"objective", m["objective"]}});
  r["all_meshes"] = Json{{"best_mesh", all["best_mesh"]}, {"meshes", meshes}};
  r["two_nodes"] = two;
  std::string plan;
  for (const auto& op : one["ops"]) plan += (plan.empty() ? "" : ", ") + op["name"].get<std::string>() + " " + op["strategy"].get<std::string>();
  f.push_back(say("1x8: {0}; resharding {1}", "1x8：{0}；重分片 {1}", {plan, fmt("%.3g", one["resharding_cost"].get<double>())}));
  for (const auto& m : all["meshes"])
    f.push_back(say("mesh {0}: objective {1}", "网格 {0}：目标值 {1}", {m["mesh"].get<std::string>(), fmt("%.2f ms", m["objective"].get<double>())}));
  f.push_back(say("2x8: QKV {0} (axis 0 crosses nodes)", "2x8：QKV {0}（轴 0 跨节点）", {two["ops"][0]["strategy"].get<std::string>()}));
  return Ok{};
}

Status run_gpt_pipeline(Json& r, std::vector<Bilingual>& f) {
  AUTOPAR_TRY(j, inter_json("transformer:layers=24", "lecture:4x8", 32, "alpa", "", true));
  r["schedules"] = j["pipeline_schedules"];
  r["plan"] = j;
  r["plan"].erase("pipeline_schedules");
  // The lecture's plan (one stage per node, each 4-way tensor x 2-way data parallel), priced by
  // the same cost model: what the DP's plan is measured against.
  AUTOPAR_TRY(lecture_plan, inter_json("transformer:layers=24", "lecture:4x8", 32, "alpa", "t=4,p=4,d=2"));
  r["lecture_plan"] = Json{{"plan", "t=4,p=4,d=2"}, {"total_latency", lecture_plan["total_latency"]}, {"stages", lecture_plan["stages"]}};
  f.push_back(say("{0} stages, total {1}", "{0} 级，总计 {1}", {std::to_string(j["stages"].size()), fmt("%.1f ms", j["total_latency"].get<double>())}));
  for (const auto& st : j["stages"])
    f.push_back(say("layers {0}-{1} on ({2},{3}) as {4}: {5}", "第 {0}-{1} 层，子网格 ({2},{3})，逻辑网格 {4}：{5}",
                    {std::to_string(st["layers"][0].get<int>()), std::to_string(st["layers"][1].get<int>()),
                     std::to_string(st["submesh"][0].get<int>()), std::to_string(st["submesh"][1].get<int>()),
                     st["logical_mesh"].get<std::string>(), fmt("%.2f ms", st["latency"].get<double>())}));
  f.push_back(say("run micro-batch by micro-batch on these stages (the schedule model, as the inter-op tab's charts and inter --schedule): "
                  "GPipe {0}, 1F1B {1}; the total above is Alpa's closed form sum + (B-1) t_max",
                  "在这些级上逐个 micro-batch 运行（调度模型，与算子间页的图和 inter --schedule 相同）：GPipe {0}，1F1B {1}；上面的总计是 Alpa 的闭式 sum + (B-1) t_max",
                  {fmt("%.1f ms", r["schedules"]["gpipe"]["makespan_ms"].get<double>()),
                   fmt("%.1f ms", r["schedules"]["1f1b"]["makespan_ms"].get<double>())}));
  f.push_back(say("the lecture's plan (one stage per node, 4-way tensor x 2-way data parallel) priced the same way: {0}",
                  "讲义的方案（每个节点一级，4 路张量并行 × 2 路数据并行）用同样的方法定价：{0}",
                  {fmt("%.1f ms", r["lecture_plan"]["total_latency"].get<double>())}));
  return Ok{};
}

Status run_cross_mesh_resharding(Json& r, std::vector<Bilingual>& f) {
  auto c = load_cluster("lecture:2x4");
  if (!c.ok()) return c.error();
  auto sub = [&](int gpus) {
    Cluster one = c.value();
    one.nodes = 1;
    one.gpus_per_node = gpus;
    return mesh_from_cluster(1, gpus, one).value();   // 1 x g fits a node of lecture:2x4
  };
  const DeviceMesh src_mesh = sub(2), dst_mesh = sub(4);
  const Shape shape{2, 512, 1024};
  const ShardingSpec src = parse_spec("RS1R").value(), dst = parse_spec("RRR").value();
  Json plans;
  double total[2] = {0, 0};
  for (bool local : {false, true}) {
    const CrossMeshPlan p = cross_mesh_reshard(shape, 4, src_mesh, src, 0, dst_mesh, dst, 4, c.value().inter_node, local);
    Json msgs = Json::array();
    for (const auto& m : p.messages) msgs.push_back(Json{{"from", m.from}, {"to", m.to}, {"bytes", m.bytes}});
    Json steps = Json::array();
    for (const auto& st : p.local) steps.push_back(Json{{"collective", st.collective}, {"axis", st.axes[0]}, {"bytes", st.bytes}, {"ms", st.cost}});
    plans[local ? "local" : "plain"] = Json{{"messages", msgs}, {"bytes_across", p.bytes_across}, {"send_ms", p.send_ms},
                                           {"local_steps", steps}, {"local_ms", p.local_ms}, {"total_ms", p.total_ms()}};
    total[local] = p.total_ms();
    const std::string n = std::to_string(p.messages.size()), across = si(p.bytes_across) + "B", send = fmt("%.2f ms", p.send_ms),
                      total_ms = fmt("%.2f ms", p.total_ms());
    f.push_back(local ? say("local all-gather: {0} messages, {1} across nodes in {2}, then all-gather inside node 1 in {3}: {4}",
                            "local all-gather：{0} 条消息，跨节点 {1}，用时 {2}，再在节点 1 内部 all-gather，用时 {3}：{4}",
                            {n, across, send, fmt("%.3f ms", p.local_ms), total_ms})
                      : say("plain send/recv: {0} messages, {1} across nodes in {2}: {3}",
                            "普通 send/recv：{0} 条消息，跨节点 {1}，用时 {2}：{3}", {n, across, send, total_ms}));
  }
  r = plans;
  r["shape"] = shape;
  r["from"] = Json{{"devices", Json::array({0, 1})}, {"spec", "RS1R"}};
  r["to"] = Json{{"devices", Json::array({4, 5, 6, 7})}, {"spec", "RRR"}};
  r["saving"] = total[0] / total[1];
  f.push_back(say("the local all-gather is {0} faster: the slow link carries one copy, not four",
                  "local all-gather 快 {0}：慢速连接上只传一份，而不是四份", {fmt("%.1fx", total[0] / total[1])}));
  return Ok{};
}

Status run_wide_resnet(Json& r, std::vector<Bilingual>& f) {
  AUTOPAR_TRY(intra, intra_json("wide-resnet", "lecture:1x8", 1, 8));
  r["intra_1x8"] = intra;
  std::string early = intra["ops"][1]["strategy"], late = intra["ops"][intra["ops"].size() - 6]["strategy"];
  f.push_back(say("one node: {0} {1}, {2} {3}", "一个节点：{0} {1}，{2} {3}",
                  {intra["ops"][1]["name"].get<std::string>(), early, intra["ops"][intra["ops"].size() - 6]["name"].get<std::string>(), late}));
  Json scaling = Json::array();
  double base[3] = {0, 0, 0};
  for (int nodes : {1, 2, 4}) {
    const std::string model = "wide-resnet:batch=" + std::to_string(64 * nodes);
    const std::string cluster = "lecture:" + std::to_string(nodes) + "x8";
    Json row{{"nodes", nodes}};
    Bilingual line = say(nodes > 1 ? "{0} nodes:" : "{0} node:", "{0} 个节点：", {std::to_string(nodes)});
    const char* modes[3] = {"alpa", "intra-only", "inter-only"};
    for (int k = 0; k < 3; ++k) {
      AUTOPAR_TRY(j, inter_json(model, cluster, 8, modes[k]));
      // Throughput per GPU relative to one node (batch grows with the nodes).
      const double per_gpu = double(64 * nodes) / j["total_latency"].get<double>() / (8 * nodes);
      if (nodes == 1) base[k] = per_gpu;
      row[modes[k]] = Json{{"total_latency", j["total_latency"]}, {"efficiency", per_gpu / base[k]}};
      const char* zh_modes[3] = {"Alpa", "只用算子内", "只用算子间"};
      line.en += " " + std::string(modes[k]) + " " + fmt("%.0f%%", 100 * per_gpu / base[k]);
      line.zh += std::string(k ? "，" : "") + zh_modes[k] + " " + fmt("%.0f%%", 100 * per_gpu / base[k]);
    }
    scaling.push_back(row);
    f.push_back(line);
  }
  r["weak_scaling"] = scaling;
  // The lecture estimates 91% for Alpa at 4 nodes; say why this planner is far below.
  const double alpa4 = scaling.back()["alpa"]["efficiency"].get<double>();
  const double intra4 = scaling.back()["intra-only"]["efficiency"].get<double>();
  f.push_back(say("at 4 nodes Alpa keeps {0} of one node's throughput per GPU (the lecture estimates 91%, the paper reports 80%), "
                  "intra-only {1} (lecture: 47%): each node of this cluster has one 10 Gb/s NIC, which the batch-split plan's "
                  "gradient all-reduce across nodes shares among the node's 8 GPUs, and a stage boundary across nodes costs about "
                  "as much as a stage, so across nodes Alpa's best plan pipelines over the nodes, as inter-only does. Alpa is "
                  "never slower than either alone; its ratio is the lower one because its one-node plan pipelines inside the node",
                  "4 个节点时 Alpa 的每卡吞吐是单节点的 {0}（讲义估计 91%，论文报告 80%），只用算子内是 {1}（讲义 47%）："
                  "这个集群每个节点只有一块 10 Gb/s 网卡，按 batch 切分的方案跨节点做梯度 all-reduce 时由节点内 8 块 GPU 共用它，"
                  "跨节点的流水线级边界也和一个级本身差不多贵，所以跨节点时 Alpa 的最优方案是跨节点做流水线，和只用算子间的方案一样。"
                  "Alpa 从不比两者中任何一个慢；它的比例反而更低，是因为它在单节点时已在节点内做了流水线",
                  {fmt("%.0f%%", 100 * alpa4), fmt("%.0f%%", 100 * intra4)}));
  return Ok{};
}

Status run_gpt3_1024(Json& r, std::vector<Bilingual>& f) {
  const PlannedScenario& p = *planned_scenario("gpt3-1024");
  AUTOPAR_TRY(j, inter_json(p.model, p.cluster, p.microbatches, "alpa"));
  return p.findings(j, r, f);
}

Status run_published_runs(Json& r, std::vector<Bilingual>& f) {
  ValidateRequest request;
  request.search = false;
  auto v = run_validation(request);
  if (!v.ok()) return v.error();
  const Json j = v.value().to_json();
  r["rows"] = Json::array();
  for (const Json& row : j["rows"]) {
    r["rows"].push_back(Json{{"name", row["name"]}, {"measured_s", row["measured_s"]}, {"predicted_s", row["predicted_s"]},
                             {"error", row["error"]}, {"fitted", row["fitted"]}});
    if (row.contains("gpu_variant")) r["rows"].back()["gpu_variant"] = row["gpu_variant"];   // a GPU no preset describes
    if (row.contains("priced_fast_because")) r["rows"].back()["priced_fast_because"] = row["priced_fast_because"];   // less work priced than ran
    f.push_back(say("{0} ({1}): measured {2}, predicted {3} ({4})", "{0}（{1}）：实测 {2}，预测 {3}（{4}）",
                    {row["label"].get<std::string>(), row["plan"].get<std::string>(), fmt("%.3g s", row["measured_s"].get<double>()),
                     fmt("%.3g s", row["predicted_s"].get<double>()), fmt("%+.1f%%", 100 * row["error"].get<double>())}));
  }
  r["median_abs_error"] = j["median_abs_error"];
  r["max_abs_error"] = j["max_abs_error"];
  r["mean_abs_error"] = j["mean_abs_error"];
  r["held_out"] = j["held_out"];
  f.push_back(say("median |error| {0}, largest {1}", "误差绝对值的中位数 {0}，最大 {1}",
                  {fmt("%.1f%%", 100 * j["median_abs_error"].get<double>()), fmt("%.1f%%", 100 * j["max_abs_error"].get<double>())}));
  // The rows no constant was fitted on are the independent check.
  f.push_back(say("held out ({0} runs no constant was fitted on): median |error| {1}, mean {2}, largest {3}",
                  "留出的 {0} 次运行（没有常数在它们上面拟合）：误差绝对值的中位数 {1}，平均 {2}，最大 {3}",
                  {std::to_string(j["held_out"]["rows"].get<int>()), fmt("%.1f%%", 100 * j["held_out"]["median_abs_error"].get<double>()),
                   fmt("%.1f%%", 100 * j["held_out"]["mean_abs_error"].get<double>()), fmt("%.1f%%", 100 * j["held_out"]["max_abs_error"].get<double>())}));
  return Ok{};
}

Status run_flexflow_vs_alpa(Json& r, std::vector<Bilingual>& f) {
  for (const char* m : {"alexnet", "transformer:layers=4"}) {
    AUTOPAR_TRY(j, compare_json(m, "lecture:2x4", 1));
    r[m] = Json{{"flexflow_ms", j["flexflow"]["makespan_ms"]}, {"alpa_ms", j["alpa"]["makespan_ms"]}};
    f.push_back(say("{0}: FlexFlow {1}, Alpa {2}", "{0}：FlexFlow {1}，Alpa {2}",
                    {m, fmt("%.2f ms", j["flexflow"]["makespan_ms"].get<double>()), fmt("%.2f ms", j["alpa"]["makespan_ms"].get<double>())}));
  }
  return Ok{};
}

// `intra --model M --cluster C --mesh RxC` on GPUs taken to hold `capacity_bytes` each (ZeRO and
// recomputation are tried when the plan does not fit, as `intra --cluster` does with the GPU's
// memory), with or without the sequence-dimension strategies (`sequence` false: 2022's set).
Result<Json> intra_capacity_json(const std::string& model, const std::string& cluster, int rows, int cols, double capacity_bytes, bool sequence) {
  auto in = load_model_on_cluster(model, cluster);
  if (!in.ok()) return in.error();
  auto mesh = mesh_from_cluster(rows, cols, in.value().cluster);
  if (!mesh.ok()) return mesh.error();
  IntraOpOptions o;
  o.solver = "ilp";
  o.capacity_bytes = capacity_bytes;
  o.gpu = in.value().cluster.gpu;
  o.sequence_strategies = sequence;
  auto r = intra_operation(in.value().graph, mesh.value(), o);
  if (!r.ok()) return r.error();
  return r.value().to_json();
}

// What a plan does along the sequence: its ops whose output is split on dimension 1 of
// [batch, seq, ...] (a spec's second token not R), and its linears by sequence-parallel role.
Json sequence_summary(const Json& plan) {
  int split = 0, scatter = 0, gather = 0;
  for (const auto& op : plan["ops"]) {
    const std::string spec = op["output_spec"].get<std::string>(), strategy = op["strategy"].get<std::string>();
    auto tokens = parse_spec(spec, "output_spec");
    if (tokens.ok() && tokens.value().dims.size() == 3 && tokens.value().dims[1] != 0) ++split;
    scatter += strategy.find("seq-out@") != std::string::npos;
    gather += strategy.find("seq-in@") != std::string::npos;
  }
  const Json& c = plan["collectives"];
  return Json{{"objective", plan["objective"]}, {"sequence_split_ops", split}, {"reduce_scatter_linears", scatter}, {"all_gather_linears", gather},
              {"all_reduce", c["all-reduce"]}, {"all_gather", c["all-gather"]}, {"reduce_scatter", c["reduce-scatter"]},
              {"activation_bytes", plan["memory"]["activation_bytes"]}, {"total_bytes", plan["memory"]["total_bytes"]},
              {"zero_stage", plan["zero_stage"]}, {"remat", plan["remat"]}, {"recompute_ms", plan["recompute_cost"]}, {"fits", plan["memory"]["fits"]}};
}

// How a plan fits (ZeRO stage, recomputation), in both languages.
Bilingual memory_words(const Json& s) {
  const int zero = s["zero_stage"].get<int>();
  const bool remat = s["remat"].get<bool>();
  if (zero == 0 && !remat) return {"no ZeRO, no recomputation", "不用 ZeRO、不重计算"};
  if (zero == 0) return {"full recomputation", "完全重计算"};
  const std::string z = std::to_string(zero);
  return remat ? Bilingual{"ZeRO stage " + z + " and full recomputation", "ZeRO 第 " + z + " 阶段加完全重计算"}
               : Bilingual{"ZeRO stage " + z, "ZeRO 第 " + z + " 阶段"};
}

// 5.5 again: the same ILP, the same costs, with sequence-dimension strategies in the space.
Status run_sequence_parallel(Json& r, std::vector<Bilingual>& f) {
  const std::string model = "transformer:layers=4,batch=2,seq=2048,hidden=8192,heads=64";
  const double gpu = 80e9, small = 9e9;   // an A100 80GB; a GPU of 9 GB (below the tensor-parallel plan's 10.7 GB)
  AUTOPAR_TRY(roomy, intra_capacity_json(model, "a100:1x8", 1, 8, gpu, true));
  AUTOPAR_TRY(tight, intra_capacity_json(model, "a100:1x8", 1, 8, small, true));
  AUTOPAR_TRY(tight_2022, intra_capacity_json(model, "a100:1x8", 1, 8, small, false));
  r["model"] = model;
  r["capacity_bytes"] = Json{{"roomy", gpu}, {"tight", small}};
  r["roomy"] = sequence_summary(roomy);
  r["tight"] = sequence_summary(tight);
  r["tight_without_sequence"] = sequence_summary(tight_2022);
  r["tight_plan"] = Json::array();
  for (const auto& op : tight["ops"]) r["tight_plan"].push_back(Json{{"name", op["name"]}, {"strategy", op["strategy"]}, {"output_spec", op["output_spec"]}});
  const Json& a = r["roomy"];
  const Json& b = r["tight"];
  const Json& c = r["tight_without_sequence"];
  auto gb = [](const Json& v) { return fmt("%.2f GB", v.get<double>() / 1e9); };
  auto ms = [](const Json& v) { return fmt("%.2f ms", v.get<double>()); };
  f.push_back(say("80 GB per GPU: {0} ops split along the sequence, {1} all-reduces, {2} reduce-scatters: Megatron's tensor parallelism "
                  "(norms and residual adds whole on every GPU); activations {3} per GPU, {4} in all; communication {5}",
                  "每卡 80 GB：{0} 个算子沿序列切分，{1} 次 all-reduce，{2} 次 reduce-scatter：Megatron 的张量并行"
                  "（归一化和残差加法在每块卡上都完整计算）；每卡激活 {3}，总共 {4}；通信 {5}",
                  {std::to_string(a["sequence_split_ops"].get<int>()), std::to_string(a["all_reduce"].get<int>()),
                   std::to_string(a["reduce_scatter"].get<int>()), gb(a["activation_bytes"]), gb(a["total_bytes"]), ms(a["objective"])}));
  // The plan's memory setting is worded per language: each language's text with its own arguments.
  auto both = [](const char* en, const char* zh, std::vector<std::string> en_args, std::vector<std::string> zh_args) {
    auto fill = [](std::string text, const std::vector<std::string>& args) {
      for (size_t k = 0; k < args.size(); ++k) {
        const std::string key = "{" + std::to_string(k) + "}";
        for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + args[k].size())) text.replace(at, key.size(), args[k]);
      }
      return text;
    };
    return Bilingual{fill(en, en_args), fill(zh, zh_args)};
  };
  std::vector<std::string> tight_args = {std::to_string(b["sequence_split_ops"].get<int>()), std::to_string(b["reduce_scatter_linears"].get<int>()),
                                         std::to_string(b["all_gather_linears"].get<int>()), std::to_string(b["reduce_scatter"].get<int>()),
                                         std::to_string(b["all_gather"].get<int>()), std::to_string(b["all_reduce"].get<int>()), gb(b["activation_bytes"]),
                                         gb(b["total_bytes"]), memory_words(b).en, ms(b["objective"])};
  std::vector<std::string> tight_zh = tight_args;
  tight_zh[8] = memory_words(b).zh;
  f.push_back(both("9 GB per GPU: {0} ops split along the sequence (spec RS1R: S1 on the sequence), {1} linears reduce-scatter their "
                   "output to it and {2} all-gather their input from it: {3} reduce-scatters, {4} all-gathers, {5} all-reduces; "
                   "activations {6} per GPU, {7} in all ({8}); communication {9}",
                   "每卡 9 GB：{0} 个算子沿序列切分（规格 RS1R：S1 在序列维上），{1} 个线性层把输出 reduce-scatter 成这种切分，"
                   "{2} 个从它 all-gather 输入：{3} 次 reduce-scatter、{4} 次 all-gather、{5} 次 all-reduce；"
                   "每卡激活 {6}，总共 {7}（{8}）；通信 {9}",
                   tight_args, tight_zh));
  const std::vector<std::string> old_en = {memory_words(c).en, gb(c["total_bytes"]), ms(c["objective"]), ms(c["recompute_ms"])};
  std::vector<std::string> old_zh = old_en;
  old_zh[0] = memory_words(c).zh;
  f.push_back(both("the same 9 GB without sequence strategies (2022's space): {0}, {1} in all, communication and recomputation {2} "
                   "({3} of it the forward pass again)",
                   "同样 9 GB、没有序列维策略（2022 年的空间）：{0}，总共 {1}，通信加重计算 {2}（其中 {3} 是再算一遍前向）",
                   old_en, old_zh));
  f.push_back(say("limits: the intra-op objective counts communication (and recomputation's compute), not the norms' and adds' own "
                  "time, so the 7/8 of their work each GPU saves under sequence parallelism is not a reason the ILP sees; the "
                  "column-parallel input gathered again in the backward pass is priced, not overlapped as Megatron overlaps it",
                  "局限：算子内目标值只计通信（以及重计算的计算量），不计归一化和加法本身的时间，所以序列并行下每块卡省下的 7/8 这部分工作，"
                  "ILP 看不到；列并行输入在反向时再 all-gather 一次，这里按原价计入，没有像 Megatron 那样和计算重叠",
                  {}));
  return Ok{};
}

// 2.1: the Attribute dimension of attention (its query positions) is context parallelism.
Status run_context_parallel(Json& r, std::vector<Bilingual>& f) {
  const std::string model = "transformer:layers=2,batch=1,seq=16384,hidden=1024,heads=16", cluster = "lecture:1x8";
  auto in = load_model_on_cluster(model, cluster);
  if (!in.ok()) return in.error();
  const Graph& g = in.value().graph;
  const int n = in.value().cluster.num_devices();
  // The space: attention's configurations with and without its sequence dimension.
  int attn = -1;
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (g.ops[i].spec.kind == OpKind::attention) attn = int(i);
  if (attn < 0) return make_error(ErrorCode::internal, "the context-parallel scenario's model has no attention", "model");
  const Op& a = g.ops[size_t(attn)];
  size_t length = 0;
  while (length < a.split_dims.size() && a.split_dims[length].name != "length") ++length;
  int64_t with = 0, without = 0;
  for (const OpConfig& c : enumerate_configs(a, n)) {
    ++with;
    without += length < c.degrees.size() && c.degrees[length] == 1;
  }
  AUTOPAR_TRY(space, space_json(model, cluster));
  r["space"] = Json{{"attention_configs", with}, {"attention_configs_without_sequence", without}, {"log10_strategies", space["log10_strategies"]}};
  // Every op split along its sequence over all GPUs (each op of this model has that dimension).
  Json cp = Json::array();
  for (const Op& op : g.ops) {
    Json devices = Json::array();
    for (int k = 0; k < n; ++k) devices.push_back(k);
    cp.push_back(Json{{"name", op.name()}, {"degrees", Json{{"length", n}}}, {"devices", devices}});
  }
  const std::string cp_text = Json{{"ops", cp}}.dump();
  Json sims;
  for (const auto& [name, strategy] : {std::pair<std::string, std::string>{"dp", "dp"}, {"expert", "expert"}, {"sequence", cp_text}}) {
    AUTOPAR_TRY(j, simulate_json(model, cluster, strategy));
    sims[name] = Json{{"makespan_ms", j["makespan_ms"]}, {"activation_bytes", j["activation_bytes"]}, {"activation_transfer_ms", j["activation_transfer_ms"]},
                      {"peak_memory_bytes", j["peak_memory_bytes"]}, {"fits", j["fits"]}};
  }
  r["simulate"] = sims;
  // MCMC from data parallel: does the search move attention along the sequence?
  AUTOPAR_TRY(search, search_json(model, cluster, 500, 3000, 1, "dp"));
  int attention_split = 0, attention_ops = 0;
  for (const auto& op : search["strategy"]["ops"]) {
    const int i = g.find_op(op["name"].get<std::string>());
    if (i < 0 || g.ops[size_t(i)].spec.kind != OpKind::attention) continue;
    ++attention_ops;
    attention_split += op["degrees"].value("length", 1) > 1;
  }
  r["search"] = Json{{"best_ms", search["best_ms"]}, {"init_ms", search["init_ms"]}, {"steps", search["steps"]},
                     {"attention_ops", attention_ops}, {"attention_split_by_sequence", attention_split}};
  auto ms = [](const Json& v) { return fmt("%.1f ms", v.get<double>()); };
  auto gb = [](const Json& v) { return fmt("%.2f GB", v.get<double>() / 1e9); };
  f.push_back(say("attention's configurations on 8 GPUs: {0} with its sequence (query positions) as a SOAP Attribute dimension, {1} "
                  "without; the whole model: 10^{2} strategies",
                  "8 块卡上注意力的配置数：把序列（查询位置）当作 SOAP 的属性维时 {0} 种，不算它时 {1} 种；整个模型：10^{2} 种策略",
                  {std::to_string(with), std::to_string(without), fmt("%.2f", space["log10_strategies"].get<double>())}));
  f.push_back(say("one sequence of 16,384 tokens (batch 1): data parallel runs on one GPU, {0} (peak {1}); Megatron's split by heads and "
                  "channels {2}, moving {3}; every op split along the sequence over the 8 GPUs {4}, moving {5} (each GPU gathers the "
                  "other positions' keys and values, and sends their gradients back), peak {6}",
                  "一条 16,384 token 的序列（batch 1）：数据并行只用到一块卡，{0}（峰值 {1}）；Megatron 按头和通道切，{2}，传输 {3}；"
                  "每个算子沿序列切到 8 块卡上，{4}，传输 {5}（每块卡收集其他位置的 key 和 value，并把它们的梯度送回），峰值 {6}",
                  {ms(sims["dp"]["makespan_ms"]), gb(sims["dp"]["peak_memory_bytes"]), ms(sims["expert"]["makespan_ms"]),
                   gb(sims["expert"]["activation_bytes"]), ms(sims["sequence"]["makespan_ms"]), gb(sims["sequence"]["activation_bytes"]),
                   gb(sims["sequence"]["peak_memory_bytes"])}));
  f.push_back(say("MCMC from data parallel, {0} steps: best {1} (from {2}); {3} of its {4} attention ops split along the sequence",
                  "从数据并行出发的 MCMC，{0} 步：最好 {1}（起点 {2}）；{4} 个注意力算子中有 {3} 个沿序列切分",
                  {std::to_string(search["steps"].get<int64_t>()), ms(search["best_ms"]), ms(search["init_ms"]), std::to_string(attention_split),
                   std::to_string(attention_ops)}));
  f.push_back(say("limits: a part reads every key and value whole (an all-gather, as Llama 3's context parallelism does), not a ring "
                  "that overlaps their passing with the computation; the attention here is not causal, so no load balancing of "
                  "positions is needed or modelled; the gathered keys and values count in the part's memory",
                  "局限：每个部分完整读取所有 key 和 value（all-gather，与 Llama 3 的上下文并行相同），而不是把传递和计算重叠的环（ring）；"
                  "这里的注意力不带因果掩码，所以不需要、也没有模拟位置的负载均衡；收集来的 key 和 value 计入该部分的内存",
                  {}));
  return Ok{};
}

// fits-on-80gb: `memory --plan` for Llama-2-7B at 32K tokens on 8 H100, the plan as it is and
// with each memory saver (scenarios.cpp has the texts and the page's set-up).
Status run_fits_on_80gb(Json& r, std::vector<Bilingual>& f) {
  constexpr double kGiB = 1073741824.0;
  const std::string model = "llama2-7b:seq=32768,batch=4", cluster = "h100:1x8";
  auto g = load_model(model);
  if (!g.ok()) return g.error();
  auto c = load_cluster(cluster);
  if (!c.ok()) return c.error();
  struct Row {
    Bilingual name;
    const char* plan;
  };
  const Row rows[] = {{{"as it is", "原样"}, "t=2,p=1,d=4,recompute=none,zero=0"},
                      {{"selective recomputation", "选择性重计算"}, "t=2,p=1,d=4,recompute=selective,zero=0"},
                      {{"sequence parallelism", "序列并行"}, "t=2,p=1,d=4,sp=1,recompute=none,zero=0"},
                      {{"full recomputation", "完全重计算"}, "t=2,p=1,d=4,recompute=full,zero=0"},
                      {{"ZeRO-1", "ZeRO-1"}, "t=2,p=1,d=4,recompute=none,zero=1"},
                      {{"ZeRO-3 (FSDP)", "ZeRO-3（FSDP）"}, "t=2,p=1,d=4,recompute=none,zero=3"},
                      {{"CP 2 + ZeRO-1", "CP 2 + ZeRO-1"}, "t=1,p=1,d=4,cp=2,recompute=none,zero=1"},
                      {{"SP + full + ZeRO-1", "SP + 完全重计算 + ZeRO-1"}, "t=2,p=1,d=4,sp=1,recompute=full,zero=1"}};
  r["model"] = model;
  r["cluster"] = cluster;
  r["plans"] = Json::array();
  for (const Row& row : rows) {
    auto plan = parse_given_plan(row.plan);
    if (!plan.ok()) return plan.error();
    auto m = plan_memory_operation(g.value(), c.value(), plan.value(), 1, Optimizer::adam);
    if (!m.ok()) return m.error();
    const PlanStageMemory& s = m.value().stages.front();   // one stage: p = 1
    const double states = s.params_bytes + s.grads_bytes + s.optimizer_bytes;
    r["capacity_bytes"] = m.value().capacity_bytes;
    r["plans"].push_back(Json{{"name", row.name.en}, {"name_zh", row.name.zh}, {"plan", row.plan}, {"states_bytes", states},
                              {"activation_bytes", s.activation_bytes}, {"total_bytes", s.total_bytes}, {"fits", s.fits}});
    // GiB, as the page's bars and the H100's "80 GB" (80 x 2^30 bytes) count them; the row's
    // name is the chart's category (results' name and name_zh), the plan says it here.
    const std::initializer_list<std::string> args = {row.plan, fmt("%.1f GiB", states / kGiB), fmt("%.1f GiB", s.activation_bytes / kGiB),
                                                     fmt("%.1f GiB", s.total_bytes / kGiB)};
    f.push_back(s.fits ? say("{0}: model states {1} + activations {2} = {3} per GPU: fits", "{0}：模型状态 {1} + 激活 {2} = 每卡 {3}：放得下", args)
                       : say("{0}: model states {1} + activations {2} = {3} per GPU: does not fit", "{0}：模型状态 {1} + 激活 {2} = 每卡 {3}：放不下", args));
  }
  f.push_back(say("the GPU holds {0}; ZeRO shrinks the model states, SP and CP the activations, recomputation the activations kept for backward",
                  "每块卡有 {0}；ZeRO 省模型状态，SP 和 CP 省激活，重计算省为反向保留的激活", {fmt("%.1f GiB", r["capacity_bytes"].get<double>() / kGiB)}));
  return Ok{};
}

using ScenarioRun = std::function<Status(Json& results, std::vector<Bilingual>& findings)>;

// Each scenario's runner, by name (scenario_catalogue() has the same names; a test holds them equal).
const std::map<std::string, ScenarioRun>& scenario_runners() {
  static const std::map<std::string, ScenarioRun> runners = {
    {"conv1d-splits", run_conv1d_splits},
    {"space-sizes", run_space_sizes},
    {"alexnet-strategies", run_alexnet_strategies},
    {"task-graph", run_task_graph},
    {"simulator-accuracy", run_simulator_accuracy},
    {"simulator-speed", run_simulator_speed},
    {"mcmc-alexnet", [](Json& r, std::vector<Bilingual>& f) { return run_mcmc("alexnet", r, f); }},
    {"mcmc-dlrm", [](Json& r, std::vector<Bilingual>& f) { return run_mcmc("dlrm", r, f); }},
    {"mcmc-vs-exhaustive", run_mcmc_vs_exhaustive},
    {"beta-sweep", run_beta_sweep},
    {"resharding-table", run_resharding_table},
    {"linear-nine", run_linear_nine},
    {"megatron", run_megatron},
    {"gpt-pipeline", run_gpt_pipeline},
    {"cross-mesh-resharding", run_cross_mesh_resharding},
    {"wide-resnet", run_wide_resnet},
    {"gpt3-1024", run_gpt3_1024},
    {"published-runs", run_published_runs},
    {"flexflow-vs-alpa", run_flexflow_vs_alpa},
    {"sequence-parallel", run_sequence_parallel},
    {"context-parallel", run_context_parallel},
    {"fits-on-80gb", run_fits_on_80gb},
  };
  return runners;
}

}  // namespace

std::vector<std::string> scenario_runner_names() {
  std::vector<std::string> names;
  for (const auto& [name, run] : scenario_runners()) names.push_back(name);
  return names;
}

Result<ScenarioReport> scenario_operation(const std::string& name, const std::string& path, Language language) {
  const Scenario* sc = find_scenario(name);
  if (!sc) {
    std::string names;
    for (const auto& s : scenario_catalogue()) names += (names.empty() ? "" : ", ") + s.name;
    return make_error(ErrorCode::unknown_scenario, "unknown scenario '" + name + "'; scenarios: " + names, path);
  }
  ScenarioReport r;
  r.scenario = sc;
  r.language = language;
  r.results = Json::object();
  auto run = scenario_runners().find(name);
  if (run == scenario_runners().end()) return make_error(ErrorCode::internal, "scenario '" + name + "' has no runner", path);
  if (auto st = run->second(r.results, r.findings); !st.ok()) return st.error();
  return r;
}

}  // namespace autopar
