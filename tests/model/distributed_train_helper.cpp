// A rank process for the distributed-training tests: trains
// distributed_test_config on the hand-written kernels with model::train_model,
// one rank of the world in its environment (RANK, WORLD_SIZE, ...), or a
// single process when RANK is unset. Hooks the CLI does not have:
//
//   distributed_train_helper WORKSPACE BATCH OPTIMIZER DROPOUT EPOCHS [KEY=VALUE...]
//     interrupt=E:B   request an interrupt (as SIGINT would) after epoch E, batch B
//     exit=E:B        _exit(3) after epoch E, batch B: a rank that dies mid-run
//     timeout=S       distributed_timeout_seconds
//     checkpoint_every=N  training.checkpoint_every_batches (not part of the model id)
//
// Exit status: 0 completed, 4 interrupted with a checkpoint, 1 on an error
// (its message on stderr).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "model/trainer.h"
#include "support/interrupt.h"
#include "support/workspace.h"
#include "tests/model/distributed_runs.h"
#include "tests/model/test_corpus.h"

namespace {

// "E:B" to {E, B}; {-1, -1} when absent.
std::pair<int, int> position(const std::string& text) {
  auto colon = text.find(':');
  if (colon == std::string::npos) return {-1, -1};
  return {std::atoi(text.substr(0, colon).c_str()), std::atoi(text.substr(colon + 1).c_str())};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace clgen;
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s WORKSPACE BATCH OPTIMIZER DROPOUT EPOCHS [KEY=VALUE...]\n", argv[0]);
    return 2;
  }
  model::ModelConfig config = clgen::testing::distributed_test_config(
      std::atoi(argv[2]), argv[3], std::atof(argv[4]), std::atoi(argv[5]));
  std::pair<int, int> interrupt_at{-1, -1}, exit_at{-1, -1};
  model::TrainOptions options;
  options.device = "cpu";
  options.progress = false;
  for (int i = 6; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("interrupt=", 0) == 0) interrupt_at = position(arg.substr(10));
    if (arg.rfind("exit=", 0) == 0) exit_at = position(arg.substr(5));
    if (arg.rfind("timeout=", 0) == 0) options.distributed_timeout_seconds = std::atoi(arg.c_str() + 8);
    if (arg.rfind("checkpoint_every=", 0) == 0) config.training.checkpoint_every_batches = std::atoi(arg.c_str() + 17);
  }
  options.after_batch = [&](int epoch, int batch) {
    if (std::make_pair(epoch, batch) == interrupt_at) request_interrupt();
    if (std::make_pair(epoch, batch) == exit_at) _exit(3);
  };
  if (std::getenv("RANK")) {
    auto env = model::distributed_env();
    if (!env.ok()) {
      std::fprintf(stderr, "distributed training: %s\n", env.status().message().c_str());
      return 1;
    }
    options.distributed = *env;
  }
  auto ws = Workspace::open(argv[1]);
  if (!ws.ok()) {
    std::fprintf(stderr, "%s\n", ws.status().message().c_str());
    return 1;
  }
  auto result = model::train_model(*ws, config, clgen::testing::model_test_kernels(), options);
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.status().message().c_str());
    return 1;
  }
  std::printf("rank %d of %d: %s after %d epochs\n", result->rank, result->world_size,
              result->completed ? "completed" : "interrupted", result->epochs_done);
  return result->completed ? 0 : 4;
}
