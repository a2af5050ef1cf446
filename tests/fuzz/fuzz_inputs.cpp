// libFuzzer targets for everything autopar reads from users: model, cluster, strategy and
// stage-cost JSON, sharding-spec strings, and the page's share links. Each target must return normally for any input
// (an Error is fine; a crash, an abort, a sanitizer report or a hang is a bug).
// Built with clang when AUTOPAR_FUZZ is on, once for all the targets: each fuzz_NAME program is
// fuzz_main.cpp with FUZZ_TARGET naming its reader here (autopar_fuzz::exercise_NAME).
#include <cstddef>
#include <cstdint>
#include <string>

#include "cluster_spec.h"
#include "inter_op.h"
#include "hf_config.h"
#include "json_io.h"
#include "models.h"
#include "share_link.h"
#include "sharding_spec.h"
#include "simulator.h"
#include "soap.h"

using namespace autopar;

namespace autopar_fuzz {

// A model that parses and builds is also simulated with a random strategy, so that what a
// file can express reaches the planners too.
void exercise_model(const std::string& text) {
  auto j = parse_json_text(text, "fuzz");
  if (!j.ok()) return;
  // A Hugging Face config goes through the same loader as --model FILE.json (small shape).
  auto g = is_hf_config(j.value()) ? load_model_json(text, "fuzz", "batch=1,seq=8")
                                   : [&]() -> Result<Graph> {
                                       auto spec = model_from_json(j.value());
                                       if (!spec.ok()) return spec.error();
                                       return build_graph(spec.value());
                                     }();
  if (!g.ok()) return;
  ops_table_json(g.value());
  model_to_json(g.value());
  if (g.value().ops.size() > 64) return;
  Cluster c = cluster_presets()[0].cluster;
  count_space(g.value(), c.num_devices());
  TaskGraph tg(g.value(), c, random_strategy(g.value(), c.num_devices(), 1));
  simulate_full(tg);
}

void exercise_cluster(const std::string& text) {
  auto j = parse_json_text(text, "fuzz");
  if (!j.ok()) return;
  auto c = cluster_from_json(j.value());
  if (!c.ok() || c.value().num_devices() > 64) return;
  auto g = load_model("mlp3:batch=8,hidden=64");
  TaskGraph tg(g.value(), c.value(), data_parallel(g.value(), c.value().num_devices()));
  simulate_full(tg);
}

void exercise_strategy(const std::string& text) {
  static const Graph g = load_model("alexnet").value();
  static const Cluster c = cluster_presets()[0].cluster;
  auto j = parse_json_text(text, "fuzz");
  if (!j.ok()) return;
  auto s = strategy_from_json(j.value(), g, c.num_devices());
  if (!s.ok()) return;
  TaskGraph tg(g, c, s.value());
  simulate_full(tg);
}

void exercise_stage_costs(const std::string& text) {
  auto j = parse_json_text(text, "fuzz");
  if (!j.ok()) return;
  auto t = stage_costs_from_json(j.value());
  if (!t.ok() || t.value().layers > 16 || t.value().nodes * t.value().gpus_per_node > 64) return;
  solve_inter_op(t.value(), 4);
}

void exercise_spec(const std::string& text) {
  auto s = parse_spec(text);
  if (!s.ok()) return;
  DeviceMesh m = mesh_from_costs(2, 4, "1,1", "1,1").value();
  Shape shape(s.value().dims.size(), 8);
  if (!validate_spec(s.value(), shape, m, "x").ok()) return;
  for (const ShardingSpec& t : all_specs(shape, m)) reshard(s.value(), t, shape, 4, m);
}

// A link is decoded; what a v=1 link decodes to must encode back to a link that decodes to the
// same state object (the older state=JSON form may hold keys no v=1 link can, such as "a.b"),
// and applying it either succeeds or leaves the page's settings exactly as they were.
void exercise_share_link(const std::string& text) {
  auto decoded = web::decode_share_fragment(text);
  if (!decoded.ok()) return;
  if (text.rfind("state=", 0) != 0) {
    auto again = web::decode_share_fragment(web::encode_share_fragment(decoded.value()));
    if (!again.ok() || again.value() != decoded.value()) __builtin_trap();
  }
  static web::AppState state;
  static bool initialised = false;
  if (!initialised) initialised = web::init_app_state(state).ok();
  const Json before = web::settings_to_json(state.settings);
  if (web::apply_share_fragment(state, text, "the link").ok()) {
    web::init_app_state(state);   // back to the default example for the next input
  } else if (web::settings_to_json(state.settings) != before) {
    __builtin_trap();
  }
}

}  // namespace autopar_fuzz
