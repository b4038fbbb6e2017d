// Private to clgen_preprocess: the in-process Clang set-up that every
// Clang-based pass shares (make_instance in frontend.cpp, ErrorCollector in
// diagnostics.cpp; compile, expand, rename and extract use them).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <clang/Basic/Diagnostic.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Lex/Preprocessor.h>

#include "corpus/preprocess/preprocess.h"

namespace clgen::preprocess::internal {

// Names in the in-memory file system, and the target every compile is for.
inline constexpr const char* kMainFile = "/clgen/input.cl";
inline constexpr const char* kShimFile = "/clgen/shim.h";
inline constexpr const char* kTriple = "nvptx64-nvidia-nvcl";

// Records compile errors (messages with "file:line:col: " and the offset in
// the input), up to a limit; at the limit the input's lexer is cut off.
class ErrorCollector : public clang::DiagnosticConsumer {
 public:
  explicit ErrorCollector(size_t limit) : limit_(limit) {}

  void BeginSourceFile(const clang::LangOptions&, const clang::Preprocessor* pp) override {
    pp_ = pp;
  }
  void EndSourceFile() override { pp_ = nullptr; }
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override;

  std::vector<CompileError> errors;

 private:
  void record(const clang::Diagnostic& info);

  size_t limit_;
  const clang::Preprocessor* pp_ = nullptr;
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
