// The training loop. Batches follow the "B parallel streams" layout: the
// token file is cut into B equal streams and batch k holds positions
// [k*T, k*T+T] of every stream, so the LSTM state carries across batches.
#include "model/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/encoded_corpus.h"
#include "model/network.h"
#include "model/vocabulary.h"
#include "support/files.h"
#include "support/interrupt.h"
#include "support/log.h"
#include "support/progress.h"
#include "support/sha256.h"

namespace clgen::model {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kLossReadEvery = 16;

// The batchified view of one token file.
struct Streams {
  const TokenFile* file = nullptr;
  int64_t count = 0;    // B
  int64_t length = 0;   // tokens per stream
  int64_t steps = 0;    // T
  int64_t batches = 0;  // per pass

  // `max_tokens` > 0 uses only the file's first max_tokens tokens.
  static Streams make(const TokenFile& f, int64_t batch, int64_t seq, int64_t max_tokens) {
    Streams s;
    s.file = &f;
    int64_t n = int64_t(f.size());
    if (max_tokens > 0) n = std::min(n, max_tokens);
    // Short files (e.g. validation) use fewer streams so each has 2+ tokens.
    s.count = std::max<int64_t>(1, std::min<int64_t>(batch, n / 2));
    s.length = n / s.count;
    s.steps = std::max<int64_t>(1, std::min<int64_t>(seq, s.length - 1));
    s.batches = s.length >= 2 ? (s.length - 1 + s.steps - 1) / s.steps : 0;
    return s;
  }

