// Tests of constrained decoding: the tables learned from a corpus, and which
// continuations a stream's constraint accepts.
#include "sampler/code_constraint.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "corpus/preprocess/generated_names.h"
#include "sampler/batch_sampler.h"
#include "tests/sampler/scripted_model.h"

namespace clgen::sampler {
namespace {

namespace fs = std::filesystem;
using preprocess::generated_index;
using preprocess::generated_name;

const std::string kSeed =
    "__kernel void A(__global float* a, __global float* b, __global float* c, const int d) {";

std::vector<std::string> test_corpus() {
  std::vector<std::string> texts;
  for (const auto& e : fs::directory_iterator(std::string(CLGEN_TEST_DATA) + "/sampler/corpus")) {
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    texts.push_back(s.str());
  }
  // Fields, a struct type and a called builtin with a short name.
  texts.push_back(
      "typedef struct {\n  float x;\n  float vel;\n} Particle;\n\n"
      "__kernel void A(__global Particle* a, const int b) {\n  int c = get_global_id(0);\n"
      "  float4 d = (float4)(0.0f);\n  a[c].vel = min(a[c].x, d.y);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n  printf(\"%d\\n\", c);\n}\n");
  // A sampler keeps its name: a kept name, usable once declared.
  texts.push_back(
      "__kernel void A(__read_only image2d_t a, __global float4* b, sampler_t c) {\n"
      "  const sampler_t sampleri = c;\n  b[0] = read_imagef(a, sampleri, (int2)(0, 0));\n}\n");
  // Floating-point and integer builtins, loops, a switch.
  texts.push_back(
      "__kernel void A(__global float* a, __global int* b, const int c) {\n"
      "  int d = get_global_id(0);\n  float e = fabs(a[d]) + sqrt(2.0f);\n"
      "  int f = mad24(d, c, 1);\n"
      "  for (int g = 0; g < c; g++) {\n    if (b[g] == 0)\n      continue;\n"
      "    if (b[g] < 0)\n      break;\n  }\n"
      "  switch (f) {\n    case 0:\n      e = 1.0f;\n      break;\n    default:\n      break;\n  }\n"
      "  while (f > 0)\n    f--;\n  atomic_inc(&b[d]);\n  if (d > 0)\n    e = 2.0f;\n  else\n    e = 3.0f;\n"
      "  int h = sizeof(float) * (unsigned)c;\n  a[d] = e;\n  __local float i[4];\n  atomic_xchg(&a[d], e);\n}\n");
  // Vector components: z, w, s3, and a parenthesized vector's field.
  texts.push_back(
      "__kernel void A(__global float4* a, __global int2* b) {\n  int c = get_global_id(0);\n"
      "  float4 d = a[c];\n  int2 e = b[c];\n  a[c] = (float4)(d.z, d.w, (float)(e).x, d.s3);\n}\n");
  return texts;
}

const ConstraintTables& tables() {
  static const ConstraintTables t = ConstraintTables::from_corpus(test_corpus());
  return t;
}

CodeConstraint after(const std::string& text) {
  CodeConstraint c(&tables());
  c.feed(text);
  return c;
}

// Whether every character of `text` is accepted after `prefix` (a failure
// shows where the text was refused).
::testing::AssertionResult accepts_all(const std::string& prefix, const std::string& text) {
  CodeConstraint c = after(prefix);
  for (size_t i = 0; i < text.size(); ++i) {
    if (!c.accepts(std::string(1, text[i])))
      return ::testing::AssertionFailure() << "refused at " << i << ": " << text.substr(0, i) << "|" << text.substr(i);
    c.feed(std::string(1, text[i]));
  }
  return ::testing::AssertionSuccess() << "all accepted";
}

TEST(GeneratedNames, IndexAndNameAreInverse) {
  for (size_t i : {0u, 1u, 25u, 26u, 27u, 701u, 702u}) {
    EXPECT_EQ(long(i), generated_index(generated_name(i, false)));
    EXPECT_EQ(long(i), generated_index(generated_name(i, true)));
  }
  EXPECT_EQ("aa", generated_name(26, false));
  EXPECT_EQ("B", generated_name(1, true));
  EXPECT_EQ(-1, generated_index("aB"));
  EXPECT_EQ(-1, generated_index("a1"));
}

TEST(ConstraintTables, LearnsFixedWordsFieldsAndDeclaratorsFromTheCorpus) {
  const ConstraintTables& t = tables();
  EXPECT_TRUE(t.is_fixed("get_global_id"));
  EXPECT_TRUE(t.is_fixed("float"));
  EXPECT_TRUE(t.is_fixed("Particle"));
  EXPECT_TRUE(t.is_fixed("min")) << "a short word that is called is a builtin";
  EXPECT_TRUE(t.is_fixed("if"));
  EXPECT_FALSE(t.is_fixed("e")) << "generated names are not fixed words";
  EXPECT_TRUE(t.is_generated_name("e"));
  EXPECT_TRUE(t.is_generated_name("A"));
  EXPECT_FALSE(t.is_generated_name("min"));
  EXPECT_TRUE(t.is_field("vel"));
  EXPECT_TRUE(t.is_field("xyz")) << "swizzles are always fields";
  EXPECT_TRUE(t.is_field("s0"));
  EXPECT_FALSE(t.is_field("velocity"));
  EXPECT_TRUE(t.is_declarator("int"));
  EXPECT_TRUE(t.is_declarator("float4"));
  EXPECT_FALSE(t.is_declarator("if"));
}

TEST(CodeConstraint, AcceptsEveryCorpusKernelItLearnedFrom) {
  for (const std::string& text : test_corpus()) EXPECT_TRUE(accepts_all("", text)) << text;
}

TEST(CodeConstraint, ClosingBracketsMustMatchTheInnermostOpenOne) {
  CodeConstraint c = after(kSeed + "\n  c[(d");
  EXPECT_TRUE(c.accepts(")"));
  EXPECT_FALSE(c.accepts("]"));
  EXPECT_FALSE(c.accepts("}"));
  EXPECT_FALSE(c.accepts(";")) << "a statement cannot end inside brackets";
  CodeConstraint d = after(kSeed + "\n  c[d");
  EXPECT_TRUE(d.accepts("]"));
  EXPECT_FALSE(d.accepts(")"));
}

TEST(CodeConstraint, ForHeadersTakeTwoSemicolons) {
  CodeConstraint c = after(kSeed + "\n  for (int e = 0");
  EXPECT_TRUE(c.accepts(";"));
  c.feed("; e < d");
  EXPECT_TRUE(c.accepts(";"));
  c.feed("; e++");
  EXPECT_FALSE(c.accepts(";"));
  EXPECT_TRUE(c.accepts(")"));
}

TEST(CodeConstraint, ADeclarationTakesTheNextFreshName) {
  CodeConstraint c = after(kSeed + "\n  int ");
  EXPECT_TRUE(c.accepts("e "));
  EXPECT_FALSE(c.accepts("f")) << "names are generated in order";
  EXPECT_FALSE(c.accepts("g")) << "the corpus never continues `int` with a fixed word";
  EXPECT_FALSE(c.accepts("b ")) << "every declaration gets a fresh name";
  EXPECT_FALSE(c.accepts("q"));
  EXPECT_TRUE(accepts_all(kSeed + "\n  int ", "e = get_global_id(0);\n  int f = e;"));
  EXPECT_FALSE(accepts_all(kSeed + "\n  int ", "e = 0;\n  int g = e;"));
}

TEST(CodeConstraint, UsesNeedADeclaredNameInScope) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  if (";
  EXPECT_TRUE(accepts_all(prefix, "e < d) {"));
  EXPECT_FALSE(accepts_all(prefix, "f < d) {")) << "f is not declared";
  EXPECT_FALSE(accepts_all(prefix, "m < d) {"));
  const std::string scoped = kSeed + "\n  if (d) {\n    int e = 1;\n  }\n  c[0] = ";
  EXPECT_FALSE(accepts_all(scoped, "e;")) << "e went out of scope with its block";
  EXPECT_TRUE(accepts_all(scoped, "d;"));
}

TEST(CodeConstraint, MultiplicationIsNotADeclaration) {
  const std::string prefix = kSeed + "\n  c[0] = ";
  EXPECT_FALSE(accepts_all(prefix, "d * e;")) << "e is not declared";
  EXPECT_TRUE(accepts_all(prefix, "d * d;"));
  EXPECT_TRUE(accepts_all(kSeed + "\n  ", "float* e = a;"));
  EXPECT_FALSE(accepts_all(kSeed + "\n  ", "float* b = a;"));
}

TEST(CodeConstraint, ScalarsTakeNeitherSubscriptsNorFields) {
  const std::string prefix = kSeed + "\n  ";
  EXPECT_FALSE(accepts_all(prefix, "c[d[0]] = 1;")) << "d is an int";
  EXPECT_TRUE(accepts_all(prefix, "c[0] = a[0];"));
  EXPECT_FALSE(accepts_all(prefix, "int e = d;\n  c[e.x] = 1;"));
  EXPECT_TRUE(accepts_all(prefix, "float4 e = (float4)(0.0f);\n  c[0] = e.x;"));
  EXPECT_TRUE(accepts_all(prefix, "float e[4];\n  e[0] = 1;")) << "an array";
}

TEST(ConstraintTables, ATypedefOfABuiltinTypesNameLeavesItABuiltinForOtherTexts) {
  const std::string defines = "typedef unsigned int uint;\n\n__kernel void A(__global uint* a) {\n  a[0] = 1;\n}\n";
  const std::string uses = "__kernel void A(__global uint* a, __global size_t* b) {\n  a[0] = 1;\n}\n";
  const ConstraintTables t = ConstraintTables::from_corpus({defines, "typedef ulong size_t;\n", uses});
  EXPECT_FALSE(t.is_user_type("uint"));
  EXPECT_FALSE(t.is_user_type("size_t"));
  CodeConstraint c(&t);
  for (char ch : uses) {
    ASSERT_TRUE(c.accepts(std::string(1, ch))) << "refused '" << ch << "'";
    c.feed(std::string(1, ch));
  }
}

TEST(ConstraintTables, AShortWordATextCallsAndAlsoUsesAsAVariableStaysAGeneratedName) {
  // An OpenCL C 2.0 block: `b` is a variable that is called.
  const std::string block =
      "__kernel void A(__global int* a) {\n  typedef int (^block_t)(int);\n"
      "  __constant block_t b = ^(int c) {\n    return c + 1;\n  };\n  *a = b(5);\n}\n";
  const std::string builtin = "__kernel void A(__global float* a) {\n  a[0] = dot(a[0], a[1]);\n}\n";
  const ConstraintTables t = ConstraintTables::from_corpus({block, builtin});
  EXPECT_TRUE(t.is_generated_name("b")) << "b is declared, so other texts may declare it too";
  EXPECT_FALSE(t.is_generated_name("dot")) << "a builtin, only ever called";
}

TEST(CodeConstraint, AFunctionsNameMayFollowItsAttributes) {
  const std::string text =
      "__kernel void __attribute__((reqd_work_group_size(1, 1, 1))) A(__global float* a) {\n  a[0] = 1.0f;\n}\n";
  const ConstraintTables t = ConstraintTables::from_corpus({text});
  CodeConstraint c(&t);
  for (size_t i = 0; i < text.size(); ++i) {
    ASSERT_TRUE(c.accepts(std::string(1, text[i]))) << "refused at " << i << ": " << text.substr(0, i);
    c.feed(std::string(1, text[i]));
  }
}

TEST(CodeConstraint, ParenthesizedScalarsAndPointersTakeNoFields) {
  const std::string prefix = kSeed + "\n  int e = d;\n  float4 f = (float4)(0.0f);\n  c[0] = ";
  EXPECT_FALSE(accepts_all(prefix, "(e).x;")) << "e is an int";
  EXPECT_FALSE(accepts_all(prefix, "(a).x;")) << "a is a pointer";
  EXPECT_TRUE(accepts_all(prefix, "(f).x;"));
  EXPECT_TRUE(accepts_all(prefix, "(e + 1);")) << "a group of more than a name";
}

TEST(CodeConstraint, FieldsSelectOnlyComponentsTheVectorHas) {
  const std::string prefix = kSeed + "\n  int2 e = (int2)(d, d);\n  float4 f = (float4)(0.0f);\n  c[0] = ";
  EXPECT_TRUE(accepts_all(prefix, "e.y;"));
  EXPECT_FALSE(accepts_all(prefix, "e.z;")) << "an int2 has no third component";
  EXPECT_FALSE(accepts_all(prefix, "(e).w;"));
  EXPECT_TRUE(accepts_all(prefix, "f.w;"));
  EXPECT_TRUE(accepts_all(prefix, "f.s3;"));
  EXPECT_FALSE(accepts_all(prefix, "e.s3;"));
}

TEST(CodeConstraint, VectorLiteralsTakeNumbersAndAtMostTheirWidthOfElements) {
  const std::string prefix = kSeed + "\n  float4 f = (float4)(0.0f);\n  int2 e = ";
  EXPECT_TRUE(accepts_all(prefix, "(int2)(d, 1);"));
  EXPECT_FALSE(accepts_all(prefix, "(int2)(d, 1, 2);")) << "three elements for two components";
  EXPECT_FALSE(accepts_all(prefix, "(int2)(a, d);")) << "a pointer is no element";
  EXPECT_TRUE(accepts_all(kSeed + "\n  float4 f = (float4)(0.0f);\n  float4 g = ", "(float4)(f.x, f.y, 1.0f, 2.0f);"));
}

TEST(CodeConstraint, OnlyWordsTheCorpusCallsTakeParentheses) {
  const std::string prefix = kSeed + "\n  c[0] = ";
  EXPECT_FALSE(accepts_all(prefix, "d(1);"));
  EXPECT_TRUE(accepts_all(prefix, "get_global_id(0);"));
  EXPECT_TRUE(accepts_all(prefix, "min(d, d);"));
}

TEST(CodeConstraint, StatementKeywordsOnlyStartStatements) {
  EXPECT_FALSE(accepts_all(kSeed + "\n  c[0] = ", "if (d)"));
  EXPECT_TRUE(accepts_all(kSeed + "\n  ", "if (d) {\n    c[0] = 1;\n  }"));
  EXPECT_TRUE(accepts_all(kSeed + "\n  if (d)\n    ", "return;"));
}

TEST(CodeConstraint, UserTypesNeedADefinitionInTheText) {
  EXPECT_TRUE(tables().is_user_type("Particle"));
  EXPECT_FALSE(tables().is_user_type("float4"));
  EXPECT_FALSE(accepts_all("__kernel void A(__global ", "Particle* a) {"))
      << "no sample defines Particle before its kernel";
  EXPECT_TRUE(accepts_all("typedef struct {\n  float x;\n} Particle;\n\n__kernel void A(__global ",
                          "Particle* a) {"));
}

TEST(CodeConstraint, PointersTakeOnlyPointerOperators) {
  const std::string prefix = kSeed + "\n  c[0] = ";
  EXPECT_FALSE(accepts_all(prefix, "a * 2;"));
  EXPECT_FALSE(accepts_all(prefix, "c[a];")) << "a pointer is no subscript";
  EXPECT_TRUE(accepts_all(prefix, "a[0] * 2;"));
  EXPECT_TRUE(accepts_all(prefix, "*a * 2;")) << "a dereferenced pointer is a value";
  EXPECT_TRUE(accepts_all(prefix, "*(a + 1);"));
}

TEST(CodeConstraint, SubscriptsTakeIntegers) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  float f = a[e];\n  ";
  EXPECT_TRUE(accepts_all(prefix, "b[e] = a[e + 1] + a[(e * d) + 1];"));
  EXPECT_FALSE(accepts_all(prefix, "b[f] = 0.0f;")) << "a float";
  EXPECT_FALSE(accepts_all(prefix, "b[e * f] = 0.0f;"));
  EXPECT_FALSE(accepts_all(prefix, "b[a[e]] = 0.0f;")) << "a float element";
  EXPECT_FALSE(accepts_all(prefix, "b[c + e] = 0.0f;")) << "a pointer";
  EXPECT_FALSE(accepts_all(prefix, "b[e + c = d] = 0.0f;")) << "no assignment to a pointer in a subscript";
  EXPECT_FALSE(accepts_all(prefix, "b[1.5f] = 0.0f;"));
  EXPECT_TRUE(accepts_all(prefix, "b[(int)f] = 0.0f;")) << "a cast makes it an integer";
  EXPECT_TRUE(accepts_all(prefix, "b[(int)(f * 2.0f)] = 0.0f;"));
}

TEST(CodeConstraint, ArithmeticValuesTakeNoBarePointer) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "int f = a;"));
  EXPECT_FALSE(accepts_all(prefix, "float f = a + 1;"));
  EXPECT_FALSE(accepts_all(prefix, "b[e] = a;")) << "a float element is arithmetic too";
  EXPECT_FALSE(accepts_all(prefix, "e += c;"));
  EXPECT_TRUE(accepts_all(prefix, "float f = a[e] + *b;"));
  EXPECT_FALSE(accepts_all(prefix, "int f = b - a;")) << "no corpus kernel subtracts kernel arguments";
  EXPECT_TRUE(accepts_all(prefix, "float* f = a + 1;")) << "a pointer variable takes pointers";
  EXPECT_TRUE(accepts_all(prefix, "if (e == d) {\n    b[e] = 0.0f;\n  }")) << "'==' is no assignment";
}

