// Command-line parsing: --key value, --key=value and --flag, checked against a command's syntax.
#include "args.h"

namespace autopar::cli {

std::optional<std::string> Args::get(const std::string& key) const {
  auto it = options.find(key);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

Result<Args> parse_args(const std::string& command, const std::vector<std::string>& words, const CommandSyntax& syntax) {
  Args a;
  a.command = command;
  auto valid_list = [&] {
    std::string s;
    for (const auto& o : syntax.options) s += (s.empty() ? "" : ", ") + ("--" + o);
    for (const auto& f : syntax.flags) s += (s.empty() ? "" : ", ") + ("--" + f);
    return s.empty() ? std::string("--json") : s + ", --json";
  };
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.size() > 2 && w.compare(0, 2, "--") == 0) {
      std::string key = w.substr(2), value;
      bool inline_value = false;
      if (size_t eq = key.find('='); eq != std::string::npos) {
        value = key.substr(eq + 1);
        key = key.substr(0, eq);
        inline_value = true;
      }
      if (key == "json" || syntax.flags.count(key)) {
        if (inline_value) return make_error("bad_argument", "--" + key + " takes no value", w);
        a.flags.insert(key);
      } else if (syntax.options.count(key)) {
        if (!inline_value) {
          if (i + 1 >= words.size()) return make_error("bad_argument", "--" + key + " needs a value", w);
          value = words[++i];
        }
        a.options[key] = value;
      } else {
        return make_error("bad_argument", "'" + command + "' has no option --" + key + "; its options: " + valid_list(), w);
      }
    } else {
      if (a.positional.size() >= syntax.max_positional)
        return make_error("bad_argument", "unexpected argument '" + w + "' for '" + command + "'; its options: " + valid_list(), w);
      a.positional.push_back(w);
    }
  }
  return a;
}

}  // namespace autopar::cli
