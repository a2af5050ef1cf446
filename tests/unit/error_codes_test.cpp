// The error codes are one enum (core/model/error_codes.h): the README's list of codes equals it,
// in order, and every code the sources write (make_error("...")) is in it.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "test_inputs.h"
#include "error_codes.h"
#include "result.h"

using namespace autopar;
using autopar::test::read_file;

TEST_CASE("the README lists exactly the enum's error codes, in its order") {
  const std::string readme = read_file(std::filesystem::path(AUTOPAR_SOURCE_DIR) / "README.md");
  const size_t start = readme.find("Codes (one enum");
  REQUIRE(start != std::string::npos);
  const size_t colon = readme.find("): ", start);
  const size_t end = readme.find(". ", colon);
  REQUIRE(end != std::string::npos);
  const std::string list = readme.substr(colon, end - colon);
  std::vector<std::string> listed;
  const std::regex code("`([a-z_]+)`");
  for (std::sregex_iterator it(list.begin(), list.end(), code), stop; it != stop; ++it) listed.push_back((*it)[1]);
  std::vector<std::string> names;
  for (ErrorCode c : all_error_codes()) names.push_back(error_code_name(c));
  CHECK(listed == names);
  CHECK(names.size() == std::set<std::string>(names.begin(), names.end()).size());
}

TEST_CASE("every code written in the sources is one of the enum's") {
  const std::filesystem::path root(AUTOPAR_SOURCE_DIR);
  const std::regex written("make_error\\(\"([a-z_]+)\"");
  int seen = 0;
  for (const char* folder : {"core", "cli", "web", "wasm"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / folder)) {
      const auto ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".h") continue;
      const std::string text = read_file(entry.path());
      for (std::sregex_iterator it(text.begin(), text.end(), written), stop; it != stop; ++it) {
        CAPTURE(entry.path().string());
        CHECK(is_error_code((*it)[1]));
        ++seen;
      }
    }
  CHECK(seen > 100);
  CHECK(make_error(ErrorCode::cancelled, "x").code == "cancelled");
  CHECK(!is_error_code("no_such_code"));
}
