// C string-literal decoding for kernels embedded in headers.
#include "corpus/string_literals.h"

#include <cctype>

namespace clgen::corpus {

namespace {
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_octal_digit(char c) { return c >= '0' && c <= '7'; }
}  // namespace

std::optional<char> simple_c_escape(char letter) {
  switch (letter) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'a': return '\a';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'v': return '\v';
    default: return std::nullopt;
  }
}

int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

uint32_t octal_escape(std::string_view body, size_t& i) {
  uint32_t v = body[i] - '0';
  for (int k = 0; k < 2 && i + 1 < body.size() && is_octal_digit(body[i + 1]); ++k) v = v * 8 + (body[++i] - '0');
  return v;
}

Expected<std::string> decode_c_escapes(const std::string& body) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= body.size()) return parse_error("string literal ends with a backslash");
    char e = body[i];
    if (auto simple = simple_c_escape(e)) {
      out += *simple;
      continue;
    }
    switch (e) {
      case '\\':
      case '"':
      case '\'':
      case '?': out += e; break;
      case '\n': break;  // line continuation inside a literal
      case 'x': {
        int v = 0, digits = 0;
        while (i + 1 < body.size() && hex_digit_value(body[i + 1]) >= 0) {
          v = v * 16 + hex_digit_value(body[++i]);
          ++digits;
        }
        if (digits == 0 || v > 0xFF) return parse_error("bad \\x escape in string literal");
        out += static_cast<char>(v);
        break;
      }
      default:
        if (!is_octal_digit(e)) return parse_error(std::string("unknown escape \\") + e + " in string literal");
        out += static_cast<char>(octal_escape(body, i));
    }
  }
  return out;
}

Expected<std::vector<EmbeddedSource>> decode_string_literal_sources(const std::string& code) {
  std::vector<EmbeddedSource> out;
  size_t i = 0, n = code.size();
  std::string last_ident;  // the identifier most recently seen before '='
  std::string pending_name;
  bool after_equals = false;
  std::string current;
  bool in_literals = false;
  auto flush = [&] {
    if (in_literals) out.push_back({pending_name, current});
    in_literals = false;
    current.clear();
    after_equals = false;
  };
  while (i < n) {
    char c = code[i];
    if (c == '/' && i + 1 < n && code[i + 1] == '/') {
      i = code.find('\n', i);
      if (i == std::string::npos) break;
      continue;
    }
    if (c == '/' && i + 1 < n && code[i + 1] == '*') {
      size_t e = code.find("*/", i + 2);
      if (e == std::string::npos) return parse_error("unterminated comment");
      i = e + 2;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '\'') {  // character literal
      ++i;
      while (i < n && code[i] != '\'') i += code[i] == '\\' ? 2 : 1;
      ++i;
      flush();
      continue;
    }
    if (c == '"') {
      size_t j = i + 1;
      while (j < n && code[j] != '"') {
        if (code[j] == '\n') return parse_error("unterminated string literal");
        j += code[j] == '\\' ? 2 : 1;
      }
      if (j >= n) return parse_error("unterminated string literal");
      if (after_equals || in_literals) {
        ASSIGN_OR_RETURN(std::string decoded, decode_c_escapes(code.substr(i + 1, j - i - 1)));
        if (!in_literals) pending_name = last_ident;
        in_literals = true;
        current += decoded;
      }
      i = j + 1;
      continue;
    }
    if (in_literals) flush();
    if (is_ident_char(c)) {
      size_t j = i;
      while (j < n && is_ident_char(code[j])) ++j;
      last_ident = code.substr(i, j - i);
      after_equals = false;
      i = j;
      continue;
    }
    after_equals = c == '=';
    ++i;
  }
  flush();
  return out;
}

}  // namespace clgen::corpus
