// End to end: `clgen train --distributed` as two Gloo ranks on 127.0.0.1,
// and its one-line errors (never a hang or a backtrace) on a bad environment.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/sqlite.h"
#include "tests/model/distributed_runs.h"
#include "tests/model/test_corpus.h"

namespace clgen {
namespace {

using clgen::testing::EnvVars;
using clgen::testing::describe;
using clgen::testing::free_port;
using clgen::testing::rank_env;
using clgen::testing::RankProcess;
using clgen::testing::RankResult;
using clgen::testing::run_ranks;
using clgen::testing::TempDir;

#if CLGEN_HAVE_GLOO
#define SKIP_WITHOUT_GLOO()
#else
#define SKIP_WITHOUT_GLOO() GTEST_SKIP() << "this build has no Gloo backend (libgloo-dev missing at configure time)"
#endif

// A workspace whose preprocessed table holds the hand-written kernels, and a small config.
struct TrainWorkspace {
  TempDir dir;
  std::string ws = dir.path() + "/ws";
  std::string config = dir.path() + "/small.toml";
  TrainWorkspace() {
    std::filesystem::create_directories(ws);
    auto db = Database::open(ws + "/clgen.db");
    EXPECT_TRUE(db.ok());
    EXPECT_TRUE(db->exec("CREATE TABLE preprocessed(content_sha256 TEXT NOT NULL, "
                         "preprocessor_version TEXT NOT NULL, status TEXT NOT NULL, category TEXT, "
                         "reason TEXT, normalized_text TEXT, normalized_sha256 TEXT, "
                         "instruction_count INTEGER, PRIMARY KEY(content_sha256, preprocessor_version))")
                    .ok());
    int i = 0;
    for (const auto& t : clgen::testing::model_test_kernels()) {
      auto ins = db->prepare("INSERT INTO preprocessed VALUES(?, '1', 'ok', NULL, NULL, ?, ?, 10)");
      EXPECT_TRUE(ins.ok());
      EXPECT_TRUE(ins->bind(1, "content" + std::to_string(i)).ok());
      EXPECT_TRUE(ins->bind(2, t).ok());
      EXPECT_TRUE(ins->bind(3, "normalized" + std::to_string(i++)).ok());
      EXPECT_TRUE(ins->run().ok());
    }
    std::ofstream(config) << "[model]\nembedding_size = 16\nhidden_size = 32\nlayers = 1\n"
                             "[training]\nepochs = 2\nbatch_size = 4\nsequence_length = 32\n"
                             "validation_fraction = 0.2\n[preview]\nsamples = 1\nmax_tokens = 20\n";
  }
  RankProcess rank(EnvVars env, std::vector<std::string> extra = {}) const {
    RankProcess p;
    p.argv = {CLGEN_BINARY, "--workspace", ws, "train", "--config", config, "--device", "cpu",
              "--distributed"};
    p.argv.insert(p.argv.end(), extra.begin(), extra.end());
    p.env = std::move(env);
    return p;
  }
};

TEST(TrainCommand, TwoDistributedRanksTrainAndRankZeroAloneRecordsTheRun) {
  SKIP_WITHOUT_GLOO();
  TrainWorkspace s;
  int port = free_port();
  auto ranks = run_ranks({s.rank(rank_env(0, 2, port)), s.rank(rank_env(1, 2, port))}, 60);
  ASSERT_EQ(ranks[0].exit_code, 0) << describe(ranks);
  ASSERT_EQ(ranks[1].exit_code, 0) << describe(ranks);
  EXPECT_NE(ranks[0].out.find("distributed: 2 ranks over gloo"), std::string::npos) << ranks[0].out;
  EXPECT_NE(ranks[0].out.find("checkpoint:"), std::string::npos) << ranks[0].out;
  EXPECT_NE(ranks[0].out.find("---- sample 1"), std::string::npos) << ranks[0].out;
  EXPECT_EQ(ranks[1].out, "") << "rank 1 reports nothing";

  // One run, recorded by rank 0; one checkpoint file and no temp file beside it.
  auto db = Database::open(s.ws + "/clgen.db");
  ASSERT_TRUE(db.ok());
  auto runs = db->prepare("SELECT COUNT(*), MIN(device), MIN(status) FROM training_runs");
  ASSERT_TRUE(runs.ok() && *runs->step());
  EXPECT_EQ(runs->column_int(0), 1);
  EXPECT_EQ(runs->column_text(1), "cpu x2 (gloo)");
  EXPECT_EQ(runs->column_text(2), "completed");
  auto epochs = db->prepare("SELECT COUNT(*) FROM training_metrics");
  ASSERT_TRUE(epochs.ok() && *epochs->step());
  EXPECT_EQ(epochs->column_int(0), 2);
  std::string latest;
  std::ifstream(s.ws + "/models/latest") >> latest;
  ASSERT_FALSE(latest.empty());
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(s.ws + "/models/" + latest))
    files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  // Rank 0 alone writes them: the last and the best checkpoint (the first
  // epoch's validation loss is the best so far), the model and the sampler's
  // constraint tables.
  EXPECT_EQ(files, (std::vector<std::string>{"best.pt", "checkpoint.pt", "constraint_tables.json", "model.json"}));
}

// Each bad environment: exit 1, one line on stderr naming the problem, well
// within the deadline (the store's timeout is 2 s).
TEST(TrainCommand, DistributedFailsInOneLineOnABadEnvironment) {
  SKIP_WITHOUT_GLOO();
  TrainWorkspace s;
  int closed_port = free_port();  // nobody listens there
  struct Case {
    EnvVars env;
    std::string expected;
  };
  std::vector<Case> cases = {
      {{{"WORLD_SIZE", "2"}}, "WORLD_SIZE is set but RANK is not"},
      {{{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}},
       "rank 2 is not below the world size 2"},
      {{{"RANK", "1"}, {"WORLD_SIZE", "2"}}, "MASTER_ADDR is not set"},
      // Rank 1 with no rank 0 to connect to.
      {rank_env(1, 2, closed_port), "rank 1 of 2 joining at 127.0.0.1:" + std::to_string(closed_port)},
      // Rank 0 waiting for a rank 1 that never comes.
      {rank_env(0, 2, free_port()), "rank 0 of 2 joining"},
  };
  for (const auto& c : cases) {
    auto r = run_ranks({s.rank(c.env, {"--timeout", "2"})}, 30)[0];
    EXPECT_EQ(r.exit_code, 1) << c.expected << "\n" << r.err;
    EXPECT_NE(r.err.find("clgen: error: distributed training: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line:\n" << r.err;
    EXPECT_LT(r.seconds, 20) << c.expected;
  }
}

}  // namespace
}  // namespace clgen
