// Decodes OpenCL kernels that C/C++ headers embed as string literals (e.g.
// Bullet3OpenCL's `static const char* rayCastKernelCL = "..." "...";`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace clgen::corpus {

struct EmbeddedSource {
  std::string name;  // the variable the literal initialises
  std::string text;  // the decoded source
};

// Every `NAME = "..." "..." ;` initialiser in `code` (adjacent literals are
// concatenated, escapes decoded). Comments and character literals are
// skipped. Fails with kParse on an unterminated literal or a bad escape.
Expected<std::vector<EmbeddedSource>> decode_string_literal_sources(const std::string& code);

// Decodes the body of one C string literal (without its quotes).
Expected<std::string> decode_c_escapes(const std::string& body);

// The escape pieces that decode_c_escapes shares with the host-code scanner
// (host_code.h), whose languages decode C's escapes leniently.

// The character a one-letter escape (\n \t \r \a \b \f \v) stands for, or
// nullopt for any other letter.
std::optional<char> simple_c_escape(char letter);

// The value of the hexadecimal digit `c`, or -1.
int hex_digit_value(char c);

// The value of the octal escape whose first digit is body[i] (up to two more
// digits follow it); `i` is left on its last digit.
uint32_t octal_escape(std::string_view body, size_t& i);

}  // namespace clgen::corpus
