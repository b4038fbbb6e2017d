// Shared by the distributed-training tests and their helper program: the
// small model they train, and running several rank processes at once with a
// deadline (so a test that would hang fails instead).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/config.h"

namespace clgen::testing {

// A model small enough for a few steps per second on one core; dropout off
// and plain SGD unless asked, so runs can be compared step for step.
inline model::ModelConfig distributed_test_config(int batch, const std::string& optimizer,
                                                  double dropout, int epochs) {
  model::ModelConfig c;
  c.network.embedding_size = 16;
  c.network.hidden_size = 48;
  c.network.layers = 2;
  c.network.dropout = dropout;
  c.training.epochs = epochs;
  c.training.batch_size = batch;
  c.training.sequence_length = 32;
  c.training.optimizer = optimizer;
  c.training.learning_rate = optimizer == "sgd" ? 0.5 : 0.01;
  c.training.momentum = 0;
  c.training.gradient_clip = optimizer == "sgd" ? 0 : 5.0;
  c.training.validation_fraction = 0.25;
  c.preview.samples = 0;
  return c;
}

using EnvVars = std::vector<std::pair<std::string, std::string>>;

struct RankProcess {
  std::vector<std::string> argv;  // argv[0] is the program path
  EnvVars env;                    // set in the child, after clearing every rank variable
};

struct RankResult {
  int exit_code = -1;  // 128 + signal if killed; -1 if still running at the deadline (then killed)
  std::string out, err;
  double seconds = 0;
};

// Starts all processes at once, waits for each until `deadline_seconds` after
// the start, kills (SIGKILL) the ones still running then.
std::vector<RankResult> run_ranks(const std::vector<RankProcess>& processes, double deadline_seconds);

// RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR=127.0.0.1, MASTER_PORT.
EnvVars rank_env(int rank, int world, int port);

// A TCP port on 127.0.0.1 that was free a moment ago.
int free_port();

// Each rank's exit code and output, for a failed expectation's message.
std::string describe(const std::vector<RankResult>& results);

}  // namespace clgen::testing
