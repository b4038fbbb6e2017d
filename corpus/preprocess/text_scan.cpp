// Word-level text scanning (see text_scan.h).
#include "corpus/preprocess/text_scan.h"

#include <cctype>

namespace clgen::preprocess::scan {

size_t skip_space(std::string_view t, size_t i) {
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  return i;
}

std::string_view word_at(std::string_view t, size_t i) {
  size_t j = i;
  while (j < t.size() && ident_char(t[j])) ++j;
  return t.substr(i, j - i);
}

std::string without_comments(std::string_view text) {
  std::string out(text);
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '/' && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out[i] == '/' && out[i + 1] == '*') {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i) {
        if (out[i] != '\n') out[i] = ' ';
      }
      --i;
    }
  }
  return out;
}

}  // namespace clgen::preprocess::scan
