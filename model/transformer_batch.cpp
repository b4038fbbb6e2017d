// Sampling streams over the Transformer with a key/value cache: one batched
// cache [layers, streams, heads, capacity, head_dim] and the tokens each
// stream holds in it (its length). The capacity grows (doubling, up to the
// model's context) with the longest stream, so a batch of thousands of
// streams costs memory for the kernels it writes, not for the whole context.
//
// A stream that holds `context` tokens when it is fed another keeps only its
// last context/2 tokens: they are encoded again from position 0 (one batched
// pass for every stream that reached the context at that step), then the new
// token is appended. Training reads windows at random offsets, so the model
// knows text that starts in the middle of a kernel; every token still sees
// at least context/2 tokens before it.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "model/sampling_batch_impl.h"

namespace clgen::model {

namespace {

class TransformerBatch : public SamplingBatch::Impl {
 public:
  TransformerBatch(LanguageModel::Impl& m, int n) : net(m.transformer), context(m.network.context) {
    model = &m;
    streams = n;
    next = torch::zeros({n, m.vocab_size}, torch::TensorOptions().device(m.device));
    fed.assign(size_t(n), false);
    history.assign(size_t(n), {});
  }

  Status feed_tokens(int stream, const std::vector<Token>& tokens) override {
    RETURN_IF_ERROR(check_stream(stream));
    RETURN_IF_ERROR(check_tokens(tokens));
    try {
      torch::NoGradGuard no_grad;
      const Start& start = start_of(tokens);
      const int64_t t = int64_t(start.tokens.size());
      grow(t);
      cache.k.select(1, stream).narrow(2, 0, t).copy_(start.kv.k.select(1, 0));
      cache.v.select(1, stream).narrow(2, 0, t).copy_(start.kv.v.select(1, 0));
      history[size_t(stream)] = start.tokens;
      next[stream].copy_(start.next[0]);
      fed[size_t(stream)] = true;
      if (!saved.empty()) saved[size_t(stream)] = false;
    } catch (const std::exception& e) {
      return internal_error(std::string("feeding stream: ") + e.what());
    }
    return ok_status();
  }

  // The text runs once; its keys and values are copied to every stream.
  Status feed_all(const std::vector<Token>& tokens) override {
    RETURN_IF_ERROR(check_tokens(tokens));
    try {
      torch::NoGradGuard no_grad;
      const Start& start = start_of(tokens);
      const int64_t t = int64_t(start.tokens.size());
      grow(t);
      cache.k.narrow(3, 0, t).copy_(start.kv.k.expand_as(cache.k.narrow(3, 0, t)));
      cache.v.narrow(3, 0, t).copy_(start.kv.v.expand_as(cache.v.narrow(3, 0, t)));
      std::fill(history.begin(), history.end(), start.tokens);
      next.copy_(start.next.expand_as(next));
      std::fill(fed.begin(), fed.end(), true);
      if (!saved.empty()) std::fill(saved.begin(), saved.end(), false);
    } catch (const std::exception& e) {
      return internal_error(std::string("feeding streams: ") + e.what());
    }
    return ok_status();
  }

  Status advance(const std::vector<Token>& tokens) override {
    try {
      torch::NoGradGuard no_grad;
      shift_full_streams();
      std::vector<int64_t> positions(static_cast<size_t>(streams));
      int64_t longest = 0;
      for (int s = 0; s < streams; ++s) {
        positions[size_t(s)] = int64_t(history[size_t(s)].size());
        longest = std::max(longest, positions[size_t(s)] + 1);
      }
      grow(longest);
      auto ids = torch::tensor(std::vector<int64_t>(tokens.begin(), tokens.end()), torch::kInt64).to(model->device);
      auto at = torch::tensor(positions, torch::kInt64).to(model->device);
      next = net->step(ids, at, cache);
      for (int s = 0; s < streams; ++s) history[size_t(s)].push_back(tokens[size_t(s)]);
      std::fill(fed.begin(), fed.end(), true);
    } catch (const std::exception& e) {
      return internal_error(std::string("advancing streams: ") + e.what());
    }
    return ok_status();
  }

  Status save(const std::vector<int>& list) override {
    if (list.empty()) return ok_status();
    try {
      torch::NoGradGuard no_grad;
      ASSIGN_OR_RETURN(torch::Tensor idx, stream_index(list, false));
      if (saved.empty()) {
        saved.assign(size_t(streams), false);
        saved_history.assign(size_t(streams), {});
        saved_next = torch::zeros_like(next);
      }
      if (capacity > 0 && !saved_cache.k.defined())
        saved_cache = {torch::zeros_like(cache.k), torch::zeros_like(cache.v)};
      if (capacity > 0) {
        saved_cache.k.index_copy_(1, idx, cache.k.index_select(1, idx));
        saved_cache.v.index_copy_(1, idx, cache.v.index_select(1, idx));
      }
      saved_next.index_copy_(0, idx, next.index_select(0, idx));
      for (int s : list) {
        saved_history[size_t(s)] = history[size_t(s)];
        saved[size_t(s)] = true;
      }
    } catch (const std::exception& e) {
      return internal_error(std::string("saving stream states: ") + e.what());
    }
    return ok_status();
  }

