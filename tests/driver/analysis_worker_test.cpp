// The argument analysis under a time and memory budget (analysis_worker.h):
// macro bombs end as errors the drive records as outcomes, the worker is
// replaced, and signatures equal the in-process analysis's.
#include <chrono>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "driver/analysis_worker.h"
#include "driver/job.h"
#include "support/files.h"
#include "tests/driver/driver_test_util.h"

namespace clgen::driver {
namespace {

std::string fixture(const std::string& path) {
  auto text = read_file(std::string(CLGEN_TEST_DATA) + "/" + path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? *text : "";
}

TEST(AnalysisWorker, MacroBombEndsAsTimeoutAndTheNextSourceIsAnalysedByAFreshWorker) {
  // 2 s, 4 GiB: the bomb's memory grows too, but far slower than the clock.
  AnalysisWorker worker(AnalysisBudget{true, 2, 4096, ""});
  auto start = std::chrono::steady_clock::now();
  auto bomb = worker.analyze(fixture("budget/time_bomb.cl"));
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(bomb.ok());
  EXPECT_EQ(bomb.status().code(), ErrorCode::kTimeout);  // the drive records a timeout row
  EXPECT_NE(bomb.status().message().find("2 s time limit"), std::string::npos) << bomb.status().message();
  EXPECT_LT(took, 15.0);
  auto next = worker.analyze(fixture("driver/saxpy.cl"));
  ASSERT_TRUE(next.ok()) << next.status().message();
  ASSERT_EQ(next->size(), 1u);
  EXPECT_EQ((*next)[0].name, "saxpy");
  EXPECT_EQ(worker.started(), 2);
}

TEST(AnalysisWorker, ExponentialArgumentExpansionEndsAsACrashNamingTheMemoryLimit) {
  AnalysisWorker worker(AnalysisBudget{true, 120, 256, ""});
  auto bomb = worker.analyze(fixture("budget/memory_bomb.cl"));
  ASSERT_FALSE(bomb.ok());
  EXPECT_EQ(bomb.status().code(), ErrorCode::kInternal);  // the drive records a crash row
  EXPECT_NE(bomb.status().message().find("256 MiB memory limit"), std::string::npos) << bomb.status().message();
  auto next = worker.analyze(fixture("driver/saxpy.cl"));
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(worker.started(), 2);
}

TEST(AnalysisWorker, SignaturesAndErrorsEqualTheInProcessAnalysis) {
  AnalysisWorker worker;
  for (const char* name : {"args_mix.cl", "compile_error.cl", "front_end_crash.cl", "matmul_2d.cl", "struct_arg.cl",
                           "two_kernels.cl", "writes_constant.cl", "saxpy.cl"}) {
    const std::string source = fixture(std::string("driver/") + name);
    auto here = analyze_kernels(source);
    auto there = worker.analyze(source);
    ASSERT_EQ(there.status().code(), here.status().code()) << name << ": " << there.status().message();
    if (here.ok()) EXPECT_EQ(nlohmann::json(*there), nlohmann::json(*here)) << name;
    else EXPECT_EQ(there.status().message(), here.status().message()) << name;
  }
}

TEST(AnalysisWorker, WorkerThatCannotStartIsUnavailableNotAKernelsOutcome) {
  AnalysisBudget missing;
  missing.binary = "/nonexistent/clgen-analysis-worker";
  AnalysisWorker worker(missing);
  auto r = worker.analyze(fixture("driver/saxpy.cl"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(r.status().message().find("/nonexistent/clgen-analysis-worker"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace clgen::driver
