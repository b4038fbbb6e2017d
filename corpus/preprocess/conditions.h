// Facts about expressions that the usefulness check's analyses share
// (usefulness.cpp, endless_loop.cpp). Clang types, internal to the
// preprocess module.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

namespace clgen::preprocess::internal {

// True when `a` and `b` are the same expression (as Clang profiles them,
// implicit casts and parentheses aside) and evaluating it changes nothing.
bool same_expression(const clang::Expr* a, const clang::Expr* b, const clang::ASTContext& ctx);

// True when `e` is false whatever the values: `x < x`, `x > x`, `x != x`
// for integers (a NaN differs from itself), and && / || of such.
bool always_false(const clang::Expr* e, const clang::ASTContext& ctx);

}  // namespace clgen::preprocess::internal
