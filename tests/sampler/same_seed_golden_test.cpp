// Same-seed output of the batch sampler with the code constraint on, over a
// deterministic stand-in for the language model, compared with a committed
// golden file: refactors of the sampler must not change a single sampled
// character, refusal or stream end. On a difference the test writes this
// run's output next to the temporary directory and names it; the golden file
// is only ever replaced by hand, after review.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sampler/batch_sampler.h"
#include "sampler/code_constraint.h"
#include "sampler/stream_model.h"

namespace clgen::sampler {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The test corpus's kernels in file-name order (directory order is not fixed).
std::vector<std::string> corpus_texts() {
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(std::string(CLGEN_TEST_DATA) + "/sampler/corpus"))
    paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> texts;
  for (const auto& p : paths) texts.push_back(slurp(p));
  return texts;
}

// A character trigram model of the corpus: the logit of the next character
// is log(count + smoothing) after the stream's last two characters (after
// the last one where the pair is unseen); the smoothing is 0.02 for
// printable characters and newlines, 1e-5 for other bytes. Deterministic and
// cheap, and close enough to code that the constraint both accepts and
// refuses its draws.
class TrigramModel : public StreamModel {
 public:
  static constexpr int32_t kEnd = 256;
  static constexpr int kVocab = 257;

  TrigramModel(int streams, const std::vector<std::string>& corpus)
      : streams_(streams), context_(streams), bigram_(256 * kVocab, 0.0f), trigram_(256 * 256) {
    for (int t = 0; t < 256; ++t) texts_.emplace_back(1, static_cast<char>(t));
    texts_.emplace_back();
    for (const std::string& text : corpus) {
      for (size_t i = 0; i <= text.size(); ++i) {
        int next = i < text.size() ? static_cast<unsigned char>(text[i]) : kEnd;
        if (i >= 1) bigram_[static_cast<unsigned char>(text[i - 1]) * kVocab + next] += 1;
        if (i >= 2) {
          auto& row = trigram_[static_cast<unsigned char>(text[i - 2]) * 256 + static_cast<unsigned char>(text[i - 1])];
          if (row.empty()) row.assign(kVocab, 0.0f);
          row[next] += 1;
        }
      }
    }
  }

  std::string model_id() const override { return "trigram"; }
  int streams() const override { return streams_; }
  int vocab_size() const override { return kVocab; }

  Status feed(int stream, std::string_view text) override {
    context_[stream] = text.size() >= 2 ? std::string(text.substr(text.size() - 2)) : std::string(text);
    return ok_status();
  }

  Expected<std::vector<float>> logits() override {
    std::vector<float> out(size_t(streams_) * kVocab);
    for (int i = 0; i < streams_; ++i) {
      const std::string& c = context_[i];
      const float* counts = nullptr;
      if (c.size() == 2) {
        const auto& row = trigram_[static_cast<unsigned char>(c[0]) * 256 + static_cast<unsigned char>(c[1])];
        if (!row.empty()) counts = row.data();
      }
      if (!counts && !c.empty()) counts = &bigram_[static_cast<unsigned char>(c.back()) * kVocab];
      for (int t = 0; t < kVocab; ++t) {
        const float smoothing = (t >= 32 && t < 127) || t == '\n' ? 0.02f : 1e-5f;
        out[size_t(i) * kVocab + t] = std::log((counts ? counts[t] : 0.0f) + smoothing);
      }
    }
    return out;
  }

  Status advance(const std::vector<int32_t>& tokens) override {
    for (int i = 0; i < streams_; ++i) {
      if (tokens[i] == kEnd) continue;
      std::string& c = context_[i];
      c += texts_[tokens[i]];
      if (c.size() > 2) c.erase(0, c.size() - 2);
    }
    return ok_status();
  }

  const std::string& token_text(int32_t token) const override { return texts_.at(token); }
  int32_t end_token() const override { return kEnd; }

 private:
  int streams_;
  std::vector<std::string> context_;  // each stream's last two characters
  std::vector<float> bigram_;
  std::vector<std::vector<float>> trigram_;
  std::vector<std::string> texts_;
};

struct SamplerRun {
  std::string name;
  SamplingPolicy policy;
  int streams;
  uint64_t seed;
  int max_refusals;
  bool constrain;
  size_t samples;
  unsigned threads;
};

// Every sample of `run` (text, how it ended, tokens, refusals) and the
// sampler's counters, as text.
std::string sample_run(const SamplerRun& run, const ConstraintTables& tables) {
  TrigramModel model(run.streams, corpus_texts());
  BatchSamplerOptions o;
  o.seed_text = "__kernel void A(__global float* a, __global float* b, __global float* c, const int d) {";
  o.max_length = 400;
  o.policy = run.policy;
  o.seed = run.seed;
  o.constraint = run.constrain ? &tables : nullptr;
  o.max_refusals = run.max_refusals;
  o.threads = run.threads;
  BatchSampler sampler(model, o);
  std::string out;
  size_t n = 0;
  Status st = sampler.run(
      [&](RawSample&& s) {
        out += fmt::format("## {} sample {} complete={} dead_end={} tokens={} refusals={}\n{}\n", run.name, s.index,
                           int(s.complete), int(s.dead_end), s.tokens, s.refusals, s.text);
        return ++n < run.samples;
      },
      [] { return false; });
  EXPECT_TRUE(st.ok()) << st.message();
  const BatchSamplerStats& s = sampler.stats();
  out += fmt::format("## {} stats steps={} tokens={} redrawn={} dead_ends={} abandoned={}\n", run.name, s.steps,
                     s.tokens, s.redrawn, s.dead_ends, s.abandoned);
  return out;
}

TEST(SameSeedGolden, ConstrainedCpuSamplesMatchTheCommittedOutput) {
  const ConstraintTables tables = ConstraintTables::from_corpus(corpus_texts());
  const std::vector<SamplerRun> runs = {
      {"plain", SamplingPolicy{1.0, 0, 1.0}, 8, 11, 4, true, 24, 1},
      {"topk-topp", SamplingPolicy{0.7, 10, 0.9}, 8, 12, 64, true, 24, 3},
      {"greedy", SamplingPolicy{0.0, 0, 1.0}, 2, 13, 8, true, 4, 1},
      {"unconstrained", SamplingPolicy{1.0, 0, 1.0}, 4, 14, 4, false, 8, 1},
  };
  std::string actual;
  for (const SamplerRun& r : runs) actual += sample_run(r, tables);
  const fs::path golden = fs::path(CLGEN_TEST_DATA) / "sampler" / "same_seed_golden.txt";
  const std::string expected = slurp(golden);
  if (actual != expected) {
    fs::path written = fs::temp_directory_path() / "same_seed_golden.actual.txt";
    std::ofstream(written, std::ios::binary) << actual;
    ADD_FAILURE() << "the sampled texts differ from " << golden << "; this run's output is in " << written
                  << " (diff them; replace the golden file only for an intended change of behaviour)";
  }
}

}  // namespace
}  // namespace clgen::sampler
