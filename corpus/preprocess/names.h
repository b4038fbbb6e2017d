// Missing-name inference: how an undeclared name is used where Clang reports
// it, a plausible definition for it, and the per-file fallback that defines
// every missing name of one input (host `-D` constants, typedefs a build
// system supplies) so that the input compiles. Free of Clang types.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/preprocess/preprocess.h"
#include "support/status.h"

namespace clgen::preprocess {

// kQualifier: written before a declaration's type ("KERNEL_FQ void f(...)").
// kWorkGroupSize: an argument of `reqd_work_group_size` or
// `work_group_size_hint`, which must be an integer constant.
enum class NameUse { kType, kValue, kArraySize, kFunctionMacro, kQualifier, kWorkGroupSize };
// "type" | "value" | "array size" | "function-like macro" | "qualifier" | "work-group size"
const char* name_use_name(NameUse use);

// Classifies the use of `name` written at byte `offset` of `text`;
// `unknown_type` when Clang reported it as an unknown type name. For a
// function-like use, *arity (when given) receives the argument count.
NameUse classify_use(std::string_view text, int64_t offset, std::string_view name, bool unknown_type,
                     int* arity);

// True when `name` has letters and none is lower case (WIDTH, TILE_2D).
bool is_macro_style(std::string_view name);

// A plausible `#define` for a missing name, from its spelling and use:
// integer aliases by width (u32 -> uint), float otherwise (int for INDEX or
// SIZE names), 64 for constants and array sizes, `__kernel` for a KERNEL
// qualifier, the first argument for a function-like macro.
std::string propose_definition(std::string_view name, NameUse use, int arity);

// True when a per-file inference may define a name used this way: types and
// qualifiers of any spelling, constants and array sizes only with macro-style
// names (a lower-case value is a variable the input forgot, and `#define n 64`
// would silently change what code means). Function-like macros never.
bool definable(std::string_view name, NameUse use);

struct InferredNames {
  std::string prelude;              // the `#define` lines, one per name, in the order found
  std::vector<std::string> names;   // the names defined
  int rounds = 0;                   // compiles it took (the first may be the caller's)
};

// The options of inference's compiles: `options` checked only (no code,
// no PTX), with up to 50 errors.
CompileOptions inference_check_options(const CompileOptions& options);

// Defines the input's missing names until it compiles: compiles `text`
// (inference_check_options), proposes a definition for every definable
// missing name, and compiles `prelude + text` again, up to `max_rounds`
// times (a defined type can reveal names its parse error hid). Fails, naming
// the input's first error, when an error other than a missing name remains,
// when a missing name is not definable, or after max_rounds.
// `first_round`, when given, is compile(text, inference_check_options(options))
// already done by the caller: it is the first round's result, not compiled again.
Expected<InferredNames> infer_missing_names(std::string_view text, const CompileOptions& options, int max_rounds = 8,
                                            const CompileResult* first_round = nullptr);

}  // namespace clgen::preprocess
