// Command-line parsing: --key value, --key=value and --flag, checked against a command's syntax.
#include "args.h"

#include <fstream>

#include "cluster.h"
#include "cluster_spec.h"
#include "models.h"

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
      // --precision goes with every command that loads a model (see apply_precision).
      const bool shared_precision = key == "precision" && syntax.options.count("model") && !syntax.options.count("precision");
      if (key == "json" || syntax.flags.count(key)) {
        if (inline_value) return make_error(ErrorCode::bad_argument, "--" + key + " takes no value", w);
        a.flags.insert(key);
      } else if (syntax.options.count(key) || shared_precision) {
        if (!inline_value) {
          if (i + 1 >= words.size()) return make_error(ErrorCode::bad_argument, "--" + key + " needs a value", w);
          // A missing value followed by another option ("--strategy --json") must not swallow
          // that option as the value: no value the CLI takes starts with "--".
          const std::string& next = words[i + 1];
          if (next.size() > 2 && next.compare(0, 2, "--") == 0)
            return make_error(ErrorCode::bad_argument, "--" + key + " needs a value before " + next + " (write --" + key + "=VALUE for a value that starts with --)", w);
          value = words[++i];
        }
        a.options[key] = value;
      } else {
        return make_error(ErrorCode::bad_argument, "'" + command + "' has no option --" + key + "; its options: " + valid_list(), w);
      }
    } else {
      if (a.positional.size() >= syntax.max_positional)
        return make_error(ErrorCode::bad_argument, "unexpected argument '" + w + "' for '" + command + "'; its options: " + valid_list(), w);
      a.positional.push_back(w);
    }
  }
  if (syntax.options.count("model"))
    if (auto s = apply_precision(a); !s.ok()) return s.error();
  return a;
}

Status apply_precision(Args& a) {
  auto p = a.get("precision");
  if (!p) return Ok{};
  auto precision = precision_from_text(*p, "--precision");
  if (!precision.ok()) return precision.error();
  // The model's float width: 16-bit activations, weights and gradients in mixed precision.
  const std::string width = is_mixed_precision(precision.value()) ? "2" : "4";
  if (auto m = a.get("model")) {
    const bool has_params = m->find(':') != std::string::npos;
    a.options["model"] = *m + (has_params ? "," : ":") + "dtype_bytes=" + width;
  }
  // The GPU peak: the cluster carries the precision in use.
  if (auto c = a.get("cluster")) {
    const bool file = c->size() >= 5 && c->compare(c->size() - 5, 5, ".json") == 0;
    const bool has_options = c->find(file ? ".json:" : ",") != std::string::npos;
    a.options["cluster"] = *c + (has_options ? "," : file ? ":" : ",") + "precision=" + *p;
  } else if (!a.get("alpha")) {
    // Commands fall back to lecture:2x4; say it rather than silently time FP32 on it.
    a.options["cluster"] = "lecture:2x4,precision=" + *p;
  }
  return Ok{};
}

Result<Graph> model_option(const Args& a) {
  auto m = a.get("model");
  if (!m) return make_error(ErrorCode::missing_argument, "give a model with --model NAME[:key=value,...] or --model FILE.json", "--model");
  return load_model(*m);
}

Result<Cluster> cluster_option(const Args& a, const std::string& fallback) { return load_cluster(a.get("cluster").value_or(fallback)); }

Result<int64_t> whole_option(const Args& a, const std::string& key, int64_t fallback) {
  auto v = a.get(key);
  if (!v) return fallback;
  return whole_from_text(*v, "--" + key);
}

Result<double> number_option(const Args& a, const std::string& key, double fallback) {
  auto v = a.get(key);
  if (!v) return fallback;
  return number_from_text(*v, "--" + key);
}

Result<int64_t> int_option(const Args& a, const std::string& key, int64_t fallback, WholeBound bound) {
  auto x = whole_option(a, key, fallback);
  if (!x.ok()) return x;
  if (auto st = check_bound(x.value(), bound, "--" + key); !st.ok()) return st.error();
  return x;
}

Result<uint64_t> seed_option(const Args& a, uint64_t fallback) {
  auto x = whole_option(a, "seed", int64_t(fallback));
  if (!x.ok()) return x.error();
  return seed_from_whole(x.value(), "--seed");
}

Result<Optimizer> optimizer_option(const Args& a) { return optimizer_from_text(a.get("optimizer").value_or("adam"), "--optimizer"); }

Result<int> zero_option(const Args& a, int fallback) {
  if (!a.get("zero")) return fallback;
  auto x = int_option(a, "zero", 0, kZeroStageBound);
  if (!x.ok()) return x.error();
  return int(x.value());
}

Status write_file(const std::string& path, const std::string& text, const std::string& option) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return make_error(ErrorCode::io, "cannot write '" + path + "'; check the folder exists and is writable", option);
  out << text;
  return out.good() ? Status(Ok{}) : Status(make_error(ErrorCode::io, "writing '" + path + "' failed", option));
}

}  // namespace autopar::cli
