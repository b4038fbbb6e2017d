// sampler::SampleJob driven directly, without the CLI: a small character
// LSTM trained in-process on the sampler's test corpus, then undirected runs
// through the whole job (model, filter in Clang workers, store); and option
// combinations the job refuses before it reads anything.
#include "sampler/sample_job.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/config.h"
#include "model/store.h"
#include "model/trainer.h"
#include "sampler/constraint_tables.h"
#include "support/files.h"
#include "support/sqlite.h"
#include "support/workspace.h"
#include "tests/sampler/corpus_workspace.h"

namespace clgen {
namespace {

namespace fs = std::filesystem;

// tests/data/sampler/small.toml with 4 epochs instead of 40: the runs below
// check what the job stores and counts, not how good the kernels are, and
// 4 epochs train in a few seconds on 2 cores.
std::string small_config_text() {
  std::string text = testing::slurp_file(std::string(CLGEN_TEST_DATA) + "/sampler/small.toml");
  const std::string from = "epochs = 40";
  const size_t at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), "epochs = 4");
  return text;
}

// A workspace holding the corpus and one model trained on it, as `clgen
// train` leaves it (the model and its constraint tables).
class SampleJobTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_NO_FATAL_FAILURE(testing::fresh_corpus_workspace("clgen_sample_job", &root_));
    auto ws = Workspace::open(ws_root());
    ASSERT_TRUE(ws.ok()) << ws.status().message();
    auto db = ws->open_database();
    ASSERT_TRUE(db.ok()) << db.status().message();
    auto config = model::parse_model_config(small_config_text(), "small.toml");
    ASSERT_TRUE(config.ok()) << config.status().message();
    auto set = model::read_training_set(*db, config->training);
    ASSERT_TRUE(set.ok()) << set.status().message();
    model::TrainOptions train;
    train.device = "cpu";
    train.progress = false;
    auto trained = model::train_model(*ws, *config, set->model_texts(), train);
    ASSERT_TRUE(trained.ok()) << trained.status().message();
    ASSERT_TRUE(
        sampler::save_constraint_tables(sampler::ConstraintTables::from_corpus(set->texts), trained->model_dir).ok());
    model_id_ = trained->model_id;
  }
  static void TearDownTestSuite() { (void)remove_tree(root_.string()); }

  static std::string ws_root() { return (root_ / "ws").string(); }

  // An undirected CPU run of the trained model: `max_samples` samples of 4
  // streams, seed 5, no -n.
  static sampler::SampleJobOptions undirected(uint64_t max_samples) {
    sampler::SampleJobOptions o;
    o.workspace = ws_root();
    o.model_id = model_id_;
    o.device = "cpu";
    o.batch_size = 4;
    o.seed_given = true;
    o.sample.seed = 5;
    o.sample.max_samples = max_samples;
    o.sample.target_accepted = 0;
    o.sample.max_length = 300;
    o.sample.args = "float*,float*,float*,int";
    o.sample.progress = false;
    o.out = (root_ / "kernels").string();
    return o;
  }

  // Samples stored with `seed` in the workspace.
  static int64_t stored_with_seed(uint64_t seed) {
    auto db = Database::open(ws_root() + "/clgen.db");
    EXPECT_TRUE(db.ok());
    auto st = db->prepare("SELECT count(*) FROM samples WHERE seed = ?1");
    if (!st.ok()) return -1;
    EXPECT_TRUE(st->bind(1, static_cast<int64_t>(seed)).ok());
    EXPECT_TRUE(*st->step());
    return st->column_int(0);
  }

  static fs::path root_;
  static std::string model_id_;
};
fs::path SampleJobTest::root_;
std::string SampleJobTest::model_id_;

TEST_F(SampleJobTest, UndirectedRunStoresItsSamplesAndReturnsTheirCounts) {
  if (HasFatalFailure()) return;
  auto job = sampler::SampleJob::create(undirected(6));
  ASSERT_TRUE(job.ok()) << job.status().message();
  auto r = job->run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  // max_samples 6 of an empty workspace: 6 samples drawn and stored, each
  // with a status; accepted ones are among them and written as .cl files.
  EXPECT_EQ(model_id_, r->model_id);
  EXPECT_EQ("--seed", r->seed_from);
  EXPECT_EQ(5u, r->sample.seed);
  EXPECT_EQ(6u, r->summary.samples);
  uint64_t by_status = 0;
  for (const auto& [status, n] : r->summary.by_status) by_status += n;
  EXPECT_EQ(6u, by_status);
  EXPECT_LE(r->summary.accepted, 6u);
  EXPECT_EQ(6, stored_with_seed(5));
  EXPECT_EQ((root_ / "kernels").string(), r->summary.out_dir);
  size_t files = 0;
  if (fs::exists(root_ / "kernels"))
    for (const auto& e : fs::directory_iterator(root_ / "kernels")) files += e.path().extension() == ".cl";
  EXPECT_EQ(r->summary.accepted, files);
  // Unsharded, undirected, unchecked: no shard source, no director, no
  // check; backtracking at its unchecked default.
  EXPECT_EQ("unsharded", r->shard.source);
  EXPECT_FALSE(r->summary.director);
  EXPECT_FALSE(r->check);
  EXPECT_EQ(sampler::kDefaultBacktracks, r->sample.max_backtracks);
}

