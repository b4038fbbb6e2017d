// End-to-end tests of `clgen sample` that need no trained model.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "support/files.h"
#include "tests/cli/run_command.h"

namespace clgen {
namespace {

using testing::run_clgen;

std::string temp_workspace(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("clgen_sample_cli_" + std::to_string(::getpid()) + "_" + name);
  (void)remove_tree(dir.string());
  return dir.string();
}

TEST(SampleCli, BadArgumentSpecExitsTwoNamingTheItem) {
  auto r = run_clgen({"--workspace", temp_workspace("bad"), "sample", "--args", "float*,flaot*,int"});
  EXPECT_EQ(2, r.exit_code) << r.err;
  EXPECT_NE(r.err.find("argument 2 'flaot*': unknown type 'flaot'"), std::string::npos) << r.err;
}

TEST(SampleCli, BadFlagValuesAreUsageErrors) {
  struct Case {
    std::vector<std::string> args;
    const char* named;
  };
  for (const Case& c : {Case{{"sample", "--top-p", "1.5"}, "--top-p"},
                        Case{{"sample", "--device", "tpu"}, "--device"},
                        Case{{"sample", "--batch-size", "0"}, "--batch-size"},
                        Case{{"sample", "--model", "x", "--config", "y"}, "--config"}}) {
    auto r = run_clgen(c.args);
    EXPECT_EQ(2, r.exit_code) << c.named << ": " << r.err;
    EXPECT_NE(r.err.find(c.named), std::string::npos) << r.err;
  }
}

TEST(SampleCli, GradedSteeringNeedsTheCheckerAndTargets) {
  std::string ws = temp_workspace("graded");
  const std::string csv = ws + ".csv";
  ASSERT_TRUE(write_file_atomic(csv, "comp,rational,mem,localmem,coalesced,atomic\n1,1,3,0,3,0\n").ok());
  for (const auto& args : {std::vector<std::string>{"--graded-steering", "--check", "cpu"},
                           std::vector<std::string>{"--graded-steering", "--target-features", csv}}) {
    std::vector<std::string> cmd = {"--workspace", ws, "sample", "-n", "1"};
    cmd.insert(cmd.end(), args.begin(), args.end());
    auto r = run_clgen(cmd);
    EXPECT_EQ(2, r.exit_code) << args.back() << ": " << r.err;
    EXPECT_NE(r.err.find("--graded-steering"), std::string::npos) << r.err;
  }
  (void)remove_tree(ws);
  std::remove(csv.c_str());
}

TEST(SampleCli, TheBaselineSplitsOnlyByTimeOrByStreams) {
  std::string ws = temp_workspace("split");
  auto r = run_clgen({"--workspace", ws, "sample", "-n", "1", "--baseline-split", "halves"});
  EXPECT_EQ(2, r.exit_code) << r.err;
  EXPECT_NE(r.err.find("--baseline-split"), std::string::npos) << r.err;
  (void)remove_tree(ws);
}

TEST(SampleCli, BadShardValuesAreUsageErrors) {
  // Checked before the workspace or a model is looked at.
  for (const char* shard : {"3/2", "1/1", "a/b", "0/0", "2", "-1/2", "1/2/3"}) {
    auto r = run_clgen({"--workspace", temp_workspace("shard"), "sample", "--shard", shard, "-n", "1"});
    EXPECT_EQ(2, r.exit_code) << shard << ": " << r.err;
    EXPECT_NE(r.err.find(std::string("clgen: error: --shard: shard \"") + shard + "\""), std::string::npos)
        << r.err;
    EXPECT_EQ(1, std::count(r.err.begin(), r.err.end(), '\n')) << "one line: " << r.err;
  }
}

TEST(SampleCli, ShardAutoReportsABadRankEnvironment) {
  auto r = testing::run_command({"/usr/bin/env", "RANK=x", "WORLD_SIZE=2", CLGEN_BINARY, "--workspace",
                                 temp_workspace("auto"), "sample", "--shard", "auto", "-n", "1"});
  EXPECT_EQ(1, r.exit_code) << r.err;
  EXPECT_EQ("clgen: error: --shard auto: RANK=\"x\" is not an integer in 0..1048576\n", r.err);
}

TEST(SampleCli, WithoutATrainedModelFailsWithAMessage) {
  std::string ws = temp_workspace("nomodel");
  auto r = run_clgen({"--workspace", ws, "sample", "--args", "float*,int", "-n", "1"});
  EXPECT_EQ(1, r.exit_code) << r.err;
  EXPECT_NE(r.err.find("clgen: error:"), std::string::npos) << r.err;
  (void)remove_tree(ws);
}

}  // namespace
}  // namespace clgen
