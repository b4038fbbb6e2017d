// `clgen workspace merge` end to end: shard workspaces filled through the
// sampler's store are merged into one without duplicates, twice, and a
// source that is no sampled workspace fails the command before anything
// changes.
#include <filesystem>

#include <gtest/gtest.h>

#include "sampler/store.h"
#include "support/files.h"
#include "support/sqlite.h"
#include "tests/cli/run_command.h"

namespace clgen {
namespace {

namespace fs = std::filesystem;
using sampler::SampleRow;
using testing::run_clgen;

SampleRow sample(const std::string& kernel, uint64_t index, const std::string& shard) {
  SampleRow r;
  r.text = "raw " + kernel + " " + shard;
  r.status = kernel.empty() ? "rejected" : "accepted";
  if (!kernel.empty()) {
    r.normalized_text = "__kernel void A() { " + kernel + " }";
    r.normalized_sha256 = "sha-" + kernel;
  }
  r.args = "";
  r.model_id = "m1";
  r.seed = 3;
  r.sample_index = index;
  r.shard = shard;
  return r;
}

class WorkspaceMergeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("clgen_merge_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    (void)remove_tree(dir_.string());
    fs::create_directories(dir_);
    // Shard 0 accepted a and b; shard 1 accepted b and c; each rejected one.
    make_workspace("shard0", {sample("a", 0, "0/2"), sample("b", 1, "0/2"), sample("", 2, "0/2")});
    make_workspace("shard1", {sample("b", 0, "1/2"), sample("", 1, "1/2"), sample("c", 2, "1/2")});
  }
  void TearDown() override { (void)remove_tree(dir_.string()); }

  void make_workspace(const std::string& name, const std::vector<SampleRow>& rows) {
    fs::create_directories(dir_ / name);
    auto db = Database::open(path(name) + "/clgen.db");
    ASSERT_TRUE(db.ok()) << db.status().message();
    ASSERT_TRUE(sampler::ensure_sampler_schema(*db).ok());
    ASSERT_TRUE(sampler::insert_samples(*db, rows).ok());
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  int64_t count(const std::string& sql) {
    auto db = Database::open(path("dest") + "/clgen.db");
    EXPECT_TRUE(db.ok());
    auto st = db->prepare(sql);
    EXPECT_TRUE(st.ok()) << st.status().message();
    auto row = st->step();
    EXPECT_TRUE(row.ok() && *row);
    return st->column_int(0);
  }

  fs::path dir_;
};

TEST_F(WorkspaceMergeCli, MergesShardsWithoutDuplicatesAndASecondMergeAddsNothing) {
  auto r = run_clgen({"workspace", "merge", path("shard0"), path("shard1"), "--workspace", path("dest")});
  ASSERT_EQ(0, r.exit_code) << r.err;
  EXPECT_NE(r.out.find("6 samples added (0 already here), 3 new unique kernels"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("it holds 3 unique kernels"), std::string::npos) << r.out;
  // Shard 1's b was accepted from shard 0 first.
  EXPECT_NE(r.out.find(path("shard1") + ": samples 3 (added 3, already here 0): 1 new unique "
                       "kernels, 1 accepted there but already here"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(6, count("SELECT count(*) FROM samples"));
  EXPECT_EQ(3, count("SELECT count(DISTINCT normalized_sha256) FROM samples WHERE status = 'accepted'"));
  EXPECT_EQ(3, count("SELECT count(*) FROM samples WHERE status = 'accepted'"));
  EXPECT_TRUE(fs::exists(dir_ / "dest" / "samples" / "m1" / "sha-c.cl"));

  auto again = run_clgen({"--workspace", path("dest"), "workspace", "merge", path("shard0"), path("shard1")});
  ASSERT_EQ(0, again.exit_code) << again.err;
  EXPECT_NE(again.out.find("0 samples added (6 already here), 0 new unique kernels"), std::string::npos)
      << again.out;
  EXPECT_EQ(6, count("SELECT count(*) FROM samples"));
  auto db = Database::open(path("dest") + "/clgen.db");
  ASSERT_TRUE(db.ok());
  auto check = db->prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.ok());
  ASSERT_TRUE(*check->step());
  EXPECT_EQ("ok", check->column_text(0));
}

TEST_F(WorkspaceMergeCli, SourceWithoutTablesFailsAndLeavesTheDestinationUnchanged) {
  ASSERT_EQ(0, run_clgen({"--workspace", path("dest"), "workspace", "merge", path("shard0")}).exit_code);
  fs::create_directories(dir_ / "empty");
  {
    auto db = Database::open(path("empty") + "/clgen.db");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("CREATE TABLE unrelated (x)").ok());
  }
  auto before = read_file(path("dest") + "/clgen.db");
  ASSERT_TRUE(before.ok());

  // shard1 comes first and is valid: it must not be merged either.
  auto r = run_clgen({"--workspace", path("dest"), "workspace", "merge", path("shard1"), path("empty")});
  EXPECT_EQ(1, r.exit_code) << r.err;
  EXPECT_EQ("clgen: error: " + path("empty") +
                " has neither a samples nor a runs table: nothing to merge (nothing was changed)\n",
            r.err);
  auto after = read_file(path("dest") + "/clgen.db");
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(*before == *after) << "the destination database changed";
  EXPECT_FALSE(fs::exists(path("dest") + "/clgen.db-wal") && fs::file_size(path("dest") + "/clgen.db-wal") > 0);
  EXPECT_EQ(3, count("SELECT count(*) FROM samples"));
}

TEST_F(WorkspaceMergeCli, MissingOrSelfSourcesAreRefused) {
  auto missing = run_clgen({"--workspace", path("dest"), "workspace", "merge", path("nowhere")});
  EXPECT_EQ(1, missing.exit_code) << missing.err;
  EXPECT_NE(missing.err.find("no such workspace directory"), std::string::npos) << missing.err;
  auto self = run_clgen({"--workspace", path("shard0"), "workspace", "merge", path("shard0")});
  EXPECT_EQ(2, self.exit_code) << self.err;
  EXPECT_NE(self.err.find("is the destination workspace itself"), std::string::npos) << self.err;
  auto none = run_clgen({"workspace", "merge"});
  EXPECT_EQ(2, none.exit_code) << none.err;
}

}  // namespace
}  // namespace clgen
