// Pass 3 of the rewriter: variables and functions renamed to generated names (a, b, ..., A, ...).
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/ParentMapContext.h>
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
    add_attribute_argument_uses(ctx, v.occurrences);
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
      if (kept.count(name) || short_builtin_names().count(name) || is_cpp_only_word(name)) return false;
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
  // The arguments of an unknown attribute (Xilinx's
  // `__attribute__((xcl_loop_tripcount(c_size, c_size)))`) are resolved and
  // then dropped, so the AST holds no reference to rename there. A name in
  // such an argument that is also the name of a renamed variable is given
  // the declaration Clang's scopes would find: the innermost one declared
  // before it whose scope holds it.
  void add_attribute_argument_uses(clang::ASTContext& ctx, std::vector<Occurrence>& occurrences) {
    clang::SourceManager& sm = ctx.getSourceManager();
    clang::FileID main = sm.getMainFileID();
    llvm::StringRef buffer = sm.getBufferData(main);
    if (buffer.find("__attribute__") == llvm::StringRef::npos) return;
    std::unordered_set<unsigned> known;
    std::unordered_map<std::string, std::vector<const Occurrence*>> renamed_by_name;
    for (const Occurrence& o : occurrences) {
      known.insert(o.offset);
      renamed_by_name[o.decl->getName().str()].push_back(&o);
    }
    // Identifiers in attribute arguments that name a renamed declaration
    // but are not one of its occurrences.
    std::vector<std::pair<unsigned, std::string>> uses;
    clang::Lexer lexer(sm.getLocForStartOfFile(main), ctx.getLangOpts(), buffer.begin(), buffer.begin(), buffer.end());
    clang::Token tok;
    // depth counts the parentheses opened after `__attribute__`; arguments
    // sit at depth 3 and deeper: __attribute__((name(args))).
    int depth = -1;
    for (bool more = true; more;) {
      more = !lexer.LexFromRawLexer(tok);
      if (depth < 0) {
        if (tok.is(clang::tok::raw_identifier) && tok.getRawIdentifier() == "__attribute__") depth = 0;
        continue;
      }
      if (tok.is(clang::tok::l_paren)) {
        ++depth;
      } else if (tok.is(clang::tok::r_paren)) {
        if (--depth <= 0) depth = -1;
      } else if (depth == 0) {
        depth = -1;  // `__attribute__` not followed by its parentheses
      } else if (depth >= 3 && tok.is(clang::tok::raw_identifier)) {
        unsigned at = sm.getFileOffset(tok.getLocation());
        std::string name = tok.getRawIdentifier().str();
        if (!known.count(at) && renamed_by_name.count(name)) uses.emplace_back(at, name);
      }
    }
    if (uses.empty()) return;
    struct Scoped {
      const clang::NamedDecl* decl;
      bool function;
      unsigned declared, begin, end;  // the declaration's offset; its scope [begin, end)
    };
    std::unordered_map<std::string, std::vector<Scoped>> scoped;
    std::vector<Occurrence> added;
    for (const auto& [at, name] : uses) {
      auto [it, fresh] = scoped.try_emplace(name);
      if (fresh) {
        std::set<const clang::NamedDecl*> seen;
        for (const Occurrence* o : renamed_by_name[name]) {
          if (!seen.insert(o->decl).second) continue;
          if (auto s = scope_of(ctx, o->decl))
            it->second.push_back({o->decl, o->function, s->first, s->second.first, s->second.second});
        }
      }
      const Scoped* best = nullptr;
      for (const Scoped& s : it->second) {
        if (s.declared >= at || at < s.begin || at >= s.end) continue;
        if (!best || s.end - s.begin < best->end - best->begin ||
            (s.end - s.begin == best->end - best->begin && s.declared > best->declared)) {
          best = &s;
        }
      }
      if (best) added.push_back({at, best->decl, best->function});
    }
    occurrences.insert(occurrences.end(), added.begin(), added.end());
  }

  // A renamed declaration's offset and the range of text where its name
  // refers to it: the whole file for file-scope names, the function for a
  // parameter, the enclosing statement (block, `for`) for a local.
  static std::optional<std::pair<unsigned, std::pair<unsigned, unsigned>>> scope_of(clang::ASTContext& ctx,
                                                                                    const clang::NamedDecl* d) {
    clang::SourceManager& sm = ctx.getSourceManager();
    auto offset = [&](clang::SourceLocation loc) -> std::optional<unsigned> {
      if (loc.isInvalid()) return std::nullopt;
      loc = sm.getExpansionLoc(loc);
      if (!sm.isInMainFile(loc)) return std::nullopt;
      return sm.getFileOffset(loc);
    };
    std::optional<unsigned> declared = offset(d->getLocation());
    if (!declared) return std::nullopt;
    unsigned file_end = sm.getBufferData(sm.getMainFileID()).size();
    const clang::DeclContext* dc = d->getDeclContext();
    if (dc->isFileContext()) return std::make_pair(*declared, std::make_pair(0u, file_end));
    clang::SourceRange range;
    if (llvm::isa<clang::ParmVarDecl>(d)) {
      range = llvm::cast<clang::Decl>(dc)->getSourceRange();
    } else {
      // VarDecl -> DeclStmt -> the statement that holds it.
      clang::DynTypedNodeList parents = ctx.getParents(*d);
      if (parents.empty()) return std::nullopt;
      const clang::Stmt* decl_stmt = parents[0].get<clang::DeclStmt>();
      if (!decl_stmt) return std::nullopt;
      clang::DynTypedNodeList holders = ctx.getParents(*decl_stmt);
      if (holders.empty()) return std::nullopt;
      range = holders[0].getSourceRange();
    }
    std::optional<unsigned> begin = offset(range.getBegin());
    std::optional<unsigned> end = offset(range.getEnd());
    if (!begin || !end) return std::nullopt;
    return std::make_pair(*declared, std::make_pair(*begin, *end + 1));
  }

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
