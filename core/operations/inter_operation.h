// `inter` as a job (INTERFACES.md): Alpa's inter-op pass, pipeline stages on sub-meshes. From
// a model it has two phases, the stage costs (an intra-op plan per layer and logical mesh,
// StageCostBuilder) and the DP over them (InterOpSolver); a unit of work is one intra-op solve
// or one DP row. From a stage-cost table only the DP runs. Sliced any way, the plan is the one
// `autopar inter` prints.
#pragma once
#include <array>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster.h"
#include "graph.h"
#include "inter_op.h"
#include "job.h"
#include "pipeline_schedules.h"

namespace autopar {

// How a given plan recomputes activations in the backward pass (Korthikanti et al. 2022,
// arXiv 2205.05198, section 5): none keeps every layer's activations; selective recomputes only
// the attention core (QK^T, softmax, dropout, attention over V), whose s x s tensors are most of
// the memory and little of the FLOPs; full keeps each layer's input and reruns its forward.
enum class Recompute { none, selective, full };
// "none", "selective" or "full".
const char* recompute_name(Recompute r);

// A Megatron-LM-style plan to price (`inter --plan t=8,p=8,d=16`): p pipeline stages of
// equal layer counts, each on t * cp * d GPUs as a (d * cp) x t logical mesh (tensor
// parallelism inside, the context-parallel ranks beside the data-parallel ones).
struct GivenPlan {
  int tensor = 1, pipeline = 1, data = 1;
  int context = 1;                     // cp: context-parallel degree; a stage is t * cp * d GPUs (context_expert.h)
  int expert = 1;                      // ep: expert-parallel degree over a stage's t * cp * d GPUs (MoE models only)
  int interleave = 1;                  // v: Megatron-LM's virtual stages per device (interleaved 1F1B)
  Recompute recompute = Recompute::full;   // full by default, as Megatron-LM's published 2021 runs
  // recompute_layers=N: under full recomputation only the first N layers of each chunk (of each
  // stage when v = 1) recompute, the rest keep their activations (Megatron-LM's
  // --recompute-granularity full --recompute-method block --recompute-num-layers N); 0: all.
  int recompute_layers = 0;
  bool sequence_parallel = false;      // sp=1: Korthikanti et al.'s sequence parallelism beside tensor parallelism
  int zero_stage = -1;                 // zero=0..3 as given; -1: chosen per stage (0 unless memory needs more)
  // dist_opt=1: Megatron-LM's distributed optimizer (--use-distributed-optimizer), ZeRO stage 1
  // whose gradients are FP32 main gradients: 6 + 12/d bytes per parameter in mixed precision
  // (2 parameter + 4 gradient + 12 master, momentum, variance over d); zero_stage is then 1.
  bool distributed_optimizer = false;
  bool reshard_after_forward = true;   // reshard=0|1: under zero=3, free gathered weights after the forward pass (FSDP's default) or keep them
  int micro_batch_size = 0;            // mbs: sequences per micro-batch on one data-parallel replica (0: --microbatches decides)
  // Layers of the first and last stage (0: an equal share), as Megatron-LM's
  // --decoder-first/last-pipeline-num-layers; the stages between split the rest equally.
  int first_stage_layers = 0, last_stage_layers = 0;
  // The pipeline schedule it runs (none: the DP's closed form, 1F1B's or interleaving's).
  std::optional<ScheduleKind> schedule;
  // "t=8,p=8,d=16,mbs=2,v=2,schedule=zb-h1" (defaults left out).
  std::string text() const;
  // Whether the plan keeps every layer's activations (none) or recomputes (legacy `remat`).
  bool remat() const { return recompute == Recompute::full; }
};
// Parses "t=8,p=8,d=16[,mbs=2][,v=2][,first=5,last=5][,sp=1][,recompute=selective][,zero=1]
// [,recompute_layers=N][,dist_opt=1][,reshard=0][,cp=1][,ep=1][,schedule=zb-h1]" (any order; t, p, d default to 1;
// remat=0|1 is recompute=none|full; dist_opt=1 with a zero= other than 1 is refused); errors
// name the key and `arg_path`.
Result<GivenPlan> parse_given_plan(const std::string& text, const std::string& arg_path = "--plan");

// What the pass is started with.
struct InterRequest {
  int microbatches = 32;
  InterOpOptions options;              // mode (alpa, intra-only, inter-only), max_layers, layers (its microbatches are set from above)
  bool boundaries = true;              // price the boundaries between stages (false: --ignore-boundaries, as Alpa's DP)
  bool brute_force = false;            // every slicing instead of the DP (small tables only)
  std::optional<GivenPlan> plan;       // price this plan instead of searching (from a model only)
  bool refuse_overflow = true;         // a given plan whose stage does not fit is an error (false: `memory --plan` reports it)
  // The pipeline schedule (`inter --schedule`): empty keeps the DP's closed form (1F1B); a
  // name plans for that schedule (the DP on its memory, InflightRule) and simulates the plan
  // under it; "auto" does so for every schedule and keeps the least makespan that fits. With
  // a given plan or --brute-force, the schedules are simulated on the one plan.
  std::string schedule;
  // The space searched (`inter --space`): "alpa" (Alpa's: layer split, sub-meshes, logical
  // meshes, recomputation and ZeRO per stage) or "today" (knob_search.h: also sequence
  // parallelism per stage, the micro-batch count, cp and ep; from a model, without a plan).
  std::string space = "alpa";
};

// One schedule simulated on a plan's stages (pipeline_schedules.h).
struct PlanScheduleRow {
  ScheduleKind kind = ScheduleKind::one_f_one_b;
  int interleave = 1;
  double total_ms = 0;                 // its makespan per iteration (0 when it cannot run)
  double bubble_fraction = 0;
  std::vector<double> peak_inflight;   // per stage
  bool fits = false;                   // it can run and every stage's activations fit
  std::string why;                     // when not: which stage, how many bytes, or what rule
  // Planned per schedule (`inter --schedule` without a given plan): the DP's plan for this
  // schedule's memory (InflightRule, stage_costs_for_schedule), its closed-form total, the DPs
  // run for it (one per stage count p tried when its in-flight count depends on p) and their time.
  bool planned = false;
  InterOpPlan plan;
  double dp_total_ms = 0;
  int dp_runs = 0;
  double dp_ms = 0;
};

// What `inter` reports.
struct InterReport {
  InterOpPlan plan;
  StageCostTable table;                // the stage costs the plan was chosen from
  int microbatches = 1;
  std::string mode = "alpa";
  bool from_model = false;             // false: from a stage-cost file
  bool boundaries = true, brute_force = false;
  std::string model_name;              // from_model only, like the next four
  std::vector<std::pair<int, int>> layers;         // per layer: its op range in the micro-batch graph
  std::vector<std::pair<int, int>> layer_numbers;  // per layer: its first and last layer in the model's numbering
  std::vector<std::pair<std::string, std::string>> layer_ops;   // per layer: names of its first and last op
  std::string layer_source = "file";   // model, auto, cuts or file
  int solves = 0, reused = 0;          // intra-op solves made, and reused from identical layers
  double elapsed_ms = 0;               // the whole pass (the CLI's: from reading its words)
  double dp_ms = 0;                    // of which in the DP
  std::optional<GivenPlan> given;      // the plan priced, when one was given
  std::vector<std::pair<int, double>> microbatch_search;   // (B, total) per candidate, when B was searched
  // "alpa" (Alpa's space: layer split, sub-meshes, logical meshes, recomputation and ZeRO per
  // stage) or "today" (knob_search.h: also sequence parallelism per stage and cp, ep searched),
  // with each (cp, ep, B, total; -1 when nothing fits) tried.
  std::string space = "alpa";
  int context_parallel = 1, expert_parallel = 1;   // the plan's cp and ep (a given plan's, or searched)
  std::vector<std::array<double, 4>> knob_search;
  double forward_share = 1.0 / 3;      // the forward's share of a stage's time (plan_forward_share)
  double weight_share = 0.5;           // the backward's weight-gradient share (plan_weight_share)
  std::vector<PlanScheduleRow> schedules;   // the schedules simulated on the plan (InterRequest::schedule)
  int chosen_schedule = -1;            // the row whose makespan is the plan's total (-1: the DP's closed form)
  bool planned_per_schedule = false;   // each row has its own DP plan (else every row runs the one plan)
  double schedule_dp_ms = 0;           // of dp_ms, the per-schedule DPs'
  int schedule_dp_runs = 0;
  // A stage's first and last layer as printed: the model's numbering, or the file's own.
  std::pair<int, int> stage_layers(const PipelineStage& stage) const;
  // The ZeRO stage and recomputation a stage runs with (memory_model.h's accounting).
  std::pair<int, Recompute> stage_memory_setting(const PipelineStage& stage) const;
  // Whether a stage runs with sequence parallelism (a given plan's sp, or the one the search chose).
  bool stage_sequence_parallel(const PipelineStage& stage) const;
  Json to_json() const;
  std::string to_text() const;
};

// The micro-batch count a given plan's mbs implies for a model of `batch` sequences:
// batch / (mbs * d); an error when they do not divide.
Result<int> given_plan_microbatches(const GivenPlan& g, int64_t batch);

// An InterJob run to the end. Natively, with several hardware threads and no given plan, its
// stage costs are computed in shares (StageCostJob) on up to 8 threads at once and merged,
// which gives the one-job table bit for bit (merge_stage_cost_parts), so the report is the
// one-job report; its elapsed_ms counts the shares' wall time. Else (the page's module, one
// thread, a given plan, a share's error) the one job.
Result<InterReport> run_inter_job(const Graph& graph, const Cluster& cluster, const InterRequest& request);

// The micro-batch count searched (`inter --microbatches auto`): B over the divisors of the
// model's batch, from `start` (the nearest divisor) doubling and halving while the total falls;
// each candidate is a whole plan. The report is the best plan's, with each B tried and its total.
// (knob_search.h's MicrobatchSearchJob, run to its end.)
Result<InterReport> plan_inter_searching_microbatches(const Graph& graph, const Cluster& cluster, const InterRequest& request, int start);

// A plan as JSON with every field of every stage, doubles written exactly, and back (the page
// reads the worker's plan with it: the numbers it shows are the CLI's to the bit).
Json inter_plan_to_json(const InterOpPlan& plan);
Result<InterOpPlan> inter_plan_from_json(const Json& j);

// An inter-op plan as a worker sends it (its "inter" result): the CLI's JSON report, the plan to
// the bit, and per layer its numbers in the model and its first and last op.
struct InterPlanMessage {
  Json report;                         // `autopar inter --json`
  double elapsed_ms = 0;               // the report's elapsed_ms: the planning's own work
  InterOpPlan plan;
  std::vector<std::pair<int, int>> layer_numbers;                 // per layer: its first and last layer in the model's numbering
  std::vector<std::pair<std::string, std::string>> layer_ops;     // per layer: names of its first and last op
};
// The message of a report.
InterPlanMessage inter_plan_message(const InterReport& report);
// {report, plan (inter_plan_to_json), layer_numbers: [[a, b]...], layer_ops: [[first, last]...]}.
Json to_json(const InterPlanMessage& m);
// Reads to_json's object back; errors name the field ("plan.stages[0].latency", "layer_ops[2]").
Result<InterPlanMessage> inter_plan_message_from_json(const Json& j);

// One share of the stage costs (StageCostBuilder with a share): a unit is an intra-op solve or a
// pair's stage sums; the report is the share's part of the table, for merge_stage_cost_parts.
class StageCostJob : public Job<StageCostPart> {
 public:
  // The pairs p with p % share_count == share_index of `graph`'s micro-batch graph on `cluster`.
  StageCostJob(const Graph& graph, const Cluster& cluster, const InterRequest& request, int share_index, int share_count);
  JobProgress progress() const override;

