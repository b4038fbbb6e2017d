// Loading trained models and stepping batches of sampling streams.
#include "model/language_model.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/data_parallel.h"
#include "model/network.h"
#include "support/files.h"

namespace clgen::model {

namespace fs = std::filesystem;

struct LanguageModel::Impl {
  std::string id;
  std::unique_ptr<Vocabulary> vocabulary;
  HeaderCounts feature_headers;  // empty: not feature-conditioned
  LstmNetwork network{nullptr};
  torch::Device device{torch::kCPU};
};

struct SamplingBatch::Impl {
  LanguageModel::Impl* model = nullptr;
  int streams = 0;
  LstmState state;      // [layers, B, hidden]
  torch::Tensor next;   // [B, vocab] logits of the next token
  std::vector<bool> fed;
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
  bool after_separator = true;
  std::map<std::vector<Token>, Start> cached;

  // A stream starts the way a corpus file does in training: right after the
  // separator that ends the previous file. Without it the seed would be read
  // from the zero state, which training almost never sees (the state is
  // carried across batches), and the first tokens after the seed suffer.
  std::vector<Token> primed(const std::vector<Token>& tokens) const {
    std::vector<Token> out;
    out.reserve(tokens.size() + 1);
    if (after_separator) out.push_back(model->vocabulary->separator());
    out.insert(out.end(), tokens.begin(), tokens.end());
    return out;
  }

  // Runs `input` [T, n] through the network from `state`; returns the last
  // step's logits [n, vocab] and the new state.
  std::pair<torch::Tensor, LstmState> run(const torch::Tensor& input, const LstmState& from) {
    auto [logits, st] = model->network->forward(input, from);
    return {logits[logits.size(0) - 1], st};
  }

  Status check_stream(int stream) const {
    if (stream < 0 || stream >= streams)
      return invalid_argument(fmt::format("stream {} out of range (batch of {})", stream, streams));
    return ok_status();
  }

  Status feed_tokens(int stream, const std::vector<Token>& tokens) {
    RETURN_IF_ERROR(check_stream(stream));
    if (tokens.empty()) return invalid_argument("feeding an empty text");
    int v = model->network->vocab_size;
    for (Token t : tokens)
      if (t < 0 || t >= v) return invalid_argument(fmt::format("token {} out of range", t));
    try {
      torch::NoGradGuard no_grad;
      auto it = cached.find(tokens);
      if (it == cached.end()) {
        std::vector<Token> all = primed(tokens);
        auto ids = torch::tensor(std::vector<int64_t>(all.begin(), all.end()), torch::kInt64)
                       .reshape({int64_t(all.size()), 1})
                       .to(model->device);
        LstmState zero = model->network->zero_state(1, model->device);
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
      return internal_error(std::string("feeding stream: ") + e.what());
    }
    return ok_status();
  }

  // SamplingBatch::save/restore: the saved states and logits, allocated at
  // the first save, and which streams have saved.
  LstmState saved_state;
  torch::Tensor saved_next;
  std::vector<bool> saved;

  Expected<torch::Tensor> stream_index(const std::vector<int>& list, bool must_have_saved) const {
    for (int s : list) {
      RETURN_IF_ERROR(check_stream(s));
      if (must_have_saved && (saved.empty() || !saved[size_t(s)]))
        return invalid_argument(fmt::format("stream {} has no saved state to restore", s));
    }
    return torch::tensor(std::vector<int64_t>(list.begin(), list.end()), torch::kInt64).to(model->device);
  }

  Status save(const std::vector<int>& list) {
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
      return internal_error(std::string("saving stream states: ") + e.what());
    }
    return ok_status();
  }

  Status restore(const std::vector<int>& list) {
    if (list.empty()) return ok_status();
    try {
      torch::NoGradGuard no_grad;
      ASSIGN_OR_RETURN(torch::Tensor idx, stream_index(list, true));
      std::get<0>(state).index_copy_(1, idx, std::get<0>(saved_state).index_select(1, idx));
      std::get<1>(state).index_copy_(1, idx, std::get<1>(saved_state).index_select(1, idx));
      next.index_copy_(0, idx, saved_next.index_select(0, idx));
    } catch (const std::exception& e) {
      return internal_error(std::string("restoring stream states: ") + e.what());
    }
    return ok_status();
  }

