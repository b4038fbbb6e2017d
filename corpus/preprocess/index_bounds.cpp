// IndexBounds (index_bounds.h): symbolic lower bounds of integer expressions
// under the checker's payload, with variables bounded by their assignments.
#include "corpus/preprocess/index_bounds.h"

#include <algorithm>
#include <string>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Stmt.h>

namespace clgen::preprocess::internal {
namespace {

using llvm::dyn_cast;
using llvm::isa;

constexpr long long kLimit = 1LL << 40;  // beyond this a bound is dropped (no overflow)

std::optional<LowerBound> checked(long long k, long long c) {
  if (k < 0 || k > kLimit || c < -kLimit || c > kLimit) return std::nullopt;
  return LowerBound{k, c};
}

// Variables and scalars whose values the payload or an assignment can bound:
// integers of 32 or 64 bits (a narrower one would wrap S).
bool wide_integer(clang::QualType t, const clang::ASTContext& ctx) {
  return t->isIntegerType() && !t->isBooleanType() && ctx.getTypeSize(t) >= 32;
}

LowerBound lower(const LowerBound& a, const LowerBound& b) { return {std::min(a.k, b.k), std::min(a.c, b.c)}; }

bool same(const std::optional<LowerBound>& a, const std::optional<LowerBound>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->k == b->k && a->c == b->c);
}

}  // namespace

IndexBounds::IndexBounds(const clang::FunctionDecl* kernel) : kernel_(kernel) {
  const clang::ASTContext& ctx = kernel->getASTContext();
  std::map<const clang::VarDecl*, LowerBound> initial;  // integer scalar arguments: the payload's S
  for (const clang::ParmVarDecl* p : kernel->parameters()) {
    if (wide_integer(p->getType(), ctx)) bound_[p] = initial[p] = LowerBound{1, 0};
  }
  collect(kernel->getBody());
  for (const auto& [var, u] : unbounded_)
    if (u) bound_[var] = std::nullopt;
  // Optimistic iteration: an assigned variable starts pending (not in
  // bound_) and its bound only falls; a value that reads a pending variable
  // waits for a later round. Still falling after 8 rounds: no bounds.
  bool settled = false;
  for (int round = 0; round < 8 && !settled; ++round) {
    settled = true;
    for (const auto& [var, values] : assigned_) {
      if (unbounded_[var]) continue;
      auto it = bound_.find(var);
      if (it != bound_.end() && !it->second) continue;  // none: stays none
      std::optional<LowerBound> b;
      if (auto in = initial.find(var); in != initial.end()) b = in->second;
      bool none = false;
      for (const Value& v : values) {
        if (!v.expr) continue;  // ++: cannot lower
        pending_ = false;
        std::optional<LowerBound> x = of(v.expr);
        if (pending_) continue;
        if (!x || (v.added && (x->k < 0 || x->c < 0))) {
          none = true;
          break;
        }
        if (!v.added) b = b ? lower(*b, *x) : *x;  // += of x >= 0 cannot lower
      }
      if (!none && !b) continue;  // every value still pending
      std::optional<LowerBound> next = none ? std::nullopt : b;
      if (it == bound_.end() || !same(it->second, next)) {
        bound_[var] = next;
        settled = false;
      }
    }
  }
  if (!settled)
    for (auto& [var, values] : assigned_) bound_[var] = std::nullopt;
  pending_ = false;
}

void IndexBounds::collect(const clang::Stmt* s) {
  if (!s) return;
  const clang::ASTContext& ctx = kernel_->getASTContext();
  auto track = [&](const clang::Expr* lhs, Value value, bool lowers) {
    const auto* ref = dyn_cast<clang::DeclRefExpr>(lhs->IgnoreParenImpCasts());
    const auto* var = ref ? dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
    if (!var) return;
    if (!wide_integer(var->getType(), ctx) || lowers) unbounded_[var] = true;
    assigned_[var].push_back(value);
  };
  if (const auto* decl = dyn_cast<clang::DeclStmt>(s)) {
    for (const clang::Decl* d : decl->decls()) {
      const auto* var = dyn_cast<clang::VarDecl>(d);
      if (!var) continue;
      if (!var->hasInit() || !wide_integer(var->getType(), ctx)) unbounded_[var] = true;  // garbage until set
      assigned_[var].push_back({var->getInit()});
    }
  } else if (const auto* b = dyn_cast<clang::BinaryOperator>(s); b && b->isAssignmentOp()) {
    switch (b->getOpcode()) {
      case clang::BO_Assign:
        track(b->getLHS(), {b->getRHS()}, false);
        break;
      case clang::BO_AddAssign:
        track(b->getLHS(), {b->getRHS(), true}, false);
        break;
      default:
        track(b->getLHS(), {nullptr}, true);
    }
  } else if (const auto* u = dyn_cast<clang::UnaryOperator>(s)) {
    if (u->isIncrementOp()) track(u->getSubExpr(), {nullptr}, false);
    else if (u->isDecrementOp()) track(u->getSubExpr(), {nullptr}, true);
    else if (u->getOpcode() == clang::UO_AddrOf) track(u->getSubExpr(), {nullptr}, true);  // written elsewhere
  }
  for (const clang::Stmt* child : s->children()) collect(child);
}

