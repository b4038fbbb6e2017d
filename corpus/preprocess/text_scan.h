// Word-level scanning of OpenCL source text without Clang, shared by the
// helpers that read a text's own conventions (image_macros.h,
// member_types.h, repo_prelude.h).
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace clgen::preprocess::scan {

inline bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The index of the first non-space character at or after `i`.
size_t skip_space(std::string_view t, size_t i);

// The identifier starting at `i` ("" when none starts there).
std::string_view word_at(std::string_view t, size_t i);

// `text` with its comments blanked (same length and newlines, so offsets and
// lines still match; a backslash-newline continues a line comment). String
// and character literals are skipped, up to their line's end, so `//` in
// one is no comment; with `blank_literals` their contents are blanked too.
std::string without_comments(std::string_view text, bool blank_literals = false);

}  // namespace clgen::preprocess::scan
