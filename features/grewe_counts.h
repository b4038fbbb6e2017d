// Internal to clgen_features: what both definitions of the six Grewe counts
// (GreweDefinitions) share: the counters, the operator classes, the cost of a
// transcendental call and the row a function's counts make.
#pragma once

#include <string>

#include <clang/AST/OperationKinds.h>

#include "features/static_features.h"

namespace clgen::features {

struct GreweCounts {
  long comp = 0, rational = 0, mem = 0, localmem = 0, coalesced = 0, atomic = 0;
  // A call adds its callee's counts.
  void add(const GreweCounts& o);
};

// Counts `op` as comp (+ - * / % << >> & | ^ <<= >>=) or rational
// (< > <= >= == !=); the other operators (= , && || and the other compound
// assignments) count in neither.
void count_binary_operator(clang::BinaryOperatorKind op, GreweCounts* counts);

// What a call to the built-in `name` adds to comp: 15 for exp, log and sqrt, else 0.
long transcendental_cost(const std::string& name);

// The row of function `kernel` of `file` with counts `c`.
StaticFeatures grewe_row(const std::string& file, const std::string& kernel, const GreweCounts& c);

}  // namespace clgen::features
