// The dynamic checker and profiler (the worker's Executor) on the device
// under test (CLGEN_TEST_DEVICE, default PoCL's CPU device), through one
// shared clgen-worker as clgen drive uses it: one hand-written kernel per
// outcome that does not need process isolation, and transfer accounting.
#include "driver/executor.h"
#include "driver/worker.h"

#include <gtest/gtest.h>

#include "tests/driver/driver_test_util.h"

namespace clgen::driver {
namespace {

using testing::make_job;

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = testing::test_device();
    if (!d) GTEST_SKIP() << "no OpenCL device matches '" << testing::device_spec() << "'";
    device_ = *d;
  }
  DriveResult drive(const DriveJob& job) {
    auto r = worker().drive(job);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : DriveResult{};
  }
  static WorkerProcess& worker() {
    static WorkerProcess w(testing::worker_options());  // shared: contexts and programs are cached
    return w;
  }
  DeviceInfo device_;
};

TEST_F(ExecutorTest, SaxpyPassesAndIsProfiled) {
  DriveJob job = make_job(device_, "saxpy.cl", "saxpy");
  job.runs = 5;
  DriveResult r = drive(job);
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.message;
  ASSERT_EQ(r.kernel_ns.size(), 5u);
  ASSERT_EQ(r.transfer_ns.size(), 5u);
  for (uint64_t ns : r.kernel_ns) EXPECT_GT(ns, 0u);
  for (uint64_t ns : r.transfer_ns) EXPECT_GT(ns, 0u);
  ASSERT_EQ(r.local_size.size(), 1u);
  EXPECT_EQ(4096 % r.local_size[0], 0u);
  EXPECT_LE(r.local_size[0], r.kernel_work_group_size);
}

TEST_F(ExecutorTest, CountsOnlyTheTransfersTheAnalysisAsksFor) {
  DriveResult r = drive(make_job(device_, "saxpy.cl", "saxpy"));
  ASSERT_EQ(r.outcome, Outcome::kPass) << r.message;
  // x is only read (in), y read and written (in and out): 3 × 4096 floats.
  EXPECT_EQ(r.transferred_bytes, 3u * 4096 * 4);
  DriveResult c = drive(make_job(device_, "two_kernels.cl", "copy_ptr"));
  ASSERT_EQ(c.outcome, Outcome::kPass) << c.message;
  if (have_clang_analysis()) {
    EXPECT_EQ(c.transferred_bytes, 2u * 4096 * 4);  // src in, dst out (never read: not sent)
  }
}

TEST_F(ExecutorTest, KernelThatWritesNothingHasNoOutput) {
  DriveResult r = drive(make_job(device_, "writes_nothing.cl", "writes_nothing"));
  EXPECT_EQ(r.outcome, Outcome::kNoOutput) << r.message;
  EXPECT_TRUE(r.kernel_ns.empty());  // only passing kernels are profiled
}

TEST_F(ExecutorTest, OutputsEqualToInputsAreCheckedAgainWithIntegerScalarsOne) {
  DriveResult r = drive(make_job(device_, "offset_copy.cl", "offset_copy"));
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.message;
  EXPECT_EQ(r.scalar_value, 1u);
  EXPECT_FALSE(r.kernel_ns.empty());  // profiled with the payload that passed
}

TEST_F(ExecutorTest, WithoutTheScalarFallbackIntegerScalarsAreTheGlobalSize) {
  DriveJob job = make_job(device_, "offset_copy.cl", "offset_copy");
  job.scalar_fallback = false;
  DriveResult r = drive(job);
  EXPECT_EQ(r.outcome, Outcome::kNoOutput) << r.message;
  EXPECT_EQ(r.scalar_value, 4096u);
}

TEST_F(ExecutorTest, RecordsTheScalarValueOfThePassingCheck) {
  DriveResult saxpy = drive(make_job(device_, "saxpy.cl", "saxpy"));  // passes with n = S
  ASSERT_EQ(saxpy.outcome, Outcome::kPass) << saxpy.message;
  EXPECT_EQ(saxpy.scalar_value, 4096u);
  DriveResult copy = drive(make_job(device_, "two_kernels.cl", "copy_ptr"));  // no integer scalar
  ASSERT_EQ(copy.outcome, Outcome::kPass) << copy.message;
  EXPECT_EQ(copy.scalar_value, 0u);
}

TEST_F(ExecutorTest, KernelThatWritesAConstantIsInputInsensitive) {
  DriveResult r = drive(make_job(device_, "writes_constant.cl", "writes_constant"));
  EXPECT_EQ(r.outcome, Outcome::kInputInsensitive) << r.message;
}

TEST_F(ExecutorTest, DataRaceIsNondeterministic) {
  DriveJob job = make_job(device_, "race.cl", "race");
  job.local_size = {1};  // 4096 work-groups competing for the counter
  DriveResult r = drive(job);
  EXPECT_EQ(r.outcome, Outcome::kNondeterministic) << r.message;
}

TEST_F(ExecutorTest, SourceThatDoesNotCompileIsACompileError) {
  DriveJob job = make_job(device_, "compile_error.cl", "compile_error");
  job.args_from_device = true;  // the Clang analysis rejects it before; here the device does
  DriveResult r = drive(job);
  EXPECT_EQ(r.outcome, Outcome::kCompileError);
  EXPECT_NE(r.message.find("clBuildProgram"), std::string::npos) << r.message;
}

