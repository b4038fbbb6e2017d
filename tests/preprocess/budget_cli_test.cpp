// End-to-end tests of the Clang budget: `clgen preprocess` and `clgen corpus
// preprocess` on macro bombs and an include of /dev/zero end with recorded
// rejections, go on to the next file, and exit as on any rejection.
#include <unistd.h>

#include <chrono>

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/common/temp_dir.h"

namespace clgen {
namespace {

using testing::run_clgen;

std::string fixture(const std::string& name) { return std::string(CLGEN_TEST_DATA) + "/budget/" + name; }

const std::string kGood = "__kernel void good(__global int* a) { a[get_global_id(0)] = 7; }\n";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// `clgen preprocess --check` of the bomb `bomb` and then a good file, under
// the limits: the bomb's line starts with `verdict`, the good file is still
// processed, the exit is that of any rejection, and it ends within `seconds`.
void expect_rejected_then_next_processed(const std::string& bomb, const std::string& time_limit,
                                         const std::string& memory_limit, const std::string& verdict, double seconds) {
  testing::TempDir dir;
  ASSERT_TRUE(write_file_atomic(dir / "good.cl", kGood).ok());
  auto start = std::chrono::steady_clock::now();
  auto r = run_clgen({"preprocess", "--check", "--clang-time-limit", time_limit, "--clang-memory-limit", memory_limit,
                      fixture(bomb), dir / "good.cl"});
  EXPECT_LT(seconds_since(start), seconds);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find(fixture(bomb) + ": " + verdict), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(dir / "good.cl" + ": ok (kernels: A;"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "clgen: error: 1 of 2 files rejected\n");
}

// Each bomb runs with a generous other limit, so that the limit named ends it
// (the time bomb's memory grows too, at about 150 MiB/s here).
TEST(PreprocessBudgetCommand, MacroBombIsRejectedAsTimeLimitAndTheFileAfterItIsProcessed) {
  // 2 s and two worker starts.
  expect_rejected_then_next_processed("time_bomb.cl", "2", "4096",
                                      "rejected [time_limit] Clang did not finish within the 2 s", 20);
}

TEST(PreprocessBudgetCommand, MacroBombIsRejectedAsMemoryLimitAndTheFileAfterItIsProcessed) {
  // The memory limit ends it, not the clock.
  expect_rejected_then_next_processed("memory_bomb.cl", "120", "256",
                                      "rejected [memory_limit] Clang exceeded the 256 MiB", 60);
}

TEST(PreprocessBudgetCommand, IncludeOfAHeaderThatLinksToDevZeroIsNeverRead) {
  // The include reader takes regular files only, and Clang's file system is
  // in memory: the include stays unresolved and the file is rejected for it.
  testing::TempDir dir;
  ASSERT_EQ(::symlink("/dev/zero", (dir / "zero.h").c_str()), 0);
  ASSERT_TRUE(write_file_atomic(dir / "k.cl", "#include \"zero.h\"\n" + kGood).ok());
  auto start = std::chrono::steady_clock::now();
  auto r = run_clgen({"preprocess", "--check", "--clang-time-limit", "5", dir / "k.cl", fixture("dev_zero.cl")});
  EXPECT_LT(seconds_since(start), 10.0);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find(dir / "k.cl" + ": rejected [include_not_found] input.cl:1:10: 'zero.h' file not found"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(fixture("dev_zero.cl") + ": rejected [include_not_found]"), std::string::npos) << r.out;
}

TEST(PreprocessBudgetCommand, BudgetValuesOutOfRangeAreUsageErrors) {
  auto zero = run_clgen({"preprocess", "--clang-time-limit", "0", fixture("dev_zero.cl")});
  EXPECT_EQ(zero.exit_code, 2) << zero.err;
  auto tiny = run_clgen({"preprocess", "--clang-memory-limit", "1", fixture("dev_zero.cl")});
  EXPECT_EQ(tiny.exit_code, 2) << tiny.err;
}

TEST(CorpusPreprocessBudgetCommand, BombsInTheCorpusAreStoredAsRejectionsAndTheRunExitsZero) {
  testing::TempDir src, ws;
  for (const char* name : {"time_bomb.cl", "dev_zero.cl"}) {
    auto text = read_file(fixture(name));
    ASSERT_TRUE(text.ok());
    ASSERT_TRUE(write_file_atomic(src / name, *text).ok());
  }
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(write_file_atomic(src / ("good" + std::to_string(i) + ".cl"),
                                  "__kernel void g" + std::to_string(i) +
                                      "(__global int* a) { a[get_global_id(0)] = " + std::to_string(i + 3) + "; }\n")
                    .ok());
  auto added = run_clgen({"--workspace", ws.path(), "corpus", "add", src.path()});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  auto r = run_clgen({"--workspace", ws.path(), "corpus", "preprocess", "-j", "1", "--clang-time-limit", "2",
                      "--clang-memory-limit", "4096"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("6 files processed now: 4 with accepted kernels, 2 discarded"), std::string::npos) << r.out;
  // The memory bomb arrives later; the next run handles only it.
  testing::TempDir more;
  auto bomb = read_file(fixture("memory_bomb.cl"));
  ASSERT_TRUE(bomb.ok());
  ASSERT_TRUE(write_file_atomic(more / "memory_bomb.cl", *bomb).ok());
  ASSERT_EQ(run_clgen({"--workspace", ws.path(), "corpus", "add", more.path()}).exit_code, 0);
  auto again = run_clgen({"--workspace", ws.path(), "corpus", "preprocess", "-j", "1", "--clang-memory-limit", "256"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("1 files processed now: 0 with accepted kernels, 1 discarded"), std::string::npos)
      << again.out;
  auto db = Database::open(ws / "clgen.db");
  ASSERT_TRUE(db.ok());
  auto st = db->prepare("SELECT category, COUNT(*) FROM preprocessed WHERE status = 'rejected' GROUP BY category");
  ASSERT_TRUE(st.ok());
  std::map<std::string, int64_t> rejected;
  while (*st->step()) rejected[st->column_text(0)] = st->column_int(1);
  EXPECT_EQ(rejected,
            (std::map<std::string, int64_t>{{"include_not_found", 1}, {"memory_limit", 1}, {"time_limit", 1}}));
}

}  // namespace
}  // namespace clgen
