// The names the rewriter gives identifiers, in order of first appearance:
// variables a..z, aa..zz, aaa..., functions A..Z, AA... A face header of the
// preprocess module with no Clang and no library (header only), so the
// sampler's constraint can follow the same numbering without linking Clang.
#pragma once

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

namespace clgen::preprocess {

// The n-th generated name (from 0).
inline std::string generated_name(size_t n, bool upper) {
  std::string s;
  n += 1;
  while (n > 0) {
    n -= 1;
    s.insert(s.begin(), static_cast<char>((upper ? 'A' : 'a') + n % 26));
    n /= 26;
  }
  return s;
}

// True for the lower-case words of at most four letters that only C++
// reserves: its alternative operator spellings and a few keywords. OpenCL C
// allows them as names, but clang-format reads the text as C++ and lays a
// variable `or` out as the operator (`or [0]`), so the rewriter never
// generates them (a kernel reaches `or` after some 400 variables; the
// sampler's constraint, whose samples never declare that many, does not
// follow this).
inline bool is_cpp_only_word(std::string_view w) {
  for (std::string_view r : {"and", "asm", "new", "not", "or", "this", "try", "xor"})
    if (w == r) return true;
  return false;
}

// The inverse of generated_name: the index of `w`, or -1 when `w` is not
// 1-4 letters of one case.
inline long generated_index(std::string_view w) {
  if (w.empty() || w.size() > 4) return -1;
  const bool upper = std::isupper(static_cast<unsigned char>(w[0]));
  long n = 0;
  for (char c : w) {
    const auto u = static_cast<unsigned char>(c);
    if (upper ? !std::isupper(u) : !std::islower(u)) return -1;
    n = n * 26 + (c - (upper ? 'A' : 'a') + 1);
  }
  return n - 1;
}

}  // namespace clgen::preprocess
