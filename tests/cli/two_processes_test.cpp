// Two clgen processes on one workspace (issue #20, part 3): each pair — two
// `sample`s, `sample` beside `drive --samples`, two `drive`s, two `corpus
// add`s — runs at once on one workspace and must end with the union of both
// runs' results, both exiting 0, and a database that passes
// PRAGMA integrity_check.
#include <filesystem>
#include <regex>
#include <set>
#include <thread>
#include <utility>

#include <gtest/gtest.h>

#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/common/temp_dir.h"

namespace clgen {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::run_clgen;

const std::string kData = CLGEN_TEST_DATA;

// Runs two clgen command lines at once, each a child process of its own thread.
std::pair<CommandResult, CommandResult> run_both(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  CommandResult ra;
  std::thread first([&] { ra = run_clgen(a); });
  CommandResult rb = run_clgen(b);
  first.join();
  return {ra, rb};
}

bool have_cpu_device() {
  static const bool have = [] {
    CommandResult r = run_clgen({"devices"});
    return r.exit_code == 0 && r.out.find("[CPU]") != std::string::npos;
  }();
  return have;
}

class TwoProcesses : public ::testing::Test {
 protected:
  std::string ws() const { return dir_ / "ws"; }
  // `clgen --workspace WS -q ARGS...`
  static std::vector<std::string> in(const std::string& ws, std::vector<std::string> args) {
    args.insert(args.begin(), {"--workspace", ws, "-q"});
    return args;
  }
  // The first column of every row `sql` returns in workspace `ws` (default: ws()).
  std::multiset<std::string> column(const std::string& sql, std::string ws = "") const {
    auto db = Database::open((ws.empty() ? this->ws() : ws) + "/clgen.db");
    EXPECT_TRUE(db.ok()) << db.status().message();
    std::multiset<std::string> out;
    if (!db.ok()) return out;
    auto st = db->prepare(sql);
    EXPECT_TRUE(st.ok()) << st.status().message();
    if (!st.ok()) return out;
    while (*st->step()) out.insert(st->column_text(0));
    return out;
  }
  int64_t value(const std::string& sql) const {
    auto rows = column(sql);
    return rows.size() == 1 ? std::stoll(*rows.begin()) : -1;
  }
  std::string integrity() const {
    auto rows = column("PRAGMA integrity_check");
    return rows.size() == 1 ? *rows.begin() : "no single row";
  }
  // The sampler's test corpus added and preprocessed, and the small model
  // of the sampler's end-to-end test trained on it (about 5 s).
  void make_model_workspace() {
    for (std::vector<std::string> args : {std::vector<std::string>{"corpus", "add", kData + "/sampler/corpus"},
                                          {"corpus", "preprocess"},
                                          {"train", "--config", config(), "--device", "cpu"}}) {
      CommandResult r = run_clgen(in(ws(), args));
      ASSERT_EQ(0, r.exit_code) << args[0] << ": " << r.out << r.err;
    }
  }
  static std::string config() { return kData + "/sampler/small.toml"; }
  std::vector<std::string> sample(const std::string& ws, std::vector<std::string> extra) const {
    std::vector<std::string> args = {"sample",
                                     "--config",
                                     config(),
                                     "--args",
                                     "float*,float*,float*,int",
                                     "--temperature",
                                     "1.0",
                                     "--batch-size",
                                     "8",
                                     "--max-length",
                                     "400",
                                     "--max-refusals",
                                     "32",
                                     "--device",
                                     "cpu"};
    args.insert(args.end(), extra.begin(), extra.end());
    return in(ws, args);
  }
  std::vector<std::string> drive(std::vector<std::string> extra) const {
    std::vector<std::string> args = {"drive", "--device", "cpu", "--runs", "3", "--timeout", "12"};
    args.insert(args.end(), extra.begin(), extra.end());
    return in(ws(), args);
  }

  testing::TempDir dir_;
};

// The stems of the .cl files in `dir`.
std::multiset<std::string> stems(const std::string& dir) {
  std::multiset<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().stem().string());
  return out;
}

