// A read-only view of one source's files (a directory or a git commit's tree),
// addressed by normalized repository-relative paths, that never yields a byte
// from outside the source's root: mined code is untrusted.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/status.h"

namespace clgen::corpus {

// One file found while listing a tree.
struct TreeEntry {
  std::string path;    // repository-relative, '/'-separated, normalized
  uint64_t size = 0;   // bytes (of the link target for followed symlinks)
  // Empty when the file can be read; otherwise why it is skipped, e.g.
  // "symlink_outside_root" or "unreadable".
  std::string problem;
  std::string detail;  // human-readable detail for `problem`
};

class SourceTree {
 public:
  virtual ~SourceTree() = default;
  // Every file under the root, in a stable (sorted) order. Symlinks inside the
  // root are listed under their own path; those leading out come back with a
  // problem and are never read.
  virtual Expected<std::vector<TreeEntry>> list() = 0;
  // Reads a file by relative path. kNotFound when it does not exist, is not a
  // regular file or lies outside the root; kInvalidArgument when larger than
  // `max_bytes`.
  virtual Expected<std::string> read(const std::string& path, uint64_t max_bytes) = 0;
  // True when `path` names a readable regular file inside the root.
  virtual bool is_file(const std::string& path) = 0;
  // A short description for messages, e.g. "directory /x" or "git /x at 1a2b3c".
  virtual std::string describe() const = 0;
};

// Lexically normalizes a relative path ("a/./b/../c.h" -> "a/c.h"). Returns
// nullopt for absolute paths, empty paths and paths that climb above the root.
std::optional<std::string> normalize_relative(const std::string& path);

// Parent directory of a normalized relative path ("" for top-level files).
std::string parent_dir(const std::string& path);

// A directory on disk. Symlinks are followed only when their target resolves
// inside `root`; directories reached through symlinks are not descended.
Expected<std::unique_ptr<SourceTree>> open_directory_tree(const std::string& root);

// The tree of a git repository's HEAD commit, read through libgit2 (the work
// tree is ignored). `path` is a work tree or a bare repository.
Expected<std::unique_ptr<SourceTree>> open_git_tree(const std::string& path);

// True when `path` is the root of a git repository (work tree with .git, or bare).
bool is_git_repository(const std::string& path);

// The HEAD commit id (40 hex) of the repository at `path`.
Expected<std::string> git_head_commit(const std::string& path);

}  // namespace clgen::corpus
