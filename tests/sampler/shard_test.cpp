// Tests of sharded sampling: --shard parsing, the stream-seed rule, and the
// batch sampler's draws under it (with a model whose every draw is random).
#include "sampler/shard.h"

#include <set>

#include <gtest/gtest.h>

#include "sampler/batch_sampler.h"

namespace clgen::sampler {
namespace {

TEST(ParseShard, AcceptsIndexBelowCount) {
  auto s = parse_shard("3/4");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(3, s->index);
  EXPECT_EQ(4, s->count);
  EXPECT_EQ("3/4", s->str());
  auto one = parse_shard("0/1");
  ASSERT_TRUE(one.ok());
  EXPECT_FALSE(one->sharded());
}

TEST(ParseShard, RejectsMalformedOrOutOfRangeShards) {
  for (const char* bad : {"3/2", "2/2", "a/b", "0/0", "1", "", "1/", "/2", "-1/2", "1/-2", "1/2/3",
                          " 1/2", "1/2 ", "0x1/2", "0/2000000"}) {
    auto s = parse_shard(bad);
    EXPECT_FALSE(s.ok()) << bad;
    if (!s.ok()) {
      EXPECT_EQ(ErrorCode::kInvalidArgument, s.status().code()) << bad;
      EXPECT_NE(s.status().message().find(std::string("\"") + bad + "\""), std::string::npos)
          << s.status().message();
    }
  }
}

TEST(StreamSeed, ShardZeroOfOneIsTheUnshardedRule) {
  // Runs sampled before sharding existed seeded stream i with
  // splitmix64(seed ^ splitmix64(i)): the same seed must still reproduce them.
  for (uint64_t seed : {0ull, 1ull, 0xdeadbeefull})
    for (uint64_t i = 0; i < 100; ++i)
      EXPECT_EQ(splitmix64(seed ^ splitmix64(i)), stream_seed(seed, Shard{0, 1}, i));
}

TEST(StreamSeed, ShardsOfOneSeedNeverShareAGenerator) {
  for (int n : {2, 3, 8, 64}) {
    std::set<uint64_t> seeds;
    const uint64_t streams = 256;
    for (int shard = 0; shard < n; ++shard)
      for (uint64_t i = 0; i < streams; ++i) seeds.insert(stream_seed(42, Shard{shard, n}, i));
    EXPECT_EQ(size_t(n) * streams, seeds.size()) << n << " shards";
  }
}

// A model whose every stream writes 12 letters drawn uniformly from 16, then
// '}': a sample's text is decided by its stream's generator alone (16^12
// texts), so two streams with different generators practically never agree.
class RandomLettersModel : public StreamModel {
 public:
  explicit RandomLettersModel(int streams) : streams_(streams), pos_(streams, 0) {
    for (int t = 0; t < 256; ++t) texts_.emplace_back(1, static_cast<char>(t));
    texts_.emplace_back();
  }
  std::string model_id() const override { return "letters"; }
  int streams() const override { return streams_; }
  int vocab_size() const override { return 257; }
  Status feed(int stream, std::string_view) override {
    pos_[stream] = 0;
    return ok_status();
  }
  Expected<std::vector<float>> logits() override {
    std::vector<float> out(size_t(streams_) * 257, -1e9f);
    for (int i = 0; i < streams_; ++i) {
      float* row = &out[size_t(i) * 257];
      if (pos_[i] < 12) {
        for (int c = 'a'; c < 'a' + 16; ++c) row[c] = 0.0f;
      } else {
        row['}'] = 0.0f;
      }
    }
    return out;
  }
  Status advance(const std::vector<int32_t>&) override {
    for (int& p : pos_) ++p;
    return ok_status();
  }
  const std::string& token_text(int32_t token) const override { return texts_.at(token); }
  int32_t end_token() const override { return 256; }

 private:
  int streams_;
  std::vector<int> pos_;
  std::vector<std::string> texts_;
};

// The first `rounds` samples of each stream: texts[stream][round]. Every
// stream ends in the same step, and a step's samples come in stream order.
std::vector<std::vector<std::string>> sample(int streams, int rounds, uint64_t seed,
                                             std::optional<Shard> shard) {
  RandomLettersModel model(streams);
  BatchSamplerOptions o;
  o.seed_text = "{";
  o.seed = seed;
  o.threads = 1;
  if (shard) o.shard = *shard;
  BatchSampler sampler(model, o);
  std::vector<std::vector<std::string>> texts(streams);
  size_t n = 0;
  Status st = sampler.run(
      [&](RawSample&& s) {
        texts[n % streams].push_back(s.text);
        return ++n < size_t(streams) * rounds;
      },
      [] { return false; });
  EXPECT_TRUE(st.ok()) << st.message();
  return texts;
}

TEST(ShardedSampling, ShardZeroOfOneSamplesExactlyAsAnUnshardedRun) {
  auto unsharded = sample(4, 3, 7, std::nullopt);
  EXPECT_EQ(unsharded, sample(4, 3, 7, Shard{0, 1}));
  EXPECT_EQ(14u, unsharded[0][0].size());  // "{" + 12 letters + "}"
}

TEST(ShardedSampling, ShardsDrawDisjointTextsThatTogetherAreOneRunOfAllTheirStreams) {
  const int n = 3, streams = 4, rounds = 3;
  // Stream i of shard I is stream i*N + I of the whole run (shard.h).
  auto whole = sample(n * streams, rounds, 7, std::nullopt);
  std::set<std::string> seen;
  for (int shard = 0; shard < n; ++shard) {
    auto part = sample(streams, rounds, 7, Shard{shard, n});
    for (int i = 0; i < streams; ++i) {
      EXPECT_EQ(whole[size_t(i) * n + shard], part[i]) << "shard " << shard << " stream " << i;
      for (const std::string& t : part[i]) EXPECT_TRUE(seen.insert(t).second) << t;
    }
  }
  EXPECT_EQ(size_t(n) * streams * rounds, seen.size());
  // Another base seed draws other texts.
  EXPECT_NE(whole, sample(n * streams, rounds, 8, std::nullopt));
}

}  // namespace
}  // namespace clgen::sampler
