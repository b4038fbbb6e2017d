// Sampling streams over the Transformer with a key/value cache: one batched
// cache [layers, streams, heads, capacity, head_dim] and the tokens each
// stream holds in it (its length). The capacity grows (doubling, up to the
// model's context) with the longest stream, so a batch of thousands of
// streams costs memory for the kernels it writes, not for the whole context;
// a step reads only the positions up to the longest stream's.
//
// A stream that holds `context` tokens when it is fed another keeps only its
// last context/2 tokens: they are encoded again from position 0 (one batched
// pass for every stream that reached the context at that step), then the new
// token is appended. Training reads windows at random offsets, so the model
// knows text that starts in the middle of a kernel; every token still sees
// at least context/2 tokens before it.
//
// Saving a stream copies no cache: a step only writes at the stream's
// length, so the rows below a saved length hold what they held at the save
// until the stream is fed anew or shifted at the context. Restoring cuts
// the stream back to its saved length; a stream shifted since its save has
// its saved tokens encoded again (causal attention: a token's keys and
// values depend only on the tokens before it, so they equal what the cache
// held then).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "model/batch_common.h"

namespace clgen::model {

namespace {

class TransformerBatch : public SamplingBatch::Impl {
 public:
  TransformerBatch(LanguageModel::Impl& m, int n) : net(m.transformer), context(m.network.context) {
    init_batch(*this, m, n);
    history.assign(size_t(n), {});
    epoch.assign(size_t(n), 0);
  }

  Status feed_tokens(int stream, const std::vector<Token>& tokens) override {
    RETURN_IF_ERROR(check_stream(stream));
    RETURN_IF_ERROR(check_tokens(tokens));
    return without_grad("feeding stream", [&] {
      const Start& start = start_of(tokens);
      const int64_t t = int64_t(start.tokens.size());
      grow(t);
      cache.k.select(1, stream).narrow(2, 0, t).copy_(start.kv.k.select(1, 0));
      cache.v.select(1, stream).narrow(2, 0, t).copy_(start.kv.v.select(1, 0));
      history[size_t(stream)] = start.tokens;
      epoch[size_t(stream)] = ++epochs;
      finish_feed(*this, stream, start.next);
      return ok_status();
    });
  }

  // The text runs once; its keys and values are copied to every stream.
  Status feed_all(const std::vector<Token>& tokens) override {
    RETURN_IF_ERROR(check_tokens(tokens));
    return without_grad("feeding streams", [&] {
      const Start& start = start_of(tokens);
      const int64_t t = int64_t(start.tokens.size());
      grow(t);
      cache.k.narrow(3, 0, t).copy_(start.kv.k.expand_as(cache.k.narrow(3, 0, t)));
      cache.v.narrow(3, 0, t).copy_(start.kv.v.expand_as(cache.v.narrow(3, 0, t)));
      std::fill(history.begin(), history.end(), start.tokens);
      for (auto& e : epoch) e = ++epochs;
      next.copy_(start.next.expand_as(next));
      std::fill(fed.begin(), fed.end(), true);
      if (!saved.empty()) std::fill(saved.begin(), saved.end(), false);
      return ok_status();
    });
  }

  Status advance(const std::vector<Token>& tokens) override {
    return without_grad("advancing streams", [&] {
      std::vector<int> full;
      for (int s = 0; s < streams; ++s)
        if (int64_t(history[size_t(s)].size()) >= context) full.push_back(s);
      if (!full.empty()) {
        for (int s : full) {
          auto& h = history[size_t(s)];
          h.erase(h.begin(), h.end() - context / 2);
          epoch[size_t(s)] = ++epochs;
        }
        encode(full);
      }
      // Tokens and positions in one host buffer (pinned on CUDA): one copy, no wait for the device.
      auto host = torch::empty({2, streams}, torch::TensorOptions().dtype(torch::kInt64).pinned_memory(on_cuda()));
      int64_t* ids = host.data_ptr<int64_t>();
      int64_t* at = ids + streams;
      int64_t longest = 0;
      for (int s = 0; s < streams; ++s) {
        ids[s] = tokens[size_t(s)];
        at[s] = int64_t(history[size_t(s)].size());
        longest = std::max(longest, at[s] + 1);
      }
      grow(longest);
      auto dev = host.to(model->device, /*non_blocking=*/on_cuda());
      next = net->step(dev[0], dev[1], cache, longest);
      for (int s = 0; s < streams; ++s) history[size_t(s)].push_back(tokens[size_t(s)]);
      std::fill(fed.begin(), fed.end(), true);
      return ok_status();
    });
  }

