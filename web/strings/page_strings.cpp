// The page's words and language. See page_strings.h.
#include "page_strings.h"

#include <map>
#include <string_view>

namespace autopar::web {

// Defined in strings_en.cpp and strings_zh.cpp.
extern const std::vector<StringEntry> kStringsEn;
extern const std::vector<StringEntry> kStringsZh;

namespace {

Language g_language = Language::en;
bool g_break_marks = false;
const char kBreakMark[] = "\xe3\x80\x80";   // U+3000 in UTF-8

// Decodes the UTF-8 character at text[i]; `n` receives its length.
unsigned decode(const std::string& text, size_t i, size_t& n) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  unsigned cp = c;
  n = 1;
  if (c >= 0xF0) { cp = c & 0x07; n = 4; }
  else if (c >= 0xE0) { cp = c & 0x0F; n = 3; }
  else if (c >= 0xC0) { cp = c & 0x1F; n = 2; }
  for (size_t k = 1; k < n && i + k < text.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  return cp;
}

bool is_cjk(unsigned cp) { return (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFFEF); }
// Punctuation a line must not start with, and punctuation it must not end with.
bool is_closing(unsigned cp) {
  for (unsigned c : {0xFF0Cu, 0x3002u, 0xFF1Au, 0xFF1Bu, 0x3001u, 0xFF09u, 0x201Du, 0xFF01u, 0xFF1Fu, 0x300Bu, 0x3011u, 0x2026u})
    if (cp == c) return true;
  return cp == ',' || cp == '.' || cp == ':' || cp == ';' || cp == ')' || cp == ']' || cp == '!' || cp == '?' || cp == '%';
}
bool is_opening(unsigned cp) { return cp == 0xFF08 || cp == 0x201C || cp == 0x300A || cp == 0x3010 || cp == '(' || cp == '[' || cp == '`'; }

using Index = std::map<std::string_view, const char*>;

const Index& index_of(Language language) {
  static const Index en = [] {
    Index i;
    for (const StringEntry& e : kStringsEn) i.emplace(e.key, e.text);
    return i;
  }();
  static const Index zh = [] {
    Index i;
    for (const StringEntry& e : kStringsZh) i.emplace(e.key, e.text);
    return i;
  }();
  return language == Language::zh ? zh : en;
}

}  // namespace

std::string breakable_text(const std::string& text) {
  if (!g_break_marks) return text;
  std::string out;
  out.reserve(text.size() * 2);
  unsigned prev = 0;
  for (size_t i = 0; i < text.size();) {
    size_t n = 1;
    const unsigned cp = decode(text, i, n);
    const bool either_cjk = is_cjk(prev) || is_cjk(cp);
    if (prev && either_cjk && prev > ' ' && cp > ' ' && prev != 0x3000 && cp != 0x3000 && !is_opening(prev) && !is_closing(cp))
      out += kBreakMark;
    out.append(text, i, n);
    prev = cp;
    i += n;
  }
  return out;
}

void set_line_break_marks(bool on) { g_break_marks = on; }

std::string without_break_marks(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, kBreakMark) == 0) {
      i += 2;
      continue;
    }
    out += text[i];
  }
  return out;
}

const std::vector<StringEntry>& string_table(Language language) { return language == Language::zh ? kStringsZh : kStringsEn; }

Language page_language() { return g_language; }

void set_page_language(Language language) { g_language = language; }

const char* tr_in(Language language, const char* key) {
  const Index& i = index_of(language);
  if (auto it = i.find(key); it != i.end()) return it->second;
  if (language != Language::en) return tr_in(Language::en, key);
  return key;
}

const char* tr(const char* key) {
  if (g_language == Language::zh && g_break_marks) {
    // The Chinese texts with their break marks, made once.
    static const std::map<std::string_view, std::string> marked = [] {
      std::map<std::string_view, std::string> m;
      for (const StringEntry& e : kStringsZh) m.emplace(e.key, breakable_text(e.text));
      return m;
    }();
    if (auto it = marked.find(key); it != marked.end()) return it->second.c_str();
  }
  return tr_in(g_language, key);
}

std::string tr_id(const char* key) { return std::string(tr(key)) + "###" + key; }

std::string tr_fill(const char* key, std::initializer_list<std::string> args) { return tr_fill(key, std::vector<std::string>(args)); }

std::string tr_fill(const char* key, const std::vector<std::string>& a) {
  std::string out;
  for (const char* p = tr(key); *p; ++p) {
    if (*p == '{' && p[1] >= '0' && p[1] <= '9' && p[2] == '}' && size_t(p[1] - '0') < a.size()) {
      out += a[size_t(p[1] - '0')];
      p += 2;
    } else {
      out += *p;
    }
  }
  return out;
}

}  // namespace autopar::web
