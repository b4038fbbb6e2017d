// Golden tests of the static Grewe features on hand-written kernels; every
// expected count is derived by hand in the comments beside the code.
#include <gtest/gtest.h>

#include "features/static_features.h"

namespace clgen::features {
namespace {

StaticFeatures only_kernel(const std::string& source) {
  auto rows = extract_static_features(source, "test.cl");
  EXPECT_TRUE(rows.ok()) << rows.status().message();
  if (!rows.ok() || rows->size() != 1) {
    ADD_FAILURE() << "expected one kernel";
    return {};
  }
  return rows->front();
}

void expect_counts(const StaticFeatures& f, long comp, long rational, long mem, long localmem,
                   long coalesced, long atomic) {
  EXPECT_EQ(f.comp, comp) << f.kernel;
  EXPECT_EQ(f.rational, rational) << f.kernel;
  EXPECT_EQ(f.mem, mem) << f.kernel;
  EXPECT_EQ(f.localmem, localmem) << f.kernel;
  EXPECT_EQ(f.coalesced, coalesced) << f.kernel;
  EXPECT_EQ(f.atomic, atomic) << f.kernel;
}

TEST(StaticFeatures, CountsAVectorAdd) {
  auto f = only_kernel(R"(
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, const int n) {
  int i = get_global_id(0);
  if (i < n) {          // rational 1
    c[i] = a[i] + b[i]; // comp 1; mem 3; coalesced 3 (plain-variable index)
  }
})");
  EXPECT_EQ(f.kernel, "vadd");
  EXPECT_EQ(f.file, "test.cl");
  expect_counts(f, 1, 1, 3, 0, 3, 0);
}

TEST(StaticFeatures, CountsLocalMemoryAtomicsTranscendentalsAndHelperCalls) {
  auto f = only_kernel(R"(
float scale(float x, float k) {
  return exp(x) * k;                 // comp 15 + 1 = 16, added at each call
}
__kernel void reduce(__global float* in, __global int* count, __local float* tile, const int n) {
  int lid = get_local_id(0);
  int gid = get_global_id(0);
  __local float cache[64];
  tile[lid] = in[gid];               // localmem 1; mem 1; coalesced 1
  cache[lid] = in[gid * 2];          // localmem 1; mem 1; comp 1; not coalesced (* 2)
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 1; s < n; s <<= 1) {  // rational 1; comp 1 (<<=)
    if (lid % (2 * s) == 0)          // comp 2; rational 1
      tile[lid] += tile[lid + s];    // localmem 2; comp 1 (+ in the index; += is not counted)
  }
  if (lid == 0) {                    // rational 1
    in[gid + 1] = scale(tile[0], sqrt(cache[1]));  // mem 1; coalesced 1; comp 1 + 15 + 16; localmem 2
    atomic_inc(count);               // mem 1; atomic 1
  }
})");
  // comp 1+1+2+1+1+15+16 = 37; rational 3; mem 4; localmem 6; coalesced 2; atomic 1.
  expect_counts(f, 37, 3, 4, 6, 2, 1);
}

TEST(StaticFeatures, HelperFunctionsAddTheirMemoryCountsAndKernelsKeepSourceOrder) {
  auto rows = extract_static_features(R"(
void store(__global float* p, int i, float v) {
  p[i] = v;                          // mem 1; coalesced 1 (added at the call)
}
__kernel void second(__global float* out, __global const float* in) {
  int i = get_global_id(0);
  float v = in[i * 4] - in[i + 2];   // mem 2; comp 3; neither index is coalesced
  store(out, i, log(v) / 2.0f);      // mem 1; comp 1 + 15; callee mem 1, coalesced 1
  out[0] = (v >= 0.0f) ? 1.0f : 0.0f; // mem 1; coalesced 1 (literal); rational 1
  out[i * 1] = v;                    // mem 1; comp 1; coalesced 1 (* 1)
}
__kernel void first(__global int* x) {
  x[get_global_id(0)] = 7 << 2;      // mem 1; comp 1; a call index is not coalesced
}
)", "two.cl");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].kernel, "second");
  expect_counts((*rows)[0], 20, 1, 6, 0, 3, 0);
  EXPECT_EQ((*rows)[1].kernel, "first");
  expect_counts((*rows)[1], 1, 0, 1, 0, 0, 0);
}

