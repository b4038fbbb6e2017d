// The static usefulness check: kernels it must keep (each writes output that
// depends on its input for some work-item) and kernels it must reject, one
// per category, with the reason it gives.
#include <gtest/gtest.h>

#include "corpus/preprocess/usefulness.h"

namespace clgen::preprocess {
namespace {

UsefulnessVerdict verdict(const std::string& text) {
  auto v = check_usefulness(text);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? *v : UsefulnessVerdict{};
}

void expect_useful(const std::string& text) {
  UsefulnessVerdict v = verdict(text);
  EXPECT_TRUE(v.useful) << v.category << ": " << v.reason << "\n" << text;
}

void expect_useless(const std::string& text, const std::string& category) {
  UsefulnessVerdict v = verdict(text);
  EXPECT_FALSE(v.useful) << text;
  EXPECT_EQ(v.category, category) << v.reason << "\n" << text;
}

TEST(UsefulnessTest, KeepsAStoreIndexedByTheGlobalId) {
  expect_useful(
      "kernel void A(global float* a, global const float* b) {\n"
      "  a[get_global_id(0)] = b[get_global_id(0)] * 2.0f;\n}\n");
}

TEST(UsefulnessTest, KeepsAStoreThatDependsOnTheIdOnlyThroughALocalVariable) {
  expect_useful(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n  int d = c * 2 + 1;\n  a[d / 2] = b[c] + 1;\n}\n");
}

TEST(UsefulnessTest, KeepsAStoreIndexedByALoopVariable) {
  expect_useful(
      "kernel void A(global float* a, global const float* b, const int c) {\n"
      "  for (int d = 0; d < c; d++) {\n    a[d] = b[d] + 1.0f;\n  }\n}\n");
}

TEST(UsefulnessTest, KeepsAGroupResultWrittenByItsFirstWorkItemThroughLocalMemory) {
  expect_useful(
      "kernel void A(global float* a, global const float* b, local float* c) {\n"
      "  int d = get_local_id(0);\n  c[d] = b[get_global_id(0)];\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  if (d == 0) {\n    float e = 0;\n    for (int f = 0; f < get_local_size(0); f++) e += c[f];\n"
      "    a[get_group_id(0)] = e;\n  }\n}\n");
}

TEST(UsefulnessTest, KeepsASingleWriterGuardedByTheGlobalId) {
  // Only work-item 0 writes a[0]: one location, but not from every work-item.
  expect_useful(
      "kernel void A(global float* a, global const float* b) {\n"
      "  if (get_global_id(0) == 0) a[0] = b[0] + b[1];\n}\n");
}

TEST(UsefulnessTest, KeepsASingleWriterAfterAnEarlyReturnOfTheOthers) {
  expect_useful(
      "kernel void A(global float* a, global const float* b) {\n"
      "  if (get_global_id(0) != 0) return;\n  a[0] = b[0] + b[1];\n}\n");
}

TEST(UsefulnessTest, KeepsAnAtomicCounterAtOneAddress) {
  expect_useful(
      "kernel void A(global int* a, global const int* b) {\n"
      "  if (b[get_global_id(0)] > 0) atomic_inc(&a[0]);\n}\n");
}

TEST(UsefulnessTest, KeepsAStoreAtASlotAnAtomicHandedOut) {
  expect_useful(
      "kernel void A(global int* a, global int* b, global const int* c) {\n"
      "  int d = atomic_inc(&b[0]);\n  a[d] = c[0];\n}\n");
}

TEST(UsefulnessTest, KeepsAVectorStoreAtAnIdDependentOffset) {
  expect_useful(
      "kernel void A(global float* a, global const float* b) {\n"
      "  int c = get_global_id(0);\n  vstore4(vload4(c, b) * 2.0f, c, a);\n}\n");
}

TEST(UsefulnessTest, KeepsAKernelThatHandsItsOutputToAFunctionOfTheProgram) {
  // The callee's stores are not followed: the check cannot prove it useless.
  expect_useful(
      "void B(global float* a, int b) { a[b] = 1.0f; }\n"
      "kernel void A(global float* a) {\n  B(a, 0);\n}\n");
}

TEST(UsefulnessTest, KeepsAKernelThatWritesAnImage) {
  expect_useful(
      "kernel void A(write_only image2d_t a) {\n"
      "  write_imagef(a, (int2)(get_global_id(0), get_global_id(1)), (float4)(1.0f));\n}\n");
}

TEST(UsefulnessTest, RejectsAKernelThatWritesOnlyLocalMemory) {
  expect_useless(
      "kernel void A(global const float* a, local float* b) {\n"
      "  b[get_local_id(0)] = a[get_global_id(0)];\n}\n",
      "no_global_store");
}

TEST(UsefulnessTest, RejectsAStoreIndexedByAScalarArgumentOnly) {
  // The example: every work-item writes c[d], and d is the payload's
  // global size, outside the buffer.
  expect_useless(
      "kernel void A(global float* a, global float* b, global float* c, const int d) {\n"
      "  c[d] = a[d] + b[d];\n}\n",
      "uniform_store_address");
}

TEST(UsefulnessTest, RejectsARaceOfDifferentValuesAtOneLocation) {
  // Every work-item writes its own value to a[0]: the last writer wins.
  expect_useless(
      "kernel void A(global float* a, global const float* b) {\n"
      "  int c = get_global_id(0);\n  a[0] = b[c];\n}\n",
      "uniform_store_address");
}

TEST(UsefulnessTest, KeepsEveryWorkItemWritingTheSameValueToOneLocation) {
  // Compiler test suites do this (with reqd_work_group_size(1, 1, 1)); it is
  // deterministic, and passes the dynamic checker on the H100.
  expect_useful("kernel void A(global float4* a, global float4* b) {\n  *a = atan(*b);\n}\n");
}

TEST(UsefulnessTest, KeepsAnAccumulationIntoOneElementItCannotProveRacy) {
  // A read-modify-write at one location is left to the dynamic checker.
  expect_useful(
      "kernel void A(global float* a, global const float* b, const int c) {\n"
      "  for (int d = 0; d < c; d++) a[0] += b[d];\n}\n");
}

TEST(UsefulnessTest, KeepsConstantsChosenByAnInputDependentBranch) {
  // Control dependence: the stored 0 or 1 depends on the input (a cellular
  // automaton from the GitHub snapshot, reduced).
  expect_useful(
      "kernel void A(global const char* a, global char* b) {\n"
      "  int c = get_global_id(0);\n  int d = 0;\n"
      "  if (a[c] == 1) d++;\n  if (a[c + 1] == 1) d++;\n"
      "  if (d == 2) b[c] = 1; else b[c] = 0;\n}\n");
}

TEST(UsefulnessTest, KeepsAConstantStoredAfterAnInputDependentEarlyReturn) {
  expect_useful(
      "kernel void A(global const float* a, global float* b) {\n"
      "  int c = get_global_id(0);\n  if (a[c] < 0.0f) return;\n  b[c] = 1.0f;\n}\n");
}

TEST(UsefulnessTest, RejectsStoresOfConstantsAndIntegerScalarArguments) {
  // Integer scalars are the global size in both payloads: not an input.
  expect_useless(
      "kernel void A(global int* a, const int b) {\n"
      "  int c = get_global_id(0);\n  int d = b * 2;\n  a[c] = d + 1;\n}\n",
      "constant_store_value");
}

TEST(UsefulnessTest, FloatingPointScalarArgumentsAreInputs) {
  // The payload draws them at random: `*a = fmod(b, c)` passes on the H100.
  expect_useful("kernel void A(global float* a, float b, float c) {\n  *a = fmod(b, c);\n}\n");
  expect_useful("kernel void A(global float4* a, float4 b) {\n  a[get_global_id(0)] = b;\n}\n");
}

TEST(UsefulnessTest, AStoreToOneElementOfAVectorInMemoryCounts) {
  expect_useful(
      "kernel void A(global int4* a, global int4* b) {\n"
      "  size_t c = get_global_id(0);\n  b[c] = (4, 4, 4, 4);\n  b[c][2] = a[c][0];\n}\n");
}

TEST(UsefulnessTest, KeepsAGlobalPointerHandedToAFunctionInsideAStruct) {
  expect_useful(
      "struct T { global int* p; };\nvoid A(struct T* a) { *a->p = 42; }\n"
      "kernel void B(global int* b) {\n  struct T c;\n  c.p = b;\n  A(&c);\n}\n");
}

TEST(UsefulnessTest, AValueThatMayDifferPerWorkItemIsNoProvenRace) {
  // A helper's result and a private variable's address are the same for
  // every work-item here; only a work-item id makes a race certain.
  expect_useful(
      "int A(int a, int b) { return a + b; }\n"
      "kernel void B(global int* a) {\n  a[0] = A(a[1], a[2]);\n}\n");
  expect_useful(
      "kernel void A(global float* a, global float* b, float c) {\n"
      "  float d;\n  *a = fract(c, &d);\n  *b = d;\n}\n");
}

TEST(UsefulnessTest, ReadsFromLocalMemoryMakeTheStoredValueDependent) {
  expect_useful(
      "kernel void A(global float* a, local float* b) {\n"
      "  int c = get_local_id(0);\n  a[get_global_id(0)] = b[c];\n}\n");
}

TEST(UsefulnessTest, AKernelIsKeptWhenAnotherKernelOfTheFileIsUseful) {
  expect_useful(
      "kernel void A(global float* a, const int b) { a[b] = 0.0f; }\n"
      "kernel void B(global float* a) { a[get_global_id(0)] += 1.0f; }\n");
}

TEST(UsefulnessTest, RejectsAKernelThatOnlyCopiesLocationsOntoThemselves) {
  expect_useless(
      "kernel void A(global int* a, global float4* b) {\n"
      "  int c = get_global_id(0);\n  a[c] = a[c];\n  b[c].x = b[c].x;\n}\n",
      "no_effective_store");
}

TEST(UsefulnessTest, RejectsAKernelWhoseStoresCannotBeReached) {
  expect_useless(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n"
      "  if (c < c) a[c] = b[c];\n"
      "  if (b[c] > 0 && c > c) a[c + 1] = b[c];\n"
      "  for (int i = 0; i != i; i++) a[i] = b[i];\n}\n",
      "no_effective_store");
}

TEST(UsefulnessTest, KeepsAStoreInTheElseBranchOfAnAlwaysFalseCondition) {
  expect_useful(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n  if (c < c) a[c] = 0; else a[c] = b[c];\n}\n");
}

TEST(UsefulnessTest, KeepsAStoreUnderASelfComparisonThatNaNsMakeTrue) {
  // x != x holds for a NaN, so only integer self-inequality is always false.
  expect_useful(
      "kernel void A(global float* a, global const float* b) {\n"
      "  int c = get_global_id(0);\n  float d = b[c];\n  if (d != d) a[c] = 1.0f;\n}\n");
}

TEST(UsefulnessTest, RejectsAKernelThatReturnsBeforeEveryStore) {
  // `c >= c` and `c == c` hold for integers, so nothing after the return runs.
  expect_useless(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n  if (c >= c) return;\n  a[c] = b[c];\n}\n",
      "no_effective_store");
  expect_useless(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n"
      "  if (c < 4 || c == c) {\n    return;\n  }\n  a[c] = b[c];\n}\n",
      "no_effective_store");
  expect_useless(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n  if (c == c) return; else a[c] = b[c];\n}\n",
      "no_effective_store");
  expect_useless(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n  for (int i = 0; i < 8; i++) {\n"
      "    if (c <= c) { return; }\n    a[c + i] = b[c];\n  }\n}\n",
      "no_effective_store");
}

TEST(UsefulnessTest, KeepsStoresThatAReturnMaySkipOrAJumpMayReach) {
  // A return under a condition that may be false; a case label after a
  // return; the else of an always-false condition.
  expect_useful(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n  if (c >= 4) return;\n  a[c] = b[c];\n}\n");
  expect_useful(
      "kernel void A(global int* a, global const int* b, int n) {\n"
      "  int c = get_global_id(0);\n"
      "  switch (n) {\n    case 0:\n      c++;\n      return;\n    case 1:\n      a[c] = b[c];\n  }\n}\n");
  // A goto into a block that returns, into the other branch of an if that
  // returns, and into the else of an always-true condition.
  expect_useful(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n  goto L;\n  {\n    return;\n  L:;\n  }\n  a[c] = b[c];\n}\n");
  expect_useful(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n  goto L;\n  if (c == c)\n    return;\n  else {\n  L:;\n  }\n"
      "  a[c] = b[c];\n}\n");
  expect_useful(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n  goto L;\n  if (c == c)\n    ;\n  else {\n  L:\n    a[c] = b[c];\n  }\n}\n");
  expect_useful(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n  if (c > c) return; else a[c] = b[c];\n}\n");
}

// The checker passes every __global pointer argument a buffer, never null.
TEST(UsefulnessTest, RejectsStoresGuardedByANullTestOfABufferArgument) {
  expect_useless(
      "kernel void A(global float* a, global const float* b) {\n"
      "  int c = get_global_id(0);\n  if (a == 0) a[c] = b[c];\n"
      "  if (0 == b && c > 2) a[c + 1] = b[c];\n  if (!a) a[c + 2] = b[c];\n}\n",
      "no_effective_store");
  expect_useless(
      "kernel void A(global float* a, global const float* b) {\n"
      "  int c = get_global_id(0);\n  if (b != 0) return;\n  a[c] = b[c];\n}\n",
      "no_effective_store");
}

TEST(UsefulnessTest, KeepsNullTestsThatThePayloadCanMakeTrue) {
  // A local pointer may sit at address 0 of local memory; an argument the
  // kernel reassigns may be null; `!a` is false, so the store after it runs.
  expect_useful(
      "kernel void A(global float* a, local float* l) {\n"
      "  int c = get_global_id(0);\n  if (l == 0) a[c] = c * 2.0f + a[c + 1];\n}\n");
  expect_useful(
      "kernel void A(global float* a, global float* b) {\n"
      "  int c = get_global_id(0);\n  if (c > 4) b = 0;\n  if (b == 0) a[c] = a[c + 1];\n}\n");
  expect_useful(
      "kernel void A(global float* a, global const float* b) {\n"
      "  int c = get_global_id(0);\n  if (!a) return;\n  a[c] = b[c];\n}\n");
  // Pointer arithmetic or an address taken may change the argument; a
  // __local array may sit at address 0 too.
  expect_useful(
      "kernel void A(global float* a, global float* b) {\n"
      "  int c = get_global_id(0);\n  b -= c;\n  if (b == 0) a[c] = a[c + 1];\n}\n");
  expect_useful(
      "kernel void A(global float* a, global float* b) {\n"
      "  int c = get_global_id(0);\n  global float** p = &b;\n  if (b == 0) a[c] = a[c + 1];\n}\n");
  expect_useful(
      "kernel void A(global float* a) {\n"
      "  local float t[16];\n  int c = get_global_id(0);\n  if (t == 0) a[c] = a[c + 1] * 2.0f;\n}\n");
}

TEST(UsefulnessTest, FoldsIntegerConstantsButNotFloatSelfComparisons) {
  // `if (0)` and `1 > 2` never hold; `d == d` and `d >= d` fail for a NaN.
  expect_useless(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n  if (0) a[c] = b[c];\n  if (1 > 2) a[c + 1] = b[c];\n}\n",
      "no_effective_store");
  expect_useful(
      "kernel void A(global float* a, global const float* b) {\n"
      "  int c = get_global_id(0);\n  float d = b[c];\n  if (d == d) return;\n  a[c] = d;\n}\n");
  expect_useful(
      "kernel void A(global float* a, global const float* b) {\n"
      "  int c = get_global_id(0);\n  float d = b[c];\n  if (d >= d) return;\n  a[c] = d;\n}\n");
}

