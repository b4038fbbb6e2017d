// Tests of argument specifications and the seed text they give.
#include "sampler/arg_spec.h"

#include <gtest/gtest.h>

namespace clgen::sampler {
namespace {

std::string seed(const std::string& spec) {
  auto s = seed_text(spec);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : "";
}

std::string error(const std::string& spec) {
  auto s = parse_arg_spec(spec);
  EXPECT_FALSE(s.ok()) << "accepted: " << spec;
  return s.ok() ? "" : s.status().message();
}

TEST(ArgSpec, PaperSignatureGivesTheNormalizedPrototype) {
  EXPECT_EQ("__kernel void A(__global float* a, __global float* b, __global float* c, const int d) {",
            seed("float*,float*,float*,int"));
}

TEST(ArgSpec, EmptySpecLetsTheModelChooseTheSignature) {
  EXPECT_EQ("__kernel void A(", seed(""));
  EXPECT_EQ("__kernel void A(", seed("  "));
}

TEST(ArgSpec, QualifiersAreWrittenInTheCorpusOrder) {
  EXPECT_EQ("__kernel void A(__local float* a, const int b, __global const float4* c) {",
            seed("local float*, const int, global const float4*"));
  EXPECT_EQ("__kernel void A(__constant uint8* a, __global volatile int* b) {",
            seed("__constant uint8 *,volatile int*"));
  EXPECT_EQ("__kernel void A(__global float* restrict a, const double16 b) {",
            seed("float* restrict, double16"));
}

TEST(ArgSpec, ScalarAndVectorTypesOfOpenClC) {
  for (const char* t : {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                        "float", "double", "char2", "uchar3", "short4", "int8", "ulong16",
                        "float4", "uint8", "double2"}) {
    EXPECT_EQ(std::string("__kernel void A(__global ") + t + "* a, const " + t + " b) {",
              seed(std::string(t) + "*," + t))
        << t;
  }
  EXPECT_EQ("__kernel void A(__global unsigned int* a, const unsigned char b) {",
            seed("unsigned int*, unsigned char"));
  EXPECT_EQ("__kernel void A(__global half* a) {", seed("half*"));
}

TEST(ArgSpec, NamesContinuePastZ) {
  std::string spec;
  for (int i = 0; i < 28; ++i) spec += i ? ",int" : "int";
  std::string s = seed(spec);
  EXPECT_NE(s.find("const int z, const int aa, const int ab) {"), std::string::npos) << s;
  EXPECT_EQ("a", parameter_name(0));
  EXPECT_EQ("z", parameter_name(25));
  EXPECT_EQ("aa", parameter_name(26));
  EXPECT_EQ("az", parameter_name(51));
  EXPECT_EQ("ba", parameter_name(52));
}

TEST(ArgSpec, BadItemsAreNamedInTheError) {
  EXPECT_EQ("argument 2 'flaot*': unknown type 'flaot'", error("float*,flaot*"));
  EXPECT_NE(error("float*,,int").find("argument 2: empty item"), std::string::npos);
  EXPECT_NE(error("int,").find("argument 2: empty item"), std::string::npos);
  EXPECT_NE(error("float**").find("argument 1 'float**': pointers to pointers"), std::string::npos);
  EXPECT_NE(error("local float").find("argument 1 'local float': address space '__local' needs a pointer"),
            std::string::npos);
  EXPECT_NE(error("int, global local float*").find("argument 2"), std::string::npos);
  EXPECT_NE(error("float int").find("two type names"), std::string::npos);
  EXPECT_NE(error("const").find("no type name"), std::string::npos);
  EXPECT_NE(error("float5").find("unknown type 'float5'"), std::string::npos);
  EXPECT_NE(error("half").find("'half' is only allowed behind a pointer"), std::string::npos);
  EXPECT_NE(error("unsigned float").find("'unsigned float' is not a type"), std::string::npos);
  EXPECT_NE(error("restrict int").find("restrict needs a pointer"), std::string::npos);
  EXPECT_NE(error("private int*").find("__private"), std::string::npos);
  EXPECT_NE(error("float* x").find("unexpected 'x' after '*'"), std::string::npos);
  EXPECT_EQ("empty argument specification", error(""));
}

}  // namespace
}  // namespace clgen::sampler
