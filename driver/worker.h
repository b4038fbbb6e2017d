// The parent's handle on a worker process (clgen-worker, a separate slim
// binary that links OpenCL and never Clang): length-prefixed JSON over two
// pipes, a wall-clock limit per request, kill and replace on hangs or
// crashes, reuse of healthy workers.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "driver/devices.h"
#include "driver/job.h"
#include "driver/protocol.h"
#include "support/child_process.h"
#include "support/status.h"

namespace clgen::driver {

// The worker binary used when none is given: $CLGEN_WORKER when set, else
// clgen-worker in the directory of the running executable.
std::string default_worker_binary();

// The worker's RLIMIT_DATA when none is given: half the physical memory, at
// most 8 GiB, at least 1 GiB. RLIMIT_DATA, not RLIMIT_AS: GPU runtimes
// (NVIDIA's above all) reserve far more address space than they touch, and
// RLIMIT_AS would stop them from starting; RLIMIT_DATA counts only writable
// private mappings (the heap and anonymous memory), which is what a runaway
// kernel or payload allocation grows.
uint64_t default_worker_memory_limit_mb();

struct WorkerOptions {
  std::string binary;             // empty: default_worker_binary()
  std::vector<std::string> args;  // extra arguments (none: serve on fds 3 and 4)
  double timeout_s = 60;          // wall-clock limit per request (build + check + profiling)
  // Limit for starting a worker and opening a device in it (platform and
  // context creation, the compiler's first load): outside every job's limit.
  double startup_timeout_s = 60;
  uint64_t memory_limit_mb = 0;   // RLIMIT_DATA of the worker; 0 = default_worker_memory_limit_mb()
  // false: no RLIMIT_DATA when memory_limit_mb is 0. The drive pool sets it
  // for GPU devices: the default cap is not yet verified with NVIDIA's
  // runtime, and a GPU kernel's buffers live on the device.
  bool default_memory_cap = true;
  bool inherit_stderr = false;    // otherwise the worker's stderr goes to /dev/null
};

class WorkerProcess {
 public:
  explicit WorkerProcess(WorkerOptions options);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Runs the job in the worker (starting one if needed). A worker that
  // exceeds the limit is killed (outcome timeout), one that dies is reaped
  // (outcome crash, naming the signal); both are replaced on the next call.
  // Errors are failures to start a worker (kUnavailable) or bad requests.
  Expected<DriveResult> drive(const DriveJob& job);

  // Executor::list_kernels in the worker (the argument analysis of builds
  // without Clang). Errors: kParse when the device compiler rejects the
  // source, kTimeout when the worker hung (killed), kIo when it died,
  // kUnavailable when no worker starts.
  Expected<std::vector<KernelSignature>> list_kernels(const std::string& source,
                                                      const std::string& build_options,
                                                      int platform_index, int device_index);

  // The OpenCL devices and ICD loader the worker sees. Errors as above.
  Expected<DeviceReport> list_devices();

  // Starts a worker if none runs and opens the device in it (Executor::
  // prepare) under startup_timeout_s; drive() does this before each job
  // whose device is not open yet. Errors: kUnavailable (no worker, or the
  // device cannot be opened), kTimeout.
  Status prepare(int platform_index, int device_index);

  // Changes the wall-clock limit for later requests.
  void set_timeout(double seconds) { options_.timeout_s = seconds; }

  // Asks the worker to exit and reaps it.
  void stop();
  pid_t pid() const { return child_.pid(); }
  int started() const { return child_.started(); }  // workers started so far
  const std::string& binary() const { return options_.binary; }

 private:
  // Starts a worker and checks that it answers a ping.
  Status start();
  // Sends one request (starting a worker if none runs); on success fills
  // `response`. On a hang or death, returns kTimeout or kIo (message names
  // the signal) after reaping.
  Status call(const std::string& request, std::string& response);

  WorkerOptions options_;
  ChildProcess child_;
  std::set<std::pair<int, int>> prepared_;  // devices open in the running worker
};

// Starts a worker, asks for its device report and stops it: what `clgen
// devices` and `clgen version --deps` show, without OpenCL in this process.
Expected<DeviceReport> query_devices(WorkerOptions options = {});

}  // namespace clgen::driver
