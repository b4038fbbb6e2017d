// Private to clgen_preprocess: the in-process Clang set-up that every
// Clang-based pass shares (make_instance in frontend.cpp, ErrorCollector in
// diagnostics.cpp; compile, expand, rename and extract use them), on top of
// the clgen_clang support library (support/clang/).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <clang/Frontend/CompilerInstance.h>

#include "corpus/preprocess/preprocess.h"
#include "support/clang/diagnostics.h"

namespace clgen::preprocess::internal {

// Names in the in-memory file system, and the target every compile is for.
inline constexpr const char* kMainFile = "/clgen/input.cl";
inline constexpr const char* kShimFile = "/clgen/shim.h";
inline constexpr const char* kTriple = "nvptx64-nvidia-nvcl";

// The shared collector (support/clang/diagnostics.h) as preprocess uses it:
// errors located where they are written, the input cut off at the limit.
class ErrorCollector : public clang_support::ErrorCollector {
 public:
  explicit ErrorCollector(size_t limit) : clang_support::ErrorCollector(Options{limit, true, true}) {}
  // The errors as CompileErrors: category, the identifier named, "file:line:col: message", offset.
  std::vector<CompileError> compile_errors() const;
};

// What the instance is set up for. kSyntax: parse and check (with the
// builtin PCH). kCollectMacros: pass 1's set-up with the header read as text
// (it builds the builtin macro list; kExpand then reads that instead).
enum class Mode { kCompile, kExpand, kSyntax, kBuildPch, kCollectMacros };

// Builds a CompilerInstance for `text` with the given options (the shim is
// included when opts.shim). The input, the shim and the builtin headers live
// in an in-memory file system. Returns nullptr with `setup_error` set when
// the set-up fails (a builtin header that cannot be read).
std::unique_ptr<clang::CompilerInstance> make_instance(std::string_view text, const CompileOptions& opts,
                                                       Mode mode, ErrorCollector& errors,
                                                       std::string& setup_error);

}  // namespace clgen::preprocess::internal
