// The page's words in English and Chinese: one table per language (strings_en.cpp,
// strings_zh.cpp) with the same keys, and the page's current language. Every text a reader
// reads in the page is looked up here by a stable key; a unit test keeps the tables' keys equal,
// their printf conversions equal, and every key the sources use present. No ImGui in here.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "language.h"

namespace autopar::web {

// One entry of a language's table.
struct StringEntry {
  const char* key;
  const char* text;
};

// The table of `language`, in the order it is written.
const std::vector<StringEntry>& string_table(Language language);

// The page's language (set when settings are applied; English until then).
Language page_language();
// Sets the page's language.
void set_page_language(Language language);

// The text of `key` in the page's language; the English text when the Chinese table lacks it,
// the key itself when both do (the unit test keeps both from happening).
const char* tr(const char* key);
// The text of `key` in `language`.
const char* tr_in(Language language, const char* key);
// "text###key": a label whose Dear ImGui id stays the same in both languages (an open tab, a
// collapsed header or a window keeps its state when the language changes).
std::string tr_id(const char* key);
// Dear ImGui 1.86 wraps lines only at blanks, and Chinese has none between words. Once the CJK
// font is in, Chinese texts carry an ideographic space (U+3000, which ImGui counts as a blank and
// ui_style.cpp draws with zero width) at every place a line may break: between two CJK
// characters, or a CJK character and a Latin one, but never before closing or after opening
// punctuation. `text` with those marks when they are on (the Chinese table's texts, and core's
// Chinese scenario texts at draw time); `text` itself otherwise.
std::string breakable_text(const std::string& text);
// Turns the marks on or off (on once the CJK font is merged into the atlas).
void set_line_break_marks(bool on);
// `text` without the marks (what notices and result() report).
std::string without_break_marks(const std::string& text);

// The text of `key` with {0}, {1}, ... filled in from `args` (numbers formatted by the caller,
// identically in both languages).
std::string tr_fill(const char* key, std::initializer_list<std::string> args);
// The same with the arguments in a vector (notices index.html raises by key).
std::string tr_fill(const char* key, const std::vector<std::string>& args);

}  // namespace autopar::web
