// The OpenCL C compiler set-up every in-process compile shares: the language
// arguments (OpenCL C 1.2, or the 2.0 fallback with its extensions, and
// Clang's declared builtins) and an in-memory file system holding the input
// and the builtin headers, so untrusted code reads nothing from disk.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <llvm/ADT/IntrusiveRefCntPtr.h>
#include <llvm/Support/VirtualFileSystem.h>

#include "support/clang/builtin_files.h"

namespace clgen::clang_support {

enum class OpenClStd {
  kCL12,  // OpenCL C 1.2, the target's default extensions
  kCL20,  // OpenCL C 2.0 with the optional extensions device code commonly assumes
};

// How the arguments are given: to the compiler proper (cc1, as a
// CompilerInvocation reads them) or to the clang driver (tooling), where
// cc1-only flags are wrapped in -Xclang.
enum class ArgStyle { kCc1, kDriver };

// The language standard, the resource directory, the 2.0 extensions and,
// with `clang_builtins`, Clang's default header with its builtins declared
// (-finclude-default-header -fdeclare-opencl-builtins: only opencl-c-base.h
// is read).
std::vector<std::string> opencl_args(OpenClStd std, ArgStyle style, bool clang_builtins = true);

// An in-memory file system holding `text` at `path` (copied).
llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> in_memory_files(const std::string& path, std::string_view text);

// Adds `headers` (which outlive the file system: the sets of
// builtin_files.h live for the process) under their paths; the set's error
// when it could not be read.
std::string add_headers(llvm::vfs::InMemoryFileSystem& fs, const HeaderSet& headers);

}  // namespace clgen::clang_support
