// The error codes are one enum (core/model/error_codes.h), and Error holds it, so a code the
// sources write is the enum's by construction (a misspelt one does not compile). What is left to
// check: the README's list equals the enum, in order; names and codes map one to one; and the one
// place codes are read back from text (a worker's reply) keeps them or says what was wrong.
#include <doctest/doctest.h>

#include <filesystem>
#include <regex>
#include <set>

#include "error_code_printing.h"
#include "test_inputs.h"
#include "error_codes.h"
#include "json_io.h"
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

TEST_CASE("every code's name reads back as that code; other names are no code") {
  CHECK(all_error_codes().front() == ErrorCode::bad_json);
  CHECK(all_error_codes().back() == ErrorCode::internal);
  for (ErrorCode c : all_error_codes()) {
    CAPTURE(error_code_name(c));
    const auto back = error_code_from_name(error_code_name(c));
    REQUIRE(back);
    CHECK(*back == c);
  }
  CHECK(std::string(error_code_name(ErrorCode::cancelled)) == "cancelled");
  CHECK(!error_code_from_name("no_such_code"));
  CHECK(!error_code_from_name("worker"));
  CHECK(!error_code_from_name(""));
  CHECK(!error_code_from_name("Bad_json"));
  CHECK(Error{}.code == ErrorCode::internal);   // a default Error is no user's mistake
}

TEST_CASE("an error written as JSON reads back equal; a missing or unknown code becomes internal, its text kept") {
  for (ErrorCode c : all_error_codes()) {
    const Error e = make_error(c, "why and how to fix it", "ops[2].shape");
    const Json j = error_to_json(e);
    CHECK(j.dump() == R"({"code":")" + std::string(error_code_name(c)) + R"(","message":"why and how to fix it","path":"ops[2].shape"})");
    const Error back = error_from_json(j);
    CHECK(back.code == c);
    CHECK(back.message == e.message);
    CHECK(back.path == e.path);
  }
  const Error unknown = error_from_json(Json{{"code", "worker"}, {"message", "the worker failed"}, {"path", "request"}});
  CHECK(unknown.code == ErrorCode::internal);
  CHECK(unknown.message == "an error with the unknown code 'worker': the worker failed");
  CHECK(unknown.path == "request");
  const Error missing = error_from_json(Json{{"message", "no code"}});
  CHECK(missing.code == ErrorCode::internal);
  CHECK(missing.message == "an error without a code: no code");
  CHECK(missing.path.empty());
  const Error not_text = error_from_json(Json{{"code", 3}, {"message", 4}});
  CHECK(not_text.code == ErrorCode::internal);
  CHECK(not_text.message == "an error without a code: (no message)");
  CHECK(error_from_json(Json::array()).code == ErrorCode::internal);
}
