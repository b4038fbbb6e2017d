// The sampler's view of a language model: a batch of independent streams
// that are fed text and stepped one token at a time. Free of LibTorch types;
// the adapter to the model module (model_adapter.cpp) and test doubles
// implement it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sampler/targets.h"
#include "support/status.h"

namespace clgen::sampler {

class StreamModel {
 public:
  virtual ~StreamModel() = default;

  virtual std::string model_id() const = 0;
  virtual int streams() const = 0;
  virtual int vocab_size() const = 0;

  // Resets stream `stream` and feeds it `text` (the seed).
  virtual Status feed(int stream, std::string_view text) = 0;
  // Resets stream `stream` and feeds it `previous`, the separator, then
  // `text`: the stream starts a text after another one, as every text but
  // the first follows one in training. A model without a separator feeds
  // `text` alone.
  virtual Status feed_after(int stream, std::string_view previous, std::string_view text) {
    (void)previous;
    return feed(stream, text);
  }
  // feed() for every stream; models override it with one batched pass.
  virtual Status feed_all(std::string_view text) {
    for (int i = 0; i < streams(); ++i) RETURN_IF_ERROR(feed(i, text));
    return ok_status();
  }
  // Next-token logits of every stream, row-major [streams x vocab_size].
  virtual Expected<std::vector<float>> logits() = 0;
  // Feeds one token to each stream.
  virtual Status advance(const std::vector<int32_t>& tokens) = 0;

  // Backtracking (BatchSamplerOptions::max_backtracks): save() keeps the
  // listed streams' state (what logits() would give them next), one per
  // stream; restore() returns the listed streams to it. A model that cannot
  // says so with can_save() false, and the sampler does not backtrack.
  virtual bool can_save() const { return false; }
  virtual Status save(const std::vector<int>& streams) { return unavailable("this model cannot save states"); }
  virtual Status restore(const std::vector<int>& streams) { return unavailable("this model cannot save states"); }

  // The text a token appends to a stream.
  virtual const std::string& token_text(int32_t token) const = 0;
  // The end-of-kernel token (the training separator), or -1 when none.
  virtual int32_t end_token() const = 0;

  // A feature-conditioned model (training.feature_prefix, docs/MODEL.md)
  // read every training kernel after a line stating its Grewe features: the
  // line that asks for `features`, to feed before the seed (StreamStart::
  // context); "" for a model trained without it.
  virtual std::string feature_header(const GreweVector& features) const { return ""; }
  // The headers of its training kernels with their counts (undirected
  // streams draw one in proportion); empty for an unconditioned model.
  virtual std::vector<std::pair<std::string, uint64_t>> training_headers() const { return {}; }
};

// The real model from the workspace (`model_id` empty = the latest trained),
// on `device` ("cpu", "cuda", "auto"; a CUDA device is cuda:(local_rank mod
// the visible devices)), as `streams` streams. Available when
// clgen is built with LibTorch; otherwise fails with kUnavailable.
// `start_after_separator`: seeds are read as the start of a corpus file (after
// the separator token), else from the network's zero state. `checkpoint`:
// "best" (lowest validation loss; the last for models without one) or "last".
Expected<std::unique_ptr<StreamModel>> load_stream_model(const std::string& workspace_root, const std::string& model_id,
                                                         const std::string& device, int streams, uint64_t seed,
                                                         bool start_after_separator = true, int local_rank = 0,
                                                         const std::string& checkpoint = "best");

// The id of the model `config_path` trains on the workspace's current corpus
// (so `--config configs/tiny.toml` finds that model's checkpoint).
Expected<std::string> model_id_for_config(const std::string& workspace_root,
                                          const std::string& config_path);

}  // namespace clgen::sampler