TEST(CodeConstraint, FloatingPointBuiltinsNeedAFloatingPointOperand) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  float f = a[e];\n  b[e] = ";
  EXPECT_FALSE(accepts_all(prefix, "fabs(e);")) << "fabs of an int is ambiguous";
  EXPECT_FALSE(accepts_all(prefix, "sqrt(e * 2);"));
  EXPECT_FALSE(accepts_all(prefix, "fabs(b);")) << "a bare pointer";
  EXPECT_TRUE(accepts_all(prefix, "fabs(f);"));
  EXPECT_TRUE(accepts_all(prefix, "fabs(a[e] - e);"));
  EXPECT_TRUE(accepts_all(prefix, "sqrt(e * 2.0f);"));
  EXPECT_TRUE(accepts_all(prefix, "sqrt((float)e);"));
  EXPECT_TRUE(accepts_all(prefix, "fabs(sqrt(f));"));
  EXPECT_FALSE(accepts_all(prefix, "mad24(e, f, 1);")) << "mad24 takes integers";
  EXPECT_TRUE(accepts_all(prefix, "mad24(e, d, 1);"));
}

TEST(CodeConstraint, BuiltinsAreOnlyCalled) {
  const std::string prefix = kSeed + "\n  int e = ";
  EXPECT_FALSE(accepts_all(prefix, "get_global_id;"));
  EXPECT_TRUE(accepts_all(prefix, "get_global_id(0);"));
}

