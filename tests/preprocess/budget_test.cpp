// Tests of the preprocessor's time and memory budget (budget.h): Clang in
// worker processes, limits breached as rejections, workers replaced, and the
// same verdicts as in-process on ordinary input.
#include <chrono>

#include <gtest/gtest.h>

#include "corpus/preprocess/budget.h"
#include "corpus/preprocess/store.h"
#include "support/files.h"
#include "support/sha256.h"
#include "tests/preprocess/corpus_db.h"
#include "tests/preprocess/golden.h"

namespace clgen::preprocess {
namespace {

std::string fixture(const std::string& name) {
  auto text = read_file(std::string(CLGEN_TEST_DATA) + "/budget/" + name);
  EXPECT_TRUE(text.ok()) << name;
  return text.ok() ? *text : "";
}

const std::string kSaxpy =
    "__kernel void saxpy(__global float* x, __global float* y, float a) {\n"
    "  int i = get_global_id(0);\n  y[i] = a * x[i] + y[i];\n}\n";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ClangBudget budget(double time_limit_s, uint64_t memory_limit_mb) {
  ClangBudget b;
  b.time_limit_s = time_limit_s;
  b.memory_limit_mb = memory_limit_mb;
  return b;
}

TEST(ClangBudget, MacroBombEndsAsTimeLimitRejectionAndTheNextFileGetsAFreshWorker) {
  ClangWorkers workers(budget(2, 4096), 1);
  auto start = std::chrono::steady_clock::now();
  auto bomb = workers.rewrite_kernels(fixture("time_bomb.cl"), {});
  double took = seconds_since(start);
  ASSERT_TRUE(bomb.ok()) << bomb.status().message();
  EXPECT_EQ(bomb->status, RewriteStatus::kRejected);
  EXPECT_EQ(bomb->category, category::kTimeLimit);
  EXPECT_NE(bomb->reason.find("2 s time limit"), std::string::npos) << bomb->reason;
  // The limit plus a worker's start (a probe compile): never the hours the bomb needs.
  EXPECT_LT(took, 15.0);
  auto next = workers.rewrite_kernels(kSaxpy, {});
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next->status, RewriteStatus::kOk) << next->reason;
  EXPECT_EQ(workers.started(), 2);  // the bomb's worker was killed and replaced
}

TEST(ClangBudget, ExponentialArgumentExpansionEndsAsMemoryLimitRejection) {
  ClangWorkers workers(budget(120, 256), 1);
  auto start = std::chrono::steady_clock::now();
  auto bomb = workers.rewrite(fixture("memory_bomb.cl"), {});
  double took = seconds_since(start);
  ASSERT_TRUE(bomb.ok()) << bomb.status().message();
  EXPECT_EQ(bomb->status, RewriteStatus::kRejected);
  EXPECT_EQ(bomb->category, category::kMemoryLimit) << bomb->reason;
  EXPECT_NE(bomb->reason.find("256 MiB memory limit"), std::string::npos) << bomb->reason;
  EXPECT_LT(took, 60.0);  // the memory limit, not the 120 s clock, ended it
  auto next = workers.rewrite(kSaxpy, {});
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next->status, RewriteStatus::kOk) << next->reason;
  EXPECT_EQ(workers.started(), 2);
}

TEST(ClangBudget, IncludeOfDevZeroIsIncludeNotFoundNotARead) {
  // Clang's file system in the worker is in memory: /dev/zero is never opened.
  ClangWorkers workers(budget(10, 2048), 1);
  auto r = workers.rewrite_kernels(fixture("dev_zero.cl"), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, RewriteStatus::kRejected);
  EXPECT_EQ(r->category, category::kIncludeNotFound) << r->reason;
  EXPECT_NE(r->reason.find("'/dev/zero' file not found"), std::string::npos) << r->reason;
}

TEST(ClangBudget, VerdictsAndTextsInAWorkerEqualThoseInProcess) {
  // Every golden input of the rewriter, and text that is not UTF-8 (sent as
  // raw bytes, so the worker rejects it exactly as this process does). Not
  // the input that crashes Clang: after a recovered crash, this process's
  // later verdicts differ (too_few_instructions.cl became rewrite_bug
  // "recompile" here), which is why a worker is replaced after one.
  std::vector<std::string> inputs = {kSaxpy, "__kernel void k(__global int* a) { a[0] = \xff; }\n",
                                     "int no_kernel(int x) { return x; }\n"};
  for (const std::string& sub : {"pipeline", "reject", "extract"})
    for (const std::string& path : testing::golden_inputs(sub))
      if (path.find("clang_crash") == std::string::npos) inputs.push_back(testing::read_or_empty(path));
  ClangWorkers workers(ClangBudget{}, 2);
  for (const std::string& text : inputs) {
    FileRewriteResult here = rewrite_kernels(text);
    auto there = workers.rewrite_kernels(text, {});
    ASSERT_TRUE(there.ok()) << there.status().message();
    EXPECT_EQ(there->status, here.status) << text;
    EXPECT_EQ(there->category, here.category) << text;
    EXPECT_EQ(there->reason, here.reason) << text;
    EXPECT_EQ(there->inferred, here.inferred) << text;
    EXPECT_EQ(there->opencl20, here.opencl20) << text;
    ASSERT_EQ(there->kernels.size(), here.kernels.size()) << text;
    for (size_t i = 0; i < here.kernels.size(); ++i) {
      EXPECT_EQ(there->kernels[i].status, here.kernels[i].status) << text;
      EXPECT_EQ(there->kernels[i].category, here.kernels[i].category) << text;
      EXPECT_EQ(there->kernels[i].text, here.kernels[i].text) << text;
      EXPECT_EQ(there->kernels[i].kernels, here.kernels[i].kernels) << text;
      EXPECT_EQ(there->kernels[i].instruction_count, here.kernels[i].instruction_count) << text;
      EXPECT_EQ(there->kernels[i].kernel_name, here.kernels[i].kernel_name) << text;
    }
    RewriteResult whole_here = rewrite(text);
    auto whole_there = workers.rewrite(text, {});
    ASSERT_TRUE(whole_there.ok()) << whole_there.status().message();
    EXPECT_EQ(whole_there->status, whole_here.status) << text;
    EXPECT_EQ(whole_there->category, whole_here.category) << text;
    EXPECT_EQ(whole_there->text, whole_here.text) << text;
  }
}

