// Word-level scanning of OpenCL source text without Clang, shared by the
// inference helpers that read a text's own conventions (image_macros.h,
// member_types.h).
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace clgen::preprocess::scan {

inline bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The index of the first non-space character at or after `i`.
size_t skip_space(std::string_view t, size_t i);

// The identifier starting at `i` ("" when none starts there).
std::string_view word_at(std::string_view t, size_t i);

// `text` with its comments blanked (same length, so offsets still match).
std::string without_comments(std::string_view text);

}  // namespace clgen::preprocess::scan
