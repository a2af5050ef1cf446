// The engine exports as text a user pastes: the Megatron-LM arguments must survive a shell.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "cluster_spec.h"
#include "export_operation.h"
#include "models.h"

using namespace autopar;

TEST_CASE("the Megatron-LM export is one unbroken run of arguments") {
  // transformer:layers=2 on one A100 node pipelines into stages and data parallelism is implied;
  // a comment line between arguments joined by trailing backslashes would end the command there.
  const Graph g = load_model("transformer:layers=2").value();
  ExportRequest r;
  r.format = "megatron";
  r.title = "transformer:layers=2 on a100:1x8";
  auto out = export_operation(g, load_cluster("a100:1x8").value(), r);
  REQUIRE(out.ok());
  std::istringstream lines(out.value().text);
  std::string line;
  bool in_arguments = false, continued = false;
  int arguments = 0;
  while (std::getline(lines, line)) {
    CAPTURE(line);
    if (line.rfind("--", 0) == 0) {
      CHECK((!in_arguments || continued));   // every argument after the first follows a backslash
      in_arguments = true;
      ++arguments;
    } else {
      CHECK_FALSE(in_arguments);             // comments only before the arguments
    }
    continued = line.size() >= 2 && line.compare(line.size() - 2, 2, " \\") == 0;
  }
  CHECK_FALSE(continued);                    // the last argument ends the command
  CHECK(arguments >= 6);
}
