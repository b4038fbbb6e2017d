// Shared facts about expressions (conditions.h).
#include "corpus/preprocess/conditions.h"

#include <optional>

#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Stmt.h>
#include <llvm/ADT/FoldingSet.h>

namespace clgen::preprocess::internal {

namespace {

using clang::dyn_cast;

// True when something in `s` may change `parm`: an assignment of any kind
// (`a = b`, `a += k`: pointer arithmetic can reach null), `++`, `--`, or
// taking its address (then written through a pointer we do not follow).
bool assigned(const clang::Stmt* s, const clang::ParmVarDecl* parm) {
  if (!s) return false;
  auto names_parm = [&](const clang::Expr* e) {
    const auto* ref = dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
    return ref && ref->getDecl() == parm;
  };
  if (const auto* b = dyn_cast<clang::BinaryOperator>(s); b && b->isAssignmentOp() && names_parm(b->getLHS()))
    return true;
  if (const auto* u = dyn_cast<clang::UnaryOperator>(s);
      u && (u->isIncrementDecrementOp() || u->getOpcode() == clang::UO_AddrOf) && names_parm(u->getSubExpr()))
    return true;
  for (const clang::Stmt* child : s->children())
    if (assigned(child, parm)) return true;
  return false;
}

// True when `e` is a __global pointer argument of a kernel that the kernel
// never changes: the checker passes every such argument a buffer, so it is
// never null.
bool non_null_buffer(const clang::Expr* e) {
  const auto* ref = dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto* parm = ref ? dyn_cast<clang::ParmVarDecl>(ref->getDecl()) : nullptr;
  if (!parm) return false;
  const auto* p = parm->getType()->getAs<clang::PointerType>();
  if (!p || p->getPointeeType().getAddressSpace() != clang::LangAS::opencl_global) return false;
  const auto* fn = dyn_cast<clang::FunctionDecl>(parm->getDeclContext());
  if (!fn || !fn->hasAttr<clang::OpenCLKernelAttr>() || !fn->getBody()) return false;
  return !assigned(fn->getBody(), parm);
}

bool null_constant(const clang::Expr* e, const clang::ASTContext& ctx) {
  return e->IgnoreParenImpCasts()->isNullPointerConstant(const_cast<clang::ASTContext&>(ctx),
                                                         clang::Expr::NPC_ValueDependentIsNotNull) !=
         clang::Expr::NPCK_NotNull;
}

// The value of a comparison of a buffer argument with a null pointer:
// false for `==`, true for `!=`.
std::optional<bool> buffer_null_test(const clang::BinaryOperator* b, const clang::ASTContext& ctx) {
  if (b->getOpcode() != clang::BO_EQ && b->getOpcode() != clang::BO_NE) return std::nullopt;
  bool null_test = (non_null_buffer(b->getLHS()) && null_constant(b->getRHS(), ctx)) ||
                   (non_null_buffer(b->getRHS()) && null_constant(b->getLHS(), ctx));
  if (!null_test) return std::nullopt;
  return b->getOpcode() == clang::BO_NE;
}

bool integer_operands(const clang::BinaryOperator* b) {
  return b->getLHS()->IgnoreParenImpCasts()->getType()->isIntegerType();
}

// The value `e` has whatever the values of its variables, when it has one.
std::optional<bool> fixed_value(const clang::Expr* e, const clang::ASTContext& ctx) {
  if (!e) return std::nullopt;
  e = e->IgnoreParenImpCasts();
  // Only integer constant expressions fold: Clang folds an object's address
  // as non-null, which a __local array at address 0 is not, and floating
  // point folds by the host's rules, not the device's build options.
  if (!e->isValueDependent() && e->getType()->isIntegerType() && !e->HasSideEffects(ctx)) {
    if (auto v = e->getIntegerConstantExpr(ctx)) return v->getBoolValue();
  }
  if (const auto* u = dyn_cast<clang::UnaryOperator>(e); u && u->getOpcode() == clang::UO_LNot) {
    if (non_null_buffer(u->getSubExpr())) return false;
    if (auto v = fixed_value(u->getSubExpr(), ctx)) return !*v;
    return std::nullopt;
  }
  const auto* b = dyn_cast<clang::BinaryOperator>(e);
  if (!b) return std::nullopt;
  switch (b->getOpcode()) {
    case clang::BO_LAnd: {
      auto l = fixed_value(b->getLHS(), ctx), r = fixed_value(b->getRHS(), ctx);
      if ((l && !*l) || (r && !*r)) return false;
      if (l && r) return true;
      return std::nullopt;
    }
    case clang::BO_LOr: {
      auto l = fixed_value(b->getLHS(), ctx), r = fixed_value(b->getRHS(), ctx);
      if ((l && *l) || (r && *r)) return true;
      if (l && r) return false;
      return std::nullopt;
    }
    case clang::BO_LT:
    case clang::BO_GT:
      if (same_expression(b->getLHS(), b->getRHS(), ctx)) return false;
      return std::nullopt;
    case clang::BO_LE:
    case clang::BO_GE:
      if (integer_operands(b) && same_expression(b->getLHS(), b->getRHS(), ctx)) return true;
      return std::nullopt;
    case clang::BO_EQ:
    case clang::BO_NE:
      if (auto null = buffer_null_test(b, ctx)) return *null;
      if (integer_operands(b) && same_expression(b->getLHS(), b->getRHS(), ctx)) return b->getOpcode() == clang::BO_EQ;
      return std::nullopt;
    default: return std::nullopt;
  }
}

}  // namespace

bool same_expression(const clang::Expr* a, const clang::Expr* b, const clang::ASTContext& ctx) {
  a = a->IgnoreParenImpCasts();
  b = b->IgnoreParenImpCasts();
  if (a->HasSideEffects(ctx) || b->HasSideEffects(ctx)) return false;
  llvm::FoldingSetNodeID ida, idb;
  a->Profile(ida, ctx, true);
  b->Profile(idb, ctx, true);
  return ida == idb;
}

bool always_false(const clang::Expr* e, const clang::ASTContext& ctx) {
  auto v = fixed_value(e, ctx);
  return v && !*v;
}

bool always_true(const clang::Expr* e, const clang::ASTContext& ctx) {
  auto v = fixed_value(e, ctx);
  return v && *v;
}

}  // namespace clgen::preprocess::internal
