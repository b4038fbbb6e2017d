// Data-parallel training over Gloo on 127.0.0.1: rank processes of
// distributed_train_helper, compared with single processes trained in this
// one. Every multi-process run has a deadline, so a hang fails the test.
#include <chrono>
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/collectives.h"
#include "model/data_parallel.h"
#include "model/network.h"
#include "model/trainer.h"
#include "support/interrupt.h"
#include "support/workspace.h"
#include "tests/model/distributed_runs.h"
#include "tests/model/test_corpus.h"

namespace clgen::model {
namespace {

using clgen::testing::distributed_test_config;
using clgen::testing::describe;
using clgen::testing::free_port;
using clgen::testing::model_test_kernels;
using clgen::testing::rank_env;
using clgen::testing::RankProcess;
using clgen::testing::RankResult;
using clgen::testing::run_ranks;
using clgen::testing::TempDir;

constexpr double kDeadlineSeconds = 60;

// The settings of one training, as the helper's arguments.
struct TrainingRun {
  int batch = 8;
  std::string optimizer = "sgd";
  double dropout = 0;
  int epochs = 2;
  ModelConfig config() const { return distributed_test_config(batch, optimizer, dropout, epochs); }
};

// `world` helper processes on one free port; `extra(rank)` adds arguments.
std::vector<RankResult> run_world(const std::string& ws, int world, const TrainingRun& run,
                                  const std::function<std::vector<std::string>(int)>& extra = {}) {
  int port = free_port();
  std::vector<RankProcess> ranks;
  for (int r = 0; r < world; ++r) {
    RankProcess p;
    p.argv = {CLGEN_DISTRIBUTED_HELPER, ws, std::to_string(run.batch), run.optimizer,
              std::to_string(run.dropout), std::to_string(run.epochs)};
    if (extra)
      for (auto& a : extra(r)) p.argv.push_back(a);
    p.env = rank_env(r, world, port);
    ranks.push_back(std::move(p));
  }
  return run_ranks(ranks, kDeadlineSeconds);
}

TrainOptions quiet_cpu() {
  TrainOptions o;
  o.device = "cpu";
  o.progress = false;
  return o;
}

// Trains in this process; nullopt env = not distributed.
TrainResult train_here(const std::string& dir, const TrainingRun& run, TrainOptions options = quiet_cpu()) {
  auto ws = Workspace::open(dir);
  EXPECT_TRUE(ws.ok());
  auto r = train_model(*ws, run.config(), model_test_kernels(), options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : TrainResult{};
}

std::string model_dir_of(const std::string& ws, const TrainingRun& run) {
  return ws + "/models/" + model_id(run.config(), corpus_hash(model_test_kernels()));
}

// The weights (and position) of the checkpoint in workspace `ws`.
std::pair<std::vector<torch::Tensor>, TrainingPosition> checkpoint_of(const std::string& ws,
                                                                      const TrainingRun& run) {
  std::string dir = model_dir_of(ws, run);
  std::ifstream meta(dir + "/model.json");
  auto json = nlohmann::json::parse(meta, nullptr, false);
  EXPECT_FALSE(json.is_discarded()) << dir;
  LstmNetwork net(json.value("vocab_size", 0), run.config().network);
  auto pos = load_checkpoint(dir + "/checkpoint.pt", net, nullptr, torch::kCPU);
  EXPECT_TRUE(pos.ok()) << pos.status().message();
  return {net->parameters(), pos.ok() ? *pos : TrainingPosition{}};
}

double max_difference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    d = std::max(d, (a[i] - b[i]).abs().max().item<double>());
  return d;
}

#define SKIP_WITHOUT_GLOO() \
  if (!have_gloo()) GTEST_SKIP() << "this build has no Gloo backend (libgloo-dev missing at configure time)"

TEST(DataParallel, ShardsAreContiguousAndCoverEveryStreamOnce) {
  // 8 streams over 3 ranks: 3 + 3 + 2.
  EXPECT_EQ(shard_streams(8, 0, 3).first, 0);
  EXPECT_EQ(shard_streams(8, 0, 3).count, 3);
  EXPECT_EQ(shard_streams(8, 1, 3).first, 3);
  EXPECT_EQ(shard_streams(8, 1, 3).count, 3);
  EXPECT_EQ(shard_streams(8, 2, 3).first, 6);
  EXPECT_EQ(shard_streams(8, 2, 3).count, 2);
  EXPECT_EQ(shard_streams(5, 0, 1).count, 5);
}

// Why the weights must match: the single process minimizes the mean
// per-token loss L = (1/N) sum_i l_i over the N tokens of a batch (all B
// streams). Rank r computes the same per-token losses l_i for its n_r tokens
// (an LSTM treats streams independently, dropout is off) and backpropagates
// (n_r/N) * mean_r = (1/N) sum_{i in r} l_i; summed over ranks the gradients
// are exactly dL. Plain SGD without clipping then takes the same step, so the
// weights agree up to float rounding (matrix products over 4 columns instead
// of 8). SGD, not Adam, because Adam's step barely changes when a gradient is
// scaled, so a rank that averaged wrongly would go unnoticed.
TEST(Distributed, TwoRanksProduceTheWeightsOfOneRankOnTheWholeBatch) {
  SKIP_WITHOUT_GLOO();
  TempDir single, two;
  TrainingRun run;  // batch 8, SGD, no dropout, 2 epochs
  TrainResult alone = train_here(single.path(), run);
  ASSERT_TRUE(alone.completed);

  auto ranks = run_world(two.path(), 2, run);
  ASSERT_EQ(ranks[0].exit_code, 0) << describe(ranks);
  ASSERT_EQ(ranks[1].exit_code, 0) << describe(ranks);

  auto [w_single, p_single] = checkpoint_of(single.path(), run);
  auto [w_two, p_two] = checkpoint_of(two.path(), run);
  EXPECT_EQ(p_two.epoch, 2);
  double diff = max_difference(w_single, w_two);
  EXPECT_LT(diff, 1e-4) << "two ranks drifted from one rank on the whole batch";

  // The tolerance is far below what training moves: the weights travelled
  // more than 100x it from their initial values.
  torch::manual_seed(run.config().training.seed);
  LstmNetwork initial(alone.vocab_size, run.config().network);
  EXPECT_GT(max_difference(w_single, initial->parameters()), 1e-2);
}

// One rank, Gloo with a world of one: the same weights bit for bit as a
// process without --distributed (dropout on, Adam: nothing hidden).
TEST(Distributed, AWorldOfOneEqualsASingleProcess) {
  SKIP_WITHOUT_GLOO();
  TempDir single, world_of_one;
  TrainingRun run;
  run.optimizer = "adam";
  run.dropout = 0.1;
  TrainResult alone = train_here(single.path(), run);
  TrainOptions options = quiet_cpu();
  options.distributed = DistributedEnv{};  // rank 0 of 1, no variables
  options.distributed_timeout_seconds = 20;
  TrainResult one = train_here(world_of_one.path(), run, options);
  ASSERT_TRUE(alone.completed && one.completed);
  EXPECT_EQ(one.backend, "gloo");
  EXPECT_EQ(one.world_size, 1);
  ASSERT_EQ(one.epochs.size(), alone.epochs.size());
  for (size_t e = 0; e < one.epochs.size(); ++e) {
    EXPECT_DOUBLE_EQ(*one.epochs[e].valid_loss, *alone.epochs[e].valid_loss);
    // Summed in float32 beside the gradients rather than float64.
    EXPECT_NEAR(one.epochs[e].train_loss, alone.epochs[e].train_loss, 1e-5);
  }
  auto a = checkpoint_of(single.path(), run).first;
  auto b = checkpoint_of(world_of_one.path(), run).first;
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << "parameter " << i;
}

// An interrupt that reaches one rank stops both at the same step with one
// checkpoint (the hidden state of all 8 streams gathered into it); a single
// process resumes it. The other way round, a single process's checkpoint is
// resumed by three ranks (3 + 3 + 2 streams). Both end where an uninterrupted
// single process ends.
TEST(Distributed, ResumesOnAnotherWorldSizeAfterAnInterrupt) {
  SKIP_WITHOUT_GLOO();
  TempDir straight, two_then_one, one_then_three;
  TrainingRun run;
  train_here(straight.path(), run);
  auto expected = checkpoint_of(straight.path(), run).first;

  auto stopped = run_world(two_then_one.path(), 2, run, [](int rank) {
    return rank == 1 ? std::vector<std::string>{"interrupt=0:2"} : std::vector<std::string>{};
  });
  ASSERT_EQ(stopped[0].exit_code, 4) << describe(stopped);  // interrupted, not failed
  ASSERT_EQ(stopped[1].exit_code, 4) << describe(stopped);
  auto [w_mid, mid] = checkpoint_of(two_then_one.path(), run);
  EXPECT_EQ(mid.epoch, 0);
  EXPECT_EQ(mid.batch, 4);  // rank 1's flag travelled with batch 3's gradients
  ASSERT_TRUE(mid.h.defined());
  EXPECT_EQ(mid.h.size(1), 8);
  TrainResult resumed = train_here(two_then_one.path(), run);
  EXPECT_TRUE(resumed.resumed && resumed.completed);
  EXPECT_LT(max_difference(checkpoint_of(two_then_one.path(), run).first, expected), 1e-4);

  TrainOptions stop = quiet_cpu();
  stop.after_batch = [](int epoch, int batch) {
    if (epoch == 0 && batch == 2) request_interrupt();
  };
  TrainResult first = train_here(one_then_three.path(), run, stop);
  clear_interrupt();
  ASSERT_FALSE(first.completed);
  auto three = run_world(one_then_three.path(), 3, run);
  for (const auto& r : three) ASSERT_EQ(r.exit_code, 0) << describe(three);
  EXPECT_NE((three[0].out + three[0].err).find("resuming"), std::string::npos) << describe(three);
  auto [w_end, end] = checkpoint_of(one_then_three.path(), run);
  EXPECT_EQ(end.epoch, 2);
  EXPECT_LT(max_difference(w_end, expected), 1e-4);
}

// A periodic checkpoint of a distributed run gathers every rank's streams:
// after a rank dies (and so the run), one process resumes from it to the
// weights of an uninterrupted run.
TEST(Distributed, PeriodicCheckpointHoldsEveryStreamAndResumesAfterARankDies) {
  SKIP_WITHOUT_GLOO();
  TempDir straight, dir;
  TrainingRun run;
  train_here(straight.path(), run);
  auto expected = checkpoint_of(straight.path(), run).first;

  auto ranks = run_world(dir.path(), 2, run, [](int rank) {
    std::vector<std::string> args = {"timeout=60", "checkpoint_every=3"};
    if (rank == 1) args.push_back("exit=0:4");
    return args;
  });
  ASSERT_EQ(ranks[1].exit_code, 3) << describe(ranks);
  ASSERT_EQ(ranks[0].exit_code, 1) << describe(ranks);
  auto [w_mid, mid] = checkpoint_of(dir.path(), run);
  EXPECT_EQ(mid.epoch, 0);
  EXPECT_EQ(mid.batch, 3);  // after batches 0..2; rank 1 died after batch 4
  ASSERT_TRUE(mid.h.defined());
  EXPECT_EQ(mid.h.size(1), 8);
  TrainResult resumed = train_here(dir.path(), run);
  EXPECT_TRUE(resumed.resumed && resumed.completed);
  EXPECT_LT(max_difference(checkpoint_of(dir.path(), run).first, expected), 1e-4);
}

// A rank that dies mid-epoch closes its connections: the survivor fails at
// its next all-reduce with a message, long before the 60 s timeout.
TEST(Distributed, ARankThatDiesFailsTheOthersInsteadOfHangingThem) {
  SKIP_WITHOUT_GLOO();
  TempDir dir;
  TrainingRun run;
  auto ranks = run_world(dir.path(), 2, run, [](int rank) {
    std::vector<std::string> args = {"timeout=60"};
    if (rank == 1) args.push_back("exit=0:2");
    return args;
  });
  EXPECT_EQ(ranks[1].exit_code, 3) << describe(ranks);
  EXPECT_EQ(ranks[0].exit_code, 1) << describe(ranks);
  EXPECT_LT(ranks[0].seconds, 30) << describe(ranks);
  EXPECT_NE(ranks[0].err.find("distributed training: rank 0 of 2"), std::string::npos) << ranks[0].err;
}

}  // namespace
}  // namespace clgen::model
