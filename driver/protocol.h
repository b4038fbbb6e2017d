// The parent <-> worker protocol: the worker's pipe file descriptors and
// length-prefixed JSON frames. Shared by both sides; no OpenCL, no Clang.
#pragma once

#include <string>

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

}  // namespace clgen::driver
