// Unit tests of the CLI's argument parsing: values, flags, and the errors for unknown options.
#include <doctest/doctest.h>

#include "error_code_printing.h"
#include "../../cli/args.h"
#include "commands.h"

using namespace autopar;
using namespace autopar::cli;

TEST_CASE("options take values, flags do not, --json is always accepted") {
  CommandSyntax syntax{{"model", "cluster"}, {"table"}, 1};
  auto a = parse_args("x", {"--model", "mlp:layers=2", "--cluster=lecture:2x4", "--table", "--json", "name"}, syntax);
  REQUIRE(a.ok());
  CHECK(a.value().get("model") == std::optional<std::string>("mlp:layers=2"));
  CHECK(a.value().get("cluster") == std::optional<std::string>("lecture:2x4"));
  CHECK(a.value().has("table"));
  CHECK(a.value().has("json"));
  CHECK(a.value().positional == std::vector<std::string>{"name"});
  CHECK_FALSE(a.value().get("seed"));
}

TEST_CASE("bad arguments name the argument and list the valid options") {
  CommandSyntax syntax{{"model"}, {"table"}, 0};
  auto unknown = parse_args("ops", {"--modle", "x"}, syntax);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == ErrorCode::bad_argument);
  CHECK(unknown.error().path == "--modle");
  CHECK(unknown.error().message.find("--model") != std::string::npos);
  auto missing = parse_args("ops", {"--model"}, syntax);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("needs a value") != std::string::npos);
  auto flag_value = parse_args("ops", {"--table=3"}, syntax);
  CHECK_FALSE(flag_value.ok());
  auto extra = parse_args("ops", {"stray"}, syntax);
  CHECK_FALSE(extra.ok());
}

TEST_CASE("help for one command: `help CMD`, and --help anywhere after the command") {
  // `autopar help simulate` printed the list of all commands, and `simulate --model mlp3 --help`
  // was refused as an unknown option.
  auto usage = run_command({"simulate", "--help"});
  REQUIRE(usage.ok());
  for (const std::vector<std::string>& words :
       {std::vector<std::string>{"help", "simulate"}, std::vector<std::string>{"simulate", "--model", "mlp3", "--help"}}) {
    auto out = run_command(words);
    REQUIRE(out.ok());
    CHECK(out.value().text == usage.value().text);
  }
  auto unknown = run_command({"help", "simulat"});
  REQUIRE(!unknown.ok());
  CHECK(unknown.error().code == ErrorCode::unknown_command);
  CHECK(unknown.error().path == "simulat");
}