TEST(CodeConstraint, ForHeaderNamesEndWithTheLoop) {
  const std::string braces = kSeed + "\n  for (int e = 0; e < d; e++) {\n    c[e] = 0.0f;\n  }\n  ";
  EXPECT_FALSE(accepts_all(braces, "c[e] = 1.0f;"));
  EXPECT_TRUE(accepts_all(braces, "c[d] = 1.0f;"));
  EXPECT_TRUE(accepts_all(braces, "int f = d;")) << "e's name is still taken";
  const std::string single = kSeed + "\n  for (int e = 0; e < d; e++)\n    c[e] = 0.0f;\n  ";
  EXPECT_FALSE(accepts_all(single, "c[e] = 1.0f;"));
  const std::string nested = kSeed + "\n  for (int e = 0; e < d; e++)\n    for (int f = 0; f < d; f++) {\n"
                                     "      c[e] = c[f];\n    }\n  ";
  EXPECT_TRUE(accepts_all(nested, "int g = d;\n  c[g] = 1.0f;"))
      << "a declaration after the loops lives in the enclosing block";
}

TEST(CodeConstraint, BreakAndContinueOnlyInLoops) {
  EXPECT_FALSE(accepts_all(kSeed + "\n  ", "break;"));
  EXPECT_FALSE(accepts_all(kSeed + "\n  if (d) {\n    ", "continue;"));
  EXPECT_TRUE(accepts_all(kSeed + "\n  for (int e = 0; e < d; e++) {\n    if (e) {\n      ", "break;"));
  EXPECT_TRUE(accepts_all(kSeed + "\n  while (d)\n    ", "break;"));
  EXPECT_TRUE(accepts_all(kSeed + "\n  switch (d) {\n    ", "case 0:\n      break;"));
  EXPECT_FALSE(accepts_all(kSeed + "\n  switch (d) {\n    case 0:\n      ", "continue;"));
}

