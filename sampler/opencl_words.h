// The words of OpenCL C that the constrained decoder (code_constraint.h)
// reasons about: scalar and vector types, builtins by the arguments they
// take, qualifiers, vector components. Fixed facts of the language, not
// learned from the corpus.
#pragma once

#include <string>
#include <string_view>

namespace clgen::sampler::opencl {

// Vector components: .x .xy .xyzw, .s0 .s01f, .lo .hi .even .odd (and
// prefixes of them when `prefix`).
bool swizzle(std::string_view w, bool prefix);
// Words that can only start a statement (if, for, return, else, case, ...).
bool statement_keyword(const std::string& w);

bool scalar_type(const std::string& w);  // char .. double, size_t, unsigned, ...
bool float_type(const std::string& w);   // float, double, half
bool vector_type(const std::string& w);  // float4, uint8, ...
// The vector width of type w: 1 for scalars, 0 when not a number type.
int type_width(const std::string& w);

// Qualifiers that may follow the '*' of a pointer declaration (or, when
// !complete, a prefix of one).
bool pointer_qualifier(const std::string& w, bool complete);
// Address spaces, const, volatile, unsigned, struct, typedef, __kernel, ...
bool qualifier_word(const std::string& w);
// Generated names that clang-format reads as C++'s alternative operators
// (`or`, `and`, `not`, `xor`).
bool cxx_operator_word(const std::string& w);

// Builtins defined for floating-point arguments of several precisions
// (math, geometric and common functions): with integers alone a call is
// ambiguous or matches nothing.
bool float_builtin(const std::string& w);
// isnan, isinf, ...: floating-point arguments, an integer result.
bool float_test_builtin(const std::string& w);
// Builtins defined only for integer arguments (mad24, abs, ...).
bool integer_builtin(const std::string& w);
// Builtins that return an integer whatever their arguments.
bool integer_result(const std::string& w);
// Builtins whose result has their arguments' type (min, max, clamp).
bool generic_builtin(const std::string& w);
// get_image_*, read_image*, write_image*: an image is their first argument.
bool image_builtin(const std::string& w);
// Builtins whose calls write memory: atomics, vstore*, write_image*, async
// copies.
bool writing_builtin(const std::string& w);

}  // namespace clgen::sampler::opencl