std::optional<LowerBound> IndexBounds::of(const clang::Expr* e) const {
  if (!e) return std::nullopt;
  const clang::ASTContext& ctx = kernel_->getASTContext();
  e = e->IgnoreParenImpCasts();
  if (const auto* lit = dyn_cast<clang::IntegerLiteral>(e)) {
    llvm::APInt v = lit->getValue();
    if (v.getActiveBits() > 40) return std::nullopt;
    return checked(0, static_cast<long long>(v.getZExtValue()));
  }
  if (const auto* ref = dyn_cast<clang::DeclRefExpr>(e)) {
    const auto* var = dyn_cast<clang::VarDecl>(ref->getDecl());
    auto it = var ? bound_.find(var) : bound_.end();
    if (it != bound_.end()) return it->second;
    if (var && assigned_.count(var)) pending_ = true;  // not bounded yet (while iterating)
    return std::nullopt;
  }
  if (const auto* cast = dyn_cast<clang::CStyleCastExpr>(e)) {
    if (!wide_integer(cast->getType(), ctx)) return std::nullopt;
    return of(cast->getSubExpr());
  }
  if (const auto* cond = dyn_cast<clang::ConditionalOperator>(e)) {
    auto a = of(cond->getTrueExpr()), b = of(cond->getFalseExpr());
    if (!a || !b) return std::nullopt;
    return lower(*a, *b);
  }
  if (const auto* call = dyn_cast<clang::CallExpr>(e)) {
    const clang::FunctionDecl* fn = call->getDirectCallee();
    if (!fn || call->getNumArgs() != 1) return std::nullopt;
    std::string name = fn->getNameAsString();
    if (name == "get_global_id" || name == "get_local_id" || name == "get_group_id" || name == "get_global_offset")
      return LowerBound{0, 0};
    if (name == "get_local_size" || name == "get_num_groups" || name == "get_enqueued_local_size")
      return LowerBound{0, 1};
    if (name == "get_global_size") {
      const auto* dim = dyn_cast<clang::IntegerLiteral>(call->getArg(0)->IgnoreParenImpCasts());
      return dim && dim->getValue() == 0 ? LowerBound{1, 0} : LowerBound{0, 1};
    }
    return std::nullopt;
  }
  if (const auto* b = dyn_cast<clang::BinaryOperator>(e)) {
    if (b->getOpcode() == clang::BO_Comma) return of(b->getRHS());
    auto l = of(b->getLHS()), r = of(b->getRHS());
    if (!l || !r) return std::nullopt;
    switch (b->getOpcode()) {
      case clang::BO_Add:
        return checked(l->k + r->k, l->c + r->c);
      case clang::BO_Mul:
        // (k1 S + c1)(k2 S + c2) >= (k1 c2 + k2 c1 + k1 k2) S + c1 c2 for non-negative
        // factors, since S^2 >= S.
        if (l->c < 0 || r->c < 0) return std::nullopt;
        if (l->k > 1 << 20 || r->k > 1 << 20 || l->c > 1 << 20 || r->c > 1 << 20) return std::nullopt;
        return checked(l->k * r->c + r->k * l->c + l->k * r->k, l->c * r->c);
      case clang::BO_Shl:
        if (l->c < 0 || r->k != 0 || r->c < 0 || r->c > 20) return std::nullopt;
        return checked(l->k << r->c, l->c << r->c);
      default:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

bool IndexBounds::at_least_s(const clang::Expr* e) const {
  std::optional<LowerBound> b = of(e);
  return b && b->k >= 1 && b->c >= 0;
}

}  // namespace clgen::preprocess::internal
