// Languages and bilingual texts. See language.h.
#include "language.h"

#include <vector>

namespace autopar {
namespace {

std::string fill(const char* pattern, const std::vector<std::string>& args) {
  std::string out;
  for (const char* p = pattern; *p; ++p) {
    if (*p == '{' && p[1] >= '0' && p[1] <= '9' && p[2] == '}' && size_t(p[1] - '0') < args.size()) {
      out += args[size_t(p[1] - '0')];
      p += 2;
    } else {
      out += *p;
    }
  }
  return out;
}

// East Asian Wide and Fullwidth blocks (Unicode UAX #11): Hangul Jamo, CJK radicals to Yi,
// Hangul syllables, compatibility ideographs, vertical and full-width forms, and the planes
// of rare ideographs.
bool is_wide(unsigned cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) || (cp >= 0x3041 && cp <= 0xA4CF) ||
         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
         (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
}

}  // namespace

const char* language_name(Language language) { return language == Language::zh ? "zh" : "en"; }

Result<Language> parse_language(const std::string& text, const std::string& path) {
  if (text == "en") return Language::en;
  if (text == "zh") return Language::zh;
  return make_error(ErrorCode::bad_value, "unknown language '" + text + "'; use en (English) or zh (Chinese)", path);
}

Bilingual say(const char* en, const char* zh, std::initializer_list<std::string> args) {
  const std::vector<std::string> a(args);
  return Bilingual{fill(en, a), fill(zh, a)};
}

size_t display_width(const std::string& text) {
  size_t width = 0;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = 1;
    unsigned cp = c;
    if (c >= 0xF0) { n = 4; cp = c & 0x07; }
    else if (c >= 0xE0) { n = 3; cp = c & 0x0F; }
    else if (c >= 0xC0) { n = 2; cp = c & 0x1F; }
    for (size_t k = 1; k < n && i + k < text.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    width += is_wide(cp) ? 2 : 1;
    i += n;
  }
  return width;
}

}  // namespace autopar
