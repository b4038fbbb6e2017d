// End-to-end tests of `clgen sample` that need no trained model.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

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

// `sample --help` lists its everyday flags in five groups and no more than
// 23 options (22 flags and --help); the research and tuning knobs are off
// it (config keys whose flags override the file), named in the footer.
TEST(SampleCli, HelpFitsItsGroups) {
  auto r = run_clgen({"sample", "--help"});
  ASSERT_EQ(0, r.exit_code) << r.err;
  const std::set<std::string> groups = {"Input and model", "Sampling", "Checking", "Directed sampling", "Limits"};
  std::map<std::string, std::vector<std::string>> by_group;  // heading -> its options' first names
  std::string heading;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == ':' && line[0] != ' ') heading = line.substr(0, line.size() - 1);
    else if (line.rfind("  -", 0) == 0) by_group[heading].push_back(line.substr(2, line.find_first_of(" ", 2) - 2));
  }
  size_t options = 0;
  for (const auto& [g, names] : by_group) {
    options += names.size();
    if (g == "Options") {
      EXPECT_EQ(std::vector<std::string>{"-h,--help"}, names);  // CLI11's own group holds only --help
      continue;
    }
    EXPECT_EQ(1u, groups.count(g)) << "options outside the five groups: " << g;
  }
  for (const std::string& g : groups) EXPECT_FALSE(by_group[g].empty()) << g << " is missing";
  EXPECT_LE(options, 23u) << r.out;
  for (const char* knob : {"--near-share", "--near-cuts", "--baseline-split", "--backtrack-bad-names-only",
                           "--repair-backup", "--max-refusals", "--check-jobs", "--top-k"})
    EXPECT_EQ(std::string::npos, r.out.find(knob)) << knob << " is on --help";
  EXPECT_NE(std::string::npos, r.out.find("[sampler], [directed] and [check]")) << r.out;
}

// A knob's flag still parses (scripts pass them) and keeps its check.
TEST(SampleCli, TuningFlagsOffTheHelpStillParseAndCheck) {
  auto r = run_clgen({"--workspace", temp_workspace("knob"), "sample", "--near-share", "2"});
  EXPECT_EQ(2, r.exit_code);
  EXPECT_NE(std::string::npos, r.err.find("--near-share")) << r.err;
}

}  // namespace
}  // namespace clgen
