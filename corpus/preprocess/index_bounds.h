// Lower bounds of a kernel's integer expressions under the dynamic checker's
// payload (driver/payload.h): a 1-D launch of S work-items, buffers of S
// elements, 32- and 64-bit integer scalars equal to S. A bound is symbolic,
// value >= k*S + c, so an index whose bound reaches S writes past the end of
// its buffer for every work-item, whatever S is. Used by the usefulness
// check (usefulness.h); Clang types, internal to the preprocess module.
#pragma once

#include <map>
#include <optional>

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>

namespace clgen::preprocess::internal {

struct LowerBound {
  long long k = 0;  // multiples of S
  long long c = 0;  // plus a constant
};

class IndexBounds {
 public:
  // Bounds every local variable of `kernel` by its assignments (iterated to
  // a fixed point; a variable any assignment could lower without limit, such
  // as `i--`, gets none).
  explicit IndexBounds(const clang::FunctionDecl* kernel);

  // The lower bound of `e`, or nothing when it has none we can prove.
  std::optional<LowerBound> of(const clang::Expr* e) const;

  // True when `e` is at least S for every work-item.
  bool at_least_s(const clang::Expr* e) const;

 private:
  void collect(const clang::Stmt* s);
  const clang::FunctionDecl* kernel_;
  // A variable's values, one per assignment; unbounded_ marks a variable
  // an update can lower without limit (`--`, `-=`, `&x`, no initializer).
  struct Value {
    const clang::Expr* expr;  // nullptr: an update that cannot lower the variable (++)
    bool added = false;       // `+= expr`: cannot lower it when expr is not negative
  };
  std::map<const clang::VarDecl*, std::vector<Value>> assigned_;
  std::map<const clang::VarDecl*, bool> unbounded_;
  std::map<const clang::VarDecl*, std::optional<LowerBound>> bound_;  // absent: pending
  mutable bool pending_ = false;  // of() met a pending variable
};

}  // namespace clgen::preprocess::internal
