// clgen-analysis-worker: the process in which `clgen drive` analyses kernel
// arguments with Clang 15 (analyze_kernels) under the memory limit and the
// wall-clock deadline its parent sets (analysis_worker.h). Requests on fd 3
// are kernel sources; answers on fd 4 are the signatures as JSON. It links
// the driver's Clang side, never OpenCL, LibTorch or OpenCV.
#include <unistd.h>

#include <cstdio>

#include "driver/args.h"
#include "driver/job.h"
#include "support/child_process.h"
#include "support/clang/crash_recovery.h"
#include "support/frames.h"
#include "support/worker_answer.h"

int main(int argc, char**) {
  using namespace clgen;
  if (!started_as_child(argc, "clgen-analysis-worker", "Analyses kernel arguments with Clang for clgen drive"))
    return 2;
  clang_support::exit_on_out_of_memory();  // the memory limit: an exit the parent tells from a crash
  std::string source;
  while (read_frame(kChildRequestFd, source, -1).ok()) {
    Expected<std::vector<driver::KernelSignature>> sigs = driver::analyze_kernels(source);
    std::string reply = sigs.ok() ? encode_worker_answer(*sigs) : encode_worker_error(sigs.status());
    if (!write_frame(kChildResponseFd, reply).ok()) break;
    // After a crash Clang recovered from, a fresh worker takes the next source.
    if (!sigs.ok() && sigs.status().code() == ErrorCode::kInternal) break;
  }
  std::fflush(nullptr);
  ::_exit(0);  // skip LLVM's static destructors
}
