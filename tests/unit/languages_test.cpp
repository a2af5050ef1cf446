// The page's two string tables and the lecture companion's two languages: the tables have the
// same keys and the same printf conversions and placeholders per key, every key the sources use
// is in them; a scenario says the same numbers in English and Chinese; the language is part of
// the page state and its link; the CLI's columns are padded by display width.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "error_code_printing.h"
#include "test_inputs.h"
#include "app_state.h"
#include "language.h"
#include "page_strings.h"
#include "report_text.h"
#include "scenarios.h"
#include "share_link.h"

using namespace autopar;
using autopar::test::read_file;
using namespace autopar::web;

namespace {

// The printf conversions of a format ("%s", "%.3f", "%zu", ...) in order; "%%" is not one.
std::vector<std::string> conversions(const std::string& text) {
  std::vector<std::string> out;
  static const std::regex conv("%(%|[-+#0]*[0-9*]*(\\.[0-9*]+)?(hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGaAcspn])");
  for (std::sregex_iterator it(text.begin(), text.end(), conv), stop; it != stop; ++it)
    if ((*it)[1] != "%") out.push_back((*it)[0]);
  return out;
}

// The {N} placeholders of a template, as a sorted list.
std::vector<std::string> placeholders(const std::string& text) {
  std::vector<std::string> out;
  static const std::regex ph("\\{[0-9]\\}");
  for (std::sregex_iterator it(text.begin(), text.end(), ph), stop; it != stop; ++it) out.push_back((*it)[0]);
  std::sort(out.begin(), out.end());
  return out;
}

// Every number a text carries ("17,576", "3.3e11", "0.55", "10^11.52" gives 10 and 11.52), sorted:
// a translation may reorder a sentence but must say the same numbers.
std::vector<std::string> numbers(const std::string& text) {
  std::vector<std::string> out;
  static const std::regex num("[0-9]+([.,][0-9]+)*(e[+-]?[0-9]+)?");
  for (std::sregex_iterator it(text.begin(), text.end(), num), stop; it != stop; ++it) out.push_back((*it)[0]);
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, std::string> table_map(Language l) {
  std::map<std::string, std::string> m;
  for (const StringEntry& e : string_table(l)) m[e.key] = e.text;
  return m;
}

}  // namespace

TEST_CASE("the English and Chinese tables have the same keys, each once, with text in both") {
  for (Language l : {Language::en, Language::zh}) {
    std::set<std::string> seen;
    for (const StringEntry& e : string_table(l)) {
      CHECK_MESSAGE(seen.insert(e.key).second, "duplicate key ", e.key, " in ", language_name(l));
      CHECK_MESSAGE(std::string(e.text).size() > 0, "empty text for ", e.key);
    }
  }
  const auto en = table_map(Language::en), zh = table_map(Language::zh);
  CHECK(en.size() > 200);
  // (Pairs, not structured bindings: clang's C++17 cannot capture those in doctest's lambdas.)
  for (const auto& e : en) CHECK_MESSAGE(zh.count(e.first) == 1, "key ", e.first, " is missing in the Chinese table");
  for (const auto& z : zh) CHECK_MESSAGE(en.count(z.first) == 1, "key ", z.first, " is missing in the English table");
}

TEST_CASE("each key's English and Chinese texts take the same printf arguments and placeholders") {
  const auto en = table_map(Language::en), zh = table_map(Language::zh);
  for (const auto& entry : en) {
    const std::string& k = entry.first;
    const std::string& v = entry.second;
    if (!zh.count(k)) continue;
    CHECK_MESSAGE(conversions(v) == conversions(zh.at(k)), "printf conversions differ for ", k);
    CHECK_MESSAGE(placeholders(v) == placeholders(zh.at(k)), "placeholders differ for ", k);
  }
}

TEST_CASE("a Chinese text is Chinese, and a translated text says the same numbers as the English") {
  const auto en = table_map(Language::en), zh = table_map(Language::zh);
  int chinese = 0;
  for (const auto& entry : zh) {
    const std::string& k = entry.first;
    const std::string& v = entry.second;
    chinese += v.find("\xe4") != std::string::npos || v.find("\xe5") != std::string::npos || v.find("\xe6") != std::string::npos ||
               v.find("\xe7") != std::string::npos || v.find("\xe8") != std::string::npos || v.find("\xe9") != std::string::npos;
    if (en.count(k)) CHECK_MESSAGE(numbers(en.at(k)) == numbers(v), "numbers differ for ", k, ": ", en.at(k), " / ", v);
  }
  CHECK(chinese > int(zh.size()) * 8 / 10);   // most entries hold Han characters (a few are symbols or names)
}

TEST_CASE("every key the page's sources use is in the tables") {
  // A key is a literal "prefix.name" whose prefix is one of the tables' (tr("menu.view"),
  // kTitles' "ex.title1", a column list's "ex3.col_op"); a tr() call must name a key.
  const auto en = table_map(Language::en);
  std::set<std::string> prefixes;
  for (const auto& [k, v] : en) prefixes.insert(k.substr(0, k.find('.')));
  const std::regex literal("\"([a-z][a-z0-9_]*)\\.([a-z0-9_.]+)\"");
  const std::regex call("\\btr(_id|_fill)?\\(\"([^\"]*)\"");
  int used = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(std::filesystem::path(AUTOPAR_SOURCE_DIR) / "web")) {
    if (!f.is_regular_file()) continue;
    const std::string name = f.path().filename().string();
    if (name.rfind("strings_", 0) == 0) continue;
    const std::string text = std::regex_replace(read_file(f.path()), std::regex("#include [^\n]*"), "");   // "compare.h" is no key
    for (std::sregex_iterator it(text.begin(), text.end(), literal), stop; it != stop; ++it) {
      if (!prefixes.count((*it)[1])) continue;
      const std::string key = (*it)[1].str() + "." + (*it)[2].str();
      ++used;
      CHECK_MESSAGE(en.count(key) == 1, name, " uses the key ", key, " which no table has");
    }
    for (std::sregex_iterator it(text.begin(), text.end(), call), stop; it != stop; ++it)
      CHECK_MESSAGE(en.count((*it)[2]) == 1, name, " looks up \"", (*it)[2].str(), "\" which no table has");
  }
  CHECK(used > 200);
  // index.html raises its own notices by key (notifyKey): those keys too.
  const std::string page = read_file(std::filesystem::path(AUTOPAR_SOURCE_DIR) / "index.html");
  const std::regex notify_key("notifyKey\\('[a-z]+', '([^']*)'");
  int page_keys = 0;
  for (std::sregex_iterator it(page.begin(), page.end(), notify_key), stop; it != stop; ++it) {
    ++page_keys;
    CHECK_MESSAGE(en.count((*it)[1]) == 1, "index.html raises \"", (*it)[1].str(), "\" which no table has");
  }
  CHECK(page_keys >= 5);
}

