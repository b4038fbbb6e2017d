// OpenCL C's built-in scalar types that have vector forms, and the vector
// widths: one table for the driver, the sampler and preprocess (OpenCL C 1.2
// specification, sections 6.1.1 and 6.1.2).
#pragma once

#include <array>
#include <string_view>

namespace clgen::cltypes {

enum class ScalarKind { kSigned, kUnsigned, kFloat };

struct ScalarType {
  std::string_view name;
  ScalarKind kind;
  int size;  // bytes, fixed by the specification (unlike C's)
};

// The ten scalar types that form vector types (char2 ... double16). Left
// out: half (its vectors need cl_khr_fp16), bool, size_t and the other
// scalars that have no vector form.
inline constexpr std::array<ScalarType, 10> kVectorElementTypes = {{
    {"char", ScalarKind::kSigned, 1},
    {"uchar", ScalarKind::kUnsigned, 1},
    {"short", ScalarKind::kSigned, 2},
    {"ushort", ScalarKind::kUnsigned, 2},
    {"int", ScalarKind::kSigned, 4},
    {"uint", ScalarKind::kUnsigned, 4},
    {"long", ScalarKind::kSigned, 8},
    {"ulong", ScalarKind::kUnsigned, 8},
    {"float", ScalarKind::kFloat, 4},
    {"double", ScalarKind::kFloat, 8},
}};

// The entry of kVectorElementTypes named `name`, or nullptr.
const ScalarType* vector_element_type(std::string_view name);

// Whether n is a vector width of OpenCL C: 2, 3, 4, 8 or 16.
bool is_vector_width(int n);

// The width spelled exactly by `digits` ("2", "3", "4", "8", "16"), else 0
// (so "02" and "5" give 0).
int vector_width(std::string_view digits);

}  // namespace clgen::cltypes
