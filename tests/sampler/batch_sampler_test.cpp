// Tests of the sampling loop (stop rule, max length, refill) with a model
// that emits scripted tokens.
#include "sampler/batch_sampler.h"

#include <gtest/gtest.h>

#include "sampler/constraint_tables.h"
#include "tests/sampler/scripted_model.h"

namespace clgen::sampler {
namespace {

using testing::ScriptedModel;

std::vector<RawSample> run(ScriptedModel& model, size_t n, int max_length = 100,
                           const std::string& seed = "k() {") {
  BatchSamplerOptions o;
  o.seed_text = seed;
  o.max_length = max_length;
  return testing::first_samples(model, o, n);
}

TEST(BatchSampler, StreamEndsAtTheKernelsClosingBrace) {
  ScriptedModel model(1, {" a; } trailing text"});
  auto s = run(model, 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_EQ("k() { a; }", s[0].text);
  EXPECT_TRUE(s[0].complete);
  EXPECT_EQ(5, s[0].tokens);
}

TEST(BatchSampler, BracesInLiteralsDoNotEndTheStream) {
  ScriptedModel model(1, {" c = '}'; s = \"}\"; /* } */ }"});
  auto s = run(model, 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_EQ("k() { c = '}'; s = \"}\"; /* } */ }", s[0].text);
}

TEST(BatchSampler, UnbalancedStreamStopsAtMaxLength) {
  ScriptedModel model(1, {" { { { never closed"});
  auto s = run(model, 1, /*max_length=*/8);
  ASSERT_EQ(1u, s.size());
  EXPECT_FALSE(s[0].complete);
  EXPECT_EQ(8, s[0].tokens);
  EXPECT_EQ("k() { { { { n", s[0].text);
}

TEST(BatchSampler, EndTokenFinishesAnIncompleteStream) {
  ScriptedModel model(1, {" x"});  // then the end token
  auto s = run(model, 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_FALSE(s[0].complete);
  EXPECT_EQ("k() { x", s[0].text);
}

TEST(BatchSampler, FinishedStreamsAreRefilledWithTheSeed) {
  // Short and long scripts interleave: short streams finish and restart
  // while long ones keep going, so the batch stays full.
  ScriptedModel model(3, {"}", " aaaaaaaa }", "}"});
  std::vector<int> per_step;  // samples delivered by each step
  BatchSamplerOptions o;
  o.seed_text = "k() {";
  BatchSampler sampler(model, o);
  std::vector<RawSample> s;
  int last_step = -1;
  ASSERT_TRUE(sampler
                  .run(
                      [&](RawSample&& r) {
                        if (model.steps != last_step) per_step.push_back(0), last_step = model.steps;
                        ++per_step.back();
                        s.push_back(std::move(r));
                        return s.size() < 20;
                      },
                      [] { return false; })
                  .ok());
  ASSERT_EQ(20u, s.size());
  // The first feed_all feeds every stream; then each finished stream is fed
  // the seed again once, except those finishing in the final step.
  for (const auto& [stream, text] : model.fed) EXPECT_EQ("k() {", text);
  EXPECT_EQ(3u + 20u - per_step.back(), model.fed.size());
  EXPECT_EQ(3u + 20u - per_step.back(), model.starts);
  int long_ones = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(i, s[i].index);
    EXPECT_TRUE(s[i].complete);
    EXPECT_TRUE(s[i].text == "k() {}" || s[i].text == "k() { aaaaaaaa }") << s[i].text;
    long_ones += s[i].text == "k() { aaaaaaaa }";
  }
  EXPECT_GE(long_ones, 1) << "a long stream ran to its end beside refilled short ones";
  // Streams 0 and 2 finish in the first step, in stream order.
  EXPECT_EQ(2, per_step.front());
}

TEST(BatchSampler, StopsWhenAsked) {
  ScriptedModel model(2, {" a }"});
  BatchSampler sampler(model, {});
  int steps = 0;
  Status st = sampler.run([](RawSample&&) { return true; }, [&] { return ++steps > 3; });
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(3, model.steps);
}

// Stream 0 writes one long sample; stream 1 one short sample a step.
ScriptedModel one_long_then_short() {
  std::vector<std::string> scripts = {" aaaaaaaa }"};  // 11 steps
  scripts.resize(40, "}");
  return ScriptedModel(2, scripts);
}

BatchSamplerOptions signature_seed() {
  BatchSamplerOptions o;
  o.seed_text = "k() {";
  return o;
}

TEST(BatchSampler, ADrainDeliversTheSamplesInFlightAndNoneBegunDuringIt) {
  ScriptedModel model = one_long_then_short();
  BatchSampler sampler(model, signature_seed());
  std::vector<RawSample> s;
  std::vector<uint64_t> skipped;
  ASSERT_TRUE(sampler
                  .run(
                      [&](RawSample&& r) {
                        if (r.discarded) skipped.push_back(r.index);
                        else s.push_back(std::move(r));
                        return true;
                      },
                      [] { return false; }, [&] { return model.steps >= 2; })
                  .ok());
  // Short samples begun before the drain: at the start and after steps 1
  // and 2; then the long one, which began first and ends at step 11.
  ASSERT_EQ(4u, s.size());
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ("k() {}", s[i].text) << i;
  EXPECT_EQ("k() { aaaaaaaa }", s[3].text);
  EXPECT_TRUE(s[3].complete);
  // Stream 1's short samples begun during the drain end at steps 4 to 11
  // (the last beside the long one, after it in stream order): numbered as
  // in a run that went on, not kept.
  EXPECT_EQ((std::vector<uint64_t>{3, 4, 5, 6, 7, 8, 9, 11}), skipped);
  EXPECT_EQ(0u, s[0].index);
  EXPECT_EQ(2u, s[2].index);
  EXPECT_EQ(10u, s[3].index) << "the index the long sample has in a run without a stop";
  EXPECT_EQ(11, model.steps) << "the run returns once the last sample in flight is delivered";
  EXPECT_EQ(2u, sampler.stats().drained);
}

TEST(BatchSampler, AStopWithoutADrainDropsTheSamplesInFlight) {
  ScriptedModel model = one_long_then_short();
  BatchSampler sampler(model, signature_seed());
  std::vector<RawSample> s;
  ASSERT_TRUE(
      sampler.run([&](RawSample&& r) { return s.push_back(std::move(r)), true; }, [&] { return model.steps >= 2; })
          .ok());
  ASSERT_EQ(2u, s.size()) << "the short samples that ended first";
  for (const RawSample& r : s) EXPECT_EQ("k() {}", r.text);
  EXPECT_EQ(0u, sampler.stats().drained);
}

// Whole texts: a sample starts where a corpus text starts and ends at the
// model's end token, so helpers and preambles before the kernel are kept.
std::vector<RawSample> run_whole(ScriptedModel& model, size_t n, int max_length = 200) {
  BatchSamplerOptions o;
  o.seed_text = "";
  o.whole_text = true;
  o.max_length = max_length;
  return testing::first_samples(model, o, n);
}

TEST(BatchSampler, AWholeTextKeepsItsHelpersAndEndsAtTheEndToken) {
  const std::string text = "#define N 4\nint f() { return N; }\n__kernel void A() { f(); }\n";
  ScriptedModel model(1, {text});  // then the end token
  auto s = run_whole(model, 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_TRUE(s[0].complete);
  EXPECT_EQ(text, s[0].text) << "the first closing brace ends no whole text";
  ASSERT_FALSE(model.fed.empty());
  EXPECT_EQ("", model.fed[0].second) << "fed nothing after the separator";
}

TEST(BatchSampler, AWholeTextEndedWithABlockOpenIsIncomplete) {
  ScriptedModel model(1, {"int f() { return 1; }\n__kernel void A() { f();"});
  auto s = run_whole(model, 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_FALSE(s[0].complete);
}

TEST(BatchSampler, AWholeTextWithoutAnyBlockIsIncomplete) {
  ScriptedModel model(1, {"#define N 4\n"});
  auto s = run_whole(model, 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_FALSE(s[0].complete);
}

TEST(BatchSampler, AStrayClosingBraceEndsAWholeTextIncomplete) {
  ScriptedModel model(1, {"int f() { }\n} more"});
  auto s = run_whole(model, 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_FALSE(s[0].complete);
  EXPECT_EQ("int f() { }\n}", s[0].text);
}

// --args on a whole text: the helper before the kernel stays free; once the
// model writes `__kernel` at file scope the rest of the prototype is forced,
// with names the text has not used (the helper took A), and the kernel's
// closing brace ends the sample. The scripted model moves on one character
// per step while the forced tokens replay, hence the placeholders.
TEST(BatchSampler, ArgsForceTheKernelsPrototypeAfterFreeHelpers) {
  const std::string helper = "void A() {}\n__kernel";
  const std::string forced = " void B(__global float* a, const int b) {";
  ScriptedModel model(1, {helper + std::string(forced.size(), '_') + " a[0] = b; } after"});
  BatchSamplerOptions o;
  o.seed_text = "";
  o.whole_text = true;
  o.force_kernel = true;
  auto args = parse_arg_spec("float*,int");
  ASSERT_TRUE(args.ok());
  o.forced_args = *args;
  BatchSamplerStats stats;
  auto s = testing::first_samples(model, o, 1, &stats);
  ASSERT_EQ(1u, s.size());
  EXPECT_TRUE(s[0].complete);
  EXPECT_EQ(helper + forced + " a[0] = b; }", s[0].text);
  EXPECT_EQ(int(forced.size()), s[0].forced);
}

TEST(BatchSampler, SeedThatClosesTheKernelIsRejected) {
  ScriptedModel model(1, {"}"});
  BatchSamplerOptions o;
  o.seed_text = "k() { }";
  BatchSampler sampler(model, o);
  Status st = sampler.run([](RawSample&&) { return true; }, [] { return false; });
  EXPECT_FALSE(st.ok());
}

}  // namespace
}  // namespace clgen::sampler

namespace clgen::sampler {
namespace {

// Every step: 'a', 'b' or '}' with equal probability, so the texts depend
// only on the RNG.
class CoinModel : public testing::ScriptedModel {
 public:
  explicit CoinModel(int streams) : ScriptedModel(streams, {""}) {}
  Expected<std::vector<float>> logits() override {
    std::vector<float> out(size_t(streams()) * 257, -1e9f);
    for (int i = 0; i < streams(); ++i)
      for (char c : {'a', 'b', '}'}) out[size_t(i) * 257 + c] = 0.0f;
    return out;
  }
};

std::vector<std::string> coin_texts(uint64_t seed, int streams = 4, unsigned threads = 1) {
  CoinModel model(streams);
  BatchSamplerOptions o;
  o.seed_text = "k() {";
  o.seed = seed;
  o.threads = threads;
  BatchSampler sampler(model, o);
  std::vector<std::string> out;
  EXPECT_TRUE(sampler
                  .run(
                      [&](RawSample&& s) {
                        out.push_back(s.text);
                        return out.size() < 500;
                      },
                      [] { return false; })
                  .ok());
  return out;
}

TEST(BatchSampler, SameSeedReproducesTheSamples) {
  EXPECT_EQ(coin_texts(5), coin_texts(5));
  EXPECT_NE(coin_texts(5), coin_texts(6));
}

TEST(BatchSampler, ThreadCountDoesNotChangeTheSamples) {
  // 256 streams are split into 8 ranges on 8 threads: each stream draws
  // from its own generator, so the split cannot change what it draws.
  auto one = coin_texts(7, 256, 1);
  EXPECT_EQ(one, coin_texts(7, 256, 8));
  EXPECT_EQ(one, coin_texts(7, 256, 3));
}

// Repair instead of abandon: the scripted model writes "1)" where the
// constraint allows no ')', and --max-refusals 1 gives up at the first
// refused draw. A repair backs up 8 tokens (characters here) and the next
// script continues the kept text; the model advances through its script
// while the kept text is replayed, so each later script starts with three
// placeholders for the kept "\n  " (11 characters less 8).
class RepairTest : public ::testing::Test {
 protected:
  const std::string seed = "__kernel void A(__global float* a) {";
  ConstraintTables tables = ConstraintTables::from_corpus({seed + "\n  a[0] = 1;\n}\n"});
  BatchSamplerOptions options(int max_repairs) {
    BatchSamplerOptions o;
    o.seed_text = seed;
    o.constraint = &tables;
    o.max_refusals = 1;
    o.max_repairs = max_repairs;
    o.repair_backup = 8;
    return o;
  }
};

TEST_F(RepairTest, WithoutRepairsARefusedStreamIsAbandoned) {
  ScriptedModel model(1, {"\n  a[0] = 1)"});
  BatchSamplerStats stats;
  auto s = testing::first_samples(model, options(0), 1, &stats);
  ASSERT_EQ(1u, s.size());
  EXPECT_TRUE(s[0].dead_end);
  EXPECT_EQ(seed + "\n  a[0] = 1", s[0].text);
  EXPECT_EQ(0, s[0].repairs);
  EXPECT_EQ(1u, stats.abandoned);
}

// Why a stream ended: each refused draw with where in the text it was drawn
// (the reason a stored truncated sample gives, docs/SAMPLER.md).
TEST_F(RepairTest, AnAbandonedStreamRecordsTheRefusedDrawAndWhere) {
  ScriptedModel model(1, {"\n  a[0] = 1)"});
  auto s = testing::first_samples(model, options(0), 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_EQ(std::to_string((seed + "\n  a[0] = 1").size()) + ":')'", s[0].refused_draws);
}

TEST_F(RepairTest, ARefusedStreamBacksUpAndCompletes) {
  ScriptedModel model(1, {"\n  a[0] = 1)", "xxxa[0] = 1;\n}"});
  BatchSamplerStats stats;
  auto s = testing::first_samples(model, options(2), 1, &stats);
  ASSERT_EQ(1u, s.size());
  EXPECT_TRUE(s[0].complete);
  EXPECT_FALSE(s[0].dead_end);
  EXPECT_EQ(seed + "\n  a[0] = 1;\n}", s[0].text);
  EXPECT_EQ(1, s[0].repairs);
  EXPECT_EQ(11 + 11, s[0].tokens);  // "\n  a[0] = 1" before the repair, "a[0] = 1;\n}" after
  EXPECT_EQ(1u, stats.repairs);
  EXPECT_EQ(3u, stats.repair_tokens);  // "\n  " replayed
  EXPECT_EQ(0u, stats.abandoned);
  // Fed the seed twice: at the start and at the repair.
  ASSERT_EQ(2u, model.fed.size());
  EXPECT_EQ(seed, model.fed[1].second);
}

// max_refusals 0: however many draws the constraint refuses, each is
// redrawn from the allowed tokens, and the stream is never cut for them.
TEST_F(RepairTest, WithoutARefusalLimitAStreamIsNeverAbandoned) {
  ScriptedModel model(1, {"\n  a[0] = 1))))))))))))"});
  BatchSamplerOptions o = options(0);
  o.max_refusals = 0;
  o.max_length = 40;
  BatchSamplerStats stats;
  auto s = testing::first_samples(model, o, 1, &stats);
  ASSERT_EQ(1u, s.size());
  EXPECT_GE(s[0].refusals, 2) << "a limit of 1 would have ended it at the first: " << s[0].refused_draws;
  EXPECT_EQ(0u, stats.abandoned);
}

// With a correction, each sample carries the log of the share of the
// model's probability the constraint left it: 0 when every draw was
// allowed, far below 0 once the model's choice (probability ~1) is refused.
TEST_F(RepairTest, ASamplesLogWeightCountsWhatTheConstraintTookAway) {
  BatchSamplerOptions o = options(0);
  o.max_refusals = 0;
  o.correction = 1;
  ScriptedModel allowed(1, {"\n  a[0] = 1;\n}"});
  auto s = testing::first_samples(allowed, o, 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_TRUE(s[0].complete);
  EXPECT_DOUBLE_EQ(0.0, s[0].log_weight);
  ScriptedModel refused(1, {"\n  a[0] = 1);\n}"});
  o.max_length = 20;
  s = testing::first_samples(refused, o, 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_LT(s[0].log_weight, -50) << "the scripted ')' holds all but e^-60 of each draw";
}

TEST_F(RepairTest, RepairsAreBoundedPerSample) {
  ScriptedModel model(1, {"\n  a[0] = 1)", "xxxa[0] = 1)", "xxxa[0] = 1)"});
  BatchSamplerStats stats;
  auto s = testing::first_samples(model, options(2), 1, &stats);
  ASSERT_EQ(1u, s.size());
  EXPECT_TRUE(s[0].dead_end);
  EXPECT_EQ(2, s[0].repairs);
  EXPECT_EQ(2u, stats.repairs);
  EXPECT_EQ(1u, stats.abandoned);
}

}  // namespace
}  // namespace clgen::sampler
