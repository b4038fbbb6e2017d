// The counting rules both Grewe definitions share (grewe_counts.h).
#include "features/grewe_counts.h"

namespace clgen::features {

void GreweCounts::add(const GreweCounts& o) {
  comp += o.comp;
  rational += o.rational;
  mem += o.mem;
  localmem += o.localmem;
  coalesced += o.coalesced;
  atomic += o.atomic;
}

void count_binary_operator(clang::BinaryOperatorKind op, GreweCounts* counts) {
  switch (op) {
    case clang::BO_Add:
    case clang::BO_Sub:
    case clang::BO_Mul:
    case clang::BO_Div:
    case clang::BO_Rem:
    case clang::BO_Shl:
    case clang::BO_Shr:
    case clang::BO_And:
    case clang::BO_Or:
    case clang::BO_Xor:
    case clang::BO_ShlAssign:
    case clang::BO_ShrAssign: ++counts->comp; break;
    case clang::BO_LT:
    case clang::BO_GT:
    case clang::BO_LE:
    case clang::BO_GE:
    case clang::BO_EQ:
    case clang::BO_NE: ++counts->rational; break;
    default: break;
  }
}

long transcendental_cost(const std::string& name) {
  constexpr long kTranscendentalCost = 15;  // exp, log, sqrt count as 15 operations
  return name == "exp" || name == "log" || name == "sqrt" ? kTranscendentalCost : 0;
}

StaticFeatures grewe_row(const std::string& file, const std::string& kernel, const GreweCounts& c) {
  StaticFeatures f;
  f.file = file;
  f.kernel = kernel;
  f.comp = c.comp;
  f.rational = c.rational;
  f.mem = c.mem;
  f.localmem = c.localmem;
  f.coalesced = c.coalesced;
  f.atomic = c.atomic;
  return f;
}

}  // namespace clgen::features
