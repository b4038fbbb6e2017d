// Kernel argument specifications (`--args "float*,float*,float*,int"`) and
// the seed text they give: the kernel prototype in the corpus's normalized form.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace clgen::sampler {

enum class AddressSpace { kNone, kGlobal, kLocal, kConstant, kPrivate };

// One kernel parameter, e.g. `global const float4*`.
struct KernelArg {
  AddressSpace address_space = AddressSpace::kNone;  // pointers default to kGlobal
  bool is_const = false;     // scalars are always const in the prototype
  bool is_volatile = false;
  bool is_restrict = false;  // pointers only
  std::string type;          // "float", "uint8", "unsigned int"
  bool pointer = false;
};

// Parses a comma-separated list of OpenCL C parameter types. Pointers
// without an address space become __global; a scalar becomes `const T`.
// Accepted: the scalar types char..double (also `unsigned T` and half for
// pointers), their vector forms (float4, uint8, ...), qualifiers global,
// local, constant, private (with or without __), const, volatile, restrict.
// Fails with kInvalidArgument naming the bad item, e.g.
// "argument 2 'flaot*': unknown type 'flaot'".
Expected<std::vector<KernelArg>> parse_arg_spec(std::string_view spec);

// Parameter names in the normalized corpus: a, b, ..., z, aa, ab, ...
std::string parameter_name(size_t index);

// The prototype line as the rewriter prints it, with the opening brace:
// `__kernel void A(__global float* a, __global float* b, const int c) {`.
std::string kernel_prototype(const std::vector<KernelArg>& args);
// The same with other names: `kernel_name` and `param_names` (one per
// argument), for a kernel that follows helpers which took A, a, b, ...
std::string kernel_prototype(const std::vector<KernelArg>& args, const std::string& kernel_name,
                             const std::vector<std::string>& param_names);

// The text sampling starts from: kernel_prototype(parse(spec)), or
// `__kernel void A(` for an empty spec (the model chooses the signature).
Expected<std::string> seed_text(std::string_view spec);

}  // namespace clgen::sampler
