// The one failure path of the fuzz targets: what broke on stderr, then
// abort(), so that libFuzzer saves the input as a crash.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/status.h"

namespace clgen::fuzz {

[[noreturn]] inline void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz oracle failed: %s:\n%s\n", what, detail.c_str());
  std::abort();
}

// A reader's error must say which input failed: its message starts with `source`.
inline void expect_error_names(const Status& status, const std::string& source) {
  if (status.message().rfind(source, 0) != 0) fail("an error that does not name its input", status.message());
}

}  // namespace clgen::fuzz
