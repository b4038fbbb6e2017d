// Worker processes (clgen-worker): kernels that hang or crash kill only their
// worker, the parent records the outcome and replaces it; healthy workers are
// reused; a worker that cannot start is a clear error.
#include "driver/worker.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/files.h"
#include "tests/cli/run_command.h"
#include "tests/common/temp_dir.h"
#include "tests/driver/driver_test_util.h"

namespace clgen::driver {
namespace {

using testing::kernel_source;
using testing::make_job;

class WorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = testing::test_device();
    if (!d) GTEST_SKIP() << "no OpenCL device matches '" << testing::device_spec() << "'";
    device_ = *d;
  }
  WorkerOptions options(double timeout_s) { return testing::worker_options(timeout_s); }
  DeviceInfo device_;
};

TEST_F(WorkerTest, HealthyWorkerIsReusedBetweenKernels) {
  WorkerProcess worker(options(60));
  auto a = worker.drive(make_job(device_, "saxpy.cl", "saxpy"));
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->outcome, Outcome::kPass) << a->message;
  pid_t first = worker.pid();
  auto b = worker.drive(make_job(device_, "writes_constant.cl", "writes_constant"));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->outcome, Outcome::kInputInsensitive);
  EXPECT_EQ(worker.pid(), first);
  EXPECT_EQ(worker.started(), 1);
}

TEST_F(WorkerTest, InfiniteLoopTimesOutAndTheWorkerIsReplaced) {
  WorkerProcess worker(options(8));  // PoCL's first compile of a kernel takes seconds here
  auto hang = worker.drive(make_job(device_, "infinite_loop.cl", "infinite_loop"));
  ASSERT_TRUE(hang.ok()) << hang.status().message();
  EXPECT_EQ(hang->outcome, Outcome::kTimeout) << hang->message;
  EXPECT_EQ(worker.pid(), -1);  // killed and reaped
  worker.set_timeout(60);       // the replacement starts up under the normal limit
  auto next = worker.drive(make_job(device_, "saxpy.cl", "saxpy"));
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next->outcome, Outcome::kPass) << next->message;
  EXPECT_EQ(worker.started(), 2);
}

TEST_F(WorkerTest, FarOutOfBoundsWriteCrashesOnlyTheWorker) {
  WorkerProcess worker(options(60));
  auto crash = worker.drive(make_job(device_, "out_of_bounds.cl", "out_of_bounds"));
  ASSERT_TRUE(crash.ok()) << crash.status().message();
  // PoCL segfaults; GPU drivers report an execution error instead.
  EXPECT_TRUE(crash->outcome == Outcome::kCrash || crash->outcome == Outcome::kOutOfResources)
      << outcome_name(crash->outcome) << ": " << crash->message;
  auto next = worker.drive(make_job(device_, "saxpy.cl", "saxpy"));
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next->outcome, Outcome::kPass) << next->message;
  EXPECT_EQ(worker.started(), 2);
}

TEST_F(WorkerTest, ListsDevicesAndTheIcdLoader) {
  WorkerProcess worker(options(60));
  auto report = worker.list_devices();
  ASSERT_TRUE(report.ok()) << report.status().message();
  auto chosen = select_devices(report->devices, testing::device_spec());
  ASSERT_TRUE(chosen.ok()) << chosen.status().message();
  EXPECT_EQ(chosen->front().name, device_.name);
  EXPECT_FALSE(report->icd_loader.empty());
  // The same worker then runs kernels.
  auto r = worker.drive(make_job(device_, "saxpy.cl", "saxpy"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->outcome, Outcome::kPass) << r->message;
  EXPECT_EQ(worker.started(), 1);
}

TEST_F(WorkerTest, MalformedRequestIsAnErrorNotACrash) {
  WorkerProcess worker(options(60));
  DriveJob job = make_job(device_, "saxpy.cl", "saxpy");
  job.platform_index = 99;
  auto r = worker.drive(job);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound) << r.status().message();
  EXPECT_GT(worker.pid(), 0);  // still alive
}

TEST_F(WorkerTest, DeviceIsOpenedOnceOutsideTheJobsTimeLimit) {
  WorkerProcess worker(options(60));
  ASSERT_TRUE(worker.prepare(device_.platform_index, device_.device_index).ok());
  pid_t pid = worker.pid();
  ASSERT_TRUE(worker.prepare(device_.platform_index, device_.device_index).ok());
  auto r = worker.drive(make_job(device_, "saxpy.cl", "saxpy"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->outcome, Outcome::kPass) << r->message;
  EXPECT_EQ(worker.pid(), pid);  // the same worker, opened once
  EXPECT_EQ(worker.started(), 1);
  // A worker that died idle is replaced, and the device opened again, before the job.
  ::kill(worker.pid(), SIGKILL);
  ::usleep(100000);
  auto again = worker.drive(make_job(device_, "saxpy.cl", "saxpy"));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->outcome, Outcome::kPass) << again->message;
  EXPECT_EQ(worker.started(), 2);
}

