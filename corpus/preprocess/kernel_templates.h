// Kernel templates of AMD's OpenCL static C++ kernel language written out as
// OpenCL C: `template <class T> __kernel void f(__global T* x) {...}` with
// explicit instantiations `template __attribute__((mangled_name(f_float)))
// __kernel void f(__global float* x);` become one kernel per instantiation,
// named by its mangled name, with the template's parameters replaced by the
// instantiation's types (what the host's C++ compiler would have built).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace clgen::preprocess {

// The text with every template definition removed and every explicit
// instantiation replaced by the instantiated definition; nullopt when the
// text has no `mangled_name` instantiation or when a `template` in it is not
// one of these two forms, or a type cannot be read off an instantiation
// (function templates only, type parameters only, defined before use).
std::optional<std::string> instantiate_kernel_templates(std::string_view text);

// instantiate_kernel_templates(text) when it applies, else `text` unchanged.
std::string with_kernel_templates_instantiated(std::string_view text);

}  // namespace clgen::preprocess
