// Named strategies and strategy files. See strategy_argument.h.
#include "strategy_argument.h"

#include <cstdlib>

#include "json_io.h"
#include "soap.h"

namespace autopar {

Result<Strategy> load_strategy(const std::string& text, const Graph& g, const Cluster& cluster, const std::string& arg_path) {
  const int n = cluster.num_devices();
  if (text == "dp") return data_parallel(g, n);
  if (text == "mp") return model_parallel(g, n);
  if (text == "expert") return expert_strategy(g, cluster);
  if (text.rfind("random:", 0) == 0) {
    std::string seed = text.substr(7);
    if (seed.empty() || seed.size() > 19 || seed.find_first_not_of("0123456789") != std::string::npos)
      return make_error(ErrorCode::bad_value, "random strategies are random:SEED with a whole-number seed, e.g. random:1", arg_path);
    return random_strategy(g, n, std::strtoull(seed.c_str(), nullptr, 10));  // saturates, never throws
  }
  if (text.size() >= 5 && text.compare(text.size() - 5, 5, ".json") == 0) {
    auto body = read_text_file(text);
    if (!body.ok()) return body.error();
    auto j = parse_json_text(body.value(), "strategy file '" + text + "'");
    if (!j.ok()) return j.error();
    const Json& root = j.value().contains("strategy") && j.value()["strategy"].is_object() ? j.value()["strategy"] : j.value();
    auto s = strategy_from_json(root, g, n);
    if (!s.ok()) {
      Error e = s.error();
      e.message = "strategy file '" + text + "': " + e.message;
      return e;
    }
    return s;
  }
  return make_error(ErrorCode::unknown_strategy, "unknown strategy '" + text + "'; use dp, mp, expert, random:SEED or a .json file", arg_path);
}

}  // namespace autopar
