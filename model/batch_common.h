// Private to clgen_model: what the network types' sampling batches
// (lstm_batch.cpp, transformer_batch.cpp) do alike. Templates and inline
// functions only, so a batch step costs what it did when written out.
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/sampling_batch_impl.h"
#include "model/torch_error.h"

namespace clgen::model {

// The state every batch starts with: `streams` unfed streams of `model`,
// their next-token logits zero.
inline void init_batch(SamplingBatch::Impl& batch, LanguageModel::Impl& model, int streams) {
  batch.model = &model;
  batch.streams = streams;
  batch.next = torch::zeros({streams, model.vocab_size}, torch::TensorOptions().device(model.device));
  batch.fed.assign(size_t(streams), false);
}

// Runs `body` (returning Status) without autograd; a LibTorch exception
// becomes an internal error "WHAT: its first line".
template <class Body>
Status without_grad(const char* what, Body&& body) {
  try {
    torch::NoGradGuard no_grad;
    return body();
  } catch (const std::exception& e) {
    return internal_error(std::string(what) + ": " + torch_error_text(e));
  }
}

// save/restore: nothing for an empty list, else body(idx) without autograd,
// idx being the listed streams' index tensor (SamplingBatch::Impl::stream_index).
template <class Body>
Status for_listed_streams(const SamplingBatch::Impl& batch, const std::vector<int>& list, bool must_have_saved,
                          const char* what, Body&& body) {
  if (list.empty()) return ok_status();
  return without_grad(what, [&]() -> Status {
    ASSIGN_OR_RETURN(torch::Tensor idx, batch.stream_index(list, must_have_saved));
    return body(idx);
  });
}

// `tokens` as an int64 tensor of `shape` on `device`.
inline torch::Tensor token_tensor(const std::vector<Token>& tokens, torch::IntArrayRef shape,
                                  const torch::Device& device) {
  return torch::tensor(std::vector<int64_t>(tokens.begin(), tokens.end()), torch::kInt64).reshape(shape).to(device);
}

// The end of feeding `stream` a start text whose last logits are
// `start_next` [1, vocab]: it is fed, and what it saved before belongs to
// another sample.
inline void finish_feed(SamplingBatch::Impl& batch, int stream, const torch::Tensor& start_next) {
  batch.next[stream].copy_(start_next[0]);
  batch.fed[size_t(stream)] = true;
  if (!batch.saved.empty()) batch.saved[size_t(stream)] = false;
}

// The states of the start texts fed to streams, by the tokens fed: refilling
// a stream with a seed fed before copies its state instead of running the
// seed again. All are dropped once `Limit` are held.
template <class Start, size_t Limit>
class StartCache {
 public:
  // The start of `tokens`, made by make() (returning a Start) when missing.
  template <class Make>
  const Start& get(const std::vector<Token>& tokens, Make&& make) {
    auto it = starts_.find(tokens);
    if (it != starts_.end()) return it->second;
    Start made = make();
    if (starts_.size() >= Limit) starts_.clear();
    return starts_.emplace(tokens, std::move(made)).first->second;
  }
  void clear() { starts_.clear(); }

 private:
  std::map<std::vector<Token>, Start> starts_;
};

}  // namespace clgen::model
