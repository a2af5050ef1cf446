// Share links: flatten/unflatten the getState object as key=value pairs. See share_link.h.
#include "share_link.h"

#include <cerrno>
#include <cstdlib>
#include <set>
#include <string_view>
#include <vector>

#include "page_strings.h"

namespace autopar::web {
namespace {

// Keys whose values are strings whatever they look like ("mesh=2x4", "cluster.name=1"); other
// values are read as numbers or booleans when they look like one.
const std::set<std::string>& string_keys() {
  static const std::set<std::string> keys = {"v",           "model",        "model_json",     "cluster",
                                             "mesh",        "strategy",     "panel",          "scenario",       "lang",
                                             "search.init", "schedules.first", "schedules.second", "schedules.source", "cluster.format", "cluster.name", "cluster.gpu.model",
                                             "cluster.sources"};
  return keys;
}

// Keys carried as base64url: JSON text would be mostly escapes once percent-encoded.
bool is_base64_key(const std::string& key) { return key == "model_json"; }

// Most pairs a link may hold, and the deepest key (cluster.gpu.peak_tflops has three parts).
constexpr size_t kMaxPairs = 256;
constexpr size_t kMaxKeyParts = 4;
constexpr size_t kMaxKeyBytes = 64;

Error link_error(const std::string& message, const std::string& key) {
  return make_error(ErrorCode::bad_link, message, key.empty() ? "link" : "link." + key);
}

// Percent-encodes everything but unreserved characters and the ones spec strings use, which
// stay readable in a fragment (RFC 3986 allows them there); '&', '%', '+' and '#' are always
// encoded, '=' only in keys (a pair splits at its first '=', so values keep theirs).
std::string percent_encode(const std::string& text, bool is_value) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      std::string_view("-._~:;,@/!*()'$").find(char(c)) != std::string_view::npos || (is_value && c == '=');
    if (keep) {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Strict percent-decoding: a '%' must be followed by two hex digits.
Result<std::string> percent_decode(const std::string& text, const std::string& key) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    const int hi = i + 1 < text.size() ? hex_value(text[i + 1]) : -1;
    const int lo = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
    if (hi < 0 || lo < 0)
      return link_error("a '%' in the link is not followed by two hex digits (at character " + std::to_string(i + 1) +
                            "); copy the whole link again",
                        key);
    out += char(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// Flattens `j` into pairs "a.b=value" in object order.
void flatten(const Json& j, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = prefix + it.key();
    const Json& v = it.value();
    if (v.is_object()) {
      flatten(v, key + ".", out);
    } else if (v.is_string()) {
      out.emplace_back(key, is_base64_key(key) ? base64url_encode(v.get<std::string>()) : v.get<std::string>());
    } else if (v.is_number() || v.is_boolean()) {
      out.emplace_back(key, v.dump());
    }
    // null and arrays do not occur in the state object.
  }
}

bool valid_key(const std::string& key) {
  if (key.empty() || key.size() > kMaxKeyBytes || key.front() == '.' || key.back() == '.') return false;
  size_t parts = 1;
  for (size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (c == '.') {
      if (key[i - 1] == '.') return false;
      ++parts;
    } else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
      return false;
    }
  }
  return parts <= kMaxKeyParts;
}

// A JSON number written the way JSON writes it (no "nan", "inf", hex, leading '+' or spaces).
bool looks_like_number(const std::string& s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  const size_t digits_start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == digits_start) return false;
  if (i < s.size() && s[i] == '.') {
    const size_t f = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == f) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const size_t e = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == e) return false;
  }
  return i == s.size();
}

// The value of one pair as the state object holds it.
Result<Json> typed_value(const std::string& key, const std::string& text) {
  if (is_base64_key(key)) {
    auto bytes = base64url_decode(text, "link." + key);
    if (!bytes.ok()) return bytes.error();
    if (!is_valid_utf8(bytes.value()))
      return link_error(key + " is not UTF-8 text; copy the whole link again", key);
    return Json(bytes.value());
  }
  if (!is_valid_utf8(text)) return link_error("the value of " + key + " is not UTF-8 text; copy the whole link again", key);
  if (string_keys().count(key)) return Json(text);
  if (text == "true") return Json(true);
  if (text == "false") return Json(false);
  if (looks_like_number(text)) {
    const bool integral = text.find_first_of(".eE") == std::string::npos;
    if (integral) {
      errno = 0;
      const long long x = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == 0) return Json(int64_t(x));
    }
    errno = 0;
    const double d = std::strtod(text.c_str(), nullptr);
    if (errno == 0) return Json(d);
    // Out of double range: left as text, so the field's reader says what it expects.
  }
  return Json(text);
}

// Puts `value` at the dotted `key` of `root`, creating objects on the way.
Status insert_pair(Json& root, const std::string& key, Json value) {
  Json* node = &root;
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (dot == std::string::npos) {
      if (node->contains(part))
        return link_error("the link gives " + key + " twice (or both as a value and as a group); keep one", key);
      (*node)[part] = std::move(value);
      return Ok{};
    }
    if (node->contains(part) && !(*node)[part].is_object())
      return link_error("the link gives " + key.substr(0, dot) + " both as a value and as a group (" + key + "); keep one", key);
    node = &(*node)[part];
    if (node->is_null()) *node = Json::object();
    start = dot + 1;
  }
}

}  // namespace

std::string encode_share_fragment(const Json& state) {
  std::vector<std::pair<std::string, std::string>> pairs;
  flatten(state, "", pairs);
  std::string out = "v=" + std::to_string(kShareLinkVersion);
  for (const auto& [k, v] : pairs) out += "&" + percent_encode(k, false) + "=" + percent_encode(v, true);
  return out;
}

