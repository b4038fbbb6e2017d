// End-to-end tests of `clgen predict`: evaluation output, train/apply round
// trip, and clear errors for missing files, empty data and unknown models.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/cli/run_command.h"

namespace clgen::testing {
namespace {

const std::string kData = std::string(CLGEN_TEST_DATA) + "/devmap/";

std::string temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("clgen-predict-cli-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

TEST(PredictCli, EvalPrintsAccuracyForBothProtocols) {
  auto r = run_clgen({"predict", "eval", "--task", "mapping", "--data", kData + "nvidia.csv",
                      "--folds", kData + "folds-nvidia.csv", "--model", "grewe-gini"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("grewe-gini folds"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lobo"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("76.62%"), std::string::npos) << r.out;
}

TEST(PredictCli, TrainSavesAModelThatApplyLoads) {
  std::string dir = temp_dir("train");
  auto t = run_clgen({"--workspace", dir + "/ws", "predict", "train", "--data", kData + "amd.csv",
                      "--model", "best"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  std::string model = dir + "/ws/models/mapping-best.yml";
  ASSERT_TRUE(std::filesystem::exists(model)) << t.out;
  auto a = run_clgen({"predict", "apply", "--data", kData + "nvidia.csv", "--model-file", model,
                      "--out", dir + "/pred.csv"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("680 rows"), std::string::npos) << a.out;
  std::ifstream in(dir + "/pred.csv");
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "benchmark,dataset,oracle,predicted,runtime_cpu,runtime_gpu");
}

TEST(PredictCli, EvalWithoutAFoldFileUsesSeededStratifiedFolds) {
  std::vector<std::string> args = {"predict", "eval", "--data", kData + "amd.csv", "--model",
                                   "grewe-gini", "--protocol", "folds", "--cv-folds", "5"};
  auto r = run_clgen(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("grewe-gini folds      5"), std::string::npos) << r.out;
  auto again = run_clgen(args);
  EXPECT_EQ(again.out, r.out);  // the same seed gives the same folds
}

TEST(PredictCli, HelpListsTrainEvalAndApply) {
  auto r = run_clgen({"predict", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* sub : {"train", "eval", "apply"})
    EXPECT_NE(r.out.find(sub), std::string::npos) << sub << " missing from:\n" << r.out;
  auto top = run_clgen({"--help"});
  EXPECT_NE(top.out.find("predict"), std::string::npos) << top.out;
}

TEST(PredictCli, MissingModelFileIsAnError) {
  auto r = run_clgen({"predict", "apply", "--data", kData + "amd.csv", "--model-file", "/nonexistent/m.yml"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent/m.yml"), std::string::npos) << r.err;
}

TEST(PredictCli, MissingDataFileNamesThePath) {
  auto r = run_clgen({"predict", "eval", "--data", "/nonexistent/devmap.csv", "--protocol", "lobo"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent/devmap.csv"), std::string::npos) << r.err;
}

TEST(PredictCli, HeaderOnlyDataIsAnError) {
  std::string dir = temp_dir("empty");
  std::ofstream(dir + "/empty.csv") << "benchmark,dataset,comp,rational,mem,localmem,coalesced,atomic,"
                                       "transfer,wgsize,oracle,runtime_cpu,runtime_gpu\n";
  auto r = run_clgen({"predict", "eval", "--data", dir + "/empty.csv", "--protocol", "lobo"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no data rows"), std::string::npos) << r.err;
}

TEST(PredictCli, UnknownModelListsKnownOnes) {
  auto r = run_clgen({"predict", "eval", "--data", kData + "amd.csv", "--protocol", "lobo",
                      "--model", "deeptune"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown mapping model 'deeptune'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("grewe"), std::string::npos) << r.err;
}

TEST(PredictCli, UsageErrorsExitTwo) {
  auto bad_task = run_clgen({"predict", "eval", "--task", "unroll", "--data", kData + "amd.csv"});
  EXPECT_EQ(bad_task.exit_code, 2);
  EXPECT_NE(bad_task.err.find("--task"), std::string::npos) << bad_task.err;
  auto bad_protocol = run_clgen({"predict", "eval", "--data", kData + "amd.csv", "--protocol", "nested"});
  EXPECT_EQ(bad_protocol.exit_code, 2);
  EXPECT_NE(bad_protocol.err.find("--protocol"), std::string::npos) << bad_protocol.err;
  auto no_data = run_clgen({"predict", "eval"});
  EXPECT_EQ(no_data.exit_code, 2);
}

TEST(PredictCli, WgsizeTrainSavesAModelThatApplyLoads) {
  std::string dir = temp_dir("wgsize");
  std::string table = std::string(CLGEN_TEST_DATA) + "/wgsize/runtimes.csv";
  auto t = run_clgen({"--workspace", dir + "/ws", "predict", "train", "--task", "wgsize", "--data", table,
                      "--model", "tree-nn"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  std::string model = dir + "/ws/models/wgsize-tree-nn.yml";
  ASSERT_TRUE(std::filesystem::exists(model)) << t.out;
  auto a = run_clgen({"predict", "apply", "--task", "wgsize", "--data", table, "--model-file", model,
                      "--out", dir + "/chosen.csv"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  // On its own training data a fully grown tree picks (nearly) the oracle.
  EXPECT_NE(a.out.find("tree-nn on 226 scenarios"), std::string::npos) << a.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/chosen.csv"));
  auto wrong = run_clgen({"predict", "apply", "--task", "mapping", "--data", kData + "amd.csv",
                          "--model-file", model});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("not a mapping model"), std::string::npos) << wrong.err;
}

TEST(PredictCli, WgsizeEvalReportsOracleFraction) {
  auto r = run_clgen({"predict", "eval", "--task", "wgsize", "--data",
                      std::string(CLGEN_TEST_DATA) + "/wgsize/runtimes.csv", "--model", "tree-nn"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("226 scenarios x 169"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("baseline (best fixed size) 24x8"), std::string::npos) << r.out;
}

TEST(PredictCli, ExperimentOnTheSkelclTableReportsEachDeviceAndTheTenPercentCheck) {
  // The SkelCL table has no origin column: every scenario is real, so only
  // the real arm runs. Its 4 devices each get a block; on every device the
  // best fixed size is legal somewhere, so the >= 10% line says yes or no.
  std::string dir = temp_dir("experiment");
  auto r = run_clgen({"predict", "experiment", "--task", "wgsize", "--data",
                      std::string(CLGEN_TEST_DATA) + "/wgsize/runtimes.csv", "--model", "tree-nn", "--repeats", "1",
                      "--cv-folds", "3", "--bootstrap", "50", "--out", dir + "/x.csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t blocks = 0;
  for (size_t at = r.out.find("\n== "); at != std::string::npos; at = r.out.find("\n== ", at + 1)) ++blocks;
  EXPECT_EQ(blocks, 4u) << r.out;
  size_t checks = 0;
  for (size_t at = r.out.find("by >= 10%: "); at != std::string::npos; at = r.out.find("by >= 10%: ", at + 1)) {
    std::string answer = r.out.substr(at + 11, 3);
    EXPECT_TRUE(answer == "yes" || answer.substr(0, 2) == "no") << answer;
    ++checks;
  }
  EXPECT_EQ(checks, 4u);
  EXPECT_NE(r.out.find("no synthetic scenarios"), std::string::npos) << r.out;
  std::ifstream csv(dir + "/x.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("device,model,arm,", 0), 0u) << header;
  auto bad = run_clgen(
      {"predict", "experiment", "--task", "devices", "--data", std::string(CLGEN_TEST_DATA) + "/wgsize/runtimes.csv"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

}  // namespace
}  // namespace clgen::testing
