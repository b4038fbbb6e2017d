// Classifies candidate source files before they enter the corpus: empty,
// binary (NUL bytes) and invalid UTF-8 files are skipped with a reason.
#pragma once

#include <string>
#include <string_view>

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

// True when `text` is well-formed UTF-8 (no overlongs, surrogates or values
// above U+10FFFF).
bool is_valid_utf8(std::string_view text);

// The skip reason for file contents, or "" when the text is acceptable.
std::string content_problem(std::string_view text);

}  // namespace clgen::corpus