TEST_CASE("tr follows the page's language and tr_id keeps the ImGui id") {
  const Language before = page_language();
  set_page_language(Language::zh);
  CHECK(std::string(tr("tab.lecture")) == "讲义");
  CHECK(tr_id("tab.lecture") == "讲义###tab.lecture");
  CHECK(tr_fill("notice.loaded_model", {"mlp"}) == "已加载模型 mlp。");
  set_page_language(Language::en);
  CHECK(std::string(tr("tab.lecture")) == "Lecture");
  CHECK(tr_id("tab.lecture") == "Lecture###tab.lecture");
  CHECK(std::string(tr("no.such_key")) == "no.such_key");
  set_page_language(before);
}

TEST_CASE("Chinese lines may break between characters once the marks are on, and the marks never reach result()") {
  const std::string text = "算子内并行（intra-op）：每个 GPU，好。";
  CHECK(breakable_text(text) == text);   // off until the CJK font is in
  set_line_break_marks(true);
  const std::string marked = breakable_text(text);
  const std::string mark = "\u3000";
  CHECK(marked.find("算" + mark + "子") != std::string::npos);
  CHECK(marked.find(mark + "，") == std::string::npos);   // no line starts with a comma
  CHECK(marked.find("（" + mark) == std::string::npos);   // none ends with an opening bracket
  CHECK(marked.find("个 GPU") != std::string::npos);     // a blank is a break already
  CHECK(without_break_marks(marked) == text);
  CHECK(breakable_text("plain English, no marks") == "plain English, no marks");
  const Language before = page_language();
  AppState state;
  REQUIRE(init_app_state(state).ok());
  set_page_language(Language::zh);
  CHECK(std::string(tr("tab.lecture")) == "讲" + mark + "义");
  notify_info(state, tr_fill("notice.loaded_model", {"mlp"}));
  CHECK(state.notice.text == "已加载模型 mlp。");
  set_line_break_marks(false);
  set_page_language(before);
}

TEST_CASE("every scenario's title and explanation say the same numbers in English and Chinese") {
  for (const Scenario& s : scenario_catalogue()) {
    CHECK_MESSAGE(numbers(s.title.en) == numbers(s.title.zh), s.name, " title: ", s.title.en, " / ", s.title.zh);
    CHECK_MESSAGE(numbers(s.explanation.en) == numbers(s.explanation.zh), s.name, " explanation");
    CHECK(s.title.zh != s.title.en);
    CHECK(s.explanation.zh != s.explanation.en);
  }
}

