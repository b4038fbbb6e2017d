// The worker side of the driver: builds a kernel on an OpenCL device, runs the
// dynamic checker (payloads A1, B1, A2, B2) and profiles passing kernels with
// OpenCL events. Runs inside a worker process; keeps contexts and programs
// cached between jobs.
#pragma once

#include <memory>
#include <vector>

#include "driver/job.h"
#include "support/status.h"

namespace clgen::driver {

class Executor {
 public:
  Executor();
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Drives one kernel. Every outcome of the kernel is a DriveResult; an error
  // Status means the request itself was bad (no such device, malformed job).
  Expected<DriveResult> drive(const DriveJob& job);

  // Compiles `source` for the device and describes its kernels from the
  // device compiler's argument info (-cl-kernel-arg-info): the fallback when
  // clgen has no Clang. Every global pointer counts as read and written unless
  // const. A build failure is a kParse error with the build log.
  Expected<std::vector<KernelSignature>> list_kernels(const std::string& source,
                                                       const std::string& build_options,
                                                       int platform_index, int device_index);

  // Opens the device's context and queue and builds a trivial program, so
  // that the first kernel's time limit covers that kernel only (a first
  // build on NVIDIA loads the compiler). Errors: no such device, or the
  // device cannot be opened or compile.
  Status prepare(int platform_index, int device_index);

  // True after an execution error that may have corrupted the context (the
  // worker then exits, and the parent starts a fresh one).
  bool poisoned() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clgen::driver