TEST(UsefulnessTest, KeepsACopyBetweenDifferentLocations) {
  expect_useful(
      "kernel void A(global int* a) {\n"
      "  int c = get_global_id(0);\n  a[c] = a[c + 1];\n  a[c] = a[c];\n}\n");
}

// The checker's payload: S work-items in one dimension, buffers of S
// elements, 32/64-bit integer scalars equal to S (driver/payload.h).
TEST(UsefulnessTest, RejectsStoresPastTheEndOfTheirBufferForEveryWorkItem) {
  expect_useless(
      "kernel void A(global float* a, global const float* b, const int c) {\n"
      "  int d = get_global_id(0);\n  a[d + c] = b[d];\n}\n",
      "no_effective_store");
  expect_useless(
      "kernel void A(global float* a, global const float* b) {\n"
      "  int d = get_global_id(0);\n  int e = get_global_size(0);\n  a[e * e + d] = b[d];\n}\n",
      "no_effective_store");
  // A variable that only grows from S stays at least S.
  expect_useless(
      "kernel void A(global int* a, global const int* b, uint n) {\n"
      "  int d = get_global_id(0);\n  int j = n;\n"
      "  for (int i = 0; i < 4; i++) j += i;\n  j++;\n  a[j] = b[d];\n}\n",
      "no_effective_store");
}

