// Private to clgen_model (LibTorch types): what the training loop
// (model/trainer.cpp) asks of a network type. The loop owns epochs, the
// optimizer step, gradient all-reduce, checkpoints, interrupts, records and
// early stopping; a task owns its network, how a batch is cut from the token
// file, its forward pass and loss, and its validation pass.
// make_training_task is the one place where model.type picks the class.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "model/collectives.h"
#include "model/config.h"
#include "model/encoded_corpus.h"
#include "model/network.h"
#include "support/status.h"

namespace clgen::model {

class TrainingTask {
 public:
  virtual ~TrainingTask() = default;

  virtual torch::nn::Module& network() = 0;
  virtual int vocab_size() const = 0;
  // Optimizer steps per epoch (the same on every rank).
  virtual int64_t batches() const = 0;
  // This rank's share of each batch's tokens: its mean loss is weighted by
  // it, so gradients summed over ranks are those of the mean over the batch.
  virtual double share() const = 0;
  // A one-line description of this rank's part of the batch, for the log.
  virtual std::string describe_shard() const = 0;
  virtual std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainingConfig& training) = 0;
  // Checks a loaded checkpoint fits this task (e.g. its carried LSTM state).
  virtual Status check_position(const TrainingPosition& position, const std::string& path) const = 0;
  // Before the first batch of an epoch, or of a resumed one at `position`.
  virtual void begin_epoch(const TrainingPosition& position) = 0;

  struct Step {
    torch::Tensor loss;         // mean over this rank's tokens of the batch (with its graph)
    int64_t local_tokens = 0;   // this rank's predicted tokens
    int64_t global_tokens = 0;  // every rank's together
  };
  // The forward pass and loss of batch `batch` of 0-based `epoch`.
  virtual Step forward(int64_t epoch, int64_t batch) = 0;
  // Adds what the task carries across batches (the LSTM's hidden state of
  // every stream, gathered from the ranks) to a checkpoint's position.
  virtual Status fill_position(TrainingPosition& position, Collectives* group) = 0;
  // Global gradient-norm clipping after the all-reduce (the LSTM's uses
  // torch::nn::utils::clip_grad_norm_, which waits for the device).
  virtual void clip_gradients(double max_norm) { torch::nn::utils::clip_grad_norm_(network().parameters(), max_norm); }
  // This rank's summed validation loss (nats) and tokens, without dropout.
  virtual std::pair<double, int64_t> evaluate() = 0;
};

// The task of `config.network.type` over the token files, for rank `rank` of
// `world` on `device`. Fails when the corpus cannot make one batch, or has
// fewer batch streams (windows) than there are ranks.
Expected<std::unique_ptr<TrainingTask>> make_training_task(const ModelConfig& config, int vocab_size,
                                                           const TokenFile& train, const TokenFile& valid,
                                                           torch::Device device, int rank, int world);

// The LSTM's and the Transformer's tasks (lstm_task.cpp, transformer_task.cpp).
Expected<std::unique_ptr<TrainingTask>> make_lstm_task(const ModelConfig& config, int vocab_size,
                                                       const TokenFile& train, const TokenFile& valid,
                                                       torch::Device device, int rank, int world);
Expected<std::unique_ptr<TrainingTask>> make_transformer_task(const ModelConfig& config, int vocab_size,
                                                              const TokenFile& train, const TokenFile& valid,
                                                              torch::Device device, int rank, int world);

// Adam, AdamW (weight decay on `decay` only) or SGD over the parameters.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainingConfig& training,
                                                        const std::vector<torch::Tensor>& decay,
                                                        const std::vector<torch::Tensor>& no_decay);

}  // namespace clgen::model
