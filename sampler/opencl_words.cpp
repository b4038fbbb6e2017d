// The words of OpenCL C that the constraint reasons about: types, builtins,
// qualifiers, swizzles.
#include "sampler/opencl_words.h"

#include <unordered_set>

#include "support/opencl_types.h"

namespace clgen::sampler::opencl {

bool swizzle(std::string_view w, bool prefix) {
  if (w.empty()) return prefix;
  if (w.size() <= 4 && w.find_first_not_of("xyzw") == std::string_view::npos) return true;
  if ((w[0] == 's' || w[0] == 'S') && w.size() <= 17 &&
      (w.size() > 1 || prefix) &&
      w.find_first_not_of("0123456789abcdefABCDEF", 1) == std::string_view::npos)
    return true;
  for (std::string_view s : {"lo", "hi", "even", "odd"})
    if (prefix ? s.substr(0, w.size()) == w : s == w) return true;
  return false;
}

bool statement_keyword(const std::string& w) {
  static const std::unordered_set<std::string> k = {"if", "for", "while", "do", "switch", "return",
                                                    "break", "continue", "else", "case", "default",
                                                    "goto"};
  return k.count(w) > 0;
}
bool scalar_type(const std::string& w) {
  // Beyond the vector element types: the scalars without vector forms, and
  // `unsigned`/`signed`, which the constraint reads as type words too.
  static const std::unordered_set<std::string> k = {
      "half", "bool", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "unsigned", "signed"};
  return cltypes::vector_element_type(w) != nullptr || k.count(w) > 0;
}
bool float_type(const std::string& w) { return w == "float" || w == "double" || w == "half"; }
// Any scalar_type() word with a width, so also half4 or size_t2: the
// constraint is meant to be permissive here, not to decide which scalars
// have vector forms (cltypes::kVectorElementTypes does that for the driver).
bool vector_type(const std::string& w) {
  size_t d = w.find_first_of("0123456789");
  if (d == std::string::npos || d == 0) return false;
  return scalar_type(w.substr(0, d)) && cltypes::vector_width(std::string_view(w).substr(d)) != 0;
}

int type_width(const std::string& w) {
  if (scalar_type(w)) return 1;
  if (!vector_type(w)) return 0;
  return std::stoi(w.substr(w.find_first_of("0123456789")));
}

bool image_builtin(const std::string& w) {
  return w.compare(0, 10, "get_image_") == 0 || w.compare(0, 10, "read_image") == 0 ||
         w.compare(0, 11, "write_image") == 0;
}

bool pointer_qualifier(const std::string& w, bool complete) {
  for (const char* q : {"const", "restrict", "__restrict", "volatile"})
    if (complete ? w == q : std::string_view(q).substr(0, w.size()) == w) return true;
  return false;
}

namespace {
bool in_set(const std::unordered_set<std::string>& set, const std::string& w) { return set.count(w) > 0; }
}  // namespace

// Builtins defined for floating-point arguments of several precisions
// (OpenCL C math, geometric and common functions): with integers alone a
// call is ambiguous or matches nothing. Left out: those that take a pointer
// (fract, modf, ...) or an integer argument of their own (nan), and the
// float-only native_, half_ and fast_ ones, to which an int converts.
bool float_builtin(const std::string& w) {
  static const std::unordered_set<std::string> k = {
        "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2", "atanh", "atanpi",
        "atan2pi", "cbrt", "ceil", "copysign", "cos", "cosh", "cospi", "erfc", "erf", "exp", "exp2",
        "exp10", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod", "hypot", "ilogb",
        "ldexp", "lgamma", "log", "log2", "log10", "log1p", "logb", "mad", "maxmag", "minmag",
        "nextafter", "pow", "pown", "powr", "remainder", "rint", "rootn", "round", "rsqrt", "sin",
        "sinh", "sinpi", "sqrt", "tan", "tanh", "tanpi", "tgamma", "trunc", "dot", "cross", "length",
        "normalize", "distance", "degrees", "radians", "mix", "sign", "smoothstep", "step"};
  return in_set(k, w);
}
bool float_test_builtin(const std::string& w) {
  return w == "isnan" || w == "isinf" || w == "isfinite" || w == "isnormal" || w == "signbit";
}
bool integer_builtin(const std::string& w) {
  static const std::unordered_set<std::string> k = {
      "mad24", "mul24", "abs", "abs_diff", "add_sat", "sub_sat", "hadd", "rhadd", "clz", "popcount",
      "rotate", "mad_hi", "mul_hi", "mad_sat", "upsample"};
  return in_set(k, w);
}
bool integer_result(const std::string& w) {
  static const std::unordered_set<std::string> k = {
      "get_global_id", "get_local_id", "get_group_id", "get_global_size", "get_local_size",
      "get_num_groups", "get_work_dim", "get_global_offset", "sizeof", "any", "all"};
  return integer_builtin(w) || in_set(k, w);
}
bool generic_builtin(const std::string& w) { return w == "min" || w == "max" || w == "clamp"; }

bool cxx_operator_word(const std::string& w) { return w == "or" || w == "and" || w == "not" || w == "xor"; }

bool qualifier_word(const std::string& w) {
  static const std::unordered_set<std::string> k = {
      "const", "__global", "global", "__local", "local", "__constant", "constant", "__private",
      "private", "volatile", "restrict", "__restrict", "unsigned", "signed", "struct", "union",
      "enum", "typedef", "static", "inline", "__kernel", "kernel", "__read_only", "read_only",
      "__write_only", "write_only"};
  return in_set(k, w);
}

bool writing_builtin(const std::string& w) {
  for (std::string_view p : {"atomic_", "atom_", "vstore", "write_image", "async_work_group"})
    if (w.compare(0, p.size(), p) == 0) return true;
  return false;
}

}  // namespace clgen::sampler::opencl
