// Loops whose condition nothing in the loop can change (endless_loop.h).
#include "corpus/preprocess/endless_loop.h"

#include <set>
#include <vector>

#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceManager.h>

#include "corpus/preprocess/conditions.h"

namespace clgen::preprocess::internal {
namespace {

using clang::dyn_cast;
using clang::isa;

// The variable an assignment, `++`, `--` or `&` acts on: `v`, `v.x`, `s.f`
// (a private vector or struct); nothing for memory (`p[i]`, `*p`, `p->f`).
const clang::VarDecl* variable_of(const clang::Expr* e) {
  while (e) {
    e = e->IgnoreParenImpCasts();
    if (const auto* d = dyn_cast<clang::DeclRefExpr>(e)) return dyn_cast<clang::VarDecl>(d->getDecl());
    if (const auto* m = dyn_cast<clang::MemberExpr>(e)) {
      if (m->isArrow()) return nullptr;
      e = m->getBase();
    } else if (const auto* v = dyn_cast<clang::ExtVectorElementExpr>(e)) {
      e = v->getBase();
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

// The variable a statement writes, if it is an assignment, `++`/`--` or `&`
// (a pointer to it may write it anywhere).
const clang::VarDecl* written_by(const clang::Stmt* s) {
  if (const auto* b = dyn_cast<clang::BinaryOperator>(s))
    return b->isAssignmentOp() ? variable_of(b->getLHS()) : nullptr;
  if (const auto* u = dyn_cast<clang::UnaryOperator>(s))
    return u->isIncrementDecrementOp() || u->getOpcode() == clang::UO_AddrOf ? variable_of(u->getSubExpr()) : nullptr;
  return nullptr;
}

void collect_writes(const clang::Stmt* s, std::set<const clang::VarDecl*>& out) {
  if (!s) return;
  if (const clang::VarDecl* v = written_by(s)) out.insert(v);
  for (const clang::Stmt* c : s->children()) collect_writes(c, out);
}

// Whether control can leave the loop whose body is `s` other than through
// its condition: a return or goto anywhere, or a break that is not inside a
// nested loop or switch.
bool can_leave(const clang::Stmt* s, bool nested) {
  if (!s) return false;
  if (isa<clang::ReturnStmt>(s) || isa<clang::GotoStmt>(s) || isa<clang::IndirectGotoStmt>(s)) return true;
  if (isa<clang::BreakStmt>(s)) return !nested;
  const bool inner = nested || isa<clang::WhileStmt>(s) || isa<clang::ForStmt>(s) || isa<clang::DoStmt>(s) ||
                     isa<clang::SwitchStmt>(s);
  for (const clang::Stmt* c : s->children())
    if (can_leave(c, inner)) return true;
  return false;
}

// What a loop condition reads. `opaque`: it may change without the loop
// writing a variable (memory, a call of the program's own functions, a
// builtin given a pointer, an atomic, a variable outside private memory).
struct ConditionReads {
  std::vector<const clang::VarDecl*> variables;  // in order of first appearance
  bool opaque = false;
};

void read_condition(const clang::Stmt* s, ConditionReads& reads) {
  if (!s || reads.opaque) return;
  if (isa<clang::ArraySubscriptExpr>(s)) {
    reads.opaque = true;
    return;
  }
  if (const auto* u = dyn_cast<clang::UnaryOperator>(s); u && u->getOpcode() == clang::UO_Deref) {
    reads.opaque = true;
    return;
  }
  if (const auto* m = dyn_cast<clang::MemberExpr>(s); m && m->isArrow()) {
    reads.opaque = true;
    return;
  }
  if (const auto* call = dyn_cast<clang::CallExpr>(s)) {
    const clang::FunctionDecl* f = call->getDirectCallee();
    const std::string name = f ? f->getNameAsString() : "";
    if (!f || f->hasBody() || name.rfind("atom", 0) == 0) {
      reads.opaque = true;
      return;
    }
    for (const clang::Expr* arg : call->arguments())
      if (arg->getType()->isPointerType()) {
        reads.opaque = true;
        return;
      }
  }
  if (const auto* d = dyn_cast<clang::DeclRefExpr>(s)) {
    if (const auto* v = dyn_cast<clang::VarDecl>(d->getDecl())) {
      const clang::LangAS as = v->getType().getAddressSpace();
      if (!v->hasLocalStorage() || v->getType().isVolatileQualified() ||
          (as != clang::LangAS::Default && as != clang::LangAS::opencl_private)) {
        reads.opaque = true;
        return;
      }
      bool seen = false;
      for (const clang::VarDecl* r : reads.variables) seen = seen || r == v;
      if (!seen) reads.variables.push_back(v);
    }
  }
  for (const clang::Stmt* c : s->children()) read_condition(c, reads);
}

class LoopFinder : public clang::RecursiveASTVisitor<LoopFinder> {
 public:
  LoopFinder(clang::ASTContext& ctx, std::set<const clang::VarDecl*> address_taken)
      : ctx_(ctx), address_taken_(std::move(address_taken)) {}

  bool VisitWhileStmt(clang::WhileStmt* w) { return check(w, w->getCond(), w->getBody(), nullptr); }
  bool VisitDoStmt(clang::DoStmt* d) { return check(d, d->getCond(), d->getBody(), nullptr); }
  bool VisitForStmt(clang::ForStmt* f) { return check(f, f->getCond(), f->getBody(), f->getInc()); }

  std::optional<std::string> found;

 private:
  // Returns false (stop visiting) at the first endless loop.
  bool check(const clang::Stmt* loop, const clang::Expr* cond, const clang::Stmt* body, const clang::Stmt* inc) {
    ConditionReads reads;
    read_condition(cond, reads);
    if (reads.opaque || can_leave(body, false)) return true;
    if (cond) {
      bool value = true;
      if (always_false(cond, ctx_) || (cond->EvaluateAsBooleanCondition(value, ctx_) && !value)) return true;
    }
    std::set<const clang::VarDecl*> written;
    collect_writes(cond, written);
    collect_writes(body, written);
    collect_writes(inc, written);
    for (const clang::VarDecl* v : reads.variables)
      if (written.count(v) || address_taken_.count(v)) return true;
    std::string names;
    for (const clang::VarDecl* v : reads.variables) names += (names.empty() ? "" : ", ") + v->getNameAsString();
    const unsigned line = ctx_.getSourceManager().getPresumedLineNumber(loop->getBeginLoc());
    found = "the loop at line " + std::to_string(line) +
            (names.empty() ? " has a condition that cannot change"
                           : " never changes what its condition reads (" + names + ")") +
            " and nothing leaves it: once entered, it runs forever";
    return false;
  }

  clang::ASTContext& ctx_;
  std::set<const clang::VarDecl*> address_taken_;
};

// Variables whose address is taken anywhere in `s`.
void collect_address_taken(const clang::Stmt* s, std::set<const clang::VarDecl*>& out) {
  if (!s) return;
  if (const auto* u = dyn_cast<clang::UnaryOperator>(s); u && u->getOpcode() == clang::UO_AddrOf)
    if (const clang::VarDecl* v = variable_of(u->getSubExpr())) out.insert(v);
  for (const clang::Stmt* c : s->children()) collect_address_taken(c, out);
}

}  // namespace

std::optional<std::string> endless_loop(const clang::FunctionDecl& fn, clang::ASTContext& ctx) {
  const clang::Stmt* body = fn.getBody();
  if (!body) return std::nullopt;
  std::set<const clang::VarDecl*> address_taken;
  collect_address_taken(body, address_taken);
  LoopFinder finder(ctx, std::move(address_taken));
  finder.TraverseStmt(const_cast<clang::Stmt*>(body));
  return finder.found;
}

}  // namespace clgen::preprocess::internal
