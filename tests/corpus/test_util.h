// Helpers for corpus tests (TempDir comes from tests/common): git repositories built
// with the git command line, background processes, and store snapshots.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/common/temp_dir.h"

namespace clgen::testing {

// Writes `content` to `path`, creating parent directories.
void write_text(const std::string& path, const std::string& content);

// Runs git with `args` in `dir`; fails the current test on a non-zero exit.
void git(const std::string& dir, const std::vector<std::string>& args);

// Creates a git repository at `dir` whose single commit holds `files` and
// `symlinks` (path -> link target); returns the commit id.
std::string make_git_repo(const std::string& dir, const std::map<std::string, std::string>& files,
                          const std::map<std::string, std::string>& symlinks = {});

// Writes an archive at `path` with libarchive's writer: `format` is "tar.xz",
// "tar.gz" or "zip"; entries are (name as stored, content) in order, names
// written as given (even absolute or with ".."); then `symlinks` (name, target).
void write_archive(const std::string& path, const std::string& format,
                   const std::vector<std::pair<std::string, std::string>>& entries,
                   const std::vector<std::pair<std::string, std::string>>& symlinks = {});

// Starts argv in the background, stdout/stderr to `log`; returns its pid.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log);
// Sends `sig` and reaps; returns the wait status.
int kill_and_wait(pid_t pid, int sig);
// Waits for the process to exit; returns its exit code (128+signal if killed).
int wait_exit(pid_t pid);

// True once `pred` holds, polling every 20 ms for at most `seconds`.
bool wait_until(const std::function<bool()>& pred, double seconds);

// The corpus tables of a workspace database as sorted rows without ids or
// timestamps, so two stores can be compared for equality.
struct StoreSnapshot {
  std::vector<std::string> contents;      // sha256|size|language
  std::vector<std::string> origins;       // source|commit|path|sha256|role
  std::vector<std::string> skipped;       // source|commit|path|reason
  std::vector<std::string> repositories;  // source|kind|commit|owner|name|stars|forks|license|domain
  bool operator==(const StoreSnapshot& o) const;
};
StoreSnapshot snapshot_store(const std::string& db_path);

}  // namespace clgen::testing
