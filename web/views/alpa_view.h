// The Alpa half as the page shows it (Zheng et al., OSDI 2022, sections 4 and 5): the intra-op
// plan of the current model on the current logical mesh (recomputed whenever its inputs change),
// the inter-op pipeline plan (computed on demand, a slice per frame: it takes a second of work
// on large models); the schedules of that pipeline are core's (pipeline_schedule.h).
// No ImGui in here.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alpa_operations.h"
#include "cluster.h"
#include "graph.h"
#include "inter_operation.h"
#include "json_io.h"
#include "pipeline_schedule.h"
#include "result.h"
#include "worker_client.h"

namespace autopar::web {

// The intra-op plan of the current model on the current mesh, cached by its inputs.
struct IntraOpView {
  std::string solver = "auto";         // auto, ilp, dp or exhaustive (the CLI's --solver)
  bool reduce_scatter = false;         // the CLI's --reduce-scatter (ZeRO-2 after the solve)
  bool remat = false;                  // the CLI's --remat (recompute activations)
  bool alpa_costs = false;             // price the mesh as --alpha/--beta (Alpa's conventions), not by the cluster's links
  double alpha[2] = {1, 1}, beta[2] = {1, 1};   // per mesh axis, when alpa_costs
  std::string key;                     // inputs the plan (or error) was computed for
  std::optional<IntraOpPlan> plan;     // set when planning succeeded
  std::vector<IntraOpChoice> ops;      // the plan's choice per op, its specs as text (with plan)
  std::optional<Error> error;          // set when planning failed
  int reshard_op = -1;                 // op whose output tensor the resharding table shows (-1: first heavy op)
  std::optional<ReshardTableReport> reshard_table;   // that tensor's table on the plan's mesh
  std::string reshard_table_key;       // key + "|" + op it was computed for
  // The plan being computed in the page's worker ("intra", worker_session.h), if any.
  std::shared_ptr<WorkerClient> worker;
  int64_t request = 0;                 // its job id; 0: none
  std::string pending_key;             // the inputs it plans for (intra_key)
};

// How long a planning took: wall time from start to end, the computing inside it (the worker's
// report), and the worker's replies (progress, then the result) it arrived in.
struct InterOpTiming {
  double elapsed_ms = 0;
  double work_ms = 0;
  double longest_slice_ms = 0;         // in-process only: the longest slice of a frame
  int slices = 0;
};

// A pipeline plan being computed by a worker (`inter`, worker_session.h): its job there, and
// its progress as last reported.
struct InterOpJob {
  std::string key;                                   // inputs it plans for (inter_key)
  int64_t request = 0;                               // the worker's job id
  std::chrono::steady_clock::time_point started;
  InterOpTiming timing;
};

// Least time between two automatic starts of the pipeline plan (follow_inter_plan): the first
// change plans at once, and a burst of changes (the micro-batches' "+" held or clicked fast)
// restarts the worker at most this often instead of once per change.
constexpr double kInterFollowDebounceMs = 250;

// The inter-op plan: it follows the page's inputs (follow_inter_plan), or is planned when asked for.
struct InterOpView {
  std::string key;                     // inputs the plan (or error) was computed for
  std::optional<InterOpPlan> plan;     // set when planning succeeded
  std::optional<Error> error;          // set when planning failed
  Json report;                         // the plan's `autopar inter --json` report (null when none)
  double work_ms = 0;                  // the report's elapsed_ms: the planning's own work
  std::vector<std::string> layer_first_op, layer_last_op;   // per layer: names of its first and last op
  std::vector<std::pair<int, int>> layer_numbers;           // per layer: its first and last layer in the model's numbering
  std::optional<InterOpJob> job;       // the planning in progress, if any
  bool pending = false;                // job.has_value(), for has_background_work
  InterOpTiming timing;                // of the last planning that finished
  int64_t advanced_frame = -1;         // the frame advance_inter_plan last worked in (once per frame)
  std::string cancelled_key;           // inputs whose planning the reader cancelled: not re-planned by itself
  std::optional<std::chrono::steady_clock::time_point> last_start;   // when a planning last started
  bool start_waiting = false;          // follow_inter_plan owes a start once the debounce time has passed
  std::string waiting_key;             // for these inputs
  // Where the planning runs: the page's worker pool once connected (js_hook), else in-process.
  std::shared_ptr<WorkerClient> worker = std::make_shared<WorkerClient>();
};

// Both plans, and a given pipeline plan priced beside the planner's (the Inter-op panel).
struct AlpaView {
  IntraOpView intra;
  InterOpView inter;
  InterOpView given;                   // AlpaInputs::plan set: the price of the plan typed in
  char given_text[160] = "t=1,p=2,d=4"; // the plan as typed (`inter --plan` syntax)
  std::string given_synced;            // the settings' plan (plan_settings_text) last copied into given_text
};

// Identifies the inputs of the Alpa plans: model, cluster (spec string or edited cluster JSON),
// mesh, micro-batches and intra-op solver.
struct AlpaInputs {
  std::string model, cluster, mesh, solver;
  int microbatches = 1;
  bool reduce_scatter = false, remat = false;   // intra-op options (IntraOpView)
  std::string alpa_costs;                       // "a0,a1|b0,b1" for --alpha/--beta; empty = the cluster's links
  bool ignore_boundaries = false;      // the inter-op plan prices no boundaries (`inter --ignore-boundaries`)
  std::string space = "alpa";          // the space searched (`inter --space alpa|today`, InterRequest::space)
  std::string plan;                    // a given plan to price (`inter --plan t=8,p=8,d=16`); empty: the planner searches
  // The model and cluster as a worker loads them (worker_session.h's inputs); null: {model,
  // cluster} from the two strings above (a cluster string starting with '{' is its JSON).
  Json worker_inputs;
};

// Applies setState's `intra` object {solver, reduce_scatter, remat, costs: "cluster" | "alpa",
// alpha: [a0, a1], beta: [b0, b1]} to the view; an unknown
// field or a wrong type is an error naming it (intra.FIELD), and nothing is applied.
Status apply_intra_options(IntraOpView& view, const Json& j);
// The intra-op options as that object.
Json intra_options_json(const IntraOpView& view);
// AlpaInputs::alpa_costs for the view: "a0,a1|b0,b1" when it prices the mesh as --alpha/--beta.
std::string alpa_costs_key(const IntraOpView& view);

// The key the intra-op plan is cached under.
std::string intra_key(const AlpaInputs& in);
// The key the inter-op plan is valid for.
std::string inter_key(const AlpaInputs& in);

// The intra-op request of these inputs (what the worker plans; the page never solves it).
IntraRequest intra_request(const AlpaInputs& in);
// Starts the plan for these inputs in `worker` when neither the plan shown nor the one being
// computed is for them (the panel and result() show it pending until it arrives).
void request_intra_plan(IntraOpView& view, const AlpaInputs& in, std::shared_ptr<WorkerClient> worker);
// Takes the worker's plan once it arrived (the mesh is rebuilt here from the same inputs, the
// plan read back exactly: intra_plan_from_message); a plan for other inputs than `in` is
// dropped. Returns true when a plan (or its error) was taken now.
bool take_intra_plan(IntraOpView& view, const AlpaInputs& in, const Graph& graph, const Cluster& cluster);
// True while the worker computes an intra-op plan.
bool intra_planning(const IntraOpView& view);

// The inter-op request of these inputs, typed (the worker reads it with inter_request_from_json):
// micro-batches, boundaries, the given plan parsed (its error names "plan") and the space.
Result<InterRequest> inter_request(const AlpaInputs& in);
// Starts planning the pipeline for these inputs in the worker (like `autopar inter --model M
// --cluster C --microbatches B`), replacing any planning in progress; advance_inter_plan takes
// its result. The last plan stays until the new one is done.
void start_inter_plan(InterOpView& view, const AlpaInputs& in, const Graph& graph, const Cluster& cluster);
// Takes the worker's result once it arrived (in-process, works on it for about `budget_ms`
// first), once per `frame` (a second call in the same frame does nothing, so the panel and the
// background work may both call it). When the inputs changed since it started, it starts again
// for the new ones (or stops, when the plan shown is for them).
// Returns true when this call finished the planning (view.plan or view.error is then set).
bool advance_inter_plan(InterOpView& view, const AlpaInputs& in, const Graph& graph, const Cluster& cluster, double budget_ms,
                        int64_t frame);
// Stops the planning in progress (the reader's Cancel); the last plan stays, and
// follow_inter_plan does not plan these inputs again by itself.
void cancel_inter_plan(InterOpView& view);
// Keeps the plan live: when `in` differs from the inputs of the plan shown and of the planning
// in progress, a planning for other inputs (superseded) is cancelled and one for `in` starts, at
// once unless another started less than kInterFollowDebounceMs ago (then start_waiting is set
// and a later call starts it). Inputs whose plan or error is shown, or whose planning the
// reader cancelled, start nothing. Returns true when it started a planning.
bool follow_inter_plan(InterOpView& view, const AlpaInputs& in, const Graph& graph, const Cluster& cluster);
// Takes the worker's result for the planning in progress if it arrived (in-process: steps it
// once), outside the frame loop (result(), a script's wait); true when it ended now.
bool take_inter_plan(InterOpView& view, const AlpaInputs& in, const Graph& graph, const Cluster& cluster);
// True while a planning is in progress or owed (a debounced start: start_waiting).
bool inter_planning(const InterOpView& view);
// Wall time since the planning in progress started, else of the last planning, in ms.
double inter_plan_elapsed_ms(const InterOpView& view);
// How far the planning in progress is, in [0, 1]: the stage costs (the intra-op solves, most of
// the time since the DP's bounds) count for the first nine tenths, the DP for the rest. In
// today's space (several whole plans, their number unknown) plan n fills half of what is left.
double inter_plan_progress(const InterOpView& view);
// One line on the planning in progress for the panel, e.g. "pipeline DP: t_max candidate 40 of
// at most 131".
std::string inter_plan_status(const InterOpView& view);
// The words of a pipeline plan's progress, in the page's language (the Alpa tab's Plan and the
// Lecture tab's planned scenarios): its phase and count, and whether a worker runs it.
std::string plan_progress_text(const JobProgress& p, bool in_worker);
// Plans the pipeline now, to the end, in-process (the unit tests' witness): start_inter_plan,
// then advance_inter_plan until done.
void plan_inter(InterOpView& view, const AlpaInputs& in, const Graph& graph, const Cluster& cluster);

// The micro-batch count next to `current` in `direction` (+1: up, -1: down) that divides the
// batch of every input of `graph` (a micro-batch is an even share of the batch), within
// kMicrobatchesBound; `current` when there is none that way. The micro-batches' "-" and "+".
int step_microbatches(const Graph& graph, int64_t current, int direction);

// A stage's first and last layer in the model's numbering (1-based, as `autopar inter` prints).
std::pair<int, int> stage_layer_numbers(const InterOpView& view, const PipelineStage& stage);

// What a plan chose for one stage, from its `inter --json` report's stage (Alpa's space chooses
// the first two where memory needs them, today's all three).
struct StageKnobs {
  std::string recompute = "none";      // none, selective or full
  int zero_stage = 0;                  // 3: FSDP
  bool sequence_parallel = false;
};
// Stage `stage` of `report` (defaults when the report has no such stage).
StageKnobs stage_knobs(const Json& report, size_t stage);

// The micro-batch count the plan shown was made for: in today's space the one the search chose
// (its report's), else `asked` (the page's micro-batches).
int plan_microbatches(const InterOpView& view, int asked);

// The inter-op plan when it matches the current inputs, else nullptr (stale or never planned).
const InterOpPlan* current_inter_plan(const InterOpView& view, const AlpaInputs& in);

// The terms of a pipeline plan's objective, per stage, as the inter-op tab shows them, so that a
// reader can redo the total by hand (lecture 6.4's overlap model): a stage's lane is its latency
// plus its receiving (local all-gather or extra copies) when boundaries are priced; its boundary's
// send/recv (activation forward, gradient back) runs on the link's own lane;
//   total = sum_i (lane_i + send_i) + (B - 1) x t_max,  t_max = max_i max(lane_i, send_i).
// With boundaries ignored (the paper's DP), lane_i = latency_i and no send counts.
struct InterOpTerms {
  std::vector<double> lane_ms, send_ms;   // per stage
  double sum_ms = 0;                      // sum_i (lane_i + send_i)
  double t_max = 0;
  int t_max_stage = 0;                    // the stage whose lane (or send) is t_max
  bool t_max_is_send = false;             // t_max is that stage's send/recv, not its lane
  double total_ms = 0;                    // sum_ms + (B - 1) x t_max (interleaved: sum_ms / v + (B - 1/v) x t_max): the plan's total_latency
};
// The terms of `plan` for `microbatches` micro-batches.
InterOpTerms inter_op_terms(const InterOpPlan& plan, int microbatches);

// What a pipeline schedule shows a reader: per stage its idle gaps [start, end) within the
// makespan (the bubble), and the most micro-batches whose activations a stage holds at once
// (forwards begun, backwards not yet ended), the schedule's memory.
struct ScheduleReading {
  std::vector<std::vector<std::pair<double, double>>> idle;   // per stage
  double idle_ms = 0;                                          // all stages' idle time
  int peak_in_flight = 0;                                      // over the stages
};
// Reads `sched` of `stages` stages.
ScheduleReading read_schedule(const PipelineSchedule& sched, int stages);

// One sentence (in the page's language) saying why 1F1B takes longer than GPipe for this plan,
// or that it does not, from the charts' own numbers: the makespans, the slowest send/recv each
// way against the slowest stage, and the activations each keeps in flight.
std::string schedule_explanation(const InterOpPlan& plan, const PipelineSchedule& gpipe, const PipelineSchedule& one_f_one_b, int microbatches);
// The makespan redone by hand on the busiest stage k (the one with the least idle time):
// "= M x (F + B) on stage k + its idle I" with the chart's numbers, where F and B are the stage's
// forward and backward per micro-batch (the schedule model's split of its time); "" when empty.
std::string schedule_by_hand(const PipelineSchedule& sched, int microbatches);

// result() fields of the Alpa half: objective, communication_cost, resharding_cost, solver,
// collectives {all-reduce, all-gather, reduce-scatter, all-to-all}, intra_options,
// intra_ops [{name, strategy, output_spec, input_specs, cost}], total_latency, t_max, stages,
// inter_terms (InterOpTerms: lanes, sends, sum_ms, t_max, total_ms), schedules {gpipe, 1f1b:
// {makespan_ms, bubble_fraction, idle_ms, peak_in_flight}, explanation}.
Json alpa_result_json(const AlpaView& view, const AlpaInputs& in);

// Which shard of a tensor with sharding `dims` (one axis mask per dimension) mesh device (r, c)
// holds, numbered 0 .. shards-1 in row-major order over the tensor's dimensions.
int shard_of_device(const std::vector<uint8_t>& dims, int r, int c, int rows, int cols);
// How many distinct shards a tensor with sharding `dims` is cut into on a rows x cols mesh.
int shard_count(const std::vector<uint8_t>& dims, int rows, int cols);

}  // namespace autopar::web
