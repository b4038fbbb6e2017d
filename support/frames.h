// Length-prefixed frames over pipes, with deadlines: the parent <-> child
// protocol of every worker process (the driver's OpenCL workers, the
// preprocessor's Clang workers).
#pragma once

#include <string>

#include "support/status.h"

namespace clgen {

// Frames: a 4-byte little-endian length, then that many bytes (at most 256 MiB).
Status write_frame(int fd, const std::string& payload);
// Waits at most `timeout_ms` (negative: forever). kTimeout when the deadline
// passes, kIo with "end of stream" when the writer closed its end.
Status read_frame(int fd, std::string& payload, int timeout_ms);

}  // namespace clgen
