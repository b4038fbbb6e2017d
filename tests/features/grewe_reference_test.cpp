// Golden tests of the reference extractor's definitions
// (GreweDefinitions::kReference), one rule each, on hand-written kernels;
// every expected count is derived by hand from the rules in docs/PREDICT.md
// ("Reference definitions") in the comments beside the code.
#include <gtest/gtest.h>

#include "features/static_features.h"

namespace clgen::features {
namespace {

Expected<std::vector<StaticFeatures>> reference(const std::string& source, bool recover = false) {
  FeatureOptions options;
  options.definitions = GreweDefinitions::kReference;
  options.recover_from_errors = recover;
  return extract_static_features(source, "ref.cl", options);
}

// The rows' function names, in order.
std::vector<std::string> row_names(const std::vector<StaticFeatures>& rows) {
  std::vector<std::string> names;
  for (const auto& r : rows) names.push_back(r.kernel);
  return names;
}

StaticFeatures row(const std::vector<StaticFeatures>& rows, const std::string& name) {
  for (const auto& r : rows)
    if (r.kernel == name) return r;
  ADD_FAILURE() << "no row " << name;
  return {};
}

// comp, rational, mem, localmem, coalesced, atomic.
GreweVector counts(const StaticFeatures& f) { return grewe_vector(f); }

TEST(GreweReference, MemCountsEveryMentionOfAGlobalParameterIncludingCallsPointerArithmeticAndHelpers) {
  auto rows = reference(R"(
void store(__global float* p, int i, float v) {
  p[i] = v;                        // mem 1 (p); coalesced 1 (a variable index)
}
__kernel void k(__global float* a, __global const float* b, const int n) {
  int i = get_global_id(0);
  __global float* q = a + i;       // mem 1 (a); comp 1
  store(a, i, b[i]);               // mem 2 (a, b); coalesced 1 (b[i]); store adds mem 1, coalesced 1
  *(a + n) = 0.0f;                 // mem 1; comp 1
  q[0] = b[n - 1];                 // mem 1 (b; q is no parameter); comp 1; coalesced 2 (q[0], b[n - 1])
  vstore4((float4)(0.0f), 0, a);   // mem 1
  for (int b = 0; b < 1; ++b) {}   // mem 2: by name, this b shadows the parameter b; rational 1
}
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  // store has a __global parameter: a row of its own, before k.
  ASSERT_EQ(row_names(*rows), (std::vector<std::string>{"store", "k"}));
  EXPECT_EQ(counts(row(*rows, "store")), (GreweVector{0, 0, 1, 0, 1, 0}));
  // k: comp 1+1+1 = 3; rational 1; mem 1+2+1+1+1+1+2 = 9; coalesced 1+1+2 = 4.
  EXPECT_EQ(counts(row(*rows, "k")), (GreweVector{3, 1, 9, 0, 4, 0}));
}

TEST(GreweReference, MemAlsoCountsLocalParametersAndLocalVariablesButNoPointerDeclaredInTheBody) {
  // The issue's example: mem s, a, l, s = 4; localmem s[i], l[i], s[i] = 3; coalesced a[i] = 1.
  auto example = reference(
      "kernel void A(__global float* a, __local float* l) { __local float s[64]; int i = get_local_id(0);\n"
      "  s[i] = a[i]; l[i] = s[i]; }\n");
  ASSERT_TRUE(example.ok()) << example.status().message();
  EXPECT_EQ(counts(example->front()), (GreweVector{0, 0, 4, 3, 1, 0}));

  auto rows = reference(R"(
void fill(__local float* t, float v) { t[0] = v; }  // mem 1 (t, a __local parameter); localmem 1; no row
__kernel void k(__global float* a, __local float* l) {
  __local float s[16];
  __local int n;
  __global float* g = a;     // mem 1 (a); g is no memory name
  __local float* p = s;      // mem 1 (s); p is no memory name
  int i = get_local_id(0);
  n = i;                     // mem 1 (n, a __local variable)
  s[i] = g[i] + p[i];        // mem 1 (s); comp 1; localmem 2 (s, p); coalesced 1 (g[i])
  fill(l, s[0]);             // mem 2 (l, s); localmem 1; fill adds mem 1, localmem 1
}
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(row_names(*rows), (std::vector<std::string>{"k"}));
  // comp 1; mem 1+1+1+1+2+1 = 7; localmem 2+1+1 = 4; coalesced 1.
  EXPECT_EQ(counts(rows->front()), (GreweVector{1, 0, 7, 4, 1, 0}));
}

TEST(GreweReference, CoalescedCountsSubscriptsOfALocalGlobalPointerByTheIndexTest) {
  const std::string source = R"(
int f(int x) { return x; }
__kernel void k(__global float* a, const int j) {
  int i = get_global_id(0);
  __global float* p = a;   // mem 1 (a)
  p[i] = 0.0f;             // coalesced 1: a variable
  p[i + 1] = 1.0f;         // coalesced 1: + with the literal 1; comp 1
  p[2 * i] = 2.0f;         // comp 1; fails: 2 is neither 0 nor 1 and i is no literal
  p[i * j] = 3.0f;         // comp 1; fails: no literal
  p[f(i)] = 4.0f;          // fails: a call (f adds its counters, all 0)
  p[3 + 4] = 5.0f;         // coalesced 1: both operands integer literals; comp 1
  p[i - 0] = 6.0f;         // coalesced 1: - with the literal 0; comp 1
  p[i << 1] = 7.0f;        // comp 1; fails: a shift is not additive or multiplicative
  p[-i] = 8.0f;            // coalesced 1: a unary operator is "anything else"
  p[7] = 9.0f;             // coalesced 1: an integer literal
}
)";
  auto rows = reference(source);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(row_names(*rows), (std::vector<std::string>{"k"}));  // f has no __global parameter
  // comp 6 (i+1, 2*i, i*j, 3+4, i-0, i<<1); mem 1; coalesced 6 (i, i+1, 3+4, i-0, -i, 7).
  EXPECT_EQ(counts(rows->front()), (GreweVector{6, 0, 1, 0, 6, 0}));
  // clgen's definitions count no subscript of an alias: coalesced 0.
  auto own = extract_static_features(source, "ref.cl");
  ASSERT_TRUE(own.ok()) << own.status().message();
  EXPECT_EQ(own->front().coalesced, 0);
  EXPECT_EQ(own->front().mem, 1);
}

TEST(GreweReference, LocalmemCountsSubscriptsOfLocalArraysDeclaredInTheBodyAndLocalPointers) {
  auto rows = reference(R"(
__kernel void k(__global const float* in, __local float* scratch) {
  __local float tile[64];
  __local int flags[8];
  __local int* fp = flags;       // mem 1 (flags)
  float priv[4];
  int l = get_local_id(0);
  tile[l] = in[l];               // localmem 1; mem 2; coalesced 1
  flags[l % 8] = 1;              // localmem 1; comp 1; mem 1
  scratch[l] = tile[63 - l];     // localmem 2 (a __local parameter, a __local array); comp 1; mem 2
  fp[1] = 2;                     // localmem 1: its type spells __local int * (fp is no memory name)
  priv[l & 3] = tile[flags[0]];  // localmem 2 (tile, flags; priv is private); comp 1; mem 2
  barrier(CLK_LOCAL_MEM_FENCE);  // nothing
}
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  // comp 3 (% - &); mem 1+2+1+2+2 = 8; localmem 1+1+2+1+2 = 7; coalesced 1.
  EXPECT_EQ(counts(rows->front()), (GreweVector{3, 0, 8, 7, 1, 0}));
}

TEST(GreweReference, CompCountsBinaryArithmeticAndShiftAssignmentsButNotPlusEqualsOrUnaryOperators) {
  auto rows = reference(R"(
__kernel void k(__global int* a, int n) {
  int s = n;
  s += 2;                          // not counted
  s <<= 1;                         // comp 1
  s >>= n;                         // comp 1
  s *= 3; s -= 1; s /= 2; s %= 5;  // not counted
  s &= 7; s |= 8; s ^= 9;          // not counted
  s++; --s; s = -s; s = ~s; s = !s;  // unary: not counted
  s = s + n * 2 - (n >> 1) % 3;    // comp 5 (+ * - >> %)
  s = (s & 1) | (n ^ 2);           // comp 3 (& | ^)
  a[0] = s, a[1] = n;              // = and , count nothing; mem 2; coalesced 2
}
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  // comp 1+1+5+3 = 10; mem 2; coalesced 2.
  EXPECT_EQ(counts(rows->front()), (GreweVector{10, 0, 2, 0, 2, 0}));
}

TEST(GreweReference, RationalCountsTheSixComparisonsButNotLogicalOperators) {
  auto rows = reference(R"(
__kernel void k(__global int* a, int n, int m) {
  int r = 0;
  if (n < m) r = 1;              // rational 1
  if (n > m) r = 2;              // rational 1
  if (n <= m && m >= 0) r = 3;   // rational 2; && is not counted
  if (n == m || n != 0) r = 4;   // rational 2; || is not counted
  if (!(n - m)) r = 5;           // comp 1; ! is not counted
  a[0] = r ? r : n;              // ?: is not counted; mem 1; coalesced 1
}
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(counts(rows->front()), (GreweVector{1, 6, 1, 0, 1, 0}));
}

TEST(GreweReference, ExpLogSqrtAddFifteenAndOnlyHelpersDefinedEarlierAddTheirCounters) {
  auto rows = reference(R"(
float twice(float x) { return exp(x) * 2.0f; }  // comp 15 + 1 = 16 (no row: no __global parameter)
float later(float x);
__kernel void k(__global float* a) {
  int i = get_global_id(0);
  float x = a[i];                                 // mem 1; coalesced 1
  x = twice(x) + log(x) + sqrt(x);                // comp 16 + 15 + 15 + 2 (the two +)
  x = native_exp(x) + exp2(x) + half_sqrt(x);     // comp 2 (+ +): other built-ins count nothing
  a[i] = later(x);                                // mem 1; coalesced 1; later is defined below: adds nothing
  barrier(CLK_GLOBAL_MEM_FENCE);                  // nothing
}
float later(float x) { return x * x * x; }        // comp 2, never added
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(row_names(*rows), (std::vector<std::string>{"k"}));
  // comp 16+15+15+2+2 = 50; mem 2; coalesced 2.
  EXPECT_EQ(counts(rows->front()), (GreweVector{50, 0, 2, 0, 2, 0}));
}

TEST(GreweReference, ASubscriptAsIndexPassesAndIsJudgedOnItsOwn) {
  auto rows = reference(R"(
__kernel void k(__global float* a, __global const int* idx, __global const int* perm) {
  int i = get_global_id(0);
  a[idx[i]] = 1.0f;                // a[..] passes (an element as index); idx[i] passes. mem 2; coalesced 2
  a[idx[i * 2]] = 2.0f;            // a[..] passes; idx[i * 2] fails. mem 2; coalesced 1; comp 1
  a[idx[perm[i] + 1]] = 3.0f;      // a[..] passes; idx[..]: + with a bare 1 passes; perm[i] passes.
                                   // mem 3; coalesced 3; comp 1
  a[idx[get_global_id(0)]] = 4.0f; // a[..] passes; idx[..]: a call fails. mem 2; coalesced 1
  a[idx[perm[2 * i]]] = 5.0f;      // a[..] and idx[..] pass; perm[2 * i] fails. mem 3; coalesced 2; comp 1
}
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  // comp 3; mem 2+2+3+2+3 = 12; coalesced 2+1+3+1+2 = 9.
  EXPECT_EQ(counts(rows->front()), (GreweVector{3, 0, 12, 0, 9, 0}));
}

TEST(GreweReference, TheLiteralTestNeedsALiteralWithoutAnImplicitConversion) {
  // The issue's example: comp 4 (three index +, one value +); mem 3; coalesced 2 (a[i + 1], a[u + 1u]).
  auto example = reference(
      "kernel void A(__global float* a, uint u) { int i = get_global_id(0); a[i + 1] = a[u + 1] + a[u + 1u]; }");
  ASSERT_TRUE(example.ok()) << example.status().message();
  EXPECT_EQ(counts(example->front()), (GreweVector{4, 0, 3, 0, 2, 0}));

  auto rows = reference(R"(
__kernel void k(__global float* a, uint u, long l) {
  int i = get_global_id(0);
  a[i + 1] = 0.0f;                 // passes: int + int, the 1 as written
  a[u + 1] = 1.0f;                 // fails: the 1 is converted to uint
  a[u + 1u] = 2.0f;                // passes
  a[l * 1] = 3.0f;                 // fails: the 1 is converted to long
  a[get_global_id(0) + 1] = 4.0f;  // fails: the 1 is converted to size_t
  a[i - 0] = 5.0f;                 // passes
  a[i + (1)] = 6.0f;               // fails: a literal in parentheses is no bare literal
}
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  // comp 7 (one per index); mem 7; coalesced 3 (i + 1, u + 1u, i - 0).
  EXPECT_EQ(counts(rows->front()), (GreweVector{7, 0, 7, 0, 3, 0}));
}

TEST(GreweReference, TheIndexIsJudgedAsWrittenAndOnlyADirectCallOrBinaryOperatorFails) {
  // The issue's example: comp 2 (i * n, 2 * i); mem 3; coalesced 2: a[(i * n)] and
  // a[b[..]] pass, b[2 * i] fails.
  auto example = reference(
      "kernel void A(__global float* a, __global int* b, int n) { int i = get_global_id(0);\n"
      "  a[(i * n)] = a[b[2 * i]]; }\n");
  ASSERT_TRUE(example.ok()) << example.status().message();
  EXPECT_EQ(counts(example->front()), (GreweVector{2, 0, 3, 0, 2, 0}));

  auto rows = reference(R"(
int f(int x) { return x; }
__kernel void k(__global float* a, __global const int* b, int n) {
  int i = get_global_id(0);
  a[(i * n)] = 0.0f;             // comp 1; passes: parentheses are not stripped
  a[i * n] = 1.0f;               // comp 1; fails: a direct binary operator
  a[(int)(2 * i)] = 2.0f;        // comp 1; passes: a cast
  a[n > 0 ? 2 * i : i] = 3.0f;   // comp 1; rational 1; passes: a ternary
  a[-(2 * i)] = 4.0f;            // comp 1; passes: a unary operator
  a[(f(i))] = 5.0f;              // passes: a call in parentheses
  a[f(i)] = 6.0f;                // fails: a direct call
  a[b[2 * i]] = 7.0f;            // comp 1; a[..] passes (an element); b[2 * i] fails
}
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  // comp 6; rational 1; mem 8 (a) + 1 (b) = 9; coalesced 6 (all but a[i * n], a[f(i)], b[2 * i]).
  EXPECT_EQ(counts(rows->front()), (GreweVector{6, 1, 9, 0, 6, 0}));
}

TEST(GreweReference, ASubscriptWhoseBaseIsNotABareIdentifierAddsNoCoalescedOrLocalmem) {
  // The issue's example: mem 2 (a, l); nothing else.
  auto example = reference("kernel void A(__global int* a, __local int* l) { (a)[0] = (l)[0]; }");
  ASSERT_TRUE(example.ok()) << example.status().message();
  EXPECT_EQ(counts(example->front()), (GreweVector{0, 0, 2, 0, 0, 0}));

  auto rows = reference(R"(
typedef struct { __global float* p; } S;
__kernel void k(__global float* a, __local float* l) {
  S s;
  s.p = a;               // mem 1
  (a)[0] = (l)[0];       // mem 2; a base in parentheses: no coalesced, no localmem
  (a + 1)[0] = 1.0f;     // mem 1; comp 1
  s.p[0] = 2.0f;         // a member as base: nothing
  a[0] = l[0];           // mem 2; coalesced 1; localmem 1
}
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  // comp 1; mem 1+2+1+2 = 6; localmem 1; coalesced 1.
  EXPECT_EQ(counts(rows->front()), (GreweVector{1, 0, 6, 1, 1, 0}));
}

TEST(GreweReference, AtomicCountsAtomicBuiltinsButNotTheAtomExtensionNames) {
  auto rows = reference(R"(
#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable
__kernel void k(__global int* c, __global unsigned int* u, __local int* l) {
  atomic_add(c, 1);          // atomic 1; mem 1
  atomic_inc(u);             // atomic 1; mem 1
  atomic_cmpxchg(c, 0, 2);   // atomic 1; mem 1
  atomic_max(l, 3);          // atomic 1: on __local memory too; mem 1
  atom_add(c, 1);            // atom_*: not atomic; mem 1
  atom_inc(u);               // not atomic; mem 1
}
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_FALSE(rows->front().sema_errors);
  EXPECT_EQ(counts(rows->front()), (GreweVector{0, 0, 6, 0, 0, 4}));
}

TEST(GreweReference, RowsAreTheFunctionsDefinedWithAParameterWhoseTypeSpellsGlobal) {
  auto rows = reference(R"(
typedef __global float* gptr;
void proto(__global float* x);                                  // no definition: no row
float helper(__global float* p) { return p[0]; }                // a row, though not a kernel
__kernel void scalar_only(int n, __local float* t) { t[0] = n; }  // no __global parameter: no row
__kernel void constant_only(__constant float* c) { }            // __constant is not __global: no row
__kernel void typedefed(gptr a) { a[0] = 1.0f; }                // the type spells gptr: no row
void plain(float* q) { q[0] = 0.0f; }                           // no row
__kernel void k(global float* a) { a[0] = helper(a); }          // `global` is spelled __global: a row
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(row_names(*rows), (std::vector<std::string>{"helper", "k"}));
  // helper: mem 1, coalesced 1. k: mem 2 (a twice) + helper's 1; coalesced 1 + helper's 1.
  EXPECT_EQ(counts(row(*rows, "helper")), (GreweVector{0, 0, 1, 0, 1, 0}));
  EXPECT_EQ(counts(row(*rows, "k")), (GreweVector{0, 0, 3, 0, 2, 0}));
}

TEST(GreweReference, FileScopeCodeAfterAFunctionIsChargedToItAndCodeBeforeTheFirstIsLost) {
  // The issue's example: A's own a[0] (mem 1, coalesced 1) and the table's 3 * 4, 5 - 1 (comp 2).
  auto example = reference(
      "kernel void A(__global int* a) { a[0] = 1; }\n"
      "__constant int t[2] = {3 * 4, 5 - 1};\n");
  ASSERT_TRUE(example.ok()) << example.status().message();
  EXPECT_EQ(counts(example->front()), (GreweVector{2, 0, 1, 0, 1, 0}));

  auto rows = reference(R"(
__constant int before[2] = {1 + 1, 2};           // before the first function: lost
float helper(float x) { return x * 2.0f; }        // comp 1; no row
__constant float scale[2] = {3.0f * 4.0f, 1.0f};  // charged to helper: comp 1
__kernel void k(__global float* a) {
  a[0] = helper(a[1]);                             // mem 2; coalesced 2; helper adds comp 1 + 1
}
__constant int t[2] = {3 * 4, 5 - 1};             // charged to k: comp 2
void proto(__global int* p, int q[2 << 1]);        // charged to k: comp 1 (the array bound)
__kernel void m(__global int* b) { b[0] = t[1] < 2; }  // rational 1; mem 1; coalesced 1
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(row_names(*rows), (std::vector<std::string>{"k", "m"}));
  // k: comp 2 (helper) + 2 (t) + 1 (proto) = 5; mem 2; coalesced 2.
  EXPECT_EQ(counts(row(*rows, "k")), (GreweVector{5, 0, 2, 0, 2, 0}));
  EXPECT_EQ(counts(row(*rows, "m")), (GreweVector{0, 1, 1, 0, 1, 0}));
}

TEST(GreweReference, ACallToAnUndeclaredFunctionKeepsItsArgumentsAndAddsNothing) {
  // The issue's example: the call adds comp 2 (+ *), rational 1, mem 1, coalesced 1 (i + 1 with an int i).
  auto example = reference(
      "kernel void A(__global float* a, int n) { int i = get_global_id(0); Undeclared(a[i + 1] * 2.0f, n < i); }");
  ASSERT_TRUE(example.ok()) << example.status().message();
  EXPECT_FALSE(example->front().sema_errors);
  EXPECT_EQ(counts(example->front()), (GreweVector{2, 1, 1, 0, 1, 0}));

  auto rows = reference(R"(
#define CALL undeclared_too
__kernel void k(__global float* a, int n) {
  int i = get_global_id(0);
  float x = __clc_floor(a[i]) + 1.0f;  // comp 1; mem 1; coalesced 1 (declared in the reference's header)
  x = x * CALL(n - 1);                 // comp 2; the name comes from a macro
  a[i] = later(x, a[n]);               // mem 2; coalesced 2; later is defined below: adds nothing
}
float later(float y, float z) { return y * z; }
)");
  // Without the implicit declarations each of the three calls is an error.
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(row_names(*rows), (std::vector<std::string>{"k"}));
  // comp 1+2 = 3; mem 1+2 = 3; coalesced 1+2 = 3.
  EXPECT_EQ(counts(rows->front()), (GreweVector{3, 0, 3, 0, 3, 0}));
  // An undeclared name that is not called is still an error.
  auto variable = reference("__kernel void k(__global float* a) { a[0] = missing + 1.0f; }");
  ASSERT_FALSE(variable.ok());
  EXPECT_NE(variable.status().message().find("undeclared identifier 'missing'"), std::string::npos)
      << variable.status().message();
}

TEST(GreweReference, LimitsMacrosExpandAsTheReferenceHeaderDefinesThem) {
  // The issue's example: UINT_MAX is (2U * INT_MAX + 1), comp 2; a[0]: mem 1, coalesced 1.
  auto example = reference("kernel void A(__global uint* a) { a[0] = UINT_MAX; }");
  ASSERT_TRUE(example.ok()) << example.status().message();
  EXPECT_EQ(counts(example->front()), (GreweVector{2, 0, 1, 0, 1, 0}));

  auto rows = reference(R"(
__kernel void k(__global uint* a, __global long* b) {
  a[0] = UINT_MAX;            // comp 2
  b[0] = ULONG_MAX;           // comp 2: (2UL * LONG_MAX + 1)
  b[1] = INT_MIN + LONG_MIN;  // comp 1 + 1 (each a subtraction) + 1
  a[1] = SHRT_MIN;            // comp 1: (-SHRT_MAX - 1)
  a[2] = INT_MAX + SHRT_MAX;  // comp 1: the maxima are literals
}
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  // comp 2+2+3+1+1 = 9; mem 5; coalesced 5.
  EXPECT_EQ(counts(rows->front()), (GreweVector{9, 0, 5, 0, 5, 0}));
  // clgen's definitions keep Clang's header: UINT_MAX and ULONG_MAX are literals,
  // SHRT_MIN is (-32768): comp 3 (INT_MIN's, LONG_MIN's and the + of b[1]) + 1 (a[2]) = 4.
  auto own = extract_static_features(
      "__kernel void k(__global uint* a, __global long* b) { a[0] = UINT_MAX; b[0] = ULONG_MAX;\n"
      "  b[1] = INT_MIN + LONG_MIN; a[1] = SHRT_MIN; a[2] = INT_MAX + SHRT_MAX; }\n",
      "own.cl");
  ASSERT_TRUE(own.ok()) << own.status().message();
  EXPECT_EQ(own->front().comp, 4);
}

TEST(GreweReference, AFileWithoutAFunctionWithAGlobalParameterIsAnError) {
  auto rows = reference("__kernel void k(__local float* t) { t[0] = 1.0f; }");
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(rows.status().message().find("no function with a __global parameter"), std::string::npos)
      << rows.status().message();
}

TEST(GreweReference, CountsTheCodeAfterMacroExpansion) {
  auto rows = reference(R"(
#define G __global
#define NEXT(x) ((x) + 1)
#define SQR(x) ((x) * (x))
__kernel void k(G float* a) {
  a[NEXT(get_global_id(0))] = SQR(a[0]);  // an index in parentheses passes; comp 2 (+ *); mem 3; coalesced 3
}
)");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(counts(rows->front()), (GreweVector{2, 0, 3, 0, 3, 0}));
}

TEST(GreweReference, WithRecoveryCodeWithASemaErrorIsCountedOnTheRecoveredAst) {
  const std::string source =
      "__kernel void k(__global float* a) {\n"
      "  float s = undefined_scale;\n"  // the error: nothing countable
      "  a[1] = a[0] * 2.0f;\n"         // comp 1; mem 2; coalesced 2
      "}\n";
  auto rows = reference(source, /*recover=*/true);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_TRUE(rows->front().sema_errors);
  EXPECT_NE(rows->front().first_error.find("undefined_scale"), std::string::npos) << rows->front().first_error;
  EXPECT_EQ(counts(rows->front()), (GreweVector{1, 0, 2, 0, 2, 0}));
  EXPECT_EQ(reference(source).status().code(), ErrorCode::kParse);
}

TEST(GreweReference, DefinitionNamesRoundTripAndAnUnknownNameIsAnError) {
  EXPECT_EQ(*parse_grewe_definitions("reference"), GreweDefinitions::kReference);
  EXPECT_EQ(*parse_grewe_definitions("clgen"), GreweDefinitions::kClgen);
  EXPECT_STREQ(grewe_definitions_name(GreweDefinitions::kReference), "reference");
  EXPECT_STREQ(grewe_definitions_name(GreweDefinitions::kClgen), "clgen");
  auto bad = parse_grewe_definitions("cgo17");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'cgo17'"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace clgen::features
