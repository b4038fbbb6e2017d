// Running Clang/LLVM work on untrusted input under LLVM's crash recovery,
// behind an LLVM-free signature, for every module that drives the front end
// in-process (preprocess, features, the driver's argument analysis); and the
// out-of-memory exit of the worker processes that run such work under a budget.
#pragma once

#include <functional>

namespace clgen::clang_support {

// Runs `fn`; returns false when Clang or LLVM crashed inside it (a fatal
// signal or an LLVM fatal error), which then leaves the process running.
bool run_with_crash_recovery(const std::function<void()>& fn);

// For a worker process (clgen-clang-worker, clgen-analysis-worker): any
// failed allocation (operator new, or LLVM's own) exits at once with
// kChildOutOfMemoryExit (support/child_process.h), which the parent reads as
// its memory limit. Without it, LLVM reports "out of
// memory" as a fatal error, which crash recovery turns into a crash.
void exit_on_out_of_memory();

}  // namespace clgen::clang_support
