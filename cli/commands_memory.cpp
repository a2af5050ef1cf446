// `autopar memory`: training memory per device (ZeRO's model states, Korthikanti et al.'s
// activations) for a model on a cluster with data and tensor parallelism: core/operations/memory_operation.h.
#include <cstdio>
#include <sstream>

#include "cluster_spec.h"
#include "commands.h"
#include "device_mesh.h"
#include "inter_operation.h"
#include "memory_operation.h"
#include "models.h"
#include "operation_requests.h"

namespace autopar::cli {
namespace {

Result<Output> memory_command(const Args& a) {
  auto g = model_option(a);
  if (!g.ok()) return g.error();
  auto c = cluster_option(a);
  if (!c.ok()) return c.error();
  const int devices = c.value().num_devices();
  if (auto text = a.get("plan")) {
    // A pipeline plan (inter --plan's syntax): memory per stage with its in-flight micro-batches.
    for (const char* key : {"mesh", "dp", "remat"})
      if (a.has(key) || a.get(key))
        return make_error(ErrorCode::bad_argument, std::string("--") + key + " describes a plan without pipelining; with --plan give t=, d=, recompute= in the plan",
                          std::string("--") + key);
    auto plan = parse_given_plan(*text);
    if (!plan.ok()) return plan.error();
    GivenPlan gp = plan.value();
    auto zero = zero_option(a, -1);
    if (!zero.ok()) return zero.error();
    if (zero.value() >= 0 && gp.zero_stage < 0) gp.zero_stage = int(zero.value());
    auto optimizer = optimizer_option(a);
    if (!optimizer.ok()) return optimizer.error();
    int microbatches = 0;
    if (gp.micro_batch_size > 0) {
      if (a.get("microbatches")) return make_error(ErrorCode::bad_argument, "give the plan's mbs= or --microbatches, not both", "--microbatches");
      auto b = given_plan_microbatches(gp, model_batch(g.value()));
      if (!b.ok()) return b.error();
      microbatches = b.value();
    } else {
      auto b = whole_option(a, "microbatches", 1);
      if (!b.ok()) return b.error();
      if (auto st = check_bound(b.value(), kMicrobatchesBound, "--microbatches"); !st.ok()) return st.error();
      microbatches = int(b.value());
    }
    auto r = plan_memory_operation(g.value(), c.value(), gp, microbatches, optimizer.value());
    if (!r.ok()) return r.error();
    return output_of(r.value());
  }
  MemoryOptions o;
  // Devices: the cluster's, as an R x C mesh (rows data parallel, columns tensor parallel, as
  // Megatron-LM places them: the fast links inside a node carry the tensor-parallel traffic).
  // Without a mesh, all GPUs are data parallel as far as the batch allows (a replica needs a
  // sample): the largest divisor of the GPU count up to the batch, the rest tensor parallel.
  const int64_t batch = model_batch(g.value());
  int rows = devices, cols = 1;
  while (batch > 0 && rows > batch) {
    do --rows; while (devices % rows != 0);
    cols = devices / rows;
  }
  if (auto mesh = a.get("mesh")) {
    auto shape = parse_mesh_shape(*mesh);
    if (!shape.ok()) return shape.error();
    rows = shape.value().first;
    cols = shape.value().second;
    if (rows * cols != devices)
      return make_error(ErrorCode::bad_value, "the mesh " + *mesh + " has " + std::to_string(rows * cols) + " devices but the cluster has " +
                                         std::to_string(devices) + "; use a mesh of all its GPUs", "--mesh");
  }
  auto dp = int_option(a, "dp", rows, WholeBound{1, devices});
  if (!dp.ok()) return dp.error();
  // A mesh's rows are its data-parallel degree: a different --dp would silently override it.
  if (a.get("mesh") && dp.value() != rows)
    return make_error(ErrorCode::bad_argument, "--dp " + std::to_string(dp.value()) + " contradicts --mesh " + *a.get("mesh") + " (" + std::to_string(rows) +
                                          "-way data parallel); give one of them", "--dp");
  if (devices % dp.value() != 0)
    return make_error(ErrorCode::bad_value, "--dp " + std::to_string(dp.value()) + " does not divide the " + std::to_string(devices) +
                                       " GPUs; the rest of each group is tensor parallel", "--dp");
  o.data_parallel = int(dp.value());
  o.tensor_parallel = devices / o.data_parallel;
  auto zero = zero_option(a, 0);
  if (!zero.ok()) return zero.error();
  o.zero_stage = zero.value();
  auto optimizer = optimizer_option(a);
  if (!optimizer.ok()) return optimizer.error();
  o.optimizer = optimizer.value();
  // Without --precision the model's dtype decides: 16-bit floats train in mixed precision.
  o.precision = a.get("precision") ? *parse_precision(*a.get("precision"))
                                   : g.value().spec.dtype == DType::f16 ? Precision::mixed : Precision::fp32;
  o.remat = a.has("remat");
  if (auto st = validate(o, cli_field_path()); !st.ok()) return st.error();
  auto r = memory_operation(g.value(), c.value(), o);
  if (!r.ok()) return r.error();
  return output_of(r.value());
}

}  // namespace

std::vector<Command> memory_commands() {
  return {{"memory", "training memory per GPU: parameters, gradients, optimizer state (ZeRO), activations (recomputation)",
           "--model M --cluster C [--mesh RxC] [--dp N] [--zero 0|1|2|3] [--optimizer adam|sgd] [--precision fp32|tf32|bf16|fp16|fp8|mixed] [--remat] "
           "[--plan t=8,p=8,d=1,mbs=1[,v=3,sp=1,recompute=none|selective|full,recompute_layers=N,zero=1|dist_opt=1] [--microbatches B]] [--json]",
           {{"model", "cluster", "mesh", "dp", "zero", "optimizer", "precision", "plan", "microbatches"}, {"remat"}},
           memory_command,
           "--plan (inter --plan's syntax; not with --mesh, --dp or --remat): memory per pipeline stage, its model states,\n"
           "one micro-batch's activations and the micro-batches its schedule holds in flight (1F1B: min(p - i, B) at\n"
           "stage i of p); B from the plan's mbs= or --microbatches (default 1). A stage that does not fit is reported.\n"
           "dist_opt=1 is Megatron-LM's distributed optimizer (zero=1 with FP32 main gradients: 6 + 12/d bytes per\n"
           "parameter in 16-bit precision).\n\n"
           "options: --cluster --dp --mesh --microbatches --model --optimizer --plan --zero --remat --json\n"}};
}

}  // namespace autopar::cli
