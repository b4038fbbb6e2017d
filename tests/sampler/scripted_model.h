// A test double of the language model that emits scripted texts, one
// character per token: the sampler's own logic (stop rule, refill, pipeline)
// is tested without LibTorch.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sampler/batch_sampler.h"
#include "sampler/stream_model.h"

namespace clgen::sampler::testing {

class ScriptedModel : public StreamModel {
 public:
  static constexpr int32_t kEnd = 256;  // the end token

  // Stream i, on its k-th (re)start overall, continues with scripts[k % n].
  ScriptedModel(int streams, std::vector<std::string> scripts)
      : streams_(streams), scripts_(std::move(scripts)), state_(streams) {
    for (int t = 0; t < 256; ++t) texts_.emplace_back(1, static_cast<char>(t));
    texts_.emplace_back();
  }

  std::string model_id() const override { return "scripted"; }
  int streams() const override { return streams_; }
  int vocab_size() const override { return 257; }

  Status feed(int stream, std::string_view text) override {
    if (stream < 0 || stream >= streams_) return invalid_argument("no such stream");
    fed.emplace_back(stream, std::string(text));
    state_[stream].script = scripts_[starts++ % scripts_.size()];
    state_[stream].pos = 0;
    return ok_status();
  }

  Expected<std::vector<float>> logits() override {
    std::vector<float> out(size_t(streams_) * 257, 0.0f);
    for (int i = 0; i < streams_; ++i) {
      const State& s = state_[i];
      int32_t next = s.pos < s.script.size() ? static_cast<unsigned char>(s.script[s.pos]) : kEnd;
      out[size_t(i) * 257 + next] = 60.0f;  // e^-60: the others are never drawn
    }
    return out;
  }

  Status advance(const std::vector<int32_t>& tokens) override {
    for (int i = 0; i < streams_; ++i) ++state_[i].pos;
    ++steps;
    return ok_status();
  }

  const std::string& token_text(int32_t token) const override { return texts_.at(token); }
  int32_t end_token() const override { return kEnd; }

  std::vector<std::pair<int, std::string>> fed;  // every feed(): stream, text
  size_t starts = 0;
  int steps = 0;

 private:
  struct State {
    std::string script;
    size_t pos = 0;
  };
  int streams_;
  std::vector<std::string> scripts_;
  std::vector<State> state_;
  std::vector<std::string> texts_;
};

// A fake model whose every stream follows a plan, one character per token,
// then the end token: plan() chooses it from the text the stream was fed.
// Its vocabulary is the 256 bytes, the end token, then `extra` longer
// tokens, which the batch sampler's spelling uses to replay a start text
// and which do not move a plan on (so a model can tell replays from its
// own writing).
class PlannedModel : public StreamModel {
 public:
  static constexpr int32_t kEnd = 256;

  PlannedModel(int streams, std::vector<std::string> extra = {}) : plans_(streams), at_(streams) {
    for (int t = 0; t < 256; ++t) texts_.emplace_back(1, char(t));
    texts_.emplace_back();
    for (auto& e : extra) texts_.push_back(std::move(e));
  }
  // The text stream's plan after being fed `fed`.
  virtual std::string plan(std::string_view fed) = 0;

  int streams() const override { return int(plans_.size()); }
  int vocab_size() const override { return int(texts_.size()); }
  Status feed(int stream, std::string_view text) override {
    plans_[size_t(stream)] = plan(text);
    at_[size_t(stream)] = 0;
    return ok_status();
  }
  Expected<std::vector<float>> logits() override {
    const size_t v = texts_.size();
    std::vector<float> out(plans_.size() * v, 0.0f);
    for (size_t i = 0; i < plans_.size(); ++i)
      out[i * v + (at_[i] < plans_[i].size() ? (unsigned char)plans_[i][at_[i]] : kEnd)] = 60.0f;
    return out;
  }
  Status advance(const std::vector<int32_t>& tokens) override {
    for (size_t i = 0; i < plans_.size(); ++i)
      if (tokens[i] <= kEnd) ++at_[i];
    return ok_status();
  }
  const std::string& token_text(int32_t t) const override { return texts_.at(size_t(t)); }
  int32_t end_token() const override { return kEnd; }

 private:
  std::vector<std::string> plans_;
  std::vector<size_t> at_;
  std::vector<std::string> texts_;
};

// The first `n` samples of a BatchSampler over `model` (its stats in
// `*stats` when given); a failing run fails the calling test.
inline std::vector<RawSample> first_samples(StreamModel& model, const BatchSamplerOptions& options, size_t n,
                                            BatchSamplerStats* stats = nullptr) {
  BatchSampler sampler(model, options);
  std::vector<RawSample> out;
  Status st = sampler.run(
      [&](RawSample&& s) {
        out.push_back(std::move(s));
        return out.size() < n;
      },
      [] { return false; });
  EXPECT_TRUE(st.ok()) << st.message();
  if (stats) *stats = sampler.stats();
  return out;
}

}  // namespace clgen::sampler::testing
