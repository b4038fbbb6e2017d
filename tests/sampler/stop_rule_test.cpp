// Tests of the brace-depth stop rule on tricky texts.
#include "sampler/stop_rule.h"

#include <gtest/gtest.h>

namespace clgen::sampler {
namespace {

const std::string kSeed = "__kernel void A(__global float* a) {";

std::string ended_at(const std::string& body) {
  return std::string(complete_kernel_prefix(kSeed + body));
}

TEST(StopRule, EndsAtTheClosingBraceOfTheKernel) {
  EXPECT_EQ(kSeed + "\n  a[0] = 1;\n}", ended_at("\n  a[0] = 1;\n}\n__kernel void B() {}"));
}

TEST(StopRule, NestedBlocksKeepTheKernelOpen) {
  std::string body = " if (1) { for (;;) { a[0]++; } } }";
  EXPECT_EQ(kSeed + body, ended_at(body + " trailing"));
}

TEST(StopRule, IgnoresBracesInStringLiterals) {
  std::string body = " printf(\"}}} \\\" }\"); }";
  EXPECT_EQ(kSeed + body, ended_at(body + "}"));
}

TEST(StopRule, IgnoresBracesInCharacterLiterals) {
  std::string body = " char c = '}'; char d = '\\''; char e = '{'; }";
  EXPECT_EQ(kSeed + body, ended_at(body));
}

TEST(StopRule, IgnoresBracesInComments) {
  std::string body = " // } closing?\n /* } } { */ a[0] = 1; /*/ } */ }";
  EXPECT_EQ(kSeed + body, ended_at(body));
}

TEST(StopRule, LineCommentEndsAtTheNewline) {
  std::string body = " // comment\n }";
  EXPECT_EQ(kSeed + body, ended_at(body));
}

TEST(StopRule, DivisionIsNotAComment) {
  std::string body = " a[0] = a[1] / a[2]; }";
  EXPECT_EQ(kSeed + body, ended_at(body));
}

TEST(StopRule, UnbalancedTextDoesNotEnd) {
  EXPECT_TRUE(complete_kernel_prefix(kSeed + " if (x) { a[0] = 1; }").empty());
  EXPECT_TRUE(complete_kernel_prefix(kSeed + " \"}\" /* } */ '}'").empty());
}

TEST(StopRule, FreeSignatureSeedEndsAfterTheFirstBlock) {
  EXPECT_EQ("__kernel void A(int a) { }", std::string(complete_kernel_prefix(
                                              "__kernel void A(int a) { } more")));
}

TEST(StopRule, StrayClosingBraceEndsTheText) {
  EXPECT_EQ("__kernel void A(int a) }", std::string(complete_kernel_prefix("__kernel void A(int a) }")));
}

TEST(StopRule, IncrementalFeedReportsTheCutInTheLastPiece) {
  KernelEndDetector d;
  EXPECT_EQ(KernelEndDetector::kNotEnded, d.feed("k() {"));
  EXPECT_EQ(1, d.depth());
  EXPECT_EQ(KernelEndDetector::kNotEnded, d.feed(" /"));  // '/' then '*' across pieces
  EXPECT_EQ(KernelEndDetector::kNotEnded, d.feed("* } */ x"));
  EXPECT_EQ(2u, d.feed(" }\n\n"));
  EXPECT_TRUE(d.ended());
  EXPECT_EQ(0u, d.feed("}"));
}

// A whole text: closing a function's block leaves the text open for more;
// closed() says where it may end.
TEST(StopRule, AWholeTextIsClosedBetweenFunctionsAndNeverEndsAtABrace) {
  KernelEndDetector d(/*whole_text=*/true);
  EXPECT_FALSE(d.closed()) << "no block yet";
  EXPECT_EQ(KernelEndDetector::kNotEnded, d.feed("int f() { return 1; }"));
  EXPECT_TRUE(d.closed());
  EXPECT_EQ(KernelEndDetector::kNotEnded, d.feed("\n__kernel void A() { /* } */ f();"));
  EXPECT_FALSE(d.closed()) << "the kernel's block is open";
  EXPECT_EQ(KernelEndDetector::kNotEnded, d.feed(" }\n"));
  EXPECT_TRUE(d.closed());
  d.reset();
  EXPECT_TRUE(d.whole_text()) << "reset keeps the mode";
}

TEST(StopRule, AStrayBraceBreaksAWholeText) {
  KernelEndDetector d(/*whole_text=*/true);
  EXPECT_EQ(5u, d.feed("{ } }x"));
  EXPECT_TRUE(d.ended());
  EXPECT_FALSE(d.closed());
}

}  // namespace
}  // namespace clgen::sampler
