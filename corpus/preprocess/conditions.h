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

// True when `e` is false whatever the values: an integer constant
// expression that is 0; `x < x`, `x > x`, and `x != x` for integers (a NaN
// differs from itself); a kernel's __global buffer argument, which the
// kernel never changes, compared equal to a null pointer (`a == 0`, `!a`):
// the checker's payload never passes one; `!` of an always-true condition,
// and && / || of such.
bool always_false(const clang::Expr* e, const clang::ASTContext& ctx);

// True when `e` is true whatever the values: the mirror of always_false
// (`x >= x`, `x <= x`, `x == x` for integers, `a != 0` for a buffer
// argument, a non-zero integer constant, `!`, && and ||).
bool always_true(const clang::Expr* e, const clang::ASTContext& ctx);

}  // namespace clgen::preprocess::internal
