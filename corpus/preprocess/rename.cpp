// Pass 3 of the rewriter: variables and functions renamed to generated names (a, b, ..., A, ...).
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include "corpus/preprocess/frontend_internal.h"
#include "corpus/preprocess/generated_names.h"
#include "corpus/preprocess/preprocess.h"
#include "support/clang/crash_recovery.h"

namespace clgen::preprocess {
namespace {

using internal::ErrorCollector;
using internal::make_instance;
using internal::Mode;

// One place where a renamable declaration's name is written in the input.
struct Occurrence {
  unsigned offset;
  const clang::NamedDecl* decl;  // canonical declaration
  bool function;
};

class OccurrenceVisitor : public clang::RecursiveASTVisitor<OccurrenceVisitor> {
 public:
  explicit OccurrenceVisitor(const clang::SourceManager& sm) : sm_(sm) {}

  bool VisitVarDecl(clang::VarDecl* d) {
    add(d, d->getLocation(), false);
    return true;
  }
  bool VisitFunctionDecl(clang::FunctionDecl* d) {
    add(d, d->getLocation(), true);
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    if (auto* v = llvm::dyn_cast<clang::VarDecl>(e->getDecl())) add(v, e->getLocation(), false);
    if (auto* f = llvm::dyn_cast<clang::FunctionDecl>(e->getDecl())) add(f, e->getLocation(), true);
    return true;
  }

  std::vector<Occurrence> occurrences;
  bool in_macro = false;  // a renamable name was written inside a macro expansion

 private:
  void add(const clang::NamedDecl* d, clang::SourceLocation loc, bool function) {
    const clang::NamedDecl* canon = llvm::cast<clang::NamedDecl>(d->getCanonicalDecl());
    if (!canon->getIdentifier() || canon->getName().empty()) return;
    // Sema replaces uses of a constant sampler by its initializer, so not
    // every use can be found: samplers keep their names.
    if (auto* var = llvm::dyn_cast<clang::VarDecl>(canon); var && var->getType()->isSamplerT()) return;
    // Lazily declared OpenCL builtins are implicit and located at their use.
    if (canon->isImplicit()) return;
    clang::SourceLocation decl_loc = canon->getLocation();
    if (decl_loc.isInvalid() || !sm_.isInMainFile(sm_.getExpansionLoc(decl_loc))) return;
    if (loc.isInvalid()) return;
    if (loc.isMacroID()) {
      // An argument of a builtin header's macro (as_int(x)) is written in
      // the input: rename it there. A name inside a macro's body is not.
      if (!sm_.isMacroArgExpansion(loc)) {
        in_macro = true;
        return;
      }
      loc = sm_.getSpellingLoc(loc);
    }
    if (!sm_.isInMainFile(loc)) return;
    occurrences.push_back({sm_.getFileOffset(loc), canon, function});
  }
  const clang::SourceManager& sm_;
};

// Short OpenCL builtin functions a generated name could reach (names of
// three letters or fewer); the builtins are declared lazily, so a lookup in
// the translation unit would miss them.
const std::unordered_set<std::string>& short_builtin_names() {
  static const std::unordered_set<std::string> names = {
      "abs", "all", "any", "cos", "dot", "erf", "exp", "fma", "log", "max", "min", "mix",
      "nan", "pow", "sin", "tan", "cbrt", "ceil", "fabs", "fdim", "fmax", "fmin", "fmod",
      "sign", "sqrt", "step"};
  return names;
}

class RenameConsumer : public clang::ASTConsumer {
 public:
  RenameConsumer(clang::CompilerInstance& ci, std::string* out, std::string* error)
      : ci_(ci), out_(out), error_(error) {}

  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    if (ci_.getDiagnostics().hasErrorOccurred()) return;
    clang::SourceManager& sm = ctx.getSourceManager();
    OccurrenceVisitor v(sm);
    v.TraverseDecl(ctx.getTranslationUnitDecl());
    if (v.in_macro) {
      *error_ = "a name to rename is written inside a macro expansion";
      return;
    }
    std::sort(v.occurrences.begin(), v.occurrences.end(),
              [](const Occurrence& a, const Occurrence& b) { return a.offset < b.offset; });
    // A macro argument expanded twice is one occurrence in the text.
    v.occurrences.erase(std::unique(v.occurrences.begin(), v.occurrences.end(),
                                    [](const Occurrence& a, const Occurrence& b) { return a.offset == b.offset; }),
                        v.occurrences.end());
    std::set<const clang::NamedDecl*> renamed;
    std::unordered_set<unsigned> renamed_offsets;
    for (const Occurrence& o : v.occurrences) {
      renamed.insert(o.decl);
      renamed_offsets.insert(o.offset);
    }

