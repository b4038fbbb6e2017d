// End-to-end tests of `clgen features`: CSV rows for good files, and a
// failing file reported without losing the others' rows.
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
                          clgen::features::ir_features_csv_header());
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

}  // namespace
}  // namespace clgen::testing
