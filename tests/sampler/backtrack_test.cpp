// Backtracking (BatchSamplerOptions::max_backtracks): a stream whose name
// the constraint refuses goes back to before the name, in the model too,
// and follows the model's other choice.
#include <gtest/gtest.h>

#include "sampler/batch_sampler.h"
#include "sampler/constraint_tables.h"
#include "tests/sampler/scripted_model.h"

namespace clgen::sampler {
namespace {

// A fake model that prefers continuations: each stream's next token is the
// next character of every continuation its generated text is a prefix of,
// weighted by that continuation's logit (the highest wins a character two
// share); the end token when none goes on. It reads its own state from the
// text it was fed and advanced by, so save() and restore() keep that text.
class PreferenceModel : public StreamModel {
 public:
  static constexpr int32_t kEnd = 256;
  PreferenceModel(int streams, std::string seed, std::vector<std::pair<std::string, float>> continuations)
      : seed_(std::move(seed)),
        continuations_(std::move(continuations)),
        text_(size_t(streams)),
        saved_(size_t(streams)) {
    for (int t = 0; t < 256; ++t) texts_.emplace_back(1, char(t));
    texts_.emplace_back();
  }
  std::string model_id() const override { return "preference"; }
  int streams() const override { return int(text_.size()); }
  int vocab_size() const override { return 257; }
  Status feed(int stream, std::string_view text) override {
    text_[size_t(stream)] = std::string(text);
    return ok_status();
  }
  Expected<std::vector<float>> logits() override {
    std::vector<float> out(text_.size() * 257, 0.0f);
    for (size_t i = 0; i < text_.size(); ++i) {
      const std::string generated = text_[i].substr(seed_.size());
      bool any = false;
      for (const auto& [text, logit] : continuations_) {
        if (text.compare(0, generated.size(), generated) != 0 || text.size() <= generated.size()) continue;
        float& cell = out[i * 257 + static_cast<unsigned char>(text[generated.size()])];
        cell = std::max(cell, logit);
        any = true;
      }
      if (!any) out[i * 257 + kEnd] = 60.0f;
    }
    return out;
  }
  Status advance(const std::vector<int32_t>& tokens) override {
    for (size_t i = 0; i < text_.size(); ++i) text_[i] += texts_.at(size_t(tokens[i]));
    return ok_status();
  }
  bool can_save() const override { return true; }
  Status save(const std::vector<int>& streams) override {
    for (int s : streams) saved_[size_t(s)] = text_[size_t(s)];
    ++saves;
    return ok_status();
  }
  Status restore(const std::vector<int>& streams) override {
    for (int s : streams) text_[size_t(s)] = saved_[size_t(s)];
    restored += streams.size();
    return ok_status();
  }
  const std::string& token_text(int32_t t) const override { return texts_.at(size_t(t)); }
  int32_t end_token() const override { return kEnd; }

  int saves = 0;
  size_t restored = 0;

