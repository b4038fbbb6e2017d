// Worker processes: kernels that hang or crash kill only their worker, the
// parent records the outcome and replaces it; healthy workers are reused.
#include "driver/worker.h"

#include <gtest/gtest.h>
#include <signal.h>

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
  WorkerOptions options(double timeout_s) {
    WorkerOptions o;
    o.binary = CLGEN_BINARY;
    o.timeout_s = timeout_s;
    return o;
  }
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

TEST_F(WorkerTest, AnalysesArgumentsInTheWorker) {
  if (!have_clang_analysis()) GTEST_SKIP() << "built without Clang";
  WorkerProcess worker(options(60));
  auto kernels = worker.analyze_kernels(testing::kernel_source("two_kernels.cl"));
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  ASSERT_EQ(kernels->size(), 2u);
  EXPECT_EQ((*kernels)[1].name, "copy_ptr");
  EXPECT_TRUE((*kernels)[1].args[1].writes);
  auto bad = worker.analyze_kernels(testing::kernel_source("compile_error.cl"));
  EXPECT_EQ(bad.status().code(), ErrorCode::kParse);
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