TEST(WorkerStart, WorkerThatCannotStartIsAnErrorNotAKernelCrash) {
  WorkerOptions o;
  o.binary = "/bin/false";  // exits at once without answering
  o.args = {};
  WorkerProcess worker(o);
  DriveJob job;
  job.global_size = {64};
  auto r = worker.drive(job);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(r.status().message().find("starting worker"), std::string::npos) << r.status().message();
}

TEST(WorkerStart, MissingWorkerBinaryIsAClearError) {
  WorkerOptions o;
  o.binary = "/nonexistent/dir/clgen-worker";
  WorkerProcess worker(o);
  auto r = worker.list_devices();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(r.status().message().find("/nonexistent/dir/clgen-worker"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("No such file or directory"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("CLGEN_WORKER"), std::string::npos) << r.status().message();
  EXPECT_EQ(worker.started(), 0);  // nothing was forked
}

TEST(WorkerStart, DefaultBinaryIsClgenWorkerBesideThisExecutableUnlessOverridden) {
  const char* saved = std::getenv("CLGEN_WORKER");
  std::string saved_value = saved ? saved : "";
  ::unsetenv("CLGEN_WORKER");
  std::string beside = default_worker_binary();
  ::setenv("CLGEN_WORKER", "/opt/x/clgen-worker", 1);
  std::string overridden = default_worker_binary();
  if (saved) ::setenv("CLGEN_WORKER", saved_value.c_str(), 1);
  else ::unsetenv("CLGEN_WORKER");
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  std::string dir(self, static_cast<size_t>(n));
  dir = dir.substr(0, dir.rfind('/'));
  EXPECT_EQ(beside, dir + "/clgen-worker");
  EXPECT_EQ(overridden, "/opt/x/clgen-worker");
}

TEST(WorkerFraming, RoundTripsFramesAndTimesOut) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_TRUE(write_frame(fds[1], "{\"op\":\"ping\"}").ok());
  std::string got;
  ASSERT_TRUE(read_frame(fds[0], got, 1000).ok());
  EXPECT_EQ(got, "{\"op\":\"ping\"}");
  EXPECT_EQ(read_frame(fds[0], got, 50).code(), ErrorCode::kTimeout);
  close(fds[1]);
  EXPECT_EQ(read_frame(fds[0], got, 1000).code(), ErrorCode::kIo);
  close(fds[0]);
}

// The line of /proc/PID/limits for `name` ("Max data size"), or "".
std::string limits_line(pid_t pid, const std::string& name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(name, 0) == 0) return line;
  return "";
}

// The soft and hard values of a /proc/PID/limits line, as written there.
std::pair<std::string, std::string> soft_hard(const std::string& line, const std::string& name) {
  std::istringstream words(line.substr(name.size()));
  std::string soft, hard;
  words >> soft >> hard;
  return {soft, hard};
}

// True while `pid` exists and is not a zombie.
bool running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

TEST_F(WorkerTest, WorkerRunsUnderMemoryFileDescriptorAndCpuLimitsAndDiesFirstOnOom) {
  WorkerOptions o = options(60);
  o.memory_limit_mb = 0;  // the default cap
  WorkerProcess worker(o);
  ASSERT_TRUE(worker.prepare(device_.platform_index, device_.device_index).ok());
  pid_t pid = worker.pid();
  const std::string mb = std::to_string(default_worker_memory_limit_mb() << 20);
  EXPECT_EQ(soft_hard(limits_line(pid, "Max data size"), "Max data size"), std::make_pair(mb, mb));
  EXPECT_EQ(soft_hard(limits_line(pid, "Max file size"), "Max file size").first, std::to_string(1 << 30));
  std::string files = soft_hard(limits_line(pid, "Max open files"), "Max open files").second;
  ASSERT_NE(files, "unlimited");
  EXPECT_LE(std::stoull(files), 4096u);
  // The CPU backstop: set, and above the wall-clock limit.
  std::string cpu = soft_hard(limits_line(pid, "Max cpu time"), "Max cpu time").first;
  ASSERT_NE(cpu, "unlimited");
  EXPECT_GT(std::stod(cpu), 60.0);
  auto oom = read_file("/proc/" + std::to_string(pid) + "/oom_score_adj");
  ASSERT_TRUE(oom.ok());
  EXPECT_EQ(std::stoi(*oom), 1000);
  // Its own process group, which the parent kills as a whole.
  EXPECT_EQ(::getpgid(pid), pid);
  EXPECT_GT(default_worker_memory_limit_mb(), 1023u);
  EXPECT_LT(default_worker_memory_limit_mb(), 8193u);
}

