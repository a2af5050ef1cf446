// Share links (web/share_link) and model import (web/app_state): a state survives encode ->
// decode -> apply exactly; tampered links are refused with the key that is wrong and leave the
// state as it was; imported files are validated and named as text.
#include <doctest/doctest.h>

#include <optional>
#include <random>

#include "error_code_printing.h"
#include "app_state.h"
#include "models.h"
#include "page_fixture.h"
#include "plan_export.h"
#include "share_link.h"

using namespace autopar;
using namespace autopar::web;

namespace {

// The state after opening `fragment` on a fresh page.
AppState opened(const std::string& fragment) {
  AppState state = test::fresh_page_state();
  const Status s = apply_share_fragment(state, fragment, "the link");
  INFO(notice_line(state.notice));
  REQUIRE(s.ok());
  return state;
}

std::string mlp_model_text(int layers) {
  auto g = load_model("mlp:layers=" + std::to_string(layers));
  REQUIRE(g.ok());
  return model_to_json(g.value()).dump(1);
}

}  // namespace

TEST_CASE("base64url: known vectors, round trips of random bytes, refusals") {
  CHECK(base64url_encode("") == "");
  CHECK(base64url_encode("f") == "Zg");
  CHECK(base64url_encode("fo") == "Zm8");
  CHECK(base64url_encode("foobar") == "Zm9vYmFy");
  CHECK(base64url_encode("\xfb\xff") == "-_8");
  CHECK(base64url_decode("Zm9vYmE=", "p").value() == "fooba");
  std::mt19937 rng(7);
  for (int n = 0; n < 200; ++n) {
    std::string bytes(size_t(rng() % 64), '\0');
    for (char& c : bytes) c = char(rng() & 0xFF);
    auto back = base64url_decode(base64url_encode(bytes), "p");
    REQUIRE(back.ok());
    CHECK(back.value() == bytes);
  }
  auto bad = base64url_decode("Zm9v!", "link.model_json");
  REQUIRE(!bad.ok());
  CHECK(bad.error().path == "link.model_json");
  CHECK(!base64url_decode("Z", "p").ok());   // one character cannot hold a byte
}

TEST_CASE("UTF-8 validation refuses what JSON text cannot hold") {
  CHECK(is_valid_utf8("plain ascii"));
  CHECK(is_valid_utf8("Gr\xc3\xb6\xc3\x9f" "e \xe6\xa8\xa1\xe5\x9e\x8b \xf0\x9f\x98\x80"));
  CHECK(!is_valid_utf8("\xc3"));                  // cut
  CHECK(!is_valid_utf8("\xc0\xaf"));              // overlong '/'
  CHECK(!is_valid_utf8("\xed\xa0\x80"));          // surrogate
  CHECK(!is_valid_utf8("\xf4\x90\x80\x80"));      // past U+10FFFF
  CHECK(!is_valid_utf8("\xff"));
}

TEST_CASE("the default state's link is readable and restores it exactly") {
  AppState state = test::fresh_page_state();
  const std::string fragment = share_fragment(state.settings);
  CHECK(fragment.rfind("v=1&model=alexnet&cluster=lecture:2x4&mesh=2x4&strategy=dp&beta=500", 0) == 0);
  CHECK(fragment.find("search.steps=2000") != std::string::npos);
  AppState other = opened(fragment);
  CHECK(settings_to_json(other.settings) == settings_to_json(state.settings));
  CHECK(other.notice.text == "Restored the state from the link.");
}

TEST_CASE("an edited state round-trips: model parameters, edited cluster, strategy edits, numbers") {
  AppState state = test::fresh_page_state();
  REQUIRE(apply_settings_json(state, R"({"model":"mlp:layers=6","cluster":"a100:2x8","mesh":"4x4","beta":123.25,
      "seed":42,"microbatches":8,"search":{"steps":777,"budget_ms":12.5,"init":"random"},"accuracy":{"samples":17},
      "panel":"timeline"})").ok());
  // Edit one op of the strategy and one number of the cluster, as the panels do.
  Settings next = state.settings;
  next.strategy = "expert;" + state.graph.ops[1].name() + "=2x1@3";
  Cluster edited = state.cluster;
  edited.inter_node.bandwidth_gb_per_s = 3.3;
  edited.gpu.model = "My GPU & co = #1 100%";
  next.custom_cluster = edited;
  INFO(notice_line(state.notice));
  REQUIRE(apply_settings(state, next).ok());
  const std::string fragment = share_fragment(state.settings);
  CHECK(fragment.find("strategy=expert;" + state.graph.ops[1].name() + "=2x1@3") != std::string::npos);
  CHECK(fragment.find("cluster.inter_node.bandwidth_gb_per_s=3.3") != std::string::npos);
  CHECK(fragment.find("cluster.gpu.model=My%20GPU%20%26%20co%20=%20%231%20100%25") != std::string::npos);
  CHECK(fragment.find("model=mlp:layers=6") != std::string::npos);   // '=' stays readable in values
  AppState other = opened(fragment);
  CHECK(settings_to_json(other.settings) == settings_to_json(state.settings));
  ensure_flexflow(state);
  ensure_flexflow(other);
  CHECK(state.flexflow.summary.makespan_ms > 0);
  CHECK(other.flexflow.summary.makespan_ms == state.flexflow.summary.makespan_ms);
  // Encoding is stable: the restored state writes the same link.
  CHECK(share_fragment(other.settings) == fragment);
}

