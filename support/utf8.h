// UTF-8 validity and the ASCII-only check of code that Clang is handed
// (the preprocessor's and the driver's guards against Clang 15 lexer crashes).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace clgen {

// `text` without a leading UTF-8 byte-order mark: Clang accepts one only at
// the very start of its input, so a text put after other text loses it.
inline std::string_view without_byte_order_mark(std::string_view text) {
  return text.substr(0, 3) == "\xEF\xBB\xBF" ? text.substr(3) : text;
}

// The length (2 to 4) of the well-formed UTF-8 sequence that starts at
// text[i], a byte above 0x7F, or 0 when none does (a stray continuation
// byte, a truncated sequence, an overlong, a surrogate, above U+10FFFF).
size_t utf8_sequence_length(std::string_view text, size_t i);

// True when `text` is well-formed UTF-8 (no overlongs, surrogates or values
// above U+10FFFF).
bool is_valid_utf8(std::string_view text);

// The offset of the first byte above 0x7F in `text` outside comments and
// string or character literals (a UTF-8 byte-order mark is skipped anywhere),
// or npos. OpenCL code outside those is ASCII in practice (none of the GitHub
// snapshot's files has such a byte), and Clang 15's lexer crashes, or leaks
// the compiler it abandons, on some non-ASCII identifier characters
// (docs/FUZZING.md), so the preprocessor refuses such input before Clang.
size_t first_non_ascii_code(std::string_view text);
// "" when first_non_ascii_code finds nothing, else what and where (line N).
std::string non_ascii_code_problem(std::string_view text);

// "" when `text` may be handed to Clang, else why not: not valid UTF-8, or
// non_ascii_code_problem's answer.
std::string clang_input_problem(std::string_view text);

}  // namespace clgen
