// End-to-end tests of `clgen features`: CSV rows for good files, a failing
// file reported without losing the others' rows, rows of code with errors
// flagged, -I/-D and includes beside the file (never outside the roots).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "features/ir_features.h"
#include "tests/cli/run_command.h"
#include "tests/common/temp_dir.h"
#include "tests/preprocess/include_examples.h"

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

TEST(FeaturesCli, CodeWithASemaErrorIsCountedOnTheRecoveredAstAndFlagged) {
  TempDir dir;
  std::ofstream(dir / "sema.cl") << "__kernel void k(__global float* a) {\n"
                                    "  a[get_global_id(0)] = missing_scale * 2.0f;\n"
                                    "}\n";
  auto r = run_clgen({"features", dir / "sema.cl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = csv_lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  // What the broken statement contributes depends on what Clang keeps of it,
  // so only the flag and the first error are fixed here (the counts on a
  // recovered AST: static_features_test.cpp).
  EXPECT_EQ(lines[1].rfind(dir / "sema.cl" + ",k,", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find(",1,2:25: use of undeclared identifier 'missing_scale'"), std::string::npos) << lines[1];
  EXPECT_NE(r.err.find("recovered AST"), std::string::npos) << r.err;
}

TEST(FeaturesCli, ReadsIncludesBesideTheFileAndFromIncludeDirsAndTakesDefines) {
  TempDir dir;
  std::string k = write_include_example(dir.path());
  auto r = run_clgen({"features", k, "-I", dir / "inc", "-D", "EXTRA=4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = csv_lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  // a[i] = ((a[i]) * 2.0f): comp 1, mem 2, coalesced 2; with EXTRA: i < 4
  // (rational 1) and a[0] (mem 1, coalesced 1). No error: sema_errors 0.
  EXPECT_EQ(lines[1].rfind(k + ",k,1,1,3,0,3,0,", 0), 0u) << lines[1];
  EXPECT_EQ(lines[1].substr(lines[1].size() - 3), ",0,") << lines[1];
  // Without -D the #ifdef block is out: comp 1, mem 2, coalesced 2.
  auto no_define = run_clgen({"features", k, "-I", dir / "inc"});
  ASSERT_EQ(no_define.exit_code, 0) << no_define.err;
  EXPECT_EQ(csv_lines(no_define.out).at(1).rfind(k + ",k,1,0,2,0,2,0,", 0), 0u) << no_define.out;
  // Without -I, common.h is not found: flagged, and named on stderr.
  auto no_include = run_clgen({"features", k, "-D", "EXTRA"});
  EXPECT_NE(no_include.out.find(",1,2:10: 'common.h' file not found"), std::string::npos) << no_include.out;
  EXPECT_NE(no_include.err.find("common.h"), std::string::npos) << no_include.err;
  // A malformed define is an error naming it.
  auto bad = run_clgen({"features", k, "-D", "1X=2"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("-D 1X=2"), std::string::npos) << bad.err;
}

TEST(FeaturesCli, NeverReadsAnIncludeFromOutsideTheIncludeRoots) {
  TempDir dir;
  for (const std::string& file : write_outside_roots_example(dir.path())) {
    // The file's directory is the only root: ../secret.h climbs out of it and
    // link.h leads out of it; neither is read, and SECRET stays undeclared.
    auto r = run_clgen({"features", file});
    auto lines = csv_lines(r.out);
    ASSERT_EQ(lines.size(), 2u) << file << ": " << r.out << r.err;
    EXPECT_NE(lines[1].find(",1,1:10: '"), std::string::npos) << lines[1];
    EXPECT_NE(lines[1].find("' file not found"), std::string::npos) << lines[1];
    EXPECT_NE(r.err.find("outside the include roots"), std::string::npos) << r.err;
    // With the parent as an include root, both are read.
    auto with_root = run_clgen({"features", file, "-I", dir.path()});
    ASSERT_EQ(with_root.exit_code, 0) << with_root.err;
    EXPECT_EQ(csv_lines(with_root.out).at(1).substr(csv_lines(with_root.out).at(1).size() - 3), ",0,") << with_root.out;
  }
}

TEST(FeaturesCli, CountsByTheReferenceRulesByDefaultAndByClgensWithGreweClgen) {
  TempDir dir;
  std::ofstream(dir / "ref.cl") << "void put(__global float* p, int i) { p[i] = 0.0f; }\n"
                                   "__kernel void k(__global float* a, int n) {\n"
                                   "  __global float* q = a + n;\n"
                                   "  q[0] = 1.0f;\n"
                                   "  put(a, n);\n"
                                   "}\n";
  const std::string file = dir / "ref.cl";
  auto ref = run_clgen({"features", "--grewe-reference", file});
  ASSERT_EQ(ref.exit_code, 0) << ref.err;
  auto lines = csv_lines(ref.out);
  ASSERT_EQ(lines.size(), 3u) << ref.out;
  // put has a __global parameter: a row (p[i]: mem 1, coalesced 1). k: a + n
  // (comp 1, mem 1); q[0] coalesced (q's type spells __global); put(a, n)
  // mem 1 plus put's mem 1 and coalesced 1: comp 1, mem 3, coalesced 2.
  EXPECT_EQ(lines[1].rfind(file + ",put,0,0,1,0,1,0,", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind(file + ",k,1,0,3,0,2,0,", 0), 0u) << lines[2];
  // The reference definitions are the default.
  auto plain = run_clgen({"features", file});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, ref.out);
  // clgen's definitions: one row per __kernel; q is no parameter, so q[0] is
  // not coalesced: coalesced 1 (put's p[i]).
  auto own = run_clgen({"features", "--grewe-clgen", file});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  auto own_lines = csv_lines(own.out);
  ASSERT_EQ(own_lines.size(), 2u) << own.out;
  EXPECT_EQ(own_lines[1].rfind(file + ",k,1,0,3,0,1,0,", 0), 0u) << own_lines[1];
  // Both at once is a usage error; --help shows both.
  auto both = run_clgen({"features", "--grewe-reference", "--grewe-clgen", file});
  EXPECT_EQ(both.exit_code, 2) << both.err;
  auto help = run_clgen({"features", "--help"});
  EXPECT_NE(help.out.find("--grewe-reference"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--grewe-clgen"), std::string::npos) << help.out;
}

TEST(FeaturesCli, AFileWithHelpersGivesEachKernelTheCountsOfTheHelpersItCalls) {
  TempDir dir;
  std::ofstream(dir / "bench.cl") << R"(float scale(float x) { return x * 2.0f; }
void put(__global float* p, __local float* t, int i) { t[i] = p[i + 1]; }
__kernel void first(__global float* a, __local float* t) {
  int i = get_global_id(0);
  a[i] = scale(a[i]);
  put(a, t, i);
}
__kernel void second(__global float* b, int n) {
  if (n > 0) b[n] = scale(b[0]) + scale(b[1]);
}
)";
  const std::string file = dir / "bench.cl";
  auto r = run_clgen({"features", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = csv_lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  // scale: comp 1, no row (no __global parameter). put, a row: i + 1 (comp 1),
  // t and p (mem 2), t[i] (localmem 1), p[i + 1] (coalesced 1).
  EXPECT_EQ(lines[1].rfind(file + ",put,1,0,2,1,1,0,", 0), 0u) << lines[1];
  // first: a[i] = scale(a[i]): mem 2, coalesced 2, scale's comp 1; put(a, t, i):
  // mem 2 (a, t) and put's 1/0/2/1/1/0. comp 2, mem 6, localmem 1, coalesced 3.
  EXPECT_EQ(lines[2].rfind(file + ",first,2,0,6,1,3,0,", 0), 0u) << lines[2];
  // second: n > 0 (rational 1); b[n], b[0], b[1] (mem 3, coalesced 3); the +
  // and scale's comp twice: comp 3.
  EXPECT_EQ(lines[3].rfind(file + ",second,3,1,3,0,3,0,", 0), 0u) << lines[3];
}

}  // namespace
}  // namespace clgen::testing
