// Tests of the sampling pieces on synthetic probability vectors.
#include "sampler/policy.h"

#include <cmath>
#include <map>

#include <gtest/gtest.h>

namespace clgen::sampler {
namespace {

Candidates from_probs(const std::vector<double>& p) {
  std::vector<float> logits;
  for (double x : p) logits.push_back(static_cast<float>(std::log(x)));
  return Candidates::from_logits(logits.data(), static_cast<int>(logits.size()));
}

TEST(Policy, SoftmaxRecoversProbabilities) {
  auto p = from_probs({0.1, 0.2, 0.7}).probabilities();
  EXPECT_NEAR(0.1, p[0], 1e-6);
  EXPECT_NEAR(0.2, p[1], 1e-6);
  EXPECT_NEAR(0.7, p[2], 1e-6);
}

TEST(Policy, LowTemperatureSharpensAndHighFlattens) {
  Candidates cold = from_probs({0.25, 0.75});
  Temperature(0.5).apply(cold);
  EXPECT_NEAR(0.9, cold.probabilities()[1], 1e-6);  // 0.75^2 / (0.75^2 + 0.25^2)
  Candidates hot = from_probs({0.25, 0.75});
  Temperature(1000).apply(hot);
  EXPECT_NEAR(0.5, hot.probabilities()[1], 1e-3);
}

TEST(Policy, TopKKeepsTheKMostLikely) {
  Candidates c = from_probs({0.1, 0.4, 0.2, 0.3});
  TopK(2).apply(c);
  EXPECT_EQ((std::vector<int32_t>{1, 3}), c.ids);
  auto p = c.probabilities();
  EXPECT_NEAR(4.0 / 7, p[0], 1e-6);
  Candidates all = from_probs({0.5, 0.5});
  TopK(0).apply(all);
  EXPECT_EQ(2u, all.ids.size());
}

TEST(Policy, TopPKeepsTheSmallestSetReachingP) {
  Candidates c = from_probs({0.05, 0.5, 0.15, 0.3});
  TopP(0.8).apply(c);
  EXPECT_EQ((std::vector<int32_t>{1, 3}), c.ids);
  Candidates one = from_probs({0.05, 0.9, 0.05});
  TopP(0.1).apply(one);
  EXPECT_EQ((std::vector<int32_t>{1}), one.ids);
  Candidates all = from_probs({0.2, 0.8});
  TopP(1.0).apply(all);
  EXPECT_EQ(2u, all.ids.size());
}

TEST(Policy, DrawsFollowTheDistribution) {
  Candidates c = from_probs({0.2, 0.5, 0.3});
  Rng rng(42);
  std::map<int32_t, int> counts;
  const int n = 20000;
  for (int i = 0; i < n; ++i) ++counts[draw(c, rng)];
  EXPECT_NEAR(0.2, counts[0] / double(n), 0.02);
  EXPECT_NEAR(0.5, counts[1] / double(n), 0.02);
  EXPECT_NEAR(0.3, counts[2] / double(n), 0.02);
}

TEST(Policy, SameSeedSameDraws) {
  Rng a(7), b(7), c(8);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
  }
  EXPECT_TRUE(differs);
  double u = Rng(1).uniform();
  EXPECT_GE(u, 0.0);
  EXPECT_LT(u, 1.0);
}

TEST(Policy, ZeroTemperatureIsGreedy) {
  std::vector<float> logits = {0.1f, 2.0f, 1.9f};
  auto chain = policy_chain(SamplingPolicy{0.0, 0, 1.0}, 1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(1, chain->sample(logits.data(), 3).token);
}

TEST(Policy, ChainWithTopKNeverDrawsOutsideTheTopK) {
  std::vector<float> logits = {1.0f, 1.1f, 1.2f, 5.0f, 4.0f};
  auto chain = policy_chain(SamplingPolicy{2.0, 2, 1.0}, 3);
  std::map<int32_t, int> counts;
  for (int i = 0; i < 2000; ++i) ++counts[chain->sample(logits.data(), 5).token];
  EXPECT_EQ(2u, counts.size());
  EXPECT_GT(counts[3], 0);
  EXPECT_GT(counts[4], 0);
}

}  // namespace
}  // namespace clgen::sampler
