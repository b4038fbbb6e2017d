// The parent <-> worker protocol: the worker's pipe file descriptors and
// length-prefixed JSON frames (support/frames.h). Shared by both sides; no
// OpenCL, no Clang.
#pragma once

#include "support/child_process.h"
#include "support/frames.h"

namespace clgen::driver {

// The worker reads requests on this fd and answers on the next one.
inline constexpr int kWorkerRequestFd = kChildRequestFd;
inline constexpr int kWorkerResponseFd = kChildResponseFd;

}  // namespace clgen::driver