  Status restore(const std::vector<int>& list) override {
    if (list.empty()) return ok_status();
    try {
      torch::NoGradGuard no_grad;
      ASSIGN_OR_RETURN(torch::Tensor idx, stream_index(list, true));
      if (saved_cache.k.defined()) {
        cache.k.index_copy_(1, idx, saved_cache.k.index_select(1, idx));
        cache.v.index_copy_(1, idx, saved_cache.v.index_select(1, idx));
      }
      next.index_copy_(0, idx, saved_next.index_select(0, idx));
      for (int s : list) history[size_t(s)] = saved_history[size_t(s)];
    } catch (const std::exception& e) {
      return internal_error(std::string("restoring stream states: ") + e.what());
    }
    return ok_status();
  }

  void clear_starts() override { starts.clear(); }

 private:
  // A start text's tokens as held in the cache (after the separator, and
  // its last `context` tokens when longer), keys, values and next logits.
  struct Start {
    std::vector<Token> tokens;
    KeyValues kv;        // [layers, 1, heads, T, head_dim]
    torch::Tensor next;  // [1, vocab]
  };
  // ~12 KB a token for 6 layers of width 512 in bfloat16: all are dropped once kCachedStarts are.
  static constexpr size_t kCachedStarts = 1024;

  const Start& start_of(const std::vector<Token>& tokens) {
    auto it = starts.find(tokens);
    if (it != starts.end()) return it->second;
    Start s;
    s.tokens = primed(tokens);
    if (int64_t(s.tokens.size()) > context) s.tokens.erase(s.tokens.begin(), s.tokens.end() - context);
    auto ids = torch::tensor(std::vector<int64_t>(s.tokens.begin(), s.tokens.end()), torch::kInt64)
                   .reshape({1, -1})
                   .to(model->device);
    auto logits = net->forward(ids, &s.kv);
    s.next = logits.select(1, logits.size(1) - 1);
    if (starts.size() >= kCachedStarts) starts.clear();
    return starts.emplace(tokens, std::move(s)).first->second;
  }

  // Room for `needed` positions in the cache (and the saved copy).
  void grow(int64_t needed) {
    if (needed <= capacity) return;
    const int64_t to = std::min<int64_t>(context, std::max<int64_t>({needed, 2 * capacity, 16}));
    auto opts = torch::TensorOptions().dtype(net->compute_dtype).device(model->device);
    auto widen = [&](KeyValues& kv) {
      KeyValues wider{torch::zeros({net->config.layers, streams, net->config.heads, to, net->head_dim}, opts),
                      torch::zeros({net->config.layers, streams, net->config.heads, to, net->head_dim}, opts)};
      if (kv.k.defined()) {
        wider.k.narrow(3, 0, capacity).copy_(kv.k);
        wider.v.narrow(3, 0, capacity).copy_(kv.v);
      }
      kv = std::move(wider);
    };
    widen(cache);
    if (saved_cache.k.defined()) widen(saved_cache);
    capacity = to;
  }

  // Streams holding `context` tokens keep their last context/2, encoded
  // again from position 0, in batches of at most kShiftBatch streams.
  void shift_full_streams() {
    static constexpr size_t kShiftBatch = 256;
    const int64_t keep = context / 2;
    std::vector<int64_t> full;
    for (int s = 0; s < streams; ++s)
      if (int64_t(history[size_t(s)].size()) >= context) full.push_back(s);
    for (size_t first = 0; first < full.size(); first += kShiftBatch) {
      const size_t n = std::min(kShiftBatch, full.size() - first);
      std::vector<int64_t> ids;
      ids.reserve(n * size_t(keep));
      for (size_t i = 0; i < n; ++i) {
        auto& h = history[size_t(full[first + i])];
        h.erase(h.begin(), h.end() - keep);
        ids.insert(ids.end(), h.begin(), h.end());
      }
      KeyValues kv;
      net->forward(torch::tensor(ids, torch::kInt64).reshape({int64_t(n), keep}).to(model->device), &kv);
      auto idx = torch::tensor(std::vector<int64_t>(full.begin() + std::ptrdiff_t(first),
                                                    full.begin() + std::ptrdiff_t(first + n)),
                               torch::kInt64)
                     .to(model->device);
      cache.k.narrow(3, 0, keep).index_copy_(1, idx, kv.k);
      cache.v.narrow(3, 0, keep).index_copy_(1, idx, kv.v);
    }
  }

  TransformerNetwork net;
  int64_t context;
  KeyValues cache;  // [layers, B, heads, capacity, head_dim]; undefined until a stream is fed
  int64_t capacity = 0;
  std::vector<std::vector<Token>> history;  // the tokens in each stream's cache rows
  std::map<std::vector<Token>, Start> starts;
  KeyValues saved_cache;
  std::vector<std::vector<Token>> saved_history;
  torch::Tensor saved_next;
};

}  // namespace

std::unique_ptr<SamplingBatch::Impl> make_transformer_batch(LanguageModel::Impl& model, int streams) {
  return std::make_unique<TransformerBatch>(model, streams);
}

}  // namespace clgen::model
