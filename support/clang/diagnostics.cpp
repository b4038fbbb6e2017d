// ErrorCollector (diagnostics.h): Clang's errors with their locations, and the lexer cut-off at the limit.
#include "support/clang/diagnostics.h"

#include <clang/Basic/DiagnosticLex.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/Path.h>

namespace clgen::clang_support {
namespace {

// clang::Lexer::cutOffLexing() (make the lexer see its buffer's end) is
// private. An explicit template instantiation may name a private member
// (C++17 [temp.explicit]/12), which hands us its address without touching
// Clang's headers.
using LexerCutOff = void (clang::Lexer::*)();
LexerCutOff lexer_cut_off();
template <LexerCutOff F>
struct LexerCutOffAccess {
  friend LexerCutOff lexer_cut_off() { return F; }
};
template struct LexerCutOffAccess<&clang::Lexer::cutOffLexing>;

}  // namespace

std::string line_column_message(const FrontendError& e) {
  if (!e.located) return e.message;
  return std::to_string(e.line) + ":" + std::to_string(e.column) + ": " + e.message;
}

void ErrorCollector::HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) {
  clang::DiagnosticConsumer::HandleDiagnostic(level, info);
  if (level < clang::DiagnosticsEngine::Error) return;
  if (info.getID() == clang::diag::fatal_too_many_errors) return;
  if (errors_.size() >= options_.limit) return;
  FrontendError e;
  e.id = info.getID();
  llvm::SmallString<256> text;
  info.FormatDiagnostic(text);
  e.message = std::string(text.str());
  if (info.hasSourceManager() && info.getLocation().isValid()) {
    const clang::SourceManager& sm = info.getSourceManager();
    clang::SourceLocation loc = options_.spelling_location ? sm.getFileLoc(info.getLocation()) : info.getLocation();
    clang::PresumedLoc p = sm.getPresumedLoc(loc);
    if (p.isValid()) {
      e.located = true;
      e.file = llvm::sys::path::filename(p.getFilename()).str();
      e.line = p.getLine();
      e.column = p.getColumn();
    }
    if (options_.spelling_location && sm.isInMainFile(loc)) e.main_file_offset = sm.getFileOffset(loc);
  }
  errors_.push_back(std::move(e));
  // In Clang 15 every file lexer is a clang::Lexer.
  if (options_.cut_off_at_limit && errors_.size() >= options_.limit && pp_) {
    if (clang::PreprocessorLexer* lexer = pp_->getCurrentFileLexer()) {
      (static_cast<clang::Lexer*>(lexer)->*lexer_cut_off())();
    }
  }
}

}  // namespace clgen::clang_support
