// Reads of uninitialized variables: Clang's own -Wuninitialized analysis
// (a CFG data-flow pass) over one function body, for the usefulness check
// (usefulness.h). A kernel that reads a variable before anything is stored
// to it computes an undefined value: `int d = d * 8 + c;` and `int e; for
// (...; e < n; ...)`, common in sampled kernels, make the dynamic checker
// time out or see different outputs run to run. Clang types, internal to the
// preprocess module.
#pragma once

#include <optional>
#include <string>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

namespace clgen::preprocess::internal {

// The first read in `fn`'s body that sees an uninitialized variable on every
// path that reaches it (Clang's "is uninitialized when used here", its
// self-initialization `int x = x;`, and a read in the variable's own
// initializer), described as "variable 'd' is read before it is
// initialized"; nothing when there is none. A read that is uninitialized
// only on some paths (Clang's "may be" and "sometimes" cases) does not
// count: the work-items that take that path may be none.
std::optional<std::string> uninitialized_read(const clang::FunctionDecl& fn, clang::ASTContext& ctx);

}  // namespace clgen::preprocess::internal
