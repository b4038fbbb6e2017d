// ErrorCollector::compile_errors: Clang's errors as CompileErrors (category, named identifier, location).
#include <string>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/DiagnosticLex.h>
#include <clang/Basic/DiagnosticSema.h>

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

}  // namespace

namespace internal {

std::vector<CompileError> ErrorCollector::compile_errors() const {
  std::vector<CompileError> out;
  for (const clang_support::FrontendError& f : errors()) {
    CompileError e;
    e.category = categorize(f.id);
    std::string message = f.message;
    if (message.empty()) message = "error without a message (an empty #error)";
    if (e.category == category::kUndeclaredIdentifier || e.category == category::kUnknownTypeName ||
        e.category == category::kImplicitFunction) {
      e.name = quoted_name(message);
    }
    std::string where;
    if (f.located) where = f.file + ":" + std::to_string(f.line) + ":" + std::to_string(f.column) + ": ";
    e.offset = f.main_file_offset;
    e.message = where + message;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace internal

}  // namespace clgen::preprocess
