// `clgen corpus preprocess` killed with SIGKILL at seeded moments, then run
// again: the preprocessed table ends as an uninterrupted run leaves it (the
// fast subset of scripts/kill-harness.sh preprocess).
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/corpus/test_util.h"

namespace clgen::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> rows(const std::string& db_path, const std::string& sql) {
  std::vector<std::string> out;
  auto db = Database::open(db_path);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return out;
  auto q = db->prepare(sql);
  EXPECT_TRUE(q.ok()) << q.status().message();
  if (!q.ok()) return out;
  while (*q->step()) out.push_back(q->column_text(0));
  return out;
}

// Every column but timings: the rows an uninterrupted run stores, sorted.
std::vector<std::string> preprocessed_rows(const std::string& ws) {
  return rows(ws + "/clgen.db",
              "SELECT content_sha256 || '|' || preprocessor_version || '|' || status || '|' || "
              "COALESCE(category, '') || '|' || COALESCE(reason, '') || '|' || COALESCE(normalized_text, '') || "
              "'|' || COALESCE(normalized_sha256, '') || '|' || COALESCE(instruction_count, '') "
              "FROM preprocessed ORDER BY 1");
}

std::vector<std::string> preprocess_args(const std::string& ws) {
  return {"--workspace", ws, "-q", "corpus", "preprocess", "--batch", "8", "-j", "2"};
}

TEST(PreprocessKill, KilledAtThreeSeededMomentsThenRerunEqualsAnUninterruptedRun) {
  TempDir tmp;
  // Distinct kernels (no Clang crash inputs: see docs/BENCHMARKS.md, "Kill harness").
  for (int i = 0; i < 300; ++i)
    write_text(tmp / ("src/d" + std::to_string(i % 7) + "/k" + std::to_string(i) + ".cl"),
               "kernel void K" + std::to_string(i) + "(global float* a, const int n) {\n  int i = get_global_id(0);\n" +
                   "  if (i < n) a[i] = a[i] * " + std::to_string(i) + ".0f + " + std::to_string(i % 5) + ";\n}\n");
  std::string base = tmp / "base";
  ASSERT_EQ(run_clgen({"--workspace", base, "-q", "corpus", "add", tmp / "src"}).exit_code, 0);
  auto copy_of_base = [&](const std::string& name) {
    std::string ws = tmp / name;
    fs::copy(base, ws, fs::copy_options::recursive);
    return ws;
  };

  std::string reference = copy_of_base("reference");
  auto started = std::chrono::steady_clock::now();
  CommandResult r = run_clgen(preprocess_args(reference));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto expected = preprocessed_rows(reference);
  ASSERT_EQ(expected.size(), 300u);

  // One seeded moment in each third of the reference's duration.
  std::mt19937 rng(20);
  std::uniform_real_distribution<double> within(0.0, 1.0);
  for (int trial = 0; trial < 3; ++trial) {
    double at = (trial + 0.1 + 0.8 * within(rng)) / 3 * seconds;
    std::string ws = copy_of_base("trial" + std::to_string(trial));
    std::vector<std::string> argv = {CLGEN_BINARY};
    for (const auto& a : preprocess_args(ws)) argv.push_back(a);
    pid_t pid = spawn(argv, tmp / ("trial" + std::to_string(trial) + ".log"));
    std::this_thread::sleep_for(std::chrono::duration<double>(at));
    kill_and_wait(pid, SIGKILL);
    std::printf("trial %d: killed at %.2f s of %.2f s\n", trial, at, seconds);
    CommandResult again = run_clgen(preprocess_args(ws));
    ASSERT_EQ(again.exit_code, 0) << "trial " << trial << " (killed at " << at << " s): " << again.err;
    EXPECT_EQ(preprocessed_rows(ws), expected) << "trial " << trial << ", killed at " << at << " s";
    EXPECT_EQ(rows(ws + "/clgen.db", "PRAGMA integrity_check"), std::vector<std::string>{"ok"});
  }
}

}  // namespace
}  // namespace clgen::testing