std::string share_fragment(const Settings& settings) { return encode_share_fragment(settings_to_json(settings)); }

Result<Json> decode_share_fragment(const std::string& fragment) {
  if (fragment.size() > kMaxShareFragmentBytes)
    return link_error("the link is " + std::to_string(fragment.size() >> 10) + " KiB, more than the " +
                          std::to_string(kMaxShareFragmentBytes >> 20) + " MiB a state can take; it was cut or altered",
                      "");
  Json out = Json::object();
  if (fragment.empty()) return out;
  // The first links of the page: "#state=<URI-encoded JSON object>".
  if (fragment.rfind("state=", 0) == 0) {
    auto text = percent_decode(fragment.substr(6), "state");
    if (!text.ok()) return text.error();
    auto j = parse_json_text(text.value(), "the link's state");
    if (!j.ok()) return link_error(j.error().message, "state");
    if (!j.value().is_object()) return link_error("the link's state is not an object", "state");
    return j.value();
  }
  std::string version;
  size_t pairs = 0;
  size_t start = 0;
  while (start <= fragment.size()) {
    size_t end = fragment.find('&', start);
    if (end == std::string::npos) end = fragment.size();
    const std::string pair = fragment.substr(start, end - start);
    start = end + 1;
    if (pair.empty()) continue;   // "a=1&&b=2" or a trailing '&': harmless
    if (++pairs > kMaxPairs)
      return link_error("the link has more than " + std::to_string(kMaxPairs) + " key=value pairs; it was not made by this page",
                        "");
    const size_t eq = pair.find('=');
    auto key = percent_decode(pair.substr(0, eq), "");
    if (!key.ok()) return key.error();
    if (!valid_key(key.value())) {
      std::string shown = key.value().substr(0, 40);
      if (!is_valid_utf8(shown)) shown = "(not text)";
      return link_error("\"" + shown + "\" is not a state key (letters, digits, '_' and '.', at most " +
                            std::to_string(kMaxKeyParts) + " parts)",
                        "");
    }
    if (eq == std::string::npos)
      return link_error(key.value() + " has no value; write " + key.value() + "=VALUE", key.value());
    auto text = percent_decode(pair.substr(eq + 1), key.value());
    if (!text.ok()) return text.error();
    if (key.value() == "v") {
      if (!version.empty()) return link_error("the link gives its version v twice", "v");
      version = text.value();
      if (version.empty()) version = "(empty)";
      continue;
    }
    auto value = typed_value(key.value(), text.value());
    if (!value.ok()) return value.error();
    if (auto s = insert_pair(out, key.value(), std::move(value.value())); !s.ok()) return s.error();
  }
  if (version.empty())
    return link_error("the link has no version (v=1 first); it was not made by this page's Copy link", "v");
  if (version != std::to_string(kShareLinkVersion)) {
    std::string shown = version.substr(0, 12);
    if (!is_valid_utf8(shown)) shown = "?";
    return link_error("the link is format version " + shown + "; this page reads version " +
                          std::to_string(kShareLinkVersion) + " (a newer page made it, or it was altered)",
                      "v");
  }
  return out;
}

Status apply_share_fragment(AppState& state, const std::string& fragment, const std::string& source) {
  auto decoded = decode_share_fragment(fragment);
  // Links made before the inter-op tab chose its space hold none: they meant Alpa's (2021) space,
  // whatever the page shows now.
  if (decoded.ok() && !decoded.value().empty() && !decoded.value().contains("space")) decoded.value()["space"] = InterRequest{}.space;
  Status applied = decoded.ok() ? apply_settings_object(state, decoded.value()) : Status(decoded.error());
  if (!applied.ok()) {
    Error e = applied.error();
    std::string what = source;
    if (!what.empty() && what[0] >= 'a' && what[0] <= 'z') what[0] = char(what[0] - 'a' + 'A');
    e.message = what + " could not be restored: " + e.message + ". Showing " + state.settings.model + " instead.";
    notify_error(state, e);
    return e;
  }
  // The page names the source in English ("the link", "your last session"): the notice names it in the page's language.
  notify_info(state, source == "the link" ? std::string(tr("notice.restored_link"))
                     : source == "your last session" ? std::string(tr("notice.restored_session"))
                                                     : tr_fill("notice.restored", {source}));
  return Ok{};
}

std::string base64url_encode(const std::string& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t n = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 | uint8_t(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += alphabet[(n >> s) & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest) {
    uint32_t n = uint32_t(uint8_t(bytes[i])) << 16;
    if (rest == 2) n |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    if (rest == 2) out += alphabet[(n >> 6) & 63];
  }
  return out;
}

Result<std::string> base64url_decode(const std::string& text, const std::string& path) {
  std::string body = text;
  while (!body.empty() && body.back() == '=') body.pop_back();
  if (body.size() % 4 == 1)
    return make_error(ErrorCode::bad_link, "the base64 text is " + std::to_string(body.size()) + " characters, a length base64 cannot have; it was cut",
                      path);
  std::string out;
  out.reserve(body.size() / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '-' || c == '+') v = 62;   // '+' and '/': standard base64, also accepted
    else if (c == '_' || c == '/') v = 63;
    else
      return make_error(ErrorCode::bad_link, "character " + std::to_string(i + 1) + " of the base64 text is not base64; copy the whole link again", path);
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xFF);
    }
  }
  return out;
}

bool is_valid_utf8(const std::string& text) {
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const uint8_t c = uint8_t(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return false;
    if (i + size_t(len) > n) return false;
    for (int k = 1; k < len; ++k) {
      const uint8_t d = uint8_t(text[i + size_t(k)]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) return false;   // overlong
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += size_t(len);
  }
  return true;
}

}  // namespace autopar::web
