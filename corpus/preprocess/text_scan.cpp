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

std::string without_comments(std::string_view text, bool blank_literals) {
  std::string out(text);
  const size_t n = out.size();
  auto blank = [&](size_t i) {
    if (out[i] != '\n') out[i] = ' ';
  };
  for (size_t i = 0; i < n;) {
    if (out.compare(i, 2, "//") == 0) {
      for (; i < n && out[i] != '\n'; ++i) {
        if (out[i] == '\\' && i + 1 < n && out[i + 1] == '\n') blank(i++);  // continued: keep the newline
        blank(i);
      }
    } else if (out.compare(i, 2, "/*") == 0) {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? n : end + 2;
      for (; i < end; ++i) blank(i);
    } else if (out[i] == '"' || out[i] == '\'') {
      const char q = out[i++];
      while (i < n && out[i] != q && out[i] != '\n') {
        const size_t step = out[i] == '\\' && i + 1 < n && out[i + 1] != '\n' ? 2 : 1;
        for (size_t k = 0; blank_literals && k < step; ++k) blank(i + k);
        i += step;
      }
      if (i < n && out[i] == q) ++i;
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace clgen::preprocess::scan
