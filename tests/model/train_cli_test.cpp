// End to end: `clgen train` on a workspace whose preprocessed table holds the
// hand-written kernels; and its error when there is no corpus.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/model/test_corpus.h"

namespace clgen {
namespace {

using clgen::testing::model_test_kernels;
using clgen::testing::run_clgen;
using clgen::testing::TempDir;

void fill_preprocessed(const std::string& db_path) {
  auto db = Database::open(db_path);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->exec(
      "CREATE TABLE IF NOT EXISTS preprocessed(content_sha256 TEXT NOT NULL, "
      "preprocessor_version TEXT NOT NULL, status TEXT NOT NULL, category TEXT, reason TEXT, "
      "normalized_text TEXT, normalized_sha256 TEXT, instruction_count INTEGER, "
      "PRIMARY KEY(content_sha256, preprocessor_version))").ok());
  auto ins = db->prepare(
      "INSERT INTO preprocessed VALUES(?, '1', 'ok', NULL, NULL, ?, ?, 10)");
  ASSERT_TRUE(ins.ok());
  int i = 0;
  for (const auto& t : model_test_kernels()) {
    ins->reset();
    ASSERT_TRUE(ins->bind(1, "content" + std::to_string(i)).ok());
    ASSERT_TRUE(ins->bind(2, t).ok());
    ASSERT_TRUE(ins->bind(3, "normalized" + std::to_string(i++)).ok());
    ASSERT_TRUE(ins->run().ok());
  }
}

TEST(TrainCommand, TrainsPrintsSamplesRecordsMetricsAndResumes) {
  TempDir dir;
  std::string ws = dir.path() + "/ws";
  std::filesystem::create_directories(ws);
  fill_preprocessed(ws + "/clgen.db");
  std::string config = dir.path() + "/small.toml";
  std::ofstream(config) << "[model]\nembedding_size = 16\nhidden_size = 32\nlayers = 1\n"
                           "[training]\nepochs = 2\nbatch_size = 4\nsequence_length = 32\n"
                           "validation_fraction = 0.2\n[preview]\nsamples = 2\nmax_tokens = 40\n";
  auto r = run_clgen({"--workspace", ws, "train", "--config", config, "--device", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("validation loss"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("---- sample 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("__kernel void A("), std::string::npos) << r.out;

  auto db = Database::open(ws + "/clgen.db");
  ASSERT_TRUE(db.ok());
  auto q = db->prepare("SELECT COUNT(*), MAX(epoch) FROM training_metrics WHERE valid_loss > 0");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(*q->step());
  EXPECT_EQ(q->column_int(0), 2);
  auto runs = db->prepare("SELECT status FROM training_runs");
  ASSERT_TRUE(runs.ok());
  ASSERT_TRUE(*runs->step());
  EXPECT_EQ(runs->column_text(0), "completed");

  // The same command again finds the finished checkpoint; --epochs extends it.
  auto again = run_clgen({"--workspace", ws, "-q", "train", "--config", config, "--device", "cpu"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already trained for 2 epochs"), std::string::npos) << again.out;
  auto more = run_clgen(
      {"--workspace", ws, "-q", "train", "--config", config, "--device", "cpu", "--epochs", "3"});
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_NE(more.out.find("3 epochs"), std::string::npos) << more.out;
}

TEST(TrainCommand, WithoutAPreprocessedCorpusSaysWhatToRun) {
  TempDir dir;
  auto r = run_clgen({"--workspace", dir.path(), "train", "--device", "cpu"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("clgen corpus preprocess"), std::string::npos) << r.err;
}

TEST(TrainCommand, RejectsBadFlagsAndConfigs) {
  TempDir dir;
  auto r = run_clgen({"--workspace", dir.path(), "train", "--device", "tpu"});
  EXPECT_EQ(r.exit_code, 2);
  std::string config = dir.path() + "/bad.toml";
  std::ofstream(config) << "[model]\nlayers = -1\n";
  auto bad = run_clgen({"--workspace", dir.path(), "train", "--config", config});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("model.layers"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace clgen