TEST(CodeConstraint, VoidFunctionsReturnNoValue) {
  EXPECT_FALSE(accepts_all(kSeed + "\n  ", "return 1;"));
  EXPECT_TRUE(accepts_all(kSeed + "\n  ", "return;"));
}

TEST(CodeConstraint, ConstVariablesAreNotAssigned) {
  EXPECT_FALSE(accepts_all(kSeed + "\n  ", "d = 1;")) << "d is a const int parameter";
  EXPECT_TRUE(accepts_all(kSeed + "\n  ", "if (d == 1) {"));
  EXPECT_FALSE(accepts_all(kSeed + "\n  const int e = 1;\n  ", "e = 2;"));
  EXPECT_TRUE(accepts_all(kSeed + "\n  const int e = 1, f = e;\n  int g = ", "e + f;"));
  EXPECT_FALSE(accepts_all("__kernel void A(__global const float* a) {\n  ", "a[0] = 1.0f;"))
      << "a pointer to const";
}

TEST(CodeConstraint, OnlyPointersAreDereferenced) {
  EXPECT_FALSE(accepts_all(kSeed + "\n  c[0] = ", "*d;"));
  EXPECT_TRUE(accepts_all(kSeed + "\n  c[0] = ", "*a;"));
  EXPECT_FALSE(accepts_all(kSeed + "\n  c[0] = ", "*a[0];")) << "dereferences a float";
  EXPECT_TRUE(accepts_all(kSeed + "\n  if (d)\n    ", "*c = 1.0f;")) << "'*' after a header is unary";
}

