// Decodes OpenCL kernels that C/C++ headers embed as string literals (e.g.
// Bullet3OpenCL's `static const char* rayCastKernelCL = "..." "...";`).
#pragma once

#include <string>
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

}  // namespace clgen::corpus
