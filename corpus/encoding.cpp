// Windows-1252 fallback for bytes that are not UTF-8 (encoding.h).
#include "corpus/encoding.h"

#include <algorithm>
#include <cstdio>

#include "support/utf8.h"

namespace clgen::corpus {

namespace {

// Code points of 0x80..0x9F in Windows-1252; 0 where 1252 has no mapping.
constexpr uint16_t kCp1252High[32] = {0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                      0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,
                                      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                      0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

uint32_t cp1252(unsigned char b) {
  if (b >= 0x80 && b <= 0x9F && kCp1252High[b - 0x80] != 0) return kCp1252High[b - 0x80];
  return b;  // Latin-1
}

}  // namespace

std::string windows1252_to_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  std::string out;
  out.reserve(n + n / 8);
  for (size_t i = 0; i < n;) {
    if (s[i] < 0x80) {
      out += static_cast<char>(s[i++]);
    } else if (size_t len = utf8_sequence_length(text, i)) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      append_utf8(out, cp1252(s[i++]));
    }
  }
  return out;
}

Utf8Text c_source_as_utf8(std::string_view raw) {
  Utf8Text r;
  const auto* s = reinterpret_cast<const unsigned char*>(raw.data());
  const size_t n = raw.size();
  // One pass: where each invalid byte lies (code, comment or literal). The
  // states follow the C lexer closely enough for this: a backslash-newline
  // continues a line comment, a literal ends at its quote or the line's end.
  enum { kCode, kLine, kBlock, kString, kChar } state = kCode;
  int64_t line = 1;
  for (size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    if (c >= 0x80) {
      if (size_t len = utf8_sequence_length(raw, i)) {
        i += len;
        continue;
      }
      if (state == kCode) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "byte 0x%02X outside comments and literals at line %lld", c,
                      static_cast<long long>(line));
        r.problem = buf;
        return r;
      }
      ++r.transcoded;
      ++i;
      continue;
    }
    if (c == '\n') ++line;
    switch (state) {
      case kCode:
        if (c == '/' && i + 1 < n && s[i + 1] == '/') state = kLine, ++i;
        else if (c == '/' && i + 1 < n && s[i + 1] == '*') state = kBlock, ++i;
        else if (c == '"') state = kString;
        else if (c == '\'') state = kChar;
        break;
      case kLine:
        if (c == '\n' && !(i > 0 && s[i - 1] == '\\')) state = kCode;
        break;
      case kBlock:
        if (c == '*' && i + 1 < n && s[i + 1] == '/') state = kCode, ++i;
        break;
      case kString:
      case kChar:
        if (c == '\\' && i + 1 < n && s[i + 1] < 0x80) {  // an escaped invalid byte is read next
          if (s[i + 1] == '\n') ++line;
          ++i;
        } else if (c == '\n' || c == (state == kString ? '"' : '\'')) {
          state = kCode;
        }
        break;
    }
    ++i;
  }
  r.text = r.transcoded ? windows1252_to_utf8(raw) : std::string(raw);
  return r;
}

}  // namespace clgen::corpus
