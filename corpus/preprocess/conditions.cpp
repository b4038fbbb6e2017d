// Shared facts about expressions (conditions.h).
#include "corpus/preprocess/conditions.h"

#include <llvm/ADT/FoldingSet.h>

namespace clgen::preprocess::internal {

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
  e = e ? e->IgnoreParenImpCasts() : nullptr;
  const auto* b = e ? clang::dyn_cast<clang::BinaryOperator>(e) : nullptr;
  if (!b) return false;
  switch (b->getOpcode()) {
    case clang::BO_LAnd: return always_false(b->getLHS(), ctx) || always_false(b->getRHS(), ctx);
    case clang::BO_LOr: return always_false(b->getLHS(), ctx) && always_false(b->getRHS(), ctx);
    case clang::BO_LT:
    case clang::BO_GT: return same_expression(b->getLHS(), b->getRHS(), ctx);
    case clang::BO_NE:
      return b->getLHS()->IgnoreParenImpCasts()->getType()->isIntegerType() &&
             same_expression(b->getLHS(), b->getRHS(), ctx);
    default: return false;
  }
}

}  // namespace clgen::preprocess::internal
