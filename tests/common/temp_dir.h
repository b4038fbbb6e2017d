// The one temporary-directory fixture of the tests: a fresh directory per
// object, named after the running test, removed with everything in it.
#pragma once

#include <string>

namespace clgen::testing {

// A fresh directory under $TMPDIR (else /tmp), "clgen-SUITE-TEST-XXXXXX"
// inside a test, removed with everything in it on destruction. Creation and
// removal use POSIX calls, not std::filesystem (support/files.h says why).
// A failure to create it fails the running test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

}  // namespace clgen::testing