TEST(UsefulnessTest, KeepsIndicesThatCanStayInsideTheBuffer) {
  // Subtraction, a decrement, a reassignment to an id, another dimension's
  // size, a narrow scalar and a 2-D local size have no bound of S.
  const char* bodies[] = {
      "a[c - 1 - d] = b[d];",           "int j = c; j--; a[j + d] = b[d];",
      "int j = c; j = d; a[j] = b[d];", "a[get_global_size(1) + d] = b[d];",
      "a[(d < 8) ? c : d] = b[d];",     "a[d * get_local_size(0)] = b[d];",
  };
  for (const char* body : bodies) {
    expect_useful(std::string("kernel void A(global float* a, global const float* b, const int c) {\n"
                              "  int d = get_global_id(0);\n  ") +
                  body + "\n}\n");
  }
  expect_useful(
      "kernel void A(global float* a, global const float* b, const short c) {\n"
      "  int d = get_global_id(0);\n  a[d + c] = b[d];\n}\n");
}

TEST(UsefulnessTest, RejectsAKernelThatReadsAVariableInItsOwnInitializer) {
  // Directed sampling's continuations inherit this from the kernel they
  // continue: `d` holds whatever the register held.
  expect_useless(
      "kernel void A(global uint* a, global const uint* b) {\n"
      "  uint c = get_global_id(0);\n  int d = d * (8 * d + 2) * c + 16;\n  a[c] = b[c] + d;\n}\n",
      "uninitialized_read");
}

