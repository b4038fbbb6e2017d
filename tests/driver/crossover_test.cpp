// The crossover search on runtime functions with a known answer: a linear
// CPU against a GPU with a fixed launch cost, one with no crossover, one
// whose runtime fails, and bad bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "driver/crossover.h"

namespace clgen::driver {
namespace {

// CPU: 1 ms per 1000 items. GPU: 1 ms launch + 0.1 ms per 1000 items. The
// CPU is faster (or ties) while g/1000 <= 1 + 0.1 g/1000, i.e. g <= 10000/9
// = 1111.1: with step 1 the bracket ends at 1111 (CPU) and 1112 (GPU).
Expected<double> launch_cost(Side side, uint64_t g) {
  double k = static_cast<double>(g) / 1000;
  return side == Side::kCpu ? k : 1 + 0.1 * k;
}

TEST(CrossoverSearch, FindsTheSizeWhereALaunchCostStopsMattering) {
  std::set<uint64_t> probed;
  auto runtime = [&](Side side, uint64_t g) {
    probed.insert(g);
    return launch_cost(side, g);
  };
  CrossoverOptions o;
  o.low = 1;
  o.high = uint64_t{1} << 22;
  o.step = 1;
  auto c = find_crossover(runtime, o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->kind, Crossover::Kind::kFound);
  EXPECT_EQ(c->faster_below, Side::kCpu);
  EXPECT_EQ(c->faster_above, Side::kGpu);
  EXPECT_EQ(c->below, 1111u);
  EXPECT_EQ(c->above, 1112u);
  // Bisection: about log2(22) geometric halvings of the exponent, then
  // about log2(1111) arithmetic ones; far fewer than a sweep of every size.
  EXPECT_LE(c->probes.size(), 2u + 5u + 12u);
  EXPECT_EQ(probed.size(), c->probes.size());  // each size probed once
  for (const auto& p : c->probes) EXPECT_EQ(p.faster(), p.size <= 1111 ? Side::kCpu : Side::kGpu) << p.size;
}

TEST(CrossoverSearch, StepsKeepProbesOnMultiplesAndBoundTheBracket) {
  CrossoverOptions o;
  o.low = 64;
  o.high = 65536;
  o.step = 64;
  auto c = find_crossover(launch_cost, o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->kind, Crossover::Kind::kFound);
  // 1111 lies between the multiples of 64 1088 and 1152.
  EXPECT_EQ(c->below, 1088u);
  EXPECT_EQ(c->above, 1152u);
  for (const auto& p : c->probes) EXPECT_EQ(p.size % 64, 0u) << p.size;
}

TEST(CrossoverSearch, NoCrossoverInRangeIsReportedAsNoneAfterTheBounds) {
  // The GPU's launch cost never pays off below 1000 items: between 16 and
  // 1024 the CPU wins at both ends, and only the two bounds are probed.
  CrossoverOptions o;
  o.low = 16;
  o.high = 1024;
  o.step = 1;
  auto c = find_crossover(launch_cost, o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->kind, Crossover::Kind::kNone);
  EXPECT_EQ(c->faster_below, Side::kCpu);
  EXPECT_EQ(c->faster_above, Side::kCpu);
  EXPECT_EQ(c->probes.size(), 2u);
  EXPECT_NE(c->message.find("CPU is faster at both 16 and 1024"), std::string::npos) << c->message;
}

TEST(CrossoverSearch, AFailingRunEndsTheSearchNamingDeviceAndSize) {
  auto runtime = [](Side side, uint64_t g) -> Expected<double> {
    if (side == Side::kGpu && g > 100000) return unavailable("timeout");
    return launch_cost(side, g);
  };
  CrossoverOptions o;
  o.low = 64;
  o.high = 1 << 20;
  auto c = find_crossover(runtime, o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->kind, Crossover::Kind::kFailed);
  EXPECT_NE(c->message.find("GPU at global size 1048576: timeout"), std::string::npos) << c->message;
}

TEST(CrossoverSearch, BadBoundsAreAnError) {
  CrossoverOptions o;
  o.low = 1024;
  o.high = 1024;
  EXPECT_FALSE(find_crossover(launch_cost, o).ok());
  o.high = 2048;
  o.step = 0;
  EXPECT_FALSE(find_crossover(launch_cost, o).ok());
}

TEST(CrossoverSearch, ProbeBudgetStopsTheBisectionWithAValidBracket) {
  CrossoverOptions o;
  o.low = 1;
  o.high = uint64_t{1} << 22;
  o.step = 1;
  o.max_probes = 6;
  auto c = find_crossover(launch_cost, o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->kind, Crossover::Kind::kFound);
  EXPECT_EQ(c->probes.size(), 6u);
  EXPECT_LE(c->below, 1111u);  // still brackets the true crossover
  EXPECT_GE(c->above, 1112u);
}

}  // namespace
}  // namespace clgen::driver
