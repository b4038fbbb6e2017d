// CPU time by pass (corpus/preprocess/pass_times.h).
#include "corpus/preprocess/pass_times.h"

#include <stdlib.h>
#include <time.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace clgen::preprocess {
namespace {

// Spends about `seconds` of this thread's CPU time.
void burn(double seconds) {
  auto now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
  };
  const double until = now() + seconds;
  volatile unsigned x = 0;
  while (now() < until) x = x + 1;
}

TEST(PassTimer, CountsANestedTimersTimeOnlyOnceAndSpansWhole) {
  const auto before = pass_times();
  {
    PassTimer span("test-span", true);
    PassTimer outer("test-outer");
    burn(0.05);
    {
      PassTimer inner("test-inner");
      burn(0.05);
    }
  }
  auto after = pass_times();
  auto delta = [&](const char* pass) {
    auto b = before.find(pass);
    return after[pass].seconds - (b == before.end() ? 0.0 : b->second.seconds);
  };
  // outer: 0.1 s in its scope, 0.05 s of it the inner timer's; the span
  // takes nothing from the timers inside it and records all 0.1 s.
  EXPECT_NEAR(delta("test-outer"), 0.05, 0.02);
  EXPECT_NEAR(delta("test-inner"), 0.05, 0.02);
  EXPECT_NEAR(delta("test-span"), 0.10, 0.03);
  EXPECT_EQ(after["test-inner"].calls, 1);
}

TEST(PassTimer, WritesTotalsOnlyWhenTheEnvironmentNamesAFile) {
  { PassTimer t("test-written"); }
  const std::string path = ::testing::TempDir() + "pass_times_test.txt";
  std::remove(path.c_str());
  ::unsetenv("CLGEN_PASS_TIMES");
  write_pass_times();
  EXPECT_FALSE(std::ifstream(path).good());
  ::setenv("CLGEN_PASS_TIMES", path.c_str(), 1);
  write_pass_times();
  ::unsetenv("CLGEN_PASS_TIMES");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("test-written "), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("\nprocess "), std::string::npos) << text.str();
}

}  // namespace
}  // namespace clgen::preprocess
