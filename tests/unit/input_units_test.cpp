// Unit tests of issue 40's input and number pieces, without ImGui: the one number formatter
// (core/model/number_text.h: no "e+03" anywhere), the page's clamps (web/state/input_bounds.h:
// the core's own bounds, and a notice whenever a value moved), and an imported model file
// resized by overrides typed after its name (the page, the worker and the CLI agree).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "app_state.h"
#include "cluster.h"
#include "cluster_spec.h"
#include "input_bounds.h"
#include "models.h"
#include "number_text.h"
#include "page_result.h"
#include "page_strings.h"
#include "request_fields.h"
#include "worker_session.h"

using namespace autopar;
using namespace autopar::web;

namespace {

std::string file_text(const std::string& relative) {
  std::ifstream in(std::string(AUTOPAR_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has_exponent(const std::string& s) { return s.find("e+") != std::string::npos || s.find("e-") != std::string::npos; }

}  // namespace

TEST_CASE("numbers print in human units, never with printf's exponent") {
  // The three: 1000 MiB was "1e+03 MiB", 34,720 ms "3.472e+04 ms", 10^11.62 strategies.
  CHECK(format_bytes(1000.0 * 1024 * 1024) == "1000 MiB");
  CHECK(format_bytes(999.7 * 1024 * 1024) == "1000 MiB");   // three digits round up, no exponent
  CHECK(format_bytes(1.5 * 1024) == "1.5 KiB");
  CHECK(format_bytes(12) == "12 B");
  CHECK(format_bytes(170.0 * 1024 * 1024 * 1024) == "170 GiB");
  CHECK(format_ms(34720) == "34.7 s");
  CHECK(format_ms(352.2) == "352.2 ms");
  CHECK(format_ms(0.0125) == "12.5 \xc2\xb5s");
  CHECK(format_ms(750e3) == "12.5 min");            // 750 s
  CHECK(format_ms(2.5 * 3600e3) == "2.5 h");
  CHECK(format_power_of_ten(std::log10(4.17e11)) == "4.2 \xc3\x97 10\xc2\xb9\xc2\xb9");   // 4.2 × 10¹¹
  CHECK(format_power_of_ten(std::log10(3.7e22)) == "3.7 \xc3\x97 10\xc2\xb2\xc2\xb2");   // 3.7 × 10²²
  CHECK(format_power_of_ten(std::log10(17576.0)) == "17,576");
  CHECK(format_power_of_ten(std::log10(9.97e11)) == "1 \xc3\x97 10\xc2\xb9\xc2\xb2");   // 9.97 rounds up a decade
  CHECK(format_number(1e9, 6) == "1,000,000,000");
  CHECK(format_number(-5, 6) == "-5");
  CHECK(format_number(0.1, 4) == "0.1");
  CHECK(format_number(4.54e-5, 3) == "0.0000454");
  CHECK(format_number(1.5e-9, 2) == "1.5 \xc3\x97 10\xe2\x81\xbb\xe2\x81\xb9");   // 1.5 × 10⁻⁹
  CHECK(format_whole(1024) == "1,024");
  CHECK(format_whole(-4096) == "-4,096");
  CHECK(format_whole(999) == "999");
  CHECK(format_flops(1.23e9) == "1.23 GFLOP");
  CHECK(format_count(4100) == "4.1 k");
  CHECK(format_count(12) == "12");
  CHECK(format_percent(0.0004) == "0.04%");
  CHECK(format_percent(0.123) == "12.3%");
  // No exponent over 40 decades, for every formatter.
  for (double v = 1e-12; v < 1e28; v *= 7.3) {
    INFO(v);
    CHECK_FALSE(has_exponent(format_bytes(v)));
    CHECK_FALSE(has_exponent(format_flops(v)));
    CHECK_FALSE(has_exponent(format_count(v)));
    CHECK_FALSE(has_exponent(format_ms(v)));
    CHECK_FALSE(has_exponent(format_number(v)));
    CHECK_FALSE(has_exponent(format_percent(v)));
  }
}

TEST_CASE("the page's clamps use the core's bounds and always say so") {
  set_page_language(Language::en);
  // Beta: setState and the CLI take 0 .. 1e9 (kBetaBound); the slider clamps to the same ends.
  ClampedNumber low = clamp_to_bound(-5.0, kBetaBound, "beta");
  CHECK(low.value == 0);
  CHECK(low.clamped);
  CHECK(low.notice == "beta -5 is outside 0 .. 1,000,000,000 (the bound setState and the CLI check): used 0.");
  ClampedNumber high = clamp_to_bound(1e10, kBetaBound, "beta");
  CHECK(high.value == 1e9);
  CHECK(high.notice.find("used 1,000,000,000") != std::string::npos);
  ClampedNumber inside = clamp_to_bound(500.0, kBetaBound, "beta");
  CHECK(inside.value == 500);
  CHECK_FALSE(inside.clamped);
  CHECK(inside.notice.empty());
  // The same bound validate() checks: the clamped value passes, the typed one is refused.
  CHECK(check_bound(high.value, kBetaBound, "beta").ok());
  CHECK_FALSE(check_bound(1e10, kBetaBound, "beta").ok());
  ClampedWhole steps = clamp_to_bound(int64_t(0), kSearchStepsBound, "search.steps");
  CHECK(steps.value == 1);
  CHECK(steps.notice.find("search.steps 0 is outside 1 .. 100,000,000") == 0);
  // The "nodes 100000 ... used 4096 (2 x 4 = 8 GPUs)": the notice now names the cluster
  // that results, and that cluster passes validate_cluster.
  ClampedShape shape = clamp_cluster_shape(100000, 4);
  CHECK(shape.nodes == kMaxDevices / 4);
  CHECK(shape.gpus_per_node == 4);
  CHECK(shape.notice == "nodes 100,000 is outside 1 .. 32,768 for 4 GPUs per node: used 32,768. The cluster is now 32,768 x 4 = 131,072 GPUs (at most 131,072).");
  Cluster c = load_cluster("lecture:2x4").value();
  c.nodes = shape.nodes;
  c.gpus_per_node = shape.gpus_per_node;
  CHECK(validate_cluster(c).ok());
  ClampedShape gpus = clamp_cluster_shape(2, 1000);
  CHECK(gpus.gpus_per_node == kMaxGpusPerNode);
  CHECK(gpus.nodes == 2);
  CHECK(gpus.notice.find("GPUs per node 1,000 is outside 1 .. 72") == 0);
  CHECK(gpus.notice.find("2 x 72 = 144 GPUs") != std::string::npos);
  ClampedShape both = clamp_cluster_shape(-3, 0);
  CHECK((both.nodes == 1 && both.gpus_per_node == 1));
  CHECK_FALSE(clamp_cluster_shape(2, 4).clamped);
  // Chinese: the same numbers in the other table.
  set_page_language(Language::zh);
  CHECK(clamp_to_bound(-5.0, kBetaBound, "beta").notice.find("1,000,000,000") != std::string::npos);
  set_page_language(Language::en);
}

TEST_CASE("an imported model file takes overrides typed after its name, as the CLI's FILE.json:key=value") {
  const std::string path = "examples/models/hf/llama-3-8b.json";
  const ModelFileSpec spec = split_model_file_spec(path + ":batch=16,seq=2048");
  CHECK(spec.is_file);
  CHECK(spec.file == path);
  CHECK(spec.overrides == "batch=16,seq=2048");
  CHECK_FALSE(split_model_file_spec("mlp:layers=6").is_file);

  AppState state;
  REQUIRE(init_app_state(state).ok());
  Settings small = state.settings;
  small.cluster = "lecture:1x2";
  small.mesh = "1x2";
  REQUIRE(apply_settings(state, small).ok());
  REQUIRE(import_model_file(state, "llama-3-8b.json", file_text(path)).ok());
  const auto cli = load_model(std::string(AUTOPAR_SOURCE_DIR) + "/" + path + ":batch=16");
  REQUIRE(cli.ok());
  const auto cli_default = load_model(std::string(AUTOPAR_SOURCE_DIR) + "/" + path);
  REQUIRE(cli_default.ok());
  CHECK(state.graph.total_forward_flops() == cli_default.value().total_forward_flops());

  // Typed as in the Spec field, with the folder the CLI reads it from: the file stays imported.
  Settings next = state.settings;
  next.model = path + ":batch=16";
  REQUIRE(apply_settings(state, next).ok());
  CHECK(state.settings.model == "llama-3-8b.json:batch=16");
  CHECK_FALSE(state.settings.model_json.empty());
  CHECK(state.graph.ops.size() == cli.value().ops.size());
  CHECK(state.graph.total_param_elements() == cli.value().total_param_elements());
  CHECK(state.graph.total_forward_flops() == cli.value().total_forward_flops());
  CHECK(state.graph.total_forward_flops() != cli_default.value().total_forward_flops());

  // The workers build the same graph from the page's inputs.
  auto worker = graph_from_inputs(operation_inputs(state.settings));
  REQUIRE(worker.ok());
  CHECK(worker.value().total_forward_flops() == cli.value().total_forward_flops());

  // A bad override is refused naming it, and the model stays.
  next = state.settings;
  next.model = "llama-3-8b.json:batch=0";
  CHECK_FALSE(apply_settings(state, next).ok());
  CHECK(state.settings.model == "llama-3-8b.json:batch=16");
  // Another file by name: refused with the imported file's name in the message; nothing changes.
  next = state.settings;
  next.model = "mistral-7b.json:batch=2";
  const Status other = apply_settings(state, next);
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().message.find("llama-3-8b.json:batch=16") != std::string::npos);
  CHECK(state.settings.model == "llama-3-8b.json:batch=16");
  CHECK_FALSE(state.settings.model_json.empty());
  // A built-in model by name leaves the file.
  next = state.settings;
  next.model = "mlp3";
  REQUIRE(apply_settings(state, next).ok());
  CHECK(state.settings.model_json.empty());
}
