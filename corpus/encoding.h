// Source files in the encodings real repositories use: UTF-8, or bytes of
// Windows-1252 (Latin-1) in comments and string literals (licence headers
// with `©`, authors' names). Clang accepts those bytes where they do not
// form code, so the importer does too and stores the text as UTF-8.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace clgen::corpus {

// `text` with every byte that does not begin a well-formed UTF-8 sequence
// read as Windows-1252 (Latin-1 for 0x81, 0x8D, 0x8F, 0x90 and 0x9D, which
// 1252 leaves unmapped) and written as UTF-8. Well-formed sequences, the
// byte-order mark and line ends are kept as they are.
std::string windows1252_to_utf8(std::string_view text);

struct Utf8Text {
  std::string text;        // valid UTF-8 (when problem is empty)
  int64_t transcoded = 0;  // bytes read as Windows-1252
  std::string problem;     // "" or why the file is refused
};

// A C-family source (kernel or header) as stored text: unchanged when it is
// valid UTF-8; transcoded with windows1252_to_utf8 when its only invalid
// bytes lie in comments and string or character literals; otherwise refused,
// naming the first such byte and its line ("byte 0xE9 outside comments and
// literals at line 3"), since Clang would not read it as code either.
Utf8Text c_source_as_utf8(std::string_view raw);

}  // namespace clgen::corpus
