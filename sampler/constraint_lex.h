// Lexical helpers shared by the files of the code constraint (internal to
// sampler/: code_constraint.cpp, constraint_*.cpp; batch_sampler.cpp finds
// names with them for backtracking).
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace clgen::sampler::constraint_lex {

// Operator characters: consecutive ones form one operator (`&&`, `<<=`).
inline constexpr std::string_view kOperatorChars = "=+-*/%<>&|^!~";

inline bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
inline bool space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

inline bool all_of(std::string_view w, int (*pred)(int)) {
  if (w.empty()) return false;
  for (char c : w)
    if (!pred(static_cast<unsigned char>(c))) return false;
  return true;
}
inline bool lower_shape(std::string_view w) { return w.size() <= 3 && all_of(w, ::islower); }
inline bool upper_shape(std::string_view w) { return w.size() <= 2 && all_of(w, ::isupper); }

inline constexpr int kMaxNumberLength = 48;

// tok_.prev after a field name (`.x`): a token that is no word, so no rule about
// names, calls or declarations applies to what follows it.
inline const char* const kFieldWord = ".field";

inline bool at_statement_start(const std::string& prev) {
  return prev.empty() || prev == ";" || prev == "{" || prev == "}" || prev == ")" || prev == ":" || prev == "else" ||
         prev == "do";
}

// Whether field `w` (or the start of one) can select components of a vector
// of `width` (0: unknown): `x`..`w` and the hex digits after `s` below the
// width; other fields (`lo`, `hi`, `even`, `odd`) are not limited.
inline bool swizzle_fits(std::string_view w, int width) {
  if (width <= 0 || w.empty()) return true;
  constexpr std::string_view kXyzw = "xyzw";
  if (w.find_first_not_of(kXyzw) == std::string_view::npos) {
    for (char c : w)
      if (int(kXyzw.find(c)) >= width) return false;
    return true;
  }
  if (w[0] != 's' && w[0] != 'S') return true;
  for (char c : w.substr(1)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return true;  // not a component name
  }
  for (char c : w.substr(1)) {
    const int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10;
    if (digit >= width) return false;
  }
  return true;
}

// tok_.prev after the closing brace of a struct, union or enum body.
inline const char* const kAggregateType = "}type";

}  // namespace clgen::sampler::constraint_lex
