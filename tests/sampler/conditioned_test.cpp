// Sampling a feature-conditioned model: the header a stream starts after
// reaches the model but not the stream's text; which header each stream
// gets; restarts from the seed steered to targets; and the loop on a fake
// model that obeys its header.
#include <algorithm>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "sampler/batch_sampler.h"
#include "sampler/directed.h"
#include "sampler/start_headers.h"
#include "tests/sampler/scripted_model.h"

namespace clgen::sampler {
namespace {

using testing::ScriptedModel;

// A scripted model trained "with headers": its header for a vector is
// "h <comp>\n", and its training headers are given.
class ConditionedScript : public ScriptedModel {
 public:
  ConditionedScript(int streams, std::vector<std::string> scripts,
                    std::vector<std::pair<std::string, uint64_t>> training)
      : ScriptedModel(streams, std::move(scripts)), training_(std::move(training)) {}
  std::string feature_header(const GreweVector& f) const override { return "h " + std::to_string(f[0]) + "\n"; }
  std::vector<std::pair<std::string, uint64_t>> training_headers() const override { return training_; }

 private:
  std::vector<std::pair<std::string, uint64_t>> training_;
};

TEST(ConditionedStart, TheContextReachesTheModelBeforeTheSeedButNotTheSample) {
  ScriptedModel model(2, {" a; }"});
  BatchSamplerOptions o;
  o.seed_text = "k() {";
  o.constraint = nullptr;
  o.start = [](int) { return StreamStart{"k() {", 3, "// comp 1\n"}; };
  auto s = testing::first_samples(model, o, 3);
  ASSERT_EQ(3u, s.size());
  for (const RawSample& r : s) {
    EXPECT_EQ("k() { a; }", r.text);  // stored, filtered and featured without the header
    EXPECT_EQ(3, r.tag);
  }
  // After the batch's first feed (the plain seed, to every stream), every
  // feed is the header and the seed: each stream's first start and every
  // refill.
  ASSERT_GT(model.fed.size(), 2u);
  EXPECT_EQ("k() {", model.fed[0].second);
  EXPECT_EQ("k() {", model.fed[1].second);
  for (size_t i = 2; i < model.fed.size(); ++i) EXPECT_EQ("// comp 1\nk() {", model.fed[i].second) << i;
  EXPECT_GE(model.fed.size(), 2u + 2u + 1u);  // both streams' first start, and at least one refill
}

TEST(ConditionedStart, AStreamWithoutContextIsFedTheSeedAlone) {
  ScriptedModel model(1, {" a; }"});
  BatchSamplerOptions o;
  o.seed_text = "k() {";
  o.start = [](int) { return StreamStart{"k() {", 0, ""}; };
  testing::first_samples(model, o, 2);
  for (const auto& [stream, text] : model.fed) EXPECT_EQ("k() {", text);
}

TEST(StartHeaders, ATargetsStreamGetsItsHeaderAndOthersDrawTrainingHeadersByTheirCounts) {
  ConditionedScript model(1, {""}, {{"h 1\n", 3}, {"h 2\n", 1}});
  std::vector<Target> targets = {{"t0", {9, 0, 0, 0, 0, 0}}, {"t1", {4, 0, 0, 0, 0, 0}}};
  StartHeaders headers(model, targets, 7);
  ASSERT_TRUE(headers.conditioned());
  EXPECT_EQ("h 9\n", headers.header(0));
  EXPECT_EQ("h 4\n", headers.header(1));
  std::map<std::string, int> drawn;
  for (int i = 0; i < 4000; ++i) ++drawn[headers.header(i % 2 ? Director::kPlain : Director::kBaseline)];
  EXPECT_EQ(2u, drawn.size());
  EXPECT_NEAR(0.75, drawn["h 1\n"] / 4000.0, 0.04);  // 3 of 4 training kernels
}

TEST(StartHeaders, AnUnconditionedModelGetsNoHeader) {
  ScriptedModel model(1, {""});
  StartHeaders headers(model, {{"t", {1, 0, 0, 0, 0, 0}}}, 1);
  EXPECT_FALSE(headers.conditioned());
  EXPECT_EQ("", headers.header(0));
  EXPECT_EQ("", headers.header(Director::kPlain));
}

TEST(ConditionedDirector, RestartsFromTheSeedGoRoundRobinToTheUnmatchedTargets) {
  std::vector<Target> targets = {{"a", {1, 0, 0, 0, 0, 0}}, {"b", {2, 0, 0, 0, 0, 0}}, {"c", {3, 0, 0, 0, 0, 0}}};
  DirectorOptions opts;
  opts.conditioned = true;
  opts.plain_share = 1;  // every restart from the seed
  Director director(targets, "k() {", opts);
  std::vector<int64_t> tags;
  for (int i = 0; i < 4; ++i) tags.push_back(director.next().tag);
  EXPECT_EQ((std::vector<int64_t>{0, 1, 2, 0}), tags);
  director.observe(1, "k() { x; }", {2, 0, 0, 0, 0, 0});  // b is matched
  tags.clear();
  for (int i = 0; i < 4; ++i) {
    StreamStart s = director.next();
    EXPECT_EQ("k() {", s.text);
    tags.push_back(s.tag);
  }
  EXPECT_EQ((std::vector<int64_t>{2, 0, 2, 0}), tags);
}

TEST(ConditionedDirector, UnconditionedRestartsFromTheSeedStayUndirected) {
  DirectorOptions opts;
  opts.plain_share = 1;
  Director director({{"a", {1, 0, 0, 0, 0, 0}}}, "k() {", opts);
  EXPECT_EQ(Director::kPlain, director.next().tag);
  EXPECT_EQ(nullptr, director.target_of(director.next().tag));
}

// A fake conditioned model that obeys its header: fed "h N\n" + seed it
// writes N statements " x;" and closes the kernel; without a header, 1.
class ObedientModel : public testing::PlannedModel {
 public:
  explicit ObedientModel(int streams) : PlannedModel(streams) {}
  std::string model_id() const override { return "obedient"; }
  std::string feature_header(const GreweVector& f) const override { return "h " + std::to_string(f[0]) + "\n"; }
  std::vector<std::pair<std::string, uint64_t>> training_headers() const override { return {{"h 1\n", 1}}; }
  std::string plan(std::string_view fed) override {
    int n = 1;
    if (fed.rfind("h ", 0) == 0) n = std::stoi(std::string(fed.substr(2, fed.find('\n') - 2)));
    std::string p;
    for (int k = 0; k < n; ++k) p += " x;";
    return p + " }";
  }
};

// The pipeline's wiring of StartHeaders into the Director's starts, on the
// obedient model: the number of kernels until `target` (comp = statements)
// is matched, or 0 when not within `samples`.
size_t kernels_until_matched(bool baseline, long target, size_t samples) {
  ObedientModel model(2);
  std::vector<Target> targets = {{"t", {target, 0, 0, 0, 0, 0}}};
  StartHeaders headers(model, targets, 1);
  DirectorOptions opts;
  opts.conditioned = headers.conditioned();
  if (baseline) {
    opts.baseline_slice_seconds = 1;
    opts.clock = [] { return 1.5; };  // always undirected
  }
  Director director(targets, "k() {", opts);
  BatchSamplerOptions o;
  o.seed_text = "k() {";
  o.start = [&](int) {
    StreamStart s = director.next();
    s.context = headers.header(s.tag);
    return s;
  };
  BatchSampler sampler(model, o);
  size_t n = 0, matched_at = 0;
  Status st = sampler.run(
      [&](RawSample&& s) {
        ++n;
        const long statements = long(std::count(s.text.begin(), s.text.end(), 'x'));
        director.observe(s.tag, s.text, {statements, 0, 0, 0, 0, 0});
        if (statements == target && !matched_at) matched_at = n;
        return n < samples && !matched_at;
      },
      [] { return false; });
  EXPECT_TRUE(st.ok()) << st.message();
  return matched_at;
}

TEST(ConditionedSteering, TheTargetsHeaderMakesTheModelWriteItFromTheSeed) {
  // Directed: the first start (no kernel yet) is from the seed for the
  // target, after its header: the model writes 5 statements at once.
  EXPECT_EQ(1u, kernels_until_matched(false, 5, 50));
  // Undirected streams draw the training header "h 1": 5 is never written.
  EXPECT_EQ(0u, kernels_until_matched(true, 5, 50));
}

}  // namespace
}  // namespace clgen::sampler
