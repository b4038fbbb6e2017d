// End-to-end tests of `clgen preprocess` and `clgen corpus preprocess`.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/sha256.h"
#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/common/temp_dir.h"
#include "tests/preprocess/golden.h"
#include "tests/preprocess/include_examples.h"

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

TEST(PreprocessCommand, KernelsPrintsOneTextPerKernel) {
  std::string two = testing::golden_dir("extract") + "/shared_helpers.cl";
  auto r = run_clgen({"preprocess", "--kernels", two});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("// " + two + ": first\n"), 0u) << r.out;
  EXPECT_NE(r.out.find("// " + two + ": second\n"), std::string::npos) << r.out;
  auto check = run_clgen({"preprocess", "--kernels", "--check", two});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("// " + two + ": second: ok ("), std::string::npos) << check.out;
}

// A file read from disk (preprocess FILE, the evaluation side of corpus
// decontaminate) is read as the importer stores it: a Latin-1 byte in a
// comment is Windows-1252 text, and the kernel compiles; the same byte in
// code is still refused.
TEST(PreprocessCommand, ReadsLatin1BytesInCommentsAsTheImporterDoes) {
  testing::TempDir dir;
  const std::string ok = dir / "comment.cl", bad = dir / "code.cl";
  ASSERT_TRUE(write_file_atomic(ok,
                                "// (c) 2013 G\xe9rard\n__kernel void k(__global float* a) {\n"
                                "  a[get_global_id(0)] *= 2.0f;\n}\n")
                  .ok());
  ASSERT_TRUE(
      write_file_atomic(bad, "__kernel void k\xe9(__global float* a) {\n  a[get_global_id(0)] *= 2.0f;\n}\n").ok());
  auto r = run_clgen({"preprocess", "--check", ok, bad});
  EXPECT_NE(r.out.find(ok + ": ok"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find(bad + ": rejected [invalid_utf8]"), std::string::npos) << r.out << r.err;
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
  EXPECT_NE(r.out.find("2 files processed now: 1 with accepted kernels, 1 discarded"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rejected/no_kernel"), std::string::npos) << r.out;
  auto again = run_clgen({"--workspace", ws, "corpus", "preprocess"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("0 files processed now"), std::string::npos) << again.out;
  std::filesystem::remove_all(ws);
}

// libclc unpacked under another prefix (as on the GPU machine) is found
// through CLGEN_LIBCLC_INCLUDE_DIR / CLGEN_LIBCLC_BITCODE: the prefix here
// links to the installed files.
TEST(PreprocessCommand, FindsLibclcUnderARelocatedPrefix) {
  namespace fs = std::filesystem;
  fs::path prefix = fs::temp_directory_path() / ("clgen-libclc-" + std::to_string(::getpid()));
  fs::remove_all(prefix);
  fs::create_directories(prefix / "usr/include");
  fs::create_directories(prefix / "usr/lib/clc");
  fs::path clc_h = fs::path(CLGEN_LIBCLC_INCLUDE_DIR_BUILT) / "clc";
  fs::path bitcode = CLGEN_LIBCLC_BITCODE_BUILT;
  if (!fs::exists(clc_h / "clc.h") || !fs::exists(bitcode)) GTEST_SKIP() << "libclc is not installed";
  fs::create_directory_symlink(clc_h, prefix / "usr/include/clc");
  fs::create_symlink(bitcode, prefix / "usr/lib/clc/nvptx64--nvidiacl.bc");
  std::string include = "CLGEN_LIBCLC_INCLUDE_DIR=" + (prefix / "usr/include").string();
  std::string bc = "CLGEN_LIBCLC_BITCODE=" + (prefix / "usr/lib/clc/nvptx64--nvidiacl.bc").string();

  auto ok = testing::run_command({"/usr/bin/env", include, bc, CLGEN_BINARY, "preprocess", "--check",
                                  "--header", "libclc", "--to-ptx", paper()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find(": ok "), std::string::npos) << ok.out;

  // Pointed elsewhere, the variables are what is read (and named).
  fs::path empty = prefix / "empty";
  fs::create_directories(empty);
  auto missing = testing::run_command({"/usr/bin/env", "CLGEN_LIBCLC_INCLUDE_DIR=" + empty.string(),
                                       "CLGEN_LIBCLC_BITCODE=" + (empty / "none.bc").string(), CLGEN_BINARY,
                                       "preprocess", "--check", "--header", "libclc", paper()});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE((missing.out + missing.err).find(empty.string() + "/clc"), std::string::npos)
      << missing.out << missing.err;
  auto no_bitcode = testing::run_command({"/usr/bin/env", "CLGEN_LIBCLC_BITCODE=" + (empty / "none.bc").string(),
                                          CLGEN_BINARY, "preprocess", "--check", "--to-ptx", paper()});
  EXPECT_NE(no_bitcode.exit_code, 0);
  EXPECT_NE((no_bitcode.out + no_bitcode.err).find(empty.string() + "/none.bc"), std::string::npos)
      << no_bitcode.out << no_bitcode.err;
  fs::remove_all(prefix);
}

TEST(PreprocessCommand, InlinesIncludesBesideTheFileAndFromIncludeDirsAndTakesDefines) {
  testing::TempDir dir;
  std::string k = testing::write_include_example(dir.path());
  auto r = run_clgen({"preprocess", k, "-I", dir / "inc", "-D", "EXTRA=77"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // FACTOR from inc/common.h through SCALE from beside.h; EXTRA from -D.
  EXPECT_NE(r.out.find("* 2.0f"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("< 77"), std::string::npos) << r.out;
  auto no_define = run_clgen({"preprocess", k, "-I", dir / "inc"});
  ASSERT_EQ(no_define.exit_code, 0) << no_define.out << no_define.err;
  EXPECT_EQ(no_define.out.find("77"), std::string::npos) << no_define.out;
  auto kernels = run_clgen({"preprocess", "--kernels", "--check", k, "-I", dir / "inc", "-D", "EXTRA"});
  EXPECT_EQ(kernels.exit_code, 0) << kernels.out << kernels.err;
  EXPECT_NE(kernels.out.find(": k: ok ("), std::string::npos) << kernels.out;
  // Without -I, common.h is not found.
  auto no_include = run_clgen({"preprocess", "--check", k});
  EXPECT_EQ(no_include.exit_code, 1);
  EXPECT_NE(no_include.out.find("rejected [include_not_found]"), std::string::npos) << no_include.out;
  EXPECT_NE(no_include.err.find("common.h"), std::string::npos) << no_include.err;
}

TEST(PreprocessCommand, DefinesKeepTheInputsLineNumbers) {
  testing::TempDir dir;
  std::ofstream(dir / "k.cl") << "__kernel void k(__global int* a) {\n"
                                 "  a[0] = UNDEFINED_NAME + N;\n"
                                 "}\n";
  auto r = run_clgen({"preprocess", "--check", "--no-infer", "--no-shim", dir / "k.cl", "-D", "N=1", "-D", "M"});
  EXPECT_EQ(r.exit_code, 1);
  // The error is on line 2 of the file, whatever the two #define lines in front of it.
  EXPECT_NE(r.out.find(":2:10: use of undeclared identifier 'UNDEFINED_NAME'"), std::string::npos) << r.out;
}

TEST(PreprocessCommand, NeverReadsAnIncludeFromOutsideTheIncludeRoots) {
  testing::TempDir dir;
  for (const std::string& file : testing::write_outside_roots_example(dir.path())) {
    // The file's directory is the only root: ../secret.h climbs out of it and
    // link.h leads out of it; neither is read.
    auto r = run_clgen({"preprocess", "--check", file});
    EXPECT_EQ(r.exit_code, 1) << file;
    EXPECT_NE(r.out.find("rejected [include_not_found]"), std::string::npos) << file << ": " << r.out;
    EXPECT_NE(r.err.find("outside the include roots"), std::string::npos) << file << ": " << r.err;
    // With the parent as an include root, both are read.
    auto with_root = run_clgen({"preprocess", "--check", file, "-I", dir.path()});
    EXPECT_EQ(with_root.exit_code, 0) << file << ": " << with_root.out << with_root.err;
  }
}

}  // namespace
}  // namespace clgen