TEST(UsefulnessTest, RejectsALoopBoundedByAVariableNothingInitializes) {
  expect_useless(
      "kernel void A(global float* a, global const float* b) {\n"
      "  int c = get_global_id(0);\n  int e;\n"
      "  for (int i = 0; i < e; i++) a[c] += b[i];\n}\n",
      "uninitialized_read");
}

TEST(UsefulnessTest, KeepsAVariableThatOnlySomePathsLeaveUninitialized) {
  // The work-items that skip the assignment may be none.
  expect_useful(
      "kernel void A(global float* a, global const float* b, int n) {\n"
      "  int c = get_global_id(0);\n  float e;\n  if (c < n) e = b[c];\n  a[c] = e;\n}\n");
  expect_useful(
      "kernel void A(global float* a, global const float* b, int n) {\n"
      "  int c = get_global_id(0);\n  float s;\n"
      "  for (int i = 0; i < n; i++) { if (i == 0) s = 0.0f; s += b[i]; }\n  a[c] = s;\n}\n");
}

TEST(UsefulnessTest, KeepsAVectorAndAStructFilledMemberByMember) {
  expect_useful(
      "kernel void A(global float4* a, global const float* b) {\n"
      "  int c = get_global_id(0);\n  float4 r;\n"
      "  r.x = b[c]; r.y = b[c] * 2.0f; r.z = 0.0f; r.w = 1.0f;\n  a[c] = r;\n}\n");
  expect_useful(
      "typedef struct { float x; int n; } P;\n"
      "kernel void A(global P* a, global const float* b) {\n"
      "  int c = get_global_id(0);\n  P p;\n  p.x = b[c]; p.n = c;\n  a[c] = p;\n}\n");
}

