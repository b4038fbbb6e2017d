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
  RunRecords(const Workspace& ws, Database db, int64_t run_id, std::string model_id, std::string checkpoint,
             const TrainingPosition& pos)
      : ws_(ws),
        db_(std::move(db)),
        run_id_(run_id),
        model_id_(std::move(model_id)),
        checkpoint_(std::move(checkpoint)),
        pos_(pos) {}
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
  ASSIGN_OR_RETURN(d.corpus, encode_corpus(texts, *d.vocab, config.training.seed, config.training.validation_fraction,
                                           encoded_root, held_out));
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
Status check_ranks_agree(Collectives& group, torch::Device device, const std::vector<double>& mine) {
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
        return invalid_argument(
            fmt::format("rank {} starts from another vocabulary, corpus or checkpoint than rank 0 ({} against "
                        "{}: vocabulary size, training tokens, resumed, epoch, batch); every rank must see "
                        "the same workspace (a shared file system)",
                        r, of(r), of(0)));
  return ok_status();
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The world a call trains in: this process alone, or one rank of a c10d group.
struct World {
  std::unique_ptr<Collectives> group;  // null in a single process
  torch::Device device{torch::kCPU};
  int rank = 0;
  int size = 1;
  std::string backend;  // "gloo" | "nccl"; empty in a single process
  // A collective's failure, naming this rank.
  Status lost(const Status& st) const {
    return st.with_context(fmt::format("distributed training: rank {} of {}", rank, size));
  }
};

Expected<World> join_world(const TrainOptions& options) {
  World w;
  if (!options.distributed) {
    ASSIGN_OR_RETURN(w.device, resolve_device(options.device));
    return w;
  }
  const DistributedEnv& env = *options.distributed;
  ASSIGN_OR_RETURN(w.device, rank_device(options.device, env.local_rank));
  w.backend = w.device.is_cuda() && have_nccl() ? "nccl" : "gloo";
  auto joined = connect_collectives(env, w.backend, std::chrono::seconds(options.distributed_timeout_seconds));
  if (!joined.ok())
    return joined.status().with_context(
        fmt::format("distributed training: rank {} of {} joining at {}:{} (waiting up to {} s for every "
                    "rank; --timeout)",
                    env.rank, env.world_size, env.master_addr, env.master_port, options.distributed_timeout_seconds));
  w.group = std::move(*joined);
  w.rank = w.group->rank();
  w.size = w.group->size();
  return w;
}

// Rank 0 builds the vocabulary and encoded corpus and writes model.json; the
// others then find them.
Expected<TrainingData> shared_training_data(const Workspace& ws, const ModelConfig& config,
                                            const std::vector<std::string>& texts, const TrainOptions& options,
                                            const World& world, const TrainResult& result) {
  TrainingData data;
  if (world.rank == 0) {
    ASSIGN_OR_RETURN(data, training_data(ws, config, texts, options.held_out));
    RETURN_IF_ERROR(
        write_model_json(result.model_dir, result.model_id, config, data,
                         {texts.begin(), texts.end() - std::ptrdiff_t(std::min(options.held_out, texts.size()))}));
  }
  if (world.group) {
    if (Status st = barrier(*world.group, world.device); !st.ok()) return world.lost(st);
    if (world.rank != 0) {
      ASSIGN_OR_RETURN(data, training_data(ws, config, texts, options.held_out));
    }
  }
  return data;
}

// One call's training once the world and the data are set up: the task and
// its optimizer, where training stands, rank 0's records and the clock of
// the checkpoint policy.
struct Session {
  Session(const ModelConfig& c, const TrainOptions& o, const World& w, TrainResult& r, int vocab)
      : config(c),
        tc(c.training),
        options(o),
        world(w),
        result(r),
        vocab_size(vocab),
        epochs(o.epochs > 0 ? o.epochs : c.training.epochs),
        checkpoint((fs::path(r.model_dir) / kLastCheckpointFile).string()),
        best_checkpoint((fs::path(r.model_dir) / kBestCheckpointFile).string()) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const ModelConfig& config;
  const TrainingConfig& tc;
  const TrainOptions& options;
  const World& world;
  TrainResult& result;
  const int vocab_size;
  const int epochs;
  const std::string checkpoint, best_checkpoint;
  std::unique_ptr<TrainingTask> task;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::vector<torch::Tensor> params;
  int64_t batches = 0;
  // This rank's share of every batch: its mean loss is weighted by it, so
  // the gradients summed over ranks are those of the mean over the batch.
  double share = 1;
  // In a distributed run the ranks stop together: the interrupt flags ride
  // with the gradients, and are read every batch on CPUs but only every
  // kLossReadEvery batches on GPUs (reading waits for the device).
  int64_t stop_every = 1;
  TrainingPosition pos;
  std::optional<RunRecords> records;  // after pos: a run it marks failed reads pos
  Clock::time_point last_checkpoint;
  bool leader() const { return world.rank == 0; }
};

// The task and optimizer, resumed from the checkpoint when there is one; in
// a distributed run every rank is checked against rank 0 and given its weights.
Status start_task(Session& s, const TokenFile& train_file, const TokenFile& valid_file, uint64_t train_tokens) {
  const World& w = s.world;
  torch::manual_seed(s.tc.seed);
  ASSIGN_OR_RETURN(s.task,
                   make_training_task(s.config, s.vocab_size, train_file, valid_file, w.device, w.rank, w.size));
  s.optimizer = s.task->make_optimizer(s.tc);
  s.params = s.task->network().parameters();
  std::error_code ec;
  if (fs::exists(s.checkpoint, ec)) {
    ASSIGN_OR_RETURN(s.pos,
                     load_checkpoint(s.checkpoint, s.task->network(), s.vocab_size, s.optimizer.get(), w.device));
    s.result.resumed = true;
  }
  RETURN_IF_ERROR(s.task->check_position(s.pos, s.checkpoint));
  s.share = s.task->share();
  s.batches = s.task->batches();
  s.stop_every = w.group && w.device.is_cuda() ? kLossReadEvery : 1;
  if (!w.group) return ok_status();
  Status agree = check_ranks_agree(
      *w.group, w.device,
      {double(s.vocab_size), double(train_tokens), double(s.result.resumed), double(s.pos.epoch), double(s.pos.batch)});
  if (!agree.ok()) return w.lost(agree);
  if (Status st = broadcast_parameters(*w.group, s.params); !st.ok()) return w.lost(st);
  return ok_status();
}

// Rank 0's records of the run (a resumed run records the checkpoint it
// starts from), and the run's opening log lines.
Status open_records(Session& s, const Workspace& ws, const TrainingData& data) {
  const World& w = s.world;
  const TrainResult& r = s.result;
  const Vocabulary& vocab = *data.vocab;
  if (s.leader()) {
    ASSIGN_OR_RETURN(Database db, ws.open_database());
    RETURN_IF_ERROR(ensure_model_schema(db));
    std::string device_text = w.group ? fmt::format("{} x{} ({})", r.device, w.size, w.backend) : r.device;
    ASSIGN_OR_RETURN(
        int64_t run_id,
        begin_training_run(db, r.model_id,
                           s.options.config_text.empty() ? canonical_config(s.config) : s.options.config_text,
                           data.corpus_sha, vocab.type(), vocab.size(), device_text, int(s.pos.epoch)));
    s.records.emplace(ws, std::move(db), run_id, r.model_id, s.checkpoint, s.pos);
    if (r.resumed) RETURN_IF_ERROR(s.records->recorded(s.pos));
  }
  spdlog::info("model {} ({}): {} vocabulary of {} tokens; {} training / {} validation tokens; {}", r.model_id,
               s.config.network.type, vocab.type(), vocab.size(), data.corpus.train_tokens, data.corpus.valid_tokens,
               r.device);
  if (w.group) spdlog::info("rank {} of {} ({}): {}", w.rank, w.size, w.backend, s.task->describe_shard());
  if (r.resumed) spdlog::info("resuming from {} at epoch {}, batch {}", s.checkpoint, s.pos.epoch + 1, s.pos.batch);
  return ok_status();
}

// The current epoch's pass in this call.
struct EpochPass {
  Clock::time_point start;
  uint64_t tokens = 0;     // this call's, for the progress line
  torch::Tensor loss_acc;  // the loss not yet folded into pos.loss_sum, on the device
  double lr = 0;           // the last step's learning rate
  std::optional<Progress> progress;
};

// The epoch's training time: before the checkpoint, and in this call.
double epoch_seconds(const Session& s, const EpochPass& e) { return s.pos.seconds + seconds_since(e.start); }

// Where training stands after the current batch: the next batch, the loss
// not yet folded in, and what the task carries (gathered from the ranks).
Expected<TrainingPosition> position_after_batch(Session& s, const EpochPass& e) {
  TrainingPosition at = s.pos;
  ++at.batch;
  at.loss_pending = e.loss_acc.item<double>();
  at.seconds = epoch_seconds(s, e);
  if (Status st = s.task->fill_position(at, s.world.group.get()); !st.ok()) return s.world.lost(st);
  return at;
}

// What one optimizer step leaves for the loss, checkpoint and stop checks.
struct BatchStep {
  torch::Tensor loss;        // this rank's mean loss over its tokens
  torch::Tensor batch_loss;  // the batch's loss summed over its tokens, on all ranks
  int64_t batch_tokens = 0;  // the batch's tokens, on all ranks
  torch::Tensor extras;      // [loss sum, ranks interrupted, checkpoint due], summed over ranks
  bool last = false;         // the epoch's last batch
  bool timed = false;        // rank 0's clock says a checkpoint is due
};

// One optimizer step on batch pos.batch; in a distributed run the gradients
// are summed over the ranks together with the step's flags.
Expected<BatchStep> step_batch(Session& s, EpochPass& e) {
  const TrainingPosition& pos = s.pos;
  const World& w = s.world;
  e.lr = learning_rate_at_step(s.tc, int(pos.epoch), pos.epoch * s.batches + pos.batch, s.epochs * s.batches);
  set_learning_rate(*s.optimizer, e.lr);
  seed_for(s.tc.seed, pos.epoch, pos.batch, w.rank);
  TrainingTask::Step step = s.task->forward(pos.epoch, pos.batch);
  BatchStep b;
  b.loss = step.loss;
  s.optimizer->zero_grad();
  (s.share == 1.0 ? b.loss : b.loss * s.share).backward();
  b.batch_loss = b.loss.detach().to(torch::kFloat64) * double(step.local_tokens);
  b.batch_tokens = step.local_tokens;
  b.last = pos.batch + 1 == s.batches;
  // Mid-epoch checkpoints fall on batch numbers (the same ones in a resumed
  // run) or, by time, when rank 0's clock says so.
  const double every_seconds = s.tc.checkpoint_every_seconds;
  b.timed = every_seconds > 0 && !b.last && s.leader() && seconds_since(s.last_checkpoint) >= every_seconds;
  if (w.group) {
    const auto float_opts = torch::TensorOptions().dtype(torch::kFloat32).device(w.device);
    b.extras = torch::cat({b.loss.detach().to(torch::kFloat32).reshape({1}) * float(step.local_tokens),
                           torch::full({1}, interrupted() ? 1.0f : 0.0f, float_opts),
                           torch::full({1}, b.timed ? 1.0f : 0.0f, float_opts)});
    if (Status st = all_reduce_gradients(*w.group, s.params, b.extras); !st.ok()) return w.lost(st);
    b.batch_loss = b.extras[0].to(torch::kFloat64);
    b.batch_tokens = step.global_tokens;
  }
  if (s.tc.gradient_clip > 0) s.task->clip_gradients(s.tc.gradient_clip);
  s.optimizer->step();
  return b;
}

// Adds the step's loss in. The loss stays on the device and is read back
// only every kLossReadEvery batches (and at interrupts and epoch ends), so
// the host does not wait for the GPU after every step; a loss that is not
// finite fails the run.
Status fold_loss(Session& s, EpochPass& e, const BatchStep& b) {
  TrainingPosition& pos = s.pos;
  e.loss_acc += b.batch_loss;
  pos.loss_tokens += b.batch_tokens;
  e.tokens += uint64_t(b.batch_tokens);
  if (!b.last && (pos.batch + 1) % kLossReadEvery != 0) return ok_status();
  double l = s.world.group ? b.batch_loss.item<double>() / double(b.batch_tokens) : b.loss.item<double>();
  pos.loss_sum += e.loss_acc.item<double>();
  e.loss_acc.zero_();
  if (!std::isfinite(l))
    return internal_error(
        fmt::format("training diverged (loss {}) at epoch {}, batch {}", l, pos.epoch + 1, pos.batch));
  if (e.progress) {
    double secs = seconds_since(e.start);
    e.progress->set_extra(fmt::format("loss {:.3f} {:.0f} tok/s", l, secs > 0 ? double(e.tokens) / secs : 0.0));
  }
  return ok_status();
}

// The checkpoint policy within an epoch: a checkpoint every
// training.checkpoint_every_batches batches, and when rank 0's clock says
// training.checkpoint_every_seconds have passed (the ranks read that flag
// together, when `flags_read`).
Status periodic_checkpoint(Session& s, const EpochPass& e, const BatchStep& b, bool flags_read) {
  const int64_t every_batches = s.tc.checkpoint_every_batches;
  bool due = !b.last && ((every_batches > 0 && (s.pos.batch + 1) % every_batches == 0) ||
                         (s.world.group ? flags_read && b.extras[2].item<float>() > 0 : b.timed));
  if (!due) return ok_status();
  ASSIGN_OR_RETURN(TrainingPosition at, position_after_batch(s, e));
  if (s.records) RETURN_IF_ERROR(s.records->save(*s.task, s.optimizer.get(), at, "periodic"));
  s.last_checkpoint = Clock::now();
  return ok_status();
}

// How far training got, into the result.
void note_progress(Session& s) {
  s.result.epochs_done = int(s.pos.epoch);
  s.result.best_epoch = s.pos.best.epoch;
  if (s.pos.best.epoch > 0) s.result.best_valid_loss = s.pos.best.loss;
}

// An interrupt on any rank: the checkpoint of the position after this batch,
// the run marked interrupted, and the result so far.
Status save_interrupted(Session& s, EpochPass& e) {
  ASSIGN_OR_RETURN(s.pos, position_after_batch(s, e));
  if (e.progress) e.progress->finish();
  if (s.records) {
    RETURN_IF_ERROR(s.records->save(*s.task, s.optimizer.get(), s.pos, "interrupt"));
    RETURN_IF_ERROR(s.records->finish("interrupted"));
  }
  // No rank leaves before rank 0 has written the checkpoint: a launcher that
  // sees one rank exit may stop the others.
  if (s.world.group)
    if (Status st = barrier(*s.world.group, s.world.device); !st.ok()) return s.world.lost(st);
  spdlog::info("interrupted: checkpoint saved at epoch {}, batch {}; run again to resume", s.pos.epoch + 1,
               s.pos.batch);
  note_progress(s);
  return ok_status();
}

// The current epoch's batches from pos.batch on. False: interrupted, with
// the checkpoint saved and the result filled in.
Expected<bool> train_batches(Session& s, EpochPass& e) {
  for (; s.pos.batch < s.batches; ++s.pos.batch) {
    ASSIGN_OR_RETURN(BatchStep b, step_batch(s, e));
    RETURN_IF_ERROR(fold_loss(s, e, b));
    if (e.progress) e.progress->advance();
    // The ranks read the flags together (every batch on CPUs).
    const bool flags_read = !s.world.group || b.last || (s.pos.batch + 1) % s.stop_every == 0;
    RETURN_IF_ERROR(periodic_checkpoint(s, e, b, flags_read));
    if (s.options.after_batch) s.options.after_batch(int(s.pos.epoch), int(s.pos.batch));
    bool stop = s.world.group ? flags_read && b.extras[1].item<float>() > 0 : interrupted();
    if (stop) {
      RETURN_IF_ERROR(save_interrupted(s, e));
      return false;
    }
  }
  if (e.progress) e.progress->finish();
  return true;
}

// The finished epoch's record: its training loss over all its tokens (across
// resumed runs) and the validation loss, summed over the ranks.
Expected<EpochRecord> evaluate_epoch(Session& s, const EpochPass& e) {
  const TrainingPosition& pos = s.pos;
  EpochRecord rec;
  rec.epoch = int(pos.epoch) + 1;
  rec.train_loss = pos.loss_tokens > 0 ? pos.loss_sum / double(pos.loss_tokens) : 0;
  rec.learning_rate = e.lr;
  rec.tokens = uint64_t(pos.loss_tokens);  // the whole epoch's, across resumed runs
  rec.seconds = epoch_seconds(s, e);
  auto [valid_sum, valid_n] = s.task->evaluate();
  if (s.world.group) {
    auto total = all_reduce_doubles(*s.world.group, {valid_sum, double(valid_n)}, s.world.device);
    if (!total.ok()) return s.world.lost(total.status());
    valid_sum = (*total)[0];
    valid_n = int64_t((*total)[1]);
  }
  if (valid_n > 0) rec.valid_loss = valid_sum / double(valid_n);
  return rec;
}

// The epoch's end: the early-stop verdict on its validation loss, the
// position moved to the next epoch, and rank 0's records, best weights (when
// the loss improved) and checkpoint.
Expected<Verdict> end_epoch(Session& s, const EpochRecord& rec) {
  BestSoFar best = s.pos.best;
  Verdict verdict;
  if (rec.valid_loss) verdict = observe_validation(best, *rec.valid_loss, rec.epoch, s.tc.patience);
  s.pos = TrainingPosition{};
  s.pos.epoch = rec.epoch;
  s.pos.best = best;
  if (s.records) {
    RETURN_IF_ERROR(s.records->epoch(rec));
    // The best weights first: a kill between the two writes re-runs this
    // epoch, which writes the same best again.
    if (verdict.improved)
      RETURN_IF_ERROR(save_checkpoint(s.best_checkpoint, s.task->network(), s.vocab_size, nullptr, s.pos));
    RETURN_IF_ERROR(s.records->save(*s.task, s.optimizer.get(), s.pos, "epoch"));
    s.last_checkpoint = Clock::now();
  }
  return verdict;
}

void log_epoch(const Session& s, const EpochRecord& rec, const Verdict& verdict) {
  const BestSoFar& best = s.pos.best;
  if (rec.valid_loss)
    spdlog::info(
        "epoch {}/{}: train loss {:.4f}, validation loss {:.4f} (perplexity {:.3f}){}, "
        "lr {:.3g}, {:.0f} tokens/s",
        rec.epoch, s.epochs, rec.train_loss, *rec.valid_loss, std::exp(*rec.valid_loss),
        verdict.improved ? ", best so far" : fmt::format(", best {:.4f} at epoch {}", best.loss, best.epoch),
        rec.learning_rate, rec.seconds > 0 ? double(rec.tokens) / rec.seconds : 0.0);
  else
    spdlog::info("epoch {}/{}: train loss {:.4f}, lr {:.3g}", rec.epoch, s.epochs, rec.train_loss, rec.learning_rate);
}

// The epochs from the position on, until the last or an early stop.
// False: interrupted.
Expected<bool> train_epochs(Session& s) {
  s.task->network().train();
  s.last_checkpoint = Clock::now();
  const auto loss_opts = torch::TensorOptions().dtype(torch::kFloat64).device(s.world.device);
  while (s.pos.epoch < s.epochs && !s.result.stopped_early) {
    EpochPass e;
    e.lr = learning_rate_at_step(s.tc, int(s.pos.epoch), s.pos.epoch * s.batches + s.pos.batch, s.epochs * s.batches);
    s.task->begin_epoch(s.pos);
    e.start = Clock::now();
    e.loss_acc = torch::full({}, s.pos.loss_pending, loss_opts);
    s.pos.loss_pending = 0;
    if (s.options.progress && s.leader())
      e.progress.emplace(fmt::format("epoch {}/{}", s.pos.epoch + 1, s.epochs), uint64_t(s.batches - s.pos.batch));
    ASSIGN_OR_RETURN(bool finished, train_batches(s, e));
    if (!finished) return false;
    ASSIGN_OR_RETURN(EpochRecord rec, evaluate_epoch(s, e));
    ASSIGN_OR_RETURN(Verdict verdict, end_epoch(s, rec));
    s.result.epochs.push_back(rec);
    log_epoch(s, rec, verdict);
    if (verdict.stop) {
      s.result.stopped_early = true;
      spdlog::info("early stop: no better validation loss in {} evaluations (training.patience)", s.tc.patience);
    }
  }
  return true;
}

// A run that trained to its last epoch (or stopped early): recorded as
// completed once every rank got here.
Status finish_completed(Session& s) {
  note_progress(s);
  s.result.completed = true;
  if (s.records) RETURN_IF_ERROR(s.records->finish("completed"));
  if (s.world.group)
    if (Status st = barrier(*s.world.group, s.world.device); !st.ok()) return s.world.lost(st);
  return ok_status();
}

}  // namespace