TEST_F(SampleJobTest, RunWithoutAGivenSeedDrawsAFreshOne) {
  if (HasFatalFailure()) return;
  sampler::SampleJobOptions o = undirected(2);
  o.seed_given = false;
  auto job = sampler::SampleJob::create(o);
  ASSERT_TRUE(job.ok()) << job.status().message();
  auto r = job->run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ("fresh", r->seed_from);
  // The option's seed (5) is replaced; a fresh seed is 48 bits.
  EXPECT_NE(5u, r->sample.seed);
  EXPECT_LT(r->sample.seed, uint64_t(1) << 48);
  EXPECT_EQ(2, stored_with_seed(r->sample.seed));
}

// A directed run with the baseline on half the streams: the job reads the
// targets, hands them to the director and writes the target report, one
// row per target and side (2 targets x 2 sides = 4 rows below the header),
// labelled "<csv>:<line>" in the CSV's order.
TEST_F(SampleJobTest, DirectedRunWithBaselineWritesOneReportRowPerTargetAndSide) {
  if (HasFatalFailure()) return;
  const std::string csv = (root_ / "targets.csv").string();
  const std::string report = (root_ / "report.csv").string();
  ASSERT_TRUE(write_file_atomic(csv, "comp,rational,mem,localmem,coalesced,atomic\n1,1,3,0,3,0\n9,0,4,1,2,0\n").ok());
  sampler::SampleJobOptions o = undirected(4);
  o.sample.seed = 6;
  o.directed.target_features = csv;
  o.directed.baseline = true;
  o.directed.split = "streams";
  o.directed.report = report;
  auto job = sampler::SampleJob::create(o);
  ASSERT_TRUE(job.ok()) << job.status().message();
  auto r = job->run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->summary.director);
  EXPECT_TRUE(r->summary.director->has_baseline());
  EXPECT_EQ(2u, r->sample.targets.size());
  std::string text = testing::slurp_file(report);
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(text.substr(at, nl - at));
  ASSERT_EQ(5u, lines.size()) << text;
  EXPECT_EQ(0u, lines[0].find("target,target_values,side,")) << lines[0];
  EXPECT_EQ(0u, lines[1].find(csv + ":2,\"1,1,3,0,3,0\",directed,")) << lines[1];
  EXPECT_EQ(0u, lines[2].find(csv + ":3,\"9,0,4,1,2,0\",directed,")) << lines[2];
  EXPECT_EQ(0u, lines[3].find(csv + ":2,\"1,1,3,0,3,0\",undirected,")) << lines[3];
  EXPECT_EQ(0u, lines[4].find(csv + ":3,\"9,0,4,1,2,0\",undirected,")) << lines[4];
}

// Each combination fails in create(), before the workspace is opened: the
// workspace named does not exist, and is still absent afterwards.
TEST(SampleJobOptionsTest, InvalidCombinationsAreUsageErrorsNamingTheOption) {
  const std::string missing =
      (fs::temp_directory_path() / ("clgen_sample_job_none_" + std::to_string(::getpid()))).string();
  struct Case {
    const char* named;
    std::function<void(sampler::SampleJobOptions&)> set;
  };
  const Case cases[] = {
      {"--baseline", [](auto& o) { o.directed.baseline = true; }},
      {"--baseline-only", [](auto& o) { o.directed.baseline_only = true; }},
      {"--graded-steering",
       [](auto& o) {
         o.directed.graded = true;
         o.directed.explore = true;  // targets, but no checker
       }},
      {"--held-out-targets", [](auto& o) { o.directed.held_out = true; }},  // without a config
      {"--explore",
       [](auto& o) {
         o.directed.explore = true;
         o.directed.target_features = "targets.csv";
       }},
      {"--args", [](auto& o) { o.sample.args = "float*,flaot*"; }},
      {"--batch-size", [](auto& o) { o.batch_size = 0; }},
      {"stop condition",
       [](auto& o) {
         o.check_device = "cpu";
         o.sample.target_accepted = 0;
       }},
  };
  for (const Case& c : cases) {
    sampler::SampleJobOptions o;
    o.workspace = missing;
    c.set(o);
    auto job = sampler::SampleJob::create(o);
    ASSERT_FALSE(job.ok()) << c.named;
    EXPECT_EQ(ErrorCode::kUsage, job.status().code()) << c.named << ": " << job.status().message();
    EXPECT_NE(job.status().message().find(c.named), std::string::npos) << job.status().message();
  }
  EXPECT_FALSE(fs::exists(missing));
}

}  // namespace
}  // namespace clgen