 protected:
  void work(BudgetMeter& meter) override;

 private:
  std::optional<StageCostBuilder> builder_;
};

// The pass in progress.
class InterJob : public Job<InterReport> {
 public:
  // From a model: the micro-batch graph of `graph` on `cluster` (errors end the job at once).
  InterJob(const Graph& graph, const Cluster& cluster, const InterRequest& request);
  // From a model whose stage costs were computed in parts (StageCostJob shares covering every
  // pair): merges them and runs the DP; the report equals the one-job report (but elapsed_ms).
  // `parts_ms`: the wall time the parts took, counted in the report's elapsed_ms.
  InterJob(const Graph& graph, const Cluster& cluster, const InterRequest& request, const std::vector<StageCostPart>& parts, double parts_ms = 0);
  // From stage costs read from a file.
  InterJob(StageCostTable table, const InterRequest& request);
  // The current phase: "stage costs" (intra-op solves) or "pipeline DP" (rows, an upper bound).
  JobProgress progress() const override;
  // The phases' own state, while they exist (for a finer status line).
  const StageCostBuilder* builder() const { return builder_ ? &*builder_ : nullptr; }
  const InterOpSolver* solver() const { return solver_ ? &*solver_ : nullptr; }
  // The stage costs once they are complete (the DP phase), else null.
  const StageCostTable* stage_costs() const { return solver_ ? &report_.table : nullptr; }

