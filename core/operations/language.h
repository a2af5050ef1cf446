// The two languages the lecture companion speaks (`scenario --lang`, the page's `lang`), and
// texts held in both with the same numbers in each.
#pragma once
#include <initializer_list>
#include <string>

#include "result.h"

namespace autopar {

// English, or Chinese in the lecture's own terms.
enum class Language { en, zh };

// "en" or "zh".
const char* language_name(Language language);
// Reads "en" or "zh"; anything else is the error "bad_value" at `path`, naming both.
Result<Language> parse_language(const std::string& text, const std::string& path);

// One text in both languages.
struct Bilingual {
  std::string en, zh;
  // The text in `language`.
  const std::string& in(Language language) const { return language == Language::zh ? zh : en; }
};

// Fills the placeholders {0}, {1}, ... of both templates with the same `args`: a number is
// formatted once and appears identically in both languages.
Bilingual say(const char* en, const char* zh, std::initializer_list<std::string> args = {});

// Columns a text takes in a terminal: East Asian wide and full-width characters count 2, other
// characters 1 (UTF-8; combining marks are not special-cased).
size_t display_width(const std::string& text);

}  // namespace autopar
