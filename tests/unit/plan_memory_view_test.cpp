// The page's memory per pipeline stage (web/views/plan_memory_view.h, getState().plan): the
// numbers it shows are `autopar memory --plan`'s for the same plan, to the bit, on a 126-layer
// imported model (Llama 3.1 405B's Hugging Face config) and on a built-in one; the plan knobs'
// bounds are the core's, named by field; the cache answers a plan seen before without the worker.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "commands.h"
#include "page_fixture.h"
#include "page_result.h"
#include "plan_knobs.h"
#include "plan_memory_view.h"
#include "settings_json.h"
#include "share_link.h"

using namespace autopar;
using namespace autopar::web;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The view's report for the state's plan, computed by the in-process worker.
const PlanMemoryReport& view_report(AppState& state) {
  const PlanMemoryInputs in = plan_memory_inputs(state.settings);
  for (int k = 0; k < 50 && !cached_plan_memory(state.plan_memory, in); ++k) follow_plan_memory(state.plan_memory, *state.alpa.inter.worker, in);
  const Result<PlanMemoryReport>* r = cached_plan_memory(state.plan_memory, in);
  REQUIRE(r != nullptr);
  REQUIRE_MESSAGE(r->ok(), r->error().message);
  return r->value();
}

// `autopar memory --plan` with the same words, as JSON.
Json cli_memory(const std::vector<std::string>& words) {
  std::vector<std::string> all{"memory"};
  all.insert(all.end(), words.begin(), words.end());
  all.push_back("--json");
  auto out = cli::run_command(all);
  REQUIRE_MESSAGE(out.ok(), out.error().message);
  return out.value().json;
}

void check_same_stages(const PlanMemoryReport& view, const Json& cli) {
  REQUIRE(cli["stages"].size() == view.stages.size());
  CHECK(cli["capacity_bytes"].get<double>() == view.capacity_bytes);
  for (size_t k = 0; k < view.stages.size(); ++k) {
    const Json& s = cli["stages"][k];
    const PlanStageMemory& v = view.stages[k];
    CAPTURE(k);
    CHECK(s["total_bytes"].get<double>() == v.total_bytes);
    CHECK(s["params_bytes"].get<double>() == v.params_bytes);
    CHECK(s["grads_bytes"].get<double>() == v.grads_bytes);
    CHECK(s["optimizer_bytes"].get<double>() == v.optimizer_bytes);
    CHECK(s["activation_bytes"].get<double>() == v.activation_bytes);
    CHECK(s["inflight_microbatches"].get<double>() == v.inflight_microbatches);
    CHECK(s["fits"].get<bool>() == v.fits);
    CHECK(s["layers"][0].get<int>() == v.first_layer);
    CHECK(s["layers"][1].get<int>() == v.last_layer);
  }
}

}  // namespace

TEST_CASE("plan memory view: a 126-layer imported model's per-stage totals equal autopar memory --plan") {
  AppState state = test::fresh_page_state();
  const std::string file = std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/hf/llama-3.1-405b.json";
  Settings next = state.settings;
  next.model = "llama-3.1-405b.json:batch=16";
  next.model_json = read_text(file);
  next.cluster = "h100:16x8";
  next.mesh = "16x8";
  next.precision = "bf16";
  // Meta's layout on one data-parallel replica: t8, p16 (126 layers: 6 + 14 x 8 + 8), SP, selective recomputation.
  next.plan = PlanSettings{};
  next.plan.tp = 8, next.plan.pp = 16, next.plan.dp = 1, next.plan.first = 6, next.plan.last = 8;
  next.plan.sp = true, next.plan.recompute = "selective", next.plan.zero = 1;
  next.microbatches = 16;
  REQUIRE(apply_settings(state, next).ok());
  const PlanMemoryReport& view = view_report(state);
  CHECK(view.stages.size() == 16);
  check_same_stages(view, cli_memory({"--model", file + ":batch=16", "--cluster", "h100:16x8", "--precision", "bf16", "--plan",
                                      "t=8,p=16,d=1,first=6,last=8,sp=1,recompute=selective,zero=1", "--microbatches", "16"}));
  // Stage i of 1F1B holds min(p - i, B) micro-batches: 16 at the first stage, 1 at the last.
  CHECK(view.stages.front().inflight_microbatches == 16);
  CHECK(view.stages.back().inflight_microbatches == 1);

  // No recomputation: the first stage keeps 16 micro-batches' attention activations and does not fit.
  next = state.settings;
  next.plan.recompute = "none";
  next.plan.sp = false;
  REQUIRE(apply_settings(state, next).ok());
  const PlanMemoryReport& none = view_report(state);
  check_same_stages(none, cli_memory({"--model", file + ":batch=16", "--cluster", "h100:16x8", "--precision", "bf16", "--plan",
                                      "t=8,p=16,d=1,first=6,last=8,recompute=none,zero=1", "--microbatches", "16"}));
  CHECK_FALSE(none.stages.front().fits);
  const Json shown = result_to_json(state)["plan_memory"];
  CHECK(shown["fits"] == false);
  CHECK(shown["stages"][0]["total_bytes"].get<double>() == none.stages.front().total_bytes);

  // Moved back: the plan seen before is in the cache, so the view shows it without the worker.
  next = state.settings;
  next.plan.recompute = "selective";
  next.plan.sp = true;
  REQUIRE(apply_settings(state, next).ok());
  CHECK(cached_plan_memory(state.plan_memory, plan_memory_inputs(state.settings)) != nullptr);
  CHECK_FALSE(follow_plan_memory(state.plan_memory, *state.alpa.inter.worker, plan_memory_inputs(state.settings)));
  CHECK_FALSE(plan_memory_pending(state.plan_memory));
}

