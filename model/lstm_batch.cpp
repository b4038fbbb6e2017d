// Sampling streams over the LSTM: a hidden state per stream.
#include <algorithm>

#include "model/batch_common.h"

namespace clgen::model {

namespace {

class LstmBatch : public SamplingBatch::Impl {
 public:
  LstmBatch(LanguageModel::Impl& m, int n) {
    init_batch(*this, m, n);
    state = m.lstm->zero_state(n, m.device);
  }

  Status feed_tokens(int stream, const std::vector<Token>& tokens) override {
    RETURN_IF_ERROR(check_stream(stream));
    RETURN_IF_ERROR(check_tokens(tokens));
    return without_grad("feeding stream", [&] {
      const Start& start = starts.get(tokens, [&] {
        std::vector<Token> all = primed(tokens);
        auto [last, st] =
            run(token_tensor(all, {int64_t(all.size()), 1}, model->device), model->lstm->zero_state(1, model->device));
        return Start{st, last};
      });
      std::get<0>(state).narrow(1, stream, 1).copy_(std::get<0>(start.state));
      std::get<1>(state).narrow(1, stream, 1).copy_(std::get<1>(start.state));
      finish_feed(*this, stream, start.next);
      return ok_status();
    });
  }

  // Every stream gets the same text: it runs once and its state is copied.
  Status feed_all(const std::vector<Token>& tokens) override {
    for (int s = 0; s < streams; ++s) RETURN_IF_ERROR(feed_tokens(s, tokens));
    return ok_status();
  }

  Status save(const std::vector<int>& list) override {
    return for_listed_streams(*this, list, false, "saving stream states", [&](const torch::Tensor& idx) {
      if (saved.empty()) {
        saved_state = {torch::zeros_like(std::get<0>(state)), torch::zeros_like(std::get<1>(state))};
        saved_next = torch::zeros_like(next);
        saved.assign(size_t(streams), false);
      }
      std::get<0>(saved_state).index_copy_(1, idx, std::get<0>(state).index_select(1, idx));
      std::get<1>(saved_state).index_copy_(1, idx, std::get<1>(state).index_select(1, idx));
      saved_next.index_copy_(0, idx, next.index_select(0, idx));
      for (int s : list) saved[size_t(s)] = true;
      return ok_status();
    });
  }

  Status restore(const std::vector<int>& list) override {
    return for_listed_streams(*this, list, true, "restoring stream states", [&](const torch::Tensor& idx) {
      std::get<0>(state).index_copy_(1, idx, std::get<0>(saved_state).index_select(1, idx));
      std::get<1>(state).index_copy_(1, idx, std::get<1>(saved_state).index_select(1, idx));
      next.index_copy_(0, idx, saved_next.index_select(0, idx));
      return ok_status();
    });
  }

  Status advance(const std::vector<Token>& tokens) override {
    return without_grad("advancing streams", [&] {
      auto [last, st] = run(token_tensor(tokens, {1, streams}, model->device), state);
      state = st;
      next = last;
      std::fill(fed.begin(), fed.end(), true);
      return ok_status();
    });
  }

  void clear_starts() override { starts.clear(); }

 private:
  // Runs `input` [T, n] through the network from `state`; returns the last
  // step's logits [n, vocab] and the new state.
  std::pair<torch::Tensor, LstmState> run(const torch::Tensor& input, const LstmState& from) {
    auto [logits, st] = model->lstm->forward(input, from);
    return {logits[logits.size(0) - 1], st};
  }

  LstmState state;  // [layers, B, hidden]
  // A feature-conditioned model's seeds differ by their header (one per
  // target, and the training headers of undirected streams), so several
  // starts are kept: ~8 KB each for a 2x512 LSTM.
  struct Start {
    LstmState state;     // batch of 1
    torch::Tensor next;  // [1, vocab]
  };
  StartCache<Start, 4096> starts;
  // save/restore: the saved states and logits, allocated at the first save.
  LstmState saved_state;
  torch::Tensor saved_next;
};

}  // namespace

std::unique_ptr<SamplingBatch::Impl> make_lstm_batch(LanguageModel::Impl& model, int streams) {
  return std::make_unique<LstmBatch>(model, streams);
}

}  // namespace clgen::model
