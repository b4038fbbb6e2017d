// Content classification: empty, binary, invalid UTF-8.
#include "corpus/content_check.h"

#include <cstdint>

namespace clgen::corpus {

std::string binary_or_empty(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return skip_reason::kBinary;
  if (text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) return skip_reason::kEmpty;
  return "";
}

std::string content_problem(std::string_view text) {
  if (std::string p = binary_or_empty(text); !p.empty()) return p;
  if (!is_valid_utf8(text)) return skip_reason::kInvalidUtf8;
  return "";
}

}  // namespace clgen::corpus
