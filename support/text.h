// Small ASCII text helpers shared by modules.
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace clgen {

// `s` with ASCII letters in lower case (for case-insensitive matching of
// names such as device specs and HTTP headers).
inline std::string ascii_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The decimal digits of `s` as an unsigned 64-bit value; nullopt when `s` is
// empty, holds anything but digits, or does not fit. Never throws (unlike
// std::stoull, whose std::out_of_range reached the CLI as a crash).
inline std::optional<uint64_t> parse_uint64(std::string_view s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  uint64_t value = 0;
  auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

}  // namespace clgen
