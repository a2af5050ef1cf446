// The CLI's `inter` command (INTERFACES.md): Alpa's inter-op pass, pipeline stages on
// sub-meshes, from a model and a cluster or from a stage-cost file; the job of
// core/operations/inter_operation.h stepped to its end.
#include <chrono>
#include <fstream>

#include "commands.h"
#include "pipeline_schedules.h"
#include "inter_operation.h"
#include "knob_search.h"
#include "memory_model.h"
#include "operation_requests.h"
#include "validation.h"

namespace autopar::cli {
namespace {

// --layers or --max-layers: a layer count of at least 1 (0 is the planner's own "not given").
Result<int> layer_count_option(const Args& a, const std::string& key, int fallback, const std::string& what) {
  if (!a.get(key)) return fallback;
  auto x = whole_option(a, key, fallback);
  if (!x.ok()) return x.error();
  if (x.value() < 1) return make_error(ErrorCode::bad_value, "--" + key + " needs a whole number of at least 1" + what, "--" + key);
  if (auto st = check_bound(x.value(), WholeBound{1, 9999}, "--" + key); !st.ok()) return st.error();
  return int(x.value());
}

// The words every inter takes onto the request: --microbatches (unless `search`, "auto"),
// --plan, --overlap, --mode, --ignore-boundaries, --brute-force.
Result<InterRequest> inter_request_of_words(const Args& a, bool search) {
  InterRequest request;
  auto microbatches = search ? Result<int64_t>(request.microbatches) : whole_option(a, "microbatches", request.microbatches);
  if (!microbatches.ok()) return microbatches.error();
  // Checked before narrowing to the request's int (validate repeats it on the request).
  if (auto st = check_bound(microbatches.value(), kMicrobatchesBound, "--microbatches"); !st.ok()) return st.error();
  request.microbatches = int(microbatches.value());
  if (auto text = a.get("plan")) {
    auto plan = parse_given_plan(*text);
    if (!plan.ok()) return plan.error();
    if (a.get("stage-costs")) return make_error(ErrorCode::bad_argument, "--plan prices a model's plan; give --model and --cluster, not --stage-costs", "--plan");
    for (const char* key : {"mode", "layers", "max-layers", "brute-force"})
      if (a.has(key) || a.get(key))
        return make_error(ErrorCode::bad_argument, std::string("--") + key + " shapes the search; a --plan is priced as given (equal stages of the model's own layers)",
                          std::string("--") + key);
    if (search) return make_error(ErrorCode::bad_argument, "--microbatches auto searches; with --plan give mbs= in the plan or --microbatches B", "--microbatches");
    request.plan = plan.value();
  }
  if (auto o = a.get("overlap")) {
    if (*o != "on" && *o != "off") return make_error(ErrorCode::bad_value, "--overlap is '" + *o + "'; use on or off (the gradient all-reduce overlapping the backward pass)", "--overlap");
    request.options.overlap_grad_sync = *o == "on";
  }
  request.options.mode = a.get("mode").value_or("alpa");
  const std::string& mode = request.options.mode;
  if (mode != "alpa" && mode != "intra-only" && mode != "inter-only")
    return make_error(ErrorCode::bad_value, "--mode must be alpa, intra-only or inter-only", "--mode");
  request.boundaries = !a.has("ignore-boundaries");
  request.brute_force = a.has("brute-force");
  // Checked with the request's other fields (validate).
  if (auto sched = a.get("schedule")) request.schedule = *sched;
  return request;
}

// The pass over a stage-cost file (--stage-costs FILE).
Result<std::unique_ptr<InterJob>> stage_cost_file_job(const Args& a, const std::string& file, const InterRequest& request, bool search) {
  if (a.get("model")) return make_error(ErrorCode::bad_argument, "give either --model or --stage-costs, not both", "--stage-costs");
  if (search) return make_error(ErrorCode::bad_argument, "--microbatches auto plans the model at each count; a stage-cost file is for one count", "--microbatches");
  // A stage-cost file holds the layers and the stage costs: options that shape them would be ignored.
  for (const char* key : {"precision", "cluster", "layers", "max-layers", "zero", "optimizer", "ignore-boundaries"})
    if (a.has(key) || a.get(key))
      return make_error(ErrorCode::bad_argument, std::string("--") + key + " applies to --model; a stage-cost file already gives the layers and their costs " +
                                            "(without boundaries), so leave it out", std::string("--") + key);
  auto body = read_text_file(file);
  if (!body.ok()) return body.error();
  auto j = parse_json_text(body.value(), "stage-cost file '" + file + "'");
  if (!j.ok()) return j.error();
  auto t = stage_costs_from_json(j.value());
  if (!t.ok()) {
    Error e = t.error();
    e.message = "stage-cost file '" + file + "': " + e.message;
    return e;
  }
  return std::make_unique<InterJob>(t.value(), request);
}

// The words of a pass over a model onto the request (--max-layers, --layers, --zero,
// --optimizer, a plan's mbs=), checked by the request's validate.
Status model_words_onto(const Args& a, const Graph& g, InterRequest& request) {
  auto ml = layer_count_option(a, "max-layers", request.options.max_layers, "");
  if (!ml.ok()) return ml.error();
  request.options.max_layers = ml.value();
  auto nl = layer_count_option(a, "layers", 0, " (Alpa's automatic layer construction)");
  if (!nl.ok()) return nl.error();
  request.options.layers = nl.value();
  auto zero = zero_option(a, request.options.zero_stage);
  if (!zero.ok()) return zero.error();
  request.options.zero_stage = zero.value();
  if (request.plan && request.plan->zero_stage >= 0 && a.get("zero") && zero.value() != request.plan->zero_stage)
    return make_error(ErrorCode::bad_argument, "--zero " + std::to_string(zero.value()) + " contradicts the plan's zero=" + std::to_string(request.plan->zero_stage) +
                                          "; give one of them", "--zero");
  auto optimizer = optimizer_option(a);
  if (!optimizer.ok()) return optimizer.error();
  request.options.optimizer = optimizer.value();
  if (auto st = validate(request, cli_field_path()); !st.ok()) return st;
  if (request.plan && request.plan->micro_batch_size > 0) {
    if (a.get("microbatches")) return make_error(ErrorCode::bad_argument, "give the plan's mbs= or --microbatches, not both", "--microbatches");
    auto b = given_plan_microbatches(*request.plan, model_batch(g));
    if (!b.ok()) return b.error();
    request.microbatches = b.value();
  }
  return Ok{};
}

// --dump-stage-costs: the table is written as soon as it is complete, before the DP.
Status dump_stage_costs(InterJob& job, const std::string& path) {
  while (!job.done() && !job.stage_costs()) job.step(StepBudget::work(1));
  if (const StageCostTable* table = job.stage_costs()) {
    std::ofstream out(path);
    if (!out) return make_error(ErrorCode::io, "cannot write '" + path + "'", "--dump-stage-costs");
    out << stage_costs_to_json(*table).dump(1) << "\n";
  }
  return Ok{};
}

Result<Output> inter_command(const Args& a) {
  // "auto": the micro-batch count is searched (from 32, doubling and halving while it helps).
  const bool search = a.get("microbatches") == std::optional<std::string>("auto");
  auto request = inter_request_of_words(a, search);
  if (!request.ok()) return request.error();
  // --space alpa (Alpa's choices) or today (knob_search.h: the whole of today's space).
  const std::string space = a.get("space").value_or("alpa");
  if (space != "alpa" && space != "today") return make_error(ErrorCode::bad_value, "--space is '" + space + "'; use alpa (Alpa's choices) or today (also sequence, context and expert parallelism and the micro-batch size)", "--space");
  if (space == "today" && (request.value().plan || a.get("stage-costs")))
    return make_error(ErrorCode::bad_argument, "--space today searches a model's plan; leave out --plan and --stage-costs", "--space");
  request.value().space = space;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed_ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); };
  std::unique_ptr<InterJob> job;
  if (auto file = a.get("stage-costs")) {
    auto j = stage_cost_file_job(a, *file, request.value(), search);
    if (!j.ok()) return j.error();
    job = std::move(j.value());
  } else {
    if (!a.get("model")) return make_error(ErrorCode::missing_argument, "give --model M --cluster C, or --stage-costs FILE", "--model");
    auto g = model_option(a);
    if (!g.ok()) return g.error();
    auto c = cluster_option(a);
    if (!c.ok()) return c.error();
    if (auto st = model_words_onto(a, g.value(), request.value()); !st.ok()) return st.error();
    if (space == "today") {
      // Today's space: per stage SP, recomputation and ZeRO; B (from --microbatches, or 32 with auto), cp and ep searched.
      auto r = plan_inter_searching_knobs(g.value(), c.value(), request.value(), request.value().microbatches);
      if (!r.ok()) return r.error();
      InterReport report = r.value();
      report.elapsed_ms = elapsed_ms();
      return output_of(report);
    }
    if (search) {
      auto r = plan_inter_searching_microbatches(g.value(), c.value(), request.value(), request.value().microbatches);
      if (!r.ok()) return r.error();
      InterReport report = r.value();
      report.elapsed_ms = elapsed_ms();
      return output_of(report);
    }
    job = std::make_unique<InterJob>(g.value(), c.value(), request.value());
  }
  if (auto dump = a.get("dump-stage-costs"))
    if (auto st = dump_stage_costs(*job, *dump); !st.ok()) return st.error();
  const auto& r = run_to_end(*job);
  if (!r.ok()) return r.error();
  InterReport report = r.value();
  report.elapsed_ms = elapsed_ms();
  return output_of(report);
}