TEST(UsefulnessTest, RejectsALoopWhoseConditionNothingInTheLoopChanges) {
  // As sampled: neither k nor c changes in the body.
  expect_useless(
      "kernel void A(global int* a, global const int* b) {\n"
      "  int c = get_global_id(0);\n  int k = b[c];\n  int n = 0;\n"
      "  while (k < c) {\n    n += b[k];\n    if (n > 4) n = 0;\n  }\n  a[c] = n;\n}\n",
      "endless_loop");
  // The increment steps another variable than the condition reads.
  expect_useless(
      "kernel void A(global float* a, global const float* b) {\n"
      "  int f = 0;\n"
      "  for (unsigned g = 0; g < get_local_size(0); f++) a[get_global_id(0)] = b[f];\n}\n",
      "endless_loop");
  // No condition at all, and nothing leaves.
  expect_useless(
      "kernel void A(global float* a, global const float* b) {\n"
      "  int c = get_global_id(0);\n  do { a[c] = b[c]; } while (c >= 0);\n  for (;;) a[c] += 1.0f;\n}\n",
      "endless_loop");
  UsefulnessVerdict v = verdict(
      "kernel void A(global int* a) {\n  int c = get_global_id(0);\n  int k = 0;\n"
      "  while (k < c) a[c] = c;\n}\n");
  EXPECT_NE(v.reason.find("the loop at line 4 never changes what its condition reads (k, c)"), std::string::npos)
      << v.reason;
}