TEST(ClangBudget, ClangCrashIsAVerdictAndTheWorkerIsReplaced) {
  ClangWorkers workers(ClangBudget{}, 1);
  auto crash = workers.rewrite_kernels("#pragma clang __debug crash\n__kernel void k(__global int* a) {}\n", {});
  ASSERT_TRUE(crash.ok()) << crash.status().message();
  EXPECT_EQ(crash->category, category::kClangCrash) << crash->reason;
  auto next = workers.rewrite_kernels(kSaxpy, {});
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next->status, RewriteStatus::kOk) << next->reason;
  EXPECT_EQ(workers.started(), 2);  // a recovered crash may leave Clang's state behind: a fresh worker
}

TEST(ClangBudget, WorkerThatCannotStartIsAnErrorNotAVerdict) {
  ClangBudget missing;
  missing.worker_binary = "/nonexistent/clgen-clang-worker";
  ClangWorkers none(missing, 1);
  auto r = none.rewrite_kernels(kSaxpy, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(r.status().message().find("/nonexistent/clgen-clang-worker"), std::string::npos) << r.status().message();
  // Too little memory to compile even the probe kernel: said so, at start.
  ClangWorkers starved(budget(10, 8), 1);
  auto s = starved.rewrite_kernels(kSaxpy, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(s.status().message().find("8 MiB is too low"), std::string::npos) << s.status().message();
}

TEST(ClangBudget, InProcessBudgetRunsClangHereWithoutWorkers) {
  ClangBudget here;
  here.isolated = false;
  ClangWorkers workers(here, 1);
  auto r = workers.rewrite_kernels(kSaxpy, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, RewriteStatus::kOk);
  EXPECT_EQ(workers.started(), 0);
}

using testing::corpus_db;

TEST(CorpusPreprocessBudget, BombsAreRecordedRejectionsAndLaterFilesStillProcessed) {
  const std::string time_bomb = fixture("time_bomb.cl"), memory_bomb = fixture("memory_bomb.cl");
  std::vector<std::string> good;
  for (int i = 0; i < 6; ++i)
    good.push_back("__kernel void k" + std::to_string(i) +
                   "(__global int* a) { a[get_global_id(0)] = " + std::to_string(i + 2) + "; }\n");
  // Files run in sha256 order: the one worker meets a good file after the bomb.
  bool good_after = false;
  for (const std::string& g : good) good_after = good_after || sha256_hex(g) > sha256_hex(time_bomb);
  ASSERT_TRUE(good_after);
  std::vector<std::string> texts = good;
  texts.push_back(time_bomb);
  texts.push_back(fixture("dev_zero.cl"));
  Database db = corpus_db(texts);
  CorpusPreprocessOptions o;
  o.threads = 1;
  o.progress = false;
  o.budget = budget(2, 4096);  // the time bomb's memory grows too, but far slower
  auto stats = preprocess_corpus(db, o);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->processed, 8u);
  EXPECT_EQ(stats->files_ok, 6u);
  EXPECT_EQ(stats->files_by_category["rejected/time_limit"], 1u);
  EXPECT_EQ(stats->files_by_category["rejected/include_not_found"], 1u);

  // A memory bomb added later, under a memory limit: only it is processed.
  testing::add_content(db, memory_bomb);
  o.budget = budget(120, 256);
  auto again = preprocess_corpus(db, o);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->processed, 1u);
  EXPECT_EQ(again->files_by_category["rejected/memory_limit"], 1u);

  auto row = db.prepare("SELECT category FROM preprocessed WHERE content_sha256 = ?");
  ASSERT_TRUE(row.ok());
  for (const auto& [text, category] :
       std::vector<std::pair<std::string, std::string>>{{time_bomb, "time_limit"}, {memory_bomb, "memory_limit"}}) {
    row->reset();
    ASSERT_TRUE(row->bind(1, sha256_hex(text)).ok());
    ASSERT_TRUE(*row->step());
    EXPECT_EQ(row->column_text(0), category);
  }
}

}  // namespace
}  // namespace clgen::preprocess