    // Identifiers that stay as they are (fields, types, builtins, keywords,
    // labels...): a new name must not collide with any of them.
    clang::FileID main = sm.getMainFileID();
    llvm::StringRef buffer = sm.getBufferData(main);
    std::unordered_set<std::string> kept;
    {
      clang::Lexer lexer(sm.getLocForStartOfFile(main), ctx.getLangOpts(), buffer.begin(),
                         buffer.begin(), buffer.end());
      clang::Token tok;
      while (!lexer.LexFromRawLexer(tok)) {
        if (tok.is(clang::tok::raw_identifier) &&
            !renamed_offsets.count(sm.getFileOffset(tok.getLocation()))) {
          kept.insert(tok.getRawIdentifier().str());
        }
      }
      if (tok.is(clang::tok::raw_identifier) &&
          !renamed_offsets.count(sm.getFileOffset(tok.getLocation()))) {
        kept.insert(tok.getRawIdentifier().str());
      }
    }
    clang::Preprocessor& pp = ci_.getPreprocessor();
    auto usable = [&](const std::string& name) {
      if (kept.count(name) || short_builtin_names().count(name)) return false;
      clang::IdentifierInfo& ii = pp.getIdentifierTable().get(name);
      if (ii.isKeyword(ctx.getLangOpts()) || pp.isMacroDefined(&ii)) return false;
      for (const clang::NamedDecl* d : ctx.getTranslationUnitDecl()->lookup(&ii)) {
        if (!renamed.count(llvm::cast<clang::NamedDecl>(d->getCanonicalDecl()))) return false;
      }
      return true;
    };

    std::map<const clang::NamedDecl*, std::string> names;
    size_t next_var = 0, next_fn = 0;
    clang::Rewriter rw(sm, ctx.getLangOpts());
    for (const Occurrence& o : v.occurrences) {
      auto it = names.find(o.decl);
      if (it == names.end()) {
        std::string name;
        do {
          name = generated_name(o.function ? next_fn++ : next_var++, o.function);
        } while (!usable(name));
        it = names.emplace(o.decl, name).first;
      }
      clang::SourceLocation loc = sm.getLocForStartOfFile(main).getLocWithOffset(o.offset);
      rw.ReplaceText(loc, o.decl->getName().size(), it->second);
    }
    if (const clang::RewriteBuffer* b = rw.getRewriteBufferFor(main)) {
      *out_ = std::string(b->begin(), b->end());
    } else {
      *out_ = buffer.str();
    }
    done_ = true;
  }

  bool done() const { return done_; }

 private:
  clang::CompilerInstance& ci_;
  std::string* out_;
  std::string* error_;
  bool done_ = false;
};

class RenameAction : public clang::ASTFrontendAction {
 public:
  RenameAction(std::string* out, std::string* error) : out_(out), error_(error) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef) override {
    return std::make_unique<RenameConsumer>(ci, out_, error_);
  }

 private:
  std::string* out_;
  std::string* error_;
};

}  // namespace

Expected<std::string> rename_identifiers(std::string_view text, const CompileOptions& options) {
  std::string out, setup_error, error;
  bool ok = false;
  bool safe = clang_support::run_with_crash_recovery([&] {
    ErrorCollector errors(1);
    auto ci = make_instance(text, options, Mode::kSyntax, errors, setup_error);
    if (!ci) return;
    RenameAction action(&out, &error);
    bool ran = ci->ExecuteAction(action);
    if (!ran || ci->getDiagnostics().hasErrorOccurred()) {
      if (error.empty()) {
        error = errors.errors().empty() ? "parsing failed" : errors.compile_errors().front().message;
      }
      return;
    }
    ok = error.empty();
  });
  if (!safe) return internal_error("renaming identifiers: Clang crashed");
  if (!setup_error.empty()) return internal_error("renaming identifiers: " + setup_error);
  if (!ok) return parse_error("renaming identifiers: " + error);
  return out;
}

}  // namespace clgen::preprocess
