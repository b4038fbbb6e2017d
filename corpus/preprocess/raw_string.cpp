// Unwrapping of kernel files that are C++ raw string literals (raw_string.h).
#include "corpus/preprocess/raw_string.h"

#include <cctype>

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

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Reads the word at `i` (advancing past it), or "" when none starts there.
std::string_view word(std::string_view t, size_t& i) {
  size_t b = i;
  while (i < t.size() && ident_char(t[i])) ++i;
  return t.substr(b, i - b);
}

// Appends the literal that starts at the quote `t[i]` to `out`, its escapes
// undone, and moves `i` past its closing quote; false when it is unterminated.
bool read_literal(std::string_view t, size_t& i, std::string& out) {
  for (++i; i < t.size(); ++i) {
    char c = t[i];
    if (c == '"') {
      ++i;
      return true;
    }
    if (c != '\\' || i + 1 >= t.size()) {
      out += c;
      continue;
    }
    char e = t[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '\n': break;  // a line continuation
      case '\r':
        if (i + 1 < t.size() && t[i + 1] == '\n') ++i;
        break;
      case '"':
      case '\\':
      case '\'':
      case '?': out += e; break;
      default: out += '\\'; out += e;  // kept as written (\x41, \0, ...)
    }
  }
  return false;
}

// One `[static] [const] char [const] (*NAME | NAME[]) = "..." ["..."]... ;`
// declaration at `i`: its literals' texts are appended to `out`.
bool read_string_declaration(std::string_view t, size_t& i, std::string& out) {
  bool seen_char = false;
  std::string_view name;
  while (true) {
    if (!skip_blank(t, i) || i >= t.size()) return false;
    if (t[i] == '*') {
      ++i;
      continue;
    }
    std::string_view w = word(t, i);
    if (w.empty()) break;
    if (w == "static" || w == "const") continue;
    if (w == "char") {
      seen_char = true;
      continue;
    }
    if (!seen_char || !name.empty()) return false;
    name = w;
  }
  if (name.empty()) return false;
  if (t.compare(i, 1, "[") == 0) {
    if (!skip_blank(t, ++i) || t.compare(i, 1, "]") != 0) return false;
    ++i;
    if (!skip_blank(t, i)) return false;
  }
  if (t.compare(i, 1, "=") != 0) return false;
  ++i;
  int literals = 0;
  while (skip_blank(t, i) && i < t.size() && t[i] == '"') {
    if (!read_literal(t, i, out)) return false;
    ++literals;
  }
  if (literals == 0 || i >= t.size() || t[i] != ';') return false;
  ++i;
  return true;
}

}  // namespace

std::optional<std::string> c_string_contents(std::string_view t) {
  std::string out;
  size_t i = 0, declarations = 0;
  while (true) {
    if (!skip_blank(t, i)) return std::nullopt;
    if (i == t.size()) break;
    if (!read_string_declaration(t, i, out)) return std::nullopt;
    if (!out.empty() && out.back() != '\n') out += '\n';
    ++declarations;
  }
  if (declarations == 0) return std::nullopt;
  return out;
}

std::string strip_raw_string_wrapper(std::string_view text) {
  std::optional<std::string> inner = raw_string_contents(text);
  if (!inner) inner = c_string_contents(text);
  return inner ? std::move(*inner) : std::string(text);
}

}  // namespace clgen::preprocess
