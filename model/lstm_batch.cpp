// Sampling streams over the LSTM: a hidden state per stream.
#include <map>

#include "model/sampling_batch_impl.h"
#include "model/torch_error.h"

namespace clgen::model {

namespace {

class LstmBatch : public SamplingBatch::Impl {
 public:
  LstmBatch(LanguageModel::Impl& m, int n) {
    model = &m;
    streams = n;
    state = m.lstm->zero_state(n, m.device);
    next = torch::zeros({n, m.vocab_size}, torch::TensorOptions().device(m.device));
    fed.assign(size_t(n), false);
  }

  Status feed_tokens(int stream, const std::vector<Token>& tokens) override {
    RETURN_IF_ERROR(check_stream(stream));
    RETURN_IF_ERROR(check_tokens(tokens));
    try {
      torch::NoGradGuard no_grad;
      auto it = cached.find(tokens);
      if (it == cached.end()) {
        std::vector<Token> all = primed(tokens);
        auto ids = torch::tensor(std::vector<int64_t>(all.begin(), all.end()), torch::kInt64)
                       .reshape({int64_t(all.size()), 1})
                       .to(model->device);
        LstmState zero = model->lstm->zero_state(1, model->device);
        auto [last, st] = run(ids, zero);
        if (cached.size() >= kCachedStarts) cached.clear();
        it = cached.emplace(tokens, Start{st, last}).first;
      }
      const Start& start = it->second;
      std::get<0>(state).narrow(1, stream, 1).copy_(std::get<0>(start.state));
      std::get<1>(state).narrow(1, stream, 1).copy_(std::get<1>(start.state));
      next[stream].copy_(start.next[0]);
      fed[size_t(stream)] = true;
      if (!saved.empty()) saved[size_t(stream)] = false;  // a new text: what it saved before is another sample's
    } catch (const std::exception& e) {
      return internal_error(std::string("feeding stream: ") + torch_error_text(e));
    }
    return ok_status();
  }

  // Every stream gets the same text: it runs once and its state is copied.
  Status feed_all(const std::vector<Token>& tokens) override {
    for (int s = 0; s < streams; ++s) RETURN_IF_ERROR(feed_tokens(s, tokens));
    return ok_status();
  }

  Status save(const std::vector<int>& list) override {
    if (list.empty()) return ok_status();
    try {
      torch::NoGradGuard no_grad;
      ASSIGN_OR_RETURN(torch::Tensor idx, stream_index(list, false));
      if (saved.empty()) {
        saved_state = {torch::zeros_like(std::get<0>(state)), torch::zeros_like(std::get<1>(state))};
        saved_next = torch::zeros_like(next);
        saved.assign(size_t(streams), false);
      }
      std::get<0>(saved_state).index_copy_(1, idx, std::get<0>(state).index_select(1, idx));
      std::get<1>(saved_state).index_copy_(1, idx, std::get<1>(state).index_select(1, idx));
      saved_next.index_copy_(0, idx, next.index_select(0, idx));
      for (int s : list) saved[size_t(s)] = true;
    } catch (const std::exception& e) {
      return internal_error(std::string("saving stream states: ") + torch_error_text(e));
    }
    return ok_status();
  }

  Status restore(const std::vector<int>& list) override {
    if (list.empty()) return ok_status();
    try {
      torch::NoGradGuard no_grad;
      ASSIGN_OR_RETURN(torch::Tensor idx, stream_index(list, true));
      std::get<0>(state).index_copy_(1, idx, std::get<0>(saved_state).index_select(1, idx));
      std::get<1>(state).index_copy_(1, idx, std::get<1>(saved_state).index_select(1, idx));
      next.index_copy_(0, idx, saved_next.index_select(0, idx));
    } catch (const std::exception& e) {
      return internal_error(std::string("restoring stream states: ") + torch_error_text(e));
    }
    return ok_status();
  }

  Status advance(const std::vector<Token>& tokens) override {
    try {
      torch::NoGradGuard no_grad;
      auto ids = torch::tensor(std::vector<int64_t>(tokens.begin(), tokens.end()), torch::kInt64)
                     .reshape({1, streams})
                     .to(model->device);
      auto [last, st] = run(ids, state);
      state = st;
      next = last;
      std::fill(fed.begin(), fed.end(), true);
    } catch (const std::exception& e) {
      return internal_error(std::string("advancing streams: ") + torch_error_text(e));
    }
    return ok_status();
  }

  void clear_starts() override { cached.clear(); }

 private:
  // Runs `input` [T, n] through the network from `state`; returns the last
  // step's logits [n, vocab] and the new state.
  std::pair<torch::Tensor, LstmState> run(const torch::Tensor& input, const LstmState& from) {
    auto [logits, st] = model->lstm->forward(input, from);
    return {logits[logits.size(0) - 1], st};
  }

  LstmState state;  // [layers, B, hidden]
  // The texts fed to streams from scratch and the states they led to (batch
  // of 1): refilling a stream with the same seed, as the sampler does for
  // every finished kernel, copies one instead of running the seed again.
  // A feature-conditioned model's seeds differ by their header (one per
  // target, and the training headers of undirected streams), so several are
  // kept: ~8 KB each for a 2x512 LSTM, all dropped once kCachedStarts are.
  struct Start {
    LstmState state;
    torch::Tensor next;  // [1, vocab]
  };
  static constexpr size_t kCachedStarts = 4096;
  std::map<std::vector<Token>, Start> cached;
  // save/restore: the saved states and logits, allocated at the first save.
  LstmState saved_state;
  torch::Tensor saved_next;
};

}  // namespace

std::unique_ptr<SamplingBatch::Impl> make_lstm_batch(LanguageModel::Impl& model, int streams) {
  return std::make_unique<LstmBatch>(model, streams);
}

}  // namespace clgen::model