TEST_F(ExecutorTest, StructPointerArgumentIsUnsupported) {
  DriveJob job = make_job(device_, "struct_arg.cl", "struct_arg");
  job.args_from_device = true;  // the device's view agrees with the analysis
  DriveResult r = drive(job);
  EXPECT_EQ(r.outcome, Outcome::kUnsupportedArguments) << r.message;
}

TEST_F(ExecutorTest, StructAndVoidPointersAnd2dAnd3dAndArrayImagesPassWithTheClangAnalysis) {
  if (!have_clang_analysis()) GTEST_SKIP() << "built without Clang: the device's argument info cannot describe them";
  for (const auto& [file, kernel] : {std::pair{"struct_arg.cl", "struct_arg"},
                                     {"image_blur.cl", "image_blur"},
                                     {"image3d_arg.cl", "image3d_arg"},
                                     {"void_pointer.cl", "void_pointer"}}) {
    DriveJob job = make_job(device_, file, kernel);
    DriveResult r = drive(job);
    EXPECT_EQ(r.outcome, Outcome::kPass) << file << ": " << r.message;
  }
}

TEST_F(ExecutorTest, LocalSizeAboveTheDeviceMaximumIsInvalidLaunchParameters) {
  DriveJob job = make_job(device_, "saxpy.cl", "saxpy");
  job.global_size = {device_.max_work_group_size * 2};
  job.local_size = {device_.max_work_group_size * 2};
  DriveResult r = drive(job);
  EXPECT_EQ(r.outcome, Outcome::kInvalidLaunchParameters) << r.message;
  job.global_size = {4096};
  job.local_size = {3};  // does not divide 4096
  EXPECT_EQ(drive(job).outcome, Outcome::kInvalidLaunchParameters);
}

TEST_F(ExecutorTest, BuffersAboveTheDeviceAllocationLimitAreOutOfResources) {
  DriveJob job = make_job(device_, "saxpy.cl", "saxpy");
  job.global_size = {device_.max_mem_alloc_size};  // S floats: four times the limit
  DriveResult r = drive(job);
  EXPECT_EQ(r.outcome, Outcome::kOutOfResources) << r.message;
  EXPECT_NE(r.message.find("maximum allocation"), std::string::npos) << r.message;
}

TEST_F(ExecutorTest, TwoDimensionalKernelPassesWithAutomaticLocalSize) {
  DriveJob job = make_job(device_, "matmul_2d.cl", "add2d");
  job.global_size = {64, 64};
  DriveResult r = drive(job);
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.message;
  ASSERT_EQ(r.local_size.size(), 2u);
  EXPECT_LE(r.local_size[0] * r.local_size[1], r.kernel_work_group_size);
  // a in, b out; without Clang the non-const b counts as read too.
  EXPECT_EQ(r.transferred_bytes, (have_clang_analysis() ? 2u : 3u) * 64 * 64 * 4);
}

TEST_F(ExecutorTest, AutomaticLocalSizeHonoursReqdWorkGroupSize) {
  DriveJob job = make_job(device_, "saxpy.cl", "saxpy");
  job.source = "__attribute__((reqd_work_group_size(32, 1, 1)))\n" + job.source;
  DriveResult r = drive(job);
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.message;
  EXPECT_EQ(r.local_size, (std::vector<uint64_t>{32}));
}

TEST_F(ExecutorTest, SmallOverrunLandsInTheGuardBand) {
  DriveJob job = make_job(device_, "saxpy.cl", "saxpy");
  job.source =
      "kernel void shifted(global const float* in, global float* out) {\n"
      "  int i = get_global_id(0);\n"
      "  out[i + 1] = in[i] * 2.0f;\n"  // the last work-item writes one past the end
      "}\n";
  job.kernel_name = "shifted";
  if (have_clang_analysis()) job.args = analyze_kernels(job.source)->front().args;
  DriveResult r = drive(job);
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.message;
  EXPECT_EQ(drive(make_job(device_, "saxpy.cl", "saxpy")).outcome, Outcome::kPass);
}

TEST_F(ExecutorTest, EveryArgumentKindRuns) {
  DriveResult r = drive(make_job(device_, "args_mix.cl", "args_mix"));
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.message;
}

TEST_F(ExecutorTest, DeviceArgumentInfoFallbackDescribesKernels) {
  auto kernels = worker().list_kernels(testing::kernel_source("args_mix.cl"), "",
                                       device_.platform_index, device_.device_index);
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  ASSERT_EQ(kernels->size(), 1u);
  const auto& args = kernels->front().args;
  ASSERT_EQ(args.size(), 8u);
  EXPECT_EQ(args[0].vector_width, 4);
  EXPECT_TRUE(args[0].is_const);
  EXPECT_FALSE(args[0].writes);
  EXPECT_EQ(args[3].address_space, AddressSpace::kLocal);
  EXPECT_EQ(args[4].address_space, AddressSpace::kConstant);
  EXPECT_FALSE(args[5].is_pointer);
  auto bad = worker().list_kernels(testing::kernel_source("compile_error.cl"), "",
                                   device_.platform_index, device_.device_index);
  EXPECT_EQ(bad.status().code(), ErrorCode::kParse);
}

}  // namespace
}  // namespace clgen::driver
