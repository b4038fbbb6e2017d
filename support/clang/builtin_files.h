// Where Clang's resource directory and libclc are, and the builtin files
// every in-process compile needs (Clang's opencl-c-base.h, libclc's headers
// and bitcode), read once per process and then served from memory.
#pragma once

#include <string>
#include <vector>

namespace clgen::clang_support {

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

// Clang's resource directory (the one definition, from the build's LLVM root).
const char* resource_dir();
// Clang's opencl-c-base.h (what -finclude-default-header reads with
// -fdeclare-opencl-builtins), from the resource directory, under its path there.
const HeaderSet& clang_headers();
// Every file under libclc's clc/ include directory.
const HeaderSet& libclc_headers();
// The directory holding libclc's clc/clc.h (CLGEN_LIBCLC_INCLUDE_DIR
// overrides the configured one).
const std::string& libclc_include_dir();
// libclc's nvptx64 bitcode (CLGEN_LIBCLC_BITCODE overrides the configured
// path); empty with `error` set when it cannot be read.
const std::string& libclc_bitcode(std::string& error);

}  // namespace clgen::clang_support
