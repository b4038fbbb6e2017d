// Tests of merging another workspace's driver runs (driver/runs_merge.h).
#include "driver/runs_merge.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "driver/runs.h"
#include "support/files.h"

namespace clgen::driver {
namespace {

namespace fs = std::filesystem;

RunRecord run(const std::string& sha, const std::string& device) {
  RunRecord r;
  r.key.kernel_sha256 = sha;
  r.key.kernel_name = "A";
  r.key.platform = "Portable Computing Language";
  r.key.device = device;
  r.key.global_size = "1024";
  r.origin = "samples";
  r.result.outcome = Outcome::kPass;
  r.result.local_size = {32};
  r.result.transfer_ns = {10, 12};
  r.result.kernel_ns = {5, 6};
  r.result.scalar_value = 1;
  return r;
}

int64_t count(Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  EXPECT_TRUE(st.ok()) << st.status().message();
  auto row = st->step();
  EXPECT_TRUE(row.ok() && *row);
  return st->column_int(0);
}

TEST(RunsMerge, CopiesRunsNotYetStoredAndASecondMergeAddsNothing) {
  fs::path dir = fs::temp_directory_path() / ("clgen_runs_merge_" + std::to_string(::getpid()));
  (void)remove_tree(dir.string());
  fs::create_directories(dir);
  {
    auto src = Database::open((dir / "src.db").string());
    ASSERT_TRUE(src.ok());
    ASSERT_TRUE(ensure_driver_schema(*src).ok());
    // k1 on the CPU is also in the destination; k1 on the GPU and k2 are new.
    for (const RunRecord& r : {run("k1", "cpu"), run("k1", "gpu"), run("k2", "cpu")})
      ASSERT_TRUE(insert_run(*src, r).ok());
    ASSERT_TRUE(store_kernel_source(*src, "k1", "kernel one", "samples").ok());
    ASSERT_TRUE(store_kernel_source(*src, "k2", "kernel two", "samples").ok());
  }
  auto dest = Database::open((dir / "dest.db").string());
  ASSERT_TRUE(dest.ok());
  ASSERT_TRUE(ensure_driver_schema(*dest).ok());
  ASSERT_TRUE(insert_run(*dest, run("k1", "cpu")).ok());
  ASSERT_TRUE(store_kernel_source(*dest, "k1", "kernel one", "samples").ok());

  ASSERT_TRUE(dest->exec("ATTACH DATABASE '" + (dir / "src.db").string() + "' AS src").ok());
  auto first = merge_runs(*dest, "src");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(3u, first->source_runs);
  EXPECT_EQ(2u, first->added_runs);
  EXPECT_EQ(1u, first->added_sources);
  auto second = merge_runs(*dest, "src");
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(0u, second->added_runs);
  EXPECT_EQ(0u, second->added_sources);
  ASSERT_TRUE(dest->exec("DETACH DATABASE src").ok());

  EXPECT_EQ(3, count(*dest, "SELECT count(*) FROM runs"));
  EXPECT_EQ(2, count(*dest, "SELECT count(*) FROM kernel_sources"));
  // The copied run keeps its measurements.
  auto stored = find_run(*dest, run("k2", "cpu").key);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((std::vector<uint64_t>{5, 6}), (*stored)->result.kernel_ns);
  EXPECT_EQ(1u, (*stored)->result.scalar_value);      // the payload it ran with
  dest = Database::open((dir / "dest.db").string());  // close before removing
  (void)remove_tree(dir.string());
}

TEST(RunsMerge, SourceWithoutRunsAddsNothing) {
  auto dest = Database::open(":memory:");
  ASSERT_TRUE(dest.ok());
  ASSERT_TRUE(ensure_driver_schema(*dest).ok());
  ASSERT_TRUE(dest->exec("ATTACH DATABASE ':memory:' AS src").ok());
  auto c = merge_runs(*dest, "src");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(0u, c->source_runs);
  EXPECT_EQ(0u, c->added_runs);
}

}  // namespace
}  // namespace clgen::driver
