// Private to clgen_preprocess: the builtin headers and libclc's bitcode, read once, served from memory.
#pragma once

#include <string>
#include <vector>

namespace clgen::preprocess::internal {

// Builtin headers, read once from disk and then served from memory to every
// compile, so the compiler never touches the real file system.
struct HeaderFile {
  std::string path;
  std::string text;
};
struct HeaderSet {
  std::vector<HeaderFile> files;
  std::string error;  // non-empty when a header could not be read
};

// Clang's opencl-c-base.h, from Clang's resource directory.
const HeaderSet& clang_headers();
// Every file under libclc's clc/ include directory.
const HeaderSet& libclc_headers();
// The directory holding libclc's clc/clc.h (CLGEN_LIBCLC_INCLUDE_DIR
// overrides the configured one).
const std::string& libclc_include_dir();
// libclc's nvptx64 bitcode (CLGEN_LIBCLC_BITCODE overrides the configured
// path); empty with `error` set when it cannot be read.
const std::string& libclc_bitcode(std::string& error);

}  // namespace clgen::preprocess::internal