 private:
  std::string seed_;
  std::vector<std::pair<std::string, float>> continuations_;
  std::vector<std::string> text_, saved_;
  std::vector<std::string> texts_;
};

class BacktrackTest : public ::testing::Test {
 protected:
  const std::string seed = "__kernel void A(__global float* a) {";
  ConstraintTables tables = ConstraintTables::from_corpus({seed + "\n  a[0] = 1;\n}\n"});
  BatchSamplerOptions options(int max_backtracks) {
    BatchSamplerOptions o;
    o.seed_text = seed;
    o.constraint = &tables;
    o.max_refusals = 1;
    o.max_backtracks = max_backtracks;
    return o;
  }
  // The model would rather write `fl`, which is no name here (only a prefix
  // of `float`, a word of the corpus), than the declared `a`.
  PreferenceModel model{1, seed, {{"\n  fl[0] = 1;\n}", 60.0f}, {"\n  a[0] = 1;\n}", 50.0f}}};
};

TEST_F(BacktrackTest, WithoutBacktracksTheRefusedNameEndsTheStream) {
  BatchSamplerStats stats;
  auto s = testing::first_samples(model, options(0), 1, &stats);
  ASSERT_EQ(1u, s.size());
  EXPECT_TRUE(s[0].dead_end);
  EXPECT_EQ(seed + "\n  fl", s[0].text);
  EXPECT_EQ(0u, stats.backtracks);
  EXPECT_EQ(0, model.saves);
}

TEST_F(BacktrackTest, ARefusedNameIsTakenBackAndTheModelsOtherNameFollowed) {
  BatchSamplerStats stats;
  auto s = testing::first_samples(model, options(2), 1, &stats);
  ASSERT_EQ(1u, s.size());
  EXPECT_TRUE(s[0].complete);
  EXPECT_EQ(seed + "\n  a[0] = 1;\n}", s[0].text);
  EXPECT_EQ(1, s[0].backtracks);
  EXPECT_EQ(0, s[0].refusals);  // a backtracked refusal does not count towards --max-refusals
  EXPECT_EQ(1u, stats.backtracks);
  EXPECT_EQ(1u, model.restored);
  // The refused draw is recorded, marked as taken back, at its offset in the text before the cut.
  EXPECT_EQ("b" + std::to_string((seed + "\n  fl").size()) + ":'['", s[0].refused_draws);
}

TEST_F(BacktrackTest, BacktracksSpendTheSamplesLength) {
  BatchSamplerOptions o = options(16);
  o.max_length = 6;  // "\n  fl", then the backtrack's step reaches the limit
  auto s = testing::first_samples(model, o, 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_FALSE(s[0].complete);
  EXPECT_EQ(6, s[0].tokens);
  EXPECT_EQ(1, s[0].backtracks);
  EXPECT_EQ(seed + "\n  ", s[0].text);
}

TEST_F(BacktrackTest, BacktracksAreBoundedPerSample) {
  // Two names the model prefers to `a`, neither usable: the second backtrack
  // would be needed, one is allowed, so the stream ends at the refusal.
  PreferenceModel two{
      1, seed, {{"\n  fl[0] = 1;\n}", 60.0f}, {"\n  __g[0] = 1;\n}", 55.0f}, {"\n  a[0] = 1;\n}", 50.0f}}};
  auto s = testing::first_samples(two, options(1), 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_TRUE(s[0].dead_end);
  EXPECT_EQ(1, s[0].backtracks);
  auto again = testing::first_samples(two, options(2), 1);
  ASSERT_EQ(1u, again.size());
  EXPECT_EQ(seed + "\n  a[0] = 1;\n}", again[0].text);
  EXPECT_EQ(2, again[0].backtracks);
}

// A declared name followed by a refused token: by default the name is taken
// back (and `a`, the only declared name, banned there); with
// backtrack_after_any_name off the redraw (`[`) stands and the kernel ends.
TEST_F(BacktrackTest, AValidNameIsKeptWhenOnlyBadNamesBacktrack) {
  PreferenceModel valid{1, seed, {{"\n  a) = 1;\n}", 60.0f}, {"\n  a[0] = 1;\n}", 50.0f}}};
  BatchSamplerOptions o = options(16);
  o.max_refusals = 4;
  BatchSamplerStats any;
  auto taken_back = testing::first_samples(valid, o, 1, &any);
  ASSERT_EQ(1u, taken_back.size());
  EXPECT_GE(any.backtracks, 1u);
  EXPECT_NE(seed + "\n  a[0] = 1;\n}", taken_back[0].text);
  o.backtrack_after_any_name = false;
  BatchSamplerStats bad_only;
  auto kept = testing::first_samples(valid, o, 1, &bad_only);
  ASSERT_EQ(1u, kept.size());
  EXPECT_EQ(seed + "\n  a[0] = 1;\n}", kept[0].text);
  EXPECT_EQ(0u, bad_only.backtracks);
}

TEST_F(BacktrackTest, AnUnusableNameIsTakenBackUnderEitherRule) {
  BatchSamplerOptions o = options(2);
  o.backtrack_after_any_name = false;
  auto s = testing::first_samples(model, o, 1);
  ASSERT_EQ(1u, s.size());
  EXPECT_EQ(seed + "\n  a[0] = 1;\n}", s[0].text);
  EXPECT_EQ(1, s[0].backtracks);
}

TEST_F(BacktrackTest, AModelThatCannotSaveIsNeverBacktracked) {
  testing::ScriptedModel scripted(1, {"\n  fl[0] = 1;\n}"});
  BatchSamplerStats stats;
  auto s = testing::first_samples(scripted, options(2), 1, &stats);
  ASSERT_EQ(1u, s.size());
  EXPECT_TRUE(s[0].dead_end);
  EXPECT_EQ(0u, stats.backtracks);
}

}  // namespace
}  // namespace clgen::sampler