 protected:
  void work(BudgetMeter& meter) override;

 private:
  void solve(BudgetMeter& meter);
  void price_given_plan(BudgetMeter& meter);   // the given plan's equal stages, priced (no DP)
  Status price_schedules();            // the schedules asked for, simulated on the plan found
  // The schedules asked for (--schedule or the plan's schedule=); errors name a bad name.
  Result<std::vector<ScheduleKind>> schedule_kinds() const;
  // One schedule simulated on a plan, its memory checked against the table's entries.
  PlanScheduleRow schedule_row(const InterOpPlan& plan, const StageCostTable& table, ScheduleKind kind) const;
  // The DP once per schedule (and per stage count p where the schedule's memory depends on p),
  // each plan simulated under its schedule; the fastest fitting one becomes the report's plan.
  void solve_per_schedule(BudgetMeter& meter);
  // InterOpOptions::choose_interleave: after the DP's plan, one DP per (v, p) with interleaved
  // 1F1B's memory and closed form (InflightRule::interleaved_total); true once every run ended,
  // the report then holding the least total's plan and stage costs.
  bool solve_interleaved(BudgetMeter& meter);
  std::vector<std::pair<int, int>> interleave_runs_;   // (v, p) per DP, prepared with the main plan
  size_t interleave_run_ = 0;
  int run_table_v_ = 0;                // the v run_table_ holds interleaving's stage costs for (0: none)
  std::optional<InterOpPlan> interleaved_best_;        // the least interleaved plan so far, and its stage costs
  StageCostTable interleaved_table_;
  bool main_plan_done_ = false;        // the DP's own (1F1B) plan is in the report
  struct ScheduleRun {                 // one DP of solve_per_schedule
    ScheduleKind kind = ScheduleKind::one_f_one_b;
    int stages = 0;                    // the rule's p (0: any)
    size_t row = 0;                    // its schedules row
  };
  std::vector<ScheduleRun> runs_;      // prepared on the first call; empty: not planning per schedule
  size_t run_ = 0;                     // the run in progress
  std::optional<InterOpSolver> run_solver_;
  StageCostTable base_table_;          // the stage costs before a schedule chose again
  StageCostTable run_table_;           // the run's kind's stage costs (stage_costs_for_schedule)
  int run_table_kind_ = -1;            // the kind run_table_ is for (-1: none yet)
  // ZB-H1's plan per stage count p (an error: none): ZB-V holds the same micro-batches (p) on
  // the same stage costs and only adds that stages have 2 layers or more, so where ZB-H1's best
  // plan has them it is ZB-V's too, and that DP is not run again.
  std::map<int, Result<InterOpPlan>> zb_h1_plans_;
  void take_layers(const StageCostBuilder& builder);   // the report's layer fields
  InterRequest request_;
  InterReport report_;                 // filled as the phases finish
  std::optional<StageCostBuilder> builder_;
  std::optional<InterOpSolver> solver_;
  double setup_ms_ = 0;
};

}  // namespace autopar
