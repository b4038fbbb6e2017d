// End-to-end tests of `clgen preprocess` and `clgen corpus preprocess`.
#include <filesystem>

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/sha256.h"
#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/preprocess/golden.h"

namespace clgen {
namespace {

using testing::run_clgen;

std::string paper() { return testing::golden_dir("pipeline") + "/paper_example.cl"; }

TEST(PreprocessCommand, PrintsTheNormalizedText) {
  auto r = run_clgen({"preprocess", paper()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, testing::read_or_empty(testing::golden_dir("pipeline") + "/paper_example.expected.cl"));
}

TEST(PreprocessCommand, CheckPrintsVerdictsAndFailsOnRejection) {
  std::string bad = testing::golden_dir("reject") + "/no_kernel.cl";
  auto r = run_clgen({"preprocess", "--check", paper(), bad});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find(paper() + ": ok (kernels: B;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(bad + ": rejected [no_kernel]"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("1 of 2 files rejected"), std::string::npos) << r.err;
}

TEST(PreprocessCommand, MissingFileIsAUsageError) {
  auto r = run_clgen({"preprocess", "/nonexistent/file.cl"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(CorpusPreprocessCommand, FillsThePreprocessedTableAndResumes) {
  std::string ws = (std::filesystem::temp_directory_path() /
                    ("clgen-pp-" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(ws);
  std::filesystem::create_directories(ws);
  {
    auto db = Database::open(ws + "/clgen.db");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("CREATE TABLE content_files (sha256 TEXT PRIMARY KEY, text TEXT NOT NULL, size INTEGER)").ok());
    for (std::string t : {std::string("__kernel void k(__global int* a) { a[get_global_id(0)] = 1; }\n"),
                          std::string("int f(int x) { return x; }\n")}) {
      auto st = db->prepare("INSERT INTO content_files VALUES (?, ?, ?)");
      ASSERT_TRUE(st.ok());
      ASSERT_TRUE(st->bind(1, sha256_hex(t)).ok());
      ASSERT_TRUE(st->bind(2, t).ok());
      ASSERT_TRUE(st->bind(3, static_cast<int64_t>(t.size())).ok());
      ASSERT_TRUE(st->run().ok());
    }
  }
  auto r = run_clgen({"--workspace", ws, "corpus", "preprocess"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 files processed now (ok 1, rejected 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rejected/no_kernel"), std::string::npos) << r.out;
  auto again = run_clgen({"--workspace", ws, "corpus", "preprocess"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("0 files processed now"), std::string::npos) << again.out;
  std::filesystem::remove_all(ws);
}

}  // namespace
}  // namespace clgen
