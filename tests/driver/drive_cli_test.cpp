// `clgen drive` end to end: runs stored in the workspace database, CSV
// output, resuming without duplicates (also after SIGKILL of the parent),
// --samples / --corpus inputs, sweeps and usage errors.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "driver/runs.h"
#include "support/files.h"
#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/driver/driver_test_util.h"

namespace clgen::driver {
namespace {

namespace fs = std::filesystem;
using clgen::testing::run_clgen;
using testing::kernel_path;

class DriveCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::test_device())
      GTEST_SKIP() << "no OpenCL device matches '" << testing::device_spec() << "'";
    ws_ = fs::temp_directory_path() /
          ("clgen-drive-test-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(ws_);
    fs::create_directories(ws_);
  }
  void TearDown() override {
    if (!ws_.empty()) fs::remove_all(ws_);
  }
  std::vector<std::string> drive_args(std::vector<std::string> extra) {
    std::vector<std::string> args = {"--workspace", ws_.string(), "drive", "--device",
                                     testing::device_spec(), "--runs", "3"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  Database db() {
    auto d = Database::open((ws_ / "clgen.db").string());
    EXPECT_TRUE(d.ok()) << d.status().message();
    return std::move(*d);
  }
  int64_t count(const std::string& sql) {
    Database d = db();
    auto st = d.prepare(sql);
    EXPECT_TRUE(st.ok()) << st.status().message();
    auto row = st->step();
    EXPECT_TRUE(row.ok() && *row);
    return st->column_int(0);
  }
  fs::path ws_;
};

TEST_F(DriveCliTest, KernelsThatWriteNoArgumentAreNoOutputWithoutRunning) {
  auto r = run_clgen(drive_args({kernel_path("reads_only.cl")}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='no output' AND kernel_name='reads_only' "
                  "AND message LIKE '%static analysis%' AND repetitions=0"),
            1);
}

// A worker killed with integer scalars of the global size is driven again
// with 1, and that run is stored, saying so.
TEST_F(DriveCliTest, ACrashWithIntegerScalarsOfTheGlobalSizeIsDrivenAgainWithOne) {
  auto r = run_clgen(drive_args({kernel_path("scalar_stride_crash.cl")}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("crashed with integer scalars of the global size and driven again with 1: 1 (1 of them no "
                       "longer crashed)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='pass' AND scalar_value=1 AND message LIKE "
                  "'crashed with integer scalars of the global size (worker killed by signal%); driven again with 1'"),
            1);
  // Without an integer scalar a crash stands.
  auto oob = run_clgen(drive_args({kernel_path("out_of_bounds.cl")}));
  ASSERT_EQ(oob.exit_code, 0) << oob.err;
  EXPECT_EQ(oob.out.find("driven again with 1"), std::string::npos) << oob.out;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='crash' AND kernel_name='out_of_bounds'"), 1);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_F(DriveCliTest, StoresRunsPrintsTheOutcomeTableAndWritesCsv) {
  std::string csv = (ws_ / "runs.csv").string();
  auto r = run_clgen(drive_args({kernel_path("saxpy.cl"), kernel_path("writes_constant.cl"),
                                 kernel_path("compile_error.cl"), kernel_path("image1d_arg.cl"), "--csv", csv}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("input insensitive                  1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("total                              4"), std::string::npos) << r.out;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs"), 4);
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='pass' AND kernel_name='saxpy' AND "
                  "repetitions=3 AND kernel_ns > 0 AND transferred_bytes=49152"),
            1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='compile error' AND kernel_name=''"), 1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='unsupported arguments'"), 1);
  // Every driven source is kept under the sha256 its runs carry.
  EXPECT_EQ(count("SELECT COUNT(*) FROM kernel_sources"), 4);
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs r JOIN kernel_sources k ON k.sha256 = r.kernel_sha256"), 4);
  {
    Database d = db();
    auto st = d.prepare("SELECT k.text, k.origin FROM kernel_sources k JOIN runs r ON "
                        "k.sha256 = r.kernel_sha256 WHERE r.kernel_name = 'saxpy'");
    ASSERT_TRUE(st.ok()) << st.status().message();
    ASSERT_TRUE(*st->step());
    EXPECT_EQ(st->column_text(0), *read_file(kernel_path("saxpy.cl")));
    EXPECT_EQ(st->column_text(1), kernel_path("saxpy.cl"));
  }

  auto text = read_file(csv);
  ASSERT_TRUE(text.ok());
  auto lines = split_lines(*text);
  ASSERT_EQ(lines.size(), 1u + 3 + 1 + 1 + 1);  // header, 3 profiled saxpy runs, 3 others
  EXPECT_EQ(lines[0],
            "instance,device,build_opts,kernel,work_item_local_mem_size,"
            "work_item_private_mem_size,global_size,local_size,outcome,transferred_bytes,"
            "transfer_time_ns,kernel_time_ns");
  int saxpy_rows = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    // Device names hold no commas here; every row has 12 fields.
    EXPECT_EQ(std::count(lines[i].begin(), lines[i].end(), ','), 11) << lines[i];
    if (lines[i].find(",saxpy,") != std::string::npos) {
      ++saxpy_rows;
      EXPECT_NE(lines[i].find(",4096,"), std::string::npos);
      EXPECT_NE(lines[i].find(",pass,49152,"), std::string::npos) << lines[i];
      EXPECT_NE(lines[i].back(), ',');  // kernel time present
    }
  }
  EXPECT_EQ(saxpy_rows, 3);