TEST_CASE("every finding template of the scenarios says the same numbers and placeholders in both languages") {
  // say("English {0} ...", "Chinese {0} ...", {...}) in core/operations/scenario*.cpp, the heavy
  // scenarios' included (they take too long to run here).
  // (The texts are in scenarios.cpp, the runners' findings in scenario_runs.cpp.)
  const std::string text = read_file(std::filesystem::path(AUTOPAR_SOURCE_DIR) / "core/operations/scenarios.cpp") +
                           read_file(std::filesystem::path(AUTOPAR_SOURCE_DIR) / "core/operations/scenario_runs.cpp");
  const std::regex pair("say\\(\\s*\"((?:[^\"\\\\]|\\\\.)*)\",\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
  int checked = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), pair), stop; it != stop; ++it, ++checked) {
    const std::string en = (*it)[1], zh = (*it)[2];
    CHECK_MESSAGE(numbers(en) == numbers(zh), en, " / ", zh);
    CHECK_MESSAGE(placeholders(en) == placeholders(zh), en, " / ", zh);
  }
  CHECK(checked > 25);
}

TEST_CASE("a light scenario prints the same numbers in English and Chinese (scenario NAME --lang zh)") {
  for (const char* name : {"conv1d-splits", "space-sizes", "alexnet-strategies", "task-graph", "resharding-table", "linear-nine", "megatron",
                           "cross-mesh-resharding"}) {
    auto r = scenario_operation(name, name, Language::en);
    REQUIRE(r.ok());
    ScenarioReport zh = r.value();
    zh.language = Language::zh;
    const std::string en_text = r.value().to_text(), zh_text = zh.to_text();
    CHECK(en_text != zh_text);
    CHECK_MESSAGE(numbers(en_text) == numbers(zh_text), (std::string(name) + "\n" + en_text + zh_text));
    CHECK(zh.to_json()["findings"].size() == r.value().to_json()["findings"].size());
    CHECK(zh.to_json()["results"] == r.value().to_json()["results"]);
  }
  const std::string en_list = ScenarioListReport{Language::en}.to_text(), zh_list = ScenarioListReport{Language::zh}.to_text();
  CHECK(numbers(en_list) == numbers(zh_list));
  CHECK(zh_list.find("同一个卷积") != std::string::npos);
}

TEST_CASE("--lang accepts en and zh only, naming both") {
  CHECK(parse_language("en", "--lang").ok());
  CHECK(parse_language("zh", "--lang").value() == Language::zh);
  auto bad = parse_language("fr", "--lang");
  REQUIRE(!bad.ok());
  CHECK(bad.error().code == ErrorCode::bad_value);
  CHECK(bad.error().path == "--lang");
  CHECK(bad.error().message.find("en") != std::string::npos);
  CHECK(bad.error().message.find("zh") != std::string::npos);
}

TEST_CASE("lang is page state: getState, setState, the share link; a bad value is refused") {
  AppState state;
  REQUIRE(init_app_state(state).ok());
  CHECK(settings_to_json(state.settings)["lang"] == "en");
  REQUIRE(apply_settings_json(state, R"({"lang":"zh"})").ok());
  CHECK(state.settings.lang == "zh");
  CHECK(page_language() == Language::zh);
  const std::string fragment = share_fragment(state.settings);
  CHECK(fragment.find("lang=zh") != std::string::npos);
  AppState other;
  REQUIRE(init_app_state(other).ok());
  REQUIRE(apply_share_fragment(other, fragment, "the link").ok());
  CHECK(other.settings.lang == "zh");
  auto bad = apply_settings_json(state, R"({"lang":"fr"})");
  CHECK(!bad.ok());
  CHECK(state.settings.lang == "zh");
  REQUIRE(apply_settings_json(state, R"({"lang":"en"})").ok());
  CHECK(page_language() == Language::en);
}

TEST_CASE("switching the language keeps the running search and everything else") {
  AppState state;
  REQUIRE(init_app_state(state).ok());
  REQUIRE(apply_settings_json(state, R"({"search":{"running":true,"steps":1000000}})").ok());
  advance_background_work(state, 20);
  const int64_t job = state.search.request;
  REQUIRE(job != 0);
  Settings zh = state.settings;
  zh.lang = "zh";
  REQUIRE(apply_settings(state, zh).ok());
  CHECK(state.search.request == job);   // the same search, not restarted
  CHECK(state.settings.search.running);
  Settings back = state.settings;
  back.lang = "en";
  REQUIRE(apply_settings(state, back).ok());
  CHECK(page_language() == Language::en);
}

TEST_CASE("the CLI's columns are padded by display width: a Chinese character takes two") {
  CHECK(display_width("abc") == 3);
  CHECK(display_width("注意力") == 6);
  CHECK(display_width("QKV 投影") == 8);
  CHECK(display_width("Ωμ") == 2);
  CHECK(pad("注意力", 8) == "注意力  ");
  CHECK(pad("ab", 4, true) == "  ab");
  CHECK(pad("注意力核心", 6) == "注意力核心");   // never truncates
}