TEST(StaticFeatures, CompoundAssignmentsCountOnlyTheShiftOnesAsCompute) {
  auto f = only_kernel(R"(
__kernel void compound(__global float* a, __global const float* b, const int n) {
  int i = get_global_id(0);
  a[i] += b[i];      // mem 2; coalesced 2; += is not comp
  a[i + 1] -= 2.0f;  // mem 1; coalesced 1 (+ with literal 1); comp 1 (the index's +); -= is not comp
  a[i] *= b[i * 2];  // mem 2; coalesced 1 (a[i]; i * 2 is not); comp 1 (the index's *); *= is not comp
  int s = n;
  s <<= 1;           // comp 1 (<<= counts)
  s >>= 2;           // comp 1 (>>= counts)
  s |= 3;            // |= is not comp
  s++;               // unary: not comp
  a[s] = (float)s;   // mem 1; coalesced 1
})");
  // comp 1+1+1+1 = 4; rational 0; mem 2+1+2+1 = 6; coalesced 2+1+1+1 = 5.
  expect_counts(f, 4, 0, 6, 0, 5, 0);
}

TEST(StaticFeatures, VectorOperatorsCountOnceAndVloadVstoreAreReferencesNotSubscripts) {
  auto f = only_kernel(R"(
__kernel void vec(__global const float4* a, __global float4* out, __global const float* f,
                  __global float* g, const int n) {
  int i = get_global_id(0);
  float4 x = a[i] * 2.0f + a[i + 1];  // mem 2; coalesced 2; comp 3 (float4 * and +, one each; i + 1)
  float4 y = vload4(i, f);            // mem 1 (f); a call, not a subscript: not coalesced
  vstore4(x - y, i, g);               // mem 1 (g); comp 1 (float4 -)
  out[i] = (float4)(x.x, y.y, dot(x, y), 1.0f);  // mem 1; coalesced 1; swizzles and dot count nothing
  if (x.x > y.w) out[n] = sqrt(x);    // rational 1; mem 1; coalesced 1; sqrt of a float4 counts 15
})");
  // comp 3+1+15 = 19; rational 1; mem 2+1+1+1+1 = 6; coalesced 2+1+1 = 4.
  expect_counts(f, 19, 1, 6, 0, 4, 0);
}

TEST(StaticFeatures, PointerAliasesOfGlobalArgumentsAreNotMemoryAccesses) {
  auto f = only_kernel(R"(
__kernel void alias(__global float* a, __global const float* b, const int n) {
  int i = get_global_id(0);
  __global float* p = a + i;        // mem 1 (a); comp 1
  __global const float* q = &b[i];  // mem 1 (b); coalesced 1 (a subscript of a parameter)
  *p = *q * 2.0f;                   // comp 1 (binary *; the dereferences are not counted); p, q are not parameters
  p[1] = q[0];                      // subscripts of aliases: neither mem nor coalesced
  for (__global float* r = a; r < a + n; ++r)  // mem 2 (a twice); rational 1; comp 1
    *r += 1.0f;                     // += is not comp
})");
  // comp 1+1+1 = 3; rational 1; mem 1+1+2 = 4; coalesced 1 (before 2026-11-24 alias
  // subscripts counted as coalesced too: 3, not a subset of mem).
  expect_counts(f, 3, 1, 4, 0, 1, 0);
}

