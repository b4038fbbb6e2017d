// The reference extractor's rules: one RecursiveASTVisitor pass per function
// definition, in source order. Names and type spellings (as Clang prints the
// declared type, typedefs unexpanded) decide what counts, not address spaces:
// that is how the published counts were made.
#include "features/grewe_reference.h"

#include <map>
#include <optional>
#include <set>

#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <clang/Sema/ExternalSemaSource.h>
#include <clang/Sema/Lookup.h>
#include <clang/Sema/Sema.h>

#include "features/grewe_counts.h"

namespace clgen::features {

namespace {

bool spells(clang::QualType t, const char* word) { return t.getAsString().find(word) != std::string::npos; }

// The literal tests see an operand as written: a literal Clang has wrapped in
// an implicit conversion (the `1` of `u + 1` with an unsigned `u`) or in
// parentheses is no literal.
bool is_integer_literal(const clang::Expr* e) { return llvm::isa<clang::IntegerLiteral>(e); }

bool is_zero_or_one(const clang::Expr* e) {
  const auto* lit = llvm::dyn_cast<clang::IntegerLiteral>(e);
  return lit && lit->getValue().ule(1);
}

// The index test of `coalesced`, on the index as written: only a call or a
// binary operator can fail it; parentheses, a cast, a ternary, a unary
// operator or a subscript (judged on its own where it is visited) pass.
bool coalesced_index(const clang::Expr* idx) {
  idx = idx->IgnoreImpCasts();  // the conversions of a variable to its value are not written
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(idx)) {
    // Compound assignments are BinaryOperators too: they fail with the rest.
    if (!bin->isAdditiveOp() && !bin->isMultiplicativeOp()) return false;
    if (is_integer_literal(bin->getLHS()) && is_integer_literal(bin->getRHS())) return true;
    return is_zero_or_one(bin->getLHS()) || is_zero_or_one(bin->getRHS());
  }
  return !llvm::isa<clang::CallExpr>(idx);
}

class ReferenceCounter : public clang::RecursiveASTVisitor<ReferenceCounter> {
 public:
  ReferenceCounter(std::set<std::string> memory_names, const std::map<std::string, GreweCounts>& earlier)
      : memory_names_(std::move(memory_names)), earlier_(earlier) {}

  // Also called for compound assignments, of which only <<= and >>= count.
  bool VisitBinaryOperator(clang::BinaryOperator* op) {
    count_binary_operator(op->getOpcode(), &counters);
    return true;
  }

  // By name: any identifier spelled like a memory name, whatever it refers to.
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    if (memory_names_.count(ref->getNameInfo().getAsString())) ++counters.mem;
    return true;
  }

  // A variable in __local memory declared in the body is a memory name from
  // here on; a pointer declared in the body (to __local or __global memory)
  // is not.
  bool VisitVarDecl(clang::VarDecl* var) {
    if (var->getType().getAddressSpace() == clang::LangAS::opencl_local) memory_names_.insert(var->getNameAsString());
    return true;
  }

  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* sub) {
    // Only a bare identifier as base: `(a)[i]`, `(a + 1)[i]` and `s.p[i]` add
    // neither count (their names still count toward mem).
    const auto* base = llvm::dyn_cast<clang::DeclRefExpr>(sub->getBase()->IgnoreImpCasts());
    if (!base) return true;
    clang::QualType declared = base->getDecl()->getType();
    if (spells(declared, "__local")) ++counters.localmem;
    if (spells(declared, "__global") && coalesced_index(sub->getIdx())) ++counters.coalesced;
    return true;
  }

  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (!callee) return true;
    const std::string name = callee->getNameAsString();
    counters.comp += transcendental_cost(name);
    if (name.rfind("atomic_", 0) == 0) ++counters.atomic;  // not atom_*; barrier counts in none of the six
    auto it = earlier_.find(name);
    if (it != earlier_.end()) counters.add(it->second);
    return true;
  }

  GreweCounts counters;

 private:
  std::set<std::string> memory_names_;  // the names `mem` counts
  const std::map<std::string, GreweCounts>& earlier_;
};

// Sema asks it for a name that no lookup found: a name followed by `(` is
// an undeclared function, declared `int name()` as C89 did implicitly. The
// declaration is in no scope: every call makes its own lookup, and a later
// definition of the name is no redeclaration.
class ImplicitFunctions : public clang::ExternalSemaSource {
 public:
  explicit ImplicitFunctions(clang::Sema& sema) : sema_(sema) {}

