// TrainJob::create checks the options before it reads the config, the
// environment's launcher or the workspace.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "model/train_job.h"

namespace clgen::model {
namespace {

constexpr const char* kKillHook = "CLGEN_TEST_SIGKILL_AFTER_BATCHES";

// Options whose files do not exist: create() must not look at them.
TrainJobOptions nowhere() {
  TrainJobOptions o;
  o.workspace = "/nonexistent/clgen-workspace";
  o.config = "/nonexistent/clgen-config.toml";
  o.train.device = "cpu";
  return o;
}

TEST(TrainJob, CreateRefusesAnUnknownDeviceBeforeReadingAnything) {
  TrainJobOptions o = nowhere();
  o.train.device = "tpu";
  auto job = TrainJob::create(o);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), ErrorCode::kUsage);
  EXPECT_EQ(job.status().message(), "--device must be cpu, cuda or auto");
}

TEST(TrainJob, CreateRefusesAMalformedKillHook) {
  ::setenv(kKillHook, "0", 1);
  auto job = TrainJob::create(nowhere());
  ::unsetenv(kKillHook);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), ErrorCode::kUsage);
  EXPECT_NE(job.status().message().find(kKillHook), std::string::npos) << job.status().message();
}

TEST(TrainJob, GoodOptionsPassCreateAndRunReadsTheConfig) {
  ::unsetenv(kKillHook);
  auto job = TrainJob::create(nowhere());
  ASSERT_TRUE(job.ok()) << job.status().message();
  auto run = job->run();
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().code(), ErrorCode::kUsage);
}

}  // namespace
}  // namespace clgen::model
