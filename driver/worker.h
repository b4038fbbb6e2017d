// Process isolation for kernel execution: the worker loop (run by the clgen
// binary in worker mode) and the parent's handle on a worker process, which
// talk length-prefixed JSON over two pipes. The parent enforces a wall-clock
// limit, kills and replaces hung or crashed workers, and reuses healthy ones.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "driver/job.h"
#include "support/status.h"

namespace clgen::driver {

// The worker reads requests on this fd and answers on the next one.
inline constexpr int kWorkerRequestFd = 3;
inline constexpr int kWorkerResponseFd = 4;

// Frames: a 4-byte little-endian length, then that many bytes of JSON.
Status write_frame(int fd, const std::string& payload);
// Waits at most `timeout_ms` (negative: forever). kTimeout when the deadline
// passes, kIo with "end of stream" when the writer closed its end.
Status read_frame(int fd, std::string& payload, int timeout_ms);

// Serves requests on (in_fd, out_fd) until the stream ends or an "exit"
// request arrives; exits early (status 3) after an execution error that may
// have corrupted the OpenCL context. Returns the process exit status.
int run_worker(int in_fd, int out_fd);

struct WorkerOptions {
  std::string binary;                      // empty: this executable (/proc/self/exe)
  std::vector<std::string> args{"worker"};  // arguments that select worker mode
  double timeout_s = 60;       // wall-clock limit per request (build + check + profiling)
  uint64_t memory_limit_mb = 0;  // RLIMIT_DATA of the worker; 0 = unlimited
  bool inherit_stderr = false;   // otherwise the worker's stderr goes to /dev/null
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
  // Errors are failures to start a worker or bad requests.
  Expected<DriveResult> drive(const DriveJob& job);

  // Executor::list_kernels in the worker. Errors as for analyze_kernels.
  Expected<std::vector<KernelSignature>> list_kernels(const std::string& source,
                                                      const std::string& build_options,
                                                      int platform_index, int device_index);

  // Changes the wall-clock limit for later requests.
  void set_timeout(double seconds) { options_.timeout_s = seconds; }

  // analyze_kernels() (the Clang analysis) in the worker. Errors: kParse when
  // the source does not compile, kTimeout when the worker hung (killed), kIo
  // when it died.
  Expected<std::vector<KernelSignature>> analyze_kernels(const std::string& source);

  // Asks the worker to exit and reaps it.
  void stop();
  pid_t pid() const { return pid_; }
  int started() const { return started_; }  // workers started so far

 private:
  Status start();
  void kill_worker();
  // Sends one request; on success fills `response`. On a hang or death,
  // returns kTimeout or kIo (message names the signal) after reaping.
  Status call(const std::string& request, std::string& response);

  WorkerOptions options_;
  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  int started_ = 0;
};

}  // namespace clgen::driver