// `validate`: the published runs, their plans priced and (unless --price-only) planned.
Result<Output> validate_command(const Args& a) {
  ValidateRequest request;
  request.search = !a.has("price-only");
  request.full_search = a.has("full-search");
  if (auto names = a.get("run")) {
    for (const OptionItem& item : split_options(*names)) request.names.push_back(item.key);
    if (request.names.empty()) return make_error(ErrorCode::bad_value, "--run needs run names separated by commas (validate --price-only lists them)", "--run");
  }
  auto r = run_validation(request);
  if (!r.ok()) return r.error();
  return output_of(r.value());
}

}  // namespace

std::vector<Command> inter_commands() {
  return {
      {"inter", "Alpa's inter-op plan: pipeline stages on sub-meshes (or the price of a given t,p,d plan)",
       "--model M --cluster C --microbatches B|auto [--plan t=8,p=8,d=16[,mbs=2][,v=2][,sp=0|1][,recompute=none|selective|full (remat=0|1)][,recompute_layers=N]"
       "[,zero=0..3][,dist_opt=0|1][,reshard=0|1 (zero=3: free gathered weights after forward)][,cp=N][,ep=N][,first=N,last=N][,schedule=NAME]] [--schedule NAME|auto] [--space alpa|today] [--overlap on|off] [--precision fp32|tf32|bf16|fp16|fp8|mixed]",
       {{"model", "cluster", "microbatches", "stage-costs", "mode", "max-layers", "layers", "dump-stage-costs", "zero", "optimizer", "plan", "overlap",
         "schedule", "space"},
        {"brute-force", "ignore-boundaries"}},
       inter_command,
       "--plan prices that plan as given: p stages of equal layer counts (first=, last= for the end stages), each on\n"
       "t x cp x d GPUs; sp=1 is sequence parallelism, recompute= (remat=0|1 for none|full; full by default) and zero=\n"
       "hold on every stage (zero= left out: chosen per stage by memory). dist_opt=1 is Megatron-LM's distributed\n"
       "optimizer: zero=1 with FP32 main gradients, 6 + 12/d bytes per parameter in 16-bit precision (2 + 2 + 12/d\n"
       "under plain zero=1). MoE experts at ep=1 are whole on every GPU, their states sharded by zero= over t*cp*d.\n"
       "recompute_layers=N recomputes only the first N layers of each stage (each chunk under v=), Megatron-LM's\n"
       "--recompute-method block --recompute-num-layers N.\n"
       "cp= is context parallelism (each sequence split\n"
       "over cp GPUs, ring attention's K/V passes priced); ep= is expert parallelism for MoE models (ep dividing t*cp*d\n"
       "and the experts; dispatch and combine all-to-alls priced).\n"
       "A stage whose model states and in-flight micro-batches (1F1B: min(p - i, B) at stage i; interleaved:\n"
       "Megatron-LM's warm-up; schedule=NAME: that schedule's count) do not fit its GPUs is refused naming the stage\n"
       "and the bytes short.\n"
       "--schedule NAME plans for that schedule (the DP with each stage holding its micro-batches in flight: GPipe B,\n"
       "1F1B p - i, ZB-H1 p, ZB-H2 2p - 1, ...) and simulates the plan under it; auto does so for every schedule\n"
       "and keeps the least makespan that fits (the stage costs are computed once).\n\n"
       "--space today also chooses sequence parallelism per stage, the micro-batch count (from --microbatches, or 32 with auto),\n"
       "interleaved 1F1B's chunks per GPU (v = 2..8, by its closed form sum / v + (B - 1/v) t_max; 'interleave' in --json),\n"
       "cp (only when nothing fits without it) and ep (MoE models)\n"
       "options: --cluster --dump-stage-costs --layers --max-layers --microbatches --mode --model --optimizer --overlap --plan\n"
       "         --schedule --space --stage-costs --zero --brute-force --ignore-boundaries --json\n"},
      {"validate", "predictions against published training runs (Megatron-LM SC'21, Korthikanti et al. 2022, BLOOM, Alpa, NVIDIA's H100 recipes), fitted or held out: each plan priced, and autopar's own",
       "[--run NAME,...] [--price-only] [--full-search]", {{"run"}, {"price-only", "full-search"}}, validate_command},
  };
}

}  // namespace autopar::cli
