// Private to clgen_model (LibTorch types): a loaded model and the sampling
// batch interface that each network type implements (lstm_batch.cpp,
// transformer_batch.cpp); LanguageModel::new_batch picks one by the model's type.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "model/language_model.h"
#include "model/network.h"
#include "model/transformer.h"

namespace clgen::model {

struct LanguageModel::Impl {
  std::string id;
  std::unique_ptr<Vocabulary> vocabulary;
  HeaderCounts feature_headers;  // empty: not feature-conditioned
  NetworkConfig network;         // its type and shape
  int vocab_size = 0;
  LstmNetwork lstm{nullptr};                // type "lstm"
  TransformerNetwork transformer{nullptr};  // type "transformer"
  torch::Device device{torch::kCPU};
};

// What every network type's batch keeps: the next-token logits of each
// stream, which streams were fed and which saved; the rest is the type's.
struct SamplingBatch::Impl {
  virtual ~Impl() = default;

  // Resets `stream` and feeds it `tokens` (non-empty, in range) as the start of a text.
  virtual Status feed_tokens(int stream, const std::vector<Token>& tokens) = 0;
  // feed_tokens for every stream; the types run the text once and copy its state.
  virtual Status feed_all(const std::vector<Token>& tokens) = 0;
  // One token per stream (checked by the caller).
  virtual Status advance(const std::vector<Token>& tokens) = 0;
  virtual Status save(const std::vector<int>& streams) = 0;
  virtual Status restore(const std::vector<int>& streams) = 0;
  // Forgets the states of fed start texts (they depend on after_separator).
  virtual void clear_starts() = 0;

  LanguageModel::Impl* model = nullptr;
  int streams = 0;
  bool after_separator = true;
  torch::Tensor next;  // [B, vocab] float32 logits of the next token
  std::vector<bool> fed;
  std::vector<bool> saved;  // empty until the first save

  // A stream starts the way a corpus file does in training: right after the
  // separator that ends the previous file.
  std::vector<Token> primed(const std::vector<Token>& tokens) const;
  Status check_stream(int stream) const;
  Status check_tokens(const std::vector<Token>& tokens) const;
  // The listed streams as an index tensor on the device; fails for a stream
  // out of range or (must_have_saved) one that never saved.
  Expected<torch::Tensor> stream_index(const std::vector<int>& list, bool must_have_saved) const;
};

std::unique_ptr<SamplingBatch::Impl> make_lstm_batch(LanguageModel::Impl& model, int streams);
std::unique_ptr<SamplingBatch::Impl> make_transformer_batch(LanguageModel::Impl& model, int streams);

}  // namespace clgen::model