TEST_CASE("an imported model travels inside the link") {
  AppState state = test::fresh_page_state();
  const std::string text = mlp_model_text(5);
  REQUIRE(import_model_file(state, "my model.json", text).ok());
  CHECK(state.settings.model == "my model.json");
  CHECK(state.graph.ops.size() == load_model("mlp:layers=5").value().ops.size());
  const std::string fragment = share_fragment(state.settings);
  CHECK(fragment.find("model=my%20model.json") != std::string::npos);
  CHECK(fragment.find("model_json=") != std::string::npos);
  CHECK(fragment.find('{') == std::string::npos);   // the JSON is base64url, not escaped text
  AppState other = opened(fragment);
  CHECK(other.settings.model_json == text);
  ensure_flexflow(state);
  ensure_flexflow(other);
  CHECK(state.flexflow.summary.makespan_ms > 0);
  CHECK(other.flexflow.summary.makespan_ms == state.flexflow.summary.makespan_ms);
  // A built-in model replaces the imported one.
  REQUIRE(apply_settings_json(other, R"({"model":"alexnet"})").ok());
  CHECK(other.settings.model_json.empty());
}

TEST_CASE("the first links' #state=<JSON> form still opens") {
  AppState state = opened("state=%7B%22model%22%3A%22mlp%3Alayers%3D3%22%2C%22beta%22%3A7%7D");
  CHECK(state.settings.model == "mlp:layers=3");
  CHECK(state.settings.beta == 7);
}

TEST_CASE("tampered links are refused with the key at fault; the state is kept") {
  struct Case {
    const char* fragment;
    std::optional<ErrorCode> code;   // none: any code
    const char* path;
  };
  const Case cases[] = {
      {"v=2&model=mlp", ErrorCode::bad_link, "link.v"},
      {"model=mlp", ErrorCode::bad_link, "link.v"},
      {"v=1&v=1", ErrorCode::bad_link, "link.v"},
      {"v=1&beta=%ZZ", ErrorCode::bad_link, "link.beta"},
      {"v=1&beta=12%", ErrorCode::bad_link, "link.beta"},
      {"v=1&be%20ta=1", ErrorCode::bad_link, "link"},
      {"v=1&beta", ErrorCode::bad_link, "link.beta"},
      {"v=1&beta=1&beta=2", ErrorCode::bad_link, "link.beta"},
      {"v=1&cluster=lecture:2x4&cluster.nodes=2", ErrorCode::bad_link, "link.cluster.nodes"},
      {"v=1&a.b.c.d.e=1", ErrorCode::bad_link, "link"},
      {"v=1&model=%FF", ErrorCode::bad_link, "link.model"},
      {"v=1&model_json=***", ErrorCode::bad_link, "link.model_json"},
      {"v=1&model_json=_w", ErrorCode::bad_link, "link.model_json"},   // base64 of a lone 0xFF byte
      {"v=1&beta=abc", ErrorCode::wrong_type, "beta"},
      {"v=1&beta=-3", ErrorCode::out_of_range, "beta"},
      {"v=1&beta=1e999", ErrorCode::wrong_type, "beta"},
      {"v=1&seed=1.5", ErrorCode::wrong_type, "seed"},
      {"v=1&model=nosuchmodel", ErrorCode::unknown_model, "model"},
      {"v=1&model=/etc/passwd.json", ErrorCode::bad_value, "model"},
      {"v=1&mesh=3x3", ErrorCode::bad_value, "mesh"},
      {"v=1&strategy=dp;nosuchop=2@0", std::nullopt, "strategy"},
      {"v=1&search.running=maybe", ErrorCode::wrong_type, "search.running"},
      {"v=1&search.colour=red", ErrorCode::unknown_field, "search.colour"},
      {"v=1&colour=red", ErrorCode::unknown_field, "colour"},
      {"v=1&panel=%3Cscript%3E", ErrorCode::bad_value, "panel"},
      {"v=1&cluster.nodes=0", std::nullopt, "cluster.nodes"},
      {"v=1&model_json=e30", std::nullopt, "model_json"},   // "{}": not a model
  };
  for (const Case& c : cases) {
    CAPTURE(c.fragment);
    AppState state = test::fresh_page_state();
    const Json before = settings_to_json(state.settings);
    const double makespan = state.flexflow.summary.makespan_ms;
    const Status s = apply_share_fragment(state, c.fragment, "the link");
    REQUIRE(!s.ok());
    if (c.code) CHECK(s.error().code == *c.code);
    CHECK(s.error().path.rfind(c.path, 0) == 0);
    CHECK(state.notice.level == NoticeLevel::error);
    CHECK(state.notice.text.rfind("The link could not be restored: ", 0) == 0);
    CHECK(settings_to_json(state.settings) == before);
    CHECK(state.flexflow.summary.makespan_ms == makespan);
  }
}

