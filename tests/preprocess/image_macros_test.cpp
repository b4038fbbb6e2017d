// Tests of image macro families (corpus/preprocess/image_macros.h) and their
// inference by infer_missing_names and rewrite: clij/clEsperanto kernels
// whose host generates READ_NAME_IMAGE, IMAGE_NAME_TYPE, ... per parameter.
#include <gtest/gtest.h>

#include <algorithm>

#include "corpus/preprocess/image_macros.h"
#include "corpus/preprocess/names.h"
#include "corpus/preprocess/preprocess.h"

namespace clgen::preprocess {
namespace {

// A 2D kernel: the positions are int2 variables.
constexpr const char* k2D =
    "__constant sampler_t sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | "
    "CLK_FILTER_NEAREST;\n"
    "__kernel void invert_2d(IMAGE_src_TYPE src, IMAGE_dst_TYPE dst) {\n"
    "  const int x = get_global_id(0);\n"
    "  const int y = get_global_id(1);\n"
    "  int2 pos = (int2){x, y};\n"
    "  float value = READ_src_IMAGE(src, sampler, pos).x;\n"
    "  WRITE_dst_IMAGE(dst, pos, CONVERT_dst_PIXEL_TYPE(1.0f - value));\n"
    "}\n";

// A 3D projection: a 3D source read through the generic forms and a 2D
// destination (an int2 literal), with a loop over the source's depth.
constexpr const char* k3DTo2D =
    "__kernel void sum_z(IMAGE_dst_TYPE dst, IMAGE_src_TYPE src) {\n"
    "  const sampler_t sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | "
    "CLK_FILTER_NEAREST;\n"
    "  const int x = get_global_id(0);\n"
    "  const int y = get_global_id(1);\n"
    "  float sum = 0;\n"
    "  for (int z = 0; z < GET_IMAGE_DEPTH(src); z++) {\n"
    "    sum += READ_IMAGE(src, sampler, (int4)(x, y, z, 0)).x;\n"
    "  }\n"
    "  WRITE_dst_IMAGE(dst, (int2)(x, y), CONVERT_dst_PIXEL_TYPE(sum));\n"
    "}\n";

const HostMacro* find(const std::vector<HostMacro>& ms, const std::string& name) {
  auto it = std::find_if(ms.begin(), ms.end(), [&](const HostMacro& m) { return m.name == name; });
  return it == ms.end() ? nullptr : &*it;
}

TEST(ImageMacros, APositionsVectorWidthGivesEachImageItsDimension) {
  std::vector<HostMacro> ms = ImageMacros(k3DTo2D)("IMAGE_src_TYPE");
  ASSERT_NE(find(ms, "POS_src_TYPE"), nullptr);
  EXPECT_EQ(find(ms, "POS_src_TYPE")->value, "int4");  // (int4)(x, y, z, 0)
  ASSERT_NE(find(ms, "POS_dst_TYPE"), nullptr);
  EXPECT_EQ(find(ms, "POS_dst_TYPE")->value, "int2");  // (int2)(x, y)
  // A variable's declared type tells too.
  std::vector<HostMacro> two = ImageMacros(k2D)("READ_src_IMAGE");
  ASSERT_NE(find(two, "POS_src_TYPE"), nullptr);
  EXPECT_EQ(find(two, "POS_src_TYPE")->value, "int2");
  EXPECT_EQ(find(two, "READ_src_IMAGE")->params, "(a, b, c)");
}

TEST(ImageMacros, AKernelNamedFor2DImagesHasThemWhenNoPositionTells) {
  const char* text =
      "__kernel void copy_2d(IMAGE_src_TYPE src, IMAGE_dst_TYPE dst) {\n"
      "  POS_src_TYPE p = POS_src_INSTANCE(get_global_id(0), get_global_id(1), z, 0);\n"
      "  WRITE_dst_IMAGE(dst, p, READ_src_IMAGE(src, 0, p).x);\n"
      "}\n";
  EXPECT_EQ(find(ImageMacros(text)("IMAGE_src_TYPE"), "POS_src_TYPE")->value, "int2");
  std::string three = text;
  three.replace(three.find("copy_2d"), 7, "copy_3d");
  EXPECT_EQ(find(ImageMacros(three)("IMAGE_src_TYPE"), "POS_src_TYPE")->value, "int4");
}

TEST(ImageMacros, AVectorLiteralAssignedToAPositionVariableTellsItsDimension) {
  // k2D with its position declared through the family, then assigned an
  // int2, and a name that does not say 2D.
  std::string text = k2D;
  text.replace(text.find("invert_2d"), 9, "invert");
  text.replace(text.find("int2 pos"), 8, "POS_src_TYPE pos = POS_src_INSTANCE(x, y, 0, 0);\n  pos");
  EXPECT_EQ(find(ImageMacros(text)("IMAGE_src_TYPE"), "POS_src_TYPE")->value, "int2");
  // Declared alone, it tells nothing: the default is 3D.
  text.replace(text.find("  pos = (int2)"), 22, "");
  EXPECT_EQ(find(ImageMacros(text)("IMAGE_src_TYPE"), "POS_src_TYPE")->value, "int4");
}

TEST(ImageMacros, FloatingPointPositionsAreTruncatedOnlyForTheirImage) {
  const char* text =
      "__kernel void k(IMAGE_src_TYPE src, IMAGE_dst_TYPE dst) {\n"
      "  float v = READ_src_IMAGE(src, 0, (float4)(0.5f, 0.5f, 0.5f, 0)).x;\n"
      "  WRITE_dst_IMAGE(dst, (int4)(0, 0, 0, 0), v);\n"
      "}\n";
  std::vector<HostMacro> ms = ImageMacros(text)("IMAGE_src_TYPE");
  EXPECT_NE(find(ms, "READ_src_IMAGE")->value.find("clamp((int)(c).x"), std::string::npos);
  EXPECT_EQ(find(ms, "WRITE_dst_IMAGE")->value.find("(int)"), std::string::npos);
  // Without the cast, clamp(float, int, int) is ambiguous.
  ASSERT_FALSE(compile(text).ok);
  auto names = infer_missing_names(text, CompileOptions{});
  ASSERT_TRUE(names.ok()) << names.status().message();
}

TEST(ImageMacros, TheGenericFormsAreDefinedOnlyWhenTheTextCallsThem) {
  std::vector<HostMacro> ms = ImageMacros(k3DTo2D)("GET_IMAGE_DEPTH");
  EXPECT_NE(find(ms, "GET_IMAGE_DEPTH"), nullptr);
  EXPECT_NE(find(ms, "READ_IMAGE"), nullptr);
  EXPECT_EQ(find(ms, "WRITE_IMAGE"), nullptr);
  EXPECT_EQ(find(ms, "GET_IMAGE_WIDTH"), nullptr);
}

TEST(ImageMacros, NothingWhenTheNameIsNotAKernelParameter) {
  // `img` is the parameter; `src` is no parameter, so IMAGE_src_TYPE is no family name.
  const char* text =
      "__kernel void k(__global float* img) {\n"
      "  IMAGE_src_TYPE v = READ_src_IMAGE(img, 0, (int2)(0, 0)).x;\n"
      "  img[0] = v;\n"
      "}\n";
  EXPECT_TRUE(ImageMacros(text)("IMAGE_src_TYPE").empty());
  EXPECT_TRUE(ImageMacros(text)("READ_src_IMAGE").empty());
  // A name outside the family is not answered even when an image exists.
  EXPECT_TRUE(ImageMacros(k2D)("DATA_T").empty());
}

// infer_missing_names reads the text for image families only when
// may_define allows: it must allow every name a text can answer.
TEST(ImageMacros, MayDefineAcceptsEveryNameATextAnswersAndNoOther) {
  for (const char* text : {k2D, k3DTo2D}) {
    const ImageMacros images(text);
    std::vector<HostMacro> all = images("IMAGE_src_TYPE");
    ASSERT_FALSE(all.empty());
    for (const HostMacro& m : all) {
      EXPECT_TRUE(ImageMacros::may_define(m.name)) << m.name;
      EXPECT_FALSE(images(m.name).empty()) << m.name;
    }
  }
  // Neither a family name (a parameter's name between prefix and suffix) nor a generic form.
  for (const char* name : {"DATA_T", "KERNEL_STATIC", "IMAGE__TYPE", "READ_IMAGES", "POS_TYPE", "u32"}) {
    EXPECT_FALSE(ImageMacros::may_define(name)) << name;
  }
  EXPECT_TRUE(ImageMacros::may_define("READ_x_IMAGE"));
  EXPECT_TRUE(ImageMacros::may_define("GET_IMAGE_WIDTH"));
}

TEST(ImageMacros, MacrosTheTextDefinesAreLeftOut) {
  std::string text = std::string("#define CONVERT_dst_PIXEL_TYPE(x) (x)\n") + k2D;
  std::vector<HostMacro> ms = ImageMacros(text)("IMAGE_src_TYPE");
  EXPECT_EQ(find(ms, "CONVERT_dst_PIXEL_TYPE"), nullptr);
  EXPECT_NE(find(ms, "WRITE_dst_IMAGE"), nullptr);
}

// The normalized kernel compiles alone and names no macro of the family.
void expect_rewritten_alone(const char* text, const char* pos_type) {
  ASSERT_FALSE(compile(text).ok);
  RewriteResult r = rewrite(text);
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.category << ": " << r.reason;
  EXPECT_NE(r.inferred.find(std::string("#define POS_src_TYPE ") + pos_type + "\n"), std::string::npos) << r.inferred;
  for (const char* word : {"IMAGE_", "READ_", "WRITE_", "CONVERT_", "POS_"}) {
    EXPECT_EQ(r.text.find(word), std::string::npos) << word << " in\n" << r.text;
  }
  // Images became buffers indexed within the global size.
  EXPECT_NE(r.text.find("__global float*"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("get_global_size"), std::string::npos) << r.text;
  EXPECT_TRUE(compile(r.text).ok) << r.text;
}

TEST(InferImageMacros, ATwoDimensionalKernelCompilesWithItsFamilyInferred) { expect_rewritten_alone(k2D, "int2"); }

TEST(InferImageMacros, AThreeDimensionalKernelCompilesWithItsFamilyInferred) {
  expect_rewritten_alone(k3DTo2D, "int4");
}

TEST(InferImageMacros, TheFamilyIsNotDefinedWhenTheNameIsNotAParameter) {
  const char* text =
      "__kernel void k(__global float* out) {\n"
      "  out[0] = READ_src_IMAGE(out, 0, (int2)(0, 0)).x;\n"
      "}\n";
  ASSERT_FALSE(compile(text).ok);
  auto names = infer_missing_names(text, CompileOptions{});
  ASSERT_FALSE(names.ok()) << names->prelude;
  EXPECT_NE(names.status().message().find("READ_src_IMAGE"), std::string::npos) << names.status().message();
}

TEST(InferImageMacros, UnrelatedFunctionLikeMissingNamesAreStillNotDefined) {
  // The family makes READ/WRITE compile; BLEND is the host's too, but no
  // image family: it must stay undefined and fail the input.
  std::string text = k2D;
  text.replace(text.find("1.0f - value"), 12, "BLEND(value, 0.5f)");
  auto names = infer_missing_names(text, CompileOptions{});
  ASSERT_FALSE(names.ok()) << names->prelude;
  EXPECT_NE(names.status().message().find("'BLEND' (used as function-like macro) cannot be defined"), std::string::npos)
      << names.status().message();
}

}  // namespace
}  // namespace clgen::preprocess
