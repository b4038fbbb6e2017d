// Argument descriptions shared by the Clang analysis and the device fallback.
#include "driver/args.h"

#include <algorithm>
#include <cctype>

namespace clgen::driver {

const char* address_space_name(AddressSpace space) {
  switch (space) {
    case AddressSpace::kPrivate: return "private";
    case AddressSpace::kGlobal: return "global";
    case AddressSpace::kConstant: return "constant";
    case AddressSpace::kLocal: return "local";
  }
  return "?";
}

Expected<AddressSpace> parse_address_space(const std::string& name) {
  for (AddressSpace s : {AddressSpace::kPrivate, AddressSpace::kGlobal, AddressSpace::kConstant,
                         AddressSpace::kLocal})
    if (name == address_space_name(s)) return s;
  return parse_error("unknown address space '" + name + "'");
}

bool KernelSignature::supported() const {
  for (const auto& a : args)
    if (!a.supported) return false;
  return true;
}

std::string KernelSignature::unsupported_reason() const {
  for (const auto& a : args)
    if (!a.supported) return "argument '" + a.name + "' (" + a.type + "): " + a.unsupported_reason;
  return "";
}

bool parse_element_type(const std::string& name, ScalarKind& kind, int& element_size,
                        int& vector_width) {
  size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
  std::string base = name.substr(0, digits);
  int width = 1;
  if (digits < name.size()) {
    width = std::stoi(name.substr(digits));
    if (!cltypes::is_vector_width(width)) return false;
  }
  const cltypes::ScalarType* element = cltypes::vector_element_type(base);
  if (!element) return false;
  kind = element->kind;
  element_size = element->size;
  vector_width = width;
  return true;
}

#ifndef CLGEN_HAVE_CLANG
Expected<std::vector<KernelSignature>> analyze_kernels(const std::string&) {
  return unavailable("argument analysis needs Clang 15 (built without it)");
}
bool have_clang_analysis() { return false; }
#endif

bool has_integer_scalars(const std::vector<ArgInfo>& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const ArgInfo& a) { return !a.is_pointer && a.kind != ScalarKind::kFloat; });
}

}  // namespace clgen::driver
