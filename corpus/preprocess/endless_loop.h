// Loops that never end once entered, for the usefulness check
// (usefulness.h): a `while`, `for` or `do` loop whose condition reads only
// private variables (and values every work-item computes alike, such as
// get_global_id or a literal) that nothing in the loop changes, with no
// break, return or goto out of it. Its condition then has the same value on
// every iteration: the loop never runs, or it runs forever. Sampled kernels
// write such loops (`while (k < c) { ... }` that changes neither), and on
// the GPU each one holds a device until the checker's time-out, so kernels
// checked beside it time out too. Clang types, internal to the preprocess
// module.
#pragma once

#include <optional>
#include <string>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

namespace clgen::preprocess::internal {

// The first loop of `fn`'s body whose condition nothing in the loop can
// change, described as "the loop at line 12 never changes what its
// condition reads (k, c)"; nothing when there is none. A condition that
// reads memory (a subscript, `*`, `->`), calls a function of the program or
// a builtin given a pointer, or reads a variable whose address is taken
// anywhere in the function, or one not in private memory, can change
// behind the loop's back and never counts; nor does a condition that is
// false as a constant.
std::optional<std::string> endless_loop(const clang::FunctionDecl& fn, clang::ASTContext& ctx);

}  // namespace clgen::preprocess::internal
