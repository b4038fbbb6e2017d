// Private to clgen_model (includes LibTorch): the LSTM language model network
// and its checkpoint files. Public headers never include this.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include <torch/torch.h>

#include "model/config.h"
#include "model/early_stopping.h"
#include "support/status.h"

namespace clgen::model {

using LstmState = std::tuple<torch::Tensor, torch::Tensor>;  // (h, c): [layers, B, hidden]

// embedding -> dropout -> multi-layer LSTM (dropout between layers) ->
// dropout -> linear over the vocabulary. Inputs are [T, B] token ids.
struct LstmNetworkImpl : torch::nn::Module {
  LstmNetworkImpl(int vocab_size, const NetworkConfig& config);

  // Returns logits [T, B, vocab] and the state after the last step.
  std::tuple<torch::Tensor, LstmState> forward(const torch::Tensor& input, const LstmState& state);
  // A zero state for `batch` streams on `device`.
  LstmState zero_state(int64_t batch, torch::Device device) const;

  int vocab_size;
  NetworkConfig config;
  torch::nn::Embedding embedding{nullptr};
  torch::nn::Dropout dropout{nullptr};
  torch::nn::LSTM lstm{nullptr};
  torch::nn::Linear output{nullptr};
};
TORCH_MODULE(LstmNetwork);

// Where training stands; restored together with the weights and optimizer so
// a resumed run continues exactly where it stopped.
struct TrainingPosition {
  int64_t epoch = 0;   // 0-based epoch to run next (or the one in progress)
  int64_t batch = 0;   // next batch within `epoch`; 0 at an epoch boundary
  // The epoch's training loss summed over tokens: the part folded in so far,
  // and the part still in the trainer's accumulator (kept apart so a resumed
  // run adds in the same grouping as an uninterrupted one: bit-identical sums).
  double loss_sum = 0;
  double loss_pending = 0;
  int64_t loss_tokens = 0;
  double seconds = 0;  // training time spent on this epoch before the checkpoint
  torch::Tensor h, c;  // LSTM: carried hidden state when stopped mid-epoch (undefined otherwise)
  BestSoFar best;      // the best validation loss so far (infinite in checkpoints from before it)
};

// Writes weights, optimizer state (optional) and position atomically; any
// network type (`vocab_size` is checked at load).
Status save_checkpoint(const std::string& path, torch::nn::Module& network, int vocab_size,
                       torch::optim::Optimizer* optimizer, const TrainingPosition& position);
// Reads a checkpoint into `network` (and `optimizer` when given) on `device`.
Expected<TrainingPosition> load_checkpoint(const std::string& path, torch::nn::Module& network, int vocab_size,
                                           torch::optim::Optimizer* optimizer, torch::Device device);
inline Status save_checkpoint(const std::string& path, LstmNetwork& network, torch::optim::Optimizer* optimizer,
                              const TrainingPosition& position) {
  return save_checkpoint(path, *network, network->vocab_size, optimizer, position);
}
inline Expected<TrainingPosition> load_checkpoint(const std::string& path, LstmNetwork& network,
                                                  torch::optim::Optimizer* optimizer, torch::Device device) {
  return load_checkpoint(path, *network, network->vocab_size, optimizer, device);
}

// The checkpoint files of a model directory: the last position, and the
// weights of the best validation loss.
constexpr const char* kLastCheckpointFile = "checkpoint.pt";
constexpr const char* kBestCheckpointFile = "best.pt";

// "cpu", "cuda" or "auto" (CUDA when available) to a device; fails when CUDA
// is asked for and absent.
Expected<torch::Device> resolve_device(const std::string& name);

}  // namespace clgen::model
