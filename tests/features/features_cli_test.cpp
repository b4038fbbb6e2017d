// End-to-end tests of `clgen features`: CSV rows for good files, a failing
// file reported without losing the others' rows, rows of code with errors flagged.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "features/ir_features.h"
#include "tests/cli/run_command.h"

namespace clgen::testing {
namespace {

TEST(FeaturesCli, WritesOneRowPerKernelAndReportsBadFiles) {
  auto dir = std::filesystem::temp_directory_path() / "clgen-features-cli";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "good.cl")
      << "__kernel void a(__global float* x) { x[get_global_id(0)] *= 2.0f; }\n"
         "__kernel void b(__global float* x, int n) { if (n > 1) x[n] = x[0] + 1.0f; }\n";
  std::ofstream(dir / "bad.cl") << "__kernel void c(";
  auto ok = run_clgen({"features", (dir / "good.cl").string()});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  // a: *= is not counted, the call index is not coalesced; b: n > 1, x[n], x[0], +.
  std::string good = (dir / "good.cl").string();
  // Each row: the AST features, then the LLVM-IR counts and densities.
  std::vector<std::string> lines;
  for (size_t start = 0; start < ok.out.size();) {
    size_t nl = ok.out.find('\n', start);
    lines.push_back(ok.out.substr(start, nl - start));
    start = nl + 1;
  }
  ASSERT_EQ(lines.size(), 3u) << ok.out;
  EXPECT_EQ(lines[0], "file,kernel,comp,rational,mem,localmem,coalesced,atomic," +
                          clgen::features::ir_features_csv_header() + ",sema_errors,first_error");
  // Both files compile: no flag, no error text.
  EXPECT_EQ(lines[1].substr(lines[1].size() - 3), ",0,") << lines[1];
  EXPECT_EQ(lines[2].substr(lines[2].size() - 3), ",0,") << lines[2];
  EXPECT_EQ(lines[1].rfind(good + ",a,0,0,1,0,0,0,", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind(good + ",b,1,1,2,0,2,0,", 0), 0u) << lines[2];
  EXPECT_EQ(lines[1].rfind(good + ",a,0,0,1,0,0,0,", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind(good + ",b,1,1,2,0,2,0,", 0), 0u) << lines[2];
  for (const auto& line : lines)
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), std::count(lines[0].begin(), lines[0].end(), ','));
  // a: call get_global_id, getelementptr, load, fmul, store, ret (the index
  // stays size_t: no conversion).
  EXPECT_NE(lines[1].find(",a,0,0,1,0,0,0,6,"), std::string::npos) << lines[1];
  auto mixed = run_clgen({"features", (dir / "bad.cl").string(), good, (dir / "missing.cl").string(),
                          "--out", (dir / "out.csv").string()});
  EXPECT_EQ(mixed.exit_code, 1);
  EXPECT_NE(mixed.err.find("bad.cl"), std::string::npos) << mixed.err;
  EXPECT_NE(mixed.err.find("missing.cl"), std::string::npos) << mixed.err;
  EXPECT_NE(mixed.err.find("2 of 3 files failed"), std::string::npos) << mixed.err;
  std::ifstream in(dir / "out.csv");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, ok.out);
}

std::vector<std::string> csv_lines(const std::string& out) {
  std::vector<std::string> lines;
  for (size_t start = 0; start < out.size();) {
    size_t nl = out.find('\n', start);
    lines.push_back(out.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(FeaturesCli, CodeWithASemaErrorIsCountedOnTheRecoveredAstAndFlagged) {
  auto dir = fresh_dir("clgen-features-sema");
  std::ofstream(dir / "sema.cl") << "__kernel void k(__global float* a) {\n"
                                    "  a[get_global_id(0)] = missing_scale * 2.0f;\n"
                                    "}\n";
  auto r = run_clgen({"features", (dir / "sema.cl").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = csv_lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  // mem 1 (a); the call index is not coalesced; the * survives in the
  // recovered AST or not, so only the columns that do not depend on it are fixed.
  EXPECT_EQ(lines[1].rfind((dir / "sema.cl").string() + ",k,", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find(",1,2:25: use of undeclared identifier 'missing_scale'"), std::string::npos) << lines[1];
  EXPECT_NE(r.err.find("recovered AST"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace clgen::testing