  Status advance(const std::vector<Token>& tokens) {
    if (int(tokens.size()) != streams)
      return invalid_argument(fmt::format("advance: {} tokens for {} streams", tokens.size(), streams));
    int v = model->network->vocab_size;
    for (Token t : tokens)
      if (t < 0 || t >= v) return invalid_argument(fmt::format("token {} out of range", t));
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
      return internal_error(std::string("advancing streams: ") + e.what());
    }
    return ok_status();
  }
};

LanguageModel::LanguageModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LanguageModel::~LanguageModel() = default;
const std::string& LanguageModel::id() const { return impl_->id; }
const Vocabulary& LanguageModel::vocabulary() const { return *impl_->vocabulary; }
const HeaderCounts& LanguageModel::feature_headers() const { return impl_->feature_headers; }
std::string LanguageModel::device() const { return impl_->device.str(); }

Expected<std::unique_ptr<LanguageModel>> LanguageModel::load(const std::string& workspace_root,
                                                             const std::string& model_id,
                                                             const std::string& device,
                                                             int local_rank) {
  fs::path models = fs::path(workspace_root) / "models";
  std::string id = model_id;
  if (id.empty()) {
    auto latest = read_file((models / "latest").string());
    if (!latest.ok())
      return not_found(fmt::format("no trained model in workspace {}: run `clgen train` first",
                                   workspace_root));
    id = *latest;
    while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  }
  fs::path dir = models / id;
  auto meta_text = read_file((dir / "model.json").string());
  if (!meta_text.ok())
    return not_found(fmt::format("model {} not found in {}: {}", id, models.string(),
                                 meta_text.status().message()));
  auto meta = nlohmann::json::parse(*meta_text, nullptr, false);
  if (meta.is_discarded() || !meta.is_object())
    return parse_error((dir / "model.json").string() + ": not JSON");
  std::string checkpoint = (dir / meta.value("checkpoint", "checkpoint.pt")).string();
  std::error_code ec;
  if (!fs::exists(checkpoint, ec))
    return not_found(fmt::format("model {} has no checkpoint yet ({}): train it first", id, checkpoint));

  auto impl = std::make_unique<Impl>();
  impl->id = id;
  if (meta.value("feature_prefix", false)) {
    // Without its headers a conditioned model could only be sampled out of
    // the distribution it learned: refuse it rather than sample badly.
    const std::string headers = (dir / meta.value("feature_headers", kFeatureHeadersFile)).string();
    auto text = read_file(headers);
    if (!text.ok())
      return not_found(
          fmt::format("model {} was trained with training.feature_prefix, but its feature headers "
                      "cannot be read: {}",
                      id, text.status().message()));
    ASSIGN_OR_RETURN(impl->feature_headers, parse_header_counts_tsv(*text, headers));
  }
  ASSIGN_OR_RETURN(impl->vocabulary,
                   load_vocabulary((fs::path(workspace_root) / meta.value("vocabulary", "")).string()));
  ASSIGN_OR_RETURN(impl->device, rank_device(device, local_rank));
  NetworkConfig net;
  net.embedding_size = meta.value("embedding_size", net.embedding_size);
  net.hidden_size = meta.value("hidden_size", net.hidden_size);
  net.layers = meta.value("layers", net.layers);
  net.dropout = meta.value("dropout", net.dropout);
  try {
    impl->network = LstmNetwork(impl->vocabulary->size(), net);
    auto pos = load_checkpoint(checkpoint, impl->network, nullptr, impl->device);
    if (!pos.ok()) return pos.status();
    impl->network->eval();
  } catch (const std::exception& e) {
    return internal_error(fmt::format("loading model {}: {}", id, e.what()));
  }
  return std::unique_ptr<LanguageModel>(new LanguageModel(std::move(impl)));
}