TEST(CodeConstraint, PointersAreNeitherCastToValuesNorMultiplied) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  if (";
  EXPECT_FALSE(accepts_all(prefix, "(float)a > 0) {"));
  EXPECT_FALSE(accepts_all(prefix, "e * a > 0) {"));
  EXPECT_TRUE(accepts_all(prefix, "e * a[e] > 0 || a) {"));
}

TEST(CodeConstraint, NoOperandFollowsAnOperand) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "b[e d] = 0.0f;"));
  EXPECT_FALSE(accepts_all(prefix, "b[2 e] = 0.0f;"));
  EXPECT_TRUE(accepts_all(prefix, "b[e] = (float)e;")) << "a cast is no operand";
  EXPECT_TRUE(accepts_all(prefix, "if (e)\n    e = d;"));
  EXPECT_FALSE(accepts_all(prefix, "e = d + int;")) << "a type name is no operand";
  EXPECT_FALSE(accepts_all(prefix, "get_global_id(0) = e;")) << "not assignable";
  EXPECT_TRUE(accepts_all(prefix, "(b[e]) = 1.0f;"));
}

TEST(CodeConstraint, AnOperatorTakesAnOperand) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "e = ;"));
  EXPECT_FALSE(accepts_all(prefix, "e = = 1;"));
  EXPECT_FALSE(accepts_all(prefix, "b[e + ] = 1.0f;"));
  EXPECT_TRUE(accepts_all(prefix, "e++;\n  e = -e;\n  b[e] = *a;"));
  EXPECT_TRUE(accepts_all(prefix, "b[e] = *(__global float*)a;"));
  EXPECT_FALSE(accepts_all(prefix, "e = e > 0 ? 1;")) << "a '?' needs its ':'";
  EXPECT_TRUE(accepts_all(prefix, "e = e > 0 ? 1 : 2;"));
  EXPECT_FALSE(accepts_all(prefix, "for (int f = 0; f < d) {")) << "a for header has two ';'";
  EXPECT_FALSE(accepts_all(prefix, "if (int f = 0) {")) << "no declaration in a condition";
}

TEST(CodeConstraint, CompilableFormsTheReviewFoundRefused) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  float f = a[e];\n  ";
  EXPECT_TRUE(accepts_all(prefix, "int g = sizeof(float) * d;")) << "sizeof's ')' ends an operand";
  EXPECT_TRUE(accepts_all(prefix, "for (int g = 0; g < d; g++)\n    if (c[g] > 0.0f)\n      c[g] = 1.0f;\n"
                                  "    else\n      c[g] = 0.0f;\n  c[e] = f;"))
      << "an else continues a braceless loop body";
  EXPECT_FALSE(accepts_all(prefix, "for (int g = 0; g < d; g++)\n    c[g] = 1.0f;\n  c[g] = f;"));
  EXPECT_TRUE(accepts_all(prefix, "c[f > 0.5f ? 1 : 0] = f;\n  c[(f > 0.0f)] = f;"))
      << "a comparison is an integer";
  EXPECT_TRUE(accepts_all(prefix, "int g = (unsigned)e;"));
  EXPECT_TRUE(accepts_all(prefix, "c[e] = sqrt(a[e] * 2);"));
  EXPECT_FALSE(accepts_all(kSeed + "\n  ", "return ;")) << "no space before a void return's ';'";
}