TEST_CASE("plan memory view: a built-in model with ZeRO-3, mbs and interleaving equals autopar memory --plan") {
  AppState state = test::fresh_page_state();
  Settings next = state.settings;
  next.model = "transformer:layers=8,batch=16,seq=1024,hidden=2048,heads=16";
  next.cluster = "a100:2x8";
  next.mesh = "2x8";
  next.plan = PlanSettings{};
  next.plan.tp = 2, next.plan.pp = 2, next.plan.dp = 4, next.plan.v = 2, next.plan.mbs = 1;
  next.plan.recompute = "none", next.plan.zero = 3, next.plan.reshard = false, next.plan.optimizer = "sgd";
  REQUIRE(apply_settings(state, next).ok());
  const PlanMemoryReport& view = view_report(state);
  CHECK(view.stages.size() == 2);
  check_same_stages(view, cli_memory({"--model", "transformer:layers=8,batch=16,seq=1024,hidden=2048,heads=16", "--cluster", "a100:2x8", "--plan",
                                      "t=2,p=2,d=4,v=2,mbs=1,recompute=none,zero=3,reshard=0", "--optimizer", "sgd"}));
}

TEST_CASE("plan settings: bounds named by field, the core's cross-field rules, JSON and share links keep every knob") {
  AppState state = test::fresh_page_state();
  for (const auto& bad_and_path : std::vector<std::pair<std::string, std::string>>{
           {R"({"plan":{"zero":4}})", "plan.zero"},          {R"({"plan":{"tp":0}})", "plan.tp"},
           {R"({"plan":{"cp":200000}})", "plan.cp"},        {R"({"plan":{"recompute":"some"}})", "plan.recompute"},
           {R"({"plan":{"sp":1}})", "plan.sp"},             {R"({"plan":{"tp":1,"sp":true}})", "plan"},
           {R"({"plan":{"reshard":false,"zero":1}})", "plan"}, {R"({"plan":{"optimizer":"lamb"}})", "plan.optimizer"},
           {R"({"plan":{"pipeline":2}})", "plan.pipeline"}, {R"({"plan":3})", "plan"}}) {
    // Not a structured binding: CAPTURE's lambda cannot capture one in C++17 (clang refuses).
    const std::string& bad = bad_and_path.first;
    const std::string& path = bad_and_path.second;
    CAPTURE(bad);
    const Status st = apply_settings_json(state, bad);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().path == path);
  }
  REQUIRE(apply_settings_json(state, R"({"cluster":"h100:2x8","mesh":"2x8","precision":"fp8","plan":{"tp":4,"pp":2,"dp":1,"cp":2,"ep":1,"v":2,"mbs":1,"first":2,"last":2,"sp":true,"recompute":"selective","zero":3,"reshard":false,"optimizer":"sgd"}})").ok());
  const Json j = settings_to_json(state.settings);
  CHECK(j["plan"]["cp"] == 2);
  CHECK(j["plan"]["recompute"] == "selective");
  CHECK(j["precision"] == "fp8");
  CHECK(plan_settings_text(state.settings.plan) == "t=4,p=2,d=1,cp=2,v=2,mbs=1,first=2,last=2,sp=1,recompute=selective,zero=3,reshard=0");
  const std::string link = share_fragment(state.settings);
  CHECK(link.find("plan.recompute=selective") != std::string::npos);
  AppState other = test::fresh_page_state();
  REQUIRE(apply_share_fragment(other, link, "the link").ok());
  CHECK(other.settings.plan == state.settings.plan);
  CHECK(other.settings.precision == "fp8");
}

