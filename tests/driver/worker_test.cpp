// Worker processes (clgen-worker): kernels that hang or crash kill only their
// worker, the parent records the outcome and replaces it; healthy workers are
// reused; a worker that cannot start is a clear error.
#include "driver/worker.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include "tests/driver/driver_test_util.h"

namespace clgen::driver {
namespace {

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

}  // namespace
}  // namespace clgen::driver