TEST(StaticFeatures, WithRecoveryCodeWithASemaErrorIsCountedOnTheRecoveredAst) {
  const std::string source =
      "__kernel void k(__global float* a, __global const float* b) {\n"
      "  int i = get_global_id(0);\n"
      "  float scale = undefined_scale;\n"  // the error: nothing countable in the statement
      "  a[i] = b[i] * 2.0f;\n"             // mem 2; coalesced 2; comp 1
      "  if (i < 4) a[0] = 1.0f;\n"         // rational 1; mem 1; coalesced 1
      "}\n";
  FeatureOptions recover;
  recover.recover_from_errors = true;
  auto rows = extract_static_features(source, "sema.cl", recover);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 1u);
  const StaticFeatures& f = rows->front();
  EXPECT_TRUE(f.sema_errors);
  // Line 3, column 17: where `undefined_scale` starts.
  EXPECT_EQ(f.first_error.rfind("3:17: ", 0), 0u) << f.first_error;
  EXPECT_NE(f.first_error.find("undefined_scale"), std::string::npos) << f.first_error;
  expect_counts(f, 1, 1, 3, 0, 3, 0);
  // Without recovery the same code is an error, as before.
  auto strict = extract_static_features(source, "sema.cl");
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), ErrorCode::kParse);
}

TEST(StaticFeatures, WithRecoveryCodeThatCompilesIsNotFlagged) {
  FeatureOptions recover;
  recover.recover_from_errors = true;
  auto rows = extract_static_features("__kernel void k(__global int* a) { a[0] = 1; }", "ok.cl", recover);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_FALSE(rows->front().sema_errors);
  EXPECT_EQ(rows->front().first_error, "");
}

TEST(StaticFeatures, WithRecoveryAFileWhoseKernelDoesNotSurviveStillFails) {
  FeatureOptions recover;
  recover.recover_from_errors = true;
  auto rows = extract_static_features("__kernel void c(", "cut.cl", recover);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().code(), ErrorCode::kParse);
  EXPECT_NE(rows.status().message().find("cut.cl"), std::string::npos) << rows.status().message();
}

TEST(StaticFeatures, CompileErrorsAreParseErrorsWithALocation) {
  auto rows = extract_static_features("__kernel void k(__global float* a) { a[0] = undefined_name; }",
                                      "bad.cl");
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().code(), ErrorCode::kParse);
  EXPECT_NE(rows.status().message().find("bad.cl"), std::string::npos) << rows.status().message();
  EXPECT_NE(rows.status().message().find("undefined_name"), std::string::npos) << rows.status().message();
}

TEST(StaticFeatures, IncludesCannotReadFilesFromDisk) {
  // Untrusted code: the parse sees only the kernel and Clang's OpenCL header.
  auto rows = extract_static_features("#include \"/etc/hostname\"\n__kernel void k() {}", "inc.cl");
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("/etc/hostname"), std::string::npos) << rows.status().message();
  EXPECT_NE(rows.status().message().find("not found"), std::string::npos) << rows.status().message();
}

TEST(StaticFeatures, AFileWithoutKernelsIsAnError) {
  auto rows = extract_static_features("float f(float x) { return x * 2.0f; }", "nokernel.cl");
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("no __kernel"), std::string::npos);
}

TEST(StaticFeatures, CsvRowFollowsTheHeader) {
  StaticFeatures f{"dir/a,b.cl", "k", 1, 2, 3, 4, 5, 6, false, ""};
  EXPECT_EQ(static_features_csv_header(), "file,kernel,comp,rational,mem,localmem,coalesced,atomic");
  EXPECT_EQ(static_features_csv_row(f), "\"dir/a,b.cl\",k,1,2,3,4,5,6");
  EXPECT_EQ(sema_errors_csv_header(), "sema_errors,first_error");
  EXPECT_EQ(sema_errors_csv_values(f), "0,");
  f.sema_errors = true;
  f.first_error = "3:5: expected ';', got '}'";  // a comma: the field is quoted
  EXPECT_EQ(sema_errors_csv_values(f), "1,\"3:5: expected ';', got '}'\"");
}

}  // namespace
}  // namespace clgen::features