  // Input and target [len, B] of batch `k`, on `device`.
  std::pair<torch::Tensor, torch::Tensor> batch(int64_t k, torch::Device device) const {
    int64_t start = k * steps;
    int64_t len = std::min(steps, length - 1 - start);
    auto x = torch::empty({len + 1, count}, torch::kInt64);
    auto acc = x.accessor<int64_t, 2>();
    const Token* data = file->data();
    for (int64_t b = 0; b < count; ++b) {
      const Token* row = data + b * length + start;
      for (int64_t t = 0; t <= len; ++t) acc[t][b] = row[t];
    }
    x = x.to(device);
    return {x.narrow(0, 0, len), x.narrow(0, 1, len)};
  }
};

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Dropout draws from the global generator; reseeding it per batch from the
// position makes a resumed run draw exactly what an uninterrupted one would.
void seed_for(uint64_t seed, int64_t epoch, int64_t batch) {
  torch::manual_seed(mix(seed ^ mix(uint64_t(epoch) * 1000003ULL + uint64_t(batch))));
}

void set_learning_rate(torch::optim::Optimizer& opt, double lr) {
  for (auto& group : opt.param_groups()) {
    if (auto* adam = dynamic_cast<torch::optim::AdamOptions*>(&group.options())) adam->lr(lr);
    else if (auto* sgd = dynamic_cast<torch::optim::SGDOptions*>(&group.options())) sgd->lr(lr);
  }
}

// Mean per-token loss over a whole token file, without dropout.
std::optional<double> evaluate(LstmNetwork& net, const TokenFile& file, int64_t batch, int64_t seq,
                               int64_t max_tokens, torch::Device device) {
  Streams s = Streams::make(file, batch, seq, max_tokens);
  if (s.batches == 0) return std::nullopt;
  torch::NoGradGuard no_grad;
  net->eval();
  LstmState state = net->zero_state(s.count, device);
  double sum = 0;
  int64_t n = 0;
  for (int64_t k = 0; k < s.batches; ++k) {
    auto [x, y] = s.batch(k, device);
    auto [logits, next] = net->forward(x, state);
    state = next;
    auto loss = torch::nn::functional::cross_entropy(
        logits.reshape({-1, net->vocab_size}), y.reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
    sum += loss.item<double>();
    n += y.numel();
  }
  net->train();
  return sum / double(n);
}

// Vocabularies live in <workspace>/vocabularies/<key>, shared by every model
// with the same vocabulary settings and corpus.
std::string vocabulary_key(const VocabularyConfig& v, const std::string& corpus_sha) {
  std::string spec = v.type == "char" ? "char" : fmt::format("{}/{}/{}", v.type, v.algorithm, v.size);
  return sha256_hex(spec + "|" + corpus_sha).substr(0, 16);
}

Expected<std::unique_ptr<Vocabulary>> vocabulary_for(const Workspace& ws, const ModelConfig& config,
                                                     const std::vector<std::string>& texts,
                                                     const std::string& corpus_sha) {
  const auto& v = config.vocabulary;
  std::string key = vocabulary_key(v, corpus_sha);
  ASSIGN_OR_RETURN(std::string root, ws.subdir("vocabularies"));
  fs::path dir = fs::path(root) / key;
  std::error_code ec;
  if (fs::exists(dir / "vocabulary.json", ec)) {
    auto loaded = load_vocabulary(dir.string());
    if (!loaded.ok()) return loaded.status().with_context("loading vocabulary " + dir.string());
    return loaded;
  }
  fs::path work = fs::path(root) / (key + ".work");
  auto trained = train_vocabulary(v, texts, work.string());
  if (!trained.ok()) return trained.status().with_context("building the vocabulary");
  RETURN_IF_ERROR((*trained)->save(dir.string()));
  (void)remove_tree(work.string());  // scratch: a leftover is harmless
  return trained;
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(LstmNetwork& net, const TrainingConfig& t) {
  if (t.optimizer == "sgd")
    return std::make_unique<torch::optim::SGD>(
        net->parameters(), torch::optim::SGDOptions(t.learning_rate).momentum(t.momentum));
  return std::make_unique<torch::optim::Adam>(net->parameters(),
                                              torch::optim::AdamOptions(t.learning_rate));
}

}  // namespace

std::string model_directory(const Workspace& workspace, const std::string& model_id) {
  return (fs::path(workspace.root()) / "models" / model_id).string();
}

Expected<TrainResult> train_model(const Workspace& ws, const ModelConfig& config,
                                  const std::vector<std::string>& texts,
                                  const TrainOptions& options) {
  auto started = Clock::now();
  if (texts.empty()) return invalid_argument("the training corpus is empty");
  const TrainingConfig& tc = config.training;
  const int epochs = options.epochs > 0 ? options.epochs : tc.epochs;
  ASSIGN_OR_RETURN(torch::Device device, resolve_device(options.device));

  TrainResult result;
  std::string corpus_sha = corpus_hash(texts);
  result.model_id = model_id(config, corpus_sha);
  result.model_dir = model_directory(ws, result.model_id);
  result.device = device.str();
  std::error_code ec;
  fs::create_directories(result.model_dir, ec);
  if (ec) return io_error("creating " + result.model_dir + ": " + ec.message());

  ASSIGN_OR_RETURN(auto vocab, vocabulary_for(ws, config, texts, corpus_sha));
  result.vocab_size = vocab->size();
  ASSIGN_OR_RETURN(std::string encoded_root, ws.subdir("encoded"));
  ASSIGN_OR_RETURN(EncodedCorpus corpus, encode_corpus(texts, *vocab, tc.seed,
                                                       tc.validation_fraction, encoded_root,
                                                       options.held_out));
  ASSIGN_OR_RETURN(TokenFile train_file, TokenFile::open(corpus.train_path));
  ASSIGN_OR_RETURN(TokenFile valid_file, TokenFile::open(corpus.valid_path));
  result.train_tokens = corpus.train_tokens;
  result.valid_tokens = corpus.valid_tokens;
  Streams streams = Streams::make(train_file, tc.batch_size, tc.sequence_length, tc.max_tokens);
  if (streams.batches == 0)
    return invalid_argument(fmt::format("the training corpus has only {} tokens", train_file.size()));

  // Where the sampler finds the model: the vocabulary and network shape.
  nlohmann::json meta = {
      {"model_id", result.model_id},
      {"vocabulary", "vocabularies/" + vocabulary_key(config.vocabulary, corpus_sha)},
      {"vocab_size", vocab->size()},
      {"embedding_size", config.network.embedding_size},
      {"hidden_size", config.network.hidden_size},
      {"layers", config.network.layers},
      {"dropout", config.network.dropout},
      {"config", canonical_config(config)},
      {"corpus_sha256", corpus_sha},
      {"encoded", "encoded/" + corpus.key},
      {"checkpoint", "checkpoint.pt"}};
  RETURN_IF_ERROR(write_file_atomic((fs::path(result.model_dir) / "model.json").string(),
                                    meta.dump(1) + "\n"));

  try {
    torch::manual_seed(tc.seed);
    LstmNetwork net(vocab->size(), config.network);
    net->to(device);
    auto optimizer = make_optimizer(net, tc);
    std::string checkpoint = (fs::path(result.model_dir) / "checkpoint.pt").string();
    TrainingPosition pos;
    if (fs::exists(checkpoint, ec)) {
      ASSIGN_OR_RETURN(pos, load_checkpoint(checkpoint, net, optimizer.get(), device));
      result.resumed = true;
    }

    ASSIGN_OR_RETURN(Database db, ws.open_database());
    RETURN_IF_ERROR(ensure_model_schema(db));
    ASSIGN_OR_RETURN(int64_t run_id,
                     begin_training_run(db, result.model_id,
                                        options.config_text.empty() ? canonical_config(config)
                                                                    : options.config_text,
                                        corpus_sha, vocab->type(), vocab->size(), result.device,
                                        int(pos.epoch)));
    // Marks the run failed on any early error return (or exception).
    struct FailedRunGuard {
      Database& db;
      int64_t id;
      const TrainingPosition& pos;
      bool finished = false;
      ~FailedRunGuard() {
        if (!finished) (void)finish_training_run(db, id, "failed", int(pos.epoch));
      }
    } guard{db, run_id, pos};
    spdlog::info("model {}: {} vocabulary of {} tokens; {} training / {} validation tokens; {}",
                 result.model_id, vocab->type(), vocab->size(), corpus.train_tokens,
                 corpus.valid_tokens, result.device);
    if (result.resumed)
      spdlog::info("resuming from {} at epoch {}, batch {}", checkpoint, pos.epoch + 1, pos.batch);

    auto save = [&](const std::string& reason) -> Status {
      RETURN_IF_ERROR(save_checkpoint(checkpoint, net, optimizer.get(), pos));
      RETURN_IF_ERROR(record_checkpoint(db, result.model_id, run_id, int(pos.epoch),
                                        int(pos.batch), checkpoint, reason));
      return write_file_atomic((fs::path(ws.root()) / "models" / "latest").string(),
                               result.model_id + "\n");
    };

    net->train();
    while (pos.epoch < epochs) {
      double lr = learning_rate_at(tc, int(pos.epoch));
      set_learning_rate(*optimizer, lr);
      LstmState state = pos.h.defined() ? LstmState{pos.h, pos.c}
                                        : net->zero_state(streams.count, device);
      auto epoch_start = Clock::now();
      uint64_t epoch_tokens = 0;
      torch::Tensor loss_acc =
          torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat64).device(device));
      std::optional<Progress> progress;
      if (options.progress)
        progress.emplace(fmt::format("epoch {}/{}", pos.epoch + 1, epochs),
                         uint64_t(streams.batches - pos.batch));
      for (; pos.batch < streams.batches; ++pos.batch) {
        seed_for(tc.seed, pos.epoch, pos.batch);
        auto [x, y] = streams.batch(pos.batch, device);
        // Truncated BPTT: the state carries over, its gradient history does not.
        state = {std::get<0>(state).detach(), std::get<1>(state).detach()};
        auto [logits, next] = net->forward(x, state);
        state = next;
        auto loss = torch::nn::functional::cross_entropy(logits.reshape({-1, vocab->size()}),
                                                         y.reshape({-1}));
        optimizer->zero_grad();
        loss.backward();
        if (tc.gradient_clip > 0)
          torch::nn::utils::clip_grad_norm_(net->parameters(), tc.gradient_clip);
        optimizer->step();
        // The loss stays on the device and is read back only every
        // kLossReadEvery batches (and at interrupts and epoch ends), so the
        // host does not wait for the GPU after every step.
        loss_acc += loss.detach().to(torch::kFloat64) * double(y.numel());
        pos.loss_tokens += y.numel();
        epoch_tokens += uint64_t(y.numel());
        bool last = pos.batch + 1 == streams.batches;
        if (last || (pos.batch + 1) % kLossReadEvery == 0) {
          double l = loss.item<double>();
          pos.loss_sum += loss_acc.item<double>();
          loss_acc.zero_();
          if (!std::isfinite(l))
            return internal_error(fmt::format("training diverged (loss {}) at epoch {}, batch {}",
                                              l, pos.epoch + 1, pos.batch));
          if (progress) {
            double secs = std::chrono::duration<double>(Clock::now() - epoch_start).count();
            progress->set_extra(fmt::format("loss {:.3f} {:.0f} tok/s", l,
                                            secs > 0 ? double(epoch_tokens) / secs : 0.0));
          }
        }
        if (progress) progress->advance();
        if (options.after_batch) options.after_batch(int(pos.epoch), int(pos.batch));
        if (interrupted()) {
          pos.loss_sum += loss_acc.item<double>();
          ++pos.batch;
          pos.h = std::get<0>(state).detach();
          pos.c = std::get<1>(state).detach();
          if (progress) progress->finish();
          RETURN_IF_ERROR(save("interrupt"));
          RETURN_IF_ERROR(finish_training_run(db, run_id, "interrupted", int(pos.epoch)));
          guard.finished = true;
          spdlog::info("interrupted: checkpoint saved at epoch {}, batch {}; run again to resume",
                       pos.epoch + 1, pos.batch);
          result.epochs_done = int(pos.epoch);
          result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
          return result;
        }
      }
      if (progress) progress->finish();
      EpochRecord rec;
      rec.epoch = int(pos.epoch) + 1;
      rec.train_loss = pos.loss_tokens > 0 ? pos.loss_sum / double(pos.loss_tokens) : 0;
      rec.learning_rate = lr;
      rec.tokens = epoch_tokens;
      rec.seconds = std::chrono::duration<double>(Clock::now() - epoch_start).count();
      rec.valid_loss =
          evaluate(net, valid_file, tc.batch_size, tc.sequence_length, tc.max_tokens, device);
      pos = TrainingPosition{};
      pos.epoch = rec.epoch;
      RETURN_IF_ERROR(record_epoch(db, result.model_id, run_id, rec));
      RETURN_IF_ERROR(save("epoch"));
      result.epochs.push_back(rec);
      if (rec.valid_loss)
        spdlog::info("epoch {}/{}: train loss {:.4f}, validation loss {:.4f} (perplexity {:.3f}), "
                     "lr {:.3g}, {:.0f} tokens/s",
                     rec.epoch, epochs, rec.train_loss, *rec.valid_loss, std::exp(*rec.valid_loss),
                     lr, rec.seconds > 0 ? double(rec.tokens) / rec.seconds : 0.0);
      else
        spdlog::info("epoch {}/{}: train loss {:.4f}, lr {:.3g}", rec.epoch, epochs,
                     rec.train_loss, lr);
    }
    result.epochs_done = int(pos.epoch);
    result.completed = true;
    RETURN_IF_ERROR(finish_training_run(db, run_id, "completed", int(pos.epoch)));
    guard.finished = true;
    RETURN_IF_ERROR(write_file_atomic((fs::path(ws.root()) / "models" / "latest").string(),
                                      result.model_id + "\n"));
  } catch (const std::exception& e) {
    return internal_error(fmt::format("training model {}: {}", result.model_id, e.what()));
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace clgen::model
