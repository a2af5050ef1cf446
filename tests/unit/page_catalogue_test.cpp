// The page's bad-input catalogue (tests/bad-inputs/page-catalogue.txt) run natively through the
// same functions the page calls: every input is refused with the listed code and path, the
// notice shows the error, and the settings and the simulated strategy stay as they were. The
// browser test runs the same file in WebAssembly.
#include <doctest/doctest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "error_code_printing.h"
#include "app_state.h"
#include "share_link.h"

using namespace autopar;
using namespace autopar::web;

namespace {

struct CatalogueCase {
  std::string code, path, via, input;
  int line = 0;
};

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

std::vector<CatalogueCase> read_catalogue() {
  std::ifstream in(std::string(AUTOPAR_SOURCE_DIR) + "/tests/bad-inputs/page-catalogue.txt");
  REQUIRE(in.good());
  std::vector<CatalogueCase> cases;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    std::vector<std::string> fields;
    size_t start = 0;
    for (int i = 0; i < 3; ++i) {   // the input itself may hold '|'
      const size_t bar = line.find('|', start);
      REQUIRE(bar != std::string::npos);
      fields.push_back(trim(line.substr(start, bar - start)));
      start = bar + 1;
    }
    fields.push_back(trim(line.substr(start)));
    cases.push_back({fields[0], fields[1], fields[2], fields[3], number});
  }
  return cases;
}

std::string file_text(const std::string& relative) {
  std::ifstream in(std::string(AUTOPAR_SOURCE_DIR) + "/" + relative);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Sends one catalogue input to the page's state the way its VIA says.
Status send(AppState& state, const CatalogueCase& c) {
  if (c.via == "setState") return apply_settings_json(state, c.input);
  if (c.via == "import") return import_model_file(state, c.input, file_text(c.input));
  if (c.via == "link") return apply_share_fragment(state, c.input, "the link");
  if (c.via == "cluster" || c.via == "strategy") {
    auto j = parse_json_text(file_text(c.input), c.input);
    REQUIRE(j.ok());
    return apply_settings_object(state, Json{{c.via, j.value()}});
  }
  FAIL("unknown VIA " << c.via << " on line " << c.line);
  return Ok{};
}

}  // namespace

TEST_CASE("the page's bad-input catalogue: each input refused with its code and path, state kept") {
  const auto cases = read_catalogue();
  CHECK(cases.size() >= 30);
  AppState fresh;
  REQUIRE(init_app_state(fresh).ok());
  const Json before = settings_to_json(fresh.settings);
  const double makespan = fresh.flexflow.summary.makespan_ms;
  for (const CatalogueCase& c : cases) {
    CAPTURE(c.line);
    CAPTURE(c.input);
    AppState state;
    REQUIRE(init_app_state(state).ok());
    const std::optional<ErrorCode> code = error_code_from_name(c.code);
    REQUIRE_MESSAGE(code, "the catalogue's code '" << c.code << "' is no ErrorCode's name");
    const Status s = send(state, c);
    REQUIRE(!s.ok());
    CHECK(s.error().code == *code);
    CHECK(s.error().path == c.path);
    CHECK(!s.error().message.empty());
    CHECK(state.notice.level == NoticeLevel::error);
    REQUIRE(state.notice.code);
    CHECK(*state.notice.code == *code);
    CHECK(settings_to_json(state.settings) == before);
    CHECK(state.flexflow.summary.makespan_ms == makespan);
  }
}
