// Tests of resuming rejected samples from before their error's line.
#include "sampler/error_resume.h"

#include <gtest/gtest.h>

namespace clgen::sampler {
namespace {

TEST(ResumePrefix, KeepsTheLinesBeforeTheLineOfTheError) {
  EXPECT_EQ("int f;\nint g;\n",
            resume_prefix("int f;\nint g;\nint h = x;\n}", "input.cl:3:9: use of undeclared identifier 'x'", ""));
  const std::string seed = "__kernel void A(__global float* a) {";
  EXPECT_EQ(seed + "\n  int i = 0;\n", resume_prefix(seed + "\n  int i = 0;\n  a[i] = b;\n}",
                                                     "input.cl:3:10: use of undeclared identifier 'b'", seed));
}

TEST(ResumePrefix, NoneWhenTheReasonNamesNoLine) {
  EXPECT_EQ(std::nullopt, resume_prefix("a\nb\n", "the kernel writes no global memory", ""));
  EXPECT_EQ(std::nullopt, resume_prefix("a\nb\n", "other.cl:2:1: error", ""));
}

TEST(ResumePrefix, NoneWhenNothingBeyondTheSeedWouldBeKept) {
  EXPECT_EQ(std::nullopt, resume_prefix("int f = x;\n", "input.cl:1:9: use of undeclared identifier 'x'", ""));
  const std::string seed = "__kernel void A(int a) {";
  EXPECT_EQ(std::nullopt, resume_prefix(seed + " a = x; }", "input.cl:1:30: error", seed));
}

TEST(ResumePrefix, NoneForALineTheTextDoesNotHave) {
  EXPECT_EQ(std::nullopt, resume_prefix("a\nb", "input.cl:9:1: error", ""));
  EXPECT_EQ(std::nullopt, resume_prefix("a\nb", "input.cl:99999999999999999999999:1: error", ""));
}

TEST(ResumeQueue, GivesResumesInTheOrderQueuedAndDropsThoseBeyondItsCapacity) {
  ResumeQueue q(2);
  q.push({"a", 1});
  q.push({"b", 2});
  q.push({"c", 1});
  EXPECT_EQ(2u, q.queued());
  EXPECT_EQ(1u, q.dropped());
  std::optional<Resume> r = q.pop();
  ASSERT_TRUE(r);
  EXPECT_EQ("a", r->prefix);
  EXPECT_EQ(1, r->depth);
  EXPECT_EQ("b", q.pop()->prefix);
  EXPECT_FALSE(q.pop().has_value());
}

}  // namespace
}  // namespace clgen::sampler
