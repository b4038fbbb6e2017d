// A trained language model loaded from the workspace, and batches of sampling
// streams over it: the API the sampler builds on. No LibTorch types here.
//
//   auto lm = LanguageModel::load("clgen-work", "", "auto");   // latest model
//   auto batch = (*lm)->new_batch(64, /*seed=*/1);
//   (*batch)->feed_all("__kernel void A(");
//   auto next = (*batch)->sample(0.8);   // one token per stream, already fed back
//   (*batch)->feed(3, "__kernel void A(");  // refill stream 3 after it finished
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/feature_prefix.h"
#include "model/vocabulary.h"
#include "support/status.h"

namespace clgen::model {

class SamplingBatch;

class LanguageModel {
 public:
  // Loads model `model_id` from <workspace_root>/models/, or the most recently
  // trained one when `model_id` is empty, onto `device` ("cpu", "cuda", "auto");
  // a CUDA device is cuda:(local_rank mod the visible devices), as for a
  // rank of distributed training. `checkpoint` "best" takes the weights of
  // the lowest validation loss (models/<id>/best.pt; a model without one,
  // trained without validation or before best checkpoints were kept, falls
  // back to its last checkpoint and logs so); "last" the last checkpoint.
  // Either model type (model.json's "type"). Fails with kNotFound when no
  // trained model (checkpoint) exists, or like resolve_device for a bad or
  // absent device.
  static Expected<std::unique_ptr<LanguageModel>> load(const std::string& workspace_root, const std::string& model_id,
                                                       const std::string& device, int local_rank = 0,
                                                       const std::string& checkpoint = "best");
  ~LanguageModel();

  const std::string& id() const;
  const Vocabulary& vocabulary() const;
  // A model trained with training.feature_prefix: the feature headers of its
  // training texts with their counts, most frequent first; every text it
  // read began with one, so a sampling stream should too. Empty otherwise.
  // load() fails when model.json says feature_prefix and the headers file
  // is missing or unreadable.
  const HeaderCounts& feature_headers() const;
  std::string device() const;  // e.g. "cpu", "cuda:0"

  // `streams` independent sampling streams, each starting empty. `seed` makes
  // sample() reproducible (it reseeds the process's LibTorch generator).
  Expected<std::unique_ptr<SamplingBatch>> new_batch(int streams, uint64_t seed);

  struct Impl;

 private:
  explicit LanguageModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// B streams stepped together. Each stream has a "next-token distribution"
// once it has been fed some text; feed() resets a stream and feeds it anew.
class SamplingBatch {
 public:
  ~SamplingBatch();

  int streams() const;
  int vocab_size() const;

  // Resets stream `stream` and feeds it `text` (non-empty) as the start of a
  // corpus file, i.e. after the vocabulary's separator. Feeding a text fed
  // before (the sampler's refill) reuses the state it led to.
  Status feed(int stream, std::string_view text);
  Status feed_tokens(int stream, const std::vector<Token>& tokens);
  // feed() for every stream (the text runs once; its state is copied).
  Status feed_all(std::string_view text);
  // Whether fed text starts after the separator (true, the default: as a
  // corpus file starts in training) or from the network's zero state.
  void set_start_after_separator(bool yes);

  // Next-token logits of every stream, row-major [streams x vocab_size].
  // Fails if some stream was never fed.
  Expected<std::vector<float>> logits() const;
  // Feeds one token per stream (e.g. tokens the caller chose from logits()).
  Status advance(const std::vector<Token>& tokens);
  // Backtracking (the sampler's --backtracks): save() keeps the listed
  // streams' current state and next-token logits, one saved state per
  // stream (a later save replaces it); restore() puts the listed streams
  // back to what they saved. Fails for a stream out of range or, on
  // restore, one that never saved.
  Status save(const std::vector<int>& streams);
  Status restore(const std::vector<int>& streams);
  // Draws one token per stream from softmax(logits / temperature), feeds the
  // tokens to the streams and returns them. temperature > 0.
  Expected<std::vector<Token>> sample(double temperature);

  struct Impl;

 private:
  friend class LanguageModel;
  explicit SamplingBatch(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace clgen::model