  // A second drive finds everything stored and runs nothing.
  auto again = run_clgen(drive_args({kernel_path("saxpy.cl"), kernel_path("writes_constant.cl"),
                                     kernel_path("compile_error.cl"), kernel_path("image1d_arg.cl")}));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("driven now: 0, already stored: 4"), std::string::npos) << again.out;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs"), 4);
}

TEST_F(DriveCliTest, RunKilledHalfwayResumesWithoutDuplicates) {
  std::vector<std::string> files = {kernel_path("saxpy.cl"), kernel_path("writes_nothing.cl"),
                                    kernel_path("two_kernels.cl"), kernel_path("args_mix.cl"),
                                    kernel_path("infinite_loop.cl")};
  std::vector<std::string> args = drive_args(files);
  args.insert(args.end(), {"--timeout", "12"});  // above start-up + cold compile on a busy 2-core box
  std::vector<std::string> argv = {CLGEN_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  // Kill the parent as soon as the first run is stored.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int64_t stored = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(ws_ / "clgen.db")) {
      auto d = Database::open((ws_ / "clgen.db").string());
      if (d.ok()) {
        auto st = d->prepare("SELECT COUNT(*) FROM runs");
        if (st.ok() && st->step().ok()) stored = st->column_int(0);
      }
    }
    if (stored >= 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GE(stored, 1);
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  int64_t before = count("SELECT COUNT(*) FROM runs");
  ASSERT_LT(before, 6) << "the drive finished before it could be killed";

  auto r = run_clgen(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("already stored: " + std::to_string(before)), std::string::npos) << r.out;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs"), 6);  // two_kernels.cl holds two kernels
  EXPECT_EQ(count("SELECT COUNT(*) FROM (SELECT DISTINCT kernel_sha256, kernel_name FROM runs)"), 6);
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='timeout'"), 1);
}

TEST_F(DriveCliTest, ConcurrentDriveGivesEveryKernelItsSequentialOutcomeAndCsvOrder) {
  // A mixed set with one kernel of every well-defined outcome (race.cl and
  // out_of_bounds.cl are left out: their outcome is undefined behaviour,
  // which differs between runs whatever the concurrency).
  std::vector<std::string> files;
  for (const char* f : {"saxpy.cl", "writes_constant.cl", "compile_error.cl", "image1d_arg.cl", "struct_arg.cl",
                        "image_blur.cl", "writes_nothing.cl", "two_kernels.cl", "args_mix.cl", "infinite_loop.cl",
                        "matmul_2d.cl", "reads_only.cl", "front_end_crash.cl"})
    files.push_back(kernel_path(f));
  auto outcomes = [&](const std::string& jobs, const std::string& csv) {
    auto args = drive_args(files);
    args.insert(args.end(), {"--timeout", "12", "--jobs", jobs, "--csv", csv});
    auto r = run_clgen(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Database d = db();
    auto st = d.prepare("SELECT kernel_sha256 || ':' || kernel_name || ':' || outcome FROM runs "
                        "ORDER BY 1");
    EXPECT_TRUE(st.ok());
    std::vector<std::string> rows;
    while (*st->step()) rows.push_back(st->column_text(0));
    return rows;
  };
  // The CSV's kernel and outcome columns, in order (times differ).
  auto csv_columns = [](const std::string& path) {
    std::vector<std::string> out;
    for (const std::string& line : split_lines(*read_file(path))) {
      std::vector<std::string> f;
      std::stringstream in(line);
      for (std::string x; std::getline(in, x, ',');) f.push_back(x);
      out.push_back(f.size() > 8 ? f[0] + "," + f[3] + "," + f[8] : line);
    }
    return out;
  };
  std::string csv1 = (ws_ / "one.csv").string(), csv4 = (ws_ / "four.csv").string();
  auto one = outcomes("1", csv1);
  fs::remove(ws_ / "clgen.db");
  fs::remove(ws_ / "clgen.db-wal");
  fs::remove(ws_ / "clgen.db-shm");
  auto four = outcomes("4", csv4);
  ASSERT_EQ(one.size(), 14u);  // one row per source, two for two_kernels.cl
  EXPECT_EQ(one, four);
  EXPECT_EQ(csv_columns(csv1), csv_columns(csv4));
}

TEST_F(DriveCliTest, ATimeoutBesideOtherRunsIsDrivenAgainAloneAndOnlyThen) {
  std::vector<std::string> files = {kernel_path("infinite_loop.cl"), kernel_path("saxpy.cl"),
                                    kernel_path("matmul_2d.cl"), kernel_path("args_mix.cl")};
  auto drive = [&](const std::string& jobs, bool retry = true) {
    auto args = drive_args(files);
    args.insert(args.end(), {"--timeout", "6", "--jobs", jobs});
    if (!retry) args.push_back("--no-timeout-retry");
    return run_clgen(args);
  };
  auto fresh_database = [&] {
    fs::remove(ws_ / "clgen.db");
    fs::remove(ws_ / "clgen.db-wal");
    fs::remove(ws_ / "clgen.db-shm");
  };
  const std::string retried = "timed out beside other runs and driven again alone: 1 (0 of them no longer timed out)";
  const std::string timeout_message =
      "SELECT COUNT(*) FROM runs WHERE outcome='timeout' AND message LIKE 'timed out beside other runs; driven "
      "again alone%'";
  // Two jobs: saxpy.cl starts while the endless kernel runs, so its time-out
  // is not its own for certain; alone, it times out again, and that stands.
  auto two = drive("2");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_NE(two.out.find(retried), std::string::npos) << two.out;
  EXPECT_EQ(count(timeout_message), 1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='pass'"), 3);
  // One job: every run was alone already.
  fresh_database();
  auto one = drive("1");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out.find("driven again alone"), std::string::npos) << one.out;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='timeout'"), 1);
  EXPECT_EQ(count(timeout_message), 0);
  // --no-timeout-retry keeps the first time-out.
  fresh_database();
  auto kept = drive("2", false);
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(kept.out.find("driven again alone"), std::string::npos) << kept.out;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='timeout'"), 1);
  EXPECT_EQ(count(timeout_message), 0);
}

TEST_F(DriveCliTest, SamplesWithoutASamplesTableSkipCleanly) {
  auto r = run_clgen(drive_args({"--samples"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no 'samples' table"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("total                              0"), std::string::npos) << r.out;
}

TEST_F(DriveCliTest, DrivesAcceptedSamplesAndOkCorpusKernelsOnce) {
  {
    Database d = db();
    ASSERT_TRUE(d.exec("CREATE TABLE samples(normalized_sha256 TEXT, normalized_text TEXT, status TEXT);"
                       "CREATE TABLE preprocessed(content_sha256 TEXT NOT NULL, "
                       "preprocessor_version TEXT NOT NULL, status TEXT NOT NULL, category TEXT, "
                       "reason TEXT, normalized_text TEXT, normalized_sha256 TEXT, "
                       "instruction_count INTEGER, PRIMARY KEY(content_sha256, preprocessor_version));")
                    .ok());
    auto saxpy = read_file(kernel_path("saxpy.cl"));
    auto constant = read_file(kernel_path("writes_constant.cl"));
    auto ins = d.prepare("INSERT INTO samples(normalized_text, status) VALUES (?1, ?2)");
    ASSERT_TRUE(ins.ok());
    ASSERT_TRUE(ins->bind(1, *constant).ok() && ins->bind(2, std::string("accepted")).ok() && ins->run().ok());
    ins->reset();
    ASSERT_TRUE(ins->bind(1, *saxpy).ok() && ins->bind(2, std::string("rejected")).ok() && ins->run().ok());
    auto pre = d.prepare("INSERT INTO preprocessed VALUES (?1, 'v1', ?2, NULL, NULL, ?3, 'n1', 10)");
    ASSERT_TRUE(pre.ok());
    for (const char* id : {"a", "b"}) {  // two contents normalizing to the same kernel
      pre->reset();
      ASSERT_TRUE(pre->bind(1, std::string(id)).ok() && pre->bind(2, std::string("ok")).ok() &&
                  pre->bind(3, *saxpy).ok() && pre->run().ok());
    }
  }
  auto r = run_clgen(drive_args({"--samples", "--corpus"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs"), 2);
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE origin='samples' AND outcome='input insensitive'"), 1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE origin='corpus' AND outcome='pass'"), 1);
}

TEST_F(DriveCliTest, LocalSizeSweepRecordsEveryLegalSizeIncludingRefusedOnes) {
  auto r = run_clgen(drive_args({kernel_path("saxpy.cl"), "--gsize", "64", "--lsize-sweep"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs"), 7);  // 1, 2, 4, ..., 64
  EXPECT_EQ(count("SELECT COUNT(DISTINCT local_size) FROM runs"), 7);
}

TEST_F(DriveCliTest, LocalSizeAboveDeviceMaximumIsRecorded) {
  auto r = run_clgen(drive_args({kernel_path("saxpy.cl"), "--gsize", "65536", "--lsize", "65536"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='invalid launch parameters' AND "
                  "requested_local_size='65536'"),
            1);
}

TEST_F(DriveCliTest, UsageErrorsExitWithTwo) {
  EXPECT_EQ(run_clgen(drive_args({})).exit_code, 2);
  EXPECT_EQ(run_clgen(drive_args({kernel_path("saxpy.cl"), "--lsize", "4", "--lsize-sweep"})).exit_code, 2);
  EXPECT_EQ(run_clgen(drive_args({kernel_path("saxpy.cl"), "--gsize", "0"})).exit_code, 2);
  EXPECT_EQ(run_clgen(drive_args({kernel_path("saxpy.cl"), "--gsize", "64", "--lsize", "8,8"})).exit_code, 2);
  auto r = run_clgen({"--workspace", ws_.string(), "drive", kernel_path("saxpy.cl"), "--device",
                      "no-such-device-xyz"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no OpenCL device matches"), std::string::npos) << r.err;
}

TEST_F(DriveCliTest, SizesTooLargeForSixtyFourBitsAreUsageErrorsNotCrashes) {
  for (const char* flag : {"--gsize", "--lsize", "--gsize-sweep"}) {
    std::string value = std::string(flag) == "--gsize-sweep" ? "2^7..99999999999999999999" : "99999999999999999999";
    auto r = run_clgen(drive_args({kernel_path("saxpy.cl"), flag, value}));
    EXPECT_EQ(r.exit_code, 2) << flag << ": " << r.err;
    EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("backtrace"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("99999999999999999999"), std::string::npos) << r.err;  // names the value
  }
  auto r = run_clgen(drive_args({kernel_path("saxpy.cl"), "--gsize-sweep", "2^99999999999..2^8"}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST_F(DriveCliTest, AGlobalSizeBeforeTheFilesTakesOneValue) {
  // "--gsize 4096 saxpy.cl": the file is a kernel to drive, not a second size.
  auto r = run_clgen({"--workspace", ws_.string(), "drive", "--device", testing::device_spec(), "--runs", "1",
                      "--gsize", "256", kernel_path("saxpy.cl")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pass"), std::string::npos) << r.out;
}

TEST_F(DriveCliTest, FrontEndCrashIsACrashRowAndTheDriveGoesOn) {
  if (!have_clang_analysis()) GTEST_SKIP() << "built without Clang: no front end in the parent";
  // The argument analysis runs in clgen itself; Clang crashing on this source
  // is recovered, stored as a crash, and the next kernel is driven.
  auto r = run_clgen(drive_args({kernel_path("front_end_crash.cl"), kernel_path("saxpy.cl")}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='crash' AND kernel_name=''"), 1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='pass' AND kernel_name='saxpy'"), 1);
}

TEST_F(DriveCliTest, MacroBombUnderTheClangTimeLimitIsATimeoutRowAndTheNextKernelIsDriven) {
  if (!have_clang_analysis()) GTEST_SKIP() << "built without Clang: no argument analysis";
  // The analysis's default limit is 60 s: the flag, not the default, ends it.
  const std::string bomb = std::string(CLGEN_TEST_DATA) + "/budget/time_bomb.cl";
  auto start = std::chrono::steady_clock::now();
  auto r = run_clgen(drive_args({"--jobs", "1", "--clang-time-limit", "2", bomb, kernel_path("saxpy.cl")}));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 40.0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='timeout' AND kernel_name='' AND "
                  "message LIKE '%2 s time limit%'"),
            1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs WHERE outcome='pass' AND kernel_name='saxpy'"), 1);
}

TEST_F(DriveCliTest, MissingWorkerBinaryIsAClearError) {
  ::setenv("CLGEN_WORKER", "/nonexistent/dir/clgen-worker", 1);
  auto drive = run_clgen(drive_args({kernel_path("saxpy.cl")}));
  auto devices = run_clgen({"devices"});
  ::unsetenv("CLGEN_WORKER");
  for (const auto* r : {&drive, &devices}) {
    EXPECT_EQ(r->exit_code, 1) << r->out;
    EXPECT_NE(r->err.find("cannot run the worker binary '/nonexistent/dir/clgen-worker'"),
              std::string::npos)
        << r->err;
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs"), 0);
}

}  // namespace
}  // namespace clgen::driver
