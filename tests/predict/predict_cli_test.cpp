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

// A mapping export in miniature: 4 one-sided programs (repo0, repo1 GPU-best
// at small transfers; repo2, repo3 CPU-best at large ones), 3 synthetic
// kernels covering both sides, all at size 1024 except repo3's rows at 2048.
std::string write_mapping_fixture(const std::string& dir) {
  std::string t =
      "benchmark,dataset,comp,rational,mem,localmem,coalesced,atomic,transfer,wgsize,oracle,runtime_cpu,"
      "runtime_gpu,group,origin\n";
  int n = 0;
  auto add = [&](const std::string& group, const std::string& origin, double transfer, bool cpu,
                 const std::string& size) {
    t += group + "-k" + std::to_string(n++) + "," + size + ",10,0,10,0,5,0," + std::to_string(transfer) + ",64," +
         (cpu ? "CPU,1,2," : "GPU,2,1,") + group + "," + origin + "\n";
  };
  for (int g = 0; g < 4; ++g)
    for (int i = 1; i <= 6; ++i)
      add("repo" + std::to_string(g), "corpus", g < 2 ? 100.0 * i : 1e5 * i, g >= 2, g == 3 ? "2048" : "1024");
  for (int s = 0; s < 6; ++s) {
    add("synthetic-" + std::to_string(s), "synthetic", 60.0 * (s + 1), false, "1024");
    add("synthetic-" + std::to_string(s), "synthetic", 6e4 * (s + 1), true, "1024");
  }
  std::string path = dir + "/mapping.csv";
  std::ofstream(path) << t;
  return path;
}

size_t count_lines(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

TEST(PredictCli, ExperimentLearningCurveAndDomainHoldoutWriteOneRowPerPointAndArm) {
  std::string dir = temp_dir("curves");
  std::string data = write_mapping_fixture(dir);
  // k = 1 and all (= 3 of 4 programs); k = 9 is more than there are and is
  // skipped with a note. 2 points x 2 arms = 4 rows.
  auto r =
      run_clgen({"predict", "experiment", "--task", "mapping", "--data", data, "--model", "grewe-gini",
                 "--train-groups", "1,all,9", "--draws", "3", "--bootstrap", "50", "-j", "1", "--out", dir + "/k.csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("k = 9: skipped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("k = 3 training groups"), std::string::npos) << r.out;
  EXPECT_EQ(count_lines(dir + "/k.csv"), 5u);
  std::ifstream csv(dir + "/k.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("task,device,model,regime,k,domain,draws,", 0), 0u) << header;
  // Two domains (repo0 + repo2: A, repo1 + repo3: B): one point each, 2 arms.
  std::ofstream(dir + "/domains.tsv") << "group\tdomain\nrepo0\tA\nrepo2\tA\nrepo1\tB\nrepo3\tB\n";
  auto h = run_clgen({"predict", "experiment", "--task", "mapping", "--data", data, "--model", "grewe-gini",
                      "--holdout-domain", "all", "--domains", dir + "/domains.tsv", "--bootstrap", "50", "--out",
                      dir + "/d.csv"});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  EXPECT_NE(h.out.find("held-out domain 'A'"), std::string::npos) << h.out;
  EXPECT_EQ(count_lines(dir + "/d.csv"), 5u);
  // Without a domain table: a usage error.
  auto nodom = run_clgen({"predict", "experiment", "--task", "mapping", "--data", data, "--holdout-domain", "A"});
  EXPECT_EQ(nodom.exit_code, 2) << nodom.err;
  // Two halves of the synthetic rows: arms real, A, B.
  auto split = run_clgen({"predict", "experiment", "--task", "mapping", "--data", data, "--model", "grewe-gini",
                          "--train-groups", "2", "--draws", "2", "--split-synthetic", "--bootstrap", "50", "--out",
                          dir + "/s.csv"});
  ASSERT_EQ(split.exit_code, 0) << split.err;
  EXPECT_NE(split.out.find("points of oracle against real+synthetic-A (paired)"), std::string::npos) << split.out;
  EXPECT_EQ(count_lines(dir + "/s.csv"), 4u);
  // The data's synthetic rows compared with themselves (as another export's):
  // the same rows train the same models, so the paired difference is exactly 0.
  auto self = run_clgen({"predict", "experiment", "--task", "mapping", "--data", data, "--model", "grewe-gini",
                         "--train-groups", "2", "--draws", "2", "--compare-synthetic", data, "--bootstrap", "50"});
  ASSERT_EQ(self.exit_code, 0) << self.err;
  EXPECT_NE(self.out.find("0.00 [0.00, 0.00] points of oracle against real+synthetic (paired)"), std::string::npos)
      << self.out;
  auto misuse = run_clgen({"predict", "experiment", "--task", "mapping", "--data", data, "--split-synthetic"});
  EXPECT_EQ(misuse.exit_code, 2) << misuse.err;
}

TEST(PredictCli, ExperimentSizesTableAndTwoSidedFilter) {
  // Size 1024: repo0-2 (12 GPU-best, 6 CPU-best real rows): static GPU loses
  // 2x on a third of the rows, oracle over static 2^(1/3) = 1.26 >= 1.2.
  // Size 2048: repo3 only, all CPU-best: static CPU is the oracle (1.00).
  std::string dir = temp_dir("sizes");
  std::string data = write_mapping_fixture(dir);
  auto r = run_clgen({"predict", "experiment", "--task", "mapping", "--data", data, "--model", "grewe-gini", "--sizes",
                      "two-sided", "--size-table", dir + "/sizes.csv", "--train-groups", "1", "--draws", "2",
                      "--bootstrap", "50"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("by >= 1.20x on the real rows: 1024\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kept 30 rows at sizes 1024"), std::string::npos) << r.out;  // 18 real + 12 synthetic
  std::ifstream in(dir + "/sizes.csv");
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(first.rfind("1024,18,6,12,6,GPU,1.2599", 0), 0u) << first;
  auto none = run_clgen(
      {"predict", "experiment", "--task", "mapping", "--data", data, "--sizes", "two-sided", "--two-sided-ratio", "2"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no global size"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace clgen::testing