namespace {

// The fields of two plans that differ, by name.
std::vector<std::string> changed_fields(const PlanSettings& a, const PlanSettings& b) {
  std::vector<std::string> out;
  const Json ja = plan_settings_to_json(a), jb = plan_settings_to_json(b);
  for (auto it = ja.begin(); it != ja.end(); ++it)
    if (jb[it.key()] != it.value()) out.push_back(it.key());
  return out;
}

PlanSettings meta_plan() {
  PlanSettings p;
  p.tp = 8, p.pp = 16, p.dp = 1, p.first = 6, p.last = 8, p.sp = true, p.recompute = "selective", p.zero = 1;
  return p;
}

}  // namespace

TEST_CASE("plan knobs: one step of each knob as its control makes it, the last move's way first") {
  const PlanSettings p = meta_plan();
  const std::vector<PlanKnobStep> steps = plan_knob_steps(p, 128, 126, p);
  std::map<std::string, std::vector<PlanSettings>> by_knob;
  for (const PlanKnobStep& s : steps) {
    CAPTURE(plan_settings_text(s.plan));
    CHECK(validate_plan_settings(s.plan).ok());
    // The knob itself moved one way; besides it only what its control refills (dp or pp, sp at tp 1).
    CHECK(s.direction == (plan_knob_value(s.plan, s.knob) > plan_knob_value(p, s.knob) ? 1 : -1));
    for (const std::string& f : changed_fields(p, s.plan)) {
      const bool refilled = (f == "dp" && (s.knob == PlanKnob::tp || s.knob == PlanKnob::pp || s.knob == PlanKnob::cp)) ||
                            (f == "pp" && s.knob == PlanKnob::dp) || (f == "reshard" && s.knob == PlanKnob::zero);
      CHECK_MESSAGE((f == plan_knob_name(s.knob) || refilled), f);
    }
    by_knob[plan_knob_name(s.knob)].push_back(s.plan);
  }
  // On 128 GPUs the degree sliders move over 1, 2, 4, ..., 128.
  REQUIRE(by_knob["tp"].size() == 2);
  CHECK(by_knob["tp"][0].tp == 4);
  CHECK(by_knob["tp"][0].dp == 2);   // 4 x 16 x 2 = 128
  CHECK(by_knob["tp"][1].tp == 16);
  CHECK(by_knob["pp"][0].pp == 8);
  CHECK(by_knob["pp"][0].dp == 2);
  REQUIRE(by_knob["dp"].size() == 1);   // dp 1 is the slider's left end
  CHECK(by_knob["dp"][0].dp == 2);
  CHECK(by_knob["dp"][0].pp == 8);    // dp refills pp
  CHECK(by_knob["first"].size() == 2);
  CHECK(by_knob["last"].size() == 2);
  CHECK(by_knob["sp"].size() == 1);
  CHECK(by_knob["recompute"].size() == 2);
  CHECK(by_knob["zero"].size() == 3);
  CHECK(by_knob["reshard"].empty());   // its box is disabled below ZeRO 3
  CHECK(by_knob["optimizer"].size() == 1);
  CHECK(steps.size() == 20);
  // The knobs in the controls' order when nothing moved; after tp moved down (16 -> 8), tp 4 first.
  CHECK(steps.front().knob == PlanKnob::tp);
  PlanSettings from = p;
  from.tp = 16;
  CHECK(plan_knob_steps(p, 128, 126, from).front().plan.tp == 4);
  PlanSettings up = p;
  up.recompute = "none";
  const auto after_recompute = plan_knob_steps(p, 128, 126, up);
  CHECK(after_recompute.front().knob == PlanKnob::recompute);
  CHECK(after_recompute.front().plan.recompute == "full");   // none -> selective goes on to full
  // tp down to 1 drops SP (it splits along the tensor-parallel group); ZeRO below 3 reshards.
  PlanSettings two = p;
  two.tp = 2, two.dp = 4;
  bool found = false;
  for (const PlanKnobStep& s : plan_knob_steps(two, 128, 126, two))
    if (s.knob == PlanKnob::tp && s.plan.tp == 1) found = !s.plan.sp && s.plan.dp == 8;
  CHECK(found);
  PlanSettings z3 = p;
  z3.zero = 3, z3.reshard = false;
  for (const PlanKnobStep& s : plan_knob_steps(z3, 128, 126, z3))
    if (s.knob == PlanKnob::zero) CHECK(s.plan.reshard);
}