  bool LookupUnqualified(clang::LookupResult& result, clang::Scope*) override {
    if (result.getLookupKind() != clang::Sema::LookupOrdinaryName || result.isForRedeclaration()) return false;
    const clang::IdentifierInfo* name = result.getLookupName().getAsIdentifierInfo();
    if (!name || !called(result.getNameLoc())) return false;
    clang::FunctionDecl*& decl = declared_[name];
    if (!decl) {
      clang::ASTContext& ctx = sema_.getASTContext();
      clang::SourceLocation at = result.getNameLoc();
      clang::QualType type = ctx.getFunctionNoProtoType(ctx.IntTy);
      decl = clang::FunctionDecl::Create(ctx, ctx.getTranslationUnitDecl(), at, at, result.getLookupName(), type,
                                         ctx.getTrivialTypeSourceInfo(type, at), clang::SC_Extern,
                                         /*UsesFPIntrin=*/false, /*isInlineSpecified=*/false,
                                         /*hasWrittenPrototype=*/false);
      decl->setImplicit();
    }
    result.addDecl(decl);
    return true;
  }

 private:
  // Whether the name at `loc` is followed by `(`, where it is written or,
  // for an object-like macro, where the macro is used.
  bool called(clang::SourceLocation loc) const {
    const clang::SourceManager& sm = sema_.getSourceManager();
    for (clang::SourceLocation at : {sm.getSpellingLoc(loc), sm.getExpansionRange(loc).getEnd()}) {
      llvm::Optional<clang::Token> next = clang::Lexer::findNextToken(at, sm, sema_.getLangOpts());
      if (next && next->is(clang::tok::l_paren)) return true;
    }
    return false;
  }

  clang::Sema& sema_;
  std::map<const clang::IdentifierInfo*, clang::FunctionDecl*> declared_;
};

}  // namespace

void append_reference_rows(clang::ASTContext& ctx, const std::string& file, std::vector<StaticFeatures>* out) {
  // The counters of each function defined so far, by name: a call adds them
  // only once the callee's definition has been passed.
  std::map<std::string, GreweCounts> defined;
  // The last function defined: file-scope code after it (a __constant
  // table's initializers, a prototype) is charged to it, so its row and its
  // entry in `defined` are written when the next function starts.
  const clang::FunctionDecl* current = nullptr;
  bool current_has_global = false;
  std::optional<ReferenceCounter> counter;
  auto finish_current = [&] {
    if (!current) return;
    const GreweCounts& c = counter->counters;
    if (current_has_global) out->push_back(grewe_row(file, current->getNameAsString(), c));
    defined[current->getNameAsString()] = c;
  };
  for (clang::Decl* d : ctx.getTranslationUnitDecl()->decls()) {
    if (!ctx.getSourceManager().isInMainFile(d->getLocation())) continue;
    const auto* fd = llvm::dyn_cast<clang::FunctionDecl>(d);
    if (!fd || !fd->doesThisDeclarationHaveABody()) {
      if (counter) counter->TraverseDecl(d);  // before the first function: lost
      continue;
    }
    finish_current();
    current = fd;
    current_has_global = false;
    std::set<std::string> memory_names;  // the __global and __local parameters
    for (const clang::ParmVarDecl* p : fd->parameters()) {
      const bool global = spells(p->getType(), "__global");
      current_has_global |= global;
      if (global || spells(p->getType(), "__local")) memory_names.insert(p->getNameAsString());
    }
    counter.emplace(std::move(memory_names), defined);
    counter->TraverseStmt(fd->getBody());
  }
  finish_current();
}

std::string_view reference_limits_header() {
  // Clang's: 0xffffffff, 0xffffffffffffffffUL and (-32768). Its INT_MIN and
  // LONG_MIN are already one subtraction each, like the reference's.
  return "#undef UINT_MAX\n"
         "#define UINT_MAX (2U * INT_MAX + 1)\n"
         "#undef ULONG_MAX\n"
         "#define ULONG_MAX (2UL * LONG_MAX + 1)\n"
         "#undef SHRT_MIN\n"
         "#define SHRT_MIN (-SHRT_MAX - 1)\n";
}

std::unique_ptr<clang::ExternalSemaSource> implicit_function_declarations(clang::Sema& sema) {
  return std::make_unique<ImplicitFunctions>(sema);
}

}  // namespace clgen::features
