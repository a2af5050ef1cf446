// Unit tests of JSON reading and writing: round trips of every built-in model and preset,
// the files in examples/ loading to identical graphs, and malformed JSON with its path.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "error_code_printing.h"
#include "cluster_spec.h"
#include "json_io.h"
#include "models.h"

using namespace autopar;

namespace {

Error model_json_error(const std::string& text) {
  auto j = parse_json_text(text, "test");
  if (!j.ok()) return j.error();
  auto spec = model_from_json(j.value());
  if (!spec.ok()) return spec.error();
  auto g = build_graph(spec.value());
  REQUIRE_FALSE(g.ok());
  return g.error();
}

Error cluster_json_error(const Json& j) {
  auto c = cluster_from_json(j);
  REQUIRE_FALSE(c.ok());
  return c.error();
}

const char* kTiny = R"({"name":"t","inputs":[{"name":"x","shape":[4,8]}],
  "ops":[{"name":"a","kind":"linear","inputs":["x"],"output":"h","attrs":{"out_features":2}}]})";

}  // namespace

TEST_CASE("every built-in model round-trips through JSON to an identical graph") {
  for (const auto& m : builtin_models()) {
    CAPTURE(m.name);
    auto g = load_model(m.name);
    REQUIRE(g.ok());
    Json j = model_to_json(g.value());
    auto back = parse_json_text(j.dump(), "round trip");
    REQUIRE(back.ok());
    auto spec = model_from_json(back.value());
    REQUIRE(spec.ok());
    auto g2 = build_graph(spec.value());
    REQUIRE(g2.ok());
    CHECK(g2.value().spec == g.value().spec);
    CHECK(model_to_json(g2.value()).dump() == j.dump());
    CHECK(ops_table_json(g2.value()).dump() == ops_table_json(g.value()).dump());
  }
}

TEST_CASE("every file in examples/ loads to the same graph or cluster as its built-in") {
  namespace fs = std::filesystem;
  int models = 0, clusters = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(AUTOPAR_SOURCE_DIR) / "examples" / "models")) {
    if (!entry.is_regular_file()) continue;   // examples/models/hf holds Hugging Face configs (hf_config_test.cpp)
    CAPTURE(entry.path().string());
    auto file = load_model(entry.path().string());
    REQUIRE(file.ok());
    auto builtin = load_model(entry.path().stem().string());
    REQUIRE(builtin.ok());
    CHECK(file.value().spec == builtin.value().spec);
    CHECK(model_to_json(file.value()).dump() == model_to_json(builtin.value()).dump());
    ++models;
  }
  for (const auto& entry : fs::directory_iterator(fs::path(AUTOPAR_SOURCE_DIR) / "examples" / "clusters")) {
    CAPTURE(entry.path().string());
    auto file = load_cluster(entry.path().string());
    REQUIRE(file.ok());
    auto preset = load_cluster(entry.path().stem().string());
    REQUIRE(preset.ok());
    CHECK(file.value() == preset.value());
    ++clusters;
  }
  CHECK(models == int(builtin_models().size()));
  CHECK(clusters == int(cluster_presets().size()));
}

TEST_CASE("malformed model JSON: syntax, types, missing fields, unknown kinds") {
  Error syntax = model_json_error("{\"name\": \"t\",\n \"inputs\": [1, 2\n}");
  CHECK(syntax.code == ErrorCode::bad_json);
  CHECK(syntax.message.find("line 3") != std::string::npos);
  CHECK(model_json_error("").code == ErrorCode::bad_json);

  Error top = model_json_error("[1, 2]");
  CHECK(top.code == ErrorCode::wrong_type);

  Error missing = model_json_error(R"({"name":"t","inputs":[{"name":"x","shape":[4]}]})");
  CHECK(missing.code == ErrorCode::missing_field);
  CHECK(missing.path == "ops");

  Error type = model_json_error(R"({"name":"t","inputs":[{"name":"x","shape":[4,"8"]}],"ops":[]})");
  CHECK(type.code == ErrorCode::wrong_type);
  CHECK(type.path == "inputs[0].shape[1]");

  Error frac = model_json_error(R"({"name":"t","inputs":[{"name":"x","shape":[4,8.5]}],"ops":[]})");
  CHECK(frac.code == ErrorCode::wrong_type);

  Error kind = model_json_error(R"({"name":"t","inputs":[{"name":"x","shape":[4,8]}],
    "ops":[{"name":"a","kind":"lstm","inputs":["x"],"output":"h"}]})");
  CHECK(kind.code == ErrorCode::unknown_kind);
  CHECK(kind.path == "ops[0].kind");
  CHECK(kind.message.find("linear") != std::string::npos);

  Error typo = model_json_error(R"({"name":"t","input":[],"ops":[]})");
  CHECK(typo.code == ErrorCode::unknown_field);
  CHECK(typo.path == "input");

  Error attr = model_json_error(R"({"name":"t","inputs":[{"name":"x","shape":[4,8]}],
    "ops":[{"name":"a","kind":"linear","inputs":["x"],"output":"h","attrs":{"out_features":"2"}}]})");
  CHECK(attr.code == ErrorCode::wrong_type);
  CHECK(attr.path == "ops[0].attrs.out_features");

  Error version = model_json_error(R"({"format":"autopar-model","version":7,"name":"t","inputs":[],"ops":[]})");
  CHECK(version.path == "version");

  auto ok = parse_json_text(kTiny, "tiny");
  REQUIRE(ok.ok());
  auto spec = model_from_json(ok.value());
  REQUIRE(spec.ok());
  CHECK(build_graph(spec.value()).ok());
}

