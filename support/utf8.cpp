// UTF-8 validity and the ASCII-only check of code (utf8.h).
#include "support/utf8.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace clgen {
namespace {

// True when none of the 8 bytes at `p` is above 0x7F. Both checks run on
// every text handed to Clang (compile() and each pass's set-up), hashcat's
// of 300 KB several times per file, and nearly all of it is ASCII: eight
// bytes at a time cost a fraction of a byte loop.
bool ascii8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return (w & 0x8080808080808080ULL) == 0;
}

// The offset of the first byte above 0x7F at or after `i`, or text.size().
size_t skip_ascii(std::string_view text, size_t i) {
  const size_t n = text.size();
  while (i + 8 <= n && ascii8(text.data() + i)) i += 8;
  while (i < n && static_cast<unsigned char>(text[i]) <= 0x7F) ++i;
  return i;
}

}  // namespace

size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  uint8_t c = s[i];
  size_t len;
  uint32_t cp;
  if ((c & 0xE0) == 0xC0) {
    len = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;  // a continuation byte or 0xF8..0xFF where a lead byte belongs
  }
  if (i + len > n) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((s[i + k] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i + k] & 0x3F);
  }
  static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

bool is_valid_utf8(std::string_view text) {
  size_t n = text.size(), i = 0;
  while (i < n) {
    i = skip_ascii(text, i);
    if (i == n) break;
    size_t len = utf8_sequence_length(text, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

size_t first_non_ascii_code(std::string_view text) {
  const size_t n = text.size();
  // Only a byte above 0x7F can be the answer.
  size_t i = skip_ascii(text, 0);
  if (i == n) return std::string_view::npos;
  i = 0;
  // The end of a line comment: its newline, unless a backslash continues it.
  auto line_end = [&](size_t from) {
    size_t e = from;
    while (e < n && (text[e] != '\n' || (e > 0 && text[e - 1] == '\\'))) ++e;
    return e;
  };
  while (i < n) {
    const char c = text[i];
    if (c == '\xEF' && text.compare(i, 3, "\xEF\xBB\xBF") == 0) {
      i += 3;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      i = line_end(i + 2);
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      size_t e = text.find("*/", i + 2);
      i = e == std::string_view::npos ? n : e + 2;
    } else if (c == '"' || c == '\'') {
      size_t e = i + 1;
      while (e < n && text[e] != c && text[e] != '\n') e += text[e] == '\\' ? 2 : 1;
      i = e + 1;
    } else if (static_cast<unsigned char>(c) > 0x7F) {
      return i;
    } else {
      ++i;
    }
  }
  return std::string_view::npos;
}

std::string non_ascii_code_problem(std::string_view text) {
  const size_t at = first_non_ascii_code(text);
  if (at == std::string_view::npos) return "";
  const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + at, '\n'));
  return "input has a non-ASCII character outside comments and literals at line " + std::to_string(line);
}

std::string clang_input_problem(std::string_view text) {
  if (!is_valid_utf8(text)) return "input is not valid UTF-8";
  return non_ascii_code_problem(text);
}

}  // namespace clgen