TEST(UsefulnessTest, KeepsLoopsThatCanEnd) {
  const char* loops[] = {
      // the body or the increment writes what the condition reads
      "for (int i = 0; i < c; i++) a[i] += b[i];",
      "int i = c; while (i > 0) { a[i] = b[i]; i /= 2; }",
      "int i = 0; while (i < 8) { if (b[i] > 0) i += 2; else ++i; a[c] += i; }",
      "float4 v = (float4)(0.0f); while (v.x < 4.0f) { v.x += b[c]; a[c] = v.x; }",
      // a way out other than the condition
      "while (1) { a[c] = b[c]; if (b[c] > 0) break; }",
      "for (;;) { a[c] = b[c]; return; }",
      // a condition that may change behind the loop's back: memory, a
      // variable written through a pointer, an atomic
      "while (b[c] > 0) a[c] = 1;",
      "int k = 0; int* p = &k; while (k < 4) { *p += 1; a[c] = k; }",
      "while (atomic_add(&a[0], 0) < 3) a[c] = 1;",
      // a condition false from the start: the loop never runs
      "while (0) a[c] = 1; a[c] = b[c];",
      "int k = c; while (k < k) a[c] = 1; a[c] = b[c];",
      // a buffer argument is never null in the checker's payload
      "while (a == 0) { } a[c] = b[c];",
      // a break in a nested loop leaves only that loop, but the outer one
      // has its own increment
      "for (int i = 0; i < 4; ++i) { for (;;) { break; } a[c] = b[i]; }",
  };
  for (const char* body : loops)
    expect_useful(std::string("kernel void A(global int* a, global const int* b) {\n  int c = get_global_id(0);\n  ") +
                  body + "\n}\n");
}

TEST(UsefulnessTest, ABreakOutOfAnInnerLoopDoesNotEndTheOuterOne) {
  expect_useless(
      "kernel void A(global int* a, global const int* b) {\n  int c = get_global_id(0);\n  int k = 0;\n"
      "  while (k < c) {\n    for (int i = 0; i < 4; i++) { if (b[i] > 0) break; }\n"
      "    switch (b[c]) { case 1: break; default: a[c] = 1; }\n  }\n}\n",
      "endless_loop");
}

TEST(UsefulnessTest, RejectsNeighbouringWorkItemsStoringToOneLocation) {
  // Work-item d writes c[d + 1], and work-item d + 1 writes c[d + 1] too.
  expect_useless(
      "kernel void A(global float* a, global const float* b, global float* c) {\n"
      "  size_t d = get_global_id(0);\n  c[d] = a[d] + b[d + 1];\n  c[d + 1] = b[d] * 2.0f;\n}\n",
      "overlapping_stores");
  expect_useless(
      "kernel void A(global int* a, global const int* b) {\n"
      "  a[get_global_id(0) - 1] = b[0];\n  a[2 + get_global_id(0)] = b[1];\n}\n",
      "overlapping_stores");
  UsefulnessVerdict v = verdict(
      "kernel void A(global int* a, global const int* b) {\n  const int d = get_global_id(0);\n"
      "  a[d + 3] = b[d];\n  a[d + 4] = b[d];\n}\n");
  EXPECT_NE(v.reason.find("stores to a[id + 3] and to a[id + 4]"), std::string::npos) << v.reason;
}

TEST(UsefulnessTest, KeepsStoresThatNeighbouringWorkItemsDoNotShare) {
  const char* bodies[] = {
      "a[d] = b[d]; a[d] = a[d] * 2;",                                // one location per work-item, twice
      "a[d] = b[d]; c[d + 1] = b[d];",                                // two buffers
      "a[d] = b[d]; if (d > 0) a[d + 1] = b[d];",                     // one of them under a condition
      "int e = d; e = e * 2; a[e] = b[d]; a[e + 1] = b[d];",          // not the id any more
      "a[get_global_id(1)] = b[d]; a[get_global_id(1) + 1] = b[d];",  // another dimension
      "if (b[d] > 0) return; a[d] = b[d]; a[d + 1] = 0;",             // not every work-item stores
  };
  for (const char* body : bodies)
    expect_useful(std::string("kernel void A(global int* a, global const int* b, global int* c) {\n"
                              "  int d = get_global_id(0);\n  ") +
                  body + "\n}\n");
}

TEST(UsefulnessTest, TextThatDoesNotParseIsAnError) {
  auto v = check_usefulness("kernel void A(global float* a) { a[0] = undeclared; }\n");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("undeclared"), std::string::npos) << v.status().message();
}

}  // namespace
}  // namespace clgen::preprocess
