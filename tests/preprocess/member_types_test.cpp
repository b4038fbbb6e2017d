// Tests of member types (corpus/preprocess/member_types.h): missing types
// that the text uses with members, and their inference by rewrite.
#include <gtest/gtest.h>

#include "corpus/preprocess/member_types.h"
#include "corpus/preprocess/names.h"
#include "corpus/preprocess/preprocess.h"
#include "corpus/preprocess/text_scan.h"

namespace clgen::preprocess {
namespace {

// arrayfire's shape: the host prepends a struct of the array geometry.
constexpr const char* kGeometry =
    "__kernel void copy(__global float* out, KParam oInfo, __global const float* in, KParam iInfo) {\n"
    "  int g = get_global_id(0);\n"
    "  __global const float* src = in + iInfo.offset;\n"
    "  if (g < oInfo.dims[0]) out[g * oInfo.strides[0]] = src[g * iInfo.strides[0]];\n"
    "}\n";

TEST(TextScan, CommentsAreBlankedButSlashesInLiteralsAndLineBreaksStay) {
  const std::string text = "a = \"http://x\"; // c \\\n d\nb /* e\n f */ g";
  const std::string code = scan::without_comments(text);
  EXPECT_EQ(code.size(), text.size());
  EXPECT_EQ(code, "a = \"http://x\";" + std::string(7, ' ') + "\n  \nb" + std::string(5, ' ') + "\n" +
                      std::string(6, ' ') + "g");
  EXPECT_EQ(scan::without_comments("s = 'x' \"ab\";", true), "s = ' ' \"  \";");
}

TEST(MemberTypes, ATypeUsedWithMembersIsAStructOfThem) {
  EXPECT_EQ(member_type_definition(kGeometry, "KParam"),
            "typedef struct { int dims[4]; int offset; int strides[4]; } KParam;");
}

TEST(MemberTypes, ATypeUsedOnlyWithLanesIsAVector) {
  const char* complex_mul =
      "T mul(T a, T b) { T c; c.x = a.x * b.x - a.y * b.y; c.y = a.x * b.y + a.y * b.x; return c; }\n";
  EXPECT_EQ(member_type_definition(complex_mul, "T"), "#define T float2");
  const char* four = "__kernel void k(__global T* p) { p[0].w = p[1].x; }\n";
  EXPECT_EQ(member_type_definition(four, "T"), "#define T float4");
  EXPECT_EQ(member_type_definition("void f(T a) { a.s5 = a.lo.x; }\n", "T"), "#define T float8");
  // Every variable of `T a, b;` counts.
  EXPECT_EQ(member_type_definition("void f() { T a, b; b.z = 1; }\n", "T"), "#define T float4");
}

TEST(MemberTypes, NothingForATypeUsedWithoutMembers) {
  EXPECT_EQ(member_type_definition("__kernel void k(__global T* a) { a[0] = a[1] * 2; }\n", "T"), "");
  // Nor for comments and prose: "... in data. This ..." names no member.
  EXPECT_EQ(member_type_definition("// sorts the data. This is fast.\n__kernel void k(__global T* data) {}\n", "T"),
            "");
  // Members of other variables do not count.
  EXPECT_EQ(member_type_definition("__kernel void k(__global T* a, float4 v) { a[0] = v.x; }\n", "T"), "");
}

TEST(InferMemberTypes, AHostStructKernelCompilesWithTheStructInferred) {
  ASSERT_FALSE(compile(kGeometry).ok);
  RewriteResult r = rewrite(kGeometry);
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.category << ": " << r.reason;
  EXPECT_NE(r.inferred.find("typedef struct"), std::string::npos) << r.inferred;
  EXPECT_TRUE(compile(r.text).ok) << r.text;
}

}  // namespace
}  // namespace clgen::preprocess
