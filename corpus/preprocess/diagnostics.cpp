// ErrorCollector: Clang's errors as CompileErrors (category, named identifier, location).
#include <string>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/DiagnosticLex.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/Preprocessor.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/Path.h>

#include "corpus/preprocess/frontend_internal.h"
#include "corpus/preprocess/preprocess.h"

namespace clgen::preprocess {
namespace {

// The identifier a diagnostic names: the first 'quoted' word of its message.
std::string quoted_name(const std::string& message) {
  size_t a = message.find('\'');
  if (a == std::string::npos) return "";
  size_t b = message.find('\'', a + 1);
  if (b == std::string::npos) return "";
  return message.substr(a + 1, b - a - 1);
}

std::string categorize(unsigned id) {
  namespace diag = clang::diag;
  switch (id) {
    case diag::err_undeclared_var_use:
    case diag::err_undeclared_var_use_suggest:
    case diag::err_undeclared_use:
      return category::kUndeclaredIdentifier;
    case diag::err_unknown_typename:
    case diag::err_unknown_typename_suggest:
      return category::kUnknownTypeName;
    case diag::err_pp_file_not_found:
      return category::kIncludeNotFound;
    case diag::ext_implicit_function_decl_c99:
    case diag::warn_implicit_function_decl:
      return category::kImplicitFunction;
    default:
      break;
  }
  llvm::StringRef cat =
      clang::DiagnosticIDs::getCategoryNameFromID(clang::DiagnosticIDs::getCategoryNumberForDiag(id));
  if (cat == "Parse Issue") return category::kParseError;
  if (cat == "Semantic Issue") return category::kSemanticError;
  if (cat == "Lexical or Preprocessor Issue") return category::kPreprocessorError;
  return category::kOtherError;
}

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

namespace internal {

void ErrorCollector::HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                                      const clang::Diagnostic& info) {
  clang::DiagnosticConsumer::HandleDiagnostic(level, info);
  if (level < clang::DiagnosticsEngine::Error) return;
  if (info.getID() == clang::diag::fatal_too_many_errors) return;
  if (errors.size() >= limit_) return;
  record(info);
  // Clang parses on after its error limit with diagnostics suppressed; the
  // verdict is known, so the rest of the file is cut off (the input's lexer
  // sees its end). In Clang 15 every file lexer is a clang::Lexer.
  if (errors.size() >= limit_ && pp_) {
    if (clang::PreprocessorLexer* lexer = pp_->getCurrentFileLexer()) {
      (static_cast<clang::Lexer*>(lexer)->*lexer_cut_off())();
    }
  }
}

void ErrorCollector::record(const clang::Diagnostic& info) {
  llvm::SmallString<256> text;
  info.FormatDiagnostic(text);
  CompileError e;
  e.category = categorize(info.getID());
  std::string message(text.str());
  if (message.empty()) message = "error without a message (an empty #error)";
  if (e.category == category::kUndeclaredIdentifier ||
      e.category == category::kUnknownTypeName ||
      e.category == category::kImplicitFunction) {
    e.name = quoted_name(message);
  }
  std::string where;
  if (info.hasSourceManager() && info.getLocation().isValid()) {
    const clang::SourceManager& sm = info.getSourceManager();
    clang::SourceLocation loc = sm.getFileLoc(info.getLocation());
    clang::PresumedLoc p = sm.getPresumedLoc(loc);
    if (p.isValid()) {
      std::string file = llvm::sys::path::filename(p.getFilename()).str();
      where = file + ":" + std::to_string(p.getLine()) + ":" + std::to_string(p.getColumn()) + ": ";
    }
    if (sm.isInMainFile(loc)) e.offset = sm.getFileOffset(loc);
  }
  e.message = where + message;
  errors.push_back(std::move(e));
}

}  // namespace internal

}  // namespace clgen::preprocess