TEST_CASE("cluster presets are valid and round-trip through JSON") {
  REQUIRE(cluster_presets().size() == 9);
  const char* names[] = {"lecture", "p100", "k80", "v100", "a100", "h100", "h200", "b200", "gb200"};
  for (size_t i = 0; i < 9; ++i) {
    const Cluster& c = cluster_presets()[i].cluster;
    CAPTURE(c.name);
    CHECK(c.name == names[i]);
    CHECK(validate_cluster(c).ok());
    CHECK_FALSE(c.sources.empty());
    auto back = cluster_from_json(cluster_to_json(c));
    REQUIRE(back.ok());
    CHECK(back.value() == c);
  }
}

TEST_CASE("cluster arguments and units") {
  auto c = load_cluster("lecture:2x4");
  REQUIRE(c.ok());
  CHECK(c.value().num_devices() == 8);
  CHECK(c.value().node_of(3) == 0);
  CHECK(c.value().node_of(4) == 1);
  // Devices 0 and 5 are on different nodes: 1.25 GB/s = 1.25e6 bytes/ms, 50 us latency.
  const LinkSpec& link = c.value().link_between(0, 5);
  CHECK(link.transfer_ms(1.25e6) == doctest::Approx(1.05));
  CHECK(c.value().link_between(0, 3).bandwidth_gb_per_s == 16);
  CHECK(c.value().gpu.peak_flops_per_ms() == doctest::Approx(10.6e9));
  CHECK(cluster_spec_string(c.value()) == "lecture:2x4");

  auto def = load_cluster("a100");
  REQUIRE(def.ok());
  CHECK(def.value().num_devices() == 8);

  for (const char* bad : {"lecture:0x4", "lecture:2x0", "lecture:2", "lecture:axb", "lecture:65537x2", "lecture:1x73", "tpu:2x4"}) {
    CAPTURE(bad);
    auto e = load_cluster(bad);
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().path == "--cluster");
  }
}

TEST_CASE("impossible cluster numbers are refused with their JSON path") {
  Json base = cluster_to_json(cluster_presets()[0].cluster);
  Json j = base;
  j["inter_node"]["bandwidth_gb_per_s"] = -1.0;
  Error neg = cluster_json_error(j);
  CHECK(neg.code == ErrorCode::out_of_range);
  CHECK(neg.path == "inter_node.bandwidth_gb_per_s");

  j = base;
  j["gpu"]["peak_tflops"] = 0;
  CHECK(cluster_json_error(j).path == "gpu.peak_tflops");

  j = base;
  j["intra_node"]["latency_us"] = "fast";
  Error type = cluster_json_error(j);
  CHECK(type.code == ErrorCode::wrong_type);
  CHECK(type.path == "intra_node.latency_us");

  j = base;
  j["nodes"] = 1000000;
  CHECK(cluster_json_error(j).code == ErrorCode::out_of_range);

  j = base;
  j["nodes"] = 16384;
  j["gpus_per_node"] = 16;   // 262,144 GPUs, over the 131,072 accepted
  CHECK(cluster_json_error(j).code == ErrorCode::too_large);

  j = base;
  j.erase("gpu");
  CHECK(cluster_json_error(j).path == "gpu");

  Cluster c = cluster_presets()[0].cluster;
  c.intra_node.bandwidth_gb_per_s = std::numeric_limits<double>::quiet_NaN();
  auto s = validate_cluster(c);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().path == "intra_node.bandwidth_gb_per_s");
  c = cluster_presets()[0].cluster;
  c.gpu.memory_gib = std::numeric_limits<double>::infinity();
  CHECK_FALSE(validate_cluster(c).ok());
  c = cluster_presets()[0].cluster;
  c.inter_node.bandwidth_gb_per_s = 1e300;
  CHECK_FALSE(validate_cluster(c).ok());
}

TEST_CASE("option lists split the same way for models, model files and clusters") {
  auto items = split_options("batch=8,,seq=2048,flag,x=");
  REQUIRE(items.size() == 4);
  CHECK(items[0].key == "batch");
  CHECK(items[0].value == "8");
  CHECK(items[1].key == "seq");
  CHECK(items[2].key == "flag");
  CHECK_FALSE(items[2].has_value);
  CHECK(items[3].has_value);
  CHECK(items[3].value.empty());
  CHECK(split_options("").empty());
  // The callers keep their messages: an item with no value is a bad value, an unknown key is named.
  auto m = load_model("mlp:layers");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code == ErrorCode::bad_value);
  auto c = load_cluster("a100:1x8,colour=red", "cluster");
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.find("colour=red") != std::string::npos);
}

TEST_CASE("reading a file: a folder and an endless device are refused for what they are, without hanging") {
  // A folder named like a model file was called "larger than 64 MiB" (its seek end is huge), and
  // /dev/zero was read forever: the size came from seeking, not from what was read.
  const std::string folder = "read_text_file_test_folder.json";
  std::filesystem::create_directory(folder);
  auto dir = read_text_file(folder);
  std::filesystem::remove(folder);
  REQUIRE(!dir.ok());
  CHECK(dir.error().code == ErrorCode::io);
  CHECK(dir.error().message.find("folder") != std::string::npos);
  auto endless = read_text_file("/dev/zero");
  REQUIRE(!endless.ok());
  CHECK(endless.error().code == ErrorCode::too_large);
  // An ordinary file still reads whole.
  auto ok = read_text_file(std::string(AUTOPAR_SOURCE_DIR) + "/examples/models/mlp3.json");
  REQUIRE(ok.ok());
  CHECK(ok.value().find("\"mlp3\"") != std::string::npos);
}
