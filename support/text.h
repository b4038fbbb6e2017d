// Small ASCII text helpers shared by modules.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>

namespace clgen {

// `s` with ASCII letters in lower case (for case-insensitive matching of
// names such as device specs and HTTP headers).
inline std::string ascii_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace clgen
