// The OpenCL C type table follows the specification (OpenCL C 1.2, 6.1.1-6.1.2).
#include "support/opencl_types.h"

#include <gtest/gtest.h>

namespace clgen::cltypes {
namespace {

TEST(OpenClTypes, ElementSizesAreTheSpecificationsNotC) {
  // Table 6.1: char 8 bits, short 16, int 32, long 64, float 32, double 64.
  EXPECT_EQ(vector_element_type("long")->size, 8);
  EXPECT_EQ(vector_element_type("uchar")->size, 1);
  EXPECT_EQ(vector_element_type("ushort")->kind, ScalarKind::kUnsigned);
  EXPECT_EQ(vector_element_type("double")->kind, ScalarKind::kFloat);
}

TEST(OpenClTypes, ScalarsWithoutVectorFormsAreNotElementTypes) {
  for (const char* t : {"half", "bool", "size_t", "void", "float4", "unsigned"})
    EXPECT_EQ(vector_element_type(t), nullptr) << t;
}

TEST(OpenClTypes, WidthsAreTwoThreeFourEightSixteenSpelledExactly) {
  EXPECT_EQ(vector_width("16"), 16);
  EXPECT_EQ(vector_width("3"), 3);
  for (const char* w : {"", "1", "5", "02", "32", "4 "}) EXPECT_EQ(vector_width(w), 0) << w;
  for (int n = 0; n <= 32; ++n)
    EXPECT_EQ(is_vector_width(n), n == 2 || n == 3 || n == 4 || n == 8 || n == 16) << n;
}

}  // namespace
}  // namespace clgen::cltypes
