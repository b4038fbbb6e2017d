// Pass 4 of the rewriter: clang-format's library with the project's style.
#include <clang/Format/Format.h>
#include <clang/Tooling/Core/Replacement.h>

#include "corpus/preprocess/preprocess.h"

namespace clgen::preprocess {
namespace {

clang::format::FormatStyle normalized_style() {
  clang::format::FormatStyle s = clang::format::getGoogleStyle(clang::format::FormatStyle::LK_Cpp);
  s.IndentWidth = 2;
  s.ContinuationIndentWidth = 4;
  s.DerivePointerAlignment = false;
  s.PointerAlignment = clang::format::FormatStyle::PAS_Left;
  s.AllowShortBlocksOnASingleLine = clang::format::FormatStyle::SBS_Never;
  s.AllowShortFunctionsOnASingleLine = clang::format::FormatStyle::SFS_None;
  s.AllowShortIfStatementsOnASingleLine = clang::format::FormatStyle::SIS_Never;
  s.AllowShortLoopsOnASingleLine = false;
  s.AllowShortCaseLabelsOnASingleLine = false;
  s.AllowShortEnumsOnASingleLine = false;
  // Wide enough that no prototype or statement is ever broken; every line
  // break comes from the style, none from the input's layout.
  s.ColumnLimit = 5000;
  s.MaxEmptyLinesToKeep = 1;
  s.KeepEmptyLinesAtTheStartOfBlocks = false;
  s.SortIncludes = clang::format::FormatStyle::SI_Never;
  s.ReflowComments = false;
  // Google style turns these on; each is a whole extra pass over the text
  // (lex, parse into lines, annotate) that finds nothing in OpenCL C (no
  // namespaces, no using-declarations). Off, formatting costs ~40% less.
  s.FixNamespaceComments = false;
  s.SortUsingDeclarations = false;
  return s;
}

}  // namespace

Expected<std::string> format_source(std::string_view text) {
  static const clang::format::FormatStyle style = normalized_style();
  llvm::StringRef code(text.data(), text.size());
  std::vector<clang::tooling::Range> ranges{clang::tooling::Range(0, static_cast<unsigned>(code.size()))};
  clang::format::FormattingAttemptStatus status;
  clang::tooling::Replacements replacements =
      clang::format::reformat(style, code, ranges, "input.cl", &status);
  if (!status.FormatComplete) {
    return parse_error("formatting: clang-format could not format line " +
                       std::to_string(status.Line));
  }
  llvm::Expected<std::string> formatted = clang::tooling::applyAllReplacements(code, replacements);
  if (!formatted) {
    return internal_error("formatting: " + llvm::toString(formatted.takeError()));
  }
  std::string out = std::move(*formatted);
  // One trailing newline, no leading blank lines.
  size_t start = out.find_first_not_of('\n');
  out.erase(0, start == std::string::npos ? out.size() : start);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (!out.empty()) out += '\n';
  return out;
}

}  // namespace clgen::preprocess
