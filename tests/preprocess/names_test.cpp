// Tests of per-file missing-name inference (corpus/preprocess/names.h) and
// its use by rewrite() and rewrite_kernels(), and the OpenCL C 2.0 fallback.
#include <cstring>

#include <gtest/gtest.h>

#include "corpus/preprocess/names.h"
#include "corpus/preprocess/preprocess.h"

namespace clgen::preprocess {
namespace {

TEST(Definable, TypesAndQualifiersAnySpellingValuesOnlyMacroStyle) {
  EXPECT_TRUE(definable("real_t", NameUse::kType));
  EXPECT_TRUE(definable("KERNEL_FQ", NameUse::kQualifier));
  EXPECT_TRUE(definable("WIDTH", NameUse::kValue));
  EXPECT_TRUE(definable("TILE_2D", NameUse::kArraySize));
  // A lower-case value is a variable the input forgot: `#define n 64` would change code.
  EXPECT_FALSE(definable("n", NameUse::kValue));
  EXPECT_FALSE(definable("Width", NameUse::kArraySize));
  EXPECT_FALSE(definable("MUL", NameUse::kFunctionMacro));
  EXPECT_FALSE(definable("convert_x", NameUse::kFunctionMacro));
}

TEST(ProposeDefinition, IntegerAliasesByWidthAndFloatOtherwise) {
  EXPECT_EQ(propose_definition("u32", NameUse::kType, 0), "#define u32 uint");
  EXPECT_EQ(propose_definition("s64", NameUse::kType, 0), "#define s64 long");
  // After a library prefix too (sgminer's sph_u32); `_t` is no prefix.
  EXPECT_EQ(propose_definition("sph_u32", NameUse::kType, 0), "#define sph_u32 uint");
  EXPECT_EQ(propose_definition("sph_s64", NameUse::kType, 0), "#define sph_s64 long");
  EXPECT_EQ(propose_definition("uint32_t", NameUse::kType, 0), "#define uint32_t uint");
  EXPECT_EQ(propose_definition("DATA_TYPE", NameUse::kType, 0), "#define DATA_TYPE float");
  EXPECT_EQ(propose_definition("INDEX_T", NameUse::kType, 0), "#define INDEX_T int");
  EXPECT_EQ(propose_definition("BLOCK", NameUse::kArraySize, 0), "#define BLOCK 64");
  EXPECT_EQ(propose_definition("KERNEL_FQ", NameUse::kQualifier, 0), "#define KERNEL_FQ __kernel");
}

// A host-configured kernel: the element type and the tile size come from -D flags.
constexpr const char* kHostConfigured =
    "__kernel void scale(__global DATA_T* x, const int n) {\n"
    "  __local DATA_T tile[TILE];\n"
    "  int i = get_global_id(0);\n"
    "  tile[get_local_id(0)] = x[i];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (i < n) x[i] = tile[get_local_id(0)] * FACTOR;\n"
    "}\n";

TEST(InferMissingNames, DefinesTypesAndConstantsUntilTheInputCompiles) {
  ASSERT_FALSE(compile(kHostConfigured).ok);
  auto names = infer_missing_names(kHostConfigured, CompileOptions{});
  ASSERT_TRUE(names.ok()) << names.status().message();
  EXPECT_EQ(names->names, (std::vector<std::string>{"DATA_T", "TILE", "FACTOR"}));
  EXPECT_EQ(names->prelude, "#define DATA_T float\n#define TILE 64\n#define FACTOR 64\n");
  EXPECT_TRUE(compile(names->prelude + kHostConfigured).ok);
}

TEST(ProposeDefinition, AConversionMacroConvertsToItsTypesProposal) {
  EXPECT_TRUE(definable("CONVERT_COMPUTE_FLOAT4", NameUse::kFunctionMacro));
  EXPECT_EQ(propose_definition("CONVERT_COMPUTE_FLOAT4", NameUse::kFunctionMacro, 1),
            "#define CONVERT_COMPUTE_FLOAT4(a) convert_float4(a)");
  EXPECT_EQ(propose_definition("CONVERT_INT_T", NameUse::kFunctionMacro, 1), "#define CONVERT_INT_T(a) convert_int(a)");
  // Two arguments are no conversion: the generic form.
  EXPECT_EQ(propose_definition("CONVERT_T", NameUse::kFunctionMacro, 2), "#define CONVERT_T(a, b) (a)");
}

TEST(InferMissingNames, DefinesAHostConversionMacroBesideItsType) {
  // MNN's host supplies COMPUTE_FLOAT4 and its conversion; an int4 does not
  // convert to float4 implicitly, so the macro must be convert_float4.
  const char* text =
      "__kernel void f(__global const int4* in, __global float4* out) {\n"
      "  int i = get_global_id(0);\n"
      "  COMPUTE_FLOAT4 v = CONVERT_COMPUTE_FLOAT4(in[i]);\n"
      "  out[i] = v;\n"
      "}\n";
  auto names = infer_missing_names(text, CompileOptions{});
  ASSERT_TRUE(names.ok()) << names.status().message();
  EXPECT_NE(names->prelude.find("#define CONVERT_COMPUTE_FLOAT4(a) convert_float4(a)\n"), std::string::npos)
      << names->prelude;
  EXPECT_TRUE(compile(names->prelude + text).ok);
}

// rewrite_kernels checks a failing input with inference's options and hands
// that compile to infer_missing_names as its first round.
TEST(InferMissingNames, ACallersFirstRoundGivesTheSameResultAsCompilingIt) {
  const CompileResult first = compile(kHostConfigured, inference_check_options(CompileOptions{}));
  ASSERT_FALSE(first.ok);
  auto given = infer_missing_names(kHostConfigured, CompileOptions{}, 8, &first);
  auto own = infer_missing_names(kHostConfigured, CompileOptions{});
  ASSERT_TRUE(given.ok() && own.ok());
  EXPECT_EQ(given->prelude, own->prelude);
  EXPECT_EQ(given->names, own->names);
  EXPECT_EQ(given->rounds, own->rounds);
}

TEST(InferMissingNames, ACallersFirstRoundIsNotCompiledAgain) {
  // A first round said to compile ends inference at once, though the text does not.
  CompileResult compiles;
  compiles.ok = true;
  auto names = infer_missing_names(kHostConfigured, CompileOptions{}, 8, &compiles);
  ASSERT_TRUE(names.ok()) << names.status().message();
  EXPECT_EQ(names->rounds, 1);
  EXPECT_TRUE(names->prelude.empty());
}

// The check of a failing input takes its category and reason from the first
// error, whatever the error limit: a check at inference's limit can stand for the check at 1.
TEST(InferMissingNames, TheFirstErrorIsTheSameAtEveryErrorLimit) {
  CompileOptions one;
  one.check_only = true;
  const CompileResult at_one = compile(kHostConfigured, one);
  const CompileResult at_fifty = compile(kHostConfigured, inference_check_options(one));
  ASSERT_FALSE(at_one.ok);
  ASSERT_FALSE(at_fifty.ok);
  EXPECT_EQ(at_one.category, at_fifty.category);
  EXPECT_EQ(at_one.reason, at_fifty.reason);
  EXPECT_EQ(at_one.errors.size(), 1u);
  EXPECT_GT(at_fifty.errors.size(), 1u);  // DATA_T, TILE and FACTOR are all missing
}

TEST(InferMissingNames, RefusesALowerCaseVariableTheInputForgot) {
  const char* text = "__kernel void f(__global float* x) { x[get_global_id(0)] = scale * 2.0f; }\n";
  auto names = infer_missing_names(text, CompileOptions{});
  ASSERT_FALSE(names.ok());
  EXPECT_NE(names.status().message().find("'scale'"), std::string::npos) << names.status().message();
}

TEST(InferMissingNames, DefinesAWorkGroupSizeOfAnySpellingAsAConstant) {
  // QSVEnc's host passes `-D pmd_block_x=32`: inside reqd_work_group_size
  // no variable can stand, so a lower-case name there is a host constant.
  const char* text =
      "__kernel __attribute__((reqd_work_group_size(pmd_block_x, pmd_block_y, 1)))\n"
      "void f(__global float* x) { x[get_global_id(0)] = 2.0f; }\n";
  const char* name = std::strstr(text, "pmd_block_y");
  EXPECT_EQ(classify_use(text, name - text, "pmd_block_y", false, nullptr), NameUse::kWorkGroupSize);
  EXPECT_EQ(classify_use("int a = b, c;", 8, "b", false, nullptr), NameUse::kValue);  // not in an attribute
  auto names = infer_missing_names(text, CompileOptions{});
  ASSERT_TRUE(names.ok()) << names.status().message();
  EXPECT_EQ(names->prelude, "#define pmd_block_x 16\n#define pmd_block_y 16\n");
  EXPECT_TRUE(compile(names->prelude + text).ok);
}

TEST(InferMissingNames, FailsWhenAnErrorOtherThanAMissingNameRemains) {
  // WIDTH is definable, but the call of an undeclared function is not.
  const char* text =
      "__kernel void f(__global float* x) { x[get_global_id(0)] = helper(x[0]) + WIDTH; }\n";
  auto names = infer_missing_names(text, CompileOptions{});
  ASSERT_FALSE(names.ok());
}

TEST(RewriteKernels, RescuesAFileThroughInferredNamesAndRecordsThem) {
  FileRewriteResult r = rewrite_kernels(kHostConfigured);
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.category << " " << r.reason;
  EXPECT_EQ(r.inferred, "#define DATA_T float\n#define TILE 64\n#define FACTOR 64\n");
  ASSERT_EQ(r.kernels.size(), 1u);
  const RewriteResult& k = r.kernels[0];
  ASSERT_EQ(k.status, RewriteStatus::kOk) << k.category << " " << k.reason;
  EXPECT_EQ(k.inferred, r.inferred);
  // The normalized text is expanded: it names none of the inferred macros and compiles alone.
  for (const char* name : {"DATA_T", "TILE", "FACTOR"}) {
    EXPECT_EQ(k.text.find(name), std::string::npos) << name << " in\n" << k.text;
  }
  EXPECT_NE(k.text.find("__local float c[64];"), std::string::npos) << k.text;
  CompileOptions plain;
  plain.shim = false;
  plain.infer_names = false;
  EXPECT_TRUE(compile(k.text, plain).ok);
}

TEST(RewriteKernels, AByteOrderMarkDoesNotStopInference) {
  // Inference puts its definitions before the text, where a byte-order mark
  // would be an unexpected character (QSVEnc's files start with one).
  FileRewriteResult r =
      rewrite_kernels("\xEF\xBB\xBF__kernel void f(__global float* x) { x[get_global_id(0)] = FACTOR * 2.0f; }\n");
  EXPECT_EQ(r.status, RewriteStatus::kOk) << r.category << " " << r.reason;
  EXPECT_EQ(r.inferred, "#define FACTOR 64\n");
}

TEST(RewriteKernels, WithoutInferenceTheFileIsRejectedForItsFirstMissingName) {
  CompileOptions o;
  o.infer_names = false;
  FileRewriteResult r = rewrite_kernels(kHostConfigured, o);
  EXPECT_EQ(r.status, RewriteStatus::kRejected);
  EXPECT_EQ(r.category, category::kUnknownTypeName);
  EXPECT_TRUE(r.inferred.empty());
  EXPECT_NE(r.reason.find("DATA_T"), std::string::npos) << r.reason;
}

TEST(Rewrite, AFileThatCompilesInfersNothing) {
  const char* text = "__kernel void f(__global float* x) { x[get_global_id(0)] *= 2.0f; }\n";
  RewriteResult r = rewrite(text);
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.reason;
  EXPECT_TRUE(r.inferred.empty());
}

TEST(ProposeDefinition, ATypeNamedWithAVectorWidthIsAVectorOfItsPrefixsType) {
  // Integer aliases keep their width (u16); other numbers are no vector widths.
  const std::pair<const char*, const char*> cases[] = {
      {"T4", "float4"}, {"INDEX_T2", "int2"}, {"u16", "ushort"}, {"T5", "float"}, {"T32", "float"}};
  for (const auto& [name, type] : cases) {
    EXPECT_EQ(propose_definition(name, NameUse::kType, 0), std::string("#define ") + name + " " + type);
  }
}

TEST(PreprocessorVersion, NamesWhetherMissingNamesAreInferred) {
  CompileOptions with, without;
  without.infer_names = false;
  EXPECT_NE(preprocessor_version(with), preprocessor_version(without));
  EXPECT_NE(preprocessor_version(with).find("-infer"), std::string::npos);
}


// The OpenCL C 2.0 fallback sits beside the inference: the two ways a rejected
// input gets a second chance.

constexpr const char* kOpenCl20 =
    "__kernel void count(__global atomic_int* total, __global const int* x) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  atomic_fetch_add_explicit(total, x[i], memory_order_relaxed);\n"
    "}\n";

TEST(OpenCl20Fallback, AKernelUsingOpenCl20AtomicsIsAcceptedAsOpenCl20) {
  EXPECT_FALSE(compile(kOpenCl20).ok);  // not OpenCL C 1.2
  CompileOptions cl20;
  cl20.opencl20 = true;
  EXPECT_TRUE(compile(kOpenCl20, cl20).ok);
  FileRewriteResult r = rewrite_kernels(kOpenCl20);
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.category << " " << r.reason;
  EXPECT_TRUE(r.opencl20);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].status, RewriteStatus::kOk) << r.kernels[0].reason;
  EXPECT_TRUE(r.kernels[0].opencl20);
  // The normalized kernel compiles alone as OpenCL C 2.0.
  EXPECT_TRUE(compile(r.kernels[0].text, cl20).ok) << r.kernels[0].text;
}

TEST(OpenCl20Fallback, OffKeepsTheOpenCl12Rejection) {
  CompileOptions o;
  o.opencl20_fallback = false;
  FileRewriteResult r = rewrite_kernels(kOpenCl20, o);
  EXPECT_EQ(r.status, RewriteStatus::kRejected);
  EXPECT_FALSE(r.opencl20);
  EXPECT_NE(preprocessor_version(o), preprocessor_version(CompileOptions{}));
}

TEST(OpenCl20Fallback, AnOpenCl12KernelStaysOpenCl12) {
  RewriteResult r = rewrite("__kernel void f(__global float* x) { x[get_global_id(0)] *= 2.0f; }\n");
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.reason;
  EXPECT_FALSE(r.opencl20);
}

TEST(OpenCl20Fallback, HalfPrecisionArithmeticNeedsTheFallback) {
  const char* text =
      "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
      "__kernel void h(__global half* a) { size_t i = get_global_id(0); a[i] = a[i] * (half)2; }\n";
  EXPECT_FALSE(compile(text).ok);
  RewriteResult r = rewrite(text);
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.category << " " << r.reason;
  EXPECT_TRUE(r.opencl20);
}

}  // namespace
}  // namespace clgen::preprocess
