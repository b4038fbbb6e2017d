// Pass 1 of the rewriter: expand the input's macros (not the builtin headers'), main file only.
#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>

#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/PreprocessorOutputOptions.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/MacroInfo.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <llvm/Support/raw_ostream.h>

#include "corpus/preprocess/frontend_internal.h"
#include "corpus/preprocess/preprocess.h"
#include "support/clang/crash_recovery.h"

namespace clgen::preprocess {
namespace {

using internal::ErrorCollector;
using internal::kMainFile;
using internal::kShimFile;
using internal::make_instance;
using internal::Mode;

// Pragmas that survive pass 1: OpenCL extensions and unroll hints with a
// literal count. -E leaves macros in pragma arguments unexpanded, and other
// pragmas do not change what a kernel computes.
bool keep_pragma(std::string_view line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line.substr(i, 7) != "#pragma") return true;
  std::string_view rest = line.substr(i + 7);
  rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
  if (rest.substr(0, 6) == "OPENCL") return true;
  if (rest.substr(0, 6) == "unroll") {
    std::string_view arg = rest.substr(6);
    for (char c : arg) {
      if (!std::isdigit(static_cast<unsigned char>(c)) && c != ' ' && c != '\t') return false;
    }
    return true;
  }
  return false;
}

// -E output of the main file only: drops every line that line markers
// attribute to another file (the shim, <built-in>, <command line>).
std::string keep_main_file_lines(const std::string& pp) {
  std::string out;
  bool in_main = false;
  size_t pos = 0;
  const std::string main_marker = std::string("\"") + kMainFile + "\"";
  while (pos < pp.size()) {
    size_t nl = pp.find('\n', pos);
    if (nl == std::string::npos) nl = pp.size();
    std::string_view line(pp.data() + pos, nl - pos);
    pos = nl + 1;
    if (line.size() > 2 && line[0] == '#' && line[1] == ' ' && std::isdigit(static_cast<unsigned char>(line[2]))) {
      bool now_main = line.find(main_marker) != std::string_view::npos;
      if (now_main && in_main) out += "\n";  // a gap of skipped lines
      in_main = now_main;
      continue;
    }
    if (in_main) {
      if (!keep_pragma(line)) continue;
      out.append(line.data(), line.size());
      out += '\n';
    }
  }
  return out;
}

// Pass 1 expands the input's and the shim's macros but not those of the
// builtin headers (their names are the language's vocabulary, and the
// rewritten text is compiled with the same headers). On entering the main
// file, every macro a builtin header defined is disabled (it then prints as
// written). Disabled macros would read as 0 in #if, so a main-file #if or
// #elif that names one marks the expansion to be redone with them enabled.
class HeaderMacroGuard : public clang::PPCallbacks {
 public:
  explicit HeaderMacroGuard(clang::Preprocessor& pp) : pp_(pp) {}

  void FileChanged(clang::SourceLocation loc, FileChangeReason reason, clang::SrcMgr::CharacteristicKind,
                   clang::FileID) override {
    // The main file is entered first, then the predefines (which include
    // the headers and the shim) run on top of it: act on every return to it.
    if (reason != EnterFile && reason != ExitFile) return;
    const clang::SourceManager& sm = pp_.getSourceManager();
    if (sm.getFileID(sm.getExpansionLoc(loc)) != sm.getMainFileID()) return;
    for (const auto& [ii, state] : pp_.macros()) {
      clang::MacroInfo* mi = pp_.getMacroInfo(ii);
      if (!mi || mi->isBuiltinMacro() || !mi->isEnabled()) continue;
      clang::SourceLocation def = mi->getDefinitionLoc();
      if (def.isInvalid() || sm.isWrittenInBuiltinFile(def) || sm.isWrittenInCommandLineFile(def)) continue;
      const clang::FileEntry* file = sm.getFileEntryForID(sm.getFileID(sm.getExpansionLoc(def)));
      if (!file || file->getName() == kShimFile) continue;
      mi->DisableMacro();
      disabled_.insert(ii->getName().str());
    }
  }
  void If(clang::SourceLocation loc, clang::SourceRange cond, ConditionValueKind) override {
    check(loc, cond);
  }
  void Elif(clang::SourceLocation loc, clang::SourceRange cond, ConditionValueKind,
            clang::SourceLocation) override {
    check(loc, cond);
  }

  bool conflict() const { return conflict_; }

 private:
  void check(clang::SourceLocation loc, clang::SourceRange cond) {
    if (disabled_.empty() || conflict_) return;
    const clang::SourceManager& sm = pp_.getSourceManager();
    if (!sm.isInMainFile(loc)) return;
    llvm::StringRef text = clang::Lexer::getSourceText(clang::CharSourceRange::getTokenRange(cond), sm,
                                                       pp_.getLangOpts());
    size_t i = 0;
    while (i < text.size()) {
      if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
        size_t j = i;
        while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
        if (disabled_.count(text.substr(i, j - i).str())) conflict_ = true;
        i = j;
      } else {
        ++i;
      }
    }
  }

  clang::Preprocessor& pp_;
  bool conflict_ = false;
  std::unordered_set<std::string> disabled_;
};

class ExpandAction : public clang::PreprocessorFrontendAction {
 public:
  ExpandAction(std::string* out, bool keep_header_macros, bool* conflict)
      : out_(out), keep_header_macros_(keep_header_macros), conflict_(conflict) {}

 protected:
  void ExecuteAction() override {
    clang::Preprocessor& pp = getCompilerInstance().getPreprocessor();
    HeaderMacroGuard* guard = nullptr;
    if (keep_header_macros_) {
      auto g = std::make_unique<HeaderMacroGuard>(pp);
      guard = g.get();
      pp.addPPCallbacks(std::move(g));
    }
    clang::PreprocessorOutputOptions o;
    o.ShowCPP = 1;
    o.ShowLineMarkers = 1;
    o.ShowComments = 0;
    o.ShowMacroComments = 0;
    o.ShowMacros = 0;
    o.ShowIncludeDirectives = 0;
    o.RewriteIncludes = 0;
    o.MinimizeWhitespace = 0;
    llvm::raw_string_ostream os(*out_);
    clang::DoPrintPreprocessedInput(pp, &os, o);
    os.flush();
    if (guard) *conflict_ = guard->conflict();
  }

 private:
  std::string* out_;
  bool keep_header_macros_;
  bool* conflict_;
};

}  // namespace

Expected<std::string> expand_main_file(std::string_view text, const CompileOptions& options) {
  std::string out, setup_error, first_error;
  bool ok = false;
  bool safe = clang_support::run_with_crash_recovery([&] {
    // First with the builtin headers' macros kept as written; again with
    // them expanded when an #if of the input tests one.
    for (bool keep : {true, false}) {
      ErrorCollector errors(1);
      auto ci = make_instance(text, options, Mode::kExpand, errors, setup_error);
      if (!ci) return;
      std::string pp;
      bool conflict = false;
      ExpandAction action(&pp, keep, &conflict);
      if (!ci->ExecuteAction(action) || ci->getDiagnostics().hasErrorOccurred()) {
        first_error = errors.errors().empty() ? "preprocessing failed" : errors.compile_errors().front().message;
        return;
      }
      if (conflict) continue;
      out = keep_main_file_lines(pp);
      ok = true;
      return;
    }
  });
  if (!safe) return internal_error("expanding macros: Clang crashed");
  if (!setup_error.empty()) return internal_error("expanding macros: " + setup_error);
  if (!ok) return parse_error("expanding macros: " + first_error);
  return out;
}

}  // namespace clgen::preprocess
