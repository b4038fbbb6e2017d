// Loading trained models and stepping batches of sampling streams.
#include "model/language_model.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/data_parallel.h"
#include "model/network.h"
#include "model/sampling_batch_impl.h"
#include "model/torch_error.h"
#include "support/files.h"
#include "support/log.h"

namespace clgen::model {

namespace fs = std::filesystem;

std::vector<Token> SamplingBatch::Impl::primed(const std::vector<Token>& tokens) const {
  std::vector<Token> out;
  out.reserve(tokens.size() + 1);
  if (after_separator) out.push_back(model->vocabulary->separator());
  out.insert(out.end(), tokens.begin(), tokens.end());
  return out;
}

Status SamplingBatch::Impl::check_stream(int stream) const {
  if (stream < 0 || stream >= streams)
    return invalid_argument(fmt::format("stream {} out of range (batch of {})", stream, streams));
  return ok_status();
}

Status SamplingBatch::Impl::check_tokens(const std::vector<Token>& tokens) const {
  // After the separator an empty text is the start of a file (a whole-text
  // sample); from the zero state the model has nothing to read.
  if (tokens.empty() && !after_separator) return invalid_argument("feeding an empty text without the separator");
  for (Token t : tokens)
    if (t < 0 || t >= model->vocab_size) return invalid_argument(fmt::format("token {} out of range", t));
  return ok_status();
}

Expected<torch::Tensor> SamplingBatch::Impl::stream_index(const std::vector<int>& list, bool must_have_saved) const {
  for (int s : list) {
    RETURN_IF_ERROR(check_stream(s));
    if (must_have_saved && (saved.empty() || !saved[size_t(s)]))
      return invalid_argument(fmt::format("stream {} has no saved state to restore", s));
  }
  return torch::tensor(std::vector<int64_t>(list.begin(), list.end()), torch::kInt64).to(model->device);
}

LanguageModel::LanguageModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LanguageModel::~LanguageModel() = default;
const std::string& LanguageModel::id() const { return impl_->id; }
const Vocabulary& LanguageModel::vocabulary() const { return *impl_->vocabulary; }
const HeaderCounts& LanguageModel::feature_headers() const { return impl_->feature_headers; }
std::string LanguageModel::device() const { return impl_->device.str(); }

Expected<std::unique_ptr<LanguageModel>> LanguageModel::load(const std::string& workspace_root,
                                                             const std::string& model_id, const std::string& device,
                                                             int local_rank, const std::string& which) {
  if (which != "best" && which != "last")
    return invalid_argument(fmt::format("checkpoint must be \"best\" or \"last\", not \"{}\"", which));
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
  std::string checkpoint = (dir / meta.value("checkpoint", kLastCheckpointFile)).string();
  std::error_code ec;
  if (!fs::exists(checkpoint, ec))
    return not_found(fmt::format("model {} has no checkpoint yet ({}): train it first", id, checkpoint));
  if (which == "best") {
    const std::string best = (dir / meta.value("best_checkpoint", kBestCheckpointFile)).string();
    if (fs::exists(best, ec)) checkpoint = best;
    else
      spdlog::info(
          "model {} has no best checkpoint (trained without validation, or before best checkpoints "
          "were kept): sampling from its last one",
          id);
  }

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
  NetworkConfig& net = impl->network;
  net.type = meta.value("type", std::string("lstm"));
  net.embedding_size = meta.value("embedding_size", net.embedding_size);
  net.hidden_size = meta.value("hidden_size", net.hidden_size);
  net.layers = meta.value("layers", net.layers);
  net.dropout = meta.value("dropout", net.dropout);
  net.width = meta.value("width", net.width);
  net.heads = meta.value("heads", net.heads);
  net.context = meta.value("context", net.context);
  net.tied_embeddings = meta.value("tied_embeddings", net.tied_embeddings);
  if (net.type != "lstm" && net.type != "transformer")
    return parse_error(fmt::format("{}: unknown model type \"{}\"", (dir / "model.json").string(), net.type));
  impl->vocab_size = impl->vocabulary->size();
  try {
    torch::nn::Module* module = nullptr;
    if (net.type == "transformer") {
      impl->transformer = TransformerNetwork(impl->vocab_size, net);
      module = impl->transformer.get();
    } else {
      impl->lstm = LstmNetwork(impl->vocab_size, net);
      module = impl->lstm.get();
    }
    auto pos = load_checkpoint(checkpoint, *module, impl->vocab_size, nullptr, impl->device);
    if (!pos.ok()) return pos.status();
    module->eval();
    if (!impl->transformer.is_empty())
      impl->transformer->set_compute_dtype(impl->device.is_cuda() ? torch::kBFloat16 : torch::kFloat32);
  } catch (const std::exception& e) {
    return internal_error(fmt::format("loading model {}: {}", id, torch_error_text(e)));
  }
  return std::unique_ptr<LanguageModel>(new LanguageModel(std::move(impl)));
}

Expected<std::unique_ptr<SamplingBatch>> LanguageModel::new_batch(int streams, uint64_t seed) {
  if (streams < 1) return invalid_argument("a sampling batch needs at least one stream");
  std::unique_ptr<SamplingBatch::Impl> b;
  try {
    torch::NoGradGuard no_grad;
    b = !impl_->transformer.is_empty() ? make_transformer_batch(*impl_, streams) : make_lstm_batch(*impl_, streams);
    torch::manual_seed(seed);
  } catch (const std::exception& e) {
    return internal_error(std::string("creating a sampling batch: ") + torch_error_text(e));
  }
  return std::unique_ptr<SamplingBatch>(new SamplingBatch(std::move(b)));
}

SamplingBatch::SamplingBatch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SamplingBatch::~SamplingBatch() = default;
int SamplingBatch::streams() const { return impl_->streams; }
int SamplingBatch::vocab_size() const { return impl_->model->vocab_size; }

Status SamplingBatch::feed(int stream, std::string_view text) {
  ASSIGN_OR_RETURN(auto tokens, impl_->model->vocabulary->encode(text));
  return impl_->feed_tokens(stream, tokens);
}

Status SamplingBatch::feed_tokens(int stream, const std::vector<Token>& tokens) {
  return impl_->feed_tokens(stream, tokens);
}

void SamplingBatch::set_start_after_separator(bool yes) {
  if (impl_->after_separator != yes) impl_->clear_starts();
  impl_->after_separator = yes;
}

Status SamplingBatch::feed_all(std::string_view text) {
  ASSIGN_OR_RETURN(auto tokens, impl_->model->vocabulary->encode(text));
  RETURN_IF_ERROR(impl_->check_tokens(tokens));
  return impl_->feed_all(tokens);
}

Expected<std::vector<float>> SamplingBatch::logits() const {
  for (int s = 0; s < impl_->streams; ++s)
    if (!impl_->fed[size_t(s)]) return invalid_argument(fmt::format("stream {} was never fed", s));
  auto cpu = impl_->next.to(torch::kCPU).to(torch::kFloat32).contiguous();
  return std::vector<float>(cpu.data_ptr<float>(), cpu.data_ptr<float>() + cpu.numel());
}

Status SamplingBatch::advance(const std::vector<Token>& tokens) {
  if (int(tokens.size()) != impl_->streams)
    return invalid_argument(fmt::format("advance: {} tokens for {} streams", tokens.size(), impl_->streams));
  for (Token t : tokens)
    if (t < 0 || t >= impl_->model->vocab_size) return invalid_argument(fmt::format("token {} out of range", t));
  return impl_->advance(tokens);
}
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
    return internal_error(std::string("sampling: ") + torch_error_text(e));
  }
  RETURN_IF_ERROR(advance(tokens));
  return tokens;
}

}  // namespace clgen::model
