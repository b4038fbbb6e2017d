// End to end with a feature-conditioned model: `clgen train` with
// training.feature_prefix on the sampler's small corpus records the headers,
// then `clgen sample --target-features` toward a corpus kernel starts its
// streams after headers that the stored samples do not contain.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/files.h"
#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/sampler/corpus_workspace.h"

namespace clgen {
namespace {

namespace fs = std::filesystem;
using testing::run_clgen;

std::string slurp(const fs::path& p) { return testing::slurp_file(p); }

class ConditionedEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_NO_FATAL_FAILURE(testing::fresh_corpus_workspace("clgen_conditioned_e2e", &root_));
    // The sampler's small config, conditioned.
    std::string small = slurp(std::string(CLGEN_TEST_DATA) + "/sampler/small.toml");
    const size_t training = small.find("[training]\n");
    ASSERT_NE(std::string::npos, training);
    small.insert(training + 11, "feature_prefix = true\n");
    std::ofstream(config()) << small;
    train_ =
        new testing::CommandResult(run_clgen({"--workspace", ws(), "train", "--config", config(), "--device", "cpu"}));
    ASSERT_EQ(0, train_->exit_code) << train_->out << train_->err;
  }
  static void TearDownTestSuite() {
    delete train_;
    (void)remove_tree(root_.string());
  }

  static std::string ws() { return (root_ / "ws").string(); }
  static std::string config() { return (root_ / "cond.toml").string(); }
  static fs::path model_dir() {
    std::string id = slurp(root_ / "ws" / "models" / "latest");
    while (!id.empty() && id.back() == '\n') id.pop_back();
    return root_ / "ws" / "models" / id;
  }
  static testing::CommandResult sample(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--workspace", ws(), "-q", "sample", "--config", config(), "-n", "0", "--json"};
    for (const char* flag :
         {"--args=float*,float*,float*,int", "--device=cpu", "--max-length=400", "--max-refusals=32"})
      args.push_back(flag);
    args.insert(args.end(), extra.begin(), extra.end());
    return run_clgen(args);
  }

  static fs::path root_;
  static testing::CommandResult* train_;
};
fs::path ConditionedEndToEnd::root_;
testing::CommandResult* ConditionedEndToEnd::train_ = nullptr;

// k1.cl's features (comp, rational, mem, localmem, coalesced, atomic):
// `e < d` 1 comparison; `a[e] + b[e]` 1 operator; a, b, c once each, all
// subscripted by a variable.
const std::string kK1Header = "// comp 1 rational 1 mem 3 localmem 0 coalesced 3 atomic 0";

TEST_F(ConditionedEndToEnd, TrainingRecordsTheHeadersOfItsKernelsAndCachesTheirFeatures) {
  if (HasFatalFailure()) return;
  EXPECT_NE(std::string::npos, train_->out.find("training.feature_prefix: 0 of 8 kernels without features"))
      << train_->out;
  auto meta = nlohmann::json::parse(slurp(model_dir() / "model.json"));
  EXPECT_TRUE(meta.value("feature_prefix", false));
  const std::string tsv = slurp(model_dir() / "feature_headers.tsv");
  EXPECT_NE(std::string::npos, tsv.find("\t" + kK1Header + "\n")) << tsv;
  uint64_t total = 0;  // every one of the 8 kernels trains (validation_fraction = 0)
  std::istringstream lines(tsv);
  for (std::string line; std::getline(lines, line);) total += std::stoull(line.substr(0, line.find('\t')));
  EXPECT_EQ(8u, total);
  auto db = Database::open(ws() + "/clgen.db");
  ASSERT_TRUE(db.ok());
  auto n = db->prepare("SELECT COUNT(*) FROM kernel_features WHERE comp IS NOT NULL");
  ASSERT_TRUE(n.ok());
  ASSERT_TRUE(*n->step());
  EXPECT_EQ(8, n->column_int(0));
}

TEST_F(ConditionedEndToEnd, SamplingTowardACorpusKernelKeepsTheHeaderOutOfTheStoredSamples) {
  if (HasFatalFailure()) return;
  const std::string k1 = std::string(CLGEN_TEST_DATA) + "/sampler/corpus/k1.cl";
  const std::string targets = (root_ / "targets.csv").string();
  auto f = run_clgen({"features", k1, "--out", targets});
  ASSERT_EQ(0, f.exit_code) << f.err;
  auto r = sample({"--begin", "signature", "--time-limit", "20", "--seed", "4", "--temperature", "1.0", "--batch-size",
                   "16", "--out", (root_ / "directed").string(), "--target-features", targets, "--baseline",
                   "--baseline-slice", "5"});
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(1, j["steering"]["directed"]["targets"].get<int>());
  auto db = Database::open(ws() + "/clgen.db");
  ASSERT_TRUE(db.ok());
  auto st = db->prepare("SELECT text, normalized_text, target, target_features FROM samples");
  ASSERT_TRUE(st.ok());
  int steered = 0, rows = 0;
  while (*st->step()) {
    ++rows;
    EXPECT_EQ(0u, st->column_text(0).rfind("__kernel void A(", 0)) << st->column_text(0);
    EXPECT_EQ(std::string::npos, st->column_text(0).find("// comp")) << st->column_text(0);
    EXPECT_EQ(std::string::npos, st->column_text(1).find("// comp"));
    if (st->column_is_null(2)) continue;
    ++steered;
    EXPECT_EQ(k1 + ":A", st->column_text(2));
    EXPECT_EQ("1,1,3,0,3,0", st->column_text(3));
  }
  EXPECT_GT(rows, 0);
  // The first directed starts are from the seed, after the target's header.
  EXPECT_GT(steered, 0);
  for (const auto& e : fs::directory_iterator(root_ / "directed"))
    EXPECT_EQ(std::string::npos, slurp(e.path()).find("// comp")) << e.path();
}

TEST_F(ConditionedEndToEnd, UndirectedSamplingOfAConditionedModelStoresBareKernels) {
  if (HasFatalFailure()) return;
  auto r = sample({"--begin", "signature", "--max-samples", "16", "--seed", "6", "--batch-size", "8", "--out",
                   (root_ / "plain").string()});
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;
  auto db = Database::open(ws() + "/clgen.db");
  ASSERT_TRUE(db.ok());
  auto st = db->prepare("SELECT text, target FROM samples WHERE seed = 6");
  ASSERT_TRUE(st.ok());
  int rows = 0;
  while (*st->step()) {
    ++rows;
    EXPECT_EQ(0u, st->column_text(0).rfind("__kernel void A(", 0)) << st->column_text(0);
    EXPECT_TRUE(st->column_is_null(1));
  }
  EXPECT_EQ(16, rows);
}

TEST_F(ConditionedEndToEnd, AConditionedModelWithoutItsHeadersIsRefusedNamingTheFile) {
  if (HasFatalFailure()) return;
  const fs::path tsv = model_dir() / "feature_headers.tsv", aside = root_ / "headers.aside";
  fs::rename(tsv, aside);
  auto r = sample({"--max-samples", "1", "--batch-size", "1"});
  fs::rename(aside, tsv);
  EXPECT_NE(0, r.exit_code);
  EXPECT_NE(std::string::npos, r.err.find("training.feature_prefix")) << r.err;
  EXPECT_NE(std::string::npos, r.err.find("feature_headers.tsv")) << r.err;
}

}  // namespace
}  // namespace clgen
