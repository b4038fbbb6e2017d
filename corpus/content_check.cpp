// Content classification: empty, binary, invalid UTF-8.
#include "corpus/content_check.h"

#include <cstdint>

namespace clgen::corpus {

bool is_valid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  size_t n = text.size(), i = 0;
  while (i < n) {
    uint8_t c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
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
      return false;  // a continuation byte or 0xF8..0xFF where a lead byte belongs
    }
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

std::string content_problem(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return skip_reason::kBinary;
  if (text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) return skip_reason::kEmpty;
  if (!is_valid_utf8(text)) return skip_reason::kInvalidUtf8;
  return "";
}

}  // namespace clgen::corpus
