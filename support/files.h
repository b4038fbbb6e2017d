// File helpers with Status errors: whole-file reads and atomic writes
// (temp file + fsync + rename), so a crash never leaves a half-written file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "support/status.h"

namespace clgen {

// Reads a whole file; fails with kNotFound or kIo naming the path, or
// kInvalidArgument if the file is larger than `max_bytes`.
Expected<std::string> read_file(const std::string& path, uint64_t max_bytes = UINT64_MAX);

// Writes `data` to `path` atomically: it either has the old or the new content.
Status write_file_atomic(const std::string& path, std::string_view data);

// Removing and renaming through POSIX calls rather than std::filesystem:
// PyTorch's LibTorch (the Python wheel's libtorch.so) exports some
// std::filesystem functions with bodies that call a null pointer, and being
// loaded first it interposes libstdc++'s own (seen: remove_all on the GPU
// machine). Code that may share a process with LibTorch uses these.
// Removes a file or a directory tree (symlinks are removed, never followed);
// a missing path is not an error.
Status remove_tree(const std::string& path);
// Removes one file; a missing file is not an error.
Status remove_file(const std::string& path);
// rename(2): atomic within a file system.
Status rename_path(const std::string& from, const std::string& to);

// The canonical absolute path (symlinks resolved), or nullopt when it does not exist.
std::optional<std::string> real_path(const std::string& path);

}  // namespace clgen