TEST(CodeConstraint, ElseOnlyAfterAnIfStatement) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "c[e] = 1.0f;\n  else\n"));
  EXPECT_TRUE(accepts_all(prefix, "if (e < d)\n    c[e] = 1.0f;\n  else if (e > d) {\n    c[e] = 2.0f;\n  } else\n    c[e] = 0.0f;\n"));
  EXPECT_FALSE(accepts_all(prefix, "if (e < d) {\n    c[e] = 1.0f;\n  }\n  c[e] = 0.0f;\n  else\n"));
  EXPECT_FALSE(accepts_all(prefix, "if (e < d)\n    c[e] = 1.0f;\n  else\n    c[e] = 0.0f;\n  else\n"));
}

TEST(CodeConstraint, AtomicsTakeAPointerFirst) {
  const std::string prefix = "__kernel void A(__global int* a, const int b) {\n  ";
  EXPECT_FALSE(accepts_all(prefix, "atomic_inc(b);"));
  EXPECT_FALSE(accepts_all(prefix, "atomic_inc(a[0]);"));
  EXPECT_TRUE(accepts_all(prefix, "atomic_inc(a);\n  atomic_inc(&a[b]);\n  atomic_inc(&(a[b]));\n  atomic_inc(a + b);"));
}

TEST(CodeConstraint, AtomicsOnFloatsOnlyExchange) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "atomic_inc(&a[e]);"));
  EXPECT_FALSE(accepts_all(prefix, "atomic_inc(a);"));
  EXPECT_TRUE(accepts_all(prefix, "atomic_xchg(&a[e], 1.0f);"));
}

TEST(CodeConstraint, NotAndComplementArePrefixOperators) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "b[d * e + c ! e] = 0;"));
  EXPECT_FALSE(accepts_all(prefix, "if (! != e)"));
  EXPECT_FALSE(accepts_all(prefix, "b[e ~ d] = 0;"));
  EXPECT_TRUE(accepts_all(prefix, "if (!e && e != d && ~e)\n    b[e] = 0;"));
}

TEST(CodeConstraint, SubscriptsFollowAnOperand) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "a[[]"));
  EXPECT_FALSE(accepts_all(prefix, "e = ![e]"));
  EXPECT_TRUE(accepts_all(prefix, "float f[4];\n  f[0] = (a + e)[0] + a[e];"));
}

TEST(CodeConstraint, OnlyAnLvalueIsAssigned) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "if (e >= get_local_id(0) &= e)"));
  EXPECT_FALSE(accepts_all(prefix, "b[d * e + c = e] = 0;"));
  EXPECT_FALSE(accepts_all(prefix, "-e = d;"));
  EXPECT_FALSE(accepts_all(prefix, "e = d ? e : d = 1;"));
  // `==` is no assignment; `*p`, `p[e]++`, `++` and a '?' operand are lvalues.
  EXPECT_TRUE(accepts_all(prefix, "if (e + 1 == d)\n    e = d;\n  *a = 1.0f;\n  *b++ = 2.0f;\n  e += d * 2;\n"
                                  "  e = d > 0 ? e += 1 : e;\n  a[e]++;\n  int f;\n  e = f = e;"));
}

TEST(CodeConstraint, AKernelKeepsEnoughInstructions) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  int f = e * 2;\n";
  EXPECT_FALSE(accepts_all(prefix, "}")) << "no store, call or atomic: dead code";
  EXPECT_FALSE(accepts_all(prefix, "  if (e < d) {\n    f = d;\n  }\n}"));
  EXPECT_FALSE(accepts_all(prefix, "  float g = a[e];\n}")) << "a load is no effect";
  EXPECT_TRUE(accepts_all(prefix, "  if (e < d) {\n    a[e] = f;\n  }\n}"));
  EXPECT_TRUE(accepts_all(prefix, "  *b = 0.0f;\n}"));
  EXPECT_TRUE(accepts_all(prefix, "  printf(\"%d\", f);\n}"));
  EXPECT_TRUE(accepts_all("__kernel void A(__global int* a, const int b) {\n  ", "atomic_inc(a);\n}"));
  EXPECT_TRUE(accepts_all(prefix, "  if (e < d) {\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n}"))
      << "a barrier and the branch around it stay";
  EXPECT_TRUE(accepts_all("void B(int a) {\n  int b = a;\n}\n", "")) << "only kernels";
}

TEST(CodeConstraint, DoBodiesAreFollowedByWhile) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_TRUE(accepts_all(prefix, "do {\n    e++;\n  } while (e < d);"));
  EXPECT_FALSE(accepts_all(prefix, "do {\n    e++;\n  };"));
  EXPECT_FALSE(accepts_all(prefix, "do {\n    e++;\n  } e"));
}

TEST(CodeConstraint, AddressSpacesOfBodyVariables) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "__local int f = e;")) << "a __local variable takes no initializer";
  EXPECT_TRUE(accepts_all(prefix, "__local int f[4];\n  __local float* g = 0;"));
  EXPECT_FALSE(accepts_all(prefix, "__global float f")) << "only pointers are __global";
  EXPECT_TRUE(accepts_all(prefix, "__global float* f = a + e;"));
}

TEST(CodeConstraint, CallArgumentsAreNoTypes) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "e = mad24(float)"));
  EXPECT_TRUE(accepts_all(prefix, "e = mad24((int)d, e, 1) + sizeof(float);"));
}

