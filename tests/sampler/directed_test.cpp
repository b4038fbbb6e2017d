// Tests of directed sampling's search: nearest kernels per target, prefix
// cuts, replayed start texts in the batch sampler, --explore's choice, and
// the steering loop on a fake model and a fake feature function.
#include "sampler/directed.h"

#include <cmath>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "sampler/batch_sampler.h"
#include "sampler/constraint_tables.h"
#include "tests/sampler/scripted_model.h"

namespace clgen::sampler {
namespace {

using testing::ScriptedModel;

std::shared_ptr<const FeaturedKernel> kernel(std::string text, GreweVector f) {
  return std::make_shared<const FeaturedKernel>(FeaturedKernel{std::move(text), f});
}

TEST(NearestKernels, KeepsTheBeamNearestDistinctKernelsPerTarget) {
  std::vector<Target> targets = {{"t", {4, 0, 0, 0, 0, 0}}};
  NearestKernels n(&targets, 2);
  EXPECT_EQ(1u, n.add(kernel("k1", {1, 0, 0, 0, 0, 0})));
  EXPECT_EQ(1u, n.add(kernel("k3", {3, 0, 0, 0, 0, 0})));
  EXPECT_EQ(0u, n.add(kernel("k0", {0, 0, 0, 0, 0, 0})));  // farther than both: not kept
  EXPECT_EQ(0u, n.add(kernel("k3", {3, 0, 0, 0, 0, 0})));  // the same kernel again
  ASSERT_EQ(2u, n.nearest(0).size());
  EXPECT_EQ("k3", n.nearest(0)[0].kernel->text);
  EXPECT_EQ("k1", n.nearest(0)[1].kernel->text);
  EXPECT_FALSE(n.matched(0));
  n.add(kernel("k4", {4, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(n.matched(0));
  EXPECT_EQ(1u, n.matched_count());
  EXPECT_EQ(0.0, *n.mean_distance());
  EXPECT_EQ(5u, n.kernels());
  EXPECT_EQ(1u, n.exact_kernels());
}

// The report's exact_sha256: every kept kernel at distance 0, in the order
// they came; a near kernel is not one, and a full beam of exact kernels
// takes no more.
TEST(NearestKernels, ExactListsTheKeptKernelsThatMatchInArrivalOrder) {
  std::vector<Target> targets = {{"t", {4, 0, 0, 0, 0, 0}}};
  NearestKernels n(&targets, 3);
  n.add(kernel("k3", {3, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(n.exact(0).empty());
  n.add(kernel("k4a", {4, 0, 0, 0, 0, 0}));
  n.add(kernel("k4b", {4, 0, 0, 0, 0, 0}));
  ASSERT_EQ(2u, n.exact(0).size());
  EXPECT_EQ("k4a", n.exact(0)[0]->text);
  EXPECT_EQ("k4b", n.exact(0)[1]->text);
  n.add(kernel("k4c", {4, 0, 0, 0, 0, 0}));  // pushes the near k3 out
  n.add(kernel("k4d", {4, 0, 0, 0, 0, 0}));  // the beam is full of exact kernels
  ASSERT_EQ(3u, n.exact(0).size());
  EXPECT_EQ("k4a", n.exact(0)[0]->text);
  EXPECT_EQ("k4c", n.exact(0)[2]->text);
}

TEST(NearestKernels, HasNoMeanDistanceBeforeTheFirstKernel) {
  std::vector<Target> targets = {{"t", {}}};
  EXPECT_FALSE(NearestKernels(&targets, 4).mean_distance().has_value());
}

// --graded-steering: the checker's verdict decides whether a kernel joins
// the search; the target {4,0,...} is matched exactly by "k4".
DirectorOptions graded_options() {
  DirectorOptions o;
  o.graded = true;
  o.baseline_slice_seconds = 10;  // a baseline side to observe into
  return o;
}

TEST(GradedSteering, AKernelJoinsTheSearchOnlyOnceTheCheckerPassedIt) {
  Director d({{"t", {4, 0, 0, 0, 0, 0}}}, "k() {", graded_options());
  d.observe(0, "k4", {4, 0, 0, 0, 0, 0});
  EXPECT_EQ(0u, d.report(false).kernels);
  EXPECT_FALSE(d.directed().matched(0));
  EXPECT_EQ(1u, d.awaiting_verdict());
  d.graded("k4", true);
  EXPECT_TRUE(d.directed().matched(0));
  EXPECT_EQ(1u, d.report(false).kernels);
  EXPECT_EQ(0u, d.report(true).kernels);  // observed on the directed side: stays there
  EXPECT_EQ(0u, d.awaiting_verdict());
}

TEST(GradedSteering, AFailedKernelNeverJoinsNorDoesARepeatOfIt) {
  Director d({{"t", {4, 0, 0, 0, 0, 0}}}, "k() {", graded_options());
  d.observe(0, "k4", {4, 0, 0, 0, 0, 0});
  d.graded("k4", false);
  d.observe(Director::kBaseline, "k4", {4, 0, 0, 0, 0, 0});  // sampled again
  EXPECT_EQ(0u, d.report(false).kernels + d.report(true).kernels);
  EXPECT_EQ(0u, d.awaiting_verdict());
  EXPECT_FALSE(d.directed().matched(0));
  EXPECT_EQ(Director::kPlain, d.next().tag);  // nothing to continue yet: the seed
}

TEST(GradedSteering, ARepeatOfAPassedKernelJoinsAtOnceOnItsOwnSide) {
  Director d({{"t", {4, 0, 0, 0, 0, 0}}}, "k() {", graded_options());
  d.graded("k4", true);  // a verdict before the kernel was observed
  d.observe(Director::kBaseline, "k4", {4, 0, 0, 0, 0, 0});
  EXPECT_TRUE(d.baseline().matched(0));
  EXPECT_FALSE(d.directed().matched(0));
  EXPECT_EQ(0u, d.awaiting_verdict());
}

TEST(GradedSteering, WithoutItEveryObservedKernelJoinsAtOnce) {
  Director d({{"t", {4, 0, 0, 0, 0, 0}}}, "k() {", DirectorOptions{});
  d.observe(0, "k4", {4, 0, 0, 0, 0, 0});
  EXPECT_TRUE(d.directed().matched(0));
  EXPECT_EQ(0u, d.awaiting_verdict());
}

TEST(StatementBoundaries, CutAfterStatementsAndBracesInsideTheBodyOnly) {
  const std::string k = "k(a;b) {\n  for (i = 0; i < 2; ++i) {\n    x;\n  }\n  y;\n}\ntail;";
  std::vector<size_t> cuts = statement_boundaries(k, 5);
  std::vector<std::string> prefixes;
  for (size_t c : cuts) prefixes.push_back(k.substr(0, c));
  // Not inside the parameter list or the for header; not the closing brace; not after it.
  EXPECT_EQ((std::vector<std::string>{"k(a;b) {", "k(a;b) {\n  for (i = 0; i < 2; ++i) {",
                                      "k(a;b) {\n  for (i = 0; i < 2; ++i) {\n    x;",
                                      "k(a;b) {\n  for (i = 0; i < 2; ++i) {\n    x;\n  }",
                                      "k(a;b) {\n  for (i = 0; i < 2; ++i) {\n    x;\n  }\n  y;"}),
            prefixes);
}

TEST(ExploreTargets, ChoosesTheCorpusVectorsFarthestFromTheSampledOnes) {
  std::vector<Target> corpus = {{"near", {1, 0, 0, 0, 0, 0}},
                                {"far", {50, 0, 0, 0, 0, 0}},
                                {"mid", {9, 0, 0, 0, 0, 0}},
                                {"far again", {50, 0, 0, 0, 0, 0}}};  // a vector already seen
  auto t = explore_targets(corpus, {{1, 0, 0, 0, 0, 0}, {2, 0, 0, 0, 0, 0}}, 2);
  ASSERT_EQ(2u, t.size());
  EXPECT_EQ("far", t[0].label);
  EXPECT_EQ("mid", t[1].label);
  // No samples: distance from the empty kernel, so the largest first.
  auto u = explore_targets(corpus, {}, 10);
  ASSERT_EQ(3u, u.size());
  EXPECT_EQ("far", u[0].label);
}

TEST(BatchSamplerStart, ALongerStartTextIsReplayedThenContinued) {
  // The scripted model moves through its script on every step, replayed or
  // not: three steps replay " a;", then it emits " b; }".
  ScriptedModel model(1, {"xxx b; }"});
  BatchSamplerOptions o;
  o.seed_text = "k() {";
  o.start = [](int) { return StreamStart{"k() { a;", 7}; };
  BatchSamplerStats stats;
  auto s = testing::first_samples(model, o, 1, &stats);
  ASSERT_EQ(1u, s.size());
  EXPECT_EQ("k() { a; b; }", s[0].text);
  EXPECT_TRUE(s[0].complete);
  EXPECT_EQ(7, s[0].tag);
  EXPECT_EQ(3, s[0].forced);
  EXPECT_EQ(5, s[0].tokens);  // " b; }": generated after the replay
  EXPECT_FALSE(s[0].start_refused);
  EXPECT_EQ(1u, stats.starts_replayed);
  // The model is fed only the seed; the rest arrives as steps.
  EXPECT_EQ("k() {", model.fed.at(0).second);
}

TEST(BatchSamplerStart, AStartTextThatCannotBeReplayedFallsBackToTheSeedAndIsCounted) {
  for (const std::string bad : {"q() { a;", "k() { a; }"}) {  // not after the seed; closes the kernel
    ScriptedModel model(1, {" b; }"});
    BatchSamplerOptions o;
    o.seed_text = "k() {";
    o.start = [&](int) { return StreamStart{bad, 3}; };
    BatchSamplerStats stats;
    auto s = testing::first_samples(model, o, 1, &stats);
    ASSERT_EQ(1u, s.size());
    EXPECT_EQ("k() { b; }", s[0].text) << bad;
    EXPECT_TRUE(s[0].start_refused);
    EXPECT_EQ(0, s[0].forced);
    EXPECT_EQ(1u, stats.starts_refused);
    EXPECT_EQ(0u, stats.starts_replayed);
  }
}

TEST(BatchSamplerStart, AStartTextTheConstraintRefusesFallsBackToTheSeed) {
  const std::string seed = "__kernel void A(__global float* a) {";
  ConstraintTables tables = ConstraintTables::from_corpus({seed + "\n  a[0] = 1;\n}\n"});
  ScriptedModel model(1, {"\n  a[0] = 1;\n}"});
  BatchSamplerOptions o;
  o.seed_text = seed;
  o.constraint = &tables;
  int calls = 0;
  // A ')' with no '(' open cannot compile; the second start is fine.
  o.start = [&](int) { return StreamStart{seed + (calls++ == 0 ? "\n  a[0] = 1);" : "\n  a[0] = 2;"), 0}; };
  BatchSamplerStats stats;
  testing::first_samples(model, o, 2, &stats);
  EXPECT_EQ(1u, stats.starts_refused);
  EXPECT_EQ(1u, stats.starts_replayed);
}

// A fake model for the steering loop: after the seed, each stream writes 0,
// 1 or 2 statements " x;" at random, one character per token, and closes
// the kernel. Its vocabulary also has " x;" as one token, which the batch
// sampler's longest-match spelling uses to replay a prefix, so the model
// tells replayed statements from its own and continues a replayed prefix
// with 0, 1 or 2 more.
class GrowingModel : public testing::PlannedModel {
 public:
  explicit GrowingModel(int streams) : PlannedModel(streams, {" x;"}), rng_(5) {}
  std::string model_id() const override { return "growing"; }
  std::string plan(std::string_view) override {
    std::string p;
    for (int k = std::uniform_int_distribution<int>(0, 2)(rng_); k > 0; --k) p += " x;";
    return p + " }";
  }

 private:
  std::mt19937 rng_;
};

// The fake feature function: `comp` counts statements, `atomic` counts '@'
// (which the model never writes).
GreweVector fake_features(const std::string& text) {
  return {long(std::count(text.begin(), text.end(), 'x')), 0, 0, 0, 0, long(std::count(text.begin(), text.end(), '@'))};
}

// Runs `director`'s loop on the growing model until `samples` samples or
// `done` holds.
void steer(Director& director, size_t samples, const std::function<bool()>& done) {
  GrowingModel model(4);
  BatchSamplerOptions o;
  o.seed_text = "k() {";
  o.start = [&](int stream) { return director.next(stream); };
  BatchSampler sampler(model, o);
  size_t n = 0;
  Status st = sampler.run(
      [&](RawSample&& s) {
        if (s.complete) director.observe(s.start_refused ? Director::kPlain : s.tag, s.text, fake_features(s.text));
        return ++n < samples && !done();
      },
      [] { return false; });
  ASSERT_TRUE(st.ok()) << st.message();
}

TEST(SteeringLoop, ConvergesOnAReachableTargetAndReportsAnUnreachableOneAsUnmatched) {
  // From the seed the model writes at most 2 statements: 9 needs at least
  // four rounds of continuing the nearest kernel. {3 statements, 1 atomic}
  // is out of its reach: the nearest is 3 statements without an atomic, at
  // |log 2 - log 1| / 6.
  std::vector<Target> targets = {{"nine", {9, 0, 0, 0, 0, 0}}, {"atomic", {3, 0, 0, 0, 0, 1}}};
  DirectorOptions opts;
  opts.seed = 1;
  Director director(targets, "k() {", opts);
  steer(director, 3000, [&] {
    return director.directed().matched(0) && director.directed().nearest(1)[0].distance < std::log(2.0) / 6 + 1e-9;
  });
  SteeringReport r = director.report(false);
  EXPECT_TRUE(director.directed().matched(0));
  EXPECT_FALSE(director.directed().matched(1));
  EXPECT_EQ(1u, r.matched);
  EXPECT_EQ(2u, r.targets);
  EXPECT_NEAR(std::log(2.0) / 6, director.directed().nearest(1)[0].distance, 1e-12);
  EXPECT_NEAR(std::log(2.0) / 12, *r.mean_distance, 1e-12);  // (0 + log 2 / 6) / 2
  EXPECT_GT(director.prefixes_offered(), 0u);
}

TEST(SteeringLoop, WithoutSteeringTheReachableTargetStaysOutOfReach) {
  // The same loop with every restart from the seed (a baseline slice that
  // never ends): the growing model never writes 9 statements.
  std::vector<Target> targets = {{"nine", {9, 0, 0, 0, 0, 0}}};
  DirectorOptions opts;
  opts.baseline_slice_seconds = 1;
  opts.clock = [] { return 1.5; };  // always in the second (undirected) slice
  Director director(targets, "k() {", opts);
  steer(director, 500, [] { return false; });
  EXPECT_EQ(0u, director.report(false).kernels);
  EXPECT_GT(director.report(true).kernels, 0u);
  EXPECT_EQ(0u, director.report(true).matched);
  EXPECT_EQ(0u, director.prefixes_offered());
}

TEST(SteeringLoop, BaselineSlicesAlternateWithDirectedOnes) {
  double now = 0;
  DirectorOptions opts;
  opts.baseline_slice_seconds = 10;
  opts.clock = [&] { return now; };
  Director director({{"t", {1, 0, 0, 0, 0, 0}}}, "k() {", opts);
  EXPECT_EQ(Director::kPlain, director.next().tag);  // no kernel yet: the seed, directed
  now = 10.5;
  EXPECT_EQ(Director::kBaseline, director.next().tag);
  now = 20.5;
  EXPECT_NE(Director::kBaseline, director.next().tag);
}

TEST(SteeringLoop, BaselineOnlyMakesEveryStreamABaselineStreamInEverySlice) {
  // A conditioned model's plain restarts are steered to targets, so the
  // undirected side of its own run needs every stream to be a baseline one.
  double now = 0;
  DirectorOptions opts;
  opts.baseline_slice_seconds = 10;
  opts.baseline_only = true;
  opts.conditioned = true;
  opts.clock = [&] { return now; };
  Director director({{"t", {1, 0, 0, 0, 0, 0}}}, "k() {", opts);
  for (double t : {0.0, 5.0, 10.5, 20.5}) {
    now = t;
    EXPECT_EQ(Director::kBaseline, director.next().tag) << "at " << t << " s";
  }
}

TEST(SteeringLoop, BaselineByStreamMakesTheOddStreamsUndirectedAtAnyTime) {
  double now = 0;
  DirectorOptions opts;
  opts.baseline_slice_seconds = 10;
  opts.baseline_by_stream = true;
  opts.clock = [&] { return now; };
  Director director({{"t", {1, 0, 0, 0, 0, 0}}}, "k() {", opts);
  for (double t : {0.0, 10.5, 20.5}) {
    now = t;
    EXPECT_EQ(Director::kBaseline, director.next(1).tag) << "at " << t << " s";
    EXPECT_EQ(Director::kBaseline, director.next(7).tag) << "at " << t << " s";
    EXPECT_NE(Director::kBaseline, director.next(0).tag) << "at " << t << " s";
    EXPECT_NE(Director::kBaseline, director.next(6).tag) << "at " << t << " s";
  }
  EXPECT_STREQ("streams", director.baseline_split());
}

TEST(SteeringLoop, TheSamplerNamesEachRestartingStream) {
  GrowingModel model(4);
  BatchSamplerOptions o;
  o.seed_text = "k() {";
  std::set<int> streams;
  o.start = [&](int stream) {
    streams.insert(stream);
    return StreamStart{"k() {", 0};
  };
  BatchSampler sampler(model, o);
  size_t n = 0;
  Status st = sampler.run([&](RawSample&&) { return ++n < 40; }, [] { return false; });
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(streams, (std::set<int>{0, 1, 2, 3}));
}

TEST(SteeringLoop, BothSidesSampleFromTheStartWhenTheBaselineSplitsTheStreams) {
  // One time slice spans the whole run, so only the stream split gives the
  // undirected side any kernel.
  DirectorOptions opts;
  opts.seed = 1;
  opts.baseline_slice_seconds = 1e6;
  opts.baseline_by_stream = true;
  Director director({{"nine", {9, 0, 0, 0, 0, 0}}}, "k() {", opts);
  steer(director, 400, [] { return false; });
  EXPECT_GT(director.report(false).kernels, 0u);
  EXPECT_GT(director.report(true).kernels, 0u);
}

TEST(NearSteering, NearShareDrawsTheTargetWhoseNearestKernelIsClosest) {
  // The kernel has 9 statements: d = |log 11 - log 10| / 6 (0.016) from
  // "ten", |log 1001 - log 10| / 6 (0.77) from "thousand". The round-robin
  // alternates; drawn by nearness, "ten" gets nearly every continuation.
  std::vector<Target> targets = {{"ten", {10, 0, 0, 0, 0, 0}}, {"thousand", {1000, 0, 0, 0, 0, 0}}};
  auto count_ten = [&](double near_share) {
    DirectorOptions opts;
    opts.seed = 3;
    opts.plain_share = 0;
    opts.near_share = near_share;
    Director d(targets, "k() {", opts);
    d.observe(Director::kPlain, "k() { x; x; x; x; x; x; x; x; x; }", {9, 0, 0, 0, 0, 0});
    int ten = 0;
    for (int i = 0; i < 200; ++i) ten += d.next().tag == 0;
    return ten;
  };
  EXPECT_EQ(100, count_ten(0));
  EXPECT_GE(count_ten(1), 195);
}

TEST(NearSteering, NearShareSkipsMatchedTargets) {
  DirectorOptions opts;
  opts.seed = 3;
  opts.plain_share = 0;
  opts.near_share = 1;
  Director d({{"nine", {9, 0, 0, 0, 0, 0}}, {"thousand", {1000, 0, 0, 0, 0, 0}}}, "k() {", opts);
  d.observe(Director::kPlain, "k() { x; x; x; x; x; x; x; x; x; }", {9, 0, 0, 0, 0, 0});
  for (int i = 0; i < 50; ++i) EXPECT_EQ(1, d.next().tag);
}

TEST(NearSteering, NearCutsKeepMostOfANearKernelAndCutFarOnesAnywhere) {
  // 40 statements: 41 boundaries after the seed ("{" of the body is the seed's).
  std::string body;
  for (int i = 0; i < 40; ++i) body += " x;";
  const std::string text = "k() {" + body + " }";
  const size_t all = statement_boundaries(text, 5).size();
  auto shortest_prefix = [&](bool near_cuts, long target_comp) {
    DirectorOptions opts;
    opts.seed = 4;
    opts.plain_share = 0;
    opts.near_cuts = near_cuts;
    Director d({{"t", {target_comp, 0, 0, 0, 0, 0}}}, "k() {", opts);
    d.observe(Director::kPlain, text, {40, 0, 0, 0, 0, 0});
    size_t shortest = text.size();
    for (int i = 0; i < 300; ++i) shortest = std::min(shortest, d.next().text.size());
    return shortest;
  };
  // Target 41 is near (d = 0.004): only the last quarter of the boundaries.
  const size_t last_quarter = statement_boundaries(text, 5)[all - all / 4 - 1];
  EXPECT_GE(shortest_prefix(true, 41), last_quarter);
  EXPECT_LT(shortest_prefix(false, 41), text.size() / 4);
  // Target 4 is far (d = 0.35): anywhere, as without --near-cuts.
  EXPECT_LT(shortest_prefix(true, 4), text.size() / 4);
}

}  // namespace
}  // namespace clgen::sampler