TEST_CASE("links past the size and pair limits are refused before any work") {
  std::string many = "v=1";
  for (int i = 0; i < 300; ++i) many += "&k" + std::to_string(i) + "=1";
  auto d = decode_share_fragment(many);
  REQUIRE(!d.ok());
  CHECK(d.error().code == ErrorCode::bad_link);
  auto big = decode_share_fragment("v=1&model_json=" + std::string(kMaxShareFragmentBytes, 'A'));
  REQUIRE(!big.ok());
  CHECK(big.error().message.find("MiB") != std::string::npos);
}

TEST_CASE("model import: broken files are refused with their JSON path, names are kept as text") {
  AppState state = test::fresh_page_state();
  const Json before = settings_to_json(state.settings);
  Status s = import_model_file(state, "broken.json", "{\"ops\": [");
  REQUIRE(!s.ok());
  CHECK(s.error().code == ErrorCode::bad_json);
  CHECK(settings_to_json(state.settings) == before);

  Json m = Json::parse(mlp_model_text(2));
  m["ops"][1]["inputs"][0] = "nowhere";
  s = import_model_file(state, "dangling.json", m.dump());
  REQUIRE(!s.ok());
  CHECK(s.error().path.rfind("model_json.ops[1]", 0) == 0);
  CHECK(settings_to_json(state.settings) == before);

  s = import_model_file(state, "huge.json", std::string(kMaxModelFileBytes + 1, ' '));
  REQUIRE(!s.ok());
  CHECK(s.error().code == ErrorCode::too_large);

  // Names with markup and control characters are labels: control characters are replaced.
  Json named = Json::parse(mlp_model_text(2));
  named["ops"][0]["name"] = "<img src=x onerror=alert(1)>";
  REQUIRE(import_model_file(state, "a\nb<b>.json", named.dump()).ok());
  CHECK(state.settings.model == "a_b<b>.json");
  CHECK(state.graph.ops[0].name() == "<img src=x onerror=alert(1)>");
}

namespace {
// The export of `format` as the Export menu makes it: pending while its worker (here in-process)
// plans it, then its text.
Result<std::string> export_through_worker(AppState& state, const std::string& format) {
  ExportJob job = start_export(state, format);
  CHECK(export_pending(job));
  CHECK_FALSE(job.outcome.has_value());
  for (int guard = 0; guard < 1000 && !take_export(state, job); ++guard) state.alpa.inter.worker->step_local(1e9);
  CHECK_FALSE(export_pending(job));
  REQUIRE(job.outcome.has_value());
  return *job.outcome;
}
}  // namespace

TEST_CASE("an imported model reaches the engine exports like its built-in twin") {
  AppState imported = test::fresh_page_state();
  REQUIRE(import_model_file(imported, "mlp2.json", mlp_model_text(2)).ok());
  AppState builtin = test::fresh_page_state();
  REQUIRE(apply_settings_json(builtin, R"({"model":"mlp:layers=2"})").ok());
  for (const char* format : {"megatron", "jax"}) {
    CAPTURE(format);
    auto a = export_through_worker(imported, format);
    auto b = export_through_worker(builtin, format);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    // The same plan; the header names the model as the user knows it.
    const size_t a_eol = a.value().find('\n'), b_eol = b.value().find('\n');
    CHECK(a.value().substr(0, a_eol) == "# mlp2.json on lecture:2x4");
    CHECK(a.value().substr(a_eol) == b.value().substr(b_eol));
  }
}

// The inter-op tab's search space (issue 41) travels in links; a link made before the choice
// existed (no `space`) opens in Alpa's space even over a page showing today's.
TEST_CASE("share links carry the inter-op search space; a link without it keeps Alpa's space") {
  AppState today = test::fresh_page_state();
  Settings next = today.settings;
  next.space = "today";
  REQUIRE(apply_settings(today, next).ok());
  const std::string link = share_fragment(today.settings);
  CHECK(link.find("space=today") != std::string::npos);
  CHECK(opened(link).settings.space == "today");
  std::string old = link;
  old.erase(old.find("&space=today"), std::string("&space=today").size());
  REQUIRE(apply_share_fragment(today, old, "the link").ok());
  CHECK(today.settings.space == "alpa");
  // A bad space is refused naming the field, and the state stays as it was.
  AppState page = test::fresh_page_state();
  CHECK(!apply_share_fragment(page, link.substr(0, link.find("space=today")) + "space=2024", "the link").ok());
  CHECK(page.settings.space == "alpa");
}