TEST(CodeConstraint, NoSpaceAfterANameThatNoOperatorCanFollow) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "if (e < c ")) << "a pointer compared: only c[...] could go on";
  EXPECT_TRUE(accepts_all(prefix, "if (e < c[e] && e < d) {"));
}

TEST(CodeConstraint, StructMembersAreNoVariables) {
  EXPECT_TRUE(tables().is_field("vel"));
  EXPECT_FALSE(tables().is_fixed("vel"));
  const std::string prefix = "__kernel void A(__global Particle* a, const int b) {\n  ";
  EXPECT_FALSE(accepts_all(prefix, "float c = vel;"));
}

TEST(CodeConstraint, BuiltinsTakeTheArgumentCountsTheCorpusGivesThem) {
  EXPECT_EQ(uint64_t(1) << 1, tables().arities("fabs"));
  EXPECT_EQ(uint64_t(1) << 3, tables().arities("mad24"));
  EXPECT_EQ(uint64_t(0), tables().arities("printf")) << "variadic";
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "c[e] = fabs(a[e], 1.0f);"));
  EXPECT_FALSE(accepts_all(prefix, "e = mad24(e, d);"));
  EXPECT_FALSE(accepts_all(prefix, "e = get_global_id();"));
  EXPECT_TRUE(accepts_all(prefix, "e = mad24(e, d, 1);\n  c[e] = fabs(a[e]);\n  printf(\"%d %d %d\", e, e, d);"));
}

TEST(CodeConstraint, AFunctionDoesNotCallItself) {
  EXPECT_FALSE(accepts_all(kSeed + "\n  ", "A(a, b, c, d);"));
}

TEST(CodeConstraint, BitwiseOperatorsTakeNoFloatingPointOperand) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "c[e] = a[e] | b[e];"));
  EXPECT_FALSE(accepts_all(prefix, "c[e] = a[e] ^ b[e];"));
  EXPECT_FALSE(accepts_all(prefix, "float f = a[e];\n  e = f << 1;"));
  EXPECT_TRUE(accepts_all(prefix, "if (a[e] || b[e] && e) {\n    e = e | d & 1;\n  }"));
}

TEST(CodeConstraint, ACastTakesNoName) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "float f = (float e"));
  EXPECT_TRUE(accepts_all(prefix, "float f = (float)e + (float)(d);"));
}

TEST(CodeConstraint, APointersValueStartsWithAPointer) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "__global float* f = a[e];"));
  EXPECT_FALSE(accepts_all(prefix, "__global float* f = get_global_id(0);"));
  EXPECT_FALSE(accepts_all(prefix, "a = e;"));
  EXPECT_FALSE(accepts_all(prefix, "a = -1;"));
  EXPECT_TRUE(accepts_all(prefix, "__global float* f = a + e;\n  __global float* g = &b[e];\n  f = g;\n  g = 0;\n"
                                  "  a = (__global float*)c;\n  a += e;\n  *f = e;\n  if (f == 0)\n    f = b;"));
}

TEST(CodeConstraint, AColonNeedsAQuestionMarkOrALabel) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "c[e] = e - 5 : d;"));
  EXPECT_TRUE(accepts_all(prefix, "c[e] = e > 5 ? e : d;\n  switch (e) {\n    case 1:\n      break;\n    default:\n      break;\n  }"));
}

TEST(CodeConstraint, PointersAreNotComparedWithIntegers) {
  const std::string prefix = kSeed + "\n  int e = get_global_id(0);\n  ";
  EXPECT_FALSE(accepts_all(prefix, "if (e < c) {"));
  EXPECT_FALSE(accepts_all(prefix, "if (e - c) {"));
  EXPECT_FALSE(accepts_all(prefix, "if (e >= c) {"));
  EXPECT_TRUE(accepts_all(prefix, "if (e < d && c) {"));
}

TEST(CodeConstraint, VariablesAreNotCalledAndBuiltinsHaveNoSpaceBeforeTheirParenthesis) {
  EXPECT_FALSE(accepts_all(kSeed + "\n  c[0] = ", "a(0);"));
  EXPECT_FALSE(accepts_all(kSeed + "\n  int e = ", "get_global_id (0);"));
}

TEST(CodeConstraint, ConstVariablesAreNotUpdated) {
  EXPECT_FALSE(accepts_all(kSeed + "\n  ", "d += 1;"));
  EXPECT_FALSE(accepts_all(kSeed + "\n  ", "d++;"));
  EXPECT_TRUE(accepts_all(kSeed + "\n  int e = d;\n  ", "e += 1;\n  e++;"));
}

TEST(CodeConstraint, KeptNamesEndWithTheirScope) {
  const std::string prefix = "__kernel void A(__read_only image2d_t a, __global float4* b, sampler_t c) {\n  ";
  EXPECT_FALSE(accepts_all(prefix, "if (b) {\n    const sampler_t sampleri = c;\n  }\n  b[0] = read_imagef(a, sampleri,"));
}

