// Training the language model (model.type "lstm" or "transformer"):
// vocabulary, encoded corpus, the type's batches (model/training_task.h),
// checkpoints every epoch, every N batches or M seconds and on interrupt,
// the best checkpoint by validation loss, early stopping, exact resume,
// metrics in the workspace database; in one process or as one rank of a
// data-parallel run over c10d.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/distributed_env.h"
#include "model/store.h"
#include "support/status.h"
#include "support/workspace.h"

namespace clgen::model {

struct TrainOptions {
  std::string device = "auto";  // "cpu" | "cuda" | "auto"
  int epochs = 0;               // 0 = the config's training.epochs
  std::string config_text;      // the config as written, stored with the run
  bool progress = true;         // progress line on stderr
  // Called after every optimizer step with the 0-based epoch and batch (tests
  // use it to request an interrupt at a chosen point).
  std::function<void(int epoch, int batch)> after_batch;
  // The last `held_out` texts are the validation set (TrainingTexts::held_out,
  // whole repositories); 0 = validation_fraction of the texts at random.
  size_t held_out = 0;
  // Set: this process is one rank of a data-parallel run (docs/MODEL.md,
  // "Distributed training"). training.batch_size is the global batch: each
  // rank trains on its own block of the batch streams, gradients are summed
  // over ranks, and rank 0 alone writes checkpoints and database rows.
  // Unset: a single process.
  std::optional<DistributedEnv> distributed;
  // How long a rank waits for the others: to join, and in each collective
  // (rank 0's vocabulary and corpus encoding, before the first step, included).
  int distributed_timeout_seconds = 600;
};

struct TrainResult {
  std::string model_id;
  std::string model_dir;  // <workspace>/models/<model_id>
  std::string device;
  bool completed = false;  // false when interrupted; the checkpoint holds the position
  bool stopped_early = false;  // completed because of training.patience
  // The epoch (1-based) of the lowest validation loss so far, across resumed
  // runs, whose weights are models/<id>/best.pt; 0 without validation.
  int best_epoch = 0;
  std::optional<double> best_valid_loss;
  int epochs_done = 0;     // total epochs finished, across resumed runs
  bool resumed = false;    // started from an existing checkpoint
  std::vector<EpochRecord> epochs;  // epochs finished by this call
  int vocab_size = 0;
  uint64_t train_tokens = 0;
  uint64_t valid_tokens = 0;
  double seconds = 0;      // wall time of this call
  int rank = 0;            // this process's rank; 0 in a single process
  int world_size = 1;
  std::string backend;     // "gloo" | "nccl"; empty in a single process
};

// Trains (or resumes training of) the model identified by model_id(config,
// corpus) in the workspace. `texts` are the normalized kernels. Returns with
// completed=false after SIGINT/SIGTERM, having saved a checkpoint (in a
// distributed run: once any rank was signalled, every rank stops at the same
// step). The model id does not depend on the world size, so a checkpoint
// resumes on any number of ranks. Fails on bad configs and corpora, I/O and
// database errors, divergence, and in a distributed run with kUnavailable
// when the ranks cannot meet or a peer is lost (never waiting longer than
// distributed_timeout_seconds for one).
Expected<TrainResult> train_model(const Workspace& workspace, const ModelConfig& config,
                                  const std::vector<std::string>& texts,
                                  const TrainOptions& options);

// <workspace>/models/<model_id>
std::string model_directory(const Workspace& workspace, const std::string& model_id);

}  // namespace clgen::model
