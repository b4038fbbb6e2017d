// Unwrapping of kernel files that are C++ raw string literals (raw_string.h).
#include "corpus/preprocess/raw_string.h"

namespace clgen::preprocess {

namespace {

// C++ caps a raw string's delimiter at 16 characters, none of them space,
// parentheses, backslash or quote.
constexpr size_t kMaxDelimiter = 16;

bool delimiter_char(char c) {
  return c != ' ' && c != '(' && c != ')' && c != '\\' && c != '"' && c != '\t' && c != '\n' && c != '\r' &&
         c != '\v' && c != '\f';
}

// Skips whitespace and comments from `i`; false on an unterminated comment.
bool skip_blank(std::string_view t, size_t& i) {
  while (i < t.size()) {
    char c = t[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      ++i;
    } else if (t.compare(i, 2, "//") == 0) {
      size_t end = t.find('\n', i);
      i = end == std::string_view::npos ? t.size() : end + 1;
    } else if (t.compare(i, 2, "/*") == 0) {
      size_t end = t.find("*/", i + 2);
      if (end == std::string_view::npos) return false;
      i = end + 2;
    } else {
      return true;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> raw_string_contents(std::string_view t) {
  std::string out;
  size_t i = 0, literals = 0;
  while (true) {
    if (!skip_blank(t, i)) return std::nullopt;
    if (i == t.size()) break;
    if (t.compare(i, 2, "R\"") != 0) return std::nullopt;
    size_t open = i + 2;
    while (open < t.size() && open - (i + 2) <= kMaxDelimiter && delimiter_char(t[open])) ++open;
    if (open >= t.size() || t[open] != '(' || open - (i + 2) > kMaxDelimiter) return std::nullopt;
    std::string close = ")" + std::string(t.substr(i + 2, open - (i + 2))) + "\"";
    size_t end = t.find(close, open + 1);
    if (end == std::string_view::npos) return std::nullopt;
    out.append(t.substr(open + 1, end - (open + 1)));
    ++literals;
    i = end + close.size();
  }
  if (literals == 0) return std::nullopt;
  return out;
}

std::string strip_raw_string_wrapper(std::string_view text) {
  std::optional<std::string> inner = raw_string_contents(text);
  return inner ? std::move(*inner) : std::string(text);
}

}  // namespace clgen::preprocess