TEST_F(WorkerTest, PayloadBeyondTheMemoryCapIsAnOutcomeAndTheParentGoesOn) {
  WorkerOptions o = options(120);
  o.memory_limit_mb = 1024;
  WorkerProcess worker(o);
  // 2^28 floats: 1 GiB per buffer, within PoCL's allocation limit here but
  // not within the worker's 1 GiB of data.
  DriveJob job = make_job(device_, "saxpy.cl", "saxpy");
  job.global_size = {uint64_t{1} << 28};
  job.runs = 1;
  auto big = worker.drive(job);
  ASSERT_TRUE(big.ok()) << big.status().message();
  EXPECT_TRUE(big->outcome == Outcome::kCrash || big->outcome == Outcome::kOutOfResources)
      << outcome_name(big->outcome) << ": " << big->message;
  auto next = worker.drive(make_job(device_, "saxpy.cl", "saxpy"));
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next->outcome, Outcome::kPass) << next->message;
}

TEST_F(WorkerTest, WorkerDiesWithinASecondOfItsParentBeingKilled) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {  // a stand-in for clgen: start a worker, report its pid, drive a loop
    ::close(fds[0]);
    WorkerProcess worker(options(600));
    if (!worker.prepare(device_.platform_index, device_.device_index).ok()) ::_exit(3);
    pid_t pid = worker.pid();
    if (::write(fds[1], &pid, sizeof pid) != sizeof pid) ::_exit(4);
    (void)worker.drive(make_job(device_, "infinite_loop.cl", "infinite_loop"));
    ::_exit(5);
  }
  ::close(fds[1]);
  pid_t worker_pid = -1;
  ASSERT_EQ(::read(fds[0], &worker_pid, sizeof worker_pid), static_cast<ssize_t>(sizeof worker_pid));
  ::close(fds[0]);
  std::this_thread::sleep_for(std::chrono::seconds(3));  // building and then looping
  ASSERT_TRUE(running(worker_pid));
  ::kill(parent, SIGKILL);
  int status;
  ASSERT_EQ(::waitpid(parent, &status, 0), parent);
  auto killed = std::chrono::steady_clock::now();
  while (running(worker_pid) && std::chrono::steady_clock::now() - killed < std::chrono::seconds(1))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  bool alive = running(worker_pid);
  if (alive) ::kill(-worker_pid, SIGKILL);
  EXPECT_FALSE(alive) << "worker " << worker_pid << " outlived its parent by a second";
}

// Every hostile kernel the test data holds, and two more made here, copied
// to 20 distinct sources: one drive records an outcome for each and exits 0.
// Which outcome a kernel gets is not asserted, so a short timeout does: each
// timed-out run is driven again alone, and the loops are a quarter of the 20.
TEST_F(WorkerTest, TwentyHostileKernelsInOneDriveGiveTwentyOutcomesAndExitZero) {
  clgen::testing::TempDir dir;
  const std::vector<std::string> hostile = {kernel_source("infinite_loop.cl"), kernel_source("out_of_bounds.cl"),
                                            kernel_source("compile_error.cl"), kernel_source("race.cl"),
                                            // 64 MiB of private memory per work-item.
                                            "kernel void big_private(global float* a) {\n"
                                            "  volatile float p[1 << 24];\n"
                                            "  int i = get_global_id(0);\n"
                                            "  for (int k = 0; k < (1 << 24); ++k) p[k] = a[i] + k;\n"
                                            "  a[i] = p[(i * 7919) & ((1 << 24) - 1)];\n"
                                            "}\n",
                                            // Recursion, which OpenCL C forbids.
                                            "kernel void deep(global int* a) { a[get_global_id(0)] = deep(a); }\n"};
  std::vector<std::string> args = {
      "--workspace", dir / "ws", "drive",  "--device", testing::device_spec(), "--runs", "1",
      "--timeout",   "3",        "--jobs", "2"};
  for (int i = 0; i < 20; ++i) {
    std::string path = dir / ("hostile_" + std::to_string(i) + ".cl");
    ASSERT_TRUE(write_file_atomic(path, "// copy " + std::to_string(i) + "\n" + hostile[i % hostile.size()]).ok());
    args.push_back(path);
  }
  auto r = clgen::testing::run_clgen(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream out(r.out);
  std::string line;
  uint64_t total = 0;
  while (std::getline(out, line))
    if (line.rfind("total ", 0) == 0) total = std::stoull(line.substr(6));
  EXPECT_EQ(total, 20u) << r.out;
}

}  // namespace
}  // namespace clgen::driver