  // The logits and the tokens; the cache rows stay where they are.
  Status save(const std::vector<int>& list) override {
    return for_listed_streams(*this, list, false, "saving stream states", [&](const torch::Tensor& idx) {
      if (saved.empty()) {
        saved.assign(size_t(streams), false);
        saved_history.assign(size_t(streams), {});
        saved_epoch.assign(size_t(streams), 0);
        saved_next = torch::zeros_like(next);
      }
      saved_next.index_copy_(0, idx, next.index_select(0, idx));
      for (int s : list) {
        saved_history[size_t(s)] = history[size_t(s)];
        saved_epoch[size_t(s)] = epoch[size_t(s)];
        saved[size_t(s)] = true;
      }
      return ok_status();
    });
  }

  Status restore(const std::vector<int>& list) override {
    return for_listed_streams(*this, list, true, "restoring stream states", [&](const torch::Tensor& idx) {
      next.index_copy_(0, idx, saved_next.index_select(0, idx));
      std::vector<int> shifted;  // since their save: their rows hold other tokens now
      for (int s : list) {
        history[size_t(s)] = saved_history[size_t(s)];
        if (epoch[size_t(s)] != saved_epoch[size_t(s)]) {
          shifted.push_back(s);
          epoch[size_t(s)] = saved_epoch[size_t(s)] = ++epochs;
        }
      }
      if (!shifted.empty()) encode(shifted);
      return ok_status();
    });
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

  bool on_cuda() const { return model->device.is_cuda(); }

  const Start& start_of(const std::vector<Token>& tokens) {
    return starts.get(tokens, [&] {
      Start s;
      s.tokens = primed(tokens);
      if (int64_t(s.tokens.size()) > context) s.tokens.erase(s.tokens.begin(), s.tokens.end() - context);
      auto logits = net->forward(token_tensor(s.tokens, {1, -1}, model->device), &s.kv);
      s.next = logits.select(1, logits.size(1) - 1);
      return s;
    });
  }

  // Room for `needed` positions in the cache.
  void grow(int64_t needed) {
    if (needed <= capacity) return;
    const int64_t to = std::min<int64_t>(context, std::max<int64_t>({needed, 2 * capacity, 16}));
    auto opts = torch::TensorOptions().dtype(net->compute_dtype).device(model->device);
    KeyValues wider{torch::zeros({net->config.layers, streams, net->config.heads, to, net->head_dim}, opts),
                    torch::zeros({net->config.layers, streams, net->config.heads, to, net->head_dim}, opts)};
    if (cache.k.defined()) {
      wider.k.narrow(3, 0, capacity).copy_(cache.k);
      wider.v.narrow(3, 0, capacity).copy_(cache.v);
    }
    cache = std::move(wider);
    capacity = to;
  }

  // Writes the keys and values of the listed streams' tokens (history) into
  // their cache rows from position 0: streams of one length go through the
  // network together, at most kEncodeBatch at a time.
  void encode(const std::vector<int>& list) {
    static constexpr size_t kEncodeBatch = 256;
    std::map<size_t, std::vector<int64_t>> by_length;
    for (int s : list) by_length[history[size_t(s)].size()].push_back(s);
    for (const auto& [len, members] : by_length) {
      grow(int64_t(len));
      for (size_t first = 0; first < members.size(); first += kEncodeBatch) {
        const size_t n = std::min(kEncodeBatch, members.size() - first);
        std::vector<int64_t> ids;
        ids.reserve(n * len);
        for (size_t i = 0; i < n; ++i) {
          const auto& h = history[size_t(members[first + i])];
          ids.insert(ids.end(), h.begin(), h.end());
        }
        KeyValues kv;
        net->forward(torch::tensor(ids, torch::kInt64).reshape({int64_t(n), int64_t(len)}).to(model->device), &kv);
        auto idx = torch::tensor(std::vector<int64_t>(members.begin() + std::ptrdiff_t(first),
                                                      members.begin() + std::ptrdiff_t(first + n)),
                                 torch::kInt64)
                       .to(model->device);
        cache.k.narrow(3, 0, int64_t(len)).index_copy_(1, idx, kv.k);
        cache.v.narrow(3, 0, int64_t(len)).index_copy_(1, idx, kv.v);
      }
    }
  }

  TransformerNetwork net;
  int64_t context;
  KeyValues cache;  // [layers, B, heads, capacity, head_dim]; undefined until a stream is fed
  int64_t capacity = 0;
  std::vector<std::vector<Token>> history;  // the tokens in each stream's cache rows
  // Bumped whenever a stream's rows are written below its length (a feed, a
  // shift at the context, a restore that encodes again): a saved state of
  // an older epoch no longer matches the rows.
  std::vector<uint64_t> epoch;
  uint64_t epochs = 0;
  // ~12 KB a token for 6 layers of width 512 in bfloat16.
  StartCache<Start, 1024> starts;
  std::vector<std::vector<Token>> saved_history;
  std::vector<uint64_t> saved_epoch;
  torch::Tensor saved_next;
};

}  // namespace

std::unique_ptr<SamplingBatch::Impl> make_transformer_batch(LanguageModel::Impl& model, int streams) {
  return std::make_unique<TransformerBatch>(model, streams);
}

}  // namespace clgen::model