// The bug: two runs collided on samples_accepted_unique, and one
// exited with an error after writing its .cl files. With one seed both draw
// the same kernels: each draw is stored once, and -n counts the seed's
// accepted kernels over both runs.
TEST_F(TwoProcesses, TwoSampleRunsOfOneSeedStoreItsTargetOnceAndBothExitZero) {
  make_model_workspace();
  if (HasFatalFailure()) return;
  const std::string out1 = dir_ / "out1", out2 = dir_ / "out2";
  auto [a, b] = run_both(sample(ws(), {"-n", "8", "--seed", "9", "--out", out1}),
                         sample(ws(), {"-n", "8", "--seed", "9", "--out", out2}));
  EXPECT_EQ(0, a.exit_code) << a.err;
  EXPECT_EQ(0, b.exit_code) << b.err;
  EXPECT_EQ(8, value("SELECT COUNT(*) FROM samples WHERE seed = 9 AND status = 'accepted'"));
  EXPECT_EQ(0, value("SELECT COUNT(*) FROM (SELECT sample_index FROM samples WHERE seed = 9 GROUP BY 1 "
                     "HAVING COUNT(*) > 1)"));
  // A .cl file for every accepted kernel and for nothing else. A run that
  // starts after the other stored kernels of its key writes those missing in
  // its folder too (what a rerun after a kill needs), so a kernel may have a
  // file in both folders, depending on how the two runs overlap.
  std::multiset<std::string> one = stems(out1), two = stems(out2);
  std::set<std::string> files(one.begin(), one.end());
  files.insert(two.begin(), two.end());
  auto accepted = column("SELECT normalized_sha256 FROM samples WHERE seed = 9 AND status = 'accepted'");
  EXPECT_EQ(std::set<std::string>(accepted.begin(), accepted.end()), files);
  EXPECT_EQ("ok", integrity());
}

// Two seeds at once store exactly what the two runs store one after the
// other: every draw of each seed, each once.
TEST_F(TwoProcesses, TwoSampleRunsOfTwoSeedsStoreTheUnionOfTheirSamples) {
  make_model_workspace();
  if (HasFatalFailure()) return;
  const std::string ref = dir_ / "ref";
  fs::copy(ws(), ref, fs::copy_options::recursive);
  for (const char* seed : {"1", "2"}) {
    CommandResult r = run_clgen(sample(ref, {"-n", "0", "--max-samples", "24", "--seed", seed}));
    ASSERT_EQ(0, r.exit_code) << r.err;
  }
  auto [a, b] = run_both(sample(ws(), {"-n", "0", "--max-samples", "24", "--seed", "1"}),
                         sample(ws(), {"-n", "0", "--max-samples", "24", "--seed", "2"}));
  EXPECT_EQ(0, a.exit_code) << a.err;
  EXPECT_EQ(0, b.exit_code) << b.err;
  const std::string draws = "SELECT seed || ':' || sample_index || ':' || text FROM samples";
  EXPECT_EQ(48u, column(draws).size());
  EXPECT_EQ(column(draws, ref), column(draws));
  // The same kernels passed the filter; each is accepted once (by whichever run stored it first).
  const std::string passed = "SELECT DISTINCT normalized_sha256 FROM samples WHERE status IN ('accepted', 'duplicate')";
  EXPECT_EQ(column(passed, ref), column(passed));
  EXPECT_EQ(column(passed), column("SELECT normalized_sha256 FROM samples WHERE status = 'accepted'"));
  EXPECT_EQ("ok", integrity());
}

// `drive --samples` drives the accepted samples stored when it starts while
// another seed is sampled: both runs' rows are there.
TEST_F(TwoProcesses, SampleBesideDriveOfTheSamplesStoresBoth) {
  if (!have_cpu_device()) GTEST_SKIP() << "no OpenCL CPU device";
  make_model_workspace();
  if (HasFatalFailure()) return;
  CommandResult first = run_clgen(sample(ws(), {"-n", "3", "--seed", "3"}));
  ASSERT_EQ(0, first.exit_code) << first.err;
  const auto before = column("SELECT normalized_sha256 FROM samples WHERE status = 'accepted'");
  ASSERT_EQ(3u, before.size());
  auto [a, b] = run_both(sample(ws(), {"-n", "4", "--seed", "4"}), drive({"--samples"}));
  EXPECT_EQ(0, a.exit_code) << a.err;
  EXPECT_EQ(0, b.exit_code) << b.err;
  EXPECT_EQ(4, value("SELECT COUNT(*) FROM samples WHERE seed = 4 AND status = 'accepted'"));
  // Every sample accepted before the drive has its run; every run is of an accepted sample.
  const auto driven = column("SELECT DISTINCT kernel_sha256 FROM runs");
  for (const std::string& sha : before) EXPECT_EQ(1u, driven.count(sha)) << sha << " was not driven";
  const auto accepted = column("SELECT normalized_sha256 FROM samples WHERE status = 'accepted'");
  for (const std::string& sha : driven) EXPECT_EQ(1u, accepted.count(sha)) << sha << " is no accepted sample";
  EXPECT_EQ("ok", integrity());
}

