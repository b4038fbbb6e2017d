// Tests of the sampler chain: steps cloned per stream, a constraint that
// gates the draws (redraw from the allowed tokens, the refusal limit, dead
// ends), and the code constraint as a step.
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "sampler/constraint_step.h"
#include "sampler/policy.h"

namespace clgen::sampler {
namespace {

// Allows only even tokens; counts what it was told.
class EvenOnly : public ConstraintStep {
 public:
  bool allows(int32_t t) const override { return t % 2 == 0; }
  void apply(Candidates& c) override {
    Candidates kept;
    for (size_t i = 0; i < c.ids.size(); ++i)
      if (allows(c.ids[i])) kept.ids.push_back(c.ids[i]), kept.logits.push_back(c.logits[i]);
    c = kept;
  }
  void accept(int32_t) override { ++accepted; }
  void reset() override { accepted = 0; }
  std::unique_ptr<SamplerStep> clone() const override { return std::make_unique<EvenOnly>(*this); }
  int accepted = 0;
};

TEST(SamplerChain, AClonedChainContinuesTheSameDrawsIndependently) {
  std::vector<float> logits(8, 0.0f);
  auto a = policy_chain(SamplingPolicy{1.0, 0, 1.0}, 5);
  for (int i = 0; i < 3; ++i) a->sample(logits.data(), 8);
  auto b = a->clone();
  std::vector<int32_t> from_a, from_b;
  for (int i = 0; i < 20; ++i) from_a.push_back(a->sample(logits.data(), 8).token);
  auto& chain_b = static_cast<SamplerChain&>(*b);
  for (int i = 0; i < 20; ++i) from_b.push_back(chain_b.sample(logits.data(), 8).token);
  EXPECT_EQ(from_a, from_b);
}

TEST(SamplerChain, ARefusedDrawIsRedrawnFromTheAllowedTokens) {
  // Token 1 is by far the most likely, and refused: every choice is a
  // redraw, and lands on 0 or 2.
  std::vector<float> logits = {0.0f, 10.0f, 0.0f, -50.0f};
  auto chain = policy_chain(SamplingPolicy{1.0, 0, 1.0}, 7);
  chain->constrain(std::make_unique<EvenOnly>(), 1000);
  std::map<int32_t, int> counts;
  for (int i = 0; i < 200; ++i) {
    Choice c = chain->sample(logits.data(), 4);
    EXPECT_TRUE(c.refused);
    EXPECT_FALSE(c.abandoned || c.dead_end);
    ++counts[c.token];
  }
  EXPECT_EQ(200, chain->refusals());
  EXPECT_EQ(2u, counts.size());
  EXPECT_GT(counts[0], 50);
  EXPECT_GT(counts[2], 50);
}

TEST(SamplerChain, ASampleEndsAtItsRefusalLimitUntilReset) {
  std::vector<float> logits = {-50.0f, 10.0f};
  auto chain = policy_chain(SamplingPolicy{0.0, 0, 1.0}, 1);  // greedy: always 1
  chain->constrain(std::make_unique<EvenOnly>(), 3);
  EXPECT_EQ(0, chain->sample(logits.data(), 2).token);
  EXPECT_EQ(0, chain->sample(logits.data(), 2).token);
  Choice third = chain->sample(logits.data(), 2);
  EXPECT_TRUE(third.abandoned);
  EXPECT_EQ(1, third.token);  // the refused draw
  chain->reset();
  EXPECT_EQ(0, chain->refusals());
  EXPECT_FALSE(chain->sample(logits.data(), 2).abandoned);
}

// Refuses every token.
class Nothing : public EvenOnly {
 public:
  bool allows(int32_t) const override { return false; }
  void apply(Candidates& c) override { c.ids.clear(), c.logits.clear(); }
  std::unique_ptr<SamplerStep> clone() const override { return std::make_unique<Nothing>(*this); }
};

TEST(SamplerChain, NoAllowedTokenIsADeadEnd) {
  std::vector<float> logits = {-1.0f, 0.0f};
  auto chain = policy_chain(SamplingPolicy{1.0, 0, 1.0}, 1);
  chain->constrain(std::make_unique<Nothing>(), 10);
  Choice c = chain->sample(logits.data(), 2);
  EXPECT_TRUE(c.refused);
  EXPECT_TRUE(c.dead_end);
  EXPECT_FALSE(c.abandoned);
}

// The share of the tempered softmax the constraint allows: the factor by
// which a redraw renormalizes, so the importance weight of a draw.
TEST(SamplerChain, AllowedMassIsTheShareOfTheDistributionTheConstraintAllows) {
  // Probabilities 1/2 (token 0), 1/4 (1), 1/8 (2), 1/8 (3) at temperature 1.
  std::vector<float> logits = {float(std::log(4.0)), float(std::log(2.0)), 0.0f, 0.0f};
  auto chain = policy_chain(SamplingPolicy{1.0, 0, 1.0}, 1);
  EXPECT_DOUBLE_EQ(1.0, chain->allowed_mass(logits.data(), 4, 1.0, 1e-4)) << "no constraint: everything";
  chain->constrain(std::make_unique<EvenOnly>(), 0);
  EXPECT_NEAR(0.625, chain->allowed_mass(logits.data(), 4, 1.0, 1e-4), 1e-9);  // 1/2 + 1/8
  // At temperature 2 the logits halve: weights 2, sqrt 2, 1, 1.
  const double total = 2 + std::sqrt(2.0) + 2;
  EXPECT_NEAR(3 / total, chain->allowed_mass(logits.data(), 4, 2.0, 1e-4), 1e-9);
  // Tokens below min_probability count as allowed.
  // Token 1 (1/4) is refused; token 3 (1/8 < 0.2) is not looked at.
  EXPECT_NEAR(0.75, chain->allowed_mass(logits.data(), 4, 1.0, 0.2), 1e-9);
}

TEST(SamplerChain, AcceptAndResetReachTheConstraint) {
  auto chain = policy_chain(SamplingPolicy{1.0, 0, 1.0}, 1);
  auto step = std::make_unique<EvenOnly>();
  EvenOnly* seen = step.get();
  chain->constrain(std::move(step), 4);
  chain->accept(2);
  chain->accept(4);
  EXPECT_EQ(2, seen->accepted);
  chain->reset();
  EXPECT_EQ(0, seen->accepted);
}

TEST(CodeConstraintStep, ResetRestoresTheStateAfterTheSeedAndClonesAreIndependent) {
  static const ConstraintTables tables =
      ConstraintTables::from_corpus({"__kernel void A(__global float* a) {\n  a[0] = 1.0f;\n}\n"});
  auto start = std::make_shared<CodeConstraint>(&tables);
  start->feed("__kernel void A(__global float* a) {\n  a[0]");
  std::vector<std::string> texts = {")", " ", "]", ""};
  CodeConstraintStep step(start, &texts, 3);
  EXPECT_FALSE(step.allows(0));  // ')' with no '(' open
  EXPECT_TRUE(step.allows(1));
  EXPECT_FALSE(step.allows(3));  // the end token: '{' is open
  auto other = step.clone();
  step.accept(1);                // "a[0] "
  EXPECT_FALSE(step.allows(1));  // no second space
  EXPECT_TRUE(static_cast<CodeConstraintStep&>(*other).allows(1));
  step.reset();
  EXPECT_TRUE(step.allows(1));
  Candidates c = Candidates::from_logits(std::vector<float>(4, 0.0f).data(), 4);
  step.apply(c);
  EXPECT_EQ(std::vector<int32_t>({1}), c.ids);
}

}  // namespace
}  // namespace clgen::sampler