TEST(CodeConstraint, LayoutIsTheRewritersSoWhitespaceCannotRepeat) {
  CodeConstraint c = after(kSeed + "\n  c[0] = d ");
  EXPECT_FALSE(c.accepts(" ")) << "one space between tokens";
  EXPECT_FALSE(c.accepts(";")) << "no space before ';'";
  EXPECT_FALSE(c.accepts("\n")) << "no trailing space";
  EXPECT_TRUE(c.accepts("+"));
  EXPECT_TRUE(accepts_all(kSeed + "\n", "    c[0] = d;\n\n  c[1] = d;"));
  EXPECT_FALSE(accepts_all(kSeed + "\n", "  c[0] = d;\n\n\n")) << "at most one empty line";
  EXPECT_FALSE(accepts_all(kSeed + "\n", "\tc[0] = d;"));
}

TEST(CodeConstraint, KernelPointerParametersNeedAnAddressSpaceAndOnlyThey) {
  EXPECT_TRUE(accepts_all("__kernel void A(", "__global float* a, const int b) {"));
  EXPECT_FALSE(accepts_all("__kernel void A(", "__global float a) {"))
      << "an address space needs a pointer";
  EXPECT_FALSE(accepts_all("__kernel void A(", "float* a) {")) << "a kernel's pointer needs one";
}

TEST(CodeConstraint, KeptNamesNeedADeclaration) {
  EXPECT_TRUE(tables().is_kept_name("sampleri"));
  EXPECT_FALSE(tables().is_kept_name("get_global_id"));
  const std::string prefix = "__kernel void A(__read_only image2d_t a, __global float4* b, sampler_t c) {\n  ";
  EXPECT_FALSE(accepts_all(prefix, "b[0] = read_imagef(a, sampleri, (int2)(0, 0));"));
  EXPECT_TRUE(accepts_all(prefix, "const sampler_t sampleri = c;\n  b[0] = read_imagef(a, sampleri, (int2)(0, 0));"));
}

TEST(CodeConstraint, WordsMustComeFromTheCorpus) {
  const std::string prefix = kSeed + "\n  ";
  EXPECT_TRUE(accepts_all(prefix, "barrier("));
  EXPECT_FALSE(accepts_all(prefix, "flaot e"));
  EXPECT_FALSE(accepts_all(prefix, "B(")) << "no function B is declared";
  EXPECT_TRUE(accepts_all(prefix, "float4 e = (float4)(0.0f);\n  c[0] = e.x + e.s3;"));
  EXPECT_FALSE(accepts_all(prefix, "float4 e = (float4)(0.0f);\n  c[0] = e.velocity;"));
  EXPECT_FALSE(accepts_all(prefix, "c[0] = a[0].x;")) << "a float has no fields";
}

TEST(CodeConstraint, CommentsCannotStartAndDirectivesOnlyAtLineStart) {
  CodeConstraint c = after(kSeed + "\n  c[0] = d /");
  EXPECT_FALSE(c.accepts("/"));
  EXPECT_FALSE(c.accepts("*"));
  EXPECT_TRUE(c.accepts(" "));
  EXPECT_FALSE(after(kSeed + "\n  c[0] = d ").accepts("#"));
  EXPECT_TRUE(accepts_all(kSeed + "\n", "#pragma unroll\n  c[0] = d;"));
}

TEST(CodeConstraint, StringsAndNumbersAreNotConstrained) {
  EXPECT_TRUE(accepts_all(kSeed + "\n  ", "printf(\"%d } ] ) xyz\\n\", d);"));
  EXPECT_TRUE(accepts_all(kSeed + "\n  ", "c[0] = 1.5e3f + 0x1Fu + .5f;"));
}

TEST(CodeConstraint, TheTextCanEndOnlyWithNothingOpen) {
  EXPECT_FALSE(after(kSeed + "\n  c[0] = d;\n").can_end());
  EXPECT_TRUE(after(kSeed + "\n  c[0] = d;\n}").can_end());
  EXPECT_FALSE(after(kSeed + "\n}\nvoid B(\"").can_end());
}

TEST(CodeConstraint, MultiCharacterPiecesAreCheckedWhole) {
  CodeConstraint c = after(kSeed + "\n  int e = get_global_id(0);\n  ");
  EXPECT_TRUE(c.accepts("c[e] = "));
  EXPECT_FALSE(c.accepts("c[f] = "));
  EXPECT_FALSE(c.accepts("c[e) = "));
}

TEST(BatchSampler, ConstraintRedrawsRefusedTokensFromTheAllowedOnes) {
  // The script writes an undeclared name; the constraint must refuse it and
  // every finished text must satisfy the constraint from its first character.
  testing::ScriptedModel model(2, {"\n  q[0] = 1;\n}"});
  BatchSamplerOptions o;
  o.seed_text = kSeed;
  o.max_length = 60;
  o.constraint = &tables();
  BatchSampler sampler(model, o);
  std::vector<RawSample> out;
  Status st = sampler.run(
      [&](RawSample&& s) {
        out.push_back(std::move(s));
        return out.size() < 4;
      },
      [] { return false; });
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_GT(sampler.stats().redrawn, 0u);
  for (const RawSample& s : out) {
    EXPECT_EQ(std::string::npos, s.text.find("q[")) << s.text;
    EXPECT_TRUE(accepts_all("", s.text)) << s.text;
  }
}

}  // namespace
}  // namespace clgen::sampler