// "driven now: N" of a drive's summary.
int driven_now(const std::string& out) {
  std::smatch m;
  return std::regex_search(out, m, std::regex("driven now: (\\d+)")) ? std::stoi(m[1]) : -1;
}

// Two drives whose sources overlap, in the same order on one thread each:
// without the leases both would drive the shared sources at the same time.
// Together they drive every run once.
TEST_F(TwoProcesses, TwoDrivesDriveEachRunOnceAndStoreTheUnion) {
  if (!have_cpu_device()) GTEST_SKIP() << "no OpenCL CPU device";
  auto kernel = [](const char* f) { return kData + "/driver/" + f; };
  auto [a, b] = run_both(drive({"--jobs", "1", kernel("saxpy.cl"), kernel("two_kernels.cl"), kernel("args_mix.cl"),
                                kernel("writes_constant.cl")}),
                         drive({"--jobs", "1", kernel("saxpy.cl"), kernel("two_kernels.cl"), kernel("args_mix.cl"),
                                kernel("matmul_2d.cl")}));
  ASSERT_EQ(0, a.exit_code) << a.err;
  ASSERT_EQ(0, b.exit_code) << b.err;
  // Five sources, one run each but two_kernels.cl's two.
  EXPECT_EQ(6, value("SELECT COUNT(*) FROM runs"));
  EXPECT_EQ(6, value("SELECT COUNT(*) FROM (SELECT DISTINCT kernel_sha256, kernel_name FROM runs)"));
  EXPECT_EQ(6, driven_now(a.out) + driven_now(b.out)) << a.out << b.out;
  EXPECT_EQ(0, value("SELECT COUNT(*) FROM drive_leases"));
  EXPECT_EQ("ok", integrity());
}

// Two `corpus add`s of overlapping folders at once store what the two store
// one after the other.
TEST_F(TwoProcesses, TwoCorpusAddsStoreTheUnionOfTheirSources) {
  const std::vector<std::string> first = {"corpus", "add", kData + "/sampler/corpus", kData + "/driver"};
  const std::vector<std::string> second = {"corpus", "add", kData + "/driver", kData + "/preprocess"};
  const std::string ref = dir_ / "ref";
  for (const auto& args : {first, second}) {
    CommandResult r = run_clgen(in(ref, args));
    ASSERT_EQ(0, r.exit_code) << r.err;
  }
  auto [a, b] = run_both(in(ws(), first), in(ws(), second));
  EXPECT_EQ(0, a.exit_code) << a.err;
  EXPECT_EQ(0, b.exit_code) << b.err;
  for (const std::string sql :
       {"SELECT sha256 FROM content_files",
        "SELECT o.sha256 || ' ' || r.source || ' ' || o.commit_sha || ' ' || o.path || ' ' || o.role "
        "FROM content_origins o JOIN repositories r ON r.id = o.repository_id",
        "SELECT source || ' ' || kind || ' ' || COALESCE(commit_sha, 'none') FROM repositories",
        "SELECT r.source || ' ' || s.path || ' ' || s.reason FROM skipped s JOIN repositories r ON r.id = "
        "s.repository_id"}) {
    EXPECT_EQ(column(sql, ref), column(sql)) << sql;
  }
  EXPECT_GT(column("SELECT sha256 FROM content_files").size(), 20u);
  EXPECT_EQ("ok", integrity());
}

}  // namespace
}  // namespace clgen
