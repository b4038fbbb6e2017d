// Running Clang/LLVM work on untrusted input under LLVM's crash recovery,
// behind an LLVM-free signature, for every module that drives the front end
// in-process (preprocess, features, the driver's argument analysis).
#pragma once

#include <functional>

namespace clgen::clang_support {

// Runs `fn`; returns false when Clang or LLVM crashed inside it (a fatal
// signal or an LLVM fatal error), which then leaves the process running.
bool run_with_crash_recovery(const std::function<void()>& fn);

}  // namespace clgen::clang_support
