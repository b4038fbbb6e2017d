// The training loop. Batches follow the "B parallel streams" layout: the
// token file is cut into B equal streams and batch k holds positions
// [k*T, k*T+T] of every stream, so the LSTM state carries across batches.
// In a distributed run each rank steps its own block of the B streams
// (model/data_parallel.h) and the ranks sum their gradients before every
// optimizer step, so all ranks hold the same weights throughout.
#include "model/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "model/collectives.h"
#include "model/data_parallel.h"
#include "model/early_stopping.h"
#include "model/encoded_corpus.h"
#include "model/feature_prefix.h"
#include "model/network.h"
#include "model/torch_error.h"
#include "model/training_task.h"
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

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Dropout draws from the global generator; reseeding it per batch from the
// position makes a resumed run draw exactly what an uninterrupted one would.
// Ranks other than 0 draw their own masks (rank 0 draws a single process's).
void seed_for(uint64_t seed, int64_t epoch, int64_t batch, int rank) {
  uint64_t s = mix(seed ^ mix(uint64_t(epoch) * 1000003ULL + uint64_t(batch)));
  if (rank > 0) s = mix(s ^ mix(uint64_t(rank)));
  torch::manual_seed(s);
}

void set_learning_rate(torch::optim::Optimizer& opt, double lr) {
  for (auto& group : opt.param_groups()) {
    if (auto* adam = dynamic_cast<torch::optim::AdamOptions*>(&group.options())) adam->lr(lr);
    else if (auto* adamw = dynamic_cast<torch::optim::AdamWOptions*>(&group.options())) adamw->lr(lr);
    else if (auto* sgd = dynamic_cast<torch::optim::SGDOptions*>(&group.options())) sgd->lr(lr);
  }
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

// The run's records in the workspace: its training_runs row, epoch metrics,
// checkpoint file and rows, and models/latest. Rank 0 alone keeps them. A run
// left without finish() (an error return or an exception) is marked failed.
class RunRecords {
 public:
  RunRecords(const Workspace& ws, Database db, int64_t run_id, std::string model_id,
             std::string checkpoint, const TrainingPosition& pos)
      : ws_(ws), db_(std::move(db)), run_id_(run_id), model_id_(std::move(model_id)),
        checkpoint_(std::move(checkpoint)), pos_(pos) {}
  RunRecords(const RunRecords&) = delete;
  RunRecords& operator=(const RunRecords&) = delete;
  ~RunRecords() {
    if (!finished_) (void)finish_training_run(db_, run_id_, "failed", int(pos_.epoch));
  }

  // Writes the checkpoint of `pos` (atomically) and records it.
  Status save(TrainingTask& task, torch::optim::Optimizer* optimizer, const TrainingPosition& pos,
              const std::string& reason) {
    RETURN_IF_ERROR(save_checkpoint(checkpoint_, task.network(), task.vocab_size(), optimizer, pos));
    RETURN_IF_ERROR(record_checkpoint(db_, model_id_, run_id_, int(pos.epoch), int(pos.batch), checkpoint_, reason));
    return mark_latest();
  }
  // A run killed between writing a checkpoint and recording it left the file
  // without its row: the resumed run records it, so the table lists every
  // checkpoint an uninterrupted run would.
  Status recorded(const TrainingPosition& loaded) {
    return record_checkpoint_once(db_, model_id_, run_id_, int(loaded.epoch), int(loaded.batch), checkpoint_,
                                  loaded.batch == 0 ? "epoch" : "periodic");
  }
  Status epoch(const EpochRecord& rec) { return record_epoch(db_, model_id_, run_id_, rec); }
  // Ends the run with `status` ("completed" | "interrupted").
  Status finish(const std::string& status) {
    RETURN_IF_ERROR(finish_training_run(db_, run_id_, status, int(pos_.epoch)));
    finished_ = true;
    return status == "completed" ? mark_latest() : ok_status();
  }

 private:
  Status mark_latest() {
    return write_file_atomic((fs::path(ws_.root()) / "models" / "latest").string(), model_id_ + "\n");
  }
  const Workspace& ws_;
  Database db_;
  int64_t run_id_;
  std::string model_id_, checkpoint_;
  const TrainingPosition& pos_;
  bool finished_ = false;
};

// The vocabulary and encoded corpus of a model, built once in the workspace.
struct TrainingData {
  std::string corpus_sha;
  std::unique_ptr<Vocabulary> vocab;
  EncodedCorpus corpus;
};

Expected<TrainingData> training_data(const Workspace& ws, const ModelConfig& config,
                                     const std::vector<std::string>& texts, size_t held_out) {
  TrainingData d;
  d.corpus_sha = corpus_hash(texts);
  ASSIGN_OR_RETURN(d.vocab, vocabulary_for(ws, config, texts, d.corpus_sha));
  ASSIGN_OR_RETURN(std::string encoded_root, ws.subdir("encoded"));
  ASSIGN_OR_RETURN(d.corpus, encode_corpus(texts, *d.vocab, config.training.seed,
                                           config.training.validation_fraction, encoded_root,
                                           held_out));
  return d;
}

// Where the sampler finds the model: the vocabulary and network shape, and
// for a feature-conditioned model the headers its undirected streams draw
// from (those of the training texts, with their counts).
Status write_model_json(const std::string& model_dir, const std::string& model_id, const ModelConfig& config,
                        const TrainingData& d, const std::vector<std::string>& training_texts) {
  if (config.training.feature_prefix) {
    HeaderCounts headers = count_feature_headers(training_texts);
    if (headers.empty())
      return invalid_argument(
          "training.feature_prefix: no training kernel has a feature header (none compiled "
          "as OpenCL C 1.2 for its features)");
    RETURN_IF_ERROR(
        write_file_atomic((fs::path(model_dir) / kFeatureHeadersFile).string(), header_counts_tsv(headers)));
  }
  const NetworkConfig& n = config.network;
  nlohmann::json meta = {{"model_id", model_id},
                         {"vocabulary", "vocabularies/" + vocabulary_key(config.vocabulary, d.corpus_sha)},
                         {"vocab_size", d.vocab->size()},
                         {"type", n.type},
                         {"layers", n.layers},
                         {"dropout", n.dropout},
                         {"config", canonical_config(config)},
                         {"corpus_sha256", d.corpus_sha},
                         {"encoded", "encoded/" + d.corpus.key},
                         {"checkpoint", kLastCheckpointFile},
                         {"best_checkpoint", kBestCheckpointFile}};
  if (n.type == "transformer") {
    meta["width"] = n.width;
    meta["heads"] = n.heads;
    meta["context"] = n.context;
    meta["tied_embeddings"] = n.tied_embeddings;
  } else {
    meta["embedding_size"] = n.embedding_size;
    meta["hidden_size"] = n.hidden_size;
  }
  if (config.training.feature_prefix) {
    meta["feature_prefix"] = true;
    meta["feature_headers"] = kFeatureHeadersFile;
  }
  return write_file_atomic((fs::path(model_dir) / "model.json").string(), meta.dump(1) + "\n");
}

// Checks that every rank starts from the same place: vocabulary, corpus and
// checkpoint position (ranks on hosts that do not share the workspace would not).
Status check_ranks_agree(Collectives& group, torch::Device device,
                         const std::vector<double>& mine) {
  const size_t n = mine.size();
  std::vector<double> slots(n * size_t(group.size()), 0.0);
  std::copy(mine.begin(), mine.end(), slots.begin() + std::ptrdiff_t(n * size_t(group.rank())));
  ASSIGN_OR_RETURN(auto all, all_reduce_doubles(group, slots, device));
  auto of = [&](int r) {
    return fmt::format("{}", fmt::join(all.begin() + std::ptrdiff_t(size_t(r) * n),
                                       all.begin() + std::ptrdiff_t(size_t(r + 1) * n), ", "));
  };
  for (int r = 1; r < group.size(); ++r)
    for (size_t i = 0; i < n; ++i)
      if (all[size_t(r) * n + i] != all[i])
        return invalid_argument(fmt::format(
            "rank {} starts from another vocabulary, corpus or checkpoint than rank 0 ({} against "
            "{}: vocabulary size, training tokens, resumed, epoch, batch); every rank must see "
            "the same workspace (a shared file system)",
            r, of(r), of(0)));
  return ok_status();
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

  // The world: this process alone, or one rank of a c10d group.
  TrainResult result;
  std::unique_ptr<Collectives> group;
  torch::Device device(torch::kCPU);
  if (options.distributed) {
    const DistributedEnv& env = *options.distributed;
    ASSIGN_OR_RETURN(device, rank_device(options.device, env.local_rank));
    result.backend = device.is_cuda() && have_nccl() ? "nccl" : "gloo";
    auto joined = connect_collectives(env, result.backend,
                                      std::chrono::seconds(options.distributed_timeout_seconds));
    if (!joined.ok())
      return joined.status().with_context(fmt::format(
          "distributed training: rank {} of {} joining at {}:{} (waiting up to {} s for every "
          "rank; --timeout)",
          env.rank, env.world_size, env.master_addr, env.master_port,
          options.distributed_timeout_seconds));
    group = std::move(*joined);
    result.rank = group->rank();
    result.world_size = group->size();
  } else {
    ASSIGN_OR_RETURN(device, resolve_device(options.device));
  }
  const int rank = result.rank, world = result.world_size;
  const bool leader = rank == 0;
  auto lost = [&](const Status& st) {
    return st.with_context(fmt::format("distributed training: rank {} of {}", rank, world));
  };

  result.model_id = model_id(config, corpus_hash(texts));
  result.model_dir = model_directory(ws, result.model_id);
  result.device = device.str();
  std::error_code ec;
  fs::create_directories(result.model_dir, ec);
  if (ec) return io_error("creating " + result.model_dir + ": " + ec.message());

  // Rank 0 builds the vocabulary and encoded corpus; the others then find them.
  TrainingData data;
  if (leader) {
    ASSIGN_OR_RETURN(data, training_data(ws, config, texts, options.held_out));
    RETURN_IF_ERROR(
        write_model_json(result.model_dir, result.model_id, config, data,
                         {texts.begin(), texts.end() - std::ptrdiff_t(std::min(options.held_out, texts.size()))}));
  }
  if (group) {
    if (Status st = barrier(*group, device); !st.ok()) return lost(st);
    if (!leader) {
      ASSIGN_OR_RETURN(data, training_data(ws, config, texts, options.held_out));
    }
  }
  const Vocabulary& vocab = *data.vocab;
  result.vocab_size = vocab.size();
  ASSIGN_OR_RETURN(TokenFile train_file, TokenFile::open(data.corpus.train_path));
  ASSIGN_OR_RETURN(TokenFile valid_file, TokenFile::open(data.corpus.valid_path));
  result.train_tokens = data.corpus.train_tokens;
  result.valid_tokens = data.corpus.valid_tokens;

  try {
    torch::manual_seed(tc.seed);
    ASSIGN_OR_RETURN(std::unique_ptr<TrainingTask> task,
                     make_training_task(config, vocab.size(), train_file, valid_file, device, rank, world));
    auto optimizer = task->make_optimizer(tc);
    const std::vector<torch::Tensor> params = task->network().parameters();
    const std::string checkpoint = (fs::path(result.model_dir) / kLastCheckpointFile).string();
    const std::string best_checkpoint = (fs::path(result.model_dir) / kBestCheckpointFile).string();
    TrainingPosition pos;
    if (fs::exists(checkpoint, ec)) {
      ASSIGN_OR_RETURN(pos, load_checkpoint(checkpoint, task->network(), vocab.size(), optimizer.get(), device));
      result.resumed = true;
    }
    RETURN_IF_ERROR(task->check_position(pos, checkpoint));
    if (group) {
      Status agree = check_ranks_agree(
          *group, device,
          {double(vocab.size()), double(data.corpus.train_tokens), double(result.resumed),
           double(pos.epoch), double(pos.batch)});
      if (!agree.ok()) return lost(agree);
      if (Status st = broadcast_parameters(*group, params); !st.ok()) return lost(st);
    }

    std::optional<RunRecords> records;
    if (leader) {
      ASSIGN_OR_RETURN(Database db, ws.open_database());
      RETURN_IF_ERROR(ensure_model_schema(db));
      std::string device_text = group ? fmt::format("{} x{} ({})", result.device, world, result.backend)
                                      : result.device;
      ASSIGN_OR_RETURN(int64_t run_id,
                       begin_training_run(db, result.model_id,
                                          options.config_text.empty() ? canonical_config(config)
                                                                      : options.config_text,
                                          data.corpus_sha, vocab.type(), vocab.size(),
                                          device_text, int(pos.epoch)));
      records.emplace(ws, std::move(db), run_id, result.model_id, checkpoint, pos);
      if (result.resumed) RETURN_IF_ERROR(records->recorded(pos));
    }
    spdlog::info("model {} ({}): {} vocabulary of {} tokens; {} training / {} validation tokens; {}", result.model_id,
                 config.network.type, vocab.type(), vocab.size(), data.corpus.train_tokens, data.corpus.valid_tokens,
                 result.device);
    if (group) spdlog::info("rank {} of {} ({}): {}", rank, world, result.backend, task->describe_shard());
    if (result.resumed)
      spdlog::info("resuming from {} at epoch {}, batch {}", checkpoint, pos.epoch + 1, pos.batch);

    // This rank's share of every batch: its mean loss is weighted by it, so
    // the gradients summed over ranks are those of the mean over the batch.
    const double share = task->share();
    const int64_t batches = task->batches();
    // In a distributed run the ranks stop together: the interrupt flags ride
    // with the gradients, and are read every batch on CPUs but only every
    // kLossReadEvery batches on GPUs (reading waits for the device).
    const int64_t stop_every = group && device.is_cuda() ? kLossReadEvery : 1;
    const auto float_opts = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    // Mid-epoch checkpoints fall on batch numbers (the same ones in a resumed
    // run) or, by time, when rank 0's clock says so.
    const int64_t every_batches = tc.checkpoint_every_batches;
    const double every_seconds = tc.checkpoint_every_seconds;
    auto last_checkpoint = Clock::now();

    task->network().train();
    bool stopped_early = false;
    while (pos.epoch < epochs && !stopped_early) {
      double lr = learning_rate_at_step(tc, int(pos.epoch), pos.epoch * batches + pos.batch, epochs * batches);
      task->begin_epoch(pos);
      auto epoch_start = Clock::now();
      uint64_t epoch_tokens = 0;  // this call's, for the progress line
      torch::Tensor loss_acc =
          torch::full({}, pos.loss_pending, torch::TensorOptions().dtype(torch::kFloat64).device(device));
      pos.loss_pending = 0;
      // The epoch's training time: before the checkpoint, and in this call.
      auto epoch_seconds = [&] {
        return pos.seconds + std::chrono::duration<double>(Clock::now() - epoch_start).count();
      };
      // Where training stands after the current batch: the next batch, the
      // loss not yet folded in, and what the task carries (gathered from the ranks).
      auto position_after_batch = [&]() -> Expected<TrainingPosition> {
        TrainingPosition at = pos;
        ++at.batch;
        at.loss_pending = loss_acc.item<double>();
        at.seconds = epoch_seconds();
        if (Status st = task->fill_position(at, group.get()); !st.ok()) return lost(st);
        return at;
      };
      std::optional<Progress> progress;
      if (options.progress && leader)
        progress.emplace(fmt::format("epoch {}/{}", pos.epoch + 1, epochs), uint64_t(batches - pos.batch));
      for (; pos.batch < batches; ++pos.batch) {
        lr = learning_rate_at_step(tc, int(pos.epoch), pos.epoch * batches + pos.batch, epochs * batches);
        set_learning_rate(*optimizer, lr);
        seed_for(tc.seed, pos.epoch, pos.batch, rank);
        TrainingTask::Step step = task->forward(pos.epoch, pos.batch);
        const torch::Tensor& loss = step.loss;
        optimizer->zero_grad();
        (share == 1.0 ? loss : loss * share).backward();
        // The batch's loss summed over its tokens, and its tokens, on all ranks.
        torch::Tensor batch_loss = loss.detach().to(torch::kFloat64) * double(step.local_tokens);
        int64_t batch_tokens = step.local_tokens;
        bool last = pos.batch + 1 == batches;
        bool timed = every_seconds > 0 && !last && leader &&
                     std::chrono::duration<double>(Clock::now() - last_checkpoint).count() >= every_seconds;
        torch::Tensor extras;  // [loss sum, ranks interrupted, checkpoint due], summed over ranks
        if (group) {
          extras = torch::cat({loss.detach().to(torch::kFloat32).reshape({1}) * float(step.local_tokens),
                               torch::full({1}, interrupted() ? 1.0f : 0.0f, float_opts),
                               torch::full({1}, timed ? 1.0f : 0.0f, float_opts)});
          if (Status st = all_reduce_gradients(*group, params, extras); !st.ok()) return lost(st);
          batch_loss = extras[0].to(torch::kFloat64);
          batch_tokens = step.global_tokens;
        }
        if (tc.gradient_clip > 0) task->clip_gradients(tc.gradient_clip);
        optimizer->step();
        // The loss stays on the device and is read back only every
        // kLossReadEvery batches (and at interrupts and epoch ends), so the
        // host does not wait for the GPU after every step.
        loss_acc += batch_loss;
        pos.loss_tokens += batch_tokens;
        epoch_tokens += uint64_t(batch_tokens);
        if (last || (pos.batch + 1) % kLossReadEvery == 0) {
          double l = group ? batch_loss.item<double>() / double(batch_tokens) : loss.item<double>();
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
        // The ranks read the flags together (every batch on CPUs).
        const bool flags_read = !group || last || (pos.batch + 1) % stop_every == 0;
        bool due = !last && ((every_batches > 0 && (pos.batch + 1) % every_batches == 0) ||
                             (group ? flags_read && extras[2].item<float>() > 0 : timed));
        if (due) {
          ASSIGN_OR_RETURN(TrainingPosition at, position_after_batch());
          if (records) RETURN_IF_ERROR(records->save(*task, optimizer.get(), at, "periodic"));
          last_checkpoint = Clock::now();
        }
        if (options.after_batch) options.after_batch(int(pos.epoch), int(pos.batch));
        bool stop = group ? flags_read && extras[1].item<float>() > 0 : interrupted();
        if (stop) {
          ASSIGN_OR_RETURN(pos, position_after_batch());
          if (progress) progress->finish();
          if (records) {
            RETURN_IF_ERROR(records->save(*task, optimizer.get(), pos, "interrupt"));
            RETURN_IF_ERROR(records->finish("interrupted"));
          }
          // No rank leaves before rank 0 has written the checkpoint: a
          // launcher that sees one rank exit may stop the others.
          if (group)
            if (Status st = barrier(*group, device); !st.ok()) return lost(st);
          spdlog::info("interrupted: checkpoint saved at epoch {}, batch {}; run again to resume",
                       pos.epoch + 1, pos.batch);
          result.epochs_done = int(pos.epoch);
          result.best_epoch = pos.best.epoch;
          if (pos.best.epoch > 0) result.best_valid_loss = pos.best.loss;
          result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
          return result;
        }
      }
      if (progress) progress->finish();
      EpochRecord rec;
      rec.epoch = int(pos.epoch) + 1;
      rec.train_loss = pos.loss_tokens > 0 ? pos.loss_sum / double(pos.loss_tokens) : 0;
      rec.learning_rate = lr;
      rec.tokens = uint64_t(pos.loss_tokens);  // the whole epoch's, across resumed runs
      rec.seconds = epoch_seconds();
      auto [valid_sum, valid_n] = task->evaluate();
      if (group) {
        auto total = all_reduce_doubles(*group, {valid_sum, double(valid_n)}, device);
        if (!total.ok()) return lost(total.status());
        valid_sum = (*total)[0];
        valid_n = int64_t((*total)[1]);
      }
      if (valid_n > 0) rec.valid_loss = valid_sum / double(valid_n);
      BestSoFar best = pos.best;
      Verdict verdict;
      if (rec.valid_loss) verdict = observe_validation(best, *rec.valid_loss, rec.epoch, tc.patience);
      pos = TrainingPosition{};
      pos.epoch = rec.epoch;
      pos.best = best;
      if (records) {
        RETURN_IF_ERROR(records->epoch(rec));
        // The best weights first: a kill between the two writes re-runs this
        // epoch, which writes the same best again.
        if (verdict.improved)
          RETURN_IF_ERROR(save_checkpoint(best_checkpoint, task->network(), vocab.size(), nullptr, pos));
        RETURN_IF_ERROR(records->save(*task, optimizer.get(), pos, "epoch"));
        last_checkpoint = Clock::now();
      }
      result.epochs.push_back(rec);
      if (rec.valid_loss)
        spdlog::info(
            "epoch {}/{}: train loss {:.4f}, validation loss {:.4f} (perplexity {:.3f}){}, "
            "lr {:.3g}, {:.0f} tokens/s",
            rec.epoch, epochs, rec.train_loss, *rec.valid_loss, std::exp(*rec.valid_loss),
            verdict.improved ? ", best so far" : fmt::format(", best {:.4f} at epoch {}", best.loss, best.epoch), lr,
            rec.seconds > 0 ? double(rec.tokens) / rec.seconds : 0.0);
      else
        spdlog::info("epoch {}/{}: train loss {:.4f}, lr {:.3g}", rec.epoch, epochs,
                     rec.train_loss, lr);
      if (verdict.stop) {
        stopped_early = true;
        spdlog::info("early stop: no better validation loss in {} evaluations (training.patience)", tc.patience);
      }
    }
    result.epochs_done = int(pos.epoch);
    result.stopped_early = stopped_early;
    result.best_epoch = pos.best.epoch;
    if (pos.best.epoch > 0) result.best_valid_loss = pos.best.loss;
    result.completed = true;
    if (records) RETURN_IF_ERROR(records->finish("completed"));
    if (group)
      if (Status st = barrier(*group, device); !st.ok()) return lost(st);
  } catch (const c10::Error& e) {
    return internal_error(fmt::format("training model {}: {}", result.model_id,
                                      e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return internal_error(fmt::format("training model {}: {}", result.model_id, torch_error_text(e)));
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace clgen::model