Expected<std::unique_ptr<SamplingBatch>> LanguageModel::new_batch(int streams, uint64_t seed) {
  if (streams < 1) return invalid_argument("a sampling batch needs at least one stream");
  auto b = std::make_unique<SamplingBatch::Impl>();
  b->model = impl_.get();
  b->streams = streams;
  try {
    torch::NoGradGuard no_grad;
    b->state = impl_->network->zero_state(streams, impl_->device);
    b->next = torch::zeros({streams, impl_->network->vocab_size},
                           torch::TensorOptions().device(impl_->device));
    torch::manual_seed(seed);
  } catch (const std::exception& e) {
    return internal_error(std::string("creating a sampling batch: ") + e.what());
  }
  b->fed.assign(size_t(streams), false);
  return std::unique_ptr<SamplingBatch>(new SamplingBatch(std::move(b)));
}

SamplingBatch::SamplingBatch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SamplingBatch::~SamplingBatch() = default;
int SamplingBatch::streams() const { return impl_->streams; }
int SamplingBatch::vocab_size() const { return impl_->model->network->vocab_size; }

Status SamplingBatch::feed(int stream, std::string_view text) {
  ASSIGN_OR_RETURN(auto tokens, impl_->model->vocabulary->encode(text));
  return impl_->feed_tokens(stream, tokens);
}

Status SamplingBatch::feed_tokens(int stream, const std::vector<Token>& tokens) {
  return impl_->feed_tokens(stream, tokens);
}

void SamplingBatch::set_start_after_separator(bool yes) {
  if (impl_->after_separator != yes) impl_->cached.clear();
  impl_->after_separator = yes;
}

Status SamplingBatch::feed_all(std::string_view text) {
  ASSIGN_OR_RETURN(auto tokens, impl_->model->vocabulary->encode(text));
  if (tokens.empty()) return invalid_argument("feeding an empty text");
  // Every stream gets the same text: run it once and copy the state.
  for (int s = 0; s < impl_->streams; ++s) RETURN_IF_ERROR(impl_->feed_tokens(s, tokens));
  return ok_status();
}

Expected<std::vector<float>> SamplingBatch::logits() const {
  for (int s = 0; s < impl_->streams; ++s)
    if (!impl_->fed[size_t(s)]) return invalid_argument(fmt::format("stream {} was never fed", s));
  auto cpu = impl_->next.to(torch::kCPU).to(torch::kFloat32).contiguous();
  return std::vector<float>(cpu.data_ptr<float>(), cpu.data_ptr<float>() + cpu.numel());
}

Status SamplingBatch::advance(const std::vector<Token>& tokens) { return impl_->advance(tokens); }
Status SamplingBatch::save(const std::vector<int>& streams) { return impl_->save(streams); }
Status SamplingBatch::restore(const std::vector<int>& streams) { return impl_->restore(streams); }

Expected<std::vector<Token>> SamplingBatch::sample(double temperature) {
  if (!(temperature > 0)) return invalid_argument("temperature must be positive");
  for (int s = 0; s < impl_->streams; ++s)
    if (!impl_->fed[size_t(s)]) return invalid_argument(fmt::format("stream {} was never fed", s));
  std::vector<Token> tokens;
  try {
    torch::NoGradGuard no_grad;
    auto probs = torch::softmax(impl_->next.to(torch::kFloat32) / temperature, -1);
    auto drawn = torch::multinomial(probs, 1).reshape({-1}).to(torch::kCPU);
    auto acc = drawn.accessor<int64_t, 1>();
    for (int64_t i = 0; i < drawn.size(0); ++i) tokens.push_back(Token(acc[i]));
  } catch (const std::exception& e) {
    return internal_error(std::string("sampling: ") + e.what());
  }
  RETURN_IF_ERROR(impl_->advance(tokens));
  return tokens;
}

}  // namespace clgen::model
