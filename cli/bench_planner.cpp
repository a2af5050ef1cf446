// `autopar bench`'s planner figures: Alpa's two passes timed as the model and the cluster grow.
// The stage costs (an intra-op plan of every distinct layer on every logical mesh of every
// sub-mesh shape) and the inter-op DP are timed apart, with their longest single unit of work
// (what one frame of the page does at least). Wall-clock figures; compare ratios from one run.
#include "bench_planner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "cluster_spec.h"
#include "inter_op.h"
#include "models.h"

namespace autopar::cli {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// A wall-clock figure, named as INTERFACES.md asks.
Json elapsed(double ms) { return Json{{"elapsed_ms", ms}}; }

// Plans `model` on `cluster` with `microbatches` as `autopar inter` does (both passes stepped a
// unit at a time, as the page steps them); one JSON row and one line of text.
// `today`: each stage also chooses sequence parallelism (InterOpOptions::choose_sequence_parallel).
Json plan_and_time(const std::string& label, const std::string& model, const std::string& cluster, int microbatches, std::ostringstream& t,
                   bool today = false) {
  Json row{{"label", label}, {"model", model}, {"cluster", cluster}, {"microbatches", microbatches}};
  auto g = load_model(model);
  auto c = load_cluster(cluster);
  if (!g.ok() || !c.ok()) {
    row["error"] = (g.ok() ? c.error() : g.error()).message;
    t << "  " << label << ": " << row["error"].get<std::string>() << "\n";
    return row;
  }
  auto micro = microbatch_graph(g.value(), microbatches);
  if (!micro.ok()) {
    row["error"] = micro.error().message;
    t << "  " << label << ": " << row["error"].get<std::string>() << "\n";
    return row;
  }
  const int gpus = c.value().num_devices();
  row["gpus"] = gpus;
  InterOpOptions o;
  o.microbatches = microbatches;
  o.choose_sequence_parallel = today;
  const auto start = Clock::now();
  StageCostBuilder builder(micro.value(), c.value(), o);
  double longest_unit = 0;
  while (!builder.done()) {
    const auto u = Clock::now();
    builder.step(1);
    longest_unit = std::max(longest_unit, ms_since(u));
  }
  auto table = builder.finish();
  const double costs_ms = ms_since(start);
  row["layers"] = builder.layers().size();
  row["stage_costs"] = Json{{"units", builder.units_total()}, {"reused_solves", builder.reused_solves()}, {"longest_unit", elapsed(longest_unit)},
                            {"elapsed_ms", costs_ms}};
  double dp_ms = 0, longest_row = 0;
  std::string outcome;
  if (!table.ok()) {
    row["error"] = table.error().message;
    outcome = "no stage costs: " + table.error().message;
  } else {
    const auto dp_start = Clock::now();
    InterOpSolver solver(table.value(), microbatches);
    longest_row = ms_since(dp_start);   // the set-up counts as a unit: the page does it in one frame
    while (!solver.done()) {
      const auto u = Clock::now();
      solver.step(1);
      longest_row = std::max(longest_row, ms_since(u));
    }
    auto plan = solver.finish();
    dp_ms = ms_since(dp_start);
    row["dp"] = Json{{"rows", solver.rows_done()}, {"longest_row", elapsed(longest_row)}, {"elapsed_ms", dp_ms}};
    if (plan.ok()) {
      const InterOpPlan& p = plan.value();
      int used = 0;
      for (const auto& st : p.stages) used += st.submesh.devices();
      row["dp"]["t_max_tried"] = p.t_max_tried;
      row["dp"]["t_max_candidates"] = p.t_max_candidates;
      row["plan"] = Json{{"stages", p.stages.size()}, {"devices_used", used}, {"total_latency", p.total_latency}};
      char line[160];
      std::snprintf(line, sizeof line, "%2zu stages on %4d GPUs, %.4g ms; %d of %d t_max tried", p.stages.size(), used, p.total_latency,
                    p.t_max_tried, p.t_max_candidates);
      outcome = line;
    } else {
      row["error"] = plan.error().message;
      outcome = "no plan (" + std::string(error_code_name(plan.error().code)) + ")";
    }
  }
  row["elapsed_ms"] = costs_ms + dp_ms;
  char line[400];
  std::snprintf(line, sizeof line, "  %-26s %-11s %5d GPUs %3zu layers: %7.2f s = stage costs %7.2f s (%6d units, longest %5.1f ms) + DP %7.1f ms (longest row %5.1f ms); %s\n",
                label.c_str(), cluster.c_str(), gpus, builder.layers().size(), (costs_ms + dp_ms) / 1000, costs_ms / 1000, builder.units_total(),
                longest_unit, dp_ms, longest_row, outcome.c_str());
  t << line;
  return row;
}

// A GPT-3-like transformer of `layers` layers and hidden size `hidden` (heads of 128, as GPT-3 175B's 96).
std::string gpt(int layers, int hidden, int batch) {
  return "transformer:layers=" + std::to_string(layers) + ",hidden=" + std::to_string(hidden) + ",heads=" + std::to_string(hidden / 128) +
         ",seq=2048,batch=" + std::to_string(batch);
}

}  // namespace

