// Look-ups in the table of OpenCL C vector element types and widths.
#include "support/opencl_types.h"

#include <utility>

namespace clgen::cltypes {

const ScalarType* vector_element_type(std::string_view name) {
  for (const ScalarType& t : kVectorElementTypes)
    if (t.name == name) return &t;
  return nullptr;
}

bool is_vector_width(int n) { return n == 2 || n == 3 || n == 4 || n == 8 || n == 16; }

int vector_width(std::string_view digits) {
  static constexpr std::pair<std::string_view, int> kSpelled[] = {
      {"2", 2}, {"3", 3}, {"4", 4}, {"8", 8}, {"16", 16}};
  for (const auto& [text, n] : kSpelled)
    if (digits == text) return n;
  return 0;
}

}  // namespace clgen::cltypes
