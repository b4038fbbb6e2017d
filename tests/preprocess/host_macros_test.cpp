// Tests of host-macro inference (corpus/preprocess/host_macros.h) and its use
// by infer_missing_names: definitions a host `-D` would switch on.
#include <gtest/gtest.h>

#include "corpus/preprocess/host_macros.h"
#include "corpus/preprocess/names.h"
#include "corpus/preprocess/preprocess.h"

namespace clgen::preprocess {
namespace {

// The shape of hashcat's kernels: every include sits under a macro the host
// passes (`-D KERNEL_STATIC`), and a vector width comes from `-D VECT_SIZE=N`.
constexpr const char* kGuardedIncludes =
    "#ifdef KERNEL_STATIC\n"
    "typedef uint u32;\n"
    "#define CONCAT(a, b) a##b\n"
    "#define VTYPE(t, w) CONCAT(t, w)\n"
    "#if VECT_SIZE == 1\n"
    "typedef uint u32x;\n"
    "#else\n"
    "typedef VTYPE(uint, VECT_SIZE) u32x;\n"
    "#endif\n"
    "#if VECT_SIZE == 2\n"
    "#endif\n"
    "#endif\n"
    "__kernel void A(__global u32* a) {\n"
    "  u32x v = a[get_global_id(0)];\n"
    "  a[get_global_id(0)] = v + 1;\n"
    "}\n";

TEST(HostMacros, AMacroGuardingTheMissingTypesDefinitionIsDefined) {
  EXPECT_EQ(host_macros_for(kGuardedIncludes, "u32"), (std::vector<HostMacro>{{"KERNEL_STATIC", "1", ""}}));
}

TEST(HostMacros, NothingWhenTheTextHasNoSwitchedOffDefinition) {
  EXPECT_TRUE(host_macros_for(kGuardedIncludes, "DATA_T").empty());
  // A definition outside any conditional is not missing for want of a macro.
  EXPECT_TRUE(host_macros_for("typedef uint u32;\n__kernel void A() {}\n", "u32").empty());
  // A macro the text defines itself is not the host's.
  EXPECT_TRUE(host_macros_for("#define ON\n#ifdef ON\ntypedef uint u32;\n#endif\n", "u32").empty());
}

TEST(HostMacros, AnElseBranchDefinitionNeedsFewerMacrosThanTheFirstBranch) {
  // KERNEL_FA has a definition under FIXED and one in the #else: the second
  // needs only STATIC, so FIXED (a different build) is not switched on.
  const char* text =
      "#ifdef STATIC\n"
      "#if defined FIXED\n"
      "#define KERNEL_FA __attribute__((reqd_work_group_size(FIXED, 1, 1)))\n"
      "#else\n"
      "#define KERNEL_FA\n"
      "#endif\n"
      "#endif\n";
  EXPECT_EQ(host_macros_for(text, "KERNEL_FA"), (std::vector<HostMacro>{{"STATIC", "1", ""}}));
}

TEST(HostMacros, NestedSwitchesAreAllDefined) {
  const char* text = "#if defined(A_ON)\n#ifdef B_ON\n#define LIMIT 8\n#endif\n#endif\n";
  EXPECT_EQ(host_macros_for(text, "LIMIT"), (std::vector<HostMacro>{{"A_ON", "1", ""}, {"B_ON", "1", ""}}));
}

TEST(HostMacros, EnumeratorsAndTypedefStructsAreDefinitions) {
  const char* text =
      "#ifdef ON\n"
      "typedef enum { MD5C00 = 0xd76aa478U, MD5C01 } md5_t;\n"
      "typedef struct {\n  int x;\n} pair_t;\n"
      "enum\n{\n  SHA_K0=1,\n  SHA_K1\n};\n"
      "#endif\n";
  EXPECT_EQ(host_macros_for(text, "pair_t"), (std::vector<HostMacro>{{"ON", "1", ""}}));
  EXPECT_EQ(host_macros_for(text, "SHA_K0"), (std::vector<HostMacro>{{"ON", "1", ""}}));
  EXPECT_EQ(host_macros_for(text, "SHA_K1"), (std::vector<HostMacro>{{"ON", "1", ""}}));
}

TEST(HostMacros, APastedMacroTakesTheSmallestValueItIsComparedWith) {
  // VTYPE(uchar, VECT_SIZE) with VECT_SIZE undefined pastes `ucharVECT_SIZE`.
  const char* text = "#if VECT_SIZE == 4\n#elif VECT_SIZE == 2\n#elif VECT_SIZE >= 1\n#endif\n";
  EXPECT_EQ(host_macros_for(text, "ucharVECT_SIZE"), (std::vector<HostMacro>{{"VECT_SIZE", "2", ""}}));
  // No comparison in the text: nothing to go on.
  EXPECT_TRUE(host_macros_for("#if VECT_SIZE >= 1\n#endif\n", "ucharVECT_SIZE").empty());
}

// A lookup reads the conditionals and the lines where the name is a word;
// a conditional that names it is still read once.
TEST(HostMacros, AConditionalNamingTheMissingNameOpensOneBranch) {
  const char* text = "#ifdef ON\n#endif\n#ifdef ON\ntypedef int ON;\n#endif\n";
  EXPECT_EQ(host_macros_for(text, "ON"), (std::vector<HostMacro>{{"ON", "1", ""}}));
  // `u32` inside the word `u32x` is no definition of u32.
  EXPECT_TRUE(host_macros_for("#ifdef ON\ntypedef uint u32x;\n#endif\n", "u32").empty());
}

TEST(HostMacros, DirectivesInsideBlockCommentsAreIgnored) {
  const char* text = "/*\n#ifdef OLD\n*/\ntypedef uint u32;\n";
  EXPECT_TRUE(host_macros_for(text, "u32").empty());
}

// mace's shape: vector types and image builtins are pasted from element-type
// macros the host passes (`-D DATA_TYPE=half -D CMD_DATA_TYPE=h`).
constexpr const char* kPastedElementTypes =
    "#define VEC_DATA_TYPE_STR(t, n) t##n\n"
    "#define VEC_DATA_TYPE(t, n) VEC_DATA_TYPE_STR(t, n)\n"
    "#define CMD_TYPE_STR(cmd, type) cmd##type\n"
    "#define CMD_TYPE(cmd, type) CMD_TYPE_STR(cmd, type)\n"
    "#define DATA_TYPE4 VEC_DATA_TYPE(DATA_TYPE, 4)\n"
    "#define READ_IMAGET(image, sampler, coord) CMD_TYPE(read_image, CMD_DATA_TYPE)(image, sampler, coord)\n"
    "__kernel void copy(__read_only image2d_t in, __global float4* out) {\n"
    "  DATA_TYPE4 v = READ_IMAGET(in, CLK_NORMALIZED_COORDS_FALSE, (int2)(0, 0));\n"
    "  out[0] = v;\n"
    "}\n";

TEST(HostMacros, AVectorTypePastedFromAnUndefinedElementTypeDefinesTheElementType) {
  EXPECT_EQ(host_macros_for(kPastedElementTypes, "DATA_TYPE4"), (std::vector<HostMacro>{{"DATA_TYPE", "float", ""}}));
  // Only a vector width: DATA_TYPE5 is no vector type.
  std::string five = kPastedElementTypes;
  five.replace(five.find("DATA_TYPE4 VEC"), 10, "DATA_TYPE5");
  EXPECT_TRUE(host_macros_for(five, "DATA_TYPE5").empty());
  // Not when the text defines no such vector type.
  EXPECT_TRUE(host_macros_for("__kernel void k(__global DATA_TYPE4* a) {}\n", "DATA_TYPE4").empty());
}

TEST(HostMacros, AnImageBuiltinPastedWithAnUndefinedMacroTakesTheFloatVariant) {
  EXPECT_EQ(host_macros_for(kPastedElementTypes, "read_imageCMD_DATA_TYPE"),
            (std::vector<HostMacro>{{"CMD_DATA_TYPE", "f", ""}}));
  EXPECT_TRUE(host_macros_for(kPastedElementTypes, "read_imagecount").empty());
}

TEST(InferMissingNames, DefinesPastedElementTypesSoTheVectorTypesCompile) {
  ASSERT_FALSE(compile(kPastedElementTypes).ok);
  auto names = infer_missing_names(kPastedElementTypes, CompileOptions{});
  ASSERT_TRUE(names.ok()) << names.status().message();
  EXPECT_NE(names->prelude.find("#define DATA_TYPE float\n"), std::string::npos) << names->prelude;
  EXPECT_NE(names->prelude.find("#define CMD_DATA_TYPE f\n"), std::string::npos) << names->prelude;
}

TEST(InferMissingNames, SwitchesOnHostMacrosBeforeDefiningNamesItself) {
  ASSERT_FALSE(compile(kGuardedIncludes).ok);
  auto names = infer_missing_names(kGuardedIncludes, CompileOptions{});
  ASSERT_TRUE(names.ok()) << names.status().message();
  // u32 and u32x come from the text once KERNEL_STATIC is on; VECT_SIZE
  // then picks the first branch of its chain. Neither type is made up.
  EXPECT_EQ(names->names, (std::vector<std::string>{"KERNEL_STATIC", "VECT_SIZE"}));
  EXPECT_EQ(names->prelude, "#define KERNEL_STATIC 1\n#define VECT_SIZE 1\n");
  EXPECT_TRUE(compile(names->prelude + kGuardedIncludes).ok);
}

}  // namespace
}  // namespace clgen::preprocess
