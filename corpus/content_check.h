// Classifies candidate source files before they enter the corpus: empty,
// binary (NUL bytes) and invalid UTF-8 files are skipped with a reason.
#pragma once

#include <string>
#include <string_view>

#include "support/utf8.h"

namespace clgen::corpus {

// Skip reasons recorded in the `skipped` table and reported by `corpus stats`.
namespace skip_reason {
inline constexpr const char* kEmpty = "empty";                  // no bytes, or only whitespace
inline constexpr const char* kBinary = "binary";                // contains NUL bytes
inline constexpr const char* kInvalidUtf8 = "invalid_utf8";
inline constexpr const char* kTooLarge = "too_large";           // over --max-file-size
inline constexpr const char* kTooLargeInlined = "too_large_after_inlining";
inline constexpr const char* kUnreadable = "unreadable";
inline constexpr const char* kSymlinkOutside = "symlink_outside_root";
inline constexpr const char* kNoSource = "no_string_literal";   // a C header without a kernel literal
}  // namespace skip_reason

// is_valid_utf8 and the non-ASCII checks live in support/utf8.h (the
// driver's Clang analysis guards its input with them too).
using clgen::first_non_ascii_code;
using clgen::is_valid_utf8;
using clgen::non_ascii_code_problem;

// The skip reason for file contents, or "" when the text is acceptable.
std::string content_problem(std::string_view text);

// kBinary or kEmpty for such contents, else "" (the encoding is not checked).
std::string binary_or_empty(std::string_view text);

}  // namespace clgen::corpus