Json planner_bench_line(std::ostringstream& t) {
  t << "Alpa planner, both passes (bench --planner: layers 12 to 96, GPUs 8 to 1,024, GPT-3 175B on 1,024 GPUs, Llama 3 405B on 64 to 16,384)\n";
  return plan_and_time("96 layers of 2048", gpt(96, 2048, 512), "a100:2x8", 64, t);
}

Json planner_bench_sweep(std::ostringstream& t) {
  Json out = Json::object();
  // The layers grow on a fixed cluster: the model's layers are merged to at most 32 for the DP
  // (InterOpOptions::max_layers), identical ones share their intra-op solves.
  t << "planning time vs layers (hidden 2048, 64 micro-batches of 8 sequences, a100:4x8)\n";
  for (int layers : {12, 24, 48, 96})
    out["layers"].push_back(plan_and_time(std::to_string(layers) + " layers of 2048", gpt(layers, 2048, 512), "a100:4x8", 64, t));
  // The GPUs grow with the model fixed: more sub-mesh shapes (1 x 2^k and every whole number of
  // nodes) and logical meshes, each a set of intra-op solves, and more device counts in the DP.
  t << "planning time vs GPUs (96 layers of 2048, 64 micro-batches of 8 sequences)\n";
  for (const char* cluster : {"a100:1x8", "a100:4x8", "a100:16x8", "a100:64x8"})
    out["gpus"].push_back(plan_and_time("96 layers of 2048", gpt(96, 2048, 512), cluster, 64, t));
  // The target: GPT-3 175B (Brown et al.: 96 layers of 12288, batch 1536) on 1,024 A100s.
  t << "GPT-3 175B on 1,024 GPUs (target: under 60 s, every GPU used, a finite total)\n";
  out["gpt3_1024"] = plan_and_time("GPT-3 175B", gpt(96, 12288, 1536), "a100:128x8", 64, t);
  // Issue 41's scale: Llama 3 405B (Meta's config; Dubey et al. 2024, 2,048 sequences of 8,192
  // tokens per step, 16 micro-batches per replica at Meta's d = 128) as the H100s grow to the
  // 16,384 it trained on, each stage choosing sequence parallelism, recomputation and ZeRO.
  // Above 128 nodes the sub-meshes are those whose node count divides the cluster's (planned_submeshes).
  t << "planning time vs GPUs, Llama 3 405B (126 layers of 16384, seq 8192, batch 2048, 16 micro-batches; target at 16,384: under 60 s)\n";
  for (const char* cluster : {"h100:8x8", "h100:64x8", "h100:128x8", "h100:512x8", "h100:2048x8"})
    out["llama3_405b"].push_back(plan_and_time("Llama 3 405B", "examples/models/hf/llama-3.1-405b.json:seq=8192,batch=2048", cluster, 16, t, true));
  return out;
}

}  // namespace autopar::cli