TEST_CASE("plan memory view: the plans one knob step away are computed ahead while the worker is idle, so a step is a look-up") {
  AppState state = test::fresh_page_state();
  Settings next = state.settings;
  next.model = "transformer:layers=8,batch=16,seq=1024,hidden=2048,heads=16";
  next.cluster = "a100:2x8";
  next.mesh = "2x8";
  next.microbatches = 4;
  next.plan = PlanSettings{};
  next.plan.tp = 2, next.plan.pp = 2, next.plan.dp = 4, next.plan.recompute = "none", next.plan.zero = 1;
  REQUIRE(apply_settings(state, next).ok());
  WorkerClient& worker = *state.alpa.inter.worker;
  view_report(state);
  // Another job of the page's in the worker: nothing is computed ahead until it is taken.
  const int64_t other = worker.start("plan_memory", plan_memory_inputs(state.settings).worker_inputs, Json{{"plan", "t=1,p=1,d=16,recompute=full,zero=0"}});
  prefetch_plan_memory_around(state);
  CHECK(state.plan_memory.prefetched == 0);
  CHECK(state.plan_memory.prefetch_key.empty());
  while (!worker.take(other)) worker.step_local(1000);
  // Idle: one plan at a time until all the neighbours are cached.
  const size_t around = plan_memory_around(state).size();
  CHECK(around >= 15);
  CHECK(prefetch_plan_memory_around(state));
  CHECK(worker.pending() == 1);
  CHECK_FALSE(prefetch_plan_memory_around(state));   // one at a time
  for (int k = 0; k < 200 && (plan_memory_ahead_left(state.plan_memory) > 0 || !state.plan_memory.prefetch_key.empty()); ++k) {
    follow_plan_memory(state.plan_memory, worker, plan_memory_inputs(state.settings));
    prefetch_plan_memory_around(state);
  }
  CHECK(plan_memory_ahead_left(state.plan_memory) == 0);
  CHECK(state.plan_memory.prefetched == int64_t(around));
  // Each knob step is now cached: no worker job, and the numbers are the CLI's for that plan.
  const PlanSettings base = state.settings.plan;
  int compared = 0;
  for (const PlanKnobStep& step : plan_knob_steps(base, 16, 8, base)) {
    next = state.settings;
    next.plan = step.plan;
    REQUIRE(apply_settings(state, next).ok());
    const PlanMemoryInputs in = plan_memory_inputs(state.settings);
    CAPTURE(in.plan);
    const auto shown = plan_memory_to_show(state.plan_memory, in, 7);
    REQUIRE(shown.report != nullptr);
    CHECK_FALSE(shown.stale);
    CHECK(state.plan_memory.shown_frame == 7);
    CHECK_FALSE(follow_plan_memory(state.plan_memory, worker, in));
    CHECK_FALSE(plan_memory_pending(state.plan_memory));
    // The page's micro-batches unless the plan's mbs sets them (the CLI takes one or the other).
    std::vector<std::string> words{"memory", "--model", next.model, "--cluster", next.cluster, "--plan", in.plan, "--optimizer", in.optimizer, "--json"};
    if (in.plan.find("mbs=") == std::string::npos) words.insert(words.end() - 1, {"--microbatches", std::to_string(in.microbatches)});
    auto cli = cli::run_command(words);
    if (shown.report->ok()) {
      REQUIRE_MESSAGE(cli.ok(), cli.error().message);
      check_same_stages(shown.report->value(), cli.value().json);
      ++compared;
    } else {
      CHECK_FALSE(cli.ok());   // the CLI refuses the plan too (tp x pp x dp not the 16 GPUs, v not dividing...)
    }
  }
  CHECK(compared >= 10);
  CHECK(state.plan_memory.prefetch_hits == int64_t(around));
  // A plan asked for while it is computed ahead becomes the one awaited: no second job.
  next = state.settings;
  next.plan = base;
  REQUIRE(apply_settings(state, next).ok());
  PlanSettings far = base;
  far.v = 4, far.mbs = 2;
  next.plan = far;
  REQUIRE(apply_settings(state, next).ok());
  REQUIRE(prefetch_plan_memory_around(state));
  REQUIRE(worker.pending() == 1);
  const std::string ahead_key = state.plan_memory.prefetch_key;
  REQUIRE_FALSE(ahead_key.empty());
  const PlanMemoryInputs first_ahead = state.plan_memory.ahead[state.plan_memory.ahead_next - 1];
  next = state.settings;
  next.plan = plan_knob_steps(far, 16, 8, base).front().plan;
  REQUIRE(plan_memory_key(plan_memory_inputs(next)) == ahead_key);
  REQUIRE(apply_settings(state, next).ok());
  follow_plan_memory(state.plan_memory, worker, plan_memory_inputs(state.settings));
  CHECK((plan_memory_pending(state.plan_memory) || cached_plan_memory(state.plan_memory, first_ahead) != nullptr));
  CHECK(state.plan_memory.prefetch_key.empty());
  CHECK(worker.pending() <= 1);
}
