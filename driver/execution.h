// One execution of a built kernel on the worker's OpenCL side: arguments
// set (buffers, images, samplers), the launch, the outputs read back and the
// event times. Internal to the executor (driver/executor.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/args.h"
#include "driver/opencl.h"
#include "driver/outcome.h"
#include "driver/payload.h"

namespace clgen::driver {

// An outcome other than pass, with its reason.
struct Failure {
  Outcome outcome;
  std::string message;
};

// An opened device: its context, its profiling queue and its limits.
struct DeviceContext {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  uint64_t local_mem = 0;
  uint64_t max_work_group = 0;
  uint64_t max_alloc = 0;
  uint64_t global_mem = 0;
  std::vector<uint64_t> max_items;
};

// What one execution read back and how long it took.
struct ExecOutput {
  std::vector<std::vector<uint8_t>> outputs;  // per argument; empty unless written
  uint64_t transfer_ns = 0;
  uint64_t kernel_ns = 0;
  uint64_t bytes = 0;
};

// One execution: inputs in, kernel, outputs out, all with events. False with
// `failure` set when it fails, and `poisoned` set when the failure may have
// left the context broken.
bool execute_kernel(DeviceContext& dc, cl_kernel kernel, const std::vector<ArgInfo>& args,
                    const std::vector<ArgPayload>& payload, const std::vector<size_t>& global,
                    const std::vector<size_t>& local, ExecOutput& out, Failure& failure, bool& poisoned);

}  // namespace clgen::driver
