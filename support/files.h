// File helpers with Status errors: whole-file reads and atomic writes
// (temp file + fsync + rename), so a crash never leaves a half-written file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/status.h"

namespace clgen {

// Reads a whole file; fails with kNotFound or kIo naming the path, or
// kInvalidArgument if the file is larger than `max_bytes`.
Expected<std::string> read_file(const std::string& path, uint64_t max_bytes = UINT64_MAX);

// Writes `data` to `path` atomically: it either has the old or the new content.
Status write_file_atomic(const std::string& path, std::string_view data);

}  // namespace clgen