std::string model_directory(const Workspace& workspace, const std::string& model_id) {
  return (fs::path(workspace.root()) / "models" / model_id).string();
}

Expected<TrainResult> train_model(const Workspace& ws, const ModelConfig& config, const std::vector<std::string>& texts,
                                  const TrainOptions& options) {
  auto started = Clock::now();
  if (texts.empty()) return invalid_argument("the training corpus is empty");
  TrainResult result;
  ASSIGN_OR_RETURN(World world, join_world(options));
  result.backend = world.backend;
  result.rank = world.rank;
  result.world_size = world.size;
  result.model_id = model_id(config, corpus_hash(texts));
  result.model_dir = model_directory(ws, result.model_id);
  result.device = world.device.str();
  std::error_code ec;
  fs::create_directories(result.model_dir, ec);
  if (ec) return io_error("creating " + result.model_dir + ": " + ec.message());

  ASSIGN_OR_RETURN(TrainingData data, shared_training_data(ws, config, texts, options, world, result));
  result.vocab_size = data.vocab->size();
  ASSIGN_OR_RETURN(TokenFile train_file, TokenFile::open(data.corpus.train_path));
  ASSIGN_OR_RETURN(TokenFile valid_file, TokenFile::open(data.corpus.valid_path));
  result.train_tokens = data.corpus.train_tokens;
  result.valid_tokens = data.corpus.valid_tokens;

  try {
    Session s(config, options, world, result, data.vocab->size());
    RETURN_IF_ERROR(start_task(s, train_file, valid_file, data.corpus.train_tokens));
    RETURN_IF_ERROR(open_records(s, ws, data));
    ASSIGN_OR_RETURN(bool completed, train_epochs(s));
    if (completed) RETURN_IF_ERROR(finish_completed(s));
  } catch (const c10::Error& e) {
    return internal_error(fmt::format("training model {}: {}", result.model_id, e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return internal_error(fmt::format("training model {}: {}", result.model_id, torch_error_text(e)));
  }
  result.seconds = seconds_since(started);
  return result;
}

}  // namespace clgen::model
