// Tests of kernel template instantiation (corpus/preprocess/kernel_templates.h):
// AMD static C++ kernel templates written out per explicit instantiation.
#include <gtest/gtest.h>

#include "corpus/preprocess/kernel_templates.h"
#include "corpus/preprocess/preprocess.h"

namespace clgen::preprocess {
namespace {

// OpenCL-caffe's form: a template kernel, then one instantiation per type,
// named by mangled_name; an instantiation may name or qualify a parameter
// differently, or give the types explicitly (scale<int>).
constexpr const char* kScale =
    "template <class T>\n"
    "__kernel void scale(const int n, __global T* x, const T a) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n) x[i] = (T)(x[i] * a);\n"
    "}\n"
    "\n"
    "template __attribute__((mangled_name(scale_float))) __kernel void scale(const int n, __global float* y, "
    "const float a);\n"
    "template __attribute__ ((mangled_name(scale_uint))) __kernel void scale(const int n, __global unsigned int* x, "
    "const unsigned int a);\n"
    "template __attribute__((mangled_name(scale_int))) __kernel void scale<int>(const int n, __global int* const x, "
    "int a);\n";

TEST(KernelTemplates, EachInstantiationBecomesAKernelNamedByItsMangledNameWithItsTypes) {
  std::optional<std::string> out = instantiate_kernel_templates(kScale);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out,
            "\n\n\n\n\n"
            "\n"
            "__kernel void scale_float(const int n, __global float* x, const float a) {\n"
            "  int i = get_global_id(0);\n"
            "  if (i < n) x[i] = (float)(x[i] * a);\n"
            "}\n"
            "__kernel void scale_uint(const int n, __global unsigned int* x, const unsigned int a) {\n"
            "  int i = get_global_id(0);\n"
            "  if (i < n) x[i] = (unsigned int)(x[i] * a);\n"
            "}\n"
            "__kernel void scale_int(const int n, __global int* x, const int a) {\n"
            "  int i = get_global_id(0);\n"
            "  if (i < n) x[i] = (int)(x[i] * a);\n"
            "}\n");
}

TEST(KernelTemplates, InstantiatedTemplatesCompileAsOpenCLC) {
  CompileResult before = compile(kScale);
  EXPECT_FALSE(before.ok);
  CompileResult after = compile(with_kernel_templates_instantiated(kScale));
  EXPECT_TRUE(after.ok) << after.reason;
  EXPECT_EQ(after.kernels, (std::vector<std::string>{"scale_float", "scale_uint", "scale_int"}));
}

TEST(KernelTemplates, TextWithoutMangledInstantiationsIsLeftAlone) {
  const std::string plain = "__kernel void k(__global int* x) { x[0] = 1; }\n";
  EXPECT_FALSE(instantiate_kernel_templates(plain).has_value());
  EXPECT_EQ(with_kernel_templates_instantiated(plain), plain);
  // A commented-out instantiation is no instantiation.
  const std::string commented = plain + "// template __attribute__((mangled_name(k_f))) __kernel void k(int* x);\n";
  EXPECT_FALSE(instantiate_kernel_templates(commented).has_value());
}

TEST(KernelTemplates, AnInstantiationWhoseTypesCannotBeReadLeavesTheText) {
  // The two parameters give T two types.
  const std::string text =
      "template <class T> __kernel void k(__global T* x, T a) { x[0] = a; }\n"
      "template __attribute__((mangled_name(k_f))) __kernel void k(__global float* x, int a);\n";
  EXPECT_FALSE(instantiate_kernel_templates(text).has_value());
  // A non-type template parameter is not read.
  const std::string value =
      "template <int N> __kernel void k(__global int* x) { x[0] = N; }\n"
      "template __attribute__((mangled_name(k_4))) __kernel void k<4>(__global int* x);\n";
  EXPECT_FALSE(instantiate_kernel_templates(value).has_value());
}

}  // namespace
}  // namespace clgen::preprocess
