// Clang's errors as plain values: one DiagnosticConsumer for every
// in-process compile (preprocess, features, the driver's argument analysis).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <clang/Basic/Diagnostic.h>
#include <clang/Lex/Preprocessor.h>

namespace clgen::clang_support {

// One error the front end reported.
struct FrontendError {
  unsigned id = 0;       // the clang::diag ID
  std::string message;   // as Clang formats it
  bool located = false;  // whether file/line/column are known
  std::string file;      // the file's name, without its directory
  unsigned line = 0, column = 0;
  int64_t main_file_offset = -1;  // with Options::spelling_location: byte offset in the main file, -1 when elsewhere
};

// "LINE:COL: MESSAGE", or the message alone without a location.
std::string line_column_message(const FrontendError& e);

// Records errors (not warnings, not "too many errors") up to a limit; Clang
// still counts every error (getNumErrors).
class ErrorCollector : public clang::DiagnosticConsumer {
 public:
  struct Options {
    size_t limit = std::numeric_limits<size_t>::max();  // errors kept
    // At the limit, make the input's lexer see its end: Clang parses on
    // after its error limit with diagnostics suppressed, and the verdict is known.
    bool cut_off_at_limit = false;
    // Locate an error inside a macro argument where the argument is written
    // (the file location), not where the macro is expanded.
    bool spelling_location = false;
  };
  ErrorCollector() = default;
  explicit ErrorCollector(Options options) : options_(options) {}

  void BeginSourceFile(const clang::LangOptions&, const clang::Preprocessor* pp) override { pp_ = pp; }
  void EndSourceFile() override { pp_ = nullptr; }
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override;

  const std::vector<FrontendError>& errors() const { return errors_; }
  std::vector<FrontendError>& errors() { return errors_; }

 private:
  Options options_;
  const clang::Preprocessor* pp_ = nullptr;
  std::vector<FrontendError> errors_;
};

}  // namespace clgen::clang_support
