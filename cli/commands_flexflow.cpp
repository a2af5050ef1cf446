// CLI commands of the FlexFlow half (INTERFACES.md): space, simulate, search, exhaustive,
// accuracy and the conv1d demo. Each parses its words, calls the operation
// (core/operations/flexflow_operations.h, search_operation.h, accuracy_operation.h) and renders
// its report.
#include "accuracy_operation.h"
#include "commands.h"
#include "flexflow_operations.h"
#include "models.h"
#include "operation_requests.h"
#include "search_operation.h"
#include "strategy_argument.h"

namespace autopar::cli {
namespace {

Result<Output> space_command(const Args& a) {
  auto g = model_option(a);
  if (!g.ok()) return g.error();
  auto c = cluster_option(a);
  if (!c.ok()) return c.error();
  return output_of(space_operation(g.value(), c.value()));
}

Result<Output> simulate_command(const Args& a) {
  auto g = model_option(a);
  if (!g.ok()) return g.error();
  auto c = cluster_option(a);
  if (!c.ok()) return c.error();
  auto s = load_strategy(a.get("strategy").value_or("dp"), g.value(), c.value());
  if (!s.ok()) return s.error();
  if (auto st = check_simulation_size(strategy_parts(s.value()), "this strategy", "--strategy"); !st.ok()) return st.error();
  // The words onto the request, then its one check (operation_requests.h).
  auto optimizer = optimizer_option(a);
  if (!optimizer.ok()) return optimizer.error();
  SimulateRequest request;
  request.strategy = s.value();
  request.expert = a.get("strategy").value_or("dp") == "expert";
  request.optimizer = optimizer.value();
  if (a.get("zero")) {
    auto zero = whole_option(a, "zero", -1);
    if (!zero.ok()) return zero.error();
    // Checked before narrowing to int, as the worker does.
    if (auto st = check_bound(zero.value(), kZeroStageBound, "--zero"); !st.ok()) return st.error();
    request.zero_stage = int(zero.value());
  }
  request.remat = a.has("remat");
  // Each picks the cost model: --fine replaced --calibrated without a word.
  if (auto st = check_cost_model_choice(a.has("calibrated"), a.get("fine").has_value(), cli_field_path()); !st.ok()) return st.error();
  if (a.has("calibrated")) request.cost.mode = CostMode::calibrated;
  if (a.get("fine")) {
    auto seed = whole_option(a, "fine", 0);
    if (!seed.ok()) return seed.error();
    auto checked = seed_from_whole(seed.value(), "--fine");
    if (!checked.ok()) return checked.error();
    request.cost.mode = CostMode::fine;
    request.cost.jitter_seed = checked.value();
  }
  request.trace = a.get("trace").has_value();
  request.task_graph = a.get("taskgraph").has_value();
  if (auto st = validate(request, cli_field_path()); !st.ok()) return st.error();
  const SimulateReport r = simulate_operation(g.value(), c.value(), request);
  if (auto path = a.get("trace"))
    if (auto st = write_file(*path, r.trace->dump() + "\n", "--trace"); !st.ok()) return st.error();
  if (auto path = a.get("taskgraph"))
    if (auto st = write_file(*path, r.task_graph->dump(1) + "\n", "--taskgraph"); !st.ok()) return st.error();
  return output_of(r);
}

Result<Output> search_command(const Args& a) {
  auto g = model_option(a);
  if (!g.ok()) return g.error();
  auto c = cluster_option(a);
  if (!c.ok()) return c.error();
  // The words onto the request, then its one check (operation_requests.h).
  SearchRequest request;
  auto beta = number_option(a, "beta", request.beta);
  if (!beta.ok()) return beta.error();
  auto steps = whole_option(a, "steps", request.steps);
  if (!steps.ok()) return steps.error();
  auto budget = number_option(a, "budget-ms", request.budget_ms);
  if (!budget.ok()) return budget.error();
  auto seed = seed_option(a, request.seed);
  if (!seed.ok()) return seed.error();
  auto optimizer = optimizer_option(a);
  if (!optimizer.ok()) return optimizer.error();
  const std::string moves = a.get("memory-moves").value_or("auto");
  if (moves != "auto" && moves != "on" && moves != "off")
    return make_error(ErrorCode::bad_value, "--memory-moves is '" + moves + "'; use auto (when the initial strategy does not fit), on or off", "--memory-moves");
  request.beta = beta.value();
  request.steps = steps.value();
  request.budget_ms = budget.value();
  request.seed = seed.value();
  request.optimizer = optimizer.value();
  request.full_sim = a.has("full-sim");
  request.init = a.get("init").value_or(request.init);
  request.memory_moves = moves == "on" ? 1 : moves == "off" ? 0 : -1;
  if (auto st = validate(request, cli_field_path()); !st.ok()) return st.error();
  SearchJob job(std::move(g.value()), std::move(c.value()), request, "--init");
  const auto& r = run_to_end(job);
  if (!r.ok()) return r.error();
  return output_of(r.value());
}

Result<Output> exhaustive_command(const Args& a) {
  auto g = model_option(a);
  if (!g.ok()) return g.error();
  auto c = cluster_option(a);
  if (!c.ok()) return c.error();
  auto r = exhaustive_operation(g.value(), c.value());
  if (!r.ok()) return r.error();
  return output_of(r.value());
}

Result<Output> accuracy_command(const Args& a) {
  auto g = model_option(a);
  if (!g.ok()) return g.error();
  auto c = cluster_option(a);
  if (!c.ok()) return c.error();
  AccuracyRequest request;
  auto samples = whole_option(a, "samples", request.samples);
  if (!samples.ok()) return samples.error();
  auto seed = seed_option(a, request.seed);
  if (!seed.ok()) return seed.error();
  // Checked before narrowing to the request's int.
  if (auto st = check_bound(samples.value(), kAccuracySamplesBound, "--samples"); !st.ok()) return st.error();
  request.samples = int(samples.value());
  request.seed = seed.value();
  request.simulator = a.has("calibrated") ? CostMode::calibrated : CostMode::ideal;
  if (auto st = validate(request, cli_field_path()); !st.ok()) return st.error();
  AccuracyJob job(std::move(g.value()), std::move(c.value()), request);
  const auto& r = run_to_end(job);
  if (!r.ok()) return r.error();
  return output_of(r.value());
}

Result<Output> conv1d_command(const Args& a) {
  auto gpus = int_option(a, "gpus", 4, WholeBound{1, 64});
  if (!gpus.ok()) return gpus.error();
  auto g = load_model(a.get("model").value_or("conv1d"));
  if (!g.ok()) return g.error();
  auto r = conv1d_operation(g.value(), int(gpus.value()));
  if (!r.ok()) return r.error();
  return output_of(r.value());
}

}  // namespace

std::vector<Command> flexflow_commands() {
  const std::set<std::string> mc{"model", "cluster"};
  auto with = [&](std::set<std::string> more) {
    more.insert(mc.begin(), mc.end());
    return more;
  };
  return {
      {"space", "count the SOAP configurations per op and the strategies in all", "--model M --cluster C", {mc, {}}, space_command},
      {"simulate", "simulate one strategy: makespan and breakdown", "--model M --cluster C --strategy S [--zero 0|1|2|3] [--remat] [--optimizer adam|sgd]",
       {with({"strategy", "fine", "trace", "taskgraph", "optimizer", "zero"}), {"calibrated", "remat"}}, simulate_command},
      {"search", "MCMC search for a fast strategy", "--model M --cluster C --beta B --steps N --seed S [--memory-moves auto|on|off] [--optimizer adam|sgd]",
       {with({"beta", "steps", "budget-ms", "seed", "init", "optimizer", "memory-moves"}), {"full-sim"}}, search_command},
      {"exhaustive", "simulate every strategy of a small space", "--model M --cluster C", {mc, {}}, exhaustive_command},
      {"accuracy", "compare the simulator with the finer execution model", "--model M --cluster C --samples N",
       {with({"samples", "seed"}), {"calibrated"}}, accuracy_command},
      {"conv1d", "the lecture's 1-D convolution split six ways, checked numerically", "--gpus 4", {{"gpus", "model"}, {}}, conv1d_command},
  };
}

}  // namespace autopar::cli
